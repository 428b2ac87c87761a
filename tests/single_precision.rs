//! The single-precision twins (`single_precision = true` in
//! `specs/telegin6.spec`: `telegin6_f32`, and with `fused_multiply_add`
//! `telegin6_fma_f32`) against their `f64` modules.
//!
//! The error of a function is `‖y₃₂ − y₆₄‖∞ / ‖y₆₄‖∞`, both modules fed the
//! same inputs (the random state rounded to `f32`, so the error is the
//! twin's own rounding: of its parameters, from `Params::default()`, and of
//! its arithmetic, not that of rounding the state), over `STATES` seeded
//! random states of the test oracle (angles in ±π, the slide in ±0.5 m,
//! rates in ±2, accelerations in ±5). Forward dynamics is fed the `f64`
//! module's torques rounded to `f32`.
//!
//! Measured (`cargo test -p sharnir-tests --test single_precision --
//! --nocapture` prints it; `docs/embedded.md` has the table): the largest
//! error over the 10 000 states, in units of `ε₃₂ = f32::EPSILON =
//! 1.19e-7`, is [`MEASURED`] (the larger of the two twins). The Coriolis
//! matrix and the energy lose more than the others relative to their norm
//! because their entries are sums that cancel (terms larger than the
//! result); forward dynamics amplifies the rounding by the conditioning of
//! `M`.
//!
//! Derivation of the tolerances: each function's tolerance is its measured
//! maximum times [`MARGIN`] = 8, rounded up to a power of two of `ε₃₂`
//! ([`tolerance`]: inverse dynamics and mass matrix 32 ε₃₂ = 3.8e-6, bias
//! 16 ε₃₂, gravity 1 ε₃₂, Coriolis matrix 128 ε₃₂, energy 64 ε₃₂, forward
//! dynamics 256 ε₃₂ = 3.1e-5). The margin covers states outside the sample
//! (20 times as many, 200 000, raised the largest errors by at most 1.9×:
//! the energy's, to 12.6 ε₃₂; the Coriolis matrix's to 25.3 ε₃₂), the
//! twins' own `sin_cos` (0.64 ulp measured below, 2 ulp allowed), and a change of the
//! generator that reorders the sums. The emulated Cortex-M4F run (`tests/firmware/tests/qemu.rs`)
//! is held to the same tolerances.

use sharnir_generated::{
    telegin6 as double, telegin6_f32 as single, telegin6_fma as double_fma,
    telegin6_fma_f32 as single_fma,
};
use sharnir_tests::oracle::{Oracle, States};

/// Machine epsilon of `f32`, the unit of the tolerances.
const EPS32: f64 = f32::EPSILON as f64;

/// The largest error measured over [`STATES`] states, in `ε₃₂`, per
/// function: the larger of the two twins, as this test prints them.
const MEASURED: [(&str, f64); 7] = [
    ("inverse_dynamics", 2.7),
    ("mass_matrix", 2.4),
    ("bias", 1.4),
    ("gravity", 0.1),
    ("coriolis_matrix", 11.6),
    ("energy", 6.6),
    ("forward_dynamics", 20.0),
];

/// The factor between the measured error and the tolerance.
const MARGIN: f64 = 8.0;

/// A function's tolerance: [`MARGIN`] times its [`MEASURED`] error, rounded
/// up to a power of two times `ε₃₂` (zero for a function not measured).
fn tolerance(function: &str) -> f64 {
    MEASURED
        .iter()
        .find(|(name, _)| *name == function)
        .map_or(0.0, |(_, measured)| {
            (MARGIN * measured).log2().ceil().exp2() * EPS32
        })
}

/// Seeded random states measured.
const STATES: usize = 10_000;

fn narrow<const N: usize>(x: &[f64; N]) -> [f32; N] {
    x.map(|v| v as f32)
}

fn widen<const N: usize>(x: &[f32; N]) -> [f64; N] {
    x.map(f64::from)
}

/// `‖single − double‖∞ / ‖double‖∞` (∞ on a length mismatch or a NaN).
fn error(single: &[f32], double: &[f64]) -> f64 {
    if single.len() != double.len() || double.iter().any(|x| x.is_nan()) {
        return f64::INFINITY;
    }
    let scale = double.iter().fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
    single
        .iter()
        .zip(double)
        .map(|(&s, &d)| (f64::from(s) - d).abs())
        .fold(
            0.0,
            |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
        )
        / scale
}

/// The largest error of every function of one twin over [`STATES`] states,
/// by name.
macro_rules! measure {
    ($double:ident, $single:ident) => {{
        let oracle = Oracle::for_spec("telegin6");
        let (pd, ps) = (
            $double::Params::default().derived(),
            $single::Params::default().derived(),
        );
        let mut states = States::seeded(0xF32);
        let mut worst = [
            ("inverse_dynamics", 0.0_f64),
            ("mass_matrix", 0.0),
            ("bias", 0.0),
            ("gravity", 0.0),
            ("coriolis_matrix", 0.0),
            ("energy", 0.0),
            ("forward_dynamics", 0.0),
        ];
        for _ in 0..STATES {
            let (q, qd, qdd) = oracle.sample::<{ $double::NQ }, { $double::NV }>(&mut states);
            let (qs, qds, qdds) = (narrow(&q), narrow(&qd), narrow(&qdd));
            let (q, qd, qdd) = (widen(&qs), widen(&qds), widen(&qdds));
            let tau = $double::inverse_dynamics_with(&pd, &q, &qd, &qdd);
            let taus = narrow(&tau);
            let (kinetic, potential) = $double::energy_with(&pd, &q, &qd);
            let (kinetic_s, potential_s) = $single::energy_with(&ps, &qs, &qds);
            let errors = [
                error(&$single::inverse_dynamics_with(&ps, &qs, &qds, &qdds), &tau),
                error(
                    $single::mass_matrix_with(&ps, &qs).as_flattened(),
                    $double::mass_matrix_with(&pd, &q).as_flattened(),
                ),
                error(
                    &$single::bias_with(&ps, &qs, &qds),
                    &$double::bias_with(&pd, &q, &qd),
                ),
                error(
                    &$single::gravity_with(&ps, &qs),
                    &$double::gravity_with(&pd, &q),
                ),
                error(
                    $single::coriolis_matrix_with(&ps, &qs, &qds).as_flattened(),
                    $double::coriolis_matrix_with(&pd, &q, &qd).as_flattened(),
                ),
                error(&[kinetic_s, potential_s], &[kinetic, potential]),
                error(
                    &$single::forward_dynamics_with(&ps, &qs, &qds, &taus),
                    &$double::forward_dynamics_with(&pd, &q, &qd, &widen(&taus)),
                ),
            ];
            for ((_, w), e) in worst.iter_mut().zip(errors) {
                *w = w.max(e);
            }
        }
        worst
    }};
}

/// Prints the errors of one twin and checks them against the tolerances.
fn check(twin: &str, worst: &[(&str, f64)]) {
    for &(function, e) in worst {
        let tolerance = tolerance(function);
        println!(
            "{twin}::{function}: {e:.2e} = {:.1} ε₃₂ (tolerance {:.0} ε₃₂)",
            e / EPS32,
            tolerance / EPS32
        );
        assert!(e < tolerance, "{twin}::{function} differs by {e:e}");
    }
}

#[test]
fn f32_module_agrees_with_f64_module() {
    let g: f32 = single::Params::default().g;
    assert!((f64::from(g) - double::Params::default().g).abs() < 1e-6);
    check("telegin6_f32", &measure!(double, single));
}

#[test]
fn fused_f32_module_agrees_with_fused_f64_module() {
    check("telegin6_fma_f32", &measure!(double_fma, single_fma));
}

/// The twins' own sine and cosine (`sin_cos`, in `f32` arithmetic, which
/// replaces `libm`'s `sincosf` because that reduces in `f64`): against the
/// `f64` values of the same `f32` argument, at most 2 ulp of 1 (`2 ε₃₂`)
/// within the 256 quarter turns of its exact reduction (every angle from
/// −402 to 402 rad in steps of about 1e-4, and every quarter-turn multiple
/// and its neighbours), and `libm`'s value beyond.
#[test]
fn the_single_precision_sine_and_cosine_are_within_two_ulp() {
    let check = |x: f32, worst: &mut f64| {
        let (s, c) = single::sin_cos(x);
        let (s64, c64) = f64::from(x).sin_cos();
        let error = (f64::from(s) - s64).abs().max((f64::from(c) - c64).abs());
        *worst = worst.max(error);
    };
    let mut worst = 0.0_f64;
    let steps = 8_000_000;
    for i in 0..=steps {
        let x = -402.0 + 804.0 * f64::from(i) / f64::from(steps);
        check(x as f32, &mut worst);
    }
    for k in -256_i32..=256 {
        let x = (f64::from(k) * std::f64::consts::FRAC_PI_2) as f32;
        for neighbour in [
            x,
            f32::from_bits(x.to_bits() + 1),
            f32::from_bits(x.to_bits().saturating_sub(1)),
        ] {
            check(neighbour, &mut worst);
        }
    }
    println!("sin_cos: largest error {:.2} ε₃₂", worst / EPS32);
    assert!(worst <= 2.0 * EPS32, "{worst:e}");
    // Beyond, `libm`'s `sincosf`: within its 1 ulp.
    for x in [402.5_f32, -1.0e4, 3.0e7] {
        let (s, c) = single::sin_cos(x);
        let (s64, c64) = f64::from(x).sin_cos();
        assert!((f64::from(s) - s64).abs() <= EPS32 && (f64::from(c) - c64).abs() <= EPS32);
    }
}
