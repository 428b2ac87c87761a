//! Detachable joints: which joints can let go, and on what condition.
//!
//! Runs after the cut joints are marked. A tree joint that lets go leaves
//! its child on a free joint (see [`crate::Spec::release`]), which needs a
//! joint with coordinates to replace; a cut joint simply stops constraining.
//! A reaction can be watched on any detachable joint: Newton–Euler's
//! backward pass gives a tree joint's (with the cut joints' reactions on
//! the bodies beyond it), the multipliers a cut joint's.

use super::values::not_negative;
use crate::document::Document;
use crate::error::Problem;
use crate::expr::evaluate;
use crate::model::{Joint, JointKind, Release};
use std::collections::BTreeMap;

/// The most detachable joints a spec may have: every subset of them is a
/// variant module, so their number doubles with each.
pub(crate) const MAX_DETACHABLE: usize = 4;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let detachable: Vec<&Joint> = document
        .joints
        .iter()
        .filter(|j| j.detach.is_some())
        .collect();
    if let Some(extra) = detachable.get(MAX_DETACHABLE) {
        return Err(Problem::new(
            extra.detach.as_ref().map_or(extra.span, |d| d.span),
            format!(
                "more than {MAX_DETACHABLE} joints are detachable; every subset of them is a \
                 generated module"
            ),
            "one detachable joint too many",
            "split the mechanism, or release several joints with one (the joint whose release \
             frees them all)",
        ));
    }
    for joint in detachable {
        check_joint(document, joint, values)?;
    }
    Ok(())
}

fn check_joint(
    document: &Document,
    joint: &Joint,
    values: &BTreeMap<String, f64>,
) -> Result<(), Problem> {
    let Some(detach) = &joint.detach else {
        return Ok(());
    };
    let refuse = |label: &str, message: String, help: &str| {
        Err(Problem::new(detach.span, message, label, help))
    };
    if joint.mimic.is_some() {
        return refuse(
            "a follower",
            format!(
                "joint `{}` follows another joint and cannot let go",
                joint.name
            ),
            "give the joint its own coordinate, or detach the joint it follows",
        );
    }
    if let Some(follower) = document.joints.iter().find(|j| {
        j.mimic.as_ref().is_some_and(|m| m.joint == joint.name)
            || j.gear.as_ref().is_some_and(|g| g.joint == joint.name)
    }) {
        return refuse(
            "drives another joint",
            format!(
                "joint `{}` drives joint `{}` and cannot let go",
                joint.name, follower.name
            ),
            "a follower or a gear would lose its driver: detach a joint that drives nothing",
        );
    }
    if !joint.cut {
        match joint.kind {
            JointKind::Fixed => {
                return refuse(
                    "a fixed tree joint",
                    format!(
                        "joint `{}` is fixed: its child is lumped into its parent, so it has no \
                         reaction or coordinates to release",
                        joint.name
                    ),
                    "model the latch as a loop: hang the released body on a `free` joint from \
                     `ground`, and weld it with this `fixed` joint marked `cut = true`; the cut \
                     joint then lets go at its `detach` time",
                );
            }
            JointKind::Free => {
                return refuse(
                    "already free",
                    format!(
                        "joint `{}` is free: there is nothing to let go of",
                        joint.name
                    ),
                    "remove `detach`",
                );
            }
            _ => {}
        }
    }
    match &detach.release {
        Release::At(time) => {
            not_negative(joint, time, "release time", values)?;
        }
        Release::Reaction { threshold, .. } => {
            evaluate(threshold, values)?;
        }
    }
    Ok(())
}
