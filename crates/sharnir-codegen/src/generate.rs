//! The standard contents of a generated module.
//!
//! One place decides which functions a module contains and what their docs
//! say, so `cargo xtask gen`, the tests and the benchmarks agree.

use crate::contacts;
use crate::detachments;
use crate::method::{Method, Output};
use crate::module::{
    emit_module, Argument, EmitError, FunctionSpec, GeneratedModule, LoopFacts, Shape,
};
use sharnir_cas::{hoist_constants, Id, Pool, Program};
use sharnir_mech::joint_space::JointSpace;
use sharnir_mech::{
    coriolis, crba, energy, jacobian, joint_space, kinematics, lagrange, rnea, telegin,
    vereshchagin,
};
use sharnir_mech::{Input, Mechanism, ParameterMode};

/// Derives and emits every function of the module for `mechanism`, each
/// dynamics output by the formalism whose emitted code is cheapest (see
/// `Dynamics::cheapest`); every formalism is verified against the others by
/// the test suite. Folded modules get the suffix `_folded` so both variants
/// can live side by side.
pub fn generate(mechanism: &mut Mechanism) -> Result<GeneratedModule, EmitError> {
    assemble(mechanism, None)
}

/// [`generate`] with the dynamics outputs derived by `method` (see
/// [`crate::method`] for which outputs each method produces).
pub fn generate_with(
    mechanism: &mut Mechanism,
    method: Method,
) -> Result<GeneratedModule, EmitError> {
    assemble(mechanism, Some(method))
}

/// The module, with the dynamics by `method`, or by the cheapest formalism
/// per output when `method` is `None`; the header says which made what.
fn assemble(
    mechanism: &mut Mechanism,
    method: Option<Method>,
) -> Result<GeneratedModule, EmitError> {
    use Argument::{Acceleration, Position, Velocity};
    let (inverse_dynamics, terms) = newton_euler(mechanism);
    let coriolis = coriolis::coriolis_matrix(mechanism, &terms.bias);
    let (kinetic, potential) = energy::energy(mechanism);
    let spec_body: Vec<bool> = mechanism.bodies.iter().map(|b| !b.auxiliary).collect();
    let poses: Vec<_> = kinematics::body_frame_poses(mechanism)
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
    let dynamics = match method {
        Some(method) => Dynamics::derive(mechanism, method, inverse_dynamics, terms)?,
        None => Dynamics::cheapest(mechanism, inverse_dynamics, terms)?,
    };
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
    if let Some(forces) = mechanism.applied_forces.clone() {
        functions.push(FunctionSpec {
            name: "applied_forces".to_owned(),
            doc: "The joint forces of the spec's `[forces]` table at time `t` (zero for the\n\
                  coordinates it does not name): add them to `tau` before `forward_dynamics`,\n\
                  so that `M q̈ + bias = tau + applied_forces`."
                .to_owned(),
            arguments: vec![Argument::Time, Position, Velocity],
            shape: Shape::JointVector,
            outputs: forces,
        });
    }
    functions.extend(contacts::functions(mechanism));
    functions.extend(detachments::function(mechanism));
    let loops = loop_functions(mechanism, &mut functions)?;
    for function in &mut functions {
        function.outputs = with_angle_sums(&mut mechanism.pool, &function.outputs);
    }
    let mut choice = dynamics.choice;
    if method.is_none() {
        let (bias, gravity) = (&dynamics.terms.bias, &dynamics.terms.gravity);
        composite_rigid_body(mechanism, &mut functions, &mut choice, bias, gravity);
    }
    let module_name = match mechanism.mode {
        ParameterMode::Runtime => mechanism.name.clone(),
        ParameterMode::Folded => format!("{}_folded", mechanism.name),
    };
    let note = match method {
        Some(method) => method.header_note(dynamics.choice.forward_dynamics),
        None => choice.header_note(),
    };
    if mechanism.pool.overflowed() {
        return Err(EmitError(
            "the derivation needs more than 2^32 expression nodes, more than the algebra \
             core can name; split the mechanism"
                .to_owned(),
        ));
    }
    let mut module = emit_module(mechanism, &module_name, &functions, loops)?;
    module.source = with_header_note(&module.source, &note);
    Ok(module)
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
    let reactions = sharnir_mech::reactions::cut_joint_wrenches(mechanism, &closure).concat();
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

/// The outputs whose formalism the method chooses, with their docs.
struct Dynamics {
    /// Which formalism made which output.
    choice: Choice,
    inverse: Vec<Id>,
    inverse_doc: &'static str,
    terms: JointSpace,
    forward: Vec<Id>,
    forward_doc: &'static str,
}

impl Dynamics {
    /// Derives what `method` produces and takes the rest from the usual
    /// producers; `newton_euler` and its `terms` are already derived because
    /// the Coriolis matrix reads them whatever the method. Fails only for a
    /// method that cannot handle this mechanism (Telegin's formalism needs a
    /// serial chain of one-degree-of-freedom joints).
    fn derive(
        mechanism: &mut Mechanism,
        method: Method,
        newton_euler: Vec<Id>,
        terms: JointSpace,
    ) -> Result<Dynamics, EmitError> {
        let telegin = match method {
            Method::Telegin => {
                Some(telegin::inverse_dynamics(mechanism).map_err(|e| EmitError(e.to_string()))?)
            }
            _ => None,
        };
        let terms = match (method.producer(Output::JointSpace), &telegin) {
            (Method::Lagrange, _) => lagrange::joint_space(mechanism),
            (Method::Telegin, Some(tau)) => joint_space::joint_space(&mut mechanism.pool, tau),
            _ => terms,
        };
        let (inverse, inverse_doc) = match (method.producer(Output::InverseDynamics), telegin) {
            (Method::Lagrange, _) => (
                lagrange::inverse_dynamics(&mut mechanism.pool, &terms),
                "Joint forces τ(q, q̇, q̈) = M(q) q̈ + bias(q, q̇) by the joint-coordinate\n\
                 (Lagrange) formalism: torques for revolute joints, forces for prismatic ones,\n\
                 in coordinate order.",
            ),
            (Method::Telegin, Some(tau)) => (
                tau,
                "Joint forces τ(q, q̇, q̈) by Telegin's direction-cosine formalism (subsystem\n\
                 static moments, Statements 1–2): torques for revolute joints, forces for\n\
                 prismatic ones, in coordinate order.",
            ),
            _ => (
                newton_euler,
                "Joint forces τ(q, q̇, q̈) by the recursive Newton–Euler method: torques for\n\
                 revolute joints, forces for prismatic ones, in coordinate order.",
            ),
        };
        // Coupled joints are outside the separate-bodies method; unless it
        // was asked for by name, their forward dynamics solve M q̈ = τ − bias.
        let forward_producer = match method.producer(Output::ForwardDynamics) {
            Method::Vereshchagin if mechanism.has_couplings() && method != Method::Vereshchagin => {
                Method::Lagrange
            }
            producer => producer,
        };
        let (forward, forward_doc) = match forward_producer {
            Method::Lagrange => (
                lagrange::forward_dynamics(&mut mechanism.pool, &terms),
                "Joint accelerations q̈(q, q̇, τ) by an L D Lᵀ factorisation of M(q) in\n\
                 `M(q) q̈ = τ − bias(q, q̇)` (joint-coordinate formalism), in O(n³).",
            ),
            _ => (
                separate_bodies(mechanism)?,
                "Joint accelerations q̈(q, q̇, τ) by Vereshchagin's separate-bodies\n\
                 (articulated-body) method, in O(n) and without forming M(q); they satisfy\n\
                 `M(q) q̈ + bias(q, q̇) = τ`.",
            ),
        };
        let producer = |output| method.producer(output);
        Ok(Dynamics {
            choice: Choice {
                inverse_dynamics: producer(Output::InverseDynamics),
                mass_matrix: MassMatrixBy::ReadOff(producer(Output::JointSpace)),
                joint_space_mass_matrix: MassMatrixBy::ReadOff(producer(Output::JointSpace)),
                bias: producer(Output::JointSpace),
                gravity: producer(Output::JointSpace),
                forward_dynamics: forward_producer,
            },
            inverse,
            inverse_doc,
            terms,
            forward,
            forward_doc,
        })
    }

    /// Derives every output by every formalism that can produce it for this
    /// mechanism and keeps, output by output, the cheapest emitted code
    /// (ties go to the earlier formalism of [`Method::ALL`]).
    fn cheapest(
        mechanism: &mut Mechanism,
        newton_euler: Vec<Id>,
        terms: JointSpace,
    ) -> Result<Dynamics, EmitError> {
        let mut candidates: Vec<(Method, Dynamics)> = Vec::new();
        for method in [Method::NewtonEuler, Method::Lagrange, Method::Telegin] {
            // Telegin's formalism is for serial chains only: skipped where
            // it does not apply, and any other failure is an error.
            if method == Method::Telegin && telegin::applies(mechanism).is_err() {
                continue;
            }
            let dynamics =
                Dynamics::derive(mechanism, method, newton_euler.clone(), terms.clone())?;
            candidates.push((method, dynamics));
        }
        let pool = &mut mechanism.pool;
        let mut best = |output: &dyn Fn(&Dynamics) -> Vec<Id>| -> usize {
            (0..candidates.len())
                .min_by_key(|&i| (cost(pool, &output(&candidates[i].1)), i))
                .unwrap_or(0)
        };
        let inverse = best(&|d| d.inverse.clone());
        let mass = best(&|d| d.terms.mass_matrix.concat());
        let bias = best(&|d| d.terms.bias.clone());
        let gravity = best(&|d| d.terms.gravity.clone());
        let forward = best(&|d| d.forward.clone());
        let pick = |i: usize| &candidates[i];
        Ok(Dynamics {
            choice: Choice {
                inverse_dynamics: pick(inverse).1.choice.inverse_dynamics,
                mass_matrix: pick(mass).1.choice.mass_matrix,
                joint_space_mass_matrix: pick(mass).1.choice.mass_matrix,
                bias: pick(bias).1.choice.bias,
                gravity: pick(gravity).1.choice.gravity,
                forward_dynamics: pick(forward).1.choice.forward_dynamics,
            },
            inverse: pick(inverse).1.inverse.clone(),
            inverse_doc: pick(inverse).1.inverse_doc,
            terms: JointSpace {
                mass_matrix: pick(mass).1.terms.mass_matrix.clone(),
                bias: pick(bias).1.terms.bias.clone(),
                gravity: pick(gravity).1.terms.gravity.clone(),
            },
            forward: pick(forward).1.forward.clone(),
            forward_doc: pick(forward).1.forward_doc,
        })
    }
}

/// Newton–Euler's joint forces and the joint-space terms read off them,
/// each from the bodies' own inertias or from the base inertias
/// ([`sharnir_mech::base_parameters`]), whichever gives cheaper code. Both
/// give the same numbers; regrouping usually removes a third of the
/// operations, but not where it turns unit masses into other numbers. The
/// velocity-dependent outputs (joint forces and bias) also try Khalil's
/// acceleration field `U = ω̇̃ + ω̃ω̃` ([`rnea::PointAcceleration`]); the
/// mass matrix and gravity, where ω is zero, keep the cross products.
fn newton_euler(mechanism: &mut Mechanism) -> (Vec<Id>, JointSpace) {
    use rnea::PointAcceleration::{AccelerationField, CrossProducts};
    let own = rnea::inverse_dynamics(mechanism, CrossProducts);
    let own_terms = joint_space::joint_space(&mut mechanism.pool, &own);
    let base = rnea::inverse_dynamics_regrouped(mechanism, CrossProducts);
    let base_terms = joint_space::joint_space(&mut mechanism.pool, &base);
    let own_field = rnea::inverse_dynamics(mechanism, AccelerationField);
    let own_field_bias = joint_space::joint_space(&mut mechanism.pool, &own_field).bias;
    let base_field = rnea::inverse_dynamics_regrouped(mechanism, AccelerationField);
    let base_field_bias = joint_space::joint_space(&mut mechanism.pool, &base_field).bias;
    let pool = &mut mechanism.pool;
    let n = own.len();
    let mass_matrix = cheapest(
        pool,
        [
            own_terms.mass_matrix.concat(),
            base_terms.mass_matrix.concat(),
        ],
    );
    let inverse_dynamics = cheapest(pool, [own, base, own_field, base_field]);
    let bias = cheapest(
        pool,
        [
            own_terms.bias,
            base_terms.bias,
            own_field_bias,
            base_field_bias,
        ],
    );
    (
        inverse_dynamics,
        JointSpace {
            mass_matrix: mass_matrix.chunks(n.max(1)).map(<[Id]>::to_vec).collect(),
            bias,
            gravity: cheapest(pool, [own_terms.gravity, base_terms.gravity]),
        },
    )
}

/// Offers the composite-rigid-body algorithm's mass matrix
/// ([`sharnir_mech::crba`], from the bodies' own or the base inertias,
/// whichever is cheaper) to `mass_matrix` and, with `bias` and `gravity`,
/// to `joint_space`, each already lowered with angle sums where they pay:
/// a function takes it only when that makes it strictly cheaper by
/// [`cost`], and `choice` records which did. A matrix read off Newton–Euler
/// shares with the bias what the CRBA's does not, so the two functions may
/// choose differently. This runs after every function's own angle sums are
/// contracted, so that nothing the CRBA adds to the pool reorders what the
/// other functions are lowered from.
fn composite_rigid_body(
    mechanism: &mut Mechanism,
    functions: &mut [FunctionSpec],
    choice: &mut Choice,
    bias: &[Id],
    gravity: &[Id],
) {
    let own = crba::mass_matrix(mechanism).concat();
    let base = crba::mass_matrix_regrouped(mechanism).concat();
    let pool = &mut mechanism.pool;
    let mass_matrix = cheapest(pool, [own, base]);
    let joint_space = [mass_matrix.as_slice(), bias, gravity].concat();
    for function in functions.iter_mut() {
        let (candidate, slot) = match function.name.as_str() {
            "mass_matrix" => (&mass_matrix, &mut choice.mass_matrix),
            "joint_space" => (&joint_space, &mut choice.joint_space_mass_matrix),
            _ => continue,
        };
        let contracted = with_angle_sums(pool, candidate);
        if cost(pool, &contracted) < cost(pool, &function.outputs) {
            function.outputs = contracted;
            *slot = MassMatrixBy::CompositeRigidBody;
        }
    }
}

/// Vereshchagin's forward dynamics from the bodies' own inertias or from
/// the base inertias, whichever gives cheaper code (see [`newton_euler`]).
fn separate_bodies(mechanism: &mut Mechanism) -> Result<Vec<Id>, EmitError> {
    let own = vereshchagin::forward_dynamics(mechanism).map_err(|e| EmitError(e.to_string()))?;
    let base = vereshchagin::forward_dynamics_regrouped(mechanism)
        .map_err(|e| EmitError(e.to_string()))?;
    Ok(cheapest(&mut mechanism.pool, [own, base]))
}

/// `outputs` with products of sines and cosines contracted into sines and
/// cosines of angle sums (`c₁c₂ − s₁s₂ → cos(q₁ + q₂)`, see
/// [`sharnir_cas::trig`]) when that makes the function cheaper, as it does
/// wherever parallel joint axes make a chain's rotations compose into
/// angle sums; otherwise `outputs` unchanged.
fn with_angle_sums(pool: &mut Pool, outputs: &[Id]) -> Vec<Id> {
    let contracted = sharnir_cas::contract_angle_sums(pool, outputs);
    cheapest(pool, [outputs.to_vec(), contracted])
}

/// The candidate whose code is cheapest by [`cost`], the first on a tie
/// (so the usual form goes first and an alternative must be cheaper). A
/// candidate equal to an earlier one is not costed again, and a single
/// distinct candidate not at all: costing lowers the whole program, the
/// most expensive step of generation.
fn cheapest<const N: usize>(pool: &mut Pool, candidates: [Vec<Id>; N]) -> Vec<Id> {
    let mut distinct: Vec<Vec<Id>> = Vec::with_capacity(N);
    for candidate in candidates {
        if !distinct.contains(&candidate) {
            distinct.push(candidate);
        }
    }
    if distinct.len() == 1 {
        return distinct.pop().unwrap_or_default();
    }
    let mut best: Option<(u64, Vec<Id>)> = None;
    for candidate in distinct {
        let c = cost(pool, &candidate);
        if best.as_ref().is_none_or(|(b, _)| c < *b) {
            best = Some((c, candidate));
        }
    }
    best.map(|(_, b)| b).unwrap_or_default()
}
/// The weighted operation count per call ([`sharnir_cas::OpCount::weight`])
/// that decides between formalisms and forms (every angle's sine and cosine
/// are needed anyway; angle sums add more). Groups of runtime parameters
/// are hoisted first, as the emitter does, because `Params::derived`
/// computes them once and not on every call.
fn cost(pool: &mut Pool, outputs: &[Id]) -> u64 {
    let is_parameter = |symbol: &str| matches!(Input::parse(symbol), Some(Input::Parameter(_)));
    let name = |k: usize| format!("cost.k{k}");
    let per_call = hoist_constants(pool, outputs, &is_parameter, &name).roots;
    Program::lower(pool, &per_call).op_count().weight()
}

/// Which formalism produced each dynamics output of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Choice {
    inverse_dynamics: Method,
    mass_matrix: MassMatrixBy,
    joint_space_mass_matrix: MassMatrixBy,
    bias: Method,
    gravity: Method,
    forward_dynamics: Method,
}

impl Choice {
    /// The header paragraph of a module generated with the cheapest
    /// formalism per output.
    fn header_note(&self) -> String {
        let line = |function: &str, method: Method| {
            format!("//! - `{function}`: {}.\n", method.formalism())
        };
        [
            "//! Each dynamics output by the formalism whose code is cheapest (`cargo xtask ops`\n\
             //! compares them all):\n"
                .to_owned(),
            line("inverse_dynamics", self.inverse_dynamics),
            format!("//! - `mass_matrix`: {}.\n", self.mass_matrix.formalism()),
            line("bias", self.bias),
            line("gravity", self.gravity),
            format!(
                "//! - `joint_space`: its mass matrix by {}, bias and gravity as above.\n",
                self.joint_space_mass_matrix.formalism()
            ),
            line("forward_dynamics", self.forward_dynamics),
        ]
        .concat()
    }
}

/// Where a module's mass matrix comes from: read off a formalism's joint
/// forces (or Lagrange's `Σ BᵀMB`), or the composite-rigid-body algorithm,
/// which derives nothing but `M` and so is no [`Method`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MassMatrixBy {
    /// The joint-space terms of this method.
    ReadOff(Method),
    /// [`sharnir_mech::crba`].
    CompositeRigidBody,
}

impl MassMatrixBy {
    /// The formalism's name in prose, for module headers.
    fn formalism(self) -> &'static str {
        match self {
            MassMatrixBy::ReadOff(method) => method.formalism(),
            MassMatrixBy::CompositeRigidBody => "the composite-rigid-body algorithm",
        }
    }
}

/// `source` with `note` (`//!` lines) as a paragraph of its own after the
/// first paragraph of the header (the module's provenance).
fn with_header_note(source: &str, note: &str) -> String {
    let at = source.find("\n//!\n").map_or(0, |i| i + 1);
    let (head, tail) = source.split_at(at);
    format!("{head}//!\n{note}{tail}")
}
