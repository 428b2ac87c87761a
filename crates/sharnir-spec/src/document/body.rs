//! `[[body]]` tables: name, mass properties and the shapes drawn for it.

use super::fields::{string, wrong_type, zeros, Expressions, Fields};
use crate::error::Problem;
use crate::expr::Expr;
use crate::model::{Body, Inertia};
use crate::toml_tree::{Node, Value};

/// Reads one `[[body]]` table.
pub(super) fn read(node: &Node, exprs: Expressions) -> Result<Body, Problem> {
    let fields = Fields::of(
        node,
        "[[body]]",
        &["name", "mass", "com", "inertia", "visual"],
    )?;
    let name = fields.required("name")?;
    let mass = exprs.expr(fields.required("mass")?, "`mass`")?;
    let com = match fields.optional("com") {
        Some(com) => exprs.exprs(com, "`com`")?,
        None => zeros(name.span),
    };
    let inertia = inertia(fields.required("inertia")?, exprs)?;
    let visuals = match fields.optional("visual") {
        Some(node) => super::visual::read(node, exprs)?,
        None => Vec::new(),
    };
    Ok(Body {
        name: string(name, "`name`")?.to_owned(),
        span: name.span,
        mass,
        com,
        inertia,
        visuals,
    })
}

/// `[xx, yy, zz]`, `[xx, yy, zz, xy, xz, yz]` or a table of those keys.
fn inertia(node: &Node, exprs: Expressions) -> Result<Inertia, Problem> {
    let zero = || Expr::number(0.0, node.span);
    let [xx, yy, zz, xy, xz, yz] = match &node.value {
        Value::Array(items) if items.len() == 3 => {
            let [xx, yy, zz] = exprs.exprs(node, "`inertia`")?;
            [xx, yy, zz, zero(), zero(), zero()]
        }
        Value::Array(items) if items.len() == 6 => exprs.exprs(node, "`inertia`")?,
        Value::Array(items) => return Err(Problem::new(
            node.span,
            format!("`inertia` must have 3 or 6 elements, found {}", items.len()),
            "expected [xx, yy, zz] or [xx, yy, zz, xy, xz, yz]",
            "give the diagonal, all six entries, or a table { xx = .., yy = .., zz = .., xy = .. }",
        )),
        Value::Table(_) => {
            let table = Fields::of(node, "`inertia`", &["xx", "yy", "zz", "xy", "xz", "yz"])?;
            let diagonal =
                |key: &str| exprs.expr(table.required(key)?, &format!("`inertia.{key}`"));
            let product = |key: &str| match table.optional(key) {
                Some(value) => exprs.expr(value, &format!("`inertia.{key}`")),
                None => Ok(zero()),
            };
            [
                diagonal("xx")?,
                diagonal("yy")?,
                diagonal("zz")?,
                product("xy")?,
                product("xz")?,
                product("yz")?,
            ]
        }
        _ => {
            return Err(wrong_type(
                node,
                "`inertia`",
                "an array of 3 or 6 or a table",
            ))
        }
    };
    Ok(Inertia {
        xx,
        yy,
        zz,
        xy,
        xz,
        yz,
        span: node.span,
    })
}
