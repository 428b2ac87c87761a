//! `sharnir identify` on a mechanism with loops, end to end: `sharnir sim`
//! drives the crank of a planar four-bar along a Fourier-series law
//! (`[motion]`), writing the tree's coordinates, velocities and
//! accelerations and the crank's drive force; the coupler's and the
//! rocker's joints have no force column (unactuated). `identify` must:
//!
//! - regroup the base parameters of the spanning tree that the loop makes
//!   dependent, and estimate the rest to 1e-6 of the largest, each equal
//!   to the spec's base parameters regrouped by the coefficients it
//!   reports (so a wrong coefficient fails);
//! - fit the crank's force to 1e-6 of its largest value;
//! - say which joints it took as unactuated;
//! - refuse `--write-spec`, and a file without any force column.
//!
//! The first run compiles the simulation binary in release mode (shared
//! with `tests/sim.rs`).

mod checkout;

use checkout::workspace;
use sharnir_codegen::{plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use std::collections::HashMap;
use std::process::{Command, Output};

/// `specs/four_bar.spec` with its crank prescribed: two harmonics about a
/// full turn's worth of angle, the rocker swinging through its range.
const FOUR_BAR: &str = r#"
[mechanism]
name = "identified_four_bar"
gravity = [0, "-g", 0]
independent = ["crank"]

[parameters]
g = 9.81
a = 0.2
b = 0.6
c = 0.5
d = 0.7
m1 = 0.4
m2 = 1.2
m3 = 1.0
polar = 1e-5

[motion]
crank = "2.5*sin(0.6283185307179586*t) + 0.8*sin(1.8849555921538759*t + 0.4)"

[[body]]
name = "crank"
mass = "m1"
com = ["a/2", 0.01, 0]
inertia = { xx = "polar", yy = "m1*a^2/12", zz = "m1*a^2/12" }

[[body]]
name = "coupler"
mass = "m2"
com = ["b/2", -0.02, 0]
inertia = { xx = "polar", yy = "m2*b^2/12", zz = "m2*b^2/12" }

[[body]]
name = "rocker"
mass = "m3"
com = ["c/2", 0.015, 0]
inertia = { xx = "polar", yy = "m3*c^2/12", zz = "m3*c^2/12" }

[[joint]]
name = "crank"
type = "revolute"
parent = "ground"
child = "crank"
axis = [0, 0, 1]

[[joint]]
name = "coupler"
type = "revolute"
parent = "crank"
child = "coupler"
axis = [0, 0, 1]
origin = { xyz = ["a", 0, 0] }

[[joint]]
name = "rocker"
type = "revolute"
parent = "ground"
child = "rocker"
axis = [0, 0, 1]
origin = { xyz = ["d", 0, 0] }

[[joint]]
name = "pin"
type = "revolute"
parent = "coupler"
child = "rocker"
axis = [0, 0, 1]
origin = { xyz = ["b", 0, 0] }
child_origin = { xyz = ["c", 0, 0] }

[initial]
q = { coupler = 0.9272952180016122, rocker = 1.8545904360032244 }
"#;

/// The `sharnir` binary with `args`, in the workspace (where `sim` finds
/// the crates it compiles against).
fn sharnir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(workspace())
        .args(args)
        .output()
        .expect("sharnir runs")
}

/// The spec's base parameters of the spanning tree, by name.
fn tree_base_parameters() -> HashMap<String, f64> {
    let source = sharnir_spec::Source {
        name: "four_bar.spec".to_owned(),
        text: FOUR_BAR.to_owned(),
    };
    let spec = sharnir_spec::parse(source).expect("the test spec is valid");
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("valid");
    let values: HashMap<String, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect();
    let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    let beta = plan
        .evaluate("base_parameters", &|input: &Input| match input {
            Input::Parameter(name) => values.get(name).copied(),
            _ => None,
        })
        .expect("β");
    let names = plan.base_parameters().expect("names").names.clone();
    names.into_iter().zip(beta).collect()
}

#[test]
fn a_four_bar_is_identified_through_its_loop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = dir.path().join("four_bar.spec");
    std::fs::write(&spec, FOUR_BAR).expect("write the spec");
    let csv = dir.path().join("four_bar.csv");
    let (spec, csv) = (spec.to_str().expect("utf-8"), csv.to_str().expect("utf-8"));
    let simulated = sharnir(&[
        "sim",
        spec,
        "--t-end",
        "10",
        "--output-dt",
        "0.002",
        "--method",
        "dop853",
        "--rtol",
        "1e-11",
        "--atol",
        "1e-11",
        "--csv",
        csv,
    ]);
    let stderr = String::from_utf8_lossy(&simulated.stderr);
    assert!(simulated.status.success(), "{stderr}");

    let identified = sharnir(&["identify", spec, csv, "--json"]);
    let stderr = String::from_utf8_lossy(&identified.stderr);
    assert!(identified.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&identified.stdout).expect("JSON");
    let loops = &report["loops"];
    let unactuated: Vec<&str> = loops["unactuated"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert_eq!(unactuated, ["coupler", "rocker"]);

    // Each estimate is the tree's base parameter with what the loop
    // regroups into it, at the reported coefficients.
    let tree = tree_base_parameters();
    let regrouped: HashMap<&str, Vec<(&str, f64)>> = loops["regrouped"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            let terms = r["terms"]
                .as_array()
                .expect("terms")
                .iter()
                .map(|t| {
                    (
                        t["name"].as_str().expect("a name"),
                        t["coefficient"].as_f64().expect("a number"),
                    )
                })
                .collect();
            (r["name"].as_str().expect("a name"), terms)
        })
        .collect();
    assert!(!regrouped.is_empty(), "the loop regroups nothing: {report}");
    for terms in regrouped.values() {
        for (name, c) in terms {
            assert!(c.abs() > 1e-9, "{name} regrouped with a negligible {c}");
        }
    }
    let estimates = report["base_parameters"].as_array().expect("a list");
    assert!(
        estimates.len() < tree.len(),
        "{} of {}",
        estimates.len(),
        tree.len()
    );
    let largest = tree.values().fold(0.0_f64, |m, b| m.max(b.abs()));
    for parameter in estimates {
        let name = parameter["name"].as_str().expect("a name");
        let estimate = parameter["estimate"].as_f64().expect("a number");
        let want = tree[name]
            + regrouped
                .get(name)
                .map_or(0.0, |terms| terms.iter().map(|(n, c)| c * tree[*n]).sum());
        assert!(
            (estimate - want).abs() < 1e-6 * largest,
            "{name}: {estimate}, the spec's {want}"
        );
        let spec_value = parameter["spec"].as_f64().expect("a number");
        assert!((spec_value - want).abs() < 1e-12 * largest, "{name}");
    }
    let force = report["residual_rms"]["crank"]
        .as_f64()
        .expect("a residual");
    let text = std::fs::read_to_string(csv).expect("the CSV");
    let header: Vec<&str> = text.lines().next().expect("a header").split(',').collect();
    let drive = header
        .iter()
        .position(|h| *h == "drive.crank")
        .expect("drive.crank");
    let peak = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(drive).and_then(|x| x.parse::<f64>().ok()))
        .fold(0.0_f64, |m, x| m.max(x.expect("a number").abs()));
    assert!(force < 1e-6 * peak, "residual {force} against {peak}");

    let written = dir.path().join("out.spec");
    let refused = sharnir(&[
        "identify",
        spec,
        csv,
        "--write-spec",
        written.to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("--write-spec"), "{stderr}");
    assert!(!written.exists());

    let forceless: String = text
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (0..fields.len())
                .filter(|&i| i != drive)
                .map(|i| fields[i])
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let forceless_csv = dir.path().join("forceless.csv");
    std::fs::write(&forceless_csv, forceless).expect("write");
    let refused = sharnir(&["identify", spec, forceless_csv.to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("no joint force column"), "{stderr}");
}
