//! The standard contents of a generated module.
//!
//! One place decides which functions a module contains and what their docs
//! say, so `cargo xtask gen`, the tests and the benchmarks agree.

use crate::module::{emit_module, EmitError, FunctionSpec, GeneratedModule, Signature};
use sharnir_mech::{rnea, Mechanism, ParameterMode};

/// Derives and emits every function of the module for `mechanism`. Folded
/// modules get the suffix `_folded` so both variants can live side by side.
pub fn generate(mechanism: &mut Mechanism) -> Result<GeneratedModule, EmitError> {
    let inverse_dynamics = rnea::inverse_dynamics(mechanism);
    let functions = [FunctionSpec {
        name: "inverse_dynamics".to_owned(),
        doc: " Joint forces τ(q, q̇, q̈) by the recursive Newton–Euler method: torques for\n revolute joints, forces for prismatic ones, in coordinate order.".to_owned(),
        signature: Signature::PositionVelocityAcceleration,
        outputs: inverse_dynamics,
    }];
    let module_name = match mechanism.mode {
        ParameterMode::Runtime => mechanism.name.clone(),
        ParameterMode::Folded => format!("{}_folded", mechanism.name),
    };
    emit_module(mechanism, &module_name, &functions)
}
