//! Accuracy of Talos's forward dynamics against an extended-precision
//! reference (docs/performance.md, "Accuracy of forward dynamics").
//!
//! `dump` (ignored; run by `benches/accuracy/run.sh`) writes every stage's
//! forward dynamics at the Pinocchio reference states of
//! `tests/fixtures/talos.json`, with the numeric tree they are computed on,
//! for `benches/accuracy/measure.py` to hold against mpmath.
//!
//! The other tests hold the generated forward dynamics and the numeric
//! articulated-body algorithm against that script's 40-digit answers,
//! `tests/fixtures/talos_exact.json`.

#[path = "pinocchio_shared.rs"]
mod shared;

use shared::reference;
use sharnir_cas::Program;
use sharnir_codegen::{plan, PlanOptions};
use sharnir_mech::formalisms::vereshchagin;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_numeric::JointKind;
use sharnir_tests::pinocchio::Robot;
use std::fmt::Write as _;

fn numbers(x: &[f64]) -> String {
    let items: Vec<String> = x.iter().map(|v| format!("{v:e}")).collect();
    format!("[{}]", items.join(", "))
}

/// Every stage's forward dynamics, in Pinocchio's velocity order, per
/// sample: (stage name, results).
fn stages(robot: &Robot) -> Vec<(String, Vec<Vec<f64>>)> {
    let samples = &robot.reference.samples;
    let mut out = Vec::new();
    let numeric: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| {
            let q = robot.q_to_sharnir(&s.q);
            let v = robot.v_to_sharnir(&s.v);
            let tau = robot.v_to_sharnir(&s.tau);
            robot.v_to_pinocchio(&robot.oracle.forward_dynamics(&q, &v, &tau))
        })
        .collect();
    out.push(("numeric ABA (sharnir-numeric)".to_owned(), numeric));
    let spec = &robot.conversion.spec;
    let parameters = spec.parameter_values();
    for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
        let label = match mode {
            ParameterMode::Runtime => "runtime",
            ParameterMode::Folded => "folded",
        };
        let mut mechanism = Mechanism::from_spec(spec, mode).unwrap_or_else(|e| panic!("{e:?}"));
        let own = vereshchagin::forward_dynamics(&mut mechanism).unwrap_or_else(|e| panic!("{e}"));
        let regrouped = vereshchagin::forward_dynamics_regrouped(&mut mechanism)
            .unwrap_or_else(|e| panic!("{e}"));
        let lowered_own = Program::lower(&mechanism.pool, &own);
        let lowered_regrouped = Program::lower(&mechanism.pool, &regrouped);
        let planned =
            plan(&mut mechanism, &PlanOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{label}: operations of the separate bodies, own inertias {}; regrouped {}; \
             generated forward_dynamics {}",
            lowered_own.op_count(),
            lowered_regrouped.op_count(),
            planned
                .function("forward_dynamics")
                .map(|f| f.program.op_count().to_string())
                .unwrap_or_default()
        );
        let mut results: Vec<Vec<Vec<f64>>> = vec![Vec::new(); 5];
        for s in samples {
            let q = robot.q_to_sharnir(&s.q);
            let v = robot.v_to_sharnir(&s.v);
            let tau = robot.v_to_sharnir(&s.tau);
            let input = |i: &Input| match i {
                Input::Position(i) => q.get(*i).copied(),
                Input::Velocity(i) => v.get(*i).copied(),
                Input::Force(i) => tau.get(*i).copied(),
                Input::Parameter(name) => parameters.get(name).copied(),
                _ => None,
            };
            let env = |symbol: &Input| input(symbol);
            let pool = &mechanism.pool;
            let got = [
                pool.eval(&own, &env).unwrap_or_else(|e| panic!("{e}")),
                pool.eval(&regrouped, &env)
                    .unwrap_or_else(|e| panic!("{e}")),
                lowered_own.eval(&env).expect("lowered, own parameters"),
                lowered_regrouped.eval(&env).expect("lowered, regrouped"),
                planned
                    .evaluate("forward_dynamics", &input)
                    .expect("planned forward dynamics"),
            ];
            for (k, x) in got.into_iter().enumerate() {
                results[k].push(robot.v_to_pinocchio(&x));
            }
        }
        let names = [
            "separate bodies, expression (Pool::eval)",
            "separate bodies regrouped, expression (Pool::eval)",
            "separate bodies, lowered (Program::lower)",
            "separate bodies regrouped, lowered (Program::lower)",
            "generated forward_dynamics (plan)",
        ];
        for (name, r) in names.iter().zip(results) {
            out.push((format!("{label}: {name}"), r));
        }
    }
    out
}

/// The numeric tree as JSON, with each tree velocity's index in
/// Pinocchio's order and the states in the tree's order.
fn tree_json(robot: &Robot) -> String {
    let tree = &robot.oracle.tree;
    let mut s = String::from("{\"gravity\": ");
    s += &numbers(&tree.gravity);
    s += ", \"bodies\": [";
    for (i, b) in tree.bodies.iter().enumerate() {
        let kind = match b.joint {
            JointKind::Free => "free",
            JointKind::Revolute => "revolute",
            JointKind::Prismatic => "prismatic",
            JointKind::Spherical => panic!("no spherical joints in Talos"),
        };
        let parent = b.parent.map_or("null".to_owned(), |p| p.to_string());
        let rows = |m: &[[f64; 3]; 3]| {
            let r: Vec<String> = m.iter().map(|row| numbers(row)).collect();
            format!("[{}]", r.join(", "))
        };
        let _ = write!(
            s,
            "{}{{\"parent\": {parent}, \"kind\": \"{kind}\", \"axis\": {}, \"rotation\": {}, \
             \"translation\": {}, \"mass\": {:e}, \"com\": {}, \"inertia\": {}}}",
            if i == 0 { "" } else { ", " },
            numbers(&b.axis),
            rows(&b.rotation),
            numbers(&b.translation),
            b.mass,
            numbers(&b.com),
            rows(&b.inertia),
        );
    }
    s += "], \"states\": [";
    let nv = robot.velocity_names.len();
    let index: Vec<f64> = (0..nv).map(|i| i as f64).collect();
    // tree velocity k is Pinocchio velocity order[k]
    let coordinate_of_tree = robot.oracle.v_to_tree(&index);
    let pinocchio_of_coordinate = {
        let p = robot.v_to_pinocchio(&index);
        let mut inverse = vec![0.0; nv];
        for (pin, &c) in p.iter().enumerate() {
            inverse[c as usize] = pin as f64;
        }
        inverse
    };
    let order: Vec<f64> = coordinate_of_tree
        .iter()
        .map(|&c| pinocchio_of_coordinate[c as usize])
        .collect();
    for (k, sample) in robot.reference.samples.iter().enumerate() {
        let q = robot.oracle.q_to_tree(&robot.q_to_sharnir(&sample.q));
        let v = robot.oracle.v_to_tree(&robot.v_to_sharnir(&sample.v));
        let tau = robot.oracle.v_to_tree(&robot.v_to_sharnir(&sample.tau));
        let _ = write!(
            s,
            "{}{{\"q\": {}, \"v\": {}, \"tau\": {}}}",
            if k == 0 { "" } else { ", " },
            numbers(&q),
            numbers(&v),
            numbers(&tau)
        );
    }
    let _ = write!(s, "], \"pinocchio_index\": {}}}", numbers(&order));
    s
}

/// Talos converted with `keep_angles` (`--keep-angles`): the URDF's angles
/// as written, where the default conversion makes near right angles exact.
fn kept_angles(robot: &Robot) -> sharnir_urdf::Conversion {
    let path = sharnir_tests::pinocchio::fixtures_dir().join("talos_reduced.urdf");
    let source = sharnir_spec::Source {
        name: "tests/fixtures/talos_reduced.urdf".to_owned(),
        text: std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    };
    let options = sharnir_urdf::Options {
        name: Some("talos".to_owned()),
        floating: true,
        keep_angles: true,
        ..sharnir_urdf::Options::default()
    };
    let kept = sharnir_urdf::convert(&source, &options).unwrap_or_else(|e| panic!("{e:?}"));
    assert_ne!(kept.text, robot.conversion.text);
    let positions: Vec<String> = kept
        .spec
        .joints
        .iter()
        .flat_map(|j| j.position_names())
        .collect();
    assert_eq!(positions, robot.position_names);
    kept
}

/// With `SHARNIR_ACCURACY_KEEP_ANGLES=1`, the conversion with kept angles.
#[test]
#[ignore = "a measurement: run by benches/accuracy/run.sh"]
fn dump() {
    let mut robot = Robot::convert("talos", "talos_reduced.urdf", reference("talos"));
    if std::env::var("SHARNIR_ACCURACY_KEEP_ANGLES").is_ok_and(|v| v == "1") {
        robot.conversion = kept_angles(&robot);
        robot.oracle = sharnir_tests::oracle::Oracle::for_parsed_spec(&robot.conversion.spec);
    }
    let mut json = String::from("{\"tree\": ");
    json += &tree_json(&robot);
    json += ", \"stages\": [";
    for (k, (name, results)) in stages(&robot).iter().enumerate() {
        let rows: Vec<String> = results.iter().map(|r| numbers(r)).collect();
        let _ = write!(
            json,
            "{}{{\"name\": \"{name}\", \"results\": [{}]}}",
            if k == 0 { "" } else { ", " },
            rows.join(", ")
        );
    }
    json += "]}\n";
    let path = std::env::var("SHARNIR_ACCURACY_OUT").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../target/accuracy/talos_stages.json"
        )
        .to_owned()
    });
    if let Some(dir) = std::path::Path::new(&path).parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    std::fs::write(&path, json).unwrap_or_else(|e| panic!("{path}: {e}"));
    println!("wrote {path}");
}

/// The exact forward dynamics of `tests/fixtures/talos_exact.json` (key
/// `converted` or `urdf`), per sample, in Pinocchio's velocity order.
fn exact(key: &str) -> Vec<Vec<f64>> {
    let path = sharnir_tests::pinocchio::fixtures_dir().join("talos_exact.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let samples = json["samples"].as_array().expect("samples");
    samples
        .iter()
        .map(|s| {
            s[key]
                .as_array()
                .unwrap_or_else(|| panic!("no `{key}`"))
                .iter()
                .map(|x| x.as_f64().expect("a number"))
                .collect()
        })
        .collect()
}

/// `max |got − want| / max |want|`.
fn normwise(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0_f64, |m, w| m.max(w.abs()));
    let worst = got
        .iter()
        .zip(want)
        .fold(0.0_f64, |m, (g, w)| m.max((g - w).abs()));
    worst / scale
}

/// How far the generated forward dynamics may be from the exact answer of
/// the model it computes, normwise relative: a few times Pinocchio's ABA on
/// its own model (1.6e-15 at worst over these states; the generated
/// programs 2.1e-15, the numeric ABA 2.6e-15). The converter's exact right
/// angles move the exact answer itself by up to 2.6e-12 from the URDF as
/// written, which this bound would catch as well.
const NORMWISE: f64 = 1e-14;

/// The generated `forward_dynamics` of Talos (the planned programs, runtime
/// parameters and folded), the expressions it is lowered from and the
/// numeric ABA against the 40-digit answer on the converted spec.
#[test]
fn talos_forward_dynamics_is_accurate() {
    let robot = Robot::convert("talos", "talos_reduced.urdf", reference("talos"));
    let want = exact("converted");
    assert_eq!(want.len(), robot.reference.samples.len());
    for (name, results) in stages(&robot) {
        let worst = results
            .iter()
            .zip(&want)
            .map(|(got, want)| normwise(got, want))
            .fold(0.0_f64, f64::max);
        println!("{name}: {worst:.1e}");
        assert!(
            worst <= NORMWISE,
            "{name}: normwise relative error {worst:e} against the exact forward dynamics \
             (tolerance {NORMWISE:e})"
        );
    }
}

/// The converter's right angles (docs/urdf.md) are a change of model: the
/// exact answers on the converted spec and on the URDF as written differ
/// by far more than rounding, and by far less than the 1e-9 the converter
/// promises. Pinocchio's ABA (tests/fixtures/talos.json) is within rounding
/// of the URDF's.
#[test]
fn right_angles_move_the_exact_answer() {
    let converted = exact("converted");
    let urdf = exact("urdf");
    let samples = reference("talos").samples;
    let mut moved = 0.0_f64;
    for ((c, u), sample) in converted.iter().zip(&urdf).zip(&samples) {
        moved = moved.max(normwise(c, u));
        assert!(normwise(&sample.aba, u) <= NORMWISE);
    }
    println!("exact answers apart by {moved:.1e}");
    assert!((1e-13..1e-9).contains(&moved), "{moved:e}");
}

/// Converted with `keep_angles` (`--keep-angles`), the spec is the URDF as
/// written, and the generated forward dynamics is as close to the exact
/// answer on Pinocchio's model as Pinocchio's ABA: within [`NORMWISE`]
/// (measured 2.1e-15), where the default conversion's right angles put it
/// 2.6e-12 away.
#[test]
fn kept_angles_give_the_urdf_answer() {
    let robot = Robot::convert("talos", "talos_reduced.urdf", reference("talos"));
    let kept = kept_angles(&robot);
    let parameters = kept.spec.parameter_values();
    let mut mechanism = Mechanism::from_spec(&kept.spec, ParameterMode::Runtime)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let planned = plan(&mut mechanism, &PlanOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut worst = 0.0_f64;
    for (s, want) in robot.reference.samples.iter().zip(exact("urdf")) {
        let q = robot.q_to_sharnir(&s.q);
        let v = robot.v_to_sharnir(&s.v);
        let tau = robot.v_to_sharnir(&s.tau);
        let input = |i: &Input| match i {
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Force(i) => tau.get(*i).copied(),
            Input::Parameter(name) => parameters.get(name).copied(),
            _ => None,
        };
        let got = planned
            .evaluate("forward_dynamics", &input)
            .expect("planned forward dynamics");
        worst = worst.max(normwise(&robot.v_to_pinocchio(&got), &want));
    }
    println!("kept angles: generated forward dynamics within {worst:.1e} of the URDF's");
    assert!(worst <= NORMWISE, "{worst:e}");
}
