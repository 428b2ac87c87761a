//! The standard contents of a generated module.
//!
//! One place decides which functions a module contains and what their docs
//! say, so `cargo xtask gen`, the tests and the benchmarks agree.

use crate::module::{emit_module, Argument, EmitError, FunctionSpec, GeneratedModule, Shape};
use sharnir_mech::{coriolis, energy, jacobian, joint_space, kinematics, rnea};
use sharnir_mech::{Mechanism, ParameterMode};

/// Derives and emits every function of the module for `mechanism`. Folded
/// modules get the suffix `_folded` so both variants can live side by side.
pub fn generate(mechanism: &mut Mechanism) -> Result<GeneratedModule, EmitError> {
    use Argument::{Acceleration, Position, Velocity};
    let inverse_dynamics = rnea::inverse_dynamics(mechanism);
    let terms = joint_space::joint_space(&mut mechanism.pool, &inverse_dynamics);
    let coriolis = coriolis::coriolis_matrix(mechanism, &terms.bias);
    let (kinetic, potential) = energy::energy(mechanism);
    let spec_body: Vec<bool> = mechanism.bodies.iter().map(|b| !b.auxiliary).collect();
    let poses: Vec<_> = kinematics::poses(mechanism)
        .iter()
        .zip(&spec_body)
        .filter(|(_, keep)| **keep)
        .flat_map(|(pose, _)| pose.rotation.concat().into_iter().chain(pose.position))
        .collect();
    let jacobians: Vec<_> = jacobian::body_jacobians(mechanism)
        .into_iter()
        .zip(&spec_body)
        .filter(|(_, keep)| **keep)
        .flat_map(|(rows, _)| rows.concat())
        .collect();
    let rates = kinematics::coordinate_rates(mechanism);
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
        FunctionSpec {
            name: "forward_dynamics".to_owned(),
            doc: "Joint accelerations q̈(q, q̇, τ) by Vereshchagin's separate-bodies\n\
                  (articulated-body) method, in O(n) and without forming M(q); they satisfy\n\
                  `M(q) q̈ + bias(q, q̇) = τ`."
                .to_owned(),
            arguments: vec![Position, Velocity, Argument::Force],
            shape: Shape::JointVector,
            outputs: sharnir_mech::vereshchagin::forward_dynamics(mechanism),
        },
        FunctionSpec {
            name: "coriolis_matrix".to_owned(),
            doc:
                "The Coriolis matrix C(q, q̇) from the Christoffel symbols of M: `C q̇ + g = bias`\n\
                  and `Ṁ − 2C` is skew-symmetric, as passivity-based controllers need."
                    .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::JointMatrix,
            outputs: coriolis.concat(),
        },
        FunctionSpec {
            name: "energy".to_owned(),
            doc: "Kinetic and potential energy `(T, V)`; `V = −Σ m g·c` is zero where every\n\
                  centre of mass is at the ground origin's height."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::Pair,
            outputs: vec![kinetic, potential],
        },
        FunctionSpec {
            name: "body_poses".to_owned(),
            doc: "The pose of every body in the ground frame, in the order of `BODY_NAMES`."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::Poses,
            outputs: poses,
        },
        FunctionSpec {
            name: "coordinate_rates".to_owned(),
            doc: "The rates q̇ of the position coordinates for velocities `qd`: equal to `qd`\n\
                  for revolute and prismatic joints, the quaternion kinematics ½ q ⊗ (ω, 0)\n\
                  for spherical and free joints. Integrate `q` with them and renormalise\n\
                  the quaternions."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::PositionVector,
            outputs: rates,
        },
        FunctionSpec {
            name: "body_jacobians".to_owned(),
            doc: "For every body (order of `BODY_NAMES`), the geometric Jacobian: rows 0–2 map\n\
                  q̇ to the velocity of the body-frame origin, rows 3–5 to the angular velocity,\n\
                  all in ground coordinates. A point `p` of the body (ground coordinates,\n\
                  relative to the origin) moves with `v + ω × p`."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::BodyJacobians,
            outputs: jacobians,
        },
    ];
    let module_name = match mechanism.mode {
        ParameterMode::Runtime => mechanism.name.clone(),
        ParameterMode::Folded => format!("{}_folded", mechanism.name),
    };
    emit_module(mechanism, &module_name, &functions)
}
