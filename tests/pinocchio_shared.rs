//! Shared by the Pinocchio tests (`pinocchio.rs`, `pinocchio_real.rs`):
//! reading the reference JSON files of `tests/fixtures/` (`serde_json` is a
//! dev-dependency, so this is not in the support library) and comparing the
//! numeric oracle of a converted robot with every Pinocchio output. Each
//! test file uses part of it.

#![allow(dead_code)]

use serde_json::Value;
use sharnir_tests::pinocchio::{
    fixtures_dir, Placement, Reference, ReferenceBody, ReferenceJoint, Robot, Sample, Tolerance,
};

/// Placements and mass properties are data copied through, not computed
/// through long chains: they must agree to rounding.
pub const GEOMETRY: Tolerance = Tolerance {
    relative: 1e-12,
    absolute: 1e-13,
};

/// End-effector placements of the URDF robots: rounding, and the right
/// angles the converter writes exactly (docs/urdf.md, "Right angles"). The
/// UR5's `1.57079632679` is 4.9e-12 rad short of π/2, which moves its end
/// effector by about 2e-12 m.
pub const PLACEMENT: Tolerance = Tolerance {
    relative: 1e-12,
    absolute: 1e-11,
};

/// How closely the dynamics must agree.
#[derive(Clone, Copy, Debug)]
pub enum Dynamics {
    /// Every entry within the tolerance of its own value.
    Entrywise(Tolerance),
    /// Every entry within this fraction of the quantity's largest entry
    /// (or of 1, if that is smaller): the rounding of a solve, which one
    /// small entry of a large vector does not get back relative to itself.
    Normwise(f64),
}

impl Dynamics {
    /// Panics like [`Tolerance::check`] unless `got` agrees with `want`.
    pub fn check(&self, what: &str, sample: usize, got: &[f64], want: &[f64]) {
        let tolerance = match *self {
            Dynamics::Entrywise(tolerance) => tolerance,
            Dynamics::Normwise(relative) => Tolerance {
                relative,
                absolute: relative * want.iter().fold(1.0_f64, |m, w| m.max(w.abs())),
            },
        };
        tolerance.check(what, sample, got, want);
    }
}

/// `sharnir-numeric` on the converted spec against every Pinocchio output:
/// the dynamics to `dynamics`, the lumped bodies to [`GEOMETRY`], the
/// end-effector placement to [`PLACEMENT`]. Returns the largest
/// [`largest_difference`] of the dynamics, for the record.
pub fn numeric_oracle_agrees(stem: &str, robot: &Robot, dynamics: Dynamics) -> f64 {
    let (pinocchio_q, pinocchio_v) = robot.reference.coordinate_names();
    assert_eq!(
        (&robot.position_names, &robot.velocity_names),
        (&pinocchio_q, &pinocchio_v),
        "{stem}: coordinates are not in Pinocchio's joint order"
    );
    bodies_agree(stem, robot);
    let oracle = &robot.oracle;
    let mut worst = 0.0_f64;
    let mut check = |what: &str, s: usize, got: &[f64], want: &[f64]| {
        dynamics.check(what, s, got, want);
        worst = worst.max(largest_difference(got, want));
    };
    for (s, sample) in robot.reference.samples.iter().enumerate() {
        let q = robot.q_to_sharnir(&sample.q);
        let v = robot.v_to_sharnir(&sample.v);
        let a = robot.v_to_sharnir(&sample.a);
        let tau = robot.v_to_sharnir(&sample.tau);
        let what = |f: &str| format!("{stem}: numeric {f}");
        let pin = |x: &[f64]| robot.v_to_pinocchio(x);
        check(
            &what("inverse dynamics"),
            s,
            &pin(&oracle.inverse_dynamics(&q, &v, &a)),
            &sample.rnea,
        );
        check(
            &what("mass matrix"),
            s,
            &robot.matrix_to_pinocchio(&oracle.mass_matrix(&q)).concat(),
            &sample.crba.concat(),
        );
        check(&what("bias"), s, &pin(&oracle.bias(&q, &v)), &sample.nle);
        let zero = vec![0.0; v.len()];
        check(
            &what("gravity"),
            s,
            &pin(&oracle.bias(&q, &zero)),
            &sample.gravity,
        );
        check(
            &what("forward dynamics"),
            s,
            &pin(&oracle.forward_dynamics(&q, &v, &tau)),
            &sample.aba,
        );
        let (kinetic, potential) = oracle.energy(&q, &v);
        check(
            &what("energy (T, V)"),
            s,
            &[kinetic, potential],
            &[sample.kinetic_energy, sample.potential_energy],
        );
        let ee = robot.link_placement(&robot.reference.ee_frame, &q);
        PLACEMENT.check(
            &what("end-effector placement"),
            s,
            &placement_entries(&ee),
            &placement_entries(&sample.ee_placement),
        );
    }
    worst
}

/// The spec's bodies, after lumping fixed links and rotating inertias, are
/// Pinocchio's bodies.
pub fn bodies_agree(stem: &str, robot: &Robot) {
    assert_eq!(robot.reference.bodies.len(), robot.oracle.tree.bodies.len());
    for body in &robot.reference.bodies {
        let ours = &robot.oracle.tree.bodies[robot.tree_body_of_joint(&body.joint)];
        let mut got = vec![ours.mass];
        got.extend(ours.com);
        got.extend(ours.inertia.concat());
        let mut want = vec![body.mass];
        want.extend(body.com);
        want.extend(body.inertia.concat());
        GEOMETRY.check(
            &format!(
                "{stem}: mass, centre of mass and inertia of the body of `{}`",
                body.joint
            ),
            0,
            &got,
            &want,
        );
    }
}

pub fn placement_entries(p: &Placement) -> Vec<f64> {
    let mut entries = p.translation.to_vec();
    entries.extend(p.rotation.concat());
    entries
}

/// Reads `tests/fixtures/<stem>.json`.
pub fn reference(stem: &str) -> Reference {
    let path = fixtures_dir().join(format!("{stem}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let samples: Vec<Sample> = json["samples"]
        .as_array()
        .unwrap_or_else(|| panic!("{stem}: no samples"))
        .iter()
        .map(sample)
        .collect();
    assert!(
        samples.len() >= 20,
        "{stem}: only {} samples",
        samples.len()
    );
    let joints: Vec<ReferenceJoint> = json["joints"]
        .as_array()
        .unwrap_or_else(|| panic!("{stem}: no joints"))
        .iter()
        .map(|j| ReferenceJoint {
            name: string(&j["name"]),
            model: string(&j["type"]),
            nq: count(&j["nq"]),
            nv: count(&j["nv"]),
        })
        .collect();
    let names: Vec<String> = json["joint_names"]
        .as_array()
        .unwrap_or_else(|| panic!("{stem}: no joint_names"))
        .iter()
        .map(string)
        .collect();
    assert_eq!(
        joints.iter().map(|j| &j.name).collect::<Vec<_>>(),
        names.iter().collect::<Vec<_>>(),
        "{stem}: `joints` are not in the order of `joint_names`"
    );
    Reference {
        floating_base: json["floating_base"]
            .as_bool()
            .unwrap_or_else(|| panic!("{stem}: no floating_base")),
        joints,
        ee_frame: json["ee_frame"]
            .as_str()
            .unwrap_or_else(|| panic!("{stem}: no ee_frame"))
            .to_owned(),
        bodies: json["bodies"]
            .as_array()
            .unwrap_or_else(|| panic!("{stem}: no bodies"))
            .iter()
            .map(|b| ReferenceBody {
                joint: string(&b["joint"]),
                mass: number(&b["mass"]),
                com: vec3(&b["com"]),
                inertia: mat3(&b["inertia_about_com"]),
            })
            .collect(),
        samples,
    }
}

fn sample(s: &Value) -> Sample {
    Sample {
        q: numbers(&s["q_minimal"]),
        v: numbers(&s["v"]),
        a: numbers(&s["a"]),
        tau: numbers(&s["tau"]),
        rnea: numbers(&s["rnea"]),
        crba: s["crba"]
            .as_array()
            .unwrap_or_else(|| panic!("crba: {}", s["crba"]))
            .iter()
            .map(numbers)
            .collect(),
        nle: numbers(&s["nle"]),
        gravity: numbers(&s["gravity"]),
        aba: numbers(&s["aba"]),
        kinetic_energy: number(&s["kinetic_energy"]),
        potential_energy: number(&s["potential_energy"]),
        ee_placement: Placement {
            translation: vec3(&s["ee_placement"]["translation"]),
            rotation: mat3(&s["ee_placement"]["rotation"]),
        },
    }
}

fn string(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_owned()
}

fn count(v: &Value) -> usize {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_else(|| panic!("not a count: {v}"))
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(number)
        .collect()
}

fn vec3(v: &Value) -> [f64; 3] {
    let n = numbers(v);
    assert_eq!(n.len(), 3, "not a 3-vector: {v}");
    [n[0], n[1], n[2]]
}

fn mat3(v: &Value) -> [[f64; 3]; 3] {
    let rows = v.as_array().unwrap_or_else(|| panic!("not a matrix: {v}"));
    assert_eq!(rows.len(), 3, "not a 3×3 matrix: {v}");
    [vec3(&rows[0]), vec3(&rows[1]), vec3(&rows[2])]
}

/// `max |got − want| / max(max |want|, 1)`: the largest difference relative
/// to the quantity's largest entry.
pub fn largest_difference(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(1.0_f64, |m, w| m.max(w.abs()));
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max)
        / scale
}

/// Pinocchio's analytical derivatives at one state of a fixture, each
/// `NV × NV` in Pinocchio's order (`tests/fixtures/pinocchio_derivatives.py`).
pub struct DerivativeSample {
    /// `computeRNEADerivatives`: `∂τ/∂q`, `∂τ/∂v`.
    pub rnea_dq: Vec<Vec<f64>>,
    pub rnea_dv: Vec<Vec<f64>>,
    /// `computeABADerivatives`: `∂q̈/∂q`, `∂q̈/∂v`.
    pub aba_dq: Vec<Vec<f64>>,
    pub aba_dv: Vec<Vec<f64>>,
    /// `computeMinverse`, mirrored.
    pub minv: Vec<Vec<f64>>,
    /// `computeGeneralizedGravityDerivatives`.
    pub gravity_dq: Vec<Vec<f64>>,
    /// `computeJointTorqueRegressor`, `nv × 10 nbodies`, where the fixture
    /// has it.
    pub regressor: Option<Vec<Vec<f64>>>,
}

/// Reads `tests/fixtures/<stem>_derivatives.json`: the derivatives at the
/// first states of `<stem>.json`, in order.
pub fn derivative_reference(stem: &str) -> Vec<DerivativeSample> {
    let path = fixtures_dir().join(format!("{stem}_derivatives.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let matrix = |v: &Value| -> Vec<Vec<f64>> {
        v.as_array()
            .unwrap_or_else(|| panic!("{stem}: a matrix is not an array"))
            .iter()
            .map(numbers)
            .collect()
    };
    let samples: Vec<DerivativeSample> = json["samples"]
        .as_array()
        .unwrap_or_else(|| panic!("{stem}: no samples"))
        .iter()
        .map(|s| DerivativeSample {
            rnea_dq: matrix(&s["rnea_dq"]),
            rnea_dv: matrix(&s["rnea_dv"]),
            aba_dq: matrix(&s["aba_dq"]),
            aba_dv: matrix(&s["aba_dv"]),
            minv: matrix(&s["minv"]),
            gravity_dq: matrix(&s["gravity_dq"]),
            regressor: s.get("regressor").map(matrix),
        })
        .collect();
    assert!(
        samples.len() >= 5,
        "{stem}: only {} derivative samples",
        samples.len()
    );
    samples
}

/// Pinocchio's regressor columns in sharnir's order: for each body of
/// `body_names` (the module's `BODY_NAMES`), the ten columns of the
/// Pinocchio body whose joint moves it, rows in sharnir's velocity order.
pub fn regressor_in_sharnir_order(
    robot: &Robot,
    body_names: &[&str],
    regressor: &[Vec<f64>],
) -> Vec<Vec<f64>> {
    let spec = &robot.conversion.spec;
    let pinocchio_body = |name: &str| -> usize {
        robot
            .reference
            .bodies
            .iter()
            .position(|b| {
                spec.joints
                    .iter()
                    .any(|j| j.name == b.joint && j.child == name)
            })
            .unwrap_or_else(|| panic!("no Pinocchio body for `{name}`"))
    };
    let columns: Vec<usize> = body_names
        .iter()
        .flat_map(|name| {
            let b = pinocchio_body(name);
            (10 * b..10 * b + 10).collect::<Vec<_>>()
        })
        .collect();
    let nv = regressor.len();
    (0..nv)
        .map(|i| {
            // Row i of sharnir's order is Pinocchio's row `v_index[i]`.
            let mut unit = vec![0.0; nv];
            unit[i] = 1.0;
            let row = robot
                .v_to_pinocchio(&unit)
                .iter()
                .position(|&x| x == 1.0)
                .unwrap_or(i);
            columns.iter().map(|&c| regressor[row][c]).collect()
        })
        .collect()
}
