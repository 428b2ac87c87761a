//! Geometric Jacobians of the body frames.
//!
//! A controller maps joint rates to the velocity of a tool or a foot with
//! them: `[v; ω] = J(q) q̇`, with `v` the velocity of the body-frame origin
//! and `ω` the angular velocity, both in ground coordinates. They are read
//! off the twists as exact derivatives with respect to the joint rates, so
//! they hold for every joint type whose velocity coordinates enter the twist
//! linearly. The velocity of another point `p` of the body (ground
//! coordinates, relative to the origin) is `v + ω × p`.

use crate::geometry::kinematics::{poses, twists};
use crate::model::inputs::Input;
use crate::model::vec3::Vec3Ops;
use crate::model::Mechanism;
use sharnir_cas::Id;

/// For every body (regular order), the 6 × NV Jacobian: rows 0–2 the
/// velocity of the origin of the body's own frame (see
/// [`crate::model::TreeBody::body_frame`]), rows 3–5 the angular velocity, in
/// ground coordinates.
pub fn body_jacobians(mechanism: &mut Mechanism) -> Vec<[Vec<Id>; 6]> {
    let poses = poses(mechanism);
    let twists = twists(mechanism);
    let n = mechanism.dof();
    let pool = &mut mechanism.pool;
    let rates: Vec<Id> = (0..n).map(|j| pool.input(Input::Velocity(j))).collect();
    let bodies = &mechanism.bodies;
    poses
        .iter()
        .zip(&twists)
        .zip(bodies)
        .map(|((pose, twist), body)| {
            let origin_velocity = match &body.body_frame {
                Some(offset) => {
                    let lever = pool.cross3(twist.angular, offset.translation);
                    pool.add3(twist.linear, lever)
                }
                None => twist.linear,
            };
            let linear = pool.mat_vec(&pose.rotation, origin_velocity);
            let angular = pool.mat_vec(&pose.rotation, twist.angular);
            let rows = [
                linear[0], linear[1], linear[2], angular[0], angular[1], angular[2],
            ];
            rows.map(|row| rates.iter().map(|&qd| pool.diff(row, qd)).collect())
        })
        .collect()
}
