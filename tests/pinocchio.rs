//! sharnir against Pinocchio 4.1.0 on published robots (double pendulum,
//! UR5, Panda from example-robot-data; provenance in tests/fixtures/README.md).
//!
//! Each robot's URDF goes through `sharnir-urdf` into its bundled spec (the
//! test first checks the spec is what the converter makes of the URDF
//! today), and then:
//!
//! - the generated code (`sharnir_generated::<robot>`) must reproduce
//!   Pinocchio's `rnea`, `crba`, `nle` and `gravity`;
//! - the numeric oracle (`sharnir-runtime` on the same spec) must reproduce
//!   those and `aba`, the kinetic and potential energy, and the world
//!   placement of the end-effector frame (a URDF link merged into a body by
//!   fixed joints, located through `Conversion::frames`);
//! - the lumped bodies must match Pinocchio's after its own merging of fixed
//!   joints.
//!
//! Coordinates are matched by joint name; that sharnir's order *is*
//! Pinocchio's is checked too. Every one of the 20 samples per robot is
//! compared. Tolerances: 1e-9 relative per entry, with an absolute floor of
//! 1e-7 for entries near zero (`aba`, whose entries reach 1e4 rad/s² on the
//! light pendulum and go through M⁻¹, gets 1e-8 relative).

use serde_json::Value;
use sharnir_tests::pinocchio::{
    fixtures_dir, Placement, Reference, ReferenceBody, Robot, Sample, Tolerance,
};

const DYNAMICS: Tolerance = Tolerance {
    relative: 1e-9,
    absolute: 1e-7,
};

/// Placements and mass properties are data copied through, not computed
/// through long chains: they must agree to rounding.
const GEOMETRY: Tolerance = Tolerance {
    relative: 1e-12,
    absolute: 1e-13,
};

/// Every quantity the generated module of a robot has, compared for every
/// sample. Adding a generated output is one line in the loop.
macro_rules! generated_agrees_with_pinocchio {
    ($test:ident, $module:ident, $urdf:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as generated;
            const N: usize = generated::NV;
            let robot = Robot::load(stringify!($module), $urdf, reference(stringify!($module)));
            assert_eq!(generated::COORDINATE_NAMES.to_vec(), robot.names);
            let p = generated::Params::default();
            for (s, sample) in robot.reference.samples.iter().enumerate() {
                let q = robot.to_sharnir_array::<N>(&sample.q);
                let v = robot.to_sharnir_array::<N>(&sample.v);
                let a = robot.to_sharnir_array::<N>(&sample.a);
                let pin = |x: &[f64]| robot.to_pinocchio(x);
                let pin_matrix = |m: &[[f64; N]; N]| robot.matrix_to_pinocchio(m).concat();
                let what = |f: &str| format!("{}: generated {f}", stringify!($module));
                DYNAMICS.check(
                    &what("inverse_dynamics"),
                    s,
                    &pin(&generated::inverse_dynamics(&p, &q, &v, &a)),
                    &sample.rnea,
                );
                DYNAMICS.check(
                    &what("mass_matrix"),
                    s,
                    &pin_matrix(&generated::mass_matrix(&p, &q)),
                    &sample.crba.concat(),
                );
                DYNAMICS.check(
                    &what("bias"),
                    s,
                    &pin(&generated::bias(&p, &q, &v)),
                    &sample.nle,
                );
                DYNAMICS.check(
                    &what("gravity"),
                    s,
                    &pin(&generated::gravity(&p, &q)),
                    &sample.gravity,
                );
            }
        }
    };
}

generated_agrees_with_pinocchio!(
    generated_double_pendulum,
    double_pendulum,
    "double_pendulum.urdf"
);
generated_agrees_with_pinocchio!(generated_ur5, ur5, "ur5_robot.urdf");
generated_agrees_with_pinocchio!(generated_panda, panda, "panda_arm_fixed_fingers.urdf");

#[test]
fn numeric_double_pendulum() {
    numeric_oracle_agrees("double_pendulum", "double_pendulum.urdf");
}

#[test]
fn numeric_ur5() {
    numeric_oracle_agrees("ur5", "ur5_robot.urdf");
}

#[test]
fn numeric_panda() {
    numeric_oracle_agrees("panda", "panda_arm_fixed_fingers.urdf");
}

/// `sharnir-runtime` on the converted spec against every Pinocchio output.
fn numeric_oracle_agrees(stem: &str, urdf: &str) {
    let robot = Robot::load(stem, urdf, reference(stem));
    assert_eq!(
        robot.names, robot.reference.joint_names,
        "{stem}: coordinates are not in Pinocchio's joint order"
    );
    bodies_agree(stem, &robot);
    let oracle = &robot.oracle;
    for (s, sample) in robot.reference.samples.iter().enumerate() {
        let q = robot.to_sharnir(&sample.q);
        let v = robot.to_sharnir(&sample.v);
        let a = robot.to_sharnir(&sample.a);
        let tau = robot.to_sharnir(&sample.tau);
        let what = |f: &str| format!("{stem}: numeric {f}");
        let pin = |x: &[f64]| robot.to_pinocchio(x);
        DYNAMICS.check(
            &what("inverse dynamics"),
            s,
            &pin(&oracle.inverse_dynamics(&q, &v, &a)),
            &sample.rnea,
        );
        DYNAMICS.check(
            &what("mass matrix"),
            s,
            &robot.matrix_to_pinocchio(&oracle.mass_matrix(&q)).concat(),
            &sample.crba.concat(),
        );
        DYNAMICS.check(&what("bias"), s, &pin(&oracle.bias(&q, &v)), &sample.nle);
        let zero = vec![0.0; q.len()];
        DYNAMICS.check(
            &what("gravity"),
            s,
            &pin(&oracle.bias(&q, &zero)),
            &sample.gravity,
        );
        DYNAMICS.check(
            &what("forward dynamics"),
            s,
            &pin(&oracle.forward_dynamics(&q, &v, &tau)),
            &sample.aba,
        );
        let q_tree: Vec<f64> = oracle.q_to_tree(&q);
        let v_tree: Vec<f64> = oracle.v_to_tree(&v);
        let (kinetic, potential) = oracle
            .tree
            .energy(&q_tree, &v_tree)
            .unwrap_or_else(|e| panic!("{e}"));
        DYNAMICS.check(
            &what("energy (T, V)"),
            s,
            &[kinetic, potential],
            &[sample.kinetic_energy, sample.potential_energy],
        );
        let ee = robot.link_placement(&robot.reference.ee_frame, &q);
        GEOMETRY.check(
            &what("end-effector placement"),
            s,
            &placement_entries(&ee),
            &placement_entries(&sample.ee_placement),
        );
    }
}

/// The spec's bodies, after lumping fixed links and rotating inertias, are
/// Pinocchio's bodies.
fn bodies_agree(stem: &str, robot: &Robot) {
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

fn placement_entries(p: &Placement) -> Vec<f64> {
    let mut entries = p.translation.to_vec();
    entries.extend(p.rotation.concat());
    entries
}

/// Reads `tests/fixtures/<stem>.json`.
fn reference(stem: &str) -> Reference {
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
    Reference {
        joint_names: json["joint_names"]
            .as_array()
            .unwrap_or_else(|| panic!("{stem}: no joint_names"))
            .iter()
            .map(|n| n.as_str().unwrap_or_else(|| panic!("{n}")).to_owned())
            .collect(),
        ee_frame: json["ee_frame"]
            .as_str()
            .unwrap_or_else(|| panic!("{stem}: no ee_frame"))
            .to_owned(),
        bodies: json["bodies"]
            .as_array()
            .unwrap_or_else(|| panic!("{stem}: no bodies"))
            .iter()
            .map(|b| ReferenceBody {
                joint: b["joint"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{b}"))
                    .to_owned(),
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

/// The comparison has teeth: one body's mass off by one part in a million
/// (far below anything a modelling mistake produces) fails it.
#[test]
fn a_slightly_wrong_mass_is_caught() {
    let mut robot = Robot::load("ur5", "ur5_robot.urdf", reference("ur5"));
    let last = robot.oracle.tree.bodies.len() - 1;
    robot.oracle.tree.bodies[last].mass *= 1.0 + 1e-6;
    let caught = robot.reference.samples.iter().any(|sample| {
        let q = robot.to_sharnir(&sample.q);
        let v = robot.to_sharnir(&sample.v);
        let a = robot.to_sharnir(&sample.a);
        let tau = robot.to_pinocchio(&robot.oracle.inverse_dynamics(&q, &v, &a));
        tau.iter()
            .zip(&sample.rnea)
            .any(|(g, w)| !DYNAMICS.accepts(*g, *w))
    });
    assert!(caught, "a 1e-6 mass error went unnoticed");
}
