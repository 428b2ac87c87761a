//! `[[joint]]` tables: type, bodies, axis, coordinate and placement.

use super::fields::{array, boolean, string, unit_axis, wrong_type, zeros, Expressions, Fields};
use crate::error::Problem;
use crate::expr::Expr;
use crate::model::{
    Clearance, ContactLaw, ElementaryRotation, Gear, Joint, JointKind, Limits, Mimic, Origin,
};
use crate::suggest::did_you_mean;
use crate::toml_tree::{Node, Value};

/// The keys of `origin` that give its rotation; at most one may appear.
const ROTATION_KEYS: [&str; 4] = ["rpy", "axis_angle", "matrix", "rotations"];

/// Reads one `[[joint]]` table.
pub(super) fn read(node: &Node, exprs: Expressions) -> Result<Joint, Problem> {
    let fields = Fields::of(
        node,
        "[[joint]]",
        &[
            "name",
            "type",
            "parent",
            "child",
            "axis",
            "axis2",
            "coordinate",
            "origin",
            "child_origin",
            "cut",
            "limits",
            "damping",
            "friction",
            "friction_speed",
            "armature",
            "clearance",
            "gear",
            "mimic",
            "detach",
        ],
    )?;
    let name_node = fields.required("name")?;
    let name = string(name_node, "`name`")?.to_owned();
    let kind = kind(fields.required("type")?)?;
    let parent = fields.required("parent")?;
    let child = fields.required("child")?;
    let (axis, axis_span) = match (kind.has_axis(), fields.optional("axis")) {
        (true, _) => {
            let node = fields.required("axis")?;
            (unit_axis(node, "joint axis")?, node.span)
        }
        (false, None) => ([0.0, 0.0, 1.0], name_node.span),
        (false, Some(node)) => {
            return Err(Problem::new(
                node.span,
                format!("a {} joint has no `axis`", kind.name()),
                "not used by this joint type",
                "remove `axis`; orient the joint frame with `origin` instead",
            ))
        }
    };
    let axis2 = match (kind, fields.optional("axis2")) {
        (JointKind::Universal, _) => {
            let node = fields.required("axis2")?;
            let second = unit_axis(node, "second joint axis")?;
            let cross = [
                axis[1] * second[2] - axis[2] * second[1],
                axis[2] * second[0] - axis[0] * second[2],
                axis[0] * second[1] - axis[1] * second[0],
            ];
            if cross.iter().map(|c| c * c).sum::<f64>() < 1e-12 {
                return Err(Problem::new(
                    node.span,
                    "the universal joint's axes are parallel",
                    "parallel to `axis`",
                    "a universal joint needs two different directions, e.g. axis = [1, 0, 0], axis2 = [0, 1, 0]",
                ));
            }
            Some(second)
        }
        (_, None) => None,
        (_, Some(node)) => {
            return Err(Problem::new(
                node.span,
                format!("a {} joint has no `axis2`", kind.name()),
                "only universal joints have a second axis",
                "remove `axis2`",
            ))
        }
    };
    let optional_expr = |key: &str| {
        fields
            .optional(key)
            .map(|value| exprs.expr(value, &format!("`{key}`")))
            .transpose()
    };
    let cut_mark = match fields.optional("cut") {
        Some(node) => boolean(node, "`cut`")?.then_some(node.span),
        None => None,
    };
    Ok(Joint {
        span: name_node.span,
        coordinate: match fields.optional("coordinate") {
            Some(c) => string(c, "`coordinate`")?.to_owned(),
            None => name.clone(),
        },
        coordinate_span: fields
            .optional("coordinate")
            .map_or(name_node.span, |c| c.span),
        name,
        kind,
        parent: string(parent, "`parent`")?.to_owned(),
        parent_span: parent.span,
        child: string(child, "`child`")?.to_owned(),
        child_span: child.span,
        axis,
        axis2,
        axis_span,
        origin: match fields.optional("origin") {
            Some(origin) => self::origin(origin, exprs)?,
            None => Origin {
                translation: zeros(name_node.span),
                rotation: Vec::new(),
            },
        },
        child_origin: fields
            .optional("child_origin")
            .map(|node| self::origin(node, exprs))
            .transpose()?,
        cut: cut_mark.is_some(),
        cut_mark,
        limits: fields
            .optional("limits")
            .map(|node| limits(node, exprs))
            .transpose()?,
        damping: optional_expr("damping")?,
        friction: optional_expr("friction")?,
        friction_speed: optional_expr("friction_speed")?,
        armature: match fields.optional("armature") {
            Some(node) => armature(node, exprs)?,
            None => Vec::new(),
        },
        clearance: fields
            .optional("clearance")
            .map(|node| clearance(node, exprs))
            .transpose()?,
        gear: fields
            .optional("gear")
            .map(|node| gear(node, exprs))
            .transpose()?,
        mimic: fields
            .optional("mimic")
            .map(|node| mimic(node, exprs))
            .transpose()?,
        detach: fields
            .optional("detach")
            .map(|node| super::detach::read(node, exprs))
            .transpose()?,
    })
}

/// `mimic = { joint = "leader", multiplier = .., offset = .. }`; the
/// multiplier defaults to 1 and the offset to 0.
fn mimic(node: &Node, exprs: Expressions) -> Result<Mimic, Problem> {
    let fields = Fields::of(node, "`mimic`", &["joint", "multiplier", "offset"])?;
    let leader = fields.required("joint")?;
    let or_default = |key: &str, default: f64| -> Result<Expr, Problem> {
        match fields.optional(key) {
            Some(value) => exprs.expr(value, &format!("`mimic.{key}`")),
            None => Ok(Expr::number(default, node.span)),
        }
    };
    Ok(Mimic {
        joint: string(leader, "`mimic.joint`")?.to_owned(),
        joint_span: leader.span,
        multiplier: or_default("multiplier", 1.0)?,
        offset: or_default("offset", 0.0)?,
        span: node.span,
    })
}

/// The keys of a contact law, shared by `limits`, `clearance` and `gear`.
const LAW_KEYS: [&str; 3] = ["stiffness", "dissipation", "decay"];

/// `limits = { lower = .., upper = .., effort = .., velocity = .. }`, each
/// key optional but at least one given; with `stiffness` and `decay` (and
/// optionally `dissipation`) the bounds become stops.
fn limits(node: &Node, exprs: Expressions) -> Result<Limits, Problem> {
    const KEYS: [&str; 7] = [
        "lower",
        "upper",
        "effort",
        "velocity",
        "stiffness",
        "dissipation",
        "decay",
    ];
    let fields = Fields::of(node, "`limits`", &KEYS)?;
    if fields.entries().next().is_none() {
        return Err(Problem::new(
            node.span,
            "`limits` is empty",
            "no limit given",
            "give at least one of lower, upper, effort, velocity, or remove `limits`",
        ));
    }
    let limit = |key: &str| -> Result<Option<Expr>, Problem> {
        fields
            .optional(key)
            .map(|value| exprs.expr(value, &format!("`limits.{key}`")))
            .transpose()
    };
    let stops = if LAW_KEYS.iter().any(|key| fields.optional(key).is_some()) {
        Some(contact_law(&fields, exprs, "limits")?)
    } else {
        None
    };
    let limits = Limits {
        lower: limit("lower")?,
        upper: limit("upper")?,
        effort: limit("effort")?,
        velocity: limit("velocity")?,
        stops,
        span: node.span,
    };
    if limits.stops.is_some() && limits.lower.is_none() && limits.upper.is_none() {
        return Err(Problem::new(
            node.span,
            "`limits` gives a contact law but no bound for it to act at",
            "no `lower` or `upper`",
            "add `lower`, `upper` or both: the stops act at the bounds",
        ));
    }
    Ok(limits)
}

/// The contact law in `fields` (a table named `what`): `stiffness` and
/// `decay` required, `dissipation` zero by default.
fn contact_law(fields: &Fields, exprs: Expressions, what: &str) -> Result<ContactLaw, Problem> {
    let required = |key: &str| -> Result<Expr, Problem> {
        let node = fields.optional(key).ok_or_else(|| {
            Problem::new(
                fields.span(),
                format!("`{what}` gives a contact law without `{key}`"),
                format!("no `{key}`"),
                "a contact law is `stiffness = k, decay = a` (and optionally `dissipation = μ`): \
                 F = max(0, k − μ·rate)·exp(−a·gap)",
            )
        })?;
        exprs.expr(node, &format!("`{what}.{key}`"))
    };
    Ok(ContactLaw {
        stiffness: required("stiffness")?,
        decay: required("decay")?,
        dissipation: match fields.optional("dissipation") {
            Some(node) => exprs.expr(node, &format!("`{what}.dissipation`"))?,
            None => Expr::number(0.0, fields.span()),
        },
        span: fields.span(),
    })
}

/// `clearance = { radius = .., stiffness = .., dissipation = .., decay = .. }`.
fn clearance(node: &Node, exprs: Expressions) -> Result<Clearance, Problem> {
    let keys = ["radius", LAW_KEYS[0], LAW_KEYS[1], LAW_KEYS[2]];
    let fields = Fields::of(node, "`clearance`", &keys)?;
    let radius = fields.required("radius")?;
    Ok(Clearance {
        radius: exprs.expr(radius, "`clearance.radius`")?,
        law: contact_law(&fields, exprs, "clearance")?,
        span: node.span,
    })
}

/// `gear = { joint = "driver", ratio = .., offset = .., backlash = .., stiffness = .., … }`;
/// the ratio defaults to 1 and the offset to 0.
fn gear(node: &Node, exprs: Expressions) -> Result<Gear, Problem> {
    let keys = [
        "joint",
        "ratio",
        "offset",
        "backlash",
        LAW_KEYS[0],
        LAW_KEYS[1],
        LAW_KEYS[2],
    ];
    let fields = Fields::of(node, "`gear`", &keys)?;
    let driver = fields.required("joint")?;
    let or_default = |key: &str, default: f64| -> Result<Expr, Problem> {
        match fields.optional(key) {
            Some(value) => exprs.expr(value, &format!("`gear.{key}`")),
            None => Ok(Expr::number(default, node.span)),
        }
    };
    Ok(Gear {
        joint: string(driver, "`gear.joint`")?.to_owned(),
        joint_span: driver.span,
        ratio: or_default("ratio", 1.0)?,
        offset: or_default("offset", 0.0)?,
        backlash: exprs.expr(fields.required("backlash")?, "`gear.backlash`")?,
        law: contact_law(&fields, exprs, "gear")?,
        span: node.span,
    })
}

fn kind(node: &Node) -> Result<JointKind, Problem> {
    let name = string(node, "`type`")?;
    let names = JointKind::ALL.map(|(_, name)| name);
    JointKind::ALL
        .iter()
        .find(|(_, spelling)| *spelling == name)
        .map(|(kind, _)| *kind)
        .ok_or_else(|| {
            Problem::new(
                node.span,
                format!("unknown joint type `{name}`{}", did_you_mean(name, names)),
                "unknown joint type",
                format!(
                    "the joint types are {}",
                    names.map(|n| format!("`{n}`")).join(", ")
                ),
            )
        })
}

/// `origin = { xyz = [...], <at most one rotation key> }`, and the same for
/// `child_origin`.
pub(super) fn origin(node: &Node, exprs: Expressions) -> Result<Origin, Problem> {
    let mut allowed = vec!["xyz"];
    allowed.extend(ROTATION_KEYS);
    let fields = Fields::of(node, "`origin`", &allowed)?;
    let translation = match fields.optional("xyz") {
        Some(xyz) => exprs.exprs(xyz, "`origin.xyz`")?,
        None => zeros(node.span),
    };
    let mut given = fields
        .entries()
        .filter(|e| ROTATION_KEYS.contains(&e.key.as_str()));
    let Some(rotation) = given.next() else {
        return Ok(Origin {
            translation,
            rotation: Vec::new(),
        });
    };
    if let Some(second) = given.next() {
        return Err(Problem::new(
            second.key_span,
            format!("`origin` has more than one rotation: `{}` and `{}`", rotation.key, second.key),
            format!("`{}` already gives the rotation", rotation.key),
            format!(
                "keep only one of {}; to chain rotations use `rotations = [[\"z\", a], [\"x\", b]]`",
                ROTATION_KEYS.join(", ")
            ),
        ));
    }
    let value = &rotation.value;
    let rotation = match rotation.key.as_str() {
        "rpy" => {
            let [roll, pitch, yaw] = exprs.exprs(value, "`origin.rpy`")?;
            vec![
                ElementaryRotation::Z(yaw),
                ElementaryRotation::Y(pitch),
                ElementaryRotation::X(roll),
            ]
        }
        "axis_angle" => {
            let fields = Fields::of(value, "`origin.axis_angle`", &["axis", "angle"])?;
            let axis = unit_axis(fields.required("axis")?, "rotation axis")?;
            let angle = exprs.expr(fields.required("angle")?, "`angle`")?;
            vec![ElementaryRotation::AxisAngle { axis, angle }]
        }
        "matrix" => {
            let rows = array::<3>(value, "`origin.matrix`")?;
            let [r1, r2, r3] = rows
                .each_ref()
                .map(|row| exprs.exprs(row, "each row of `origin.matrix`"));
            vec![ElementaryRotation::Matrix([r1?, r2?, r3?])]
        }
        _ => rotations(value, exprs)?,
    };
    Ok(Origin {
        translation,
        rotation,
    })
}

/// `rotations = [["x", angle], ...]`: successive rotations about the moving
/// axes (of an `origin`, or of a moving base).
pub(crate) fn rotations(
    node: &Node,
    exprs: Expressions,
) -> Result<Vec<ElementaryRotation>, Problem> {
    let Value::Array(items) = &node.value else {
        return Err(wrong_type(
            node,
            "`origin.rotations`",
            "an array of [axis, angle] pairs",
        ));
    };
    let mut rotations = Vec::with_capacity(items.len());
    for item in items {
        let [letter, angle] = array::<2>(item, "each rotation").map_err(|mut p| {
            p.help = "each rotation is a pair [axis, angle], e.g. [\"z\", \"pi/2\"]".into();
            p
        })?;
        let angle = exprs.expr(angle, "the rotation angle")?;
        rotations.push(match string(letter, "the rotation axis")? {
            "x" => ElementaryRotation::X(angle),
            "y" => ElementaryRotation::Y(angle),
            "z" => ElementaryRotation::Z(angle),
            other => {
                return Err(Problem::new(
                    letter.span,
                    format!("unknown rotation axis `{other}`"),
                    "not an axis",
                    "the axes are \"x\", \"y\" and \"z\" (the current, moving axes)",
                ))
            }
        });
    }
    Ok(rotations)
}

/// `armature`: one number or expression for every coordinate of the joint,
/// or an array of them, one per coordinate (its length is checked against
/// the joint type by validation).
fn armature(node: &Node, exprs: Expressions) -> Result<Vec<Expr>, Problem> {
    match &node.value {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| exprs.expr(item, "each element of `armature`"))
            .collect(),
        Value::Array(_) => Err(wrong_type(
            node,
            "`armature`",
            "a number, an expression string or a non-empty array of them",
        )),
        _ => Ok(vec![exprs.expr(node, "`armature`")?]),
    }
}
