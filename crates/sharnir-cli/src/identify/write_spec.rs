//! `sharnir identify --write-spec OUT`: a copy of the spec whose masses,
//! centres of mass, inertias and drive parameters reproduce the estimated
//! base parameters, physically consistent where the data allow it and
//! flagged where they do not (`docs/identification.md`).
//!
//! The standard parameters come from [`super::standard`], starting from the
//! spec's own ([`super::prior`]); the text is the spec's with those values
//! in place ([`super::spec_text`]), written through a temporary file in the
//! same directory. A spec whose bodies are all consistent is parsed and
//! validated again before it is written.

use super::prior::{self, Model};
use super::spec_text::{self, BodyValues, JointValues};
use super::standard::{self, Inconsistency};
use super::Identified;
use crate::consistency::MassProperties;
use sharnir_codegen::BaseParameterFacts;
use sharnir_mech::Mechanism;
use sharnir_spec::Spec;
use std::fmt::Write as _;
use std::path::Path;

/// `K π₀` must give the spec's base parameters to this, relative to the
/// largest: `K` and `π₀` are then read in the same order and frames.
const PRIOR_TOLERANCE: f64 = 1e-9;

/// A centre of mass coordinate below this fraction of its body's size, or
/// an inertia entry below it of `m₀ ℓ²`, is rounding and written as zero.
const ROUNDING: f64 = 1e-12;

/// What `--write-spec` wrote.
pub(super) struct Written {
    /// Where.
    pub(super) path: String,
    /// `max |K π̂ − β̂| / max |β̂|`.
    pub(super) mismatch: f64,
    /// The projections taken to reach consistency.
    pub(super) iterations: usize,
    /// What is not physically consistent in the written spec.
    pub(super) inconsistent: Vec<Inconsistency>,
}

/// Writes the identified spec to `out` and warns on stderr of every body
/// and drive parameter that is not physically consistent.
pub(super) fn write(
    out: &Path,
    spec: &Spec,
    mechanism: &Mechanism,
    facts: &BaseParameterFacts,
    identified: &Identified,
    data: &str,
) -> miette::Result<Written> {
    let fail = |what: String| {
        miette::miette!(
            "{}: cannot write the identified spec {}: {what}",
            spec.source.name,
            out.display()
        )
    };
    let Model { prior, frames } = prior::model(spec, mechanism, &facts.standard).map_err(fail)?;
    let k = regrouping(facts, prior.values.len());
    let spec_beta: Vec<f64> = k.iter().map(|row| dot(row, &prior.values)).collect();
    let largest = identified
        .spec_values
        .iter()
        .fold(0.0_f64, |m, b| m.max(b.abs()));
    if spec_beta
        .iter()
        .zip(&identified.spec_values)
        .any(|(a, b)| (a - b).abs() > PRIOR_TOLERANCE * largest.max(1.0))
    {
        return Err(fail(
            "the regrouping formulas at the spec's values do not give its base parameters".into(),
        ));
    }
    let recovered = standard::recover(&k, &identified.estimate, &prior).map_err(fail)?;
    let warning = |name: &str| -> Option<String> {
        let found = recovered.inconsistent.iter().find(|i| i.name == name)?;
        Some(format!(
            "`{name}` is not physically consistent: {}",
            found.problems.join("; ")
        ))
    };
    let mut bodies = Vec::with_capacity(frames.len());
    for (body, frame) in prior.bodies.iter().zip(&frames) {
        let own: [f64; 10] =
            std::array::from_fn(|i| recovered.values[body.offset + i] - body.lumped[i]);
        let written =
            MassProperties::from_standard(&own).unplaced(&frame.rotation, frame.translation);
        let (m0, l) = (body.scale.mass, body.scale.length);
        let snap = |x: f64, scale: f64| if x.abs() < ROUNDING * scale { 0.0 } else { x };
        bodies.push(BodyValues {
            name: spec.bodies[frame.body].name.clone(),
            mass: written.mass,
            com: written.com.map(|c| snap(c, l)),
            inertia: written.inertia.map(|row| row.map(|i| snap(i, m0 * l * l))),
            warning: warning(&body.name),
        });
    }
    let joints = joint_values(spec, &prior, &recovered);
    let header = header(identified, data, &recovered);
    let text = spec_text::rewrite(&spec.source.text, &header, &bodies, &joints).map_err(fail)?;
    let numbers = bodies.iter().flat_map(|b| {
        std::iter::once(b.mass)
            .chain(b.com)
            .chain(b.inertia.into_iter().flatten())
    });
    if numbers
        .chain(recovered.values.iter().copied())
        .any(|x| !x.is_finite())
    {
        return Err(fail("a value is not a finite number".into()));
    }
    if recovered.inconsistent.is_empty() {
        let source = sharnir_spec::Source {
            name: out.display().to_string(),
            text: text.clone(),
        };
        sharnir_spec::parse(source)
            .map_err(|e| fail(format!("the written spec does not validate: {e}")))?;
    }
    crate::gen::write_atomically(out, &text)?;
    for inconsistency in &recovered.inconsistent {
        eprintln!(
            "warning: {}: `{}` is not physically consistent: {}",
            out.display(),
            inconsistency.name,
            inconsistency.problems.join("; ")
        );
    }
    Ok(Written {
        path: out.display().to_string(),
        mismatch: recovered.mismatch,
        iterations: recovered.iterations,
        inconsistent: recovered.inconsistent,
    })
}

/// `K`: one dense row per base parameter over the `width` standard ones.
fn regrouping(facts: &BaseParameterFacts, width: usize) -> Vec<Vec<f64>> {
    facts
        .coefficients
        .iter()
        .map(|terms| {
            let mut row = vec![0.0; width];
            for &(k, c) in terms {
                if let Some(entry) = row.get_mut(k) {
                    *entry += c;
                }
            }
            row
        })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The drive parameters of `recovered`, joint by joint in spec order.
fn joint_values(
    spec: &Spec,
    prior: &standard::Prior,
    recovered: &standard::Recovered,
) -> Vec<JointValues> {
    let mut joints = Vec::new();
    for joint in &spec.joints {
        let prefix = format!("{}.", joint.name);
        let mut values = JointValues {
            name: joint.name.clone(),
            armature: None,
            damping: None,
            friction: None,
            warning: None,
        };
        let mut warnings = Vec::new();
        for drive in &prior.drives {
            let Some(what) = drive.name.strip_prefix(&prefix) else {
                continue;
            };
            let value = recovered.values[drive.index];
            match what {
                "damping" => values.damping = Some(value),
                "friction" => values.friction = Some(value),
                _ => values.armature.get_or_insert_with(Vec::new).push(value),
            }
            if let Some(found) = recovered.inconsistent.iter().find(|i| i.name == drive.name) {
                warnings.push(format!(
                    "`{}` is not physically consistent: {}",
                    drive.name,
                    found.problems.join("; ")
                ));
            }
        }
        if values.armature.is_some() || values.damping.is_some() || values.friction.is_some() {
            values.warning = (!warnings.is_empty()).then(|| warnings.join("\n"));
            joints.push(values);
        }
    }
    joints
}

/// The comment lines the written spec starts with.
fn header(identified: &Identified, data: &str, recovered: &standard::Recovered) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Identified by `sharnir identify` from {data} ({} samples, {}): the masses,\n\
         # centres of mass, inertias and drive parameters below reproduce the estimated\n\
         # base parameters (to {:.1e} relative); the spec's own values fill the\n\
         # combinations the data do not determine.",
        identified.samples, identified.derivatives, recovered.mismatch
    );
    let residuals: Vec<String> = identified
        .force_columns
        .iter()
        .zip(&identified.residual_rms)
        .map(|(column, rms)| format!("{column} {rms:.4e}"))
        .collect();
    let _ = writeln!(out, "# Residual RMS per joint: {}.", residuals.join(", "));
    let _ = writeln!(
        out,
        "# Condition number {:.4e} (weighted regressor, columns scaled to unit norm).",
        identified.condition
    );
    if recovered.inconsistent.is_empty() {
        if recovered.iterations == 0 {
            let _ = writeln!(out, "# Every body is physically consistent.");
        } else {
            let _ = writeln!(
                out,
                "# Every body is physically consistent: the nearest consistent point, after {}\n\
                 # projections along the combinations the data do not determine.",
                recovered.iterations
            );
        }
    } else {
        let names: Vec<&str> = recovered
            .inconsistent
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "# WARNING: not physically consistent, with the same base parameters: {}\n\
             # (see the warnings below); sharnir rejects this spec until they are corrected.",
            names.join(", ")
        );
    }
    out.push('\n');
    out
}
