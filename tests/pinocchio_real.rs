//! Published robots as they are: ANYmal (B), HyQ and Talos (reduced) from
//! example-robot-data, whose URDFs carry links that are no rigid body on
//! their own (1e-6 kg dummies with rank-1 tensors, point masses on fixed
//! joints) but whose lumped moving bodies are. Converted in memory with
//! their exact tensors (no bundled spec, no generated module), each must
//! match Pinocchio 4.1.0 (`tests/fixtures/<robot>.json`, made by
//! `tests/fixtures/pinocchio_reference.py`; provenance in
//! tests/fixtures/README.md) in every quantity, through the numeric oracle
//! (`sharnir-numeric` on the converted spec), to 1e-10 relative.
//!
//! The floating-base conversions are compared with Pinocchio's free-flyer
//! models; the fixed-base conversions (the root link bolted down) must
//! convert too, and their mass matrices are the joints' block of
//! Pinocchio's, which does not depend on where the base is.

#[path = "pinocchio_shared.rs"]
mod shared;

use shared::{largest_difference, numeric_oracle_agrees, reference, Dynamics};
use sharnir_tests::pinocchio::{convert_fixture, Robot};

/// Every entry of every quantity to 1e-10 of the quantity's largest entry
/// (or of 1). Entry by entry relative to itself, forward dynamics would not
/// do: a small acceleration next to large ones carries the solve's rounding
/// of the large ones (HyQ: 2.4e-9 on an entry of 0.15 beside entries of
/// 1e3, agreeing normwise to about 1e-12).
const DYNAMICS: Dynamics = Dynamics::Normwise(1e-10);

/// The robot floating against Pinocchio's free-flyer model, then bolted
/// down against the joints' block of Pinocchio's mass matrix.
fn agrees_with_pinocchio(stem: &str, urdf: &str) {
    let robot = Robot::convert(stem, urdf, reference(stem));
    assert!(robot.reference.floating_base);
    assert!(
        robot.conversion.warnings.is_empty(),
        "{:?}",
        robot.conversion.warnings
    );
    let worst = numeric_oracle_agrees(stem, &robot, DYNAMICS);
    println!("{stem} (floating): largest difference from Pinocchio {worst:e}");
    fixed_mass_matrix_is_the_joints_block(stem, urdf, &robot);
    fix_inertia_changes_nothing(stem, urdf, &robot);
}

/// Every moving body is physical once lumped, so `--fix-inertia` has
/// nothing to replace: the spec is the same but for the command line in
/// its header.
fn fix_inertia_changes_nothing(stem: &str, urdf: &str, robot: &Robot) {
    let path = sharnir_tests::pinocchio::fixtures_dir().join(urdf);
    let source = sharnir_spec::Source {
        name: format!("tests/fixtures/{urdf}"),
        text: std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    };
    let options = sharnir_urdf::Options {
        name: Some(stem.to_owned()),
        floating: true,
        fix_inertia: true,
        ..sharnir_urdf::Options::default()
    };
    let fixed = sharnir_urdf::convert(&source, &options).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(fixed.warnings.is_empty(), "{:?}", fixed.warnings);
    assert_eq!(
        fixed.text.replace(" --fix-inertia", ""),
        robot.conversion.text,
        "{stem}: --fix-inertia changed the spec"
    );
}

fn fixed_mass_matrix_is_the_joints_block(stem: &str, urdf: &str, floating: &Robot) {
    let fixed = convert_fixture(urdf, stem, false);
    let oracle = sharnir_tests::oracle::Oracle::for_parsed_spec(&fixed.spec);
    let names: Vec<String> = fixed
        .spec
        .joints
        .iter()
        .flat_map(|j| j.velocity_names())
        .collect();
    assert_eq!(names.len() + 6, floating.velocity_names.len());
    let (pinocchio_q, pinocchio_v) = floating.reference.coordinate_names();
    let index = |all: &[String], name: &String| {
        all.iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("{stem}: Pinocchio has no coordinate `{name}`"))
    };
    let q_index: Vec<usize> = names.iter().map(|n| index(&pinocchio_q, n)).collect();
    let v_index: Vec<usize> = names.iter().map(|n| index(&pinocchio_v, n)).collect();
    let mut worst = 0.0_f64;
    for (s, sample) in floating.reference.samples.iter().enumerate() {
        let q: Vec<f64> = q_index.iter().map(|&i| sample.q[i]).collect();
        let got = oracle.mass_matrix(&q).concat();
        let want: Vec<f64> = v_index
            .iter()
            .flat_map(|&i| v_index.iter().map(move |&j| sample.crba[i][j]))
            .collect();
        DYNAMICS.check(
            &format!("{stem} (fixed base): numeric mass matrix against the joints' block"),
            s,
            &got,
            &want,
        );
        worst = worst.max(largest_difference(&got, &want));
    }
    println!("{stem} (fixed): largest difference of M from Pinocchio's block {worst:e}");
}

#[test]
fn anymal() {
    agrees_with_pinocchio("anymal", "anymal.urdf");
}

#[test]
fn hyq() {
    agrees_with_pinocchio("hyq", "hyq_no_sensors.urdf");
}

#[test]
fn talos() {
    agrees_with_pinocchio("talos", "talos_reduced.urdf");
}

/// The symbolic pipeline on the smaller robots: the converted spec becomes a
/// `Mechanism` (parameters folded, as `--fold` emits), and the derivations a
/// generated module is made of by default — Newton–Euler inverse dynamics,
/// M, bias and gravity read off it, Vereshchagin's forward dynamics, the
/// energies and the body poses — are evaluated exactly as derived
/// (`Pool::eval`) at Pinocchio's states, to the same tolerance.
fn symbolic_agrees_with_pinocchio(stem: &str, urdf: &str) {
    use sharnir_mech::formalisms::rnea::PointAcceleration;
    use sharnir_mech::formalisms::{energy, joint_space, rnea, vereshchagin};
    use sharnir_mech::geometry::kinematics;
    use sharnir_mech::{Mechanism, ParameterMode};
    let robot = Robot::convert(stem, urdf, reference(stem));
    let mut mechanism = Mechanism::from_spec(&robot.conversion.spec, ParameterMode::Folded)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let tau = rnea::inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
    let terms = joint_space::joint_space(&mut mechanism.pool, &tau);
    let forward = vereshchagin::forward_dynamics(&mut mechanism).unwrap_or_else(|e| panic!("{e}"));
    let (kinetic, potential) = energy::energy(&mut mechanism, energy::Heights::OfCentres);
    let ee = robot.frame(&robot.reference.ee_frame).clone();
    let body = mechanism
        .bodies
        .iter()
        .position(|b| b.name == ee.body && !b.auxiliary)
        .unwrap_or_else(|| panic!("{stem}: no body `{}`", ee.body));
    assert!(mechanism.bodies[body].body_frame.is_none());
    let pose = kinematics::poses(&mut mechanism).swap_remove(body);
    let nv = mechanism.dof();
    let mut roots = tau;
    roots.extend(terms.mass_matrix.concat());
    roots.extend(terms.bias);
    roots.extend(terms.gravity);
    roots.extend([kinetic, potential]);
    roots.extend(pose.rotation.concat());
    roots.extend(pose.position);
    let mut worst = std::collections::BTreeMap::<&str, f64>::new();
    let no_parameters = std::collections::BTreeMap::new();
    for (s, sample) in robot.reference.samples.iter().enumerate() {
        let q = robot.q_to_sharnir(&sample.q);
        let v = robot.v_to_sharnir(&sample.v);
        let a = robot.v_to_sharnir(&sample.a);
        let tau = robot.v_to_sharnir(&sample.tau);
        let env = sharnir_tests::inputs::environment(&no_parameters, &q, &v, &a, &tau);
        let values = mechanism
            .pool
            .eval(&roots, &env)
            .unwrap_or_else(|e| panic!("{e}"));
        let accelerations = mechanism
            .pool
            .eval(&forward, &env)
            .unwrap_or_else(|e| panic!("{e}"));
        let (tau_got, rest) = values.split_at(nv);
        let (mass, rest) = rest.split_at(nv * nv);
        let (bias, rest) = rest.split_at(nv);
        let (gravity, rest) = rest.split_at(nv);
        let (energies, rest) = rest.split_at(2);
        let (rotation, position) = rest.split_at(9);
        let mass: Vec<&[f64]> = mass.chunks(nv).collect();
        let what = |f: &str| format!("{stem}: symbolic {f}");
        let pin = |x: &[f64]| robot.v_to_pinocchio(x);
        for (name, got, want) in [
            ("inverse dynamics", pin(tau_got), sample.rnea.clone()),
            (
                "mass matrix",
                robot.matrix_to_pinocchio(&mass).concat(),
                sample.crba.concat(),
            ),
            ("bias", pin(bias), sample.nle.clone()),
            ("gravity", pin(gravity), sample.gravity.clone()),
            ("forward dynamics", pin(&accelerations), sample.aba.clone()),
            (
                "energy (T, V)",
                energies.to_vec(),
                vec![sample.kinetic_energy, sample.potential_energy],
            ),
        ] {
            DYNAMICS.check(&what(name), s, &got, &want);
            let entry = worst.entry(name).or_default();
            *entry = entry.max(largest_difference(&got, &want));
        }
        let rotation: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|k| rotation[3 * i + k]));
        let placed = sharnir_tests::pinocchio::place(
            (rotation, [position[0], position[1], position[2]]),
            &ee,
        );
        shared::PLACEMENT.check(
            &what("end-effector placement"),
            s,
            &shared::placement_entries(&placed),
            &shared::placement_entries(&sample.ee_placement),
        );
    }
    let worst: Vec<String> = worst.iter().map(|(f, d)| format!("{f} {d:.1e}")).collect();
    println!(
        "{stem} (floating, symbolic): largest differences from Pinocchio: {}",
        worst.join(", ")
    );
}

#[test]
fn anymal_symbolic() {
    symbolic_agrees_with_pinocchio("anymal", "anymal.urdf");
}

#[test]
fn hyq_symbolic() {
    symbolic_agrees_with_pinocchio("hyq", "hyq_no_sensors.urdf");
}

#[test]
fn talos_symbolic() {
    symbolic_agrees_with_pinocchio("talos", "talos_reduced.urdf");
}

/// Talos's Coriolis matrix as the plan ships it. It is large enough that
/// its two factorised forms are costed side by side without angle sums
/// (`CONTRACTED_CORIOLIS_UP_TO` in `sharnir-codegen`'s plan), the only
/// robot here that takes that path: whichever form wins, `C(q, v) v` is
/// Pinocchio's velocity-dependent forces, `nle − gravity`, at its states.
#[test]
fn talos_coriolis_matrix_as_planned_gives_pinocchios_velocity_forces() {
    use sharnir_codegen::plan::outputs::Outputs;
    use sharnir_codegen::{plan, PlanOptions};
    use sharnir_mech::{Input, Mechanism, ParameterMode};
    let robot = Robot::convert("talos", "talos_reduced.urdf", reference("talos"));
    let mut mechanism = Mechanism::from_spec(&robot.conversion.spec, ParameterMode::Folded)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let options = PlanOptions {
        outputs: Some(Outputs::parse_list("coriolis_matrix").expect("a known name")),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).unwrap_or_else(|e| panic!("{e}"));
    let nv = mechanism.dof();
    for (s, sample) in robot.reference.samples.iter().enumerate() {
        let q = robot.q_to_sharnir(&sample.q);
        let v = robot.v_to_sharnir(&sample.v);
        let env = |symbol: &Input| match symbol {
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            _ => None,
        };
        let c = plan.evaluate("coriolis_matrix", &env).expect("evaluates");
        let got: Vec<f64> = c
            .chunks(nv)
            .map(|row| row.iter().zip(&v).map(|(c, v)| c * v).sum())
            .collect();
        let want: Vec<f64> = sample
            .nle
            .iter()
            .zip(&sample.gravity)
            .map(|(n, g)| n - g)
            .collect();
        DYNAMICS.check(
            "talos: planned C(q, v) v against nle − gravity",
            s,
            &robot.v_to_pinocchio(&got),
            &want,
        );
    }
}

/// Talos's derivative functions as the plan ships them (parameters
/// folded), against Pinocchio's analytical derivatives at the first
/// states of its fixture (`tests/fixtures/talos_derivatives.json`), every
/// matrix to 1e-9 of its largest entry: a floating base whose derivatives
/// are taken on the right, in the base frame, as Pinocchio's `integrate`
/// perturbs it.
#[test]
fn talos_derivatives_as_planned_are_pinocchios() {
    use sharnir_codegen::plan::outputs::Outputs;
    use sharnir_codegen::{plan, PlanOptions};
    use sharnir_mech::{Mechanism, ParameterMode};
    let robot = Robot::convert("talos", "talos_reduced.urdf", reference("talos"));
    let derivatives = shared::derivative_reference("talos");
    let mut mechanism = Mechanism::from_spec(&robot.conversion.spec, ParameterMode::Folded)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let options = PlanOptions {
        outputs: Some(
            Outputs::parse_list(
                "inverse_dynamics_derivatives,gravity_derivatives,mass_matrix_inverse,\
                 forward_dynamics_derivatives",
            )
            .expect("known names"),
        ),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).unwrap_or_else(|e| panic!("{e}"));
    let nv = mechanism.dof();
    let check = Dynamics::Normwise(1e-9);
    let no_parameters = std::collections::BTreeMap::new();
    for (s, (sample, want)) in robot.reference.samples.iter().zip(&derivatives).enumerate() {
        let q = robot.q_to_sharnir(&sample.q);
        let v = robot.v_to_sharnir(&sample.v);
        let a = robot.v_to_sharnir(&sample.a);
        let tau = robot.v_to_sharnir(&sample.tau);
        let env = sharnir_tests::inputs::environment(&no_parameters, &q, &v, &a, &tau);
        let matrices = |function: &str| -> Vec<Vec<f64>> {
            let values = plan.evaluate(function, &env).expect("evaluates");
            values
                .chunks(nv * nv)
                .map(|m| {
                    let rows: Vec<&[f64]> = m.chunks(nv).collect();
                    robot.matrix_to_pinocchio(&rows).concat()
                })
                .collect()
        };
        let inverse = matrices("inverse_dynamics_derivatives");
        let forward = matrices("forward_dynamics_derivatives");
        let gravity = matrices("gravity_derivatives");
        let inverse_mass = matrices("mass_matrix_inverse");
        for (name, got, want) in [
            ("∂τ/∂q", &inverse[0], &want.rnea_dq),
            ("∂τ/∂v", &inverse[1], &want.rnea_dv),
            ("∂q̈/∂q", &forward[0], &want.aba_dq),
            ("∂q̈/∂v", &forward[1], &want.aba_dv),
            ("∂q̈/∂τ", &forward[2], &want.minv),
            ("mass_matrix_inverse", &inverse_mass[0], &want.minv),
            ("gravity_derivatives", &gravity[0], &want.gravity_dq),
        ] {
            check.check(&format!("talos: planned {name}"), s, got, &want.concat());
        }
    }
}
