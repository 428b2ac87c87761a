//! The standard contents of a generated module.
//!
//! One place decides which functions a module contains and what their docs
//! say, so `cargo xtask gen`, the tests and the benchmarks agree.

use crate::module::{emit_module, Argument, EmitError, FunctionSpec, GeneratedModule, Shape};
use sharnir_mech::{joint_space, rnea, Mechanism, ParameterMode};

/// Derives and emits every function of the module for `mechanism`. Folded
/// modules get the suffix `_folded` so both variants can live side by side.
pub fn generate(mechanism: &mut Mechanism) -> Result<GeneratedModule, EmitError> {
    use Argument::{Acceleration, Position, Velocity};
    let inverse_dynamics = rnea::inverse_dynamics(mechanism);
    let terms = joint_space::joint_space(&mut mechanism.pool, &inverse_dynamics);
    let functions = [
        FunctionSpec {
            name: "inverse_dynamics".to_owned(),
            doc: "Joint forces τ(q, q̇, q̈) by the recursive Newton–Euler method: torques for\n\
                  revolute joints, forces for prismatic ones, in coordinate order."
                .to_owned(),
            arguments: vec![Position, Velocity, Acceleration],
            shape: Shape::JointVector,
            outputs: inverse_dynamics,
        },
        FunctionSpec {
            name: "mass_matrix".to_owned(),
            doc: "The joint-space mass matrix M(q), symmetric positive definite, so that\n\
                  `M(q) q̈ + bias(q, q̇) = τ`. Entries of joints on different branches are zero."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointMatrix,
            outputs: terms.mass_matrix.concat(),
        },
        FunctionSpec {
            name: "bias".to_owned(),
            doc: "The bias forces C(q, q̇) q̇ + g(q): the joint forces that keep every\n\
                  acceleration zero."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::JointVector,
            outputs: terms.bias,
        },
        FunctionSpec {
            name: "gravity".to_owned(),
            doc: "The gravity forces g(q): the joint forces that hold the mechanism at rest."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointVector,
            outputs: terms.gravity,
        },
    ];
    let module_name = match mechanism.mode {
        ParameterMode::Runtime => mechanism.name.clone(),
        ParameterMode::Folded => format!("{}_folded", mechanism.name),
    };
    emit_module(mechanism, &module_name, &functions)
}
