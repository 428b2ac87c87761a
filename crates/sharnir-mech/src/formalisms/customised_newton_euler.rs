//! Khalil's customised Newton–Euler: the inverse dynamics written in the
//! base parameters `β` ([`crate::formalisms::base_regressor`]), each an
//! input (`beta[j]`) of the generated function, the way an identified
//! model is used: `τ = base_inverse_dynamics(β, q, q̇, q̈)`.
//!
//! Every base parameter has carriers ([`Carrier`]): the entries of tree
//! bodies' inertias, or drive parameters, whose columns of the joint forces,
//! weighted, make its own (one carrier, weight one, unless another base
//! parameter was merged into it). Newton–Euler over bodies whose carriers
//! hold the weighted `β` and whose other parameters are zero, plus each
//! drive carrier's column times its weighted `β`, is `Σ_j Y_j β_j = Y_b β`
//! exactly, since the joint forces are linear in
//! the inertial and drive parameters. The zeros are what makes it cheap
//! (Khalil and Kleinfinger's customised algorithm): the regrouped bodies
//! have four to seven nonzero parameters of ten, and the first bodies of a
//! chain one or two. It holds where `Y_b` does: at every value of the
//! geometric parameters that keeps the columns the completion dropped
//! dependent on the kept ones (see [`crate::formalisms::base_regressor`]).

use crate::formalisms::base_regressor::{inertia_of, BaseParameters, Carrier};
use crate::formalisms::rnea::{body_forces_of_inertias, PointAcceleration};
use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::Id;

/// `Y_b β` with `β` the inputs `beta[0..NBP]`, one entry per velocity
/// coordinate: the force the drives supply
/// (`inverse_dynamics − friction_forces` at `β = base_parameters(p)`), of
/// the spanning tree for a mechanism with loops. `form` is the point
/// acceleration's ([`PointAcceleration`]): the plan costs both.
pub fn inverse_dynamics_in_base_parameters(
    mechanism: &mut Mechanism,
    base: &BaseParameters,
    form: PointAcceleration,
) -> Vec<Id> {
    let zero = mechanism.pool.zero();
    let mut entries = vec![[zero; 10]; mechanism.bodies.len()];
    let mut drives = Vec::new();
    for (j, parameter) in base.parameters.iter().enumerate() {
        let beta = mechanism.pool.input(Input::BaseParameter(j));
        for &(carrier, weight) in &parameter.carriers {
            let pool = &mut mechanism.pool;
            let weighted = pool.scale(weight, beta);
            match carrier {
                Carrier::Inertia { body, entry } => {
                    if let Some(slot) = entries.get_mut(body).and_then(|e| e.get_mut(entry)) {
                        *slot = pool.add(*slot, weighted);
                    }
                }
                Carrier::Drive(k) => drives.push((k, weighted)),
            }
        }
    }
    let inertias: Vec<_> = entries.iter().map(inertia_of).collect();
    let mut tau = body_forces_of_inertias(mechanism, &inertias, form);
    let nv = tau.len();
    let Mechanism {
        pool,
        drives: declared,
        ..
    } = &mut *mechanism;
    for (k, beta) in drives {
        let Some(drive) = declared.get(k) else {
            continue;
        };
        for (slot, entry) in tau.iter_mut().zip(drive.column(pool, nv)) {
            let term = pool.mul(entry, beta);
            *slot = pool.add(*slot, term);
        }
    }
    tau
}
