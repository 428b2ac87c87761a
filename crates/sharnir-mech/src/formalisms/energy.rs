//! Kinetic and potential energy of the mechanism.
//!
//! They are the independent check of every dynamics output through the
//! power balance `d/dt (T + V) = q̇ᵀτ`, and what a simulation monitors for
//! drift. With `c` the centre of mass and `I` the central inertia of a body
//! (body coordinates), `R, r` its pose and `ω, v` its twist:
//! ```text
//! T = Σ ½ m |v + ω × c|² + ½ ωᵀ I ω
//! V = −Σ m g · (r + R c)
//! ```

use crate::geometry::kinematics::{poses, twists};
use crate::model::vec3::Vec3Ops;
use crate::model::Mechanism;
use sharnir_cas::{Coeff, Id};

/// `(T, V)` as expressions over `q`, `qd` and the parameters.
pub fn energy(mechanism: &mut Mechanism) -> (Id, Id) {
    let poses = poses(mechanism);
    let twists = twists(mechanism);
    let Mechanism {
        pool,
        bodies,
        gravity,
        ..
    } = mechanism;
    let mut kinetic = Vec::with_capacity(bodies.len());
    let mut potential = Vec::with_capacity(bodies.len());
    for ((body, pose), twist) in bodies.iter().zip(&poses).zip(&twists) {
        let spin = pool.cross3(twist.angular, body.com);
        let v_com = pool.add3(twist.linear, spin);
        let v_squared = pool.dot3(v_com, v_com);
        let translational = pool.mul(body.mass, v_squared);
        let i_omega = pool.mat_vec(&body.inertia, twist.angular);
        let rotational = pool.dot3(twist.angular, i_omega);
        let twice_kinetic = pool.add(translational, rotational);
        kinetic.push(pool.scale(Coeff::ratio(1, 2), twice_kinetic));
        let com_offset = pool.mat_vec(&pose.rotation, body.com);
        let com = pool.add3(pose.position, com_offset);
        let height = pool.dot3(*gravity, com);
        let weight_work = pool.mul(body.mass, height);
        potential.push(pool.neg(weight_work));
    }
    (pool.sum(&kinetic), pool.sum(&potential))
}
