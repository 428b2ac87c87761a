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
//! plus the rotors' `½ a ẋ²` where joints have an armature
//! ([`crate::formalisms::armature`]).

use crate::formalisms::armature;
use crate::geometry::kinematics::{poses, twists};
use crate::model::vec3::Vec3Ops;
use crate::model::Mechanism;
use sharnir_cas::{Coeff, Id};

/// How the potential energy reads a body's height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heights {
    /// `g · (r + R c)`: the centre of mass's position as one sum (the
    /// canonical form flattens it with every inboard offset), what modules
    /// have always had.
    OfCentres,
    /// `g · r + g · (R c)`: the body frame's position kept whole, as
    /// `body_poses` has it, so that the lowering writes each as the one
    /// before plus its own terms (a sum of a chain's positions is then
    /// linear code, where `OfCentres` has n²/2 additions); for long chains.
    OfPositions,
}

/// `(T, V)` as expressions over `q`, `qd` and the parameters, the heights of
/// the potential read as `heights` says.
pub fn energy(mechanism: &mut Mechanism, heights: Heights) -> (Id, Id) {
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
        let height = match heights {
            Heights::OfCentres => {
                let com = pool.add3(pose.position, com_offset);
                pool.dot3(*gravity, com)
            }
            Heights::OfPositions => {
                let origin = pool.dot3(*gravity, pose.position);
                let offset = pool.dot3(*gravity, com_offset);
                pool.add(origin, offset)
            }
        };
        let weight_work = pool.mul(body.mass, height);
        potential.push(pool.neg(weight_work));
    }
    let rotors = armature::kinetic_energy(pool, bodies);
    if !pool.is_zero(rotors) {
        kinetic.push(rotors);
    }
    (pool.sum(&kinetic), pool.sum(&potential))
}
