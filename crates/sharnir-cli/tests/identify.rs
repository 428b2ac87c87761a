//! `sharnir identify` round trips: joint forces computed from a planned
//! module's own `inverse_dynamics − friction_forces` (the force the drives
//! supply) along a Fourier-series trajectory of a three-joint arm with
//! armature, damping and dry friction on every joint, written as a CSV,
//! identified, and compared with the module's `base_parameters`: to 1e-8
//! without noise; with seeded Gaussian noise on the joint forces (a
//! different level per joint, which the weighting finds), within the
//! reported ±2σ for at least 95 % of the estimates over twenty seeds (and
//! within ±4σ for all), the residuals per joint within 10 % of the noise.
//! And the refusals: a missing column, a value that is no number,
//! too few samples, a trajectory that cannot separate the parameters
//! (mechanisms with loops: `identify_loops.rs`).
//! `--write-spec`: the written spec validates and gives the estimates back
//! as its base parameters (to 1e-8), keeps everything else of the text,
//! is made physically consistent along what the data do not determine, and
//! flags what cannot be; a URDF and an unwritable path are refused.

mod support;

use sharnir_codegen::{plan, Plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use std::fmt::Write as _;
use std::process::{Command, Output};
use support::Normal;

/// Two revolute joints and a prismatic one, each with a drive.
const ARM: &str = r#"
[mechanism]
name = "drive_arm"
gravity = [0, 0, -9.81]

[[body]]
name = "l1"
mass = 3.0
com = [0.05, 0.02, 0.2]
inertia = { xx = 0.03, yy = 0.04, zz = 0.02, xy = 0.002 }

[[body]]
name = "l2"
mass = 2.0
com = [0.3, 0.01, 0.02]
inertia = [0.01, 0.05, 0.05]

[[body]]
name = "l3"
mass = 0.5
com = [0.02, 0.0, 0.01]
inertia = [0.002, 0.003, 0.003]

[[joint]]
name = "yaw"
type = "revolute"
parent = "ground"
child = "l1"
axis = [0, 0, 1]
armature = 0.4
damping = 0.8
friction = 1.5
friction_speed = 0.05

[[joint]]
name = "pitch"
type = "revolute"
parent = "l1"
child = "l2"
axis = [0, 1, 0]
origin = { xyz = [0, 0, 0.4] }
armature = 0.25
damping = 0.5
friction = 0.9
friction_speed = 0.05

[[joint]]
name = "slide"
type = "prismatic"
parent = "l2"
child = "l3"
axis = [1, 0, 0]
origin = { xyz = [0.5, 0, 0] }
armature = 1.2
damping = 3.0
friction = 2.0
friction_speed = 0.02
"#;

/// The fundamental frequency of the trajectory, rad/s (a 10 s period).
const OMEGA: f64 = 2.0 * std::f64::consts::PI / 10.0;

/// `q_j(t) = q0_j + Σ_k (a_jk sin(k ω t) − b_jk cos(k ω t)) / (k ω)`, with
/// its first two derivatives: five harmonics whose coefficients differ
/// joint by joint.
fn trajectory(t: f64) -> [[f64; 3]; 3] {
    let joints: [[f64; 3]; 3] = std::array::from_fn(|j| joint_motion(j as f64, t));
    std::array::from_fn(|derivative| std::array::from_fn(|j| joints[j][derivative]))
}

/// Joint `j`'s `[q, q̇, q̈]` at `t`.
fn joint_motion(j: f64, t: f64) -> [f64; 3] {
    let mut motion = [0.2 * j - 0.1, 0.0, 0.0];
    for k in 1..=5 {
        let kf = k as f64;
        let w = kf * OMEGA;
        let a = (0.6 - 0.15 * j) * ((kf + j) * 1.7).sin() / kf;
        let b = (0.5 + 0.1 * j) * (kf * 2.3 + j).cos() / kf;
        let (s, c) = (w * t).sin_cos();
        motion[0] += (a * s - b * c) / w;
        motion[1] += a * c + b * s;
        motion[2] += w * (-a * s + b * c);
    }
    motion
}

/// The planned module of [`ARM`] (the functions the round trip reads).
fn planned() -> Plan {
    let source = sharnir_spec::Source {
        name: "drive_arm.spec".to_owned(),
        text: ARM.to_owned(),
    };
    let spec = sharnir_spec::parse(source).expect("the arm is valid");
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("a tree");
    plan(&mut mechanism, &PlanOptions::default()).expect("plans")
}

/// Samples `t, q.*, v.*, a.*, tau.*` at `n` times over one period, the
/// forces with Gaussian noise of standard deviation `noise[j]` on joint `j`
/// (seeded).
fn csv(plan: &Plan, n: usize, noise: [f64; 3], seed: u64) -> String {
    let names = ["yaw", "pitch", "slide"];
    let mut text = String::from("t");
    for prefix in ["q", "v", "a", "tau"] {
        for name in names {
            let _ = write!(text, ",{prefix}.{name}");
        }
    }
    text.push('\n');
    let mut random = Normal(seed);
    for i in 0..n {
        let t = 10.0 * i as f64 / n as f64;
        let [q, v, a] = trajectory(t);
        let input = |symbol: &Input| match symbol {
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Acceleration(i) => a.get(*i).copied(),
            _ => None,
        };
        let tau = plan.evaluate("inverse_dynamics", &input).expect("τ");
        let friction = plan.evaluate("friction_forces", &input).expect("friction");
        let _ = write!(text, "{t}");
        for x in q.iter().chain(&v).chain(&a) {
            let _ = write!(text, ",{x:e}");
        }
        for j in 0..3 {
            let _ = write!(
                text,
                ",{:e}",
                tau[j] - friction[j] + noise[j] * random.next()
            );
        }
        text.push('\n');
    }
    text
}

/// `sharnir identify` on the arm and `data`, with `extra` arguments.
fn identify(spec: &str, data: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let (spec_path, data_path) = (dir.path().join("arm.spec"), dir.path().join("log.csv"));
    std::fs::write(&spec_path, spec).expect("write spec");
    std::fs::write(&data_path, data).expect("write data");
    Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("identify")
        .arg(&spec_path)
        .arg(&data_path)
        .args(extra)
        .output()
        .expect("sharnir runs")
}

/// The estimates and deviations of a successful `--json` run, by name.
fn estimates(output: &Output) -> Vec<(String, f64, f64)> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    support::estimates(&value)
}

/// The module's own base parameters, by name.
fn truth(plan: &Plan) -> Vec<(String, f64)> {
    let names = plan
        .base_parameters()
        .expect("base parameters")
        .names
        .clone();
    let values = plan
        .evaluate("base_parameters", &|_: &Input| None)
        .expect("β");
    names.into_iter().zip(values).collect()
}

#[test]
fn noiseless_forces_give_the_base_parameters_back() {
    let plan = planned();
    let output = identify(ARM, &csv(&plan, 400, [0.0; 3], 1), &["--json"]);
    let got = estimates(&output);
    let want = truth(&plan);
    assert_eq!(got.len(), want.len());
    // The drives are among them: the two rotors' armatures are folded into
    // `l1.zz_r` and `l2.yy_r` (their columns are those links' inertias
    // about the joint axes), the slide's kept.
    let named = |name: &str| want.iter().any(|(n, _)| n == name);
    assert!(named("slide.armature") && named("slide.friction") && named("yaw.damping"));
    assert!(!named("yaw.armature") && !named("pitch.armature"));
    for ((name, estimate, _), (expected_name, expected)) in got.iter().zip(&want) {
        assert_eq!(name, expected_name);
        let error = (estimate - expected).abs() / expected.abs().max(1.0);
        assert!(error < 1e-8, "{name}: {estimate} vs {expected} ({error:e})");
    }
}

/// `--drives all` declares the drives a spec leaves out: the arm without
/// its `armature`, `damping` and `friction` lines (the friction speeds
/// kept) gets the same base parameters back from the same data.
#[test]
fn every_drive_is_estimated_when_asked_for() {
    let plan = planned();
    let bare: String = ARM
        .lines()
        .filter(|l| {
            !["armature =", "damping =", "friction ="]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let data = csv(&plan, 400, [0.0; 3], 1);
    let declared = estimates(&identify(&bare, &data, &["--json"]));
    assert_eq!(declared.len(), 12, "the bodies' alone");
    let got = estimates(&identify(&bare, &data, &["--json", "--drives", "all"]));
    let want = truth(&plan);
    assert_eq!(got.len(), want.len());
    for ((name, estimate, _), (expected_name, expected)) in got.iter().zip(&want) {
        assert_eq!(name, expected_name);
        assert!(
            (estimate - expected).abs() < 1e-8 * expected.abs().max(1.0),
            "{name}"
        );
    }
}

/// Noise levels per joint: N·m, N·m, N.
const NOISE: [f64; 3] = [0.05, 0.02, 0.2];

#[test]
fn noisy_forces_give_estimates_within_their_deviations() {
    let plan = planned();
    let want = truth(&plan);
    // Over twenty noise seeds (twenty times the 19 parameters): within ±2σ
    // for at least 95 % of the estimates (a calibrated σ gives 95.4 %),
    // within ±4σ for every one.
    let (mut within_two, mut total) = (0, 0);
    for seed in 100..120 {
        let output = identify(ARM, &csv(&plan, 1000, NOISE, seed), &["--json"]);
        for ((name, estimate, deviation), (_, expected)) in estimates(&output).iter().zip(&want) {
            let off = (estimate - expected).abs();
            assert!(
                *deviation > 0.0 && off < 4.0 * deviation,
                "seed {seed}, {name}: {estimate} ± {deviation}, expected {expected}"
            );
            within_two += usize::from(off <= 2.0 * deviation);
            total += 1;
        }
    }
    assert!(
        within_two as f64 >= 0.95 * total as f64,
        "only {within_two} of {total} within 2σ"
    );
    // The residuals per joint are the noise the weighting must find.
    let output = identify(ARM, &csv(&plan, 1000, NOISE, 7), &["--json"]);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    for (name, noise) in ["yaw", "pitch", "slide"].iter().zip(NOISE) {
        let rms = value["residual_rms"][name].as_f64().expect("a residual");
        assert!(
            (rms / noise - 1.0).abs() < 0.1,
            "{name}: residual {rms}, noise {noise}"
        );
    }
    // The text output says the same in a table.
    let output = identify(ARM, &csv(&plan, 1000, NOISE, 7), &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("condition number") && stdout.contains("slide.armature"));
    assert!(stdout.contains("residual RMS per joint"));
}

/// Positions alone, velocities and accelerations by central differences
/// after the zero-phase filter: the well-excited parameters to 0.5 %.
#[test]
fn positions_alone_are_differentiated() {
    let plan = planned();
    let want = truth(&plan);
    let full = csv(&plan, 2000, [0.0; 3], 1);
    // Keep `t`, `q.*` and `tau.*`.
    let keep = [0, 1, 2, 3, 10, 11, 12];
    let data: String = full
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let kept: Vec<&str> = keep.iter().map(|&i| fields[i]).collect();
            format!("{}\n", kept.join(","))
        })
        .collect();
    let output = identify(ARM, &data, &["--json", "--cutoff", "20"]);
    let got = estimates(&output);
    for name in [
        "l2.mx",
        "l3.m",
        "yaw.friction",
        "slide.armature",
        "slide.damping",
    ] {
        let (_, estimate, _) = got.iter().find(|(n, _, _)| n == name).expect("estimated");
        let (_, expected) = want
            .iter()
            .find(|(n, _)| n == name)
            .expect("a base parameter");
        let error = (estimate - expected).abs() / expected.abs();
        assert!(error < 5e-3, "{name}: {estimate} vs {expected}");
    }
}

/// Every refusal exits with an error naming what is wrong, never a panic.
#[test]
fn bad_data_is_refused_with_the_column_or_the_parameters() {
    let plan = planned();
    let good = csv(&plan, 200, [0.0; 3], 1);
    let refused = |spec: &str, data: &str, message: &str| {
        let output = identify(spec, data, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(message), "{message}: {stderr}");
    };
    refused(
        ARM,
        &good.replace(",tau.pitch", ",torque.pitch"),
        "no column `tau.pitch`",
    );
    refused(
        ARM,
        &good.replace(",a.slide", ",acc.slide"),
        "no column `a.slide`",
    );
    let mut lines: Vec<String> = good.lines().map(str::to_owned).collect();
    let mut fields: Vec<&str> = lines[3].split(',').collect();
    fields[4] = "NaN";
    lines[3] = fields.join(",");
    refused(ARM, &lines.join("\n"), ":4: column `v.yaw` is `NaN`");
    let short: String = good.lines().take(4).map(|l| format!("{l}\n")).collect();
    refused(ARM, &short, "too few");
    // At rest the joints' forces are gravity's alone: the inertias, the
    // armatures and the damping cannot be told apart.
    let mut still = String::from(good.lines().next().unwrap_or_default());
    still.push('\n');
    for i in 0..50 {
        let _ = writeln!(still, "{},0.1,0.2,0.3,0,0,0,0,0,0,1,2,3", i as f64 * 0.01);
    }
    refused(ARM, &still, "the data do not determine");
}

/// [`ARM`] with a mass and a placement from `[parameters]` and comments:
/// what `--write-spec` must keep.
fn arm_with_parameters() -> String {
    ARM.replace(
        "gravity = [0, 0, -9.81]\n",
        "gravity = [0, 0, -9.81]\n\n# The forearm.\n[parameters]\nm2 = 2.0   # kg\nreach = 0.5\n",
    )
    .replace("mass = 2.0\n", "mass = \"m2\"   # with its motor\n")
    .replace(
        "origin = { xyz = [0.5, 0, 0] }",
        "origin = { xyz = [\"reach\", 0, 0] }",
    )
}

/// `sharnir identify SPEC DATA --json --write-spec OUT` in a fresh
/// directory: the output and the written text (if any).
fn identify_and_write(spec: &str, data: &str) -> (Output, Option<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("arm_identified.spec");
    let output = identify(
        spec,
        data,
        &[
            "--json",
            "--write-spec",
            out.to_str().expect("a UTF-8 path"),
        ],
    );
    (output, std::fs::read_to_string(&out).ok())
}

/// The base parameters of a spec's text at its own values, by name: the
/// spec is parsed and validated on the way.
fn base_parameters_of(text: &str) -> Vec<(String, f64)> {
    let source = sharnir_spec::Source {
        name: "arm_identified.spec".to_owned(),
        text: text.to_owned(),
    };
    let spec = sharnir_spec::parse(source).expect("the written spec validates");
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("a tree");
    let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    let defaults: Vec<(String, f64)> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect();
    let values = plan
        .evaluate("base_parameters", &|input: &Input| match input {
            Input::Parameter(name) => defaults.iter().find(|(n, _)| n == name).map(|p| p.1),
            _ => None,
        })
        .expect("β");
    let names = plan.base_parameters().expect("names").names.clone();
    names.into_iter().zip(values).collect()
}

/// The written spec's base parameters are the estimates (to 1e-8 of each,
/// or of 1e-3 where smaller), it validates (so every body is physically
/// consistent, as the arm's are), and everything but the mass properties
/// and drive parameters is as it was. Without noise the spec's own values
/// come back.
#[test]
fn the_written_spec_reproduces_the_estimates() {
    let plan = planned();
    let spec = arm_with_parameters();
    for (noise, seed) in [([0.0; 3], 1), (NOISE, 7)] {
        let (output, written) = identify_and_write(&spec, &csv(&plan, 1000, noise, seed));
        let estimated = estimates(&output);
        let text = written.expect("the spec is written");
        let reloaded = base_parameters_of(&text);
        assert_eq!(reloaded.len(), estimated.len());
        for ((name, estimate, _), (reloaded_name, value)) in estimated.iter().zip(&reloaded) {
            assert_eq!(name, reloaded_name);
            let error = (value - estimate).abs() / estimate.abs().max(1e-3);
            assert!(error < 1e-8, "{name}: {value} vs {estimate} ({error:e})");
        }
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let written = &value["written_spec"];
        assert_eq!(written["consistent"], true, "{written}");
        assert!(written["mismatch"].as_f64().expect("a number") < 1e-12);
        for kept in [
            "# The forearm.\n[parameters]\nm2 = 2.0   # kg\nreach = 0.5\n",
            "origin = { xyz = [\"reach\", 0, 0] }",
            "friction_speed = 0.02",
            "   # with its motor\n",
        ] {
            assert!(text.contains(kept), "{kept} in\n{text}");
        }
        assert!(
            !text.contains("mass = \"m2\""),
            "the expression becomes a number"
        );
        assert!(text.starts_with("# Identified by `sharnir identify` from "));
        for said in [
            "log.csv",
            "Residual RMS per joint: tau.yaw",
            "Condition number",
        ] {
            assert!(text.contains(said), "{said}");
        }
        if noise == [0.0; 3] {
            // The data determine nothing the spec does not say: its
            // mass properties come back (the forearm's mass to 1e-9).
            let l2 = text.split("name = \"l2\"").nth(1).expect("l2");
            let mass: f64 = l2
                .split("mass = ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|m| m.parse().ok())
                .expect("a number");
            assert!((mass - 2.0).abs() < 1e-9, "{mass}");
        }
    }
}

/// Forces with `Y_b` times a change of `β` added: the estimate is the
/// arm's `β` plus that change, which `--write-spec` must meet.
fn shifted_data(plan: &Plan, shifts: &[(&str, f64)]) -> String {
    let names = &plan.base_parameters().expect("β").names;
    let columns: Vec<(usize, f64)> = shifts
        .iter()
        .map(|(name, by)| (names.iter().position(|n| n == name).expect(name), *by))
        .collect();
    let nbp = names.len();
    let data = csv(plan, 400, [0.0; 3], 1);
    let mut lines = data.lines();
    let mut shifted = format!("{}\n", lines.next().unwrap_or_default());
    for line in lines {
        let mut fields: Vec<f64> = line
            .split(',')
            .map(|f| f.parse().expect("a number"))
            .collect();
        let input = |symbol: &Input| match symbol {
            Input::Position(i) => fields.get(1 + i).copied(),
            Input::Velocity(i) => fields.get(4 + i).copied(),
            Input::Acceleration(i) => fields.get(7 + i).copied(),
            _ => None,
        };
        let y = plan.evaluate("regressor", &input).expect("Y_b");
        for j in 0..3 {
            fields[10 + j] += columns
                .iter()
                .map(|&(k, by)| y[j * nbp + k] * by)
                .sum::<f64>();
        }
        let row: Vec<String> = fields.iter().map(|x| format!("{x:e}")).collect();
        shifted.push_str(&row.join(","));
        shifted.push('\n');
    }
    shifted
}

/// `l2.yy_r` grown by 0.3 kg·m²: the nearest standard parameters are not
/// consistent (the forearm's `yy` beyond `xx + zz`), and the projections
/// along what the data do not determine (`xx + zz`, the split with the
/// pitch armature) make them so with the same base parameters.
#[test]
fn an_inconsistent_nearest_estimate_is_made_consistent() {
    let plan = planned();
    let (output, written) = identify_and_write(ARM, &shifted_data(&plan, &[("l2.yy_r", 0.3)]));
    let estimated = estimates(&output);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let report = &value["written_spec"];
    assert_eq!(report["consistent"], true, "{report}");
    assert!(
        report["projections"].as_u64().expect("a count") > 0,
        "{report}"
    );
    let reloaded = base_parameters_of(&written.expect("written"));
    for ((name, estimate, _), (_, value)) in estimated.iter().zip(&reloaded) {
        let error = (value - estimate).abs() / estimate.abs().max(1e-3);
        assert!(error < 1e-8, "{name}: {value} vs {estimate}");
    }
}

/// A negative mass and a negative damping, each a base parameter alone,
/// cannot be made physical: the spec is still written, every one flagged
/// on stderr, in the spec above its table and in the JSON.
#[test]
fn an_impossible_estimate_is_flagged_not_hidden() {
    let plan = planned();
    let data = shifted_data(&plan, &[("l3.m", -1.0), ("slide.damping", -6.0)]);
    let (output, written) = identify_and_write(ARM, &data);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("`l3` is not physically consistent: mass"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`slide.damping` is not physically consistent"),
        "{stderr}"
    );
    let text = written.expect("written all the same");
    assert!(
        text.contains("# WARNING: `l3` is not physically consistent: mass -5.0"),
        "{text}"
    );
    assert!(
        text.contains("is not positive\n[[body]]\nname = \"l3\""),
        "{text}"
    );
    assert!(text.contains("`slide.damping` is not physically consistent"));
    assert!(text.contains("# WARNING: not physically consistent"));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let report = &value["written_spec"];
    assert_eq!(report["consistent"], false);
    let names: Vec<&str> = report["inconsistent"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|i| i["name"].as_str())
        .collect();
    assert_eq!(names, ["l3", "slide.damping"], "{report}");
    let source = sharnir_spec::Source {
        name: "flagged.spec".to_owned(),
        text,
    };
    assert!(
        sharnir_spec::parse(source).is_err(),
        "the spec says what is wrong"
    );
}

/// `--write-spec` on a URDF, or into a directory that does not exist: an
/// error that says so, nothing written.
#[test]
fn write_spec_refuses_a_urdf_and_an_unwritable_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let urdf = dir.path().join("robot.urdf");
    std::fs::write(&urdf, "<robot name=\"r\"/>").expect("write");
    let out = dir.path().join("out.spec");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .args(["identify".as_ref(), urdf.as_os_str(), "log.csv".as_ref()])
        .arg("--write-spec")
        .arg(&out)
        .output()
        .expect("sharnir runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--write-spec needs a spec, not a URDF"),
        "{stderr}"
    );
    assert!(stderr.contains("urdf2spec"), "{stderr}");
    assert!(!out.exists());

    let plan = planned();
    let missing = dir.path().join("no_such_dir").join("out.spec");
    let output = identify(
        ARM,
        &csv(&plan, 200, [0.0; 3], 1),
        &["--write-spec", missing.to_str().expect("UTF-8")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(stderr.contains("out.spec"), "{stderr}");
    assert!(!missing.exists());
}
