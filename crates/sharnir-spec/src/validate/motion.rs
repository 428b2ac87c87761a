//! `[motion]` against the mechanism: every key is a velocity coordinate
//! whose position's rate it is (not a spherical or free joint's), named
//! once, not also set by `[initial]`; every law reads only parameters and
//! `t` and is twice differentiable at the start; in a mechanism with
//! loops, the prescribed coordinates are among `independent`, which
//! assembly holds.

use crate::document::Document;
use crate::error::Problem;
use crate::expr::{jet, Jet};
use crate::model::{AppliedForce, JointKind, PrescribedMotion};
use crate::suggest::did_you_mean;
use std::collections::BTreeMap;

const TIME: &str = AppliedForce::TIME;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let Some(first) = document.motion.first() else {
        return Ok(());
    };
    if let Some(parameter) = document.parameters.iter().find(|p| p.name == TIME) {
        return Err(Problem::new(
            parameter.span,
            "parameter `t` has the name of time, which [motion] reads",
            "ambiguous in [motion]",
            "rename the parameter",
        ));
    }
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
        for (name, span) in motion.law.parameters() {
            if name != TIME && !document.parameters.iter().any(|p| p.name == name) {
                let candidates = document
                    .parameters
                    .iter()
                    .map(|p| p.name.as_str())
                    .chain([TIME]);
                return Err(Problem::new(
                    span,
                    format!(
                        "unknown name `{name}` in the law of `{}`{}",
                        motion.coordinate,
                        did_you_mean(name, candidates)
                    ),
                    "not a parameter or time",
                    "a law of motion reads parameters and time `t` only",
                ));
            }
        }
        start(motion, values)?;
    }
    Ok(())
}

/// The law's position, rate and acceleration at `t = 0`, or why they are
/// not finite there.
pub(crate) fn start(
    motion: &PrescribedMotion,
    values: &BTreeMap<String, f64>,
) -> Result<Jet, Problem> {
    jet(
        &motion.law,
        values,
        TIME,
        0.0,
        &format!("the law of `{}`", motion.coordinate),
    )
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
