//! The single-precision twin of a module (`single_precision = true` in
//! `specs/telegin6.spec`) is the same code in `f32`: it compiles under
//! `no_std` with every value an `f32`, and agrees with the `f64` module to
//! single-precision accuracy — 1e-4 relative to `max(1, ‖τ‖∞)` on 100
//! seeded random states (an `f32` carries about 7 digits; the recursions
//! lose one or two).

use sharnir_generated::{telegin6 as double, telegin6_f32 as single};
use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-4;

fn narrow<const N: usize>(x: &[f64; N]) -> [f32; N] {
    x.map(|v| v as f32)
}

fn widen(x: &[f32]) -> Vec<f64> {
    x.iter().map(|&v| f64::from(v)).collect()
}

#[test]
fn f32_module_agrees_with_f64_module() {
    let g: f32 = single::Params::default().g;
    assert!((f64::from(g) - double::Params::default().g).abs() < 1e-6);
    let oracle = Oracle::for_spec("telegin6");
    let (pd, ps) = (
        double::Params::default().derived(),
        single::Params::default().derived(),
    );
    let mut states = States::seeded(0xF32);
    for _ in 0..100 {
        let (q, qd, qdd) = oracle.sample::<{ double::NQ }, { double::NV }>(&mut states);
        let (qs, qds, qdds) = (narrow(&q), narrow(&qd), narrow(&qdd));
        let tau = double::inverse_dynamics_with(&pd, &q, &qd, &qdd);
        let tau_single = single::inverse_dynamics_with(&ps, &qs, &qds, &qdds);
        let err = relative_error(&widen(&tau_single), &tau);
        assert!(err < TOLERANCE, "inverse dynamics differs by {err:e}");
        let m = double::mass_matrix_with(&pd, &q);
        let m_single = single::mass_matrix_with(&ps, &qs);
        let err = relative_error(&widen(&m_single.concat()), &m.concat());
        assert!(err < TOLERANCE, "mass matrix differs by {err:e}");
        let qdd_back = single::forward_dynamics_with(&ps, &qs, &qds, &narrow(&tau));
        let err = relative_error(&widen(&qdd_back), &qdd);
        assert!(err < 1e-3, "forward dynamics differs by {err:e}");
    }
}
