//! The generated loop-closure functions of `four_bar` (`constraints`,
//! `constraint_jacobian`, `constraint_bias`) against the numeric loop
//! oracle of `support/loop_oracle.rs`, written apart from the symbolic
//! derivation, and against finite differences of themselves:
//!
//! - `Ψ(q)` against the oracle at 50 seeded random states (not assembled:
//!   `Ψ`, `J` and `J̇ v` are exact functions everywhere), to 1e-12
//!   absolute; the rows the module drops (`pin.fz`, `pin.mx`, `pin.my`, zero
//!   for a planar loop) vanish in the oracle too, to 1e-12;
//! - `J` column by column against fourth-order central differences of `Ψ`
//!   along each velocity coordinate (`q̇ = v` here: every joint is
//!   revolute), to 1e-7 relative to `max(1, ‖expected‖∞)`;
//! - `J̇ v` against fourth-order central differences of `J(q + s v) v` in
//!   `s`, to 1e-6 relative;
//! - `Ψ(INITIAL_POSITIONS)` below 1e-12 (the spec's `[initial]` is an
//!   assembled configuration), in the module and in the oracle;
//! - the structure read off the spec by hand: one cut joint `pin`, two rows
//!   `pin.fx`, `pin.fy`;
//! - the oracle's two ways of placing the spec bodies (numeric tree plus
//!   child origins, and its own forward kinematics from the spec) agree to
//!   1e-12.
//!
//! And a loop whose rows no motion changes: a carriage on two parallel
//! prismatic rails tilted by `rpy = [0.1, 0.2, 0.3]`, the second rail's
//! `child_origin` written with the tilt's sines and cosines, so that its
//! orientation rows are constants of rounding size and the rest have a
//! Jacobian of rounding size. `Mechanism::from_spec` accepts it with one
//! degree of freedom (`Mechanism::loops`), without those orientation rows,
//! and `Ψ` stays below 1e-12 as the carriage slides.

use sharnir_cas::Program;
use sharnir_generated::four_bar as m;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::loop_oracle::LoopOracle;
use sharnir_tests::oracle::{load_spec, relative_error, States};

/// Random states per property.
const STATES: usize = 50;

/// Central difference of `f` at `s = 0` with step `h`, fourth order.
fn derivative(f: impl Fn(f64) -> Vec<f64>, h: f64) -> Vec<f64> {
    let (p1, m1, p2, m2) = (f(h), f(-h), f(2.0 * h), f(-2.0 * h));
    (0..p1.len())
        .map(|i| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * h))
        .collect()
}

/// `x + s·dx`, entrywise.
fn along<const N: usize>(x: &[f64; N], dx: &[f64; N], s: f64) -> [f64; N] {
    core::array::from_fn(|i| x[i] + s * dx[i])
}

/// Largest absolute entry-wise difference; infinite on NaN or a length
/// mismatch.
fn absolute_error(got: &[f64], expected: &[f64]) -> f64 {
    if got.len() != expected.len() || got.iter().chain(expected).any(|x| !x.is_finite()) {
        return f64::INFINITY;
    }
    got.iter()
        .zip(expected)
        .map(|(g, e)| (g - e).abs())
        .fold(0.0, f64::max)
}

fn oracle() -> LoopOracle {
    LoopOracle::new(&load_spec("four_bar"))
}

/// The seeded random states of every property of this file.
fn states(seed: u64) -> impl Iterator<Item = ([f64; m::NQ], [f64; m::NV])> {
    let oracle = oracle();
    let mut states = States::seeded(seed);
    (0..STATES).map(move |_| {
        let (q, qd, _) = oracle.oracle().sample::<{ m::NQ }, { m::NV }>(&mut states);
        (q, qd)
    })
}

#[test]
fn constraints_match_the_loop_oracle() {
    let oracle = oracle();
    let p = m::Params::default();
    for (q, _) in states(0x100F_0001) {
        let got = m::constraints(&p, &q);
        let want = oracle.constraints(&q, &m::CONSTRAINT_NAMES);
        let err = absolute_error(&got, &want);
        assert!(
            err < 1e-12,
            "Ψ at q = {q:?} off by {err:e}\n  got  {got:?}\n  want {want:?}"
        );
        for row in oracle.dropped_rows(&q, &m::CONSTRAINT_NAMES) {
            assert!(
                row.value.abs() < 1e-12,
                "row {} is dropped from the module but is {:e} at q = {q:?}",
                row.name,
                row.value
            );
        }
    }
}

#[test]
fn constraint_jacobian_is_the_derivative_of_the_constraints() {
    let p = m::Params::default();
    for (q, _) in states(0x100F_0002) {
        let jacobian = m::constraint_jacobian(&p, &q);
        for k in 0..m::NV {
            // q̇ = v for this spec: the coordinate rates are the velocities.
            let mut unit = [0.0; m::NV];
            unit[k] = 1.0;
            assert_eq!(m::coordinate_rates(&p, &q, &unit), unit);
            let want = derivative(|s| m::constraints(&p, &along(&q, &unit, s)).to_vec(), 1e-3);
            let got: Vec<f64> = jacobian.iter().map(|row| row[k]).collect();
            let err = relative_error(&got, &want);
            assert!(
                err < 1e-7,
                "column {k} of J at q = {q:?} off by {err:e}\n  got  {got:?}\n  want {want:?}"
            );
        }
    }
}

#[test]
fn constraint_bias_is_the_rate_of_the_jacobian_along_the_motion() {
    let p = m::Params::default();
    for (q, v) in states(0x100F_0003) {
        let want = derivative(
            |s| {
                let j = m::constraint_jacobian(&p, &along(&q, &v, s));
                j.iter()
                    .map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum())
                    .collect()
            },
            1e-3,
        );
        let got = m::constraint_bias(&p, &q, &v);
        let err = relative_error(&got, &want);
        assert!(
            err < 1e-6,
            "J̇ v at q = {q:?}, v = {v:?} off by {err:e}\n  got  {got:?}\n  want {want:?}"
        );
    }
}

#[test]
fn the_initial_configuration_is_assembled() {
    let p = m::Params::default();
    let q = m::INITIAL_POSITIONS;
    let psi = m::constraints(&p, &q);
    assert!(
        psi.iter().all(|x| x.abs() < 1e-12),
        "Ψ(INITIAL_POSITIONS) = {psi:?}"
    );
    let rows = oracle().rows(&q);
    assert!(
        rows.iter().all(|r| r.value.abs() < 1e-12),
        "oracle rows at INITIAL_POSITIONS: {rows:?}"
    );
}

/// Read off `specs/four_bar.spec` by hand: the coupler–rocker `pin` is the
/// only joint the breadth-first tree leaves out, and a revolute joint about
/// z in a loop moving in the x–y plane keeps only its in-plane forces.
#[test]
fn the_loop_has_one_cut_joint_with_two_rows() {
    assert_eq!(m::NC, 2);
    assert_eq!(m::CONSTRAINT_NAMES, ["pin.fx", "pin.fy"]);
    assert_eq!(m::N_CUT, 1);
    assert_eq!(m::CUT_JOINTS, ["pin"]);
    assert_eq!(oracle().cut_joints(), ["pin"]);
}

#[test]
fn the_oracle_places_bodies_consistently() {
    let oracle = oracle();
    for (q, _) in states(0x100F_0004) {
        let a = oracle.body_poses(&q);
        let b = oracle.independent_body_poses(&q);
        for (name, (a, b)) in oracle.body_names().iter().zip(a.iter().zip(&b)) {
            let flat = |f: &sharnir_tests::geometry::Frame| {
                [f.rotation.concat(), f.translation.to_vec()].concat()
            };
            let err = absolute_error(&flat(a), &flat(b));
            assert!(err < 1e-12, "{name} at q = {q:?}: {a:?} vs {b:?}");
        }
    }
}

/// A carriage on two parallel rails, both tilted by the same `rpy`: the
/// second rail's `child_origin` is written with the sines and cosines of
/// the tilt, so its orientation rows are constants of rounding size and its
/// other rows change with the slide only by rounding.
const RAILS: &str = r#"# A carriage on two parallel rails, both tilted by the same rpy.
[mechanism]
name = "rails"
gravity = [0, 0, -9.81]

[[body]]
name = "carriage"
mass = 1
inertia = [0.1, 0.1, 0.1]

[[joint]]
name = "rail1"
type = "prismatic"
parent = "ground"
child = "carriage"
axis = [1, 0, 0]
origin = { xyz = [0, 0, 0], rpy = [0.1, 0.2, 0.3] }

[[joint]]
name = "rail2"
type = "prismatic"
parent = "ground"
child = "carriage"
axis = [1, 0, 0]
origin = { xyz = [0, 0.5, 0], rpy = [0.1, 0.2, 0.3] }
child_origin = { xyz = ["0.5*sin(0.3)*cos(0.2)", "0.5*(sin(0.1)*sin(0.2)*sin(0.3) + cos(0.1)*cos(0.3))", "0.5*(cos(0.1)*sin(0.2)*sin(0.3) - sin(0.1)*cos(0.3))"] }
"#;

#[test]
fn a_carriage_on_two_tilted_parallel_rails_slides() {
    let spec = sharnir_spec::parse(sharnir_spec::Source {
        name: "rails.spec".to_owned(),
        text: RAILS.to_owned(),
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    let mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime)
        .unwrap_or_else(|e| panic!("the rails are refused: {e:?}"));
    let loops = mechanism.loops.as_ref().expect("the rails close a loop");
    assert_eq!(
        loops.mobility.degrees_of_freedom(),
        1,
        "{:?}",
        loops.mobility
    );
    let rows: Vec<&str> = loops.closure.rows.iter().map(|r| r.name.as_str()).collect();
    assert!(
        rows.iter().all(|r| !r.starts_with("rail2.m")),
        "the orientation rows are constants of rounding size, yet kept: {rows:?}"
    );
    // The carriage slides along the rails with every row at zero.
    let constraints = Program::lower(&mechanism.pool, &loops.closure.constraints);
    for s in [-1.0, -0.25, 0.0, 0.5, 2.0] {
        let psi = constraints
            .eval(&|symbol: &Input| match symbol {
                Input::Position(0) => Some(s),
                _ => None,
            })
            .expect("Ψ reads only the slide");
        assert!(
            psi.iter().all(|x| x.abs() < 1e-12),
            "Ψ = {psi:?} with the carriage at {s}"
        );
    }
}
