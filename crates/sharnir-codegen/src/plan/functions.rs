//! The functions every generated module has, with their docs, argument
//! lists and result shapes, from the derived expressions.

use super::choice::Dynamics;
use super::outputs::{Function, Outputs, AUTOMATIC_LIMIT};
use super::{contacts, detachments};
use crate::error::EmitError;
use crate::vocabulary::{Argument, FunctionSpec, LoopFacts, Shape};
use sharnir_cas::Id;
use sharnir_mech::formalisms::joint_space::JointSpace;
use sharnir_mech::formalisms::{coriolis, energy, mixed};
use sharnir_mech::geometry::{jacobian, kinematics};
use sharnir_mech::Mechanism;

/// The outputs no formalism choice touches, derived before the dynamics
/// so that the pool's nodes are numbered as they always were (a node's
/// number orders the terms of canonical sums, and so the emitted text).
pub(crate) struct FixedOutputs {
    coriolis: Vec<Vec<Id>>,
    kinetic: Id,
    potential: Id,
    poses: Vec<Id>,
    jacobians: Vec<Id>,
    rates: Vec<Id>,
}

impl FixedOutputs {
    /// The Coriolis matrix (from Newton–Euler's bias, `newton_euler_bias`),
    /// energy and kinematics of `mechanism`: those among `outputs`, the
    /// others left empty and not derived.
    pub(crate) fn derive(
        mechanism: &mut Mechanism,
        newton_euler_bias: &[Id],
        outputs: Outputs,
    ) -> FixedOutputs {
        let coriolis = if outputs.contains(Function::CoriolisMatrix) {
            coriolis::coriolis_matrix(mechanism, newton_euler_bias)
        } else {
            Vec::new()
        };
        let (kinetic, potential) = if outputs.contains(Function::Energy) {
            // Past the automatic rule's size, the heights that make a long
            // chain's potential linear code; below it, as always.
            let heights = if mechanism.dof() > AUTOMATIC_LIMIT {
                energy::Heights::OfPositions
            } else {
                energy::Heights::OfCentres
            };
            energy::energy(mechanism, heights)
        } else {
            let zero = mechanism.pool.zero();
            (zero, zero)
        };
        let spec_body: Vec<bool> = mechanism.bodies.iter().map(|b| !b.auxiliary).collect();
        let poses = if outputs.contains(Function::BodyPoses) {
            kinematics::body_frame_poses(mechanism)
                .iter()
                .zip(&spec_body)
                .filter(|(_, keep)| **keep)
                .flat_map(|(pose, _)| pose.rotation.concat().into_iter().chain(pose.position))
                .collect()
        } else {
            Vec::new()
        };
        let jacobians = if outputs.contains(Function::BodyJacobians) {
            jacobian::body_jacobians(mechanism)
                .into_iter()
                .zip(&spec_body)
                .filter(|(_, keep)| **keep)
                .flat_map(|(rows, _)| rows.concat())
                .collect()
        } else {
            Vec::new()
        };
        let rates = if outputs.contains(Function::CoordinateRates) {
            kinematics::coordinate_rates(mechanism)
        } else {
            Vec::new()
        };
        FixedOutputs {
            coriolis,
            kinetic,
            potential,
            poses,
            jacobians,
            rates,
        }
    }
}

/// Every function of the module, in emission order, from the chosen
/// dynamics and the fixed outputs: the dynamics, the Coriolis matrix,
/// energy and kinematics, the spec's applied forces, the joints' contacts,
/// the detachable joints' reactions and, for a mechanism with loops, the
/// loop functions and the facts that name their rows; of the standard
/// functions, those among `outputs`.
pub(crate) fn functions(
    mechanism: &mut Mechanism,
    dynamics: Dynamics,
    fixed: FixedOutputs,
    outputs: Outputs,
) -> Result<(Vec<FunctionSpec>, Option<LoopFacts>), EmitError> {
    use Argument::{Acceleration, Position, Velocity};
    let FixedOutputs {
        coriolis,
        kinetic,
        potential,
        poses,
        jacobians,
        rates,
    } = fixed;
    let dynamics_terms = dynamics.terms.clone();
    let mut functions = vec![
        FunctionSpec {
            name: "inverse_dynamics".to_owned(),
            doc: dynamics.inverse_doc.to_owned(),
            arguments: vec![Position, Velocity, Acceleration],
            shape: Shape::JointVector,
            outputs: dynamics.inverse,
        },
        FunctionSpec {
            name: "mass_matrix".to_owned(),
            doc: "The joint-space mass matrix M(q), symmetric positive definite, so that\n\
                  `M(q) q̈ + bias(q, q̇) = τ`. Entries of joints on different branches are zero."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointMatrix,
            outputs: dynamics.terms.mass_matrix.concat(),
        },
        FunctionSpec {
            name: "bias".to_owned(),
            doc: "The bias forces C(q, q̇) q̇ + g(q): the joint forces that keep every\n\
                  acceleration zero."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::JointVector,
            outputs: dynamics.terms.bias.clone(),
        },
        FunctionSpec {
            name: "gravity".to_owned(),
            doc: "The gravity forces g(q): the joint forces that hold the mechanism at rest."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointVector,
            outputs: dynamics.terms.gravity.clone(),
        },
        FunctionSpec {
            name: "joint_space".to_owned(),
            doc: "The mass matrix, bias and gravity forces of one state in one pass: the\n\
                  three share every subexpression (sines and cosines, rotations, velocity\n\
                  products), so this costs less than `mass_matrix`, `bias` and `gravity`\n\
                  called one after the other (compare the `OPS_*` constants)."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::JointSpace,
            outputs: [
                dynamics.terms.mass_matrix.concat(),
                dynamics.terms.bias.clone(),
                dynamics.terms.gravity.clone(),
            ]
            .concat(),
        },
        FunctionSpec {
            name: "forward_dynamics".to_owned(),
            doc: dynamics.forward_doc.to_owned(),
            arguments: vec![Position, Velocity, Argument::Force],
            shape: Shape::JointVector,
            outputs: dynamics.forward,
        },
        FunctionSpec {
            name: "coriolis_matrix".to_owned(),
            doc: "The Coriolis matrix C(q, q̇): `C q̇ + g = bias` and `Ṁ − 2C` is skew-symmetric,\n\
                  as passivity-based controllers need (the Christoffel matrix when every velocity\n\
                  is a coordinate rate)."
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
    functions.retain(|f| outputs.contains_name(&f.name));
    // In every module, zero without `[forces]`, so that what the runtime
    // adds never depends on how a module is declared to it.
    let (forces, doc) = match mechanism.applied_forces.clone() {
        Some(forces) => (
            forces,
            "The joint forces of the spec's `[forces]` table at time `t` (zero for the\n\
             coordinates it does not name): add them to `tau` before `forward_dynamics`,\n\
             so that `M q̈ + bias = tau + applied_forces`.",
        ),
        None => {
            let zero = mechanism.pool.zero();
            (
                vec![zero; mechanism.dof()],
                "Zero: the spec has no `[forces]` table (`HAS_APPLIED_FORCES`). Every module has\n\
                 this function, so that a simulation adds it whatever the spec says.",
            )
        }
    };
    functions.push(FunctionSpec {
        name: "applied_forces".to_owned(),
        doc: doc.to_owned(),
        arguments: vec![Argument::Time, Position, Velocity],
        shape: Shape::JointVector,
        outputs: forces,
    });
    functions.extend(motion_functions(mechanism, &dynamics_terms));
    functions.extend(contacts::functions(mechanism));
    functions.extend(detachments::function(mechanism));
    let loops = loop_functions(mechanism, &mut functions)?;
    Ok((functions, loops))
}

/// For a mechanism with `[motion]`, `prescribed_motion` (the laws and
/// their derivatives) and `mixed_dynamics` (the reduced system of the
/// free coordinates and the drive forces, from the chosen joint-space
/// `terms`); nothing otherwise.
fn motion_functions(mechanism: &mut Mechanism, terms: &JointSpace) -> Vec<FunctionSpec> {
    if mechanism.motion.is_empty() {
        return Vec::new();
    }
    let laws: Vec<Id> = (0..3)
        .flat_map(|k| mechanism.motion.iter().map(move |m| m.law[k]))
        .collect();
    let mixed = mixed::mixed_dynamics(&mut mechanism.pool, terms, &mechanism.motion);
    vec![
        FunctionSpec {
            name: "prescribed_motion".to_owned(),
            doc: "The positions, rates and accelerations of the prescribed coordinates at time\n\
                  `t` (the laws of the spec's `[motion]` and their derivatives), in the order of\n\
                  `PRESCRIBED`."
                .to_owned(),
            arguments: vec![Argument::Time],
            shape: Shape::Motion,
            outputs: laws,
        },
        FunctionSpec {
            name: "mixed_dynamics".to_owned(),
            doc: "Every acceleration q̈ and the force each drive supplies (`PRESCRIBED` order)\n\
                  when the prescribed coordinates follow their laws at time `t` and the others\n\
                  move under `tau`: `M q̈ + bias = tau + drives` with q̈ of the prescribed\n\
                  coordinates their laws'. The reduced system of the free coordinates is solved\n\
                  by an L D Lᵀ factorisation; the entries of `q` and `qd` at the prescribed\n\
                  coordinates are not read (the laws give them)."
                .to_owned(),
            arguments: vec![
                Argument::Time,
                Argument::Position,
                Argument::Velocity,
                Argument::Force,
            ],
            shape: Shape::MixedDynamics,
            outputs: mixed,
        },
    ]
}

/// For a mechanism with loops, appends the straight-line loop functions
/// (`constraints`, `constraint_jacobian`, `constraint_bias`,
/// `reactions_of_multipliers`; the solves built on them come from
/// `constrained.rs` at rendering) and returns what names their rows; `None`
/// for a tree.
fn loop_functions(
    mechanism: &mut Mechanism,
    functions: &mut Vec<FunctionSpec>,
) -> Result<Option<LoopFacts>, EmitError> {
    use Argument::{Position, Velocity};
    let Some(loops) = mechanism.loops.clone() else {
        return Ok(None);
    };
    let closure = loops.closure;
    functions.push(FunctionSpec {
        name: "constraints".to_owned(),
        doc: "The loop-closure constraints Ψ(q), zero when every loop is closed: for every cut\n\
              joint, the relative placement of its two frames that the joint does not allow,\n\
              in the joint frame on the parent side (rows named by `CONSTRAINT_NAMES`)."
            .to_owned(),
        arguments: vec![Position],
        shape: Shape::ConstraintVector,
        outputs: closure.constraints.clone(),
    });
    functions.push(FunctionSpec {
        name: "constraint_jacobian".to_owned(),
        doc: "The constraint Jacobian J(q), so that Ψ̇ = J q̇ (velocity coordinates, quasi-\n\
              velocities of spherical and free joints included). The generalized force of the\n\
              multipliers λ is Jᵀλ: λ are the cut joints' reactions on their child bodies."
            .to_owned(),
        arguments: vec![Position],
        shape: Shape::ConstraintJacobian,
        outputs: closure.jacobian.concat(),
    });
    functions.push(FunctionSpec {
        name: "constraint_bias".to_owned(),
        doc: "J̇ q̇, so that the accelerations of a closed mechanism satisfy J q̈ + J̇ q̇ = 0."
            .to_owned(),
        arguments: vec![Position, Velocity],
        shape: Shape::ConstraintVector,
        outputs: closure.bias.clone(),
    });
    let reactions =
        sharnir_mech::formalisms::reactions::cut_joint_wrenches(mechanism, &closure).concat();
    functions.push(FunctionSpec {
        name: "reactions_of_multipliers".to_owned(),
        doc: "For every cut joint (order of `CUT_JOINTS`), the force (first three) and moment\n\
              (last three) its parent body exerts on its child body, in ground axes, the moment\n\
              about the joint frame's origin on the child side, for multipliers `lambda`."
            .to_owned(),
        arguments: vec![Position, Argument::Multipliers],
        shape: Shape::Reactions,
        outputs: reactions,
    });
    Ok(Some(LoopFacts {
        loops: mechanism
            .cut_joints
            .iter()
            .map(|c| c.loop_joints.clone())
            .collect(),
        mobility: loops.mobility,
        cut_joints: mechanism
            .cut_joints
            .iter()
            .map(|c| c.name.clone())
            .collect(),
        constraint_names: closure.rows.iter().map(|r| r.name.clone()).collect(),
        independent: mechanism.independent.clone(),
    }))
}
