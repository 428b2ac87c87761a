//! The drives' armature (`armature` on a joint, Pinocchio's
//! `model.armature`: `M += diag(a)` on the joint's velocity coordinates)
//! through every formalism that derives the dynamics: Newton–Euler from
//! the bodies' own and the base inertias, the CRBA's four forms, the mass
//! matrix read off Newton–Euler, the joint-coordinate (Lagrange)
//! formalism, Telegin's on a serial chain, Vereshchagin's separate-bodies
//! method and the energy, each against the numeric oracle
//! (`sharnir-numeric`, which adds the armature on its own: `τ += a q̈` in
//! its RNEA, `M += diag(a)` in its CRBA, `D += a` in its ABA, `½ a q̇²` in
//! its energy) at random states, to 1e-10 relative; and the plan's shipped
//! programs (the cheapest of those) to the same. One closed form pins the
//! convention: a pendulum's `M = I_zz + m c² + a`.

use sharnir_cas::Id;
use sharnir_codegen::{plan, PlanOptions};
use sharnir_mech::formalisms::crba::{self, FirstStep};
use sharnir_mech::formalisms::energy::{energy, Heights};
use sharnir_mech::formalisms::rnea::{self, PointAcceleration};
use sharnir_mech::formalisms::{joint_space, lagrange, telegin, vereshchagin};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::inputs::environment;
use sharnir_tests::oracle::{relative_error, Oracle, States};

/// Agreement with the oracle, relative to `max(1, ‖expected‖∞)`: both
/// sides are double precision, a few hundred operations apart.
const TOLERANCE: f64 = 1e-10;

/// Random states per mechanism.
const STATES: usize = 4;

/// A serial chain of one-coordinate joints (Telegin's formalism applies),
/// armatures given as numbers and as a runtime parameter.
const CHAIN: &str = r#"
    [mechanism]
    name = "armature_chain"
    gravity = [0, 0, -9.81]

    [parameters]
    rotor = 0.35

    [[body]]
    name = "l1"
    mass = 2.0
    com = [0.1, 0.02, 0.3]
    inertia = { xx = 0.02, yy = 0.03, zz = 0.04, xy = 0.001 }

    [[body]]
    name = "l2"
    mass = 1.5
    com = [0.25, 0, 0.01]
    inertia = [0.01, 0.02, 0.015]

    [[body]]
    name = "l3"
    mass = 0.8
    com = [0, 0.1, 0]
    inertia = [0.004, 0.003, 0.005]

    [[joint]]
    name = "j1"
    type = "revolute"
    parent = "ground"
    child = "l1"
    axis = [0, 0, 1]
    armature = "rotor"

    [[joint]]
    name = "j2"
    type = "revolute"
    parent = "l1"
    child = "l2"
    axis = [0, 1, 0]
    origin = { xyz = [0, 0, 0.4] }
    armature = 0.12

    [[joint]]
    name = "j3"
    type = "prismatic"
    parent = "l2"
    child = "l3"
    axis = [1, 0, 0]
    origin = { xyz = [0.5, 0, 0] }
    armature = 2.5
"#;

/// Every multi-coordinate joint type with an armature (a scalar for all
/// coordinates, or one per coordinate), and a follower with its own.
const TREE: &str = r#"
    [mechanism]
    name = "armature_tree"
    gravity = [0, -9.81, 0]

    [[body]]
    name = "base"
    mass = 5.0
    com = [0.01, 0.02, 0.03]
    inertia = [0.2, 0.3, 0.25]

    [[body]]
    name = "arm"
    mass = 1.2
    com = [0.2, 0, 0]
    inertia = [0.01, 0.02, 0.02]

    [[body]]
    name = "ball"
    mass = 0.9
    com = [0, 0, 0.15]
    inertia = [0.003, 0.004, 0.002]

    [[body]]
    name = "slider"
    mass = 0.7
    com = [0.05, 0.05, 0]
    inertia = [0.002, 0.002, 0.003]

    [[body]]
    name = "finger"
    mass = 0.2
    com = [0, 0.03, 0]
    inertia = [0.0004, 0.0003, 0.0005]

    [[body]]
    name = "twin"
    mass = 0.2
    com = [0, -0.03, 0]
    inertia = [0.0004, 0.0003, 0.0005]

    [[joint]]
    name = "float"
    type = "free"
    parent = "ground"
    child = "base"
    armature = [0.1, 0.2, 0.3, 0.01, 0.02, 0.03]

    [[joint]]
    name = "shoulder"
    type = "universal"
    parent = "base"
    child = "arm"
    axis = [0, 0, 1]
    axis2 = [0, 1, 0]
    origin = { xyz = [0.1, 0, 0.2] }
    armature = [0.05, 0.07]

    [[joint]]
    name = "wrist"
    type = "spherical"
    parent = "arm"
    child = "ball"
    origin = { xyz = [0.4, 0, 0] }
    armature = 0.011

    [[joint]]
    name = "table"
    type = "planar"
    parent = "base"
    child = "slider"
    origin = { xyz = [0, 0.3, 0] }
    armature = [0.4, 0.5, 0.006]

    [[joint]]
    name = "grip"
    type = "prismatic"
    parent = "arm"
    child = "finger"
    axis = [0, 1, 0]
    origin = { xyz = [0.3, 0, 0] }
    armature = 0.3

    [[joint]]
    name = "mirror"
    type = "prismatic"
    parent = "arm"
    child = "twin"
    axis = [0, 1, 0]
    origin = { xyz = [0.3, 0, 0] }
    mimic = { joint = "grip", multiplier = -1.5, offset = 0.01 }
    armature = 0.2
"#;

fn parse(text: &str) -> sharnir_spec::Spec {
    let source = sharnir_spec::Source {
        name: "armature.spec".to_owned(),
        text: text.to_owned(),
    };
    sharnir_spec::parse(source).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Every formalism's outputs as roots of one pool.
struct Derived {
    /// Joint forces: Newton–Euler (own, base, acceleration field), the
    /// joint-coordinate formalism, Telegin's where it applies.
    inverse: Vec<(&'static str, Vec<Id>)>,
    /// Mass matrices, row-major.
    mass: Vec<(&'static str, Vec<Id>)>,
    /// Forward dynamics (separate bodies where it applies, and the
    /// joint-coordinate `L D Lᵀ` solve).
    forward: Vec<(&'static str, Vec<Id>)>,
    /// `[T, V]`.
    energy: Vec<Id>,
}

fn derive(mechanism: &mut Mechanism) -> Derived {
    let own = rnea::inverse_dynamics(mechanism, PointAcceleration::CrossProducts);
    let base = rnea::inverse_dynamics_regrouped(mechanism, PointAcceleration::CrossProducts);
    let field = rnea::inverse_dynamics(mechanism, PointAcceleration::AccelerationField);
    let read_off = joint_space::joint_space(&mut mechanism.pool, &own);
    let terms = lagrange::joint_space(mechanism);
    let lagrange_tau = lagrange::inverse_dynamics(&mut mechanism.pool, &terms);
    let lagrange_forward = lagrange::forward_dynamics(&mut mechanism.pool, &terms);
    let mut inverse = vec![
        ("Newton–Euler", own),
        ("Newton–Euler, base inertias", base),
        ("Newton–Euler, acceleration field", field),
        ("Lagrange", lagrange_tau),
    ];
    if telegin::applies(mechanism).is_ok() {
        let tau = telegin::inverse_dynamics(mechanism).unwrap_or_else(|e| panic!("{e}"));
        inverse.push(("Telegin", tau));
    }
    let mass = vec![
        (
            "CRBA",
            crba::mass_matrix(mechanism, FirstStep::Carried).concat(),
        ),
        (
            "CRBA in parent",
            crba::mass_matrix(mechanism, FirstStep::InParent).concat(),
        ),
        (
            "CRBA, base inertias",
            crba::mass_matrix_regrouped(mechanism, FirstStep::Carried).concat(),
        ),
        (
            "CRBA in parent, base inertias",
            crba::mass_matrix_regrouped(mechanism, FirstStep::InParent).concat(),
        ),
        ("read off Newton–Euler", read_off.mass_matrix.concat()),
        ("Lagrange", terms.mass_matrix.concat()),
    ];
    let mut forward = vec![("Lagrange", lagrange_forward)];
    if !mechanism.has_couplings() {
        let own = vereshchagin::forward_dynamics(mechanism).unwrap_or_else(|e| panic!("{e}"));
        let base =
            vereshchagin::forward_dynamics_regrouped(mechanism).unwrap_or_else(|e| panic!("{e}"));
        forward.push(("Vereshchagin", own));
        forward.push(("Vereshchagin, base inertias", base));
    }
    let (t, v) = energy(mechanism, Heights::OfCentres);
    Derived {
        inverse,
        mass,
        forward,
        energy: vec![t, v],
    }
}

/// Checks every formalism and the shipped programs of `text` against the
/// oracle; returns how many comparisons were made.
fn check_against_oracle(text: &str, expect_telegin: bool) -> usize {
    let spec = parse(text);
    let oracle = Oracle::for_parsed_spec(&spec);
    let values = spec.parameter_values();
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Runtime).unwrap_or_else(|e| panic!("{e:?}"));
    let derived = derive(&mut mechanism);
    assert_eq!(
        derived.inverse.iter().any(|(name, _)| *name == "Telegin"),
        expect_telegin
    );
    let planned = plan(&mut mechanism, &PlanOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let (nq, nv) = (mechanism.nq(), mechanism.dof());
    let mut states = States::seeded(0xa2a7);
    let mut compared = 0;
    for _ in 0..STATES {
        let (q, qd, qdd) = oracle.sample::<32, 32>(&mut states);
        let (q, qd, qdd) = (&q[..nq], &qd[..nv], &qdd[..nv]);
        let tau_in: Vec<f64> = qdd.iter().map(|x| 3.0 * x - 1.0).collect();
        let env = environment(&values, q, qd, qdd, &tau_in);
        let tau = oracle.inverse_dynamics(q, qd, qdd);
        let mass = oracle.mass_matrix(q).concat();
        let forward = oracle.forward_dynamics(q, qd, &tau_in);
        let (t, v) = oracle.energy(q, qd);
        let pool = &mechanism.pool;
        let mut check = |what: String, roots: &[Id], want: &[f64]| {
            let got = pool
                .eval(roots, &env)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let error = relative_error(&got, want);
            assert!(
                error < TOLERANCE,
                "{what} differs from the oracle by {error:e}: {got:?} vs {want:?}"
            );
            compared += 1;
        };
        for (name, roots) in &derived.inverse {
            check(format!("τ by {name}"), roots, &tau);
        }
        for (name, roots) in &derived.mass {
            check(format!("M by {name}"), roots, &mass);
        }
        for (name, roots) in &derived.forward {
            check(format!("q̈ by {name}"), roots, &forward);
        }
        check("energy".to_owned(), &derived.energy, &[t, v]);
        for (function, want) in [
            ("inverse_dynamics", tau.clone()),
            ("mass_matrix", mass.clone()),
            ("forward_dynamics", forward.clone()),
            ("energy", vec![t, v]),
        ] {
            let got = planned
                .evaluate(function, &env)
                .unwrap_or_else(|| panic!("`{function}` cannot be evaluated"));
            let error = relative_error(&got, &want);
            assert!(
                error < TOLERANCE,
                "shipped `{function}` differs by {error:e}"
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn every_formalism_adds_the_armature_of_a_serial_chain() {
    assert_eq!(check_against_oracle(CHAIN, true), STATES * 19);
}

#[test]
fn every_formalism_adds_the_armature_of_multi_coordinate_joints_and_followers() {
    // No separate bodies (a follower), no Telegin (a tree).
    assert_eq!(check_against_oracle(TREE, false), STATES * 16);
}

/// Without its armature the chain's dynamics differ: the check above can
/// fail.
#[test]
fn the_armature_changes_the_dynamics() {
    let with = parse(CHAIN);
    let without = parse(&CHAIN.replace("armature = 0.12", "armature = 0"));
    let (q, qd, qdd) = ([0.3, -0.2, 0.1], [0.5, 1.0, -0.4], [1.0, 2.0, 3.0]);
    let with = Oracle::for_parsed_spec(&with).inverse_dynamics(&q, &qd, &qdd);
    let without = Oracle::for_parsed_spec(&without).inverse_dynamics(&q, &qd, &qdd);
    assert!((with[1] - without[1] - 0.12 * 2.0).abs() < 1e-12);
    assert!((with[0] - without[0]).abs() < 1e-12 && (with[2] - without[2]).abs() < 1e-12);
}

/// A pendulum about z, centre of mass `c` off the axis: `M = I_zz + m c² + a`.
#[test]
fn a_pendulum_has_its_armature_on_the_diagonal() {
    let spec = parse(
        r#"
        [mechanism]
        name = "pendulum"
        gravity = [0, -9.81, 0]
        [[body]]
        name = "rod"
        mass = 2.0
        com = [0.5, 0, 0]
        inertia = [0.15, 0.2, 0.3]
        [[joint]]
        name = "pivot"
        type = "revolute"
        parent = "ground"
        child = "rod"
        axis = [0, 0, 1]
        armature = 0.125
        "#,
    );
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Folded).unwrap_or_else(|e| panic!("{e:?}"));
    let mass = crba::mass_matrix(&mut mechanism, FirstStep::Carried);
    let value = mechanism
        .pool
        .eval(&[mass[0][0]], &|_: &Input| None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!((value[0] - (0.3 + 2.0 * 0.25 + 0.125)).abs() < 1e-14);
}

/// The spec's checks: one value or one per coordinate, none negative, none
/// on a cut joint.
#[test]
fn bad_armatures_are_refused_where_they_are_written() {
    let refused = |from: &str, to: &str, message: &str| {
        let text = TREE.replacen(from, to, 1);
        let source = sharnir_spec::Source {
            name: "armature.spec".to_owned(),
            text,
        };
        let error = sharnir_spec::parse(source).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains(message)),
            "{to}: {error:?}"
        );
    };
    refused(
        "armature = [0.05, 0.07]",
        "armature = [0.05, 0.07, 0.1]",
        "has 3 values for 2 coordinates",
    );
    refused(
        "armature = 0.011",
        "armature = -0.011",
        "armature of joint `wrist` is negative",
    );
    refused("armature = 0.011", "armature = []", "`armature`");
}
