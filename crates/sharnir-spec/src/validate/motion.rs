//! `[motion]` against the mechanism: every key is a velocity coordinate
//! whose position's rate it is (not a spherical or free joint's), named
//! once, not also set by `[initial]`; every law reads only parameters and
//! `t` and is twice differentiable at the start; in a mechanism with
//! loops, the prescribed coordinates are among `independent`, which
//! assembly holds.

use crate::document::Document;
use crate::error::Problem;
use crate::expr::{jet, Expr, Jet};
use crate::model::{AppliedForce, JointKind, PrescribedMotion};
use crate::suggest::did_you_mean;
use std::collections::BTreeMap;

const TIME: &str = AppliedForce::TIME;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let Some(first) = document.motion.first() else {
        return Ok(());
    };
    no_parameter_named_time(document, "[motion]")?;
    let (_, velocities) = document.coordinate_names();
    let has_loops = document.joints.iter().any(|j| j.cut);
    if has_loops && document.independent.is_empty() {
        return Err(Problem::new(
            first.span,
            "[motion] prescribes coordinates of a mechanism with loops whose `independent` \
             coordinates are not named",
            "prescribed here",
            "list the prescribed coordinates (and any other independent ones) in \
             `independent = [...]` under [mechanism]: assembly holds them",
        ));
    }
    for (i, motion) in document.motion.iter().enumerate() {
        coordinate(document, motion, &velocities)?;
        if document.motion[..i]
            .iter()
            .any(|m| m.coordinate == motion.coordinate)
        {
            return Err(Problem::new(
                motion.span,
                format!("the law of `{}` is given twice", motion.coordinate),
                "again",
                "give one law per coordinate",
            ));
        }
        if has_loops
            && !document
                .independent
                .iter()
                .any(|c| c.name == motion.coordinate)
        {
            return Err(Problem::new(
                motion.span,
                format!(
                    "`{}` is prescribed but not independent: assembly moves it to close the loops",
                    motion.coordinate
                ),
                "a dependent coordinate",
                "prescribe independent coordinates only: name it in `independent = [...]` \
                 under [mechanism] in place of another",
            ));
        }
        set_by_initial(document, motion)?;
        law(document, &motion.coordinate, &motion.law, values)?;
    }
    Ok(())
}

/// Refuses a parameter named `t` where `table`'s laws read time.
pub(super) fn no_parameter_named_time(document: &Document, table: &str) -> Result<(), Problem> {
    match document.parameters.iter().find(|p| p.name == TIME) {
        Some(parameter) => Err(Problem::new(
            parameter.span,
            format!("parameter `t` has the name of time, which {table} reads"),
            format!("ambiguous in {table}"),
            "rename the parameter",
        )),
        None => Ok(()),
    }
}

/// A law of coordinate `name` (of `[motion]` or `[base]`): it reads only
/// parameters and `t`, and its position, rate and acceleration at `t = 0`
/// are finite, which it returns.
pub(super) fn law(
    document: &Document,
    name: &str,
    law: &Expr,
    values: &BTreeMap<String, f64>,
) -> Result<Jet, Problem> {
    for (parameter, span) in law.parameters() {
        if parameter != TIME && !document.parameters.iter().any(|p| p.name == parameter) {
            let candidates = document
                .parameters
                .iter()
                .map(|p| p.name.as_str())
                .chain([TIME]);
            return Err(Problem::new(
                span,
                format!(
                    "unknown name `{parameter}` in the law of `{name}`{}",
                    did_you_mean(parameter, candidates)
                ),
                "not a parameter or time",
                "a law of motion reads parameters and time `t` only",
            ));
        }
    }
    start(name, law, values)
}

/// The law's position, rate and acceleration at `t = 0`, or why they are
/// not finite there.
pub(crate) fn start(
    name: &str,
    law: &Expr,
    values: &BTreeMap<String, f64>,
) -> Result<Jet, Problem> {
    jet(law, values, TIME, 0.0, &format!("the law of `{name}`"))
}

/// The key names a velocity coordinate that is its position's rate.
fn coordinate(
    document: &Document,
    motion: &PrescribedMotion,
    velocities: &[String],
) -> Result<(), Problem> {
    if !velocities.contains(&motion.coordinate) {
        return Err(Problem::new(
            motion.span,
            format!(
                "unknown coordinate `{}` in [motion]{}",
                motion.coordinate,
                did_you_mean(&motion.coordinate, velocities.iter().map(String::as_str))
            ),
            "not a velocity coordinate",
            format!(
                "[motion] takes the velocity coordinates: {}",
                velocities.join(", ")
            ),
        ));
    }
    let joint = document
        .joints
        .iter()
        .find(|j| j.velocity_names().contains(&motion.coordinate));
    if let Some(joint) = joint.filter(|j| matches!(j.kind, JointKind::Spherical | JointKind::Free))
    {
        return Err(Problem::new(
            motion.span,
            format!(
                "`{}` is a velocity of {} joint `{}`, whose orientation is a quaternion",
                motion.coordinate,
                joint.kind.name(),
                joint.name
            ),
            "not the rate of a coordinate",
            "prescribe revolute, prismatic, cylindrical, universal or planar coordinates; \
             split a spherical joint into three revolute joints to drive its angles",
        ));
    }
    Ok(())
}

/// A prescribed coordinate starts where its law does: `[initial]` must not
/// set it too.
fn set_by_initial(document: &Document, motion: &PrescribedMotion) -> Result<(), Problem> {
    let table = &document.initial;
    let entry = table
        .positions
        .iter()
        .chain(&table.velocities)
        .find(|e| e.name == motion.coordinate);
    match entry {
        Some(entry) => Err(Problem::new(
            entry.span,
            format!(
                "`{}` is prescribed by [motion]; its initial position and rate are its law's at t = 0",
                motion.coordinate
            ),
            "set by its law",
            "remove it from [initial], or shift the law in time",
        )),
        None => Ok(()),
    }
}
