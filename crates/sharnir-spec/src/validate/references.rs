//! References from joints to bodies and from followers to leader joints.

use crate::document::Document;
use crate::error::Problem;
use crate::model::{Joint, JointKind};
use crate::suggest::did_you_mean;

/// Every joint names existing bodies (or `ground`) and two different ones.
/// Whether they form a tree is the mechanism graph's business.
pub(super) fn check(document: &Document) -> Result<(), Problem> {
    let bodies =
        || std::iter::once("ground").chain(document.bodies.iter().map(|b| b.name.as_str()));
    for joint in &document.joints {
        for (role, name, span) in [
            ("parent", &joint.parent, joint.parent_span),
            ("child", &joint.child, joint.child_span),
        ] {
            if !bodies().any(|b| b == name) {
                return Err(Problem::new(
                    span,
                    format!(
                        "unknown body `{name}` as {role} of joint `{}`{}",
                        joint.name,
                        did_you_mean(name, bodies())
                    ),
                    "no [[body]] has this name",
                    format!(
                        "the bodies are: {}",
                        bodies().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        if joint.parent == joint.child {
            return Err(Problem::new(
                joint.child_span,
                format!(
                    "joint `{}` connects `{}` to itself",
                    joint.name, joint.child
                ),
                "same as the parent",
                "a joint connects two different bodies: fix `parent` or `child`",
            ));
        }
        mimic(document, joint)?;
    }
    Ok(())
}

/// Whether a joint type has the single coordinate a coupling can scale.
fn single_coordinate(kind: JointKind) -> bool {
    matches!(kind, JointKind::Revolute | JointKind::Prismatic)
}

/// A follower is a revolute or prismatic joint whose leader exists, is
/// another revolute or prismatic joint, and has a coordinate of its own.
fn mimic(document: &Document, joint: &Joint) -> Result<(), Problem> {
    let Some(mimic) = &joint.mimic else {
        return Ok(());
    };
    if !single_coordinate(joint.kind) {
        return Err(Problem::new(
            mimic.span,
            format!(
                "joint `{}` is {} and cannot mimic another joint",
                joint.name,
                joint.kind.name()
            ),
            "a follower needs a single coordinate",
            "only revolute and prismatic joints can follow a leader",
        ));
    }
    let joints = || document.joints.iter().map(|j| j.name.as_str());
    let Some(leader) = document.joints.iter().find(|j| j.name == mimic.joint) else {
        return Err(Problem::new(
            mimic.joint_span,
            format!(
                "joint `{}` mimics an unknown joint `{}`{}",
                joint.name,
                mimic.joint,
                did_you_mean(&mimic.joint, joints())
            ),
            "no [[joint]] has this name",
            format!(
                "the joints are: {}",
                joints().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    if leader.name == joint.name {
        return Err(Problem::new(
            mimic.joint_span,
            format!("joint `{}` mimics itself", joint.name),
            "the follower's own name",
            "name the joint whose coordinate drives this one",
        ));
    }
    if !single_coordinate(leader.kind) {
        return Err(Problem::new(
            mimic.joint_span,
            format!(
                "joint `{}` mimics `{}`, a {} joint",
                joint.name,
                leader.name,
                leader.kind.name()
            ),
            "the leader needs a single coordinate",
            "a leader is a revolute or prismatic joint",
        ));
    }
    if let Some(next) = &leader.mimic {
        return Err(Problem::new(
            mimic.joint_span,
            format!(
                "joint `{}` mimics `{}`, which itself mimics `{}`",
                joint.name, leader.name, next.joint
            ),
            "the leader is a follower",
            format!(
                "mimic `{}` directly, with the multipliers and offsets composed",
                next.joint
            ),
        ));
    }
    Ok(())
}
