//! The long functions' AVX copies (`sharnir-codegen`'s `dispatch.rs`)
//! against their plain statements: every function of the bundled modules
//! that have copies, at seeded states, with the copies on and then off
//! (`set_avx_copies`), must give the same results bit for bit (compared in
//! Rust's round-trip notation, which tells every two doubles apart), and
//! the copies must run exactly where the processor has AVX and AVX2. On a
//! machine without them both runs take the plain statements, and the
//! comparison holds trivially; CI's machines have them.
//!
//! One test, so that no other test of this binary calls a module while the
//! copies are switched off.

use sharnir_generated::{delta, floating_chain, joint_zoo, panda, puma560_fma, solo12};
use sharnir_tests::processor::avx_detected;

/// Seeded values in ±`scale`, `n` of them.
fn values(seed: &mut u64, n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            scale * ((*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}

/// `$module`'s functions of a tree at a few seeded states, their results
/// in round-trip notation, one string per call; `$extra` adds more calls
/// (with `p`, `q`, `qd`, `tau` in scope).
macro_rules! results {
    ($module:ident $(, $extra:expr)*) => {{
        use $module::*;
        let p = Params::default();
        let mut seed = 0x5eed_u64;
        let mut out = Vec::new();
        for _ in 0..4 {
            let q: [f64; NQ] = values(&mut seed, NQ, 3.0).try_into().expect("NQ values");
            let qd: [f64; NV] = values(&mut seed, NV, 2.0).try_into().expect("NV values");
            let qdd: [f64; NV] = values(&mut seed, NV, 5.0).try_into().expect("NV values");
            let tau: [f64; NV] = values(&mut seed, NV, 10.0).try_into().expect("NV values");
            let _ = &tau;
            out.push(format!("{:?}", inverse_dynamics(&p, &q, &qd, &qdd)));
            out.push(format!("{:?}", mass_matrix(&p, &q)));
            out.push(format!("{:?}", bias(&p, &q, &qd)));
            out.push(format!("{:?}", gravity(&p, &q)));
            out.push(format!("{:?}", joint_space(&p, &q, &qd)));
            out.push(format!("{:?}", forward_dynamics(&p, &q, &qd, &tau)));
            out.push(format!("{:?}", coriolis_matrix(&p, &q, &qd)));
            out.push(format!("{:?}", energy(&p, &q, &qd)));
            out.push(format!("{:?}", body_jacobians(&p, &q)));
            $(out.push(format!("{:?}", $extra(&p, &q, &qd, &tau)));)*
        }
        out
    }};
}

/// The same calls with the copies on and off; `Err` names the module.
macro_rules! compare {
    ($module:ident $(, $extra:expr)*) => {{
        $module::set_avx_copies(true);
        let copies = $module::avx_copies();
        let with = results!($module $(, $extra)*);
        $module::set_avx_copies(false);
        let off = !$module::avx_copies();
        let without = results!($module $(, $extra)*);
        $module::set_avx_copies(true);
        (stringify!($module), copies, off, with, without)
    }};
}

#[test]
fn the_avx_copies_compute_the_plain_results_where_the_processor_has_avx() {
    let runs = [
        compare!(panda),
        compare!(solo12),
        compare!(floating_chain),
        compare!(joint_zoo),
        compare!(puma560_fma),
        compare!(delta, |p: &delta::Params,
                         q: &[f64; delta::NQ],
                         qd: &[f64; delta::NV],
                         tau| {
            (
                delta::constraints(p, q),
                delta::constraint_jacobian(p, q),
                delta::constraint_bias(p, q, qd),
                delta::constrained_forward_dynamics(p, q, qd, tau),
            )
        }),
    ];
    let expected =
        cfg!(all(target_arch = "x86_64", not(target_feature = "avx2"))) && avx_detected();
    for (module, copies, off, with, without) in runs {
        assert_eq!(
            copies, expected,
            "{module}: avx_copies() is {copies}, the processor says {expected}"
        );
        assert!(off, "{module}: set_avx_copies(false) left the copies on");
        assert_eq!(with.len(), without.len());
        for (k, (a, b)) in with.iter().zip(&without).enumerate() {
            assert_eq!(a, b, "{module}: call {k} differs between the copies");
        }
    }
}
