//! `visual = [ … ]` of a `[[body]]`: the shapes an animation draws for the
//! body, each placed in the body frame. They do not enter the dynamics.

use super::fields::{number, string, wrong_type, Expressions, Fields};
use super::joint::origin;
use crate::error::Problem;
use crate::expr::Expr;
use crate::model::{Origin, Shape, Visual};
use crate::source::Span;
use crate::toml_tree::{Node, Value};

/// The keys naming a shape; a visual has exactly one.
const SHAPES: [&str; 5] = ["box", "cylinder", "sphere", "capsule", "mesh"];

/// Reads a body's `visual` array (one table per shape).
pub(super) fn read(node: &Node, exprs: Expressions) -> Result<Vec<Visual>, Problem> {
    let Value::Array(items) = &node.value else {
        return Err(wrong_type(node, "`visual`", "an array of tables"));
    };
    items.iter().map(|item| visual(item, exprs)).collect()
}

fn visual(node: &Node, exprs: Expressions) -> Result<Visual, Problem> {
    let mut allowed = SHAPES.to_vec();
    allowed.extend(["origin", "color", "scale"]);
    let fields = Fields::of(node, "a visual", &allowed)?;
    let mut shapes = fields
        .entries()
        .filter(|e| SHAPES.contains(&e.key.as_str()));
    let Some(entry) = shapes.next() else {
        return Err(Problem::new(
            node.span,
            "a visual without a shape",
            "this visual draws nothing",
            "give one of `box = [x, y, z]`, `cylinder = { radius, length }`, `sphere = r`, \
             `capsule = { radius, length }`, `mesh = \"file.stl\"`",
        ));
    };
    if let Some(second) = shapes.next() {
        return Err(Problem::new(
            second.key_span,
            format!(
                "a visual with two shapes: `{}` and `{}`",
                entry.key, second.key
            ),
            "second shape",
            "write each shape as its own visual: `visual = [{ box = … }, { sphere = … }]`",
        ));
    }
    let value = &entry.value;
    let shape = match entry.key.as_str() {
        "box" => Shape::Box(exprs.exprs(value, "`box`")?),
        "cylinder" => {
            let (radius, length) = round(value, "`cylinder`", exprs)?;
            Shape::Cylinder { radius, length }
        }
        "capsule" => {
            let (radius, length) = round(value, "`capsule`", exprs)?;
            Shape::Capsule { radius, length }
        }
        "sphere" => Shape::Sphere(exprs.expr(value, "`sphere`")?),
        _ => Shape::Mesh {
            path: string(value, "`mesh`")?.to_owned(),
        },
    };
    if let (Some(scale), false) = (
        fields.optional("scale"),
        matches!(shape, Shape::Mesh { .. }),
    ) {
        return Err(Problem::new(
            scale.span,
            "`scale` applies to a mesh only",
            "not a mesh",
            "give the shape's own sizes instead",
        ));
    }
    let scale = match fields.optional("scale") {
        Some(scale) => Some(exprs.exprs(scale, "`scale`")?),
        None => None,
    };
    let origin = match fields.optional("origin") {
        Some(node) => origin(node, exprs)?,
        None => Origin {
            translation: [0.0, 0.0, 0.0].map(|x| Expr::number(x, node.span)),
            rotation: Vec::new(),
        },
    };
    let color = match fields.optional("color") {
        Some(node) => Some(color(node)?),
        None => None,
    };
    Ok(Visual {
        shape,
        scale,
        origin,
        color,
        span: entry.key_span,
    })
}

/// `{ radius = r, length = l }`.
fn round(node: &Node, what: &str, exprs: Expressions) -> Result<(Expr, Expr), Problem> {
    let fields = Fields::of(node, what, &["radius", "length"])?;
    Ok((
        exprs.expr(fields.required("radius")?, &format!("{what}.radius"))?,
        exprs.expr(fields.required("length")?, &format!("{what}.length"))?,
    ))
}

/// `"#rrggbb"` or `[r, g, b]` with components in `[0, 1]`.
fn color(node: &Node) -> Result<[f64; 3], Problem> {
    let bad = |span: Span| {
        Problem::new(
            span,
            "a color is `\"#rrggbb\"` or `[r, g, b]` with components from 0 to 1",
            "not a color",
            "for example `color = \"#4682b4\"` or `color = [0.27, 0.51, 0.71]`",
        )
    };
    match &node.value {
        Value::String(text) => {
            let hex = text
                .strip_prefix('#')
                .filter(|h| h.len() == 6 && h.is_ascii());
            let channel = |i: usize| {
                hex.and_then(|h| h.get(2 * i..2 * i + 2))
                    .and_then(|c| u8::from_str_radix(c, 16).ok())
                    .map(|c| f64::from(c) / 255.0)
            };
            match (channel(0), channel(1), channel(2)) {
                (Some(r), Some(g), Some(b)) => Ok([r, g, b]),
                _ => Err(bad(node.span)),
            }
        }
        Value::Array(items) if items.len() == 3 => {
            let mut rgb = [0.0; 3];
            for (slot, item) in rgb.iter_mut().zip(items) {
                let value = number(item, "a color component")?;
                if !(0.0..=1.0).contains(&value) {
                    return Err(bad(item.span));
                }
                *slot = value;
            }
            Ok(rgb)
        }
        _ => Err(bad(node.span)),
    }
}
