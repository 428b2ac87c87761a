//! What `sharnir identify` prints: the text report and `--json`.

use super::{Identified, Regrouped};
use std::fmt::Write as _;

/// The default output: a table of estimates, the condition number, the
/// residuals and the weakest direction.
pub(super) fn text(spec: &str, data: &str, l: &Identified) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{spec} from {data}: {} samples of {} joints ({}), {} base parameters",
        l.samples,
        l.coordinates.len(),
        l.derivatives,
        l.names.len()
    );
    let _ = writeln!(
        out,
        "condition number {:.4e} (weighted regressor, columns scaled to unit norm)\n",
        l.condition
    );
    let width = l
        .names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(9);
    let _ = writeln!(
        out,
        "{:width$} {:>15} {:>11} {:>8} {:>15}",
        "parameter", "estimate", "±σ", "σ/|β|", "spec"
    );
    for i in 0..l.names.len() {
        let relative = l.deviation[i] / l.estimate[i].abs();
        let _ = writeln!(
            out,
            "{:width$} {:>15.8e} {:>11.3e} {:>7.2}% {:>15.8e}",
            l.names[i],
            l.estimate[i],
            l.deviation[i],
            100.0 * relative,
            l.spec_values[i]
        );
    }
    if let Some(loops) = &l.loops {
        let _ = write!(out, "{}", loops_text(&l.names, loops));
    }
    let _ = writeln!(out, "\nresidual RMS per joint:");
    for (column, rms) in l.force_columns.iter().zip(&l.residual_rms) {
        let _ = writeln!(out, "  {column} {rms:.4e}");
    }
    let described: Vec<String> = l
        .weakest
        .1
        .iter()
        .map(|(n, x)| format!("{x:+.3}·{n}"))
        .collect();
    let _ = writeln!(
        out,
        "weakest direction (singular value {:.3e} of the largest): {}",
        l.weakest.0,
        described.join(" ")
    );
    if let Some(written) = &l.written {
        let names: Vec<&str> = written
            .inconsistent
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        let consistency = if names.is_empty() {
            "every body physically consistent".to_owned()
        } else {
            format!("NOT physically consistent: {}", names.join(", "))
        };
        let _ = writeln!(
            out,
            "identified spec written to {} ({consistency})",
            written.path
        );
    }
    out
}

/// What the loops did, as the text report says it: each estimate that
/// stands for more than its own parameter, the parameters not felt and
/// the joints taken as unactuated.
fn loops_text(names: &[String], loops: &Regrouped) -> String {
    let mut out = String::from(
        "\nthrough the loops (a row per independent coordinate, the cut joints' reactions \
         eliminated):\n",
    );
    for (name, into) in names.iter().zip(&loops.into) {
        if !into.is_empty() {
            let _ = writeln!(out, "  {name} stands for {}", regrouping(name, into));
        }
    }
    if !loops.unfelt.is_empty() {
        let _ = writeln!(
            out,
            "  not felt through the loops: {}",
            loops.unfelt.join(", ")
        );
    }
    if !loops.passive.is_empty() {
        let _ = writeln!(
            out,
            "  unactuated (no force column): {}",
            loops.passive.join(", ")
        );
    }
    out
}

/// `name + c·other + …`, each coefficient to six significant digits.
fn regrouping(name: &str, into: &[(String, f64)]) -> String {
    let mut text = name.to_owned();
    for (other, c) in into {
        let sign = if *c < 0.0 { " − " } else { " + " };
        let _ = write!(text, "{sign}{:.6}·{other}", c.abs());
    }
    text
}

/// `--json`: one object.
pub(super) fn json(spec: &str, data: &str, l: &Identified) -> String {
    let parameters: Vec<serde_json::Value> = (0..l.names.len())
        .map(|i| {
            serde_json::json!({
                "name": l.names[i],
                "estimate": l.estimate[i],
                "deviation": l.deviation[i],
                "spec": l.spec_values[i],
            })
        })
        .collect();
    let residuals: serde_json::Map<String, serde_json::Value> = l
        .coordinates
        .iter()
        .zip(&l.residual_rms)
        .map(|(n, r)| (n.clone(), serde_json::json!(r)))
        .collect();
    let written = l.written.as_ref().map(|w| {
        serde_json::json!({
            "path": w.path,
            "consistent": w.inconsistent.is_empty(),
            "inconsistent": w.inconsistent.iter()
                .map(|i| serde_json::json!({ "name": i.name, "problems": i.problems }))
                .collect::<Vec<_>>(),
            "projections": w.iterations,
            "mismatch": w.mismatch,
        })
    });
    serde_json::json!({
        "spec": spec,
        "data": data,
        "samples": l.samples,
        "derivatives": l.derivatives,
        "condition_number": l.condition,
        "base_parameters": parameters,
        "residual_rms": residuals,
        "weakest_direction": {
            "relative_singular_value": l.weakest.0,
            "components": l.weakest.1.iter()
                .map(|(n, x)| serde_json::json!({ "name": n, "component": x }))
                .collect::<Vec<_>>(),
        },
        "written_spec": written,
        "loops": l.loops.as_ref().map(|loops| serde_json::json!({
            "regrouped": l.names.iter().zip(&loops.into)
                .filter(|(_, into)| !into.is_empty())
                .map(|(name, into)| serde_json::json!({
                    "name": name,
                    "formula": regrouping(name, into),
                    "terms": into.iter()
                        .map(|(n, c)| serde_json::json!({ "name": n, "coefficient": c }))
                        .collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>(),
            "unfelt": loops.unfelt,
            "unactuated": loops.passive,
        })),
    })
    .to_string()
}
