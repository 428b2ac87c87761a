//! `joint_reactions` as a function to plan: the reactions the release
//! conditions of detachable joints watch (with the multipliers `lambda` as
//! an argument in a mechanism with loops). Only mechanisms with detachable
//! joints have it; `detachments.rs` writes the table that names the
//! conditions.

use crate::vocabulary::{Argument, FunctionSpec, Shape};
use sharnir_mech::formalisms::reactions::detachable_reactions;
use sharnir_mech::Mechanism;

/// `joint_reactions`, when `mechanism` has detachable joints.
pub(crate) fn function(mechanism: &mut Mechanism) -> Option<FunctionSpec> {
    if mechanism.detachments.is_empty() {
        return None;
    }
    let outputs = detachable_reactions(mechanism).concat();
    let mut arguments = vec![
        Argument::Position,
        Argument::Velocity,
        Argument::Acceleration,
    ];
    let doc = if mechanism.has_loops() {
        arguments.push(Argument::Multipliers);
        "For every detachable joint (order of `DETACHMENTS`), the force (first three) and\n\
         moment (last three) its parent exerts on its child, in the joint frame on the\n\
         child's side, the moment about that frame's origin: at the accelerations `qdd` and\n\
         multipliers `lambda` of `constrained_forward_dynamics` (with every force the\n\
         simulation applies), these are the reactions a release condition watches. A tree\n\
         joint's carries the cut joints' reactions on the bodies beyond it."
    } else {
        "For every detachable joint (order of `DETACHMENTS`), the force (first three) and\n\
         moment (last three) its parent exerts on its child, in the joint frame on the\n\
         child's side, the moment about that frame's origin: at accelerations `qdd` from\n\
         `forward_dynamics` (with every force the simulation applies), these are the\n\
         reactions a release condition watches."
    };
    Some(FunctionSpec {
        name: "joint_reactions".to_owned(),
        doc: doc.to_owned(),
        arguments,
        shape: Shape::JointReactions,
        outputs,
    })
}
