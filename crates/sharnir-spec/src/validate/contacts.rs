//! Stops, clearances and gear meshes against the joints they act on: each
//! needs coordinates of the right kind to measure its gap, and a contact
//! law with physical coefficients.
//!
//! Runs after the cut joints are marked: a cut joint has no coordinate for
//! a contact to act on.

use super::values::{not_negative, positive};
use crate::document::Document;
use crate::error::Problem;
use crate::expr::evaluate;
use crate::model::{ContactLaw, Joint, JointKind, CONTACT_REACH};
use crate::source::Span;
use crate::suggest::did_you_mean;
use std::collections::BTreeMap;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    for joint in &document.joints {
        if let Some(law) = joint.limits.as_ref().and_then(|l| l.stops.as_ref()) {
            acts_on_one_coordinate(joint, law.span, "stops")?;
            check_law(joint, law, values)?;
        }
        if let Some(clearance) = &joint.clearance {
            if joint.kind != JointKind::Planar || joint.cut {
                return Err(Problem::new(
                    clearance.span,
                    format!(
                        "joint `{}` is a {}{} joint; a clearance needs a planar joint with coordinates",
                        joint.name,
                        if joint.cut { "cut " } else { "" },
                        joint.kind.name()
                    ),
                    "no planar translation to bound",
                    "model the pin in its hole as `type = \"planar\"` in the tree (the plane is the joint \
                     frame's x–y plane, the pin's axis its z axis)",
                ));
            }
            positive(joint, &clearance.radius, "clearance radius", values)?;
            check_law(joint, &clearance.law, values)?;
            let reach =
                evaluate(&clearance.law.decay, values)? * evaluate(&clearance.radius, values)?;
            if reach < CONTACT_REACH {
                return Err(Problem::new(
                    clearance.law.decay.span,
                    format!(
                        "the contact of joint `{}` reaches the hole's centre: decay × radius is \
                         {reach:.3}, below {CONTACT_REACH}",
                        joint.name
                    ),
                    "decays too slowly for this clearance",
                    format!(
                        "the contact force falls below 1e-12 of its value at the boundary only \
                         {CONTACT_REACH}/decay inside it, and at the centre its direction is undefined: \
                         raise `decay` to at least {CONTACT_REACH}/radius"
                    ),
                ));
            }
        }
        if let Some(gear) = &joint.gear {
            acts_on_one_coordinate(joint, gear.span, "a gear mesh")?;
            if joint.mimic.is_some() {
                return Err(Problem::new(
                    gear.span,
                    format!(
                        "joint `{}` both mimics a joint and meshes with one",
                        joint.name
                    ),
                    "a follower has no coordinate of its own",
                    "keep `gear` (a mesh with backlash) or `mimic` (a rigid coupling), not both",
                ));
            }
            driver(document, joint, &gear.joint, gear.joint_span)?;
            not_negative(joint, &gear.backlash, "gear backlash", values)?;
            check_law(joint, &gear.law, values)?;
        }
        if let Some(speed) = &joint.friction_speed {
            positive(joint, speed, "friction speed", values)?;
        }
        if let (true, Some(first)) = (joint.cut, joint.armature.first()) {
            return Err(Problem::new(
                first.span,
                format!("joint `{}` closes a loop and has an armature", joint.name),
                "a cut joint has no coordinate for a rotor to drive",
                "put the drive's armature on a joint of the spanning tree",
            ));
        }
    }
    Ok(())
}

/// Stops and gear meshes measure one coordinate: the joint must be
/// revolute or prismatic and keep its coordinate (a follower's is its
/// leader's, scaled, which is fine; a cut joint has none).
fn acts_on_one_coordinate(joint: &Joint, span: Span, what: &str) -> Result<(), Problem> {
    let single = matches!(joint.kind, JointKind::Revolute | JointKind::Prismatic);
    if single && !joint.cut {
        return Ok(());
    }
    Err(Problem::new(
        span,
        format!(
            "joint `{}` is a {}{} joint; {what} act on the coordinate of a revolute or prismatic joint",
            joint.name,
            if joint.cut { "cut " } else { "" },
            joint.kind.name()
        ),
        "no single coordinate here",
        if joint.cut {
            "a cut joint has no coordinate: put the stop on a joint of the spanning tree, or mark \
             another joint of the loop `cut = true`"
        } else {
            "split the joint into revolute and prismatic joints, or bound a planar joint with `clearance`"
        },
    ))
}

/// The driver of a gear mesh: another revolute or prismatic joint with a
/// coordinate of its own.
fn driver(document: &Document, joint: &Joint, name: &str, span: Span) -> Result<(), Problem> {
    let Some(driver) = document.joints.iter().find(|j| j.name == name) else {
        return Err(Problem::new(
            span,
            format!(
                "joint `{}` meshes with an unknown joint `{name}`{}",
                joint.name,
                did_you_mean(name, document.joints.iter().map(|j| j.name.as_str()))
            ),
            "no such joint",
            "name the driving joint in `gear.joint`",
        ));
    };
    let problem = if driver.name == joint.name {
        Some("itself".to_owned())
    } else if !matches!(driver.kind, JointKind::Revolute | JointKind::Prismatic) {
        Some(format!("a {} joint", driver.kind.name()))
    } else if driver.coordinateless() {
        Some("a joint without a coordinate of its own (a follower or a cut joint)".to_owned())
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(Problem::new(
            span,
            format!("joint `{}` meshes with `{name}`, {problem}", joint.name),
            "not a driver",
            "a gear mesh couples two revolute or prismatic joints that both have coordinates",
        )),
    }
}

/// `k > 0`, `μ ≥ 0`, `a > 0`.
fn check_law(
    joint: &Joint,
    law: &ContactLaw,
    values: &BTreeMap<String, f64>,
) -> Result<(), Problem> {
    positive(joint, &law.stiffness, "contact stiffness", values)?;
    not_negative(joint, &law.dissipation, "contact dissipation", values)?;
    positive(joint, &law.decay, "contact decay rate", values)
}
