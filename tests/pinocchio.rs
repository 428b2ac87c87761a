//! sharnir against Pinocchio 4.1.0 on published robots (double pendulum,
//! UR5, Panda and the Solo12 quadruped from example-robot-data; provenance
//! in tests/fixtures/README.md).
//!
//! Each robot's URDF goes through `sharnir-urdf` into its bundled spec (the
//! test first checks the spec is what the converter makes of the URDF
//! today; Solo12, whose Pinocchio model has a free-flyer root, is converted
//! with `--floating`), and then both the generated code
//! (`sharnir_generated::<robot>`) and the numeric oracle (`sharnir-numeric`
//! on the same spec) must reproduce Pinocchio's `rnea`, `crba`, `nle`,
//! `gravity`, `aba`, the kinetic and potential energy, and the world
//! placement of the end-effector frame (a URDF link merged into a body by
//! fixed joints, located through `Conversion::frames` on the generated
//! `body_poses` or the oracle's poses). The lumped bodies must also match
//! Pinocchio's after its own merging of fixed joints.
//!
//! Coordinates are matched by name: sharnir's `POSITION_NAMES` and
//! `COORDINATE_NAMES` against Pinocchio's joints, a free flyer's entries
//! named `root_joint_x … root_joint_qw` and `root_joint_vx … root_joint_wz`
//! after its layout (q = [x y z qx qy qz qw], v = [linear, angular] in the
//! base frame). Pinocchio's q, quaternion scalar last, goes in unchanged.
//! That sharnir's joint order *is* Pinocchio's is checked too. Every one of
//! the 20 samples per robot is compared, with the same tolerances for every
//! robot: 1e-9 relative per entry, with an absolute floor of 1e-7 for
//! entries near zero; placements and mass properties, which are data carried
//! through rather than long computations, to 1e-12 (end-effector placements
//! with an absolute floor of 1e-11, for the right angles the converter
//! writes exactly).

#[path = "pinocchio_shared.rs"]
mod shared;

use shared::{
    derivative_reference, numeric_oracle_agrees, placement_entries, reference,
    regressor_in_sharnir_order, Dynamics, GEOMETRY, PLACEMENT,
};
use sharnir_tests::pinocchio::{place, Placement, Robot, Tolerance};

const DYNAMICS: Tolerance = Tolerance {
    relative: 1e-9,
    absolute: 1e-7,
};

/// Every quantity the generated module of a robot has, compared for every
/// sample. Adding a generated output is one line in the loop.
macro_rules! generated_agrees_with_pinocchio {
    ($test:ident, $module:ident, $urdf:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as generated;
            const NQ: usize = generated::NQ;
            const NV: usize = generated::NV;
            let robot = Robot::load(stringify!($module), $urdf, reference(stringify!($module)));
            assert_eq!(generated::POSITION_NAMES.to_vec(), robot.position_names);
            assert_eq!(generated::COORDINATE_NAMES.to_vec(), robot.velocity_names);
            let ee = robot.frame(&robot.reference.ee_frame);
            let ee_body = generated::BODY_NAMES.iter().position(|b| *b == ee.body);
            let p = generated::Params::default();
            for (s, sample) in robot.reference.samples.iter().enumerate() {
                let q = robot.q_array::<NQ>(&sample.q);
                let v = robot.v_array::<NV>(&sample.v);
                let a = robot.v_array::<NV>(&sample.a);
                let tau = robot.v_array::<NV>(&sample.tau);
                let pin = |x: &[f64]| robot.v_to_pinocchio(x);
                let pin_matrix = |m: &[[f64; NV]; NV]| robot.matrix_to_pinocchio(m).concat();
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
                DYNAMICS.check(
                    &what("forward_dynamics"),
                    s,
                    &pin(&generated::forward_dynamics(&p, &q, &v, &tau)),
                    &sample.aba,
                );
                let (kinetic, potential) = generated::energy(&p, &q, &v);
                DYNAMICS.check(
                    &what("energy (T, V)"),
                    s,
                    &[kinetic, potential],
                    &[sample.kinetic_energy, sample.potential_energy],
                );
                let pose = match ee_body {
                    Some(b) => {
                        let pose = generated::body_poses(&p, &q)[b];
                        (pose.rotation, pose.position)
                    }
                    None => {
                        assert_eq!(ee.body, "ground", "no generated body `{}`", ee.body);
                        (
                            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                            [0.0; 3],
                        )
                    }
                };
                PLACEMENT.check(
                    &what("end-effector placement from body_poses"),
                    s,
                    &placement_entries(&place(pose, ee)),
                    &placement_entries(&sample.ee_placement),
                );
            }
        }
    };
}

/// The derivative functions of a robot's generated module against
/// Pinocchio's analytical derivatives (`computeRNEADerivatives`,
/// `computeABADerivatives`, `computeMinverse`,
/// `computeGeneralizedGravityDerivatives`) at the first states of its
/// fixture, every matrix to [`DERIVATIVES`] of its largest entry.
macro_rules! generated_derivatives_agree_with_pinocchio {
    ($test:ident, $module:ident, $urdf:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as generated;
            const NQ: usize = generated::NQ;
            const NV: usize = generated::NV;
            let robot = Robot::load(stringify!($module), $urdf, reference(stringify!($module)));
            let derivatives = derivative_reference(stringify!($module));
            let p = generated::Params::default();
            for (s, (sample, want)) in robot.reference.samples.iter().zip(&derivatives).enumerate()
            {
                let q = robot.q_array::<NQ>(&sample.q);
                let v = robot.v_array::<NV>(&sample.v);
                let a = robot.v_array::<NV>(&sample.a);
                let tau = robot.v_array::<NV>(&sample.tau);
                let pin = |m: &[[f64; NV]; NV]| robot.matrix_to_pinocchio(m).concat();
                let what = |f: &str| format!("{}: generated {f}", stringify!($module));
                let (tau_q, tau_v) = generated::inverse_dynamics_derivatives(&p, &q, &v, &a);
                let (qdd_q, qdd_v, qdd_tau) =
                    generated::forward_dynamics_derivatives(&p, &q, &v, &tau);
                for (name, got, want) in [
                    ("∂τ/∂q", pin(&tau_q), &want.rnea_dq),
                    ("∂τ/∂v", pin(&tau_v), &want.rnea_dv),
                    ("∂q̈/∂q", pin(&qdd_q), &want.aba_dq),
                    ("∂q̈/∂v", pin(&qdd_v), &want.aba_dv),
                    ("∂q̈/∂τ", pin(&qdd_tau), &want.minv),
                    (
                        "mass_matrix_inverse",
                        pin(&generated::mass_matrix_inverse(&p, &q)),
                        &want.minv,
                    ),
                    (
                        "gravity_derivatives",
                        pin(&generated::gravity_derivatives(&p, &q)),
                        &want.gravity_dq,
                    ),
                ] {
                    DERIVATIVES.check(&what(name), s, &got, &want.concat());
                }
                let regressor = want
                    .regressor
                    .as_ref()
                    .expect("the fixture has the regressor");
                let regressor =
                    regressor_in_sharnir_order(&robot, &generated::BODY_NAMES, regressor);
                // Pinocchio's regressor has the bodies' columns, the
                // module's then those of the drives its spec declares.
                let bodies: Vec<f64> = generated::standard_regressor(&p, &q, &v, &a)
                    .iter()
                    .flat_map(|row| row[..10 * generated::NB].to_vec())
                    .collect();
                DERIVATIVES.check(&what("standard_regressor"), s, &bodies, &regressor.concat());
            }
        }
    };
}

/// Derivatives to 1e-9 of each matrix's largest entry (or of 1), as the
/// forward dynamics' solves carry the mass matrix's condition into them.
const DERIVATIVES: Dynamics = Dynamics::Normwise(1e-9);

generated_derivatives_agree_with_pinocchio!(generated_ur5_derivatives, ur5, "ur5_robot.urdf");
generated_derivatives_agree_with_pinocchio!(
    generated_panda_derivatives,
    panda,
    "panda_arm_fixed_fingers.urdf"
);
generated_derivatives_agree_with_pinocchio!(generated_solo12_derivatives, solo12, "solo12.urdf");

generated_agrees_with_pinocchio!(
    generated_double_pendulum,
    double_pendulum,
    "double_pendulum.urdf"
);
generated_agrees_with_pinocchio!(generated_ur5, ur5, "ur5_robot.urdf");
generated_agrees_with_pinocchio!(generated_panda, panda, "panda_arm_fixed_fingers.urdf");
generated_agrees_with_pinocchio!(generated_solo12, solo12, "solo12.urdf");

/// The Panda with its fingers free (`panda_finger_joint2` mimics
/// `panda_finger_joint1`, as in the published URDF) is Pinocchio's Panda with
/// fixed fingers while the fingers are closed and at rest: with the finger
/// coordinate, its rate and acceleration zero, the arm's rows of every
/// output and the energies are Pinocchio's. The coupled finger itself is
/// checked against the runtime's `CoupledTree` by the oracle tests and in
/// closed form by `tests/mimic.rs`.
#[test]
fn panda_gripper_with_closed_fingers_is_pinocchios_panda() {
    use sharnir_generated::panda_gripper as generated;
    const NQ: usize = generated::NQ;
    const NV: usize = generated::NV;
    let robot = Robot::load("panda", "panda_arm_fixed_fingers.urdf", reference("panda"));
    let gripper =
        sharnir_tests::pinocchio::convert_fixture("panda_gripper.urdf", "panda_gripper", false);
    assert!(
        sharnir_tests::oracle::load_spec("panda_gripper")
            .source
            .text
            == gripper.text,
        "specs/panda_gripper.spec is stale: run `cargo xtask urdf2spec \
         tests/fixtures/panda_gripper.urdf --name panda_gripper > specs/panda_gripper.spec`"
    );
    let arm = robot.velocity_names.len();
    assert_eq!(NV, arm + 1);
    assert_eq!(
        generated::COORDINATE_NAMES[..arm].to_vec(),
        robot.velocity_names
    );
    assert_eq!(generated::COORDINATE_NAMES[arm], "panda_finger_joint1");
    let closed =
        |x: Vec<f64>| -> [f64; NV] { std::array::from_fn(|i| x.get(i).copied().unwrap_or(0.0)) };
    let p = generated::Params::default();
    for (s, sample) in robot.reference.samples.iter().enumerate() {
        let q: [f64; NQ] = closed(robot.q_to_sharnir(&sample.q));
        let v = closed(robot.v_to_sharnir(&sample.v));
        let a = closed(robot.v_to_sharnir(&sample.a));
        let pin = |x: &[f64]| robot.v_to_pinocchio(&x[..arm]);
        let what = |f: &str| format!("panda_gripper: generated {f}, fingers closed");
        DYNAMICS.check(
            &what("inverse_dynamics"),
            s,
            &pin(&generated::inverse_dynamics(&p, &q, &v, &a)),
            &sample.rnea,
        );
        let m = generated::mass_matrix(&p, &q);
        let arm_block: Vec<Vec<f64>> = m[..arm].iter().map(|row| row[..arm].to_vec()).collect();
        DYNAMICS.check(
            &what("mass_matrix"),
            s,
            &robot.matrix_to_pinocchio(&arm_block).concat(),
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
        let (kinetic, potential) = generated::energy(&p, &q, &v);
        DYNAMICS.check(
            &what("energy (T, V)"),
            s,
            &[kinetic, potential],
            &[sample.kinetic_energy, sample.potential_energy],
        );
        let ee = gripper
            .frame(&robot.reference.ee_frame)
            .expect("the tcp is kept");
        let body = generated::BODY_NAMES
            .iter()
            .position(|b| *b == ee.body)
            .expect("a body");
        let pose = generated::body_poses(&p, &q)[body];
        PLACEMENT.check(
            &what("end-effector placement"),
            s,
            &placement_entries(&place((pose.rotation, pose.position), ee)),
            &placement_entries(&sample.ee_placement),
        );
    }
}

/// Solo12 bolted down by its trunk (`specs/solo12_fixed.spec`, converted
/// without `--floating`): its mass matrix is the legs' block of Pinocchio's
/// floating-base mass matrix, which does not depend on where the trunk is.
/// (Its other outputs have no Pinocchio reference; the oracle tests check
/// them.)
#[test]
fn solo12_fixed_mass_matrix_is_pinocchios_leg_block() {
    use sharnir_generated::solo12_fixed as generated;
    let fixed = sharnir_tests::pinocchio::convert_fixture("solo12.urdf", "solo12_fixed", false);
    assert!(
        sharnir_tests::oracle::load_spec("solo12_fixed").source.text == fixed.text,
        "specs/solo12_fixed.spec is stale: run `cargo xtask urdf2spec tests/fixtures/solo12.urdf \
         --name solo12_fixed --folded-twin > specs/solo12_fixed.spec`"
    );
    let reference = reference("solo12");
    let (pinocchio_q, pinocchio_v) = reference.coordinate_names();
    let index = |names: &[String], name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("Pinocchio has no coordinate `{name}`"))
    };
    let q_index: Vec<usize> = generated::POSITION_NAMES
        .iter()
        .map(|n| index(&pinocchio_q, n))
        .collect();
    let v_index: Vec<usize> = generated::COORDINATE_NAMES
        .iter()
        .map(|n| index(&pinocchio_v, n))
        .collect();
    assert_eq!(generated::NV, 12);
    let p = generated::Params::default();
    for (s, sample) in reference.samples.iter().enumerate() {
        let q: [f64; generated::NQ] = std::array::from_fn(|i| sample.q[q_index[i]]);
        let m = generated::mass_matrix(&p, &q);
        let block: Vec<f64> = v_index
            .iter()
            .flat_map(|&i| v_index.iter().map(move |&j| sample.crba[i][j]))
            .collect();
        DYNAMICS.check(
            "solo12_fixed: generated mass_matrix against the legs' block",
            s,
            &m.concat(),
            &block,
        );
    }
}

#[test]
fn numeric_double_pendulum() {
    numeric_oracle_agrees(
        "double_pendulum",
        &Robot::load(
            "double_pendulum",
            "double_pendulum.urdf",
            reference("double_pendulum"),
        ),
        Dynamics::Entrywise(DYNAMICS),
    );
}

#[test]
fn numeric_ur5() {
    numeric_oracle_agrees(
        "ur5",
        &Robot::load("ur5", "ur5_robot.urdf", reference("ur5")),
        Dynamics::Entrywise(DYNAMICS),
    );
}

#[test]
fn numeric_panda() {
    numeric_oracle_agrees(
        "panda",
        &Robot::load("panda", "panda_arm_fixed_fingers.urdf", reference("panda")),
        Dynamics::Entrywise(DYNAMICS),
    );
}

#[test]
fn numeric_solo12() {
    numeric_oracle_agrees(
        "solo12",
        &Robot::load("solo12", "solo12.urdf", reference("solo12")),
        Dynamics::Entrywise(DYNAMICS),
    );
}

/// The comparison has teeth: one body's mass off by one part in a million
/// (far below anything a modelling mistake produces) fails it.
#[test]
fn a_slightly_wrong_mass_is_caught() {
    let mut robot = Robot::load("ur5", "ur5_robot.urdf", reference("ur5"));
    let last = robot.oracle.tree.bodies.len() - 1;
    robot.oracle.tree.bodies[last].mass *= 1.0 + 1e-6;
    let caught = robot.reference.samples.iter().any(|sample| {
        let q = robot.q_to_sharnir(&sample.q);
        let v = robot.v_to_sharnir(&sample.v);
        let a = robot.v_to_sharnir(&sample.a);
        let tau = robot.v_to_pinocchio(&robot.oracle.inverse_dynamics(&q, &v, &a));
        tau.iter()
            .zip(&sample.rnea)
            .any(|(g, w)| !DYNAMICS.accepts(*g, *w))
    });
    assert!(caught, "a 1e-6 mass error went unnoticed");
}

/// The floating-base comparison has teeth too: Pinocchio's quaternion read
/// scalar first, or its base velocity read angular first, fails it.
#[test]
fn a_wrong_free_flyer_convention_is_caught() {
    use sharnir_generated::solo12 as generated;
    let robot = Robot::load("solo12", "solo12.urdf", reference("solo12"));
    let p = generated::Params::default();
    let misread = |permute_q: fn(&mut [f64]), permute_v: fn(&mut [f64])| {
        robot.reference.samples.iter().any(|sample| {
            let mut q = sample.q.clone();
            let mut v = sample.v.clone();
            let mut a = sample.a.clone();
            permute_q(&mut q);
            permute_v(&mut v);
            permute_v(&mut a);
            let tau = generated::inverse_dynamics(
                &p,
                &robot.q_array(&q),
                &robot.v_array(&v),
                &robot.v_array(&a),
            );
            robot
                .v_to_pinocchio(&tau)
                .iter()
                .zip(&sample.rnea)
                .any(|(g, w)| !DYNAMICS.accepts(*g, *w))
        })
    };
    let unchanged = |_: &mut [f64]| {};
    assert!(!misread(unchanged, unchanged), "the reading itself is off");
    assert!(
        misread(|q| q[3..7].rotate_right(1), unchanged),
        "a scalar-first quaternion went unnoticed"
    );
    assert!(
        misread(unchanged, |v| v[0..6].rotate_left(3)),
        "an angular-first base velocity went unnoticed"
    );
}

/// URDF joint types Pinocchio's references do not cover, checked against
/// what URDF says they do: a `planar` joint moves its link in the plane
/// normal to the axis and turns it about the axis (the converter turns the
/// spec joint's frame so that the axis is its z), and a `floating` joint
/// moves its link freely from the joint frame. The spec goes through the
/// pipeline's numeric oracle; links are located through `Conversion::frames`.
#[test]
fn planar_and_floating_urdf_joints_move_as_urdf_says() {
    let urdf = r#"<robot name="r">
  <link name="base"/>
  <link name="puck"><inertial><origin xyz="0.1 0.2 0.3"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.025"/></inertial></link>
  <link name="drone"><inertial><mass value="2"/>
    <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.05"/></inertial></link>
  <joint name="table" type="planar"><parent link="base"/><child link="puck"/>
    <origin xyz="0.5 0 1" rpy="0.3 0.2 0.1"/><axis xyz="0.3 -0.4 0.5"/></joint>
  <joint name="air" type="floating"><parent link="puck"/><child link="drone"/>
    <origin xyz="0 0 0.2" rpy="0 0 1"/></joint>
</robot>"#;
    let source = sharnir_spec::Source {
        name: "r.urdf".into(),
        text: urdf.into(),
    };
    let conversion = sharnir_urdf::convert(&source, &sharnir_urdf::Options::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let oracle = sharnir_tests::oracle::Oracle::for_parsed_spec(&conversion.spec);
    // q = [table_x, table_y, table_angle, air_x … air_qw]. The planar joint
    // is a chain of auxiliary bodies; the puck is the one its last
    // coordinate (velocity 2) moves, the drone the one velocity 3 moves.
    let link = |name: &str, q: &[f64]| {
        let frame = conversion.frame(name).unwrap_or_else(|| panic!("{name}"));
        let velocity = if frame.body == "puck" { 2 } else { 3 };
        let body = oracle.body_of_velocity(velocity).expect("a body");
        place(oracle.tree_poses(q)[body], frame)
    };
    let rest = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    // At rest every link frame is where the URDF's origins put it.
    let (s, c) = (0.1_f64.sin(), 0.1_f64.cos());
    let (sp, cp) = (0.2_f64.sin(), 0.2_f64.cos());
    let (sr, cr) = (0.3_f64.sin(), 0.3_f64.cos());
    let table = [
        [c * cp, c * sp * sr - s * cr, c * sp * cr + s * sr],
        [s * cp, s * sp * sr + c * cr, s * sp * cr - c * sr],
        [-sp, cp * sr, cp * cr],
    ];
    let puck = link("puck", &rest);
    GEOMETRY.check(
        "puck at rest",
        0,
        &placement_entries(&puck),
        &placement_entries(&Placement {
            translation: [0.5, 0.0, 1.0],
            rotation: table,
        }),
    );
    // The drone hangs 0.2 along the puck's z, turned by 1 rad about it.
    let (sy, cy) = 1.0_f64.sin_cos();
    let yaw = [[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]];
    GEOMETRY.check(
        "drone at rest",
        0,
        &placement_entries(&link("drone", &rest)),
        &placement_entries(&Placement {
            translation: [
                0.5 + 0.2 * table[0][2],
                0.2 * table[1][2],
                1.0 + 0.2 * table[2][2],
            ],
            rotation: std::array::from_fn(|i| {
                std::array::from_fn(|k| (0..3).map(|j| table[i][j] * yaw[j][k]).sum())
            }),
        }),
    );
    // Moved, the puck slides perpendicular to the axis by the planar
    // distance and turns about the axis by the angle.
    let norm = (0.3_f64 * 0.3 + 0.4 * 0.4 + 0.5 * 0.5).sqrt();
    let axis: [f64; 3] =
        std::array::from_fn(|i| (table[i][0] * 0.3 - table[i][1] * 0.4 + table[i][2] * 0.5) / norm);
    let (x, y, angle) = (0.3, -0.2, 0.7);
    let mut moved = rest;
    moved[..3].copy_from_slice(&[x, y, angle]);
    let puck_moved = link("puck", &moved);
    let shift: Vec<f64> = (0..3)
        .map(|i| puck_moved.translation[i] - puck.translation[i])
        .collect();
    let turn: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|k| {
            (0..3)
                .map(|j| puck_moved.rotation[i][j] * puck.rotation[k][j])
                .sum()
        })
    });
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
    let turned_axis: Vec<f64> = (0..3).map(|i| dot(&turn[i], &axis)).collect();
    // A rotation by θ about the unit u has trace 1 + 2 cos θ and
    // antisymmetric part sin θ [u]×.
    let cos = (turn[0][0] + turn[1][1] + turn[2][2] - 1.0) / 2.0;
    let sin_axis = [
        (turn[2][1] - turn[1][2]) / 2.0,
        (turn[0][2] - turn[2][0]) / 2.0,
        (turn[1][0] - turn[0][1]) / 2.0,
    ];
    GEOMETRY.check(
        "planar motion: along the axis, distance, axis kept, cos θ, sin θ·axis",
        0,
        &[
            vec![dot(&shift, &axis), dot(&shift, &shift).sqrt()],
            turned_axis,
            vec![cos],
            sin_axis.to_vec(),
        ]
        .concat(),
        &[
            vec![0.0, x.hypot(y)],
            axis.to_vec(),
            vec![angle.cos()],
            axis.map(|a| angle.sin() * a).to_vec(),
        ]
        .concat(),
    );
    // Its centre of mass, with the link frame turned back inside the body,
    // is still 0.1, 0.2, 0.3 along the URDF link's axes.
    let tree_body = oracle.body_of_velocity(2).expect("puck");
    let (rotation, origin) = oracle.tree_poses(&moved)[tree_body];
    let com_body = oracle.tree.bodies[tree_body].com;
    let com: Vec<f64> = (0..3)
        .map(|i| origin[i] + dot(&rotation[i], &com_body))
        .collect();
    let want: Vec<f64> = (0..3)
        .map(|i| puck_moved.translation[i] + dot(&puck_moved.rotation[i], &[0.1, 0.2, 0.3]))
        .collect();
    GEOMETRY.check("puck's centre of mass", 0, &com, &want);
}
