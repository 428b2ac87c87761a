//! Generated inverse dynamics against the independent numeric recursive
//! Newton–Euler of `sharnir-numeric` on the oracle's own tree, built from
//! the parsed spec (`support/spec_tree.rs`), for every bundled spec, and
//! the folded twin against the runtime module where the spec has one.
//!
//! Tolerance: 1e-12 relative to `max(1, ‖τ‖∞)` on 100 seeded random states.

use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-12;

macro_rules! agrees_with_numeric_rnea {
    ($test:ident, $runtime:ident, $($folded:ident,)? $stem:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$runtime as generated;
            let oracle = Oracle::for_spec($stem);
            assert_eq!(generated::COORDINATE_NAMES.len(), generated::NV);
            assert_eq!(oracle.dof(), generated::NV);
            let p = generated::Params::default();
            let mut states = States::seeded(0x5EED_0000 + generated::NV as u64);
            for _ in 0..100 {
                let (q, qd, qdd) = oracle.sample::<{ generated::NQ }, { generated::NV }>(&mut states);
                let want = oracle.inverse_dynamics(&q, &qd, &qdd);
                let got = generated::inverse_dynamics(&p, &q, &qd, &qdd);
                let err = relative_error(&got, &want);
                assert!(err < TOLERANCE, "{}: runtime-parameter module off by {err:e} at q={q:?}\n got {got:?}\nwant {want:?}", $stem);
                $({
                    use sharnir_generated::$folded as folded;
                    let got_folded = folded::inverse_dynamics(&folded::Params::default(), &q, &qd, &qdd);
                    let err = relative_error(&got_folded, &got);
                    assert!(err < TOLERANCE, "{}: folded module differs by {err:e}", $stem);
                })?
            }
        }
    };
}

agrees_with_numeric_rnea!(telegin6, telegin6, telegin6_folded, "telegin6");
agrees_with_numeric_rnea!(
    telegin3_cartesian,
    telegin3_cartesian,
    telegin3_cartesian_folded,
    "telegin3_cartesian"
);
agrees_with_numeric_rnea!(
    telegin3_cylindrical,
    telegin3_cylindrical,
    telegin3_cylindrical_folded,
    "telegin3_cylindrical"
);
agrees_with_numeric_rnea!(
    triple_pendulum,
    triple_pendulum,
    triple_pendulum_folded,
    "triple_pendulum"
);
agrees_with_numeric_rnea!(chain10, chain10, chain10_folded, "chain10");
agrees_with_numeric_rnea!(puma560, puma560, puma560_folded, "puma560");
agrees_with_numeric_rnea!(
    puma560_symbolic,
    puma560_symbolic,
    puma560_symbolic_folded,
    "puma560_symbolic"
);
agrees_with_numeric_rnea!(
    double_pendulum,
    double_pendulum,
    double_pendulum_folded,
    "double_pendulum"
);
agrees_with_numeric_rnea!(ur5, ur5, ur5_folded, "ur5");
agrees_with_numeric_rnea!(panda, panda, panda_folded, "panda");
agrees_with_numeric_rnea!(
    solo12_fixed,
    solo12_fixed,
    solo12_fixed_folded,
    "solo12_fixed"
);
agrees_with_numeric_rnea!(panda_gripper, panda_gripper, "panda_gripper");
agrees_with_numeric_rnea!(joint_zoo, joint_zoo, "joint_zoo");
agrees_with_numeric_rnea!(floating_chain, floating_chain, "floating_chain");
agrees_with_numeric_rnea!(solar_array, solar_array, solar_array_folded, "solar_array");

/// Runtime parameters really are read at run time: a kilogram added to the
/// last body of telegin6 changes the static force of the vertical slide q4 by
/// exactly its weight.
#[test]
fn runtime_parameters_are_live() {
    use sharnir_generated::telegin6 as m;
    let base = m::Params::default();
    let heavier = m::Params {
        m06: base.m06 + 1.0,
        ..base
    };
    let q = [0.1, 0.2, 0.3, 0.1, 0.5, 0.6];
    let zero = [0.0; 6];
    let light = m::inverse_dynamics(&base, &q, &zero, &zero);
    let heavy = m::inverse_dynamics(&heavier, &q, &zero, &zero);
    // q4 slides along −y: its static force grows by exactly 1 kg · g.
    assert!(
        (heavy[3] - light[3] + base.g).abs() < 1e-12,
        "{} vs {}",
        heavy[3],
        light[3]
    );
}

/// `puma560_symbolic` is `puma560` with its inertial parameters given as
/// masses, first moments and inertias about the link origins: at the spec
/// values both modules give the same forces, so the conversion in its
/// header (`com = h/m`, `I_c = I_o − (|h|² E − h hᵀ)/m`) is right.
#[test]
fn the_symbolic_puma_is_the_puma() {
    use sharnir_generated::{puma560, puma560_symbolic};
    let (numeric, symbolic) = (
        puma560::Params::default(),
        puma560_symbolic::Params::default(),
    );
    for k in 0..20 {
        let x = f64::from(k);
        let q = [
            0.3 * x,
            -0.2 * x,
            0.1 + 0.05 * x,
            1.0 - 0.1 * x,
            0.7 * x,
            -0.4,
        ];
        let qd = [0.5, -1.0 + 0.1 * x, 0.3, 0.2 * x, -0.7, 1.1];
        let qdd = [1.0, 0.5, -0.5 * x, 0.3, 0.2, -0.1 * x];
        let a = puma560::inverse_dynamics(&numeric, &q, &qd, &qdd);
        let b = puma560_symbolic::inverse_dynamics(&symbolic, &q, &qd, &qdd);
        let scale = a.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12 * scale, "{a:?} against {b:?}");
        }
    }
}
