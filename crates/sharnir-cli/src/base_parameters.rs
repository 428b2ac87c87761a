//! `sharnir base-parameters`: the base parameters of a spec with their
//! regrouping formulas, as the generated module's header lists them, as
//! text or JSON.

use crate::args::BaseParametersArgs;
use crate::{load, Context};
use miette::IntoDiagnostic;
use sharnir_codegen::BaseParameterFacts;
use sharnir_mech::{Mechanism, ParameterMode};
use std::fmt::Write as _;

/// `sharnir base-parameters SPEC`: derives the base parameters (without
/// generating the module) and prints them.
pub(crate) fn run(args: &BaseParametersArgs, context: &Context) -> miette::Result<()> {
    let root = context.root();
    let spec = load(&root, &args.spec, &args.urdf.options())?;
    let mode = if args.fold {
        ParameterMode::Folded
    } else {
        ParameterMode::Runtime
    };
    let mut mechanism = Mechanism::from_spec(&spec, mode)?;
    let facts = sharnir_codegen::base_parameter_facts(&mut mechanism)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
    let name = args.spec.display().to_string();
    if args.json {
        println!("{}", json(&name, &facts)?);
    } else {
        print!("{}", text(&name, &facts));
    }
    Ok(())
}

/// One line per base parameter, `name = formula`, after a count.
fn text(spec_name: &str, facts: &BaseParameterFacts) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{spec_name}: {} base parameters of {} standard ones (τ = Y_b β)",
        facts.names.len(),
        facts.standard.len()
    );
    for (name, formula) in facts.names.iter().zip(&facts.formulas) {
        let _ = writeln!(out, "{name} = {formula}");
    }
    if facts.rank < facts.names.len() {
        let _ = writeln!(
            out,
            "not all identifiable apart at the spec's geometry: the regressor's rank is {} (kept \
             although dependent, with coefficients that change with the runtime parameters: {})",
            facts.rank,
            facts.inexact.join(", ")
        );
    }
    out
}

/// The facts as one JSON object: the standard parameters, and every base
/// parameter's name, formula and coefficients at the spec's values.
fn json(spec_name: &str, facts: &BaseParameterFacts) -> miette::Result<String> {
    let parameters: Vec<serde_json::Value> = facts
        .names
        .iter()
        .zip(&facts.formulas)
        .zip(&facts.coefficients)
        .map(|((name, formula), coefficients)| {
            let terms: Vec<serde_json::Value> = coefficients
                .iter()
                .map(|&(k, c)| {
                    let standard = facts.standard.get(k).map_or("", String::as_str);
                    serde_json::json!({"standard": standard, "coefficient": c})
                })
                .collect();
            serde_json::json!({"name": name, "formula": formula, "terms": terms})
        })
        .collect();
    serde_json::to_string(&serde_json::json!({
        "spec": spec_name,
        "standard": facts.standard,
        "base_parameters": parameters,
        "inexact": facts.inexact,
        "rank": facts.rank,
    }))
    .into_diagnostic()
}
