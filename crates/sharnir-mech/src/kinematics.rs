//! Symbolic kinematics of the tree: where each body is and how fast it moves.
//!
//! Every formalism starts from the same two facts about a body: its
//! placement in the parent, which depends on its own coordinate only, and
//! the velocity it inherits from the parent plus what its joint adds. They
//! live here once so that inverse dynamics, forward dynamics and energy all
//! read the same geometry.
//!
//! With `E` the body-to-parent rotation, `o` the body origin in parent
//! coordinates and `a` the joint axis (body coordinates):
//! ```text
//! R = R_p E,   r = r_p + R_p o                       (pose in the ground frame)
//! ω = Eᵀω_p + a q̇   (revolute),   ω = Eᵀω_p           (prismatic)
//! v = Eᵀ(v_p + ω_p × o) (+ a q̇ for a prismatic joint) (body-origin velocity, body frame)
//! ```

use crate::inputs::Input;
use crate::mechanism::{JointKind, Mechanism, TreeBody};
use crate::rotation::joint_rotation;
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Id, Pool};

/// Body-to-parent rotation `E` and body origin `o` in the parent frame, at
/// the body's coordinate `q`.
pub(crate) fn placement(pool: &mut Pool, body: &TreeBody, q: Id) -> (Mat3, Vec3) {
    match body.kind {
        JointKind::Revolute => {
            let joint = joint_rotation(pool, body.axis, q);
            (pool.mat_mul(&body.rotation, &joint), body.translation)
        }
        JointKind::Prismatic => {
            let slide = pool.scale3(q, body.axis);
            let offset = pool.mat_vec(&body.rotation, slide);
            (body.rotation, pool.add3(body.translation, offset))
        }
    }
}

/// Where a body is: its orientation and origin in the ground frame.
#[derive(Clone, Copy, Debug)]
pub struct Pose {
    /// Rotation from body to ground coordinates.
    pub rotation: Mat3,
    /// Body origin in ground coordinates.
    pub position: Vec3,
}

/// How a body moves: angular velocity and body-origin velocity, both in body
/// coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Twist {
    /// Angular velocity ω.
    pub angular: Vec3,
    /// Velocity of the body-frame origin.
    pub linear: Vec3,
}

/// The pose of every body, in the mechanism's (regular) body order.
pub fn poses(mechanism: &mut Mechanism) -> Vec<Pose> {
    let Mechanism { pool, bodies, .. } = mechanism;
    let mut poses: Vec<Pose> = Vec::with_capacity(bodies.len());
    for body in bodies.iter() {
        let q = pool.symbol(&Input::Position(body.coordinate).symbol_name());
        let (to_parent, origin) = placement(pool, body, q);
        let pose = match body.parent.and_then(|p| poses.get(p)) {
            Some(parent) => {
                let offset = pool.mat_vec(&parent.rotation, origin);
                Pose {
                    rotation: pool.mat_mul(&parent.rotation, &to_parent),
                    position: pool.add3(parent.position, offset),
                }
            }
            None => Pose {
                rotation: to_parent,
                position: origin,
            },
        };
        poses.push(pose);
    }
    poses
}

/// The twist of every body, in the mechanism's (regular) body order.
pub fn twists(mechanism: &mut Mechanism) -> Vec<Twist> {
    let Mechanism { pool, bodies, .. } = mechanism;
    let mut twists: Vec<Twist> = Vec::with_capacity(bodies.len());
    for body in bodies.iter() {
        let q = pool.symbol(&Input::Position(body.coordinate).symbol_name());
        let qd = pool.symbol(&Input::Velocity(body.coordinate).symbol_name());
        let (to_parent, origin) = placement(pool, body, q);
        let (omega_p, v_p) = match body.parent.and_then(|p| twists.get(p)) {
            Some(parent) => (parent.angular, parent.linear),
            None => (pool.zero3(), pool.zero3()),
        };
        let omega_carried = pool.mat_t_vec(&to_parent, omega_p);
        let lever = pool.cross3(omega_p, origin);
        let v_at_origin = pool.add3(v_p, lever);
        let v_carried = pool.mat_t_vec(&to_parent, v_at_origin);
        let joint_rate = pool.scale3(qd, body.axis);
        let twist = match body.kind {
            JointKind::Revolute => Twist {
                angular: pool.add3(omega_carried, joint_rate),
                linear: v_carried,
            },
            JointKind::Prismatic => Twist {
                angular: omega_carried,
                linear: pool.add3(v_carried, joint_rate),
            },
        };
        twists.push(twist);
    }
    twists
}
