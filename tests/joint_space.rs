//! Generated mass matrix, bias and gravity against the independent numeric
//! algorithms of `sharnir-numeric` (composite-rigid-body and Newton–Euler)
//! on the oracle's own tree, built from the parsed spec,
//! and the identities that tie them to the generated inverse dynamics, for
//! every bundled spec, and its folded twin where the spec has one.
//!
//! Tolerance: 1e-12 relative to `max(1, ‖expected‖∞)` on 50 seeded random
//! states per spec.

use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-12;

macro_rules! joint_space_agrees {
    ($test:ident, $runtime:ident, $($folded:ident,)? $stem:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$runtime as generated;
            const N: usize = generated::NV;
            const NQ: usize = generated::NQ;
            let oracle = Oracle::for_spec($stem);
            let p = generated::Params::default();
            let mut states = States::seeded(0x0005_1DE0 + N as u64);
            for _ in 0..50 {
                let (q, qd, qdd) = oracle.sample::<NQ, N>(&mut states);
                let m = generated::mass_matrix(&p, &q);
                let want = oracle.mass_matrix(&q);
                let err = relative_error(&m.concat(), &want.concat());
                assert!(
                    err < TOLERANCE,
                    "{}: mass matrix off by {err:e} at q={q:?}",
                    $stem
                );
                for i in 0..N {
                    for j in 0..i {
                        assert_eq!(m[i][j], m[j][i], "{}: M not symmetric at ({i},{j})", $stem);
                    }
                }
                let bias = generated::bias(&p, &q, &qd);
                let err = relative_error(&bias, &oracle.bias(&q, &qd));
                assert!(err < TOLERANCE, "{}: bias off by {err:e} at q={q:?}", $stem);
                let gravity = generated::gravity(&p, &q);
                let err = relative_error(&gravity, &generated::bias(&p, &q, &[0.0; N]));
                assert!(
                    err < TOLERANCE,
                    "{}: gravity ≠ bias(q, 0) by {err:e}",
                    $stem
                );
                let tau = generated::inverse_dynamics(&p, &q, &qd, &qdd);
                let m_qdd_plus_bias: Vec<f64> = (0..N)
                    .map(|i| (0..N).map(|j| m[i][j] * qdd[j]).sum::<f64>() + bias[i])
                    .collect();
                let err = relative_error(&m_qdd_plus_bias, &tau);
                assert!(err < TOLERANCE, "{}: M q̈ + bias ≠ τ by {err:e}", $stem);
                $({
                    use sharnir_generated::$folded as folded;
                    let pf = folded::Params::default();
                    let err = relative_error(&folded::mass_matrix(&pf, &q).concat(), &m.concat());
                    assert!(
                        err < TOLERANCE,
                        "{}: folded mass matrix differs by {err:e}",
                        $stem
                    );
                    let err = relative_error(&folded::bias(&pf, &q, &qd), &bias);
                    assert!(err < TOLERANCE, "{}: folded bias differs by {err:e}", $stem);
                })?
            }
        }
    };
}

joint_space_agrees!(telegin6, telegin6, telegin6_folded, "telegin6");
joint_space_agrees!(
    telegin3_cartesian,
    telegin3_cartesian,
    telegin3_cartesian_folded,
    "telegin3_cartesian"
);
joint_space_agrees!(
    telegin3_cylindrical,
    telegin3_cylindrical,
    telegin3_cylindrical_folded,
    "telegin3_cylindrical"
);
joint_space_agrees!(
    triple_pendulum,
    triple_pendulum,
    triple_pendulum_folded,
    "triple_pendulum"
);
joint_space_agrees!(chain10, chain10, chain10_folded, "chain10");
joint_space_agrees!(puma560, puma560, puma560_folded, "puma560");
joint_space_agrees!(
    puma560_symbolic,
    puma560_symbolic,
    puma560_symbolic_folded,
    "puma560_symbolic"
);
joint_space_agrees!(
    double_pendulum,
    double_pendulum,
    double_pendulum_folded,
    "double_pendulum"
);
joint_space_agrees!(ur5, ur5, ur5_folded, "ur5");
joint_space_agrees!(panda, panda, panda_folded, "panda");
joint_space_agrees!(
    solo12_fixed,
    solo12_fixed,
    solo12_fixed_folded,
    "solo12_fixed"
);
joint_space_agrees!(panda_gripper, panda_gripper, "panda_gripper");
joint_space_agrees!(joint_zoo, joint_zoo, "joint_zoo");
joint_space_agrees!(floating_chain, floating_chain, "floating_chain");
joint_space_agrees!(solar_array, solar_array, solar_array_folded, "solar_array");
