//! The checks of a plan's base parameters, shared by the shipped modules
//! (`shipped_programs.rs`) and the random mechanisms
//! (`random_mechanisms.rs`): at one state, each an identity that holds
//! exactly, checked in double precision.

use crate::oracle::relative_error;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_codegen::Plan;
use sharnir_mech::Input;

/// Agreement of two double-precision evaluations of one exact identity,
/// relative to the largest expected entry (or 1): sums of a few hundred
/// products of entries below 1e3 round to about 1e-13 of that.
pub const BASE_TOLERANCE: f64 = 1e-12;

/// Checks, at the state `env` gives:
/// - `Y_b β = τ`: `regressor` times `base_parameters` is the plan's own
///   `inverse_dynamics` less its `friction_forces` (the force the drives
///   supply);
/// - the regrouping formulas at the standard parameters `standard` (the
///   oracle's, in the order of `standard_regressor`'s columns) give
///   `base_parameters` (which regroups the bodies' inertias along another
///   path, without the formulas);
/// - the formulas at random standard parameters `π`: `Y_b β(π) = Y π`, with
///   `Y` the `standard_regressor`;
/// - `base_inverse_dynamics` (where the plan has it), the joint forces
///   written in `β`, at `β = base_parameters`: `τ` again; and at random
///   `β`: `Y_b β`, so that each base parameter sits where its column says;
/// - `NBP` is the length of both outputs.
///
/// Each to [`BASE_TOLERANCE`]; `Err` says which failed.
pub fn check(
    plan: &Plan,
    env: &dyn Fn(&Input) -> Option<f64>,
    standard: &[f64],
    seed: u64,
) -> Result<(), String> {
    let evaluate = |function: &str| {
        plan.evaluate(function, env)
            .ok_or_else(|| format!("`{function}` cannot be evaluated"))
    };
    let facts = plan
        .base_parameters()
        .ok_or("the plan has no base parameters")?;
    let nbp = facts.names.len();
    // The force the drives supply: the joint forces less the joints' own.
    let mut tau = evaluate("inverse_dynamics")?;
    if plan.function("friction_forces").is_some() {
        let friction = evaluate("friction_forces")?;
        tau.iter_mut().zip(friction).for_each(|(t, f)| *t -= f);
    }
    let beta = evaluate("base_parameters")?;
    let regressor = evaluate("regressor")?;
    let standard_regressor = evaluate("standard_regressor")?;
    if beta.len() != nbp || regressor.len() != nbp * tau.len() {
        return Err(format!(
            "NBP = {nbp}, but base_parameters has {} entries and regressor {} for {} rows",
            beta.len(),
            regressor.len(),
            tau.len()
        ));
    }
    let product = |matrix: &[f64], x: &[f64]| -> Vec<f64> {
        matrix
            .chunks(x.len().max(1))
            .take(tau.len())
            .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
            .collect()
    };
    let within = |what: &str, got: &[f64], want: &[f64]| {
        let error = relative_error(got, want);
        if error <= BASE_TOLERANCE {
            Ok(())
        } else {
            Err(format!(
                "{what}: off by {error:e} (got {got:?}, want {want:?})"
            ))
        }
    };
    within(
        "Y_b β vs inverse_dynamics − friction_forces",
        &product(&regressor, &beta),
        &tau,
    )?;
    let from_formulas = |pi: &[f64]| -> Vec<f64> {
        facts
            .coefficients
            .iter()
            .map(|terms| terms.iter().map(|&(k, c)| c * pi[k]).sum())
            .collect()
    };
    if standard.len() != facts.standard.len() {
        return Err(format!(
            "{} standard parameters given for {} in the formulas",
            standard.len(),
            facts.standard.len()
        ));
    }
    within(
        "the formulas at the bodies' parameters vs base_parameters",
        &from_formulas(standard),
        &beta,
    )?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let random: Vec<f64> = standard.iter().map(|_| rng.gen_range(-1.0..1.0)).collect();
    within(
        "Y_b β(π) vs Y π at random standard parameters π",
        &product(&regressor, &from_formulas(&random)),
        &product(&standard_regressor, &random),
    )?;
    if plan.function("base_inverse_dynamics").is_none() {
        return Ok(());
    }
    let in_base = |beta: &[f64]| {
        let env = |symbol: &Input| match symbol {
            Input::BaseParameter(j) => beta.get(*j).copied(),
            other => env(other),
        };
        plan.evaluate("base_inverse_dynamics", &env)
            .ok_or_else(|| "`base_inverse_dynamics` cannot be evaluated".to_owned())
    };
    within(
        "base_inverse_dynamics(base_parameters) vs inverse_dynamics − friction_forces",
        &in_base(&beta)?,
        &tau,
    )?;
    let random: Vec<f64> = beta.iter().map(|_| rng.gen_range(-1.0..1.0)).collect();
    within(
        "base_inverse_dynamics(β) vs Y_b β at random β",
        &in_base(&random)?,
        &product(&regressor, &random),
    )
}
