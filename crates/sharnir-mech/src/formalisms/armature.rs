//! The drives' armature: the inertia of a motor's rotor (and gearbox)
//! reflected to the joint it drives, which the spec gives per joint
//! (`armature`, kg·m² on a rotation, kg on a translation).
//!
//! A rotor turning `n` times faster than its joint stores `½ J n² ẋ²` of
//! kinetic energy and nothing else the bodies feel (the rotor's gyroscopic
//! coupling with the link it sits on is left out, as in Pinocchio's
//! `model.armature`), so with `a = J n²` the armature adds
//! ```text
//! T += ½ a ẋ²,   M += a w wᵀ,   τ += a w (wᵀ q̈)
//! ```
//! for the joint's motion `ẋ = wᵀ q̇`: `w` a unit vector on the joint's own
//! coordinate, or the multiplier `k` on the leader's for a follower
//! (`M_leader += k² a`). Bias and gravity do not change. Every formalism
//! adds it here, so their results stay equal.

use crate::geometry::kinematics::joint_symbols;
use crate::model::inputs::Input;
use crate::model::TreeBody;
use sharnir_cas::{Coeff, Id, Pool};

/// One rotor: the velocity coordinate it turns with, the multiplier of a
/// follower (`None` for 1) and the armature.
struct Rotor {
    index: usize,
    multiplier: Option<Id>,
    armature: Id,
}

/// Every nonzero armature of the tree's primitive joints.
fn rotors(pool: &Pool, bodies: &[TreeBody]) -> Vec<Rotor> {
    bodies
        .iter()
        .flat_map(|body| {
            body.armature
                .iter()
                .enumerate()
                .filter(|(_, &a)| !pool.is_zero(a))
                .map(|(i, &armature)| Rotor {
                    index: body.velocity + i,
                    multiplier: body.coupling.as_ref().map(|c| c.multiplier),
                    armature,
                })
        })
        .collect()
}

/// `M += a w wᵀ` for every rotor, into a full (square) mass matrix.
pub(crate) fn add_to_mass_matrix(pool: &mut Pool, bodies: &[TreeBody], mass: &mut [Vec<Id>]) {
    for rotor in rotors(pool, bodies) {
        let entry = match rotor.multiplier {
            Some(k) => {
                let k2 = pool.mul(k, k);
                pool.mul(k2, rotor.armature)
            }
            None => rotor.armature,
        };
        if let Some(slot) = mass
            .get_mut(rotor.index)
            .and_then(|row| row.get_mut(rotor.index))
        {
            *slot = pool.add(*slot, entry);
        }
    }
}

/// `τ += a w (wᵀ q̈)` for every rotor: the joint forces its rotor takes.
pub(crate) fn add_to_forces(pool: &mut Pool, bodies: &[TreeBody], tau: &mut [Id]) {
    for body in bodies {
        if body.armature.iter().all(|&a| pool.is_zero(a)) {
            continue;
        }
        let accelerations = joint_symbols(pool, body, Input::Acceleration);
        for (i, (&a, &acceleration)) in body.armature.iter().zip(&accelerations).enumerate() {
            if pool.is_zero(a) {
                continue;
            }
            let own = pool.mul(a, acceleration);
            let generalised = match &body.coupling {
                Some(c) => pool.mul(c.multiplier, own),
                None => own,
            };
            if let Some(slot) = tau.get_mut(body.velocity + i) {
                *slot = pool.add(*slot, generalised);
            }
        }
    }
}

/// `Σ ½ a ẋ²`: the rotors' kinetic energy; zero without armature.
pub(crate) fn kinetic_energy(pool: &mut Pool, bodies: &[TreeBody]) -> Id {
    let mut terms = Vec::new();
    for body in bodies {
        if body.armature.iter().all(|&a| pool.is_zero(a)) {
            continue;
        }
        let rates = joint_symbols(pool, body, Input::Velocity);
        for (&a, &rate) in body.armature.iter().zip(&rates) {
            let squared = pool.mul(rate, rate);
            let twice = pool.mul(a, squared);
            terms.push(pool.scale(Coeff::ratio(1, 2), twice));
        }
    }
    pool.sum(&terms)
}
