//! Numeric checks at the parameters' values: everything is finite, masses
//! are positive, inertias are physical, placement matrices are rotations and
//! joint limits, damping, friction and armature make sense.

use super::inertia::principal_moments;
use crate::document::Document;
use crate::error::Problem;
use crate::expr::{evaluate, evaluate_parameters, Expr};
use crate::model::{Body, ElementaryRotation, Joint, Limits, Origin, Shape};
use std::collections::BTreeMap;

/// Tolerance of the rotation-matrix and triangle-inequality checks.
const TOLERANCE: f64 = 1e-9;

pub(super) fn check(document: &Document) -> Result<(), Problem> {
    let (values, problem) = evaluate_parameters(&document.parameters);
    if let Some(problem) = problem {
        return Err(problem);
    }
    for parameter in &document.parameters {
        if let Some(&value) = values.get(&parameter.name) {
            magnitude(
                value,
                parameter.span,
                &format!("parameter `{}`", parameter.name),
            )?;
        }
    }
    for expr in expressions(document) {
        magnitude(evaluate(expr, &values)?, expr.span, "this value")?;
    }
    for body in &document.bodies {
        mass(body, &values)?;
        inertia(body, &values)?;
        visuals(body, &values)?;
    }
    for joint in &document.joints {
        rotations(joint, &values)?;
        joint_limits(joint, &values)?;
        armature(joint, &values)?;
    }
    Ok(())
}

/// `armature` has one value or one per velocity coordinate of the joint
/// type, none negative.
fn armature(joint: &Joint, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let coordinates = joint.kind.nv();
    let count = joint.armature.len();
    if count > 0 && (coordinates == 0 || count > 1 && count != coordinates) {
        let span = joint.armature.first().map_or(joint.span, |e| e.span);
        return Err(Problem::new(
            span,
            format!(
                "`armature` of joint `{}` has {count} values for {coordinates} coordinates",
                joint.name
            ),
            format!("a {} joint has {coordinates}", joint.kind.name()),
            "give one value for every coordinate, or one per coordinate in order",
        ));
    }
    for expr in &joint.armature {
        not_negative(joint, expr, "armature", values)?;
    }
    Ok(())
}

/// Every expression outside `[parameters]`, in document order.
fn expressions(document: &Document) -> Vec<&Expr> {
    let mut all: Vec<&Expr> = document.gravity.iter().collect();
    all.extend(document.bodies.iter().flat_map(Body::expressions));
    all.extend(document.joints.iter().flat_map(Joint::expressions));
    all
}

/// The magnitudes a value may have (zero aside): the derivation multiplies
/// up to six of them (a mass, squared lengths, inertias, gravity), and
/// every product must stay a normal `f64`, or the generated code computes
/// infinities and NaNs.
const LARGEST: f64 = 1e50;
const SMALLEST: f64 = 1e-50;

fn magnitude(value: f64, span: crate::source::Span, what: &str) -> Result<(), Problem> {
    let size = value.abs();
    if value == 0.0 || (SMALLEST..=LARGEST).contains(&size) {
        return Ok(());
    }
    Err(Problem::new(
        span,
        format!(
            "{what} is {}, outside the magnitudes 1e-50 to 1e50 that the derived equations can multiply without overflowing f64",
            short(value)
        ),
        "out of range",
        "check the exponent, or write the mechanism in other units (tonnes, kilometres, …)",
    ))
}

fn mass(body: &Body, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let m = evaluate(&body.mass, values)?;
    if m > 0.0 {
        return Ok(());
    }
    Err(Problem::new(
        body.mass.span,
        format!("mass of body `{}` must be positive, found {}", body.name, short(m)),
        format!("evaluates to {}", short(m)),
        "masses are in kg and greater than zero; check the expression and the parameter values it uses",
    ))
}

/// Every visual's sizes are positive (a capsule's length may be zero), its
/// mesh scale nonzero, and its placement's matrix a rotation.
fn visuals(body: &Body, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    for visual in &body.visuals {
        let sizes: Vec<(&Expr, &str, bool)> = match &visual.shape {
            Shape::Box(sizes) => sizes.iter().map(|s| (s, "a box's edge", false)).collect(),
            Shape::Cylinder { radius, length } => {
                vec![(radius, "a radius", false), (length, "a length", false)]
            }
            Shape::Capsule { radius, length } => {
                vec![(radius, "a radius", false), (length, "a length", true)]
            }
            Shape::Sphere(radius) => vec![(radius, "a radius", false)],
            Shape::Mesh { .. } => Vec::new(),
        };
        for (expr, what, zero_allowed) in sizes {
            let value = evaluate(expr, values)?;
            if value > 0.0 || (zero_allowed && value == 0.0) {
                continue;
            }
            return Err(Problem::new(
                expr.span,
                format!(
                    "{what} of a visual of body `{}` must be positive, found {}",
                    body.name,
                    short(value)
                ),
                format!("evaluates to {}", short(value)),
                "visual sizes are in m, greater than zero",
            ));
        }
        for expr in visual.scale.iter().flatten() {
            if evaluate(expr, values)? == 0.0 {
                return Err(Problem::new(
                    expr.span,
                    format!("a mesh of body `{}` is scaled by zero", body.name),
                    "zero scale",
                    "give each axis a nonzero scale (negative mirrors the mesh)",
                ));
            }
        }
        placement_rotations(
            &format!("a visual of body `{}`", body.name),
            std::iter::once(("origin", &visual.origin)),
            values,
        )?;
    }
    Ok(())
}

/// Symmetric positive definite, with principal moments that satisfy the
/// triangle inequality (as every real mass distribution does).
fn inertia(body: &Body, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let i = &body.inertia;
    let mut entries = [0.0; 6];
    for (value, expr) in entries
        .iter_mut()
        .zip([&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz])
    {
        *value = evaluate(expr, values)?;
    }
    let [xx, yy, zz, xy, xz, yz] = entries;
    let moments = principal_moments([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]);
    let listed = moments.map(short).join(", ");
    let [smallest, middle, largest] = moments;
    if smallest <= 0.0 {
        return Err(Problem::new(
            i.span,
            format!("inertia of body `{}` is not positive definite: principal moments {listed}", body.name),
            "not positive definite",
            "moments of inertia (kg·m²) are positive and the products of inertia are small against them; \
             check signs and units",
        ));
    }
    if largest - (smallest + middle) > TOLERANCE * largest {
        return Err(Problem::new(
            i.span,
            format!(
                "inertia of body `{}` violates the triangle inequality: principal moments {} + {} < {}",
                body.name,
                short(smallest),
                short(middle),
                short(largest)
            ),
            "no rigid body has these moments",
            "every rigid body has I₁ + I₂ ≥ I₃; check that the inertia is about the centre of mass, in body axes",
        ));
    }
    Ok(())
}

/// Placement matrices must be rotations: orthonormal with determinant +1.
fn rotations(joint: &Joint, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let placements = std::iter::once(("origin", &joint.origin))
        .chain(joint.child_origin.iter().map(|o| ("child_origin", o)));
    placement_rotations(&format!("joint `{}`", joint.name), placements, values)
}

/// Every rotation matrix of `placements` (key, placement) of `owner` (a
/// joint, a body's visual) is a rotation.
fn placement_rotations<'a>(
    owner: &str,
    placements: impl Iterator<Item = (&'a str, &'a Origin)>,
    values: &BTreeMap<String, f64>,
) -> Result<(), Problem> {
    for (key, rotation) in placements.flat_map(|(key, o)| o.rotation.iter().map(move |r| (key, r)))
    {
        let ElementaryRotation::Matrix(rows) = rotation else {
            continue;
        };
        let mut r = [[0.0; 3]; 3];
        for (row, exprs) in r.iter_mut().zip(rows) {
            for (value, expr) in row.iter_mut().zip(exprs) {
                *value = evaluate(expr, values)?;
            }
        }
        let span = rows[0][0].span.to(rows[2][2].span);
        let mut deviation = 0.0_f64;
        for (i, row) in r.iter().enumerate() {
            for (k, other) in r.iter().enumerate() {
                let dot: f64 = row.iter().zip(other).map(|(a, b)| a * b).sum();
                deviation = deviation.max((dot - if i == k { 1.0 } else { 0.0 }).abs());
            }
        }
        let determinant = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
            - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
            + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
        let problem = if deviation > TOLERANCE {
            format!(
                "rows are not orthonormal (R·Rᵀ differs from I by {})",
                short(deviation)
            )
        } else if (determinant - 1.0).abs() > TOLERANCE {
            format!(
                "its determinant is {} (a reflection, not a rotation)",
                short(determinant)
            )
        } else {
            continue;
        };
        return Err(Problem::new(
            span,
            format!("`{key}.matrix` of {owner} is not a rotation: {problem}"),
            "not a rotation matrix",
            "give an exact rotation (entries like \"sqrt(2)/2\" are exact enough), or use rpy, axis_angle or rotations",
        ));
    }
    Ok(())
}

/// `lower ≤ upper`, and the magnitudes (effort, velocity, damping,
/// friction) are not negative.
fn joint_limits(joint: &Joint, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    if let Some(Limits {
        lower: Some(lower),
        upper: Some(upper),
        ..
    }) = &joint.limits
    {
        let (low, high) = (evaluate(lower, values)?, evaluate(upper, values)?);
        if low > high {
            return Err(Problem::new(
                upper.span,
                format!(
                    "upper limit of joint `{}` is below its lower limit: {} < {}",
                    joint.name,
                    short(high),
                    short(low)
                ),
                format!("evaluates to {}", short(high)),
                "limits are `lower ≤ upper`; check their order and signs",
            ));
        }
    }
    let limits = joint.limits.as_ref();
    let magnitudes = [
        ("effort limit", limits.and_then(|l| l.effort.as_ref())),
        ("velocity limit", limits.and_then(|l| l.velocity.as_ref())),
        ("damping", joint.damping.as_ref()),
        ("friction", joint.friction.as_ref()),
    ];
    for (what, expr) in magnitudes {
        if let Some(expr) = expr {
            not_negative(joint, expr, what, values)?;
        }
    }
    Ok(())
}

/// `expr`, the `what` of `joint`, is at least zero.
pub(super) fn not_negative(
    joint: &Joint,
    expr: &Expr,
    what: &str,
    values: &BTreeMap<String, f64>,
) -> Result<(), Problem> {
    let value = evaluate(expr, values)?;
    if value >= 0.0 {
        return Ok(());
    }
    Err(Problem::new(
        expr.span,
        format!(
            "{what} of joint `{}` is negative: {}",
            joint.name,
            short(value)
        ),
        format!("evaluates to {}", short(value)),
        format!("the {what} is a magnitude: give a value ≥ 0"),
    ))
}

/// `expr`, the `what` of `joint`, is greater than zero.
pub(super) fn positive(
    joint: &Joint,
    expr: &Expr,
    what: &str,
    values: &BTreeMap<String, f64>,
) -> Result<(), Problem> {
    let value = evaluate(expr, values)?;
    if value > 0.0 {
        return Ok(());
    }
    Err(Problem::new(
        expr.span,
        format!(
            "{what} of joint `{}` must be positive, found {}",
            joint.name,
            short(value)
        ),
        format!("evaluates to {}", short(value)),
        format!("give the {what} a value > 0"),
    ))
}

/// A number for messages: six significant decimals, no trailing zeros.
fn short(x: f64) -> String {
    let fixed = format!("{x:.6}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if x != 0.0 && (trimmed == "0" || trimmed == "-0" || x.abs() >= 1e9) {
        format!("{x:.3e}")
    } else {
        trimmed.to_owned()
    }
}
