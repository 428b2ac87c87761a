//! `sharnir linearize` on a physical pendulum, against its closed form:
//! hanging, `A = [[0, 1], [−ω², −c/J]]` with `ω² = m g d / J` (`J` about
//! the pivot), eigenvalues `±iω` without damping; upright, `±ω`, unstable;
//! with the joint's damping `c`, a decaying pair. And the refusals.

use std::process::{Command, Output};

/// A rod of mass 2 kg hanging from a pivot about y, its centre of mass
/// 0.5 m below, 0.1 kg·m² about it across the axis; `damping` on the pivot
/// (none for zero).
fn pendulum(damping: f64) -> String {
    let damping = if damping > 0.0 {
        format!("damping = {damping}\n")
    } else {
        String::new()
    };
    format!(
        "[mechanism]\nname = \"pendulum\"\ngravity = [0, 0, -9.81]\n\n\
         [[body]]\nname = \"rod\"\nmass = 2.0\ncom = [0, 0, -0.5]\ninertia = [0.1, 0.1, 0.02]\n\n\
         [[joint]]\nname = \"pivot\"\ntype = \"revolute\"\nparent = \"ground\"\nchild = \"rod\"\n\
         axis = [0, 1, 0]\ncoordinate = \"theta\"\n{damping}"
    )
}

/// `sharnir linearize` of `spec` with `extra` arguments.
fn linearize(spec: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("pendulum.spec");
    std::fs::write(&path, spec).expect("write spec");
    Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("linearize")
        .arg(&path)
        .args(extra)
        .output()
        .expect("sharnir runs")
}

/// The JSON output of a successful run.
fn json(spec: &str, extra: &[&str]) -> serde_json::Value {
    let output = linearize(spec, &[extra, &["--json"]].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn number(v: &serde_json::Value) -> f64 {
    v.as_f64().expect("a number")
}

/// `J = 0.1 + 2 · 0.5²`, `ω² = 2 · 9.81 · 0.5 / J`.
const J: f64 = 0.6;
const OMEGA_SQUARED: f64 = 9.81 / 0.6;

#[test]
fn a_hanging_pendulum_oscillates_and_an_upright_one_falls() {
    let hanging = json(&pendulum(0.0), &[]);
    let a = &hanging["a"];
    assert_eq!(number(&a[0][1]), 1.0);
    assert!(
        (number(&a[1][0]) + OMEGA_SQUARED).abs() < 1e-9 * OMEGA_SQUARED,
        "{a}"
    );
    assert!((number(&hanging["b"][1][0]) - 1.0 / J).abs() < 1e-12);
    let omega = OMEGA_SQUARED.sqrt();
    let eigenvalues = hanging["eigenvalues"].as_array().expect("a list");
    assert_eq!(eigenvalues.len(), 2);
    for e in eigenvalues {
        assert!(number(&e["re"]).abs() < 1e-9);
        assert!((number(&e["im"]).abs() - omega).abs() < 1e-9 * omega, "{e}");
    }
    assert!(hanging["verdict"]
        .as_str()
        .expect("text")
        .starts_with("marginal"));

    let upright = json(&pendulum(0.0), &["--set", "q.theta=3.141592653589793"]);
    let largest = number(&upright["eigenvalues"][0]["re"]);
    assert!((largest - omega).abs() < 1e-9 * omega, "{upright}");
    assert!(upright["verdict"]
        .as_str()
        .expect("text")
        .starts_with("unstable"));
}

#[test]
fn the_joints_damping_is_part_of_the_motion() {
    let c = 0.3;
    let damped = json(&pendulum(c), &[]);
    assert!(
        (number(&damped["a"][1][1]) + c / J).abs() < 1e-6,
        "{damped}"
    );
    for e in damped["eigenvalues"].as_array().expect("a list") {
        assert!((number(&e["re"]) + c / (2.0 * J)).abs() < 1e-6, "{e}");
    }
    assert!(damped["verdict"]
        .as_str()
        .expect("text")
        .starts_with("asymptotically stable"));
}

#[test]
fn the_table_and_csv_name_the_state() {
    let output = linearize(&pendulum(0.0), &["--tau", "theta=1.5"]);
    assert!(output.status.success());
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(
        table.contains("δtheta") && table.contains("v.theta"),
        "{table}"
    );
    assert!(table.contains("tau.theta = 1.5"), "{table}");
    assert!(table.contains("eigenvalues of A"), "{table}");
    let output = linearize(&pendulum(0.0), &["--csv"]);
    let csv = String::from_utf8_lossy(&output.stdout);
    assert!(csv.starts_with("row,dq.theta,v.theta\n"), "{csv}");
    assert!(csv.contains("\nre,im\n"), "{csv}");
}

#[test]
fn unknown_names_are_refused_with_the_valid_ones() {
    for (flag, value, message) in [
        ("--set", "q.phi=1", "--set q.phi: no such coordinate"),
        ("--set", "theta=1", "the name must start with q. or v."),
        ("--tau", "phi=2", "--tau phi: no such coordinate"),
        ("--tau", "theta=x", "is not a finite number"),
    ] {
        let output = linearize(&pendulum(0.0), &[flag, value]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{flag} {value} was accepted");
        assert!(stderr.contains(message), "{flag} {value}: {stderr}");
        if message.contains("no such coordinate") {
            assert!(stderr.contains("theta"), "{stderr}");
        }
    }
}
