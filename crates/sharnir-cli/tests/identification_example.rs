//! The excitation example (`examples/identification/`, docs/identification.md
//! "An excitation example") end to end, as `run.sh` does it: `sharnir sim`
//! moves the arm of `excitation.spec` along its Fourier-series laws for one
//! period at 1 kHz and writes the drive forces (`drive.*`, no `tau.*`),
//! seeded Gaussian noise is added to them, and `sharnir identify` must give
//! back the base parameters of the spec's masses and inertias (the module's
//! `base_parameters`, evaluated here in memory):
//!
//! - `sim`'s `a.*` columns are the laws' accelerations (the module's
//!   `prescribed_motion`) to 1e-12;
//! - without noise, with those accelerations, each to 1e-6 of itself;
//!   with the `a.*` columns dropped, the accelerations by identify's
//!   central differences, each to 1e-6 of the largest (the differences'
//!   error);
//! - with noise of 0.1 N·m on every drive force, over five seeds, each
//!   within five of its reported standard deviations (plus that 1e-6 of the
//!   largest), the residual RMS per joint the noise to 10 %;
//! - the trajectory excites every base parameter: the condition number
//!   stays below 1e3.
//!
//! The first run compiles the simulation binary in release mode (about a
//! minute on two cores, shared with `tests/sim.rs`).

mod checkout;
mod support;

use checkout::workspace;
use sharnir_codegen::{plan, Plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::process::{Command, Output};
use std::sync::OnceLock;
use support::Normal;

/// The example's spec, relative to the workspace.
const SPEC: &str = "examples/identification/excitation.spec";

/// The noise `run.sh` adds by default, N·m on every drive force.
const NOISE: f64 = 0.1;

/// What the central differences of 1 kHz samples may cost, as a fraction
/// of the largest base parameter.
const DIFFERENCES: f64 = 1e-6;

/// `sharnir sim` on the spec as `run.sh` runs it: the CSV's text. Run once
/// for all the tests of this file (two runs would race for the project).
fn simulated() -> &'static str {
    static CSV: OnceLock<String> = OnceLock::new();
    CSV.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let csv = dir.path().join("excitation.csv");
        let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
            .current_dir(workspace())
            .args([
                "sim",
                SPEC,
                "--t-end",
                "10",
                "--output-dt",
                "0.001",
                "--csv",
            ])
            .arg(&csv)
            .output()
            .expect("sharnir runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        std::fs::read_to_string(&csv).expect("the CSV is written")
    })
}

/// The spec's mechanism and its planned module.
fn planned() -> (Mechanism, Plan) {
    let path = workspace().join(SPEC);
    let source = sharnir_spec::Source {
        name: SPEC.to_owned(),
        text: std::fs::read_to_string(path).expect("the example's spec"),
    };
    let spec = sharnir_spec::parse(source).expect("the example is valid");
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("a tree");
    let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    (mechanism, plan)
}

/// The spec's runtime parameters at their values.
fn defaults(mechanism: &Mechanism) -> HashMap<String, f64> {
    mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect()
}

/// The true base parameters: the module's own at the spec's values, by
/// name.
fn truth() -> Vec<(String, f64)> {
    let (mechanism, plan) = planned();
    let parameters = defaults(&mechanism);
    let values = plan
        .evaluate("base_parameters", &|input: &Input| match input {
            Input::Parameter(name) => parameters.get(name).copied(),
            _ => None,
        })
        .expect("β");
    let names = plan.base_parameters().expect("names").names.clone();
    names.into_iter().zip(values).collect()
}

/// Checks that the `a.*` columns `sharnir sim` writes are the laws'
/// accelerations (`prescribed_motion` at each row's `t`), to 1e-12 of the
/// largest.
fn check_accelerations(csv: &str) {
    let (mechanism, plan) = planned();
    let parameters = defaults(&mechanism);
    let np = mechanism.motion.len();
    assert_eq!(np, mechanism.coordinates.len(), "every joint prescribed");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let columns: Vec<usize> = mechanism
        .motion
        .iter()
        .map(|prescribed| {
            let name = format!("a.{}", mechanism.coordinates[prescribed.velocity]);
            header
                .iter()
                .position(|h| *h == name)
                .unwrap_or_else(|| panic!("no {name} in {header:?}"))
        })
        .collect();
    for line in lines {
        let fields: Vec<f64> = line
            .split(',')
            .map(|x| x.parse().expect("a number"))
            .collect();
        let t = fields[0];
        let motion = plan
            .evaluate("prescribed_motion", &|input: &Input| match input {
                Input::Time => Some(t),
                Input::Parameter(name) => parameters.get(name).copied(),
                _ => None,
            })
            .expect("the laws");
        let laws = &motion[2 * np..];
        let scale = laws.iter().fold(1.0_f64, |m, a| m.max(a.abs()));
        for (&column, law) in columns.iter().zip(laws) {
            let got = fields[column];
            assert!(
                (got - law).abs() <= 1e-12 * scale,
                "t = {t}: {} = {got}, the law's {law}",
                header[column]
            );
        }
    }
}

/// `csv` without its `a.*` columns: what identify must differentiate.
fn without_accelerations(csv: &str) -> String {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let kept: Vec<usize> = (0..header.len())
        .filter(|&i| !header[i].starts_with("a."))
        .collect();
    let mut text = String::new();
    let keep = |fields: Vec<&str>| -> String {
        kept.iter()
            .map(|&i| fields[i])
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(text, "{}", keep(header.clone()));
    for line in lines {
        let _ = writeln!(text, "{}", keep(line.split(',').collect()));
    }
    text
}

/// `csv` with Gaussian noise of standard deviation [`NOISE`] added to every
/// `drive.*` column (seeded).
fn with_noise(csv: &str, seed: u64) -> String {
    let mut lines = csv.lines();
    let header = lines.next().expect("a header");
    let drives: Vec<usize> = header
        .split(',')
        .enumerate()
        .filter(|(_, name)| name.starts_with("drive."))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(drives.len(), 3, "{header}");
    let mut random = Normal(seed);
    let mut text = format!("{header}\n");
    for line in lines {
        let mut fields: Vec<String> = line.split(',').map(str::to_owned).collect();
        for &i in &drives {
            let x: f64 = fields[i].parse().expect("a number");
            fields[i] = format!("{:e}", x + NOISE * random.next());
        }
        text.push_str(&fields.join(","));
        text.push('\n');
    }
    text
}

/// `sharnir identify SPEC data --json`, parsed.
fn identify(data: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("log.csv");
    std::fs::write(&path, data).expect("write data");
    let output: Output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(workspace())
        .args(["identify", SPEC])
        .arg(&path)
        .arg("--json")
        .output()
        .expect("sharnir runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// The estimates and deviations of a report, by name, after checking that
/// the trajectory excites every parameter.
fn estimates(report: &serde_json::Value) -> Vec<(String, f64, f64)> {
    let condition = report["condition_number"].as_f64().expect("a number");
    assert!(condition < 1e3, "condition number {condition}");
    support::estimates(report)
}

/// The largest magnitude of the true base parameters.
fn largest(truth: &[(String, f64)]) -> f64 {
    truth.iter().fold(0.0, |m, (_, b)| m.max(b.abs()))
}

#[test]
fn without_noise_the_base_parameters_come_back() {
    let want = truth();
    assert_eq!(want.len(), 15, "{want:?}");
    let scale = largest(&want);
    let csv = simulated();
    assert!(
        csv.starts_with(
            "t,q.yaw,q.shoulder,q.elbow,v.yaw,v.shoulder,v.elbow,\
             a.yaw,a.shoulder,a.elbow,drive.yaw,"
        ),
        "sim writes accelerations and drive forces, not tau: {}",
        csv.lines().next().unwrap_or_default()
    );
    check_accelerations(csv);
    // The laws' accelerations, as sim writes them: only the simulation's
    // own rounding is left.
    let got = estimates(&identify(csv));
    assert_eq!(got.len(), want.len());
    for ((name, estimate, _), (expected_name, expected)) in got.iter().zip(&want) {
        assert_eq!(name, expected_name);
        let error = (estimate - expected).abs() / expected.abs();
        assert!(error < 1e-6, "{name}: {estimate} vs {expected} ({error:e})");
    }
    // Accelerations by central differences of the velocities.
    let got = estimates(&identify(&without_accelerations(csv)));
    for ((name, estimate, _), (_, expected)) in got.iter().zip(&want) {
        let error = (estimate - expected).abs() / scale;
        assert!(
            error < DIFFERENCES,
            "{name}: {estimate} vs {expected} ({error:e} of the largest)"
        );
    }
}

#[test]
fn with_noise_every_estimate_is_within_five_deviations() {
    let want = truth();
    let bias = DIFFERENCES * largest(&want);
    for seed in 1..=5 {
        let report = identify(&with_noise(simulated(), seed));
        let got = estimates(&report);
        assert_eq!(got.len(), want.len());
        for ((name, estimate, deviation), (expected_name, expected)) in got.iter().zip(&want) {
            assert_eq!(name, expected_name);
            let off = (estimate - expected).abs();
            assert!(
                *deviation > 0.0 && off < 5.0 * deviation + bias,
                "seed {seed}, {name}: {estimate} ± {deviation}, expected {expected}"
            );
        }
        for name in ["yaw", "shoulder", "elbow"] {
            let rms = report["residual_rms"][name].as_f64().expect("a residual");
            assert!(
                (rms / NOISE - 1.0).abs() < 0.1,
                "seed {seed}, {name}: residual {rms}, noise {NOISE}"
            );
        }
    }
}
