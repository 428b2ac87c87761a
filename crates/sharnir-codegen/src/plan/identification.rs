//! The base-parameter functions of a module — `base_parameters` (`β` from
//! the standard parameters), `regressor` (the minimal regressor,
//! `τ = Y_b β`) and `base_inverse_dynamics` (`Y_b β` for a given `β`, by
//! Khalil's customised Newton–Euler) — derived after the standard
//! regressor, and the facts the module prints of them (`NBP`,
//! `BASE_PARAMETER_NAMES`, the regrouping formulas in the header).
//!
//! What they are and how they are found:
//! `sharnir_mech::formalisms::base_regressor` and
//! `sharnir_mech::formalisms::customised_newton_euler`.

use super::choice;
use super::cost::Costs;
use super::outputs::{Function, Outputs};
use crate::error::EmitError;
use crate::vocabulary::{Argument, BaseParameterFacts, FunctionSpec, Shape};
use sharnir_cas::Id;
use sharnir_mech::formalisms::base_regressor::{base_parameters, formula_text, BaseParameters};
use sharnir_mech::formalisms::customised_newton_euler::inverse_dynamics_in_base_parameters;
use sharnir_mech::formalisms::notation::coefficient;
use sharnir_mech::formalisms::rnea::PointAcceleration;
use sharnir_mech::{Input, Mechanism};
use std::collections::HashMap;

/// The base-parameter functions among `outputs`, in emission order, and
/// their facts (`None` when the module has neither).
pub(crate) fn functions(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    outputs: Outputs,
) -> Result<(Vec<FunctionSpec>, Option<BaseParameterFacts>), EmitError> {
    let wanted = |f: Function| outputs.contains(f);
    let any = [
        Function::BaseParameters,
        Function::Regressor,
        Function::BaseInverseDynamics,
    ];
    if !any.into_iter().any(wanted) {
        return Ok((Vec::new(), None));
    }
    let base = base_parameters(mechanism)
        .map_err(|e| EmitError::Internal(format!("sampling the regressor's columns: {e}")))?;
    let facts = facts(mechanism, &base)?;
    let mut functions = Vec::new();
    if wanted(Function::BaseParameters) {
        functions.push(FunctionSpec {
            name: "base_parameters".to_owned(),
            doc: "The base parameters `β` (`BASE_PARAMETER_NAMES`, the regrouping formulas in\n\
                  the header) from the bodies' inertias in `p`: the combinations of the\n\
                  standard parameters that the joint forces determine, `τ = regressor · β`."
                .to_owned(),
            arguments: Vec::new(),
            shape: Shape::BaseParameters,
            outputs: base.parameters.iter().map(|p| p.value).collect(),
        });
    }
    if wanted(Function::Regressor) {
        let nv = mechanism.dof();
        let zero = mechanism.pool.zero();
        let rows: Vec<Id> = (0..nv)
            .flat_map(|i| {
                base.parameters
                    .iter()
                    .map(move |p| p.column.get(i).copied().unwrap_or(zero))
            })
            .collect();
        let forces = if mechanism.drives.is_empty() {
            "the `inverse_dynamics`"
        } else {
            "`inverse_dynamics − friction_forces`, the force the drives supply"
        };
        functions.push(FunctionSpec {
            name: "regressor".to_owned(),
            doc: format!(
                "The minimal regressor `Y_b(q, q̇, q̈)`, `τ = Y_b β` with `β = base_parameters(p)`\n\
                 ({forces}, of the tree for a mechanism with loops): one column\n\
                 per base parameter, in the order of `BASE_PARAMETER_NAMES`. It reads the\n\
                 geometry and gravity of `p`, not its masses."
            ),
            arguments: vec![
                Argument::Position,
                Argument::Velocity,
                Argument::Acceleration,
            ],
            shape: Shape::BaseRegressor,
            outputs: choice::with_angle_sums(&mut mechanism.pool, costs, &rows),
        });
    }
    if wanted(Function::BaseInverseDynamics) {
        functions.push(base_inverse_dynamics(mechanism, costs, &base));
    }
    Ok((functions, Some(facts)))
}

/// `base_inverse_dynamics`: the joint forces written in the base
/// parameters, with the point accelerations by cross products or by
/// Khalil's acceleration field and with the angle sums or without,
/// whichever is cheaper.
fn base_inverse_dynamics(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    base: &BaseParameters,
) -> FunctionSpec {
    let crossed =
        inverse_dynamics_in_base_parameters(mechanism, base, PointAcceleration::CrossProducts);
    let field =
        inverse_dynamics_in_base_parameters(mechanism, base, PointAcceleration::AccelerationField);
    let forces = if mechanism.drives.is_empty() {
        "`inverse_dynamics`"
    } else {
        "`inverse_dynamics − friction_forces`, the force the drives supply"
    };
    let chosen = choice::cheapest(&mut mechanism.pool, costs, [crossed, field]);
    FunctionSpec {
        name: "base_inverse_dynamics".to_owned(),
        doc: format!(
            "The joint forces written in the base parameters: `Y_b β` for the given `beta`\n\
             (in the order of `BASE_PARAMETER_NAMES`), by Khalil's customised Newton–Euler,\n\
             in fewer operations than `regressor` times `beta`. At `beta = base_parameters(p)`\n\
             it is {forces} (of the tree for a mechanism with\n\
             loops); with an identified `beta`, the identified model's. It reads the\n\
             geometry and gravity of `p`, not its masses."
        ),
        arguments: vec![
            Argument::BaseParameters,
            Argument::Position,
            Argument::Velocity,
            Argument::Acceleration,
        ],
        shape: Shape::JointVector,
        outputs: choice::with_angle_sums(&mut mechanism.pool, costs, &chosen),
    }
}

/// The base parameters of `mechanism` as a module prints them, without
/// planning it: what `sharnir base-parameters` lists. The same as a plan's
/// ([`crate::Plan::base_parameters`]): the regrouping and the sampled
/// selection do not depend on what else the pool holds, and the formulas
/// are written in an order of their own.
pub fn base_parameter_facts(mechanism: &mut Mechanism) -> Result<BaseParameterFacts, EmitError> {
    let base = base_parameters(mechanism)
        .map_err(|e| EmitError::Internal(format!("sampling the regressor's columns: {e}")))?;
    facts(mechanism, &base)
}

/// The names, formulas and coefficients of `base` (the coefficients at the
/// spec's parameter values).
fn facts(mechanism: &Mechanism, base: &BaseParameters) -> Result<BaseParameterFacts, EmitError> {
    let pool = &mechanism.pool;
    let values: HashMap<&str, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.default))
        .collect();
    let env = |symbol: &Input| match symbol {
        Input::Parameter(name) => values.get(name.as_str()).copied(),
        _ => None,
    };
    let mut coefficients = Vec::with_capacity(base.parameters.len());
    for parameter in &base.parameters {
        let ids: Vec<Id> = parameter.formula.iter().map(|&(_, c)| c).collect();
        let numbers = pool
            .eval(&ids, &env)
            .map_err(|e| EmitError::Internal(format!("a regrouping coefficient: {e}")))?;
        coefficients.push(
            parameter
                .formula
                .iter()
                .zip(numbers)
                .map(|(&(k, _), c)| (k, c))
                .collect(),
        );
    }
    Ok(BaseParameterFacts {
        standard: base.standard.clone(),
        names: base.parameters.iter().map(|p| p.name.clone()).collect(),
        formulas: base
            .parameters
            .iter()
            .map(|p| formula_text(pool, p, &base.standard, &coefficient))
            .collect(),
        coefficients,
        inexact: base.inexact.clone(),
        rank: base.rank,
    })
}
