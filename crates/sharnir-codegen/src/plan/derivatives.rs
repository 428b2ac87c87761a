//! The derivative functions of a module — `inverse_dynamics_derivatives`,
//! `gravity_derivatives`, `mass_matrix_inverse` and
//! `forward_dynamics_derivatives` — derived after every other function, so
//! that nothing they add to the pool renumbers what the others are lowered
//! from.
//!
//! Each is the exact symbolic derivative of an expression the module
//! already has (`sharnir_mech::formalisms::derivatives`, Pinocchio's
//! convention in velocity coordinates), simplified and shared like any
//! other output: a structural zero costs nothing. `∂τ/∂q` and `∂τ/∂q̇`
//! are taken of the chosen inverse dynamics and of Newton–Euler's, and the
//! cheaper kept; the forward dynamics' are `−M⁻¹ ∂τ/∂(q, q̇)` at
//! `q̈ = forward_dynamics(q, q̇, τ)`, solved with one leaves-first
//! `L Δ Lᵀ` factorisation of `M`.

use super::choice;
use super::cost::Costs;
use super::outputs::{Function, Outputs};
use crate::vocabulary::{Argument, FunctionSpec, Shape};
use sharnir_cas::Id;
use sharnir_mech::formalisms::derivatives as d;
use sharnir_mech::Mechanism;

/// What the derivative functions are derived from: the inverse dynamics
/// (the chosen and Newton–Euler's), the forward dynamics, the mass matrix
/// and, for loops, the constraint Jacobian (row-major) and `J̇ q̇` as the
/// module computes them (empty where the module has none).
pub(crate) struct Sources {
    pub(crate) inverse: Vec<Id>,
    pub(crate) newton_euler: Vec<Id>,
    pub(crate) forward: Vec<Id>,
    pub(crate) mass_matrix: Vec<Id>,
    pub(crate) constraint_jacobian: Vec<Id>,
    pub(crate) constraint_bias: Vec<Id>,
}

/// The derivative functions among `outputs`, in emission order.
pub(crate) fn functions(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    sources: Sources,
    outputs: Outputs,
) -> Vec<FunctionSpec> {
    use Argument::{Acceleration, Force, Position, Velocity};
    let wanted = |f: Function| outputs.contains(f);
    let nv = mechanism.dof();
    let mut functions = Vec::new();
    let needs_inverse = wanted(Function::InverseDynamicsDerivatives)
        || wanted(Function::ForwardDynamicsDerivatives);
    let (by_position, by_velocity) = if needs_inverse {
        inverse_dynamics_derivatives(mechanism, costs, &sources)
    } else {
        (Vec::new(), Vec::new())
    };
    if wanted(Function::InverseDynamicsDerivatives) {
        functions.push(FunctionSpec {
            name: "inverse_dynamics_derivatives".to_owned(),
            doc: "`(∂τ/∂q, ∂τ/∂q̇)` of `inverse_dynamics` at `(q, q̇, q̈)` (`∂τ/∂q̈` is\n\
                  `mass_matrix`): row `i` is joint force `i`, column `j` velocity coordinate `j`;\n\
                  `∂τ/∂q` in velocity coordinates, Pinocchio's convention (see the header)."
                .to_owned(),
            arguments: vec![Position, Velocity, Acceleration],
            shape: Shape::JointMatrixPair,
            outputs: [by_position.as_slice(), by_velocity.as_slice()].concat(),
        });
    }
    if wanted(Function::GravityDerivatives) {
        let gravity = d::at_rest(mechanism, &sources.newton_euler);
        let stiffness = d::configuration_jacobian(mechanism, &gravity).concat();
        functions.push(FunctionSpec {
            name: "gravity_derivatives".to_owned(),
            doc: "`∂g/∂q` of `gravity` (row: joint force, column: velocity coordinate, in\n\
                  Pinocchio's convention): the stiffness of the static joint forces, as\n\
                  compliance control and identification need it."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointMatrix,
            outputs: choice::with_angle_sums(&mut mechanism.pool, costs, &stiffness),
        });
    }
    let needs_inverse_mass =
        wanted(Function::MassMatrixInverse) || wanted(Function::ForwardDynamicsDerivatives);
    let (mass, inverse_mass) = if needs_inverse_mass {
        let mass = mass_matrix(mechanism, &sources.mass_matrix, nv);
        let inverse = d::mass_matrix_inverse(mechanism, &mass).concat();
        (mass, inverse)
    } else {
        (Vec::new(), Vec::new())
    };
    if wanted(Function::MassMatrixInverse) {
        functions.push(FunctionSpec {
            name: "mass_matrix_inverse".to_owned(),
            doc: "`M(q)⁻¹`, symmetric, from an `L Δ Lᵀ` factorisation of the mass matrix whose\n\
                  pivots are taken outboard bodies first (no fill-in on a tree)."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::JointMatrix,
            outputs: inverse_mass.clone(),
        });
    }
    if wanted(Function::ForwardDynamicsDerivatives) {
        let along = |m: &mut Mechanism, e: &[Id]| d::at_accelerations(m, e, &sources.forward);
        let by_position = along(mechanism, &by_position);
        let by_velocity = along(mechanism, &by_velocity);
        let rows =
            |flat: &[Id]| -> Vec<Vec<Id>> { flat.chunks(nv.max(1)).map(<[Id]>::to_vec).collect() };
        let rhs: Vec<Vec<Id>> = {
            let pool = &mut mechanism.pool;
            rows(&by_position)
                .into_iter()
                .zip(rows(&by_velocity))
                .map(|(p, v)| p.into_iter().chain(v).map(|e| pool.neg(e)).collect())
                .collect()
        };
        let solved = d::mass_matrix_solve(mechanism, &mass, &rhs);
        let (mut dq, mut dv) = (Vec::with_capacity(nv * nv), Vec::with_capacity(nv * nv));
        for row in &solved {
            let (p, v) = row.split_at(nv.min(row.len()));
            dq.extend_from_slice(p);
            dv.extend_from_slice(v);
        }
        functions.push(FunctionSpec {
            name: "forward_dynamics_derivatives".to_owned(),
            doc: "`(∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ)` of `forward_dynamics` at `(q, q̇, τ)`, the last\n\
                  `M(q)⁻¹`: row `i` is acceleration `i`, column `j` velocity coordinate (or joint\n\
                  force) `j`; `∂q̈/∂q` in velocity coordinates, Pinocchio's convention (see the\n\
                  header). `∂q̈/∂x = −M⁻¹ ∂τ/∂x` with `∂τ/∂x` of the inverse dynamics at\n\
                  `q̈ = forward_dynamics(q, q̇, τ)`."
                .to_owned(),
            arguments: vec![Position, Velocity, Force],
            shape: Shape::JointMatrixTriple,
            outputs: [dq, dv, inverse_mass].concat(),
        });
        if mechanism.has_loops() {
            functions.push(residual_derivatives(mechanism, costs, &sources));
        }
    }
    if wanted(Function::StandardRegressor) {
        let regressor = sharnir_mech::formalisms::regressor::standard_regressor(mechanism).concat();
        functions.push(FunctionSpec {
            name: "standard_regressor".to_owned(),
            doc: "The standard regressor `Y(q, q̇, q̈)`, `τ = Y π` (the `inverse_dynamics`, of\n\
                  the tree for a mechanism with loops): ten columns per body of `BODY_NAMES`,\n\
                  Pinocchio's dynamic parameters in its order, the mass, the first moment\n\
                  `m c` (x, y, z) and the inertia about the body origin (xx, xy, yy, xz, yz, zz),\n\
                  in body axes. It reads the geometry and gravity of `p`, not its masses."
                .to_owned()
                + if mechanism.drives.is_empty() {
                    ""
                } else {
                    "\nThen one column per drive parameter of `DRIVE_PARAMETER_NAMES` (armature,\n\
                     damping, friction), so that `Y π = inverse_dynamics − friction_forces`, the\n\
                     force the drives supply."
                },
            arguments: vec![Position, Velocity, Acceleration],
            shape: if mechanism.drives.is_empty() {
                Shape::Regressor
            } else {
                Shape::DriveRegressor
            },
            outputs: choice::with_angle_sums(&mut mechanism.pool, costs, &regressor),
        });
    }
    functions
}

/// For a mechanism with loops, `constrained_residual_derivatives`: the
/// partial derivatives of the constrained dynamics' two residuals,
/// `r₁ = τ(q, q̇, q̈) − Jᵀλ` and `r₂ = J q̈ + J̇ q̇`, with `q̈` and `λ` held,
/// from which `constrained_forward_dynamics_derivatives` (`constrained.rs`)
/// solves the derivatives of the constrained motion.
fn residual_derivatives(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    sources: &Sources,
) -> FunctionSpec {
    use sharnir_mech::Input;
    let nv = mechanism.dof();
    let nc = sources.constraint_bias.len();
    let pool = &mut mechanism.pool;
    let zero = pool.zero();
    let jacobian = |k: usize, i: usize| {
        sources
            .constraint_jacobian
            .get(k * nv + i)
            .copied()
            .unwrap_or(zero)
    };
    let multipliers: Vec<Id> = (0..nc).map(|k| pool.input(Input::Multiplier(k))).collect();
    let accelerations: Vec<Id> = (0..nv)
        .map(|i| pool.input(Input::Acceleration(i)))
        .collect();
    let mut residual = Vec::with_capacity(nv + nc);
    for i in 0..nv {
        let force = sources.inverse.get(i).copied().unwrap_or(zero);
        let reaction: Vec<Id> = (0..nc)
            .map(|k| pool.mul(jacobian(k, i), multipliers[k]))
            .collect();
        let reaction = pool.sum(&reaction);
        residual.push(pool.sub(force, reaction));
    }
    for (k, &bias) in sources.constraint_bias.iter().enumerate() {
        let mut terms: Vec<Id> = (0..nv)
            .map(|i| pool.mul(jacobian(k, i), accelerations[i]))
            .collect();
        terms.push(bias);
        residual.push(pool.sum(&terms));
    }
    let by_position = d::configuration_jacobian(mechanism, &residual);
    let by_velocity = d::velocity_jacobian(mechanism, &residual);
    let (force_q, constraint_q) = by_position.split_at(nv.min(by_position.len()));
    let (force_v, constraint_v) = by_velocity.split_at(nv.min(by_velocity.len()));
    let outputs = [force_q, force_v, constraint_q, constraint_v]
        .concat()
        .concat();
    FunctionSpec {
        name: "constrained_residual_derivatives".to_owned(),
        doc: "`(∂r₁/∂q, ∂r₁/∂q̇, ∂r₂/∂q, ∂r₂/∂q̇)` of the constrained dynamics' residuals\n\
              `r₁ = τ(q, q̇, q̈) − Jᵀλ` and `r₂ = J q̈ + J̇ q̇` with `q̈` and `λ` held (derivatives in\n\
              `q` in velocity coordinates): what `constrained_forward_dynamics_derivatives`\n\
              solves with."
            .to_owned(),
        arguments: vec![
            Argument::Position,
            Argument::Velocity,
            Argument::Acceleration,
            Argument::Multipliers,
        ],
        shape: Shape::ResidualDerivatives,
        outputs: choice::with_angle_sums(&mut mechanism.pool, costs, &outputs),
    }
}

/// `∂τ/∂q` and `∂τ/∂q̇` (each row-major), of the chosen inverse dynamics
/// or of Newton–Euler's, whichever is cheaper together, each with its
/// angle sums where they pay.
fn inverse_dynamics_derivatives(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    sources: &Sources,
) -> (Vec<Id>, Vec<Id>) {
    let nv = mechanism.dof();
    let mut derive = |m: &mut Mechanism, tau: &[Id]| -> Vec<Id> {
        let by_position = d::configuration_jacobian(m, tau).concat();
        let by_velocity = d::velocity_jacobian(m, tau).concat();
        let both = [by_position, by_velocity].concat();
        choice::with_angle_sums(&mut m.pool, costs, &both)
    };
    let chosen = derive(mechanism, &sources.inverse);
    let both = if sources.newton_euler == sources.inverse || sources.newton_euler.is_empty() {
        chosen
    } else {
        let newton_euler = derive(mechanism, &sources.newton_euler);
        choice::cheapest(&mut mechanism.pool, costs, [chosen, newton_euler])
    };
    let (by_position, by_velocity) = both.split_at((nv * nv).min(both.len()));
    (by_position.to_vec(), by_velocity.to_vec())
}

/// The module's mass matrix as rows, or the composite-rigid-body
/// algorithm's where the module has none.
fn mass_matrix(mechanism: &mut Mechanism, module: &[Id], nv: usize) -> Vec<Vec<Id>> {
    if module.len() == nv * nv && nv > 0 {
        module.chunks(nv).map(<[Id]>::to_vec).collect()
    } else {
        sharnir_mech::formalisms::crba::mass_matrix(
            mechanism,
            sharnir_mech::formalisms::crba::FirstStep::InParent,
        )
    }
}
