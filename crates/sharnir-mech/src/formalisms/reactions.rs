//! Joint reactions: the wrench a joint transmits from its parent to its
//! child. A cut joint's comes from the loop multipliers `λ` (its rows'
//! reaction directions); a tree joint's from Newton–Euler's backward pass,
//! with the cut joints' reactions acting on the bodies they join, so that
//! in a mechanism with loops it carries the constraint forces too.

use crate::formalisms::rnea::{joint_reactions, ExternalWrench};
use crate::geometry::kinematics::{poses, Pose};
use crate::model::detachment::Detachment;
use crate::model::inputs::Input;
use crate::model::loops::LoopClosure;
use crate::model::vec3::{Vec3, Vec3Ops};
use crate::model::Mechanism;
use sharnir_cas::{Coeff, Id};

/// For every cut joint, the force (first three) and the moment (last
/// three) its parent exerts on its child, in ground axes, the moment about
/// the joint frame's origin on the child side, in terms of the multipliers
/// `λ` (`Input::Multiplier`) of `M q̈ + bias = τ + Jᵀλ`.
pub fn cut_joint_wrenches(mechanism: &mut Mechanism, closure: &LoopClosure) -> Vec<[Id; 6]> {
    let pool = &mut mechanism.pool;
    let mut wrenches = Vec::with_capacity(mechanism.cut_joints.len());
    for (index, rotation) in closure.parent_rotations.iter().enumerate() {
        let zero = pool.zero();
        let (mut force, mut moment) = ([zero; 3], [zero; 3]);
        for (i, row) in closure.rows.iter().enumerate() {
            if row.cut_joint != index {
                continue;
            }
            let lambda = pool.input(Input::Multiplier(i));
            for k in 0..3 {
                let f = pool.mul(lambda, row.force[k]);
                force[k] = pool.add(force[k], f);
                let m = pool.mul(lambda, row.moment[k]);
                moment[k] = pool.add(moment[k], m);
            }
        }
        let mut wrench = [zero; 6];
        for (part, local) in [force, moment].into_iter().enumerate() {
            for (r, row) in rotation.iter().enumerate() {
                let mut entry = pool.zero();
                for k in 0..3 {
                    let term = pool.mul(row[k], local[k]);
                    entry = pool.add(entry, term);
                }
                wrench[3 * part + r] = entry;
            }
        }
        wrenches.push(wrench);
    }
    wrenches
}

/// For every detachable joint (`mechanism.detachments`, in order), its
/// reaction: force and moment the parent exerts on the child, in the joint
/// frame on the child's side, the moment about that frame's origin, in
/// terms of `q`, `q̇`, `q̈` and, with loops, `λ`.
pub fn detachable_reactions(mechanism: &mut Mechanism) -> Vec<[Id; 6]> {
    let detachments: Vec<Detachment> = mechanism.detachments.clone();
    let tree_joints: Vec<&str> = detachments
        .iter()
        .map(|d| match d.body {
            Some(_) => d.joint.as_str(),
            None => "",
        })
        .collect();
    let Some(closure) = mechanism.loops.as_ref().map(|l| l.closure.clone()) else {
        return joint_reactions(mechanism, &tree_joints, &[]);
    };
    let cut_wrenches = cut_joint_wrenches(mechanism, &closure);
    let tree_poses = poses(mechanism);
    let cut_joints = mechanism.cut_joints.clone();
    let mut external = Vec::with_capacity(2 * cut_joints.len());
    let mut cut_reactions = Vec::with_capacity(cut_joints.len());
    for (cut, wrench) in cut_joints.iter().zip(&cut_wrenches) {
        let pool = &mut mechanism.pool;
        let at = Pose::of_attached(pool, &tree_poses, &cut.child_side);
        let force = [wrench[0], wrench[1], wrench[2]];
        let moment = [wrench[3], wrench[4], wrench[5]];
        let local_force = pool.mat_t_vec(&at.rotation, force);
        let local_moment = pool.mat_t_vec(&at.rotation, moment);
        cut_reactions.push((
            cut.name.clone(),
            [
                local_force[0],
                local_force[1],
                local_force[2],
                local_moment[0],
                local_moment[1],
                local_moment[2],
            ],
        ));
        // On the child's body the reaction, on the parent's its opposite.
        let opposite_force = pool.scale3c(Coeff::MINUS_ONE, force);
        let opposite_moment = pool.scale3c(Coeff::MINUS_ONE, moment);
        for (host, f, m) in [
            (cut.child_side.host, force, moment),
            (cut.parent_side.host, opposite_force, opposite_moment),
        ] {
            if let Some(body) = host {
                let (force, moment) = in_body(pool, &tree_poses[body], at.position, f, m);
                external.push(ExternalWrench {
                    body,
                    force,
                    moment,
                });
            }
        }
    }
    let tree = joint_reactions(mechanism, &tree_joints, &external);
    detachments
        .iter()
        .zip(tree)
        .map(|(d, reaction)| match d.body {
            Some(_) => reaction,
            None => cut_reactions
                .iter()
                .find(|(name, _)| *name == d.joint)
                .map_or(reaction, |(_, r)| *r),
        })
        .collect()
}

/// A wrench given in ground axes with its moment about `point` (ground
/// coordinates), in the axes of the body at `pose` with its moment about
/// the body's origin.
fn in_body(
    pool: &mut sharnir_cas::Pool,
    pose: &Pose,
    point: Vec3,
    force: Vec3,
    moment: Vec3,
) -> (Vec3, Vec3) {
    let minus_origin = pool.scale3c(Coeff::MINUS_ONE, pose.position);
    let lever = pool.add3(point, minus_origin);
    let shift = pool.cross3(lever, force);
    let about_origin = pool.add3(moment, shift);
    (
        pool.mat_t_vec(&pose.rotation, force),
        pool.mat_t_vec(&pose.rotation, about_origin),
    )
}
