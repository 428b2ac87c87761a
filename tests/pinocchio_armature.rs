//! The drives' armature against Pinocchio 4.1.0's `model.armature`: UR5 and
//! Solo12 (floating, armature on the free flyer's six coordinates too)
//! with armature `0.05 (i + 1) + 0.01` on Pinocchio's velocity coordinate
//! `i`, written into each robot's converted spec as `armature`; the
//! planned module's `inverse_dynamics`, `mass_matrix` and
//! `forward_dynamics` against `pin.rnea`, `pin.crba` and `pin.aba` at the
//! first five states of the robot's fixture, to 1e-9 relative (1e-7
//! absolute near zero), as `tests/pinocchio.rs` compares the modules
//! without armature. `tests/fixtures/pinocchio_armature.py` makes the
//! reference (`tests/fixtures/<robot>_armature.json`); Pinocchio's joint
//! forces without armature, in the same file, differ by more than the
//! tolerance, so the comparison sees the armature.

#[path = "pinocchio_shared.rs"]
mod shared;

use serde_json::Value;
use shared::reference;
use sharnir_codegen::{plan, Plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::pinocchio::{fixtures_dir, Robot, Tolerance};
use std::collections::BTreeMap;

/// As `tests/pinocchio.rs` compares the dynamics.
const DYNAMICS: Tolerance = Tolerance {
    relative: 1e-9,
    absolute: 1e-7,
};

/// Pinocchio's results with armature, `tests/fixtures/<stem>_armature.json`.
fn armature_reference(stem: &str) -> Value {
    let path = fixtures_dir().join(format!("{stem}_armature.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

/// The robot's converted spec with `armature` (sharnir's velocity order)
/// on every joint with coordinates, planned in memory.
fn planned_with_armature(robot: &Robot, armature: &[f64]) -> (Plan, BTreeMap<String, f64>) {
    let mut text = robot.conversion.text.clone();
    let mut next = 0;
    for joint in &robot.conversion.spec.joints {
        let count = joint.velocity_names().len();
        if count == 0 {
            continue;
        }
        let values: Vec<String> = armature[next..next + count]
            .iter()
            .map(|a| format!("{a:e}"))
            .collect();
        next += count;
        let header = format!("[[joint]]\nname = \"{}\"\n", joint.name);
        let with = format!("{header}armature = [{}]\n", values.join(", "));
        assert!(text.contains(&header), "no table of joint `{}`", joint.name);
        text = text.replacen(&header, &with, 1);
    }
    let source = sharnir_spec::Source {
        name: robot.conversion.spec.source.name.clone(),
        text,
    };
    let spec = sharnir_spec::parse(source).unwrap_or_else(|e| panic!("{e:?}"));
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Runtime).unwrap_or_else(|e| panic!("{e:?}"));
    let planned = plan(&mut mechanism, &PlanOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    (planned, spec.parameter_values())
}

fn agrees_with_pinocchio(stem: &str, urdf: &str) {
    let robot = Robot::load(stem, urdf, reference(stem));
    let pinocchio = armature_reference(stem);
    let armature = robot.v_to_sharnir(&numbers(&pinocchio["armature"]));
    let (planned, parameters) = planned_with_armature(&robot, &armature);
    let samples = pinocchio["samples"].as_array().cloned().unwrap_or_default();
    assert_eq!(samples.len(), 5, "{stem}: samples");
    for (s, (expected, sample)) in samples.iter().zip(&robot.reference.samples).enumerate() {
        let q = robot.q_to_sharnir(&sample.q);
        let (v, a, tau) = (
            robot.v_to_sharnir(&sample.v),
            robot.v_to_sharnir(&sample.a),
            robot.v_to_sharnir(&sample.tau),
        );
        let env = |input: &Input| match input {
            Input::Parameter(name) => parameters.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Acceleration(i) => a.get(*i).copied(),
            Input::Force(i) => tau.get(*i).copied(),
            _ => None,
        };
        let evaluate = |function: &str| {
            planned
                .evaluate(function, &env)
                .unwrap_or_else(|| panic!("{stem}: `{function}` cannot be evaluated"))
        };
        let rnea = numbers(&expected["rnea"]);
        let without = numbers(&expected["rnea_without_armature"]);
        assert!(
            rnea.iter()
                .zip(&without)
                .any(|(x, y)| !DYNAMICS.accepts(*x, *y)),
            "{stem}: the armature changes nothing Pinocchio computes"
        );
        DYNAMICS.check(
            &format!("{stem}: inverse_dynamics with armature"),
            s,
            &robot.v_to_pinocchio(&evaluate("inverse_dynamics")),
            &rnea,
        );
        let nv = v.len();
        let mass: Vec<Vec<f64>> = evaluate("mass_matrix")
            .chunks(nv)
            .map(<[f64]>::to_vec)
            .collect();
        let crba: Vec<f64> = expected["crba"]
            .as_array()
            .unwrap_or_else(|| panic!("{stem}: no crba"))
            .iter()
            .flat_map(numbers)
            .collect();
        DYNAMICS.check(
            &format!("{stem}: mass_matrix with armature"),
            s,
            &robot.matrix_to_pinocchio(&mass).concat(),
            &crba,
        );
        DYNAMICS.check(
            &format!("{stem}: forward_dynamics with armature"),
            s,
            &robot.v_to_pinocchio(&evaluate("forward_dynamics")),
            &numbers(&expected["aba"]),
        );
    }
}

#[test]
fn ur5_with_armature_agrees_with_pinocchio() {
    agrees_with_pinocchio("ur5", "ur5_robot.urdf");
}

#[test]
fn solo12_with_armature_on_the_free_flyer_agrees_with_pinocchio() {
    agrees_with_pinocchio("solo12", "solo12.urdf");
}
