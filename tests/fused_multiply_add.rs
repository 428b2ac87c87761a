//! The fused multiply–add twins (`<name>_fma`, from `fused_multiply_add =
//! true`) compute what their plain modules compute, and count what they
//! fuse: every `fma` replaces one multiplication and at least one addition.
//!
//! Tolerance: 1e-12 relative to `max(1, ‖expected‖∞)` (one rounding less
//! per fused product, so the twins differ from the plain modules in the last
//! bits only), 1e-4 for the single-precision twin; 50 seeded random states.

use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-12;

macro_rules! fused_twin_agrees {
    ($test:ident, $plain:ident, $fused:ident, $stem:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::{$fused as fused, $plain as plain};
            let oracle = Oracle::for_spec($stem);
            let (p, pf) = (plain::Params::default(), fused::Params::default());
            let mut states = States::seeded(0xF3A0 + plain::NV as u64);
            for _ in 0..50 {
                let (q, qd, qdd) = oracle.sample::<{ plain::NQ }, { plain::NV }>(&mut states);
                let pairs: [(&str, Vec<f64>, Vec<f64>); 6] = [
                    (
                        "inverse_dynamics",
                        plain::inverse_dynamics(&p, &q, &qd, &qdd).to_vec(),
                        fused::inverse_dynamics(&pf, &q, &qd, &qdd).to_vec(),
                    ),
                    (
                        "mass_matrix",
                        plain::mass_matrix(&p, &q).concat(),
                        fused::mass_matrix(&pf, &q).concat(),
                    ),
                    (
                        "bias",
                        plain::bias(&p, &q, &qd).to_vec(),
                        fused::bias(&pf, &q, &qd).to_vec(),
                    ),
                    (
                        "forward_dynamics",
                        plain::forward_dynamics(&p, &q, &qd, &qdd).to_vec(),
                        fused::forward_dynamics(&pf, &q, &qd, &qdd).to_vec(),
                    ),
                    (
                        "coriolis_matrix",
                        plain::coriolis_matrix(&p, &q, &qd).concat(),
                        fused::coriolis_matrix(&pf, &q, &qd).concat(),
                    ),
                    (
                        "energy",
                        <[f64; 2]>::from(plain::energy(&p, &q, &qd)).to_vec(),
                        <[f64; 2]>::from(fused::energy(&pf, &q, &qd)).to_vec(),
                    ),
                ];
                for (what, want, got) in pairs {
                    let err = relative_error(&got, &want);
                    assert!(err < TOLERANCE, "{}: fused {what} off by {err:e}", $stem);
                }
            }
            let counts = [
                (plain::OPS_INVERSE_DYNAMICS, fused::OPS_INVERSE_DYNAMICS),
                (plain::OPS_MASS_MATRIX, fused::OPS_MASS_MATRIX),
                (plain::OPS_BIAS, fused::OPS_BIAS),
                (plain::OPS_FORWARD_DYNAMICS, fused::OPS_FORWARD_DYNAMICS),
            ];
            for (plain, fused) in counts {
                assert!(fused.fma > 0, "{}: nothing fused", $stem);
                assert_eq!(fused.mul + fused.fma, plain.mul, "{}", $stem);
                assert!(fused.add + fused.fma <= plain.add, "{}", $stem);
                assert_eq!(
                    (fused.div, fused.sin, fused.cos),
                    (plain.div, plain.sin, plain.cos)
                );
            }
        }
    };
}

fused_twin_agrees!(telegin6, telegin6, telegin6_fma, "telegin6");
fused_twin_agrees!(puma560, puma560, puma560_fma, "puma560");

#[test]
fn single_precision_fused_twin_agrees() {
    use sharnir_generated::{telegin6_fma as fused, telegin6_fma_f32 as single};
    let oracle = Oracle::for_spec("telegin6");
    let mut states = States::seeded(0xF32);
    for _ in 0..50 {
        let (q, qd, qdd) = oracle.sample::<{ fused::NQ }, { fused::NV }>(&mut states);
        let want = fused::inverse_dynamics(&fused::Params::default(), &q, &qd, &qdd);
        let got = single::inverse_dynamics(
            &single::Params::default(),
            &q.map(|x| x as f32),
            &qd.map(|x| x as f32),
            &qdd.map(|x| x as f32),
        );
        let err = relative_error(&got.map(f64::from), &want);
        assert!(err < 1e-4, "f32 fused inverse dynamics off by {err:e}");
    }
}
