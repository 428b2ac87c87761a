//! Coupled (`mimic`) joints in closed form: facts about a follower that hold
//! whatever the rest of the mechanism does, so they check the coupling
//! without any oracle. (The generated modules with couplings are also
//! checked against `sharnir-numeric`'s `CoupledTree` by the oracle tests, the
//! 200 random mechanisms include followers, and `tests/pinocchio.rs` checks
//! the Panda with free fingers against Pinocchio's with fixed ones.)
//!
//! Tolerance: 1e-12 relative to `max(1, ‖expected‖∞)`.

use sharnir_codegen::{generate, generate_with, Method};
use sharnir_generated::panda_gripper as gripper;
use sharnir_mech::formalisms::rnea::PointAcceleration;
use sharnir_mech::formalisms::{joint_space, rnea};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-12;

/// The Panda's finger coordinate moves both fingers, 15 g each, in pure
/// translation along opposite directions of the hand: its diagonal mass is
/// their total mass, its gravity force is zero (what one finger gains in
/// height the other loses), and the fingers' origins are `2 q` apart.
#[test]
fn panda_fingers_move_as_one_coordinate() {
    let p = gripper::Params::default();
    let oracle = Oracle::for_spec("panda_gripper");
    let finger = gripper::NV - 1;
    assert_eq!(gripper::COORDINATE_NAMES[finger], "panda_finger_joint1");
    let body = |name: &str| {
        gripper::BODY_NAMES
            .iter()
            .position(|b| *b == name)
            .expect("a finger")
    };
    let (left, right) = (body("panda_leftfinger"), body("panda_rightfinger"));
    let mut states = States::seeded(0x3141);
    for _ in 0..20 {
        let (mut q, _, _) = oracle.sample::<{ gripper::NQ }, { gripper::NV }>(&mut states);
        q[finger] = 0.04 * (q[finger] + 0.5);
        let m = gripper::mass_matrix(&p, &q);
        let err = relative_error(&[m[finger][finger]], &[0.03]);
        assert!(
            err < TOLERANCE,
            "finger mass {} off by {err:e}",
            m[finger][finger]
        );
        let g = gripper::gravity(&p, &q);
        assert!(g[finger].abs() < TOLERANCE, "finger gravity {}", g[finger]);
        let poses = gripper::body_poses(&p, &q);
        let gap: f64 = (0..3)
            .map(|i| (poses[left].position[i] - poses[right].position[i]).powi(2))
            .sum::<f64>()
            .sqrt();
        let err = relative_error(&[gap], &[2.0 * q[finger]]);
        assert!(err < TOLERANCE, "finger gap {gap} for q = {}", q[finger]);
    }
}

/// Two gears on parallel shafts, the second turning at −2 times the first
/// and 0.3 rad ahead: its inertia counts four times on the first shaft, its
/// pose follows `−2 q + 0.3`, and an unbalanced mass on it feels gravity
/// through the ratio.
const GEAR_TRAIN: &str = r#"
[mechanism]
name = "gear_train"
gravity = [0, "-g", 0]

[parameters]
g = 9.81

[[body]]
name = "pinion"
mass = 1.0
inertia = [0.01, 0.01, 0.02]

[[body]]
name = "wheel"
mass = 2.0
com = [0.1, 0, 0]
inertia = [0.05, 0.05, 0.08]

[[joint]]
name = "drive"
type = "revolute"
parent = "ground"
child = "pinion"
axis = [0, 0, 1]

[[joint]]
name = "driven"
type = "revolute"
parent = "ground"
child = "wheel"
axis = [0, 0, 1]
origin = { xyz = [0.3, 0, 0] }
mimic = { joint = "drive", multiplier = -2, offset = 0.3 }
"#;

fn gear_train() -> sharnir_spec::Spec {
    sharnir_spec::parse(sharnir_spec::Source {
        name: "gear_train.spec".to_owned(),
        text: GEAR_TRAIN.to_owned(),
    })
    .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_gear_train_has_one_degree_of_freedom() {
    let spec = gear_train();
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Folded).expect("valid");
    assert_eq!((mechanism.nq(), mechanism.dof()), (1, 1));
    let tau = rnea::inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
    let terms = joint_space::joint_space(&mut mechanism.pool, &tau);
    // About the wheel's shaft: 0.08 + 2·0.1² = 0.1 kg·m².
    let (pinion, wheel) = (0.02, 0.08 + 2.0 * 0.1 * 0.1);
    for q in [-1.0, 0.0, 0.4, 2.5] {
        let (qd, qdd) = (0.7, -1.3);
        let env = |symbol: &Input| match symbol {
            Input::Position(0) => Some(q),
            Input::Velocity(0) => Some(qd),
            Input::Acceleration(0) => Some(qdd),
            _ => None,
        };
        let roots = [tau[0], terms.mass_matrix[0][0], terms.gravity[0]];
        let [tau, mass, gravity] =
            <[f64; 3]>::try_from(mechanism.pool.eval(&roots, &env).expect("bound"))
                .expect("three values");
        // The wheel's centre of mass at angle θ = −2q + 0.3 has height
        // 0.1 sin θ; V = 2 g 0.1 sin θ, ∂V/∂q = −2 · 2 g 0.1 cos θ.
        let theta = -2.0 * q + 0.3;
        let want_gravity = -4.0 * 9.81 * 0.1 * theta.cos();
        let want_mass = pinion + 4.0 * wheel;
        let got = [mass, gravity, tau];
        let want = [want_mass, want_gravity, want_mass * qdd + want_gravity];
        let err = relative_error(&got, &want);
        assert!(err < TOLERANCE, "q = {q}: got {got:?}, want {want:?}");
    }
}

#[test]
fn coupled_joints_refuse_the_independent_joint_formalisms() {
    let spec = gear_train();
    let module = |method: Option<Method>| {
        let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Folded).expect("valid");
        match method {
            Some(method) => generate_with(&mut mechanism, method),
            None => generate(&mut mechanism),
        }
    };
    let refused = |method| module(Some(method)).err().map(|e| e.to_string());
    assert!(refused(Method::Vereshchagin).is_some_and(
        |e| e.contains("needs independent joints, but joint `driven` follows another")
    ));
    let chain = sharnir_spec::parse(sharnir_spec::Source {
        name: "geared_chain.spec".to_owned(),
        text: GEAR_TRAIN.replace(
            "parent = \"ground\"\nchild = \"wheel\"",
            "parent = \"pinion\"\nchild = \"wheel\"",
        ),
    })
    .expect("valid");
    let mut mechanism = Mechanism::from_spec(&chain, ParameterMode::Folded).expect("valid");
    let telegin = generate_with(&mut mechanism, Method::Telegin).err();
    assert!(telegin
        .map(|e| e.to_string())
        .is_some_and(|e| e.contains("joint `driven` of `wheel` follows another")));
    let default = module(None).expect("the default handles couplings").source;
    assert!(default.contains("- `forward_dynamics`: the joint-coordinate (Lagrange) formalism."));
    assert!(default.contains("`driven` follows `drive`"));
    let newton_euler = module(Some(Method::NewtonEuler))
        .expect("Newton–Euler")
        .source;
    assert!(newton_euler.contains("coupled joints rule out the separate-bodies method"));
}
