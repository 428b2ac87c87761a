//! The loop table of `docs/performance.md`: the constrained forward dynamics
//! of the bundled loop mechanisms, generated against generic, in one run.
//!
//! `cargo run --release -p sharnir-benches --bin loop-table`
//!
//! - `generated`: the module's `constrained_forward_dynamics_with`;
//! - `folded`: the same from the `_folded` module;
//! - `generic`: the numeric tree of `sharnir-numeric` (CRBA mass matrix,
//!   RNEA bias), the module's constraint Jacobian and `J̇ q̇`, and a dense
//!   solve of the KKT system `[M Jᵀ; J 0] [q̈; −λ] = [τ − bias; −J̇ q̇]` by LU
//!   with partial pivoting: what a generic multibody code does.
//!
//! The three agree on `q̈` (1e-8) before they are timed; times are the
//! median per call of interleaved batches.

use sharnir_benches::interleaved_medians_ns;
use sharnir_tests::oracle::Oracle;
use std::hint::black_box;

/// `x` of `A x = b` by Gaussian elimination with partial pivoting.
fn dense_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))
            .unwrap_or(k);
        a.swap(k, p);
        b.swap(k, p);
        let pivot_row = a[k].clone();
        for i in k + 1..n {
            let factor = a[i][k] / pivot_row[k];
            for (x, &y) in a[i].iter_mut().zip(&pivot_row).skip(k) {
                *x -= factor * y;
            }
            b[i] -= factor * b[k];
        }
    }
    for k in (0..n).rev() {
        let sum: f64 = (k + 1..n).map(|j| a[k][j] * b[j]).sum();
        b[k] = (b[k] - sum) / a[k][k];
    }
    b
}

macro_rules! loop_row {
    ($module:ident, $folded:ident) => {{
        use sharnir_generated::{$folded as folded, $module as m};
        let oracle = Oracle::for_spec(stringify!($module));
        let d = m::Params::default().derived();
        let df = folded::Params::default().derived();
        let q = m::INITIAL_POSITIONS;
        let qd: [f64; m::NV] = core::array::from_fn(|k| 0.3 - 0.1 * k as f64);
        let tau: [f64; m::NV] = core::array::from_fn(|k| 0.2 * k as f64 - 0.5);
        let generic = |q: &[f64; m::NQ], qd: &[f64; m::NV], tau: &[f64; m::NV]| {
            let mass = oracle.tree.mass_matrix(q).expect("sizes");
            let bias = oracle.tree.bias(q, qd).expect("sizes");
            let jacobian = m::constraint_jacobian_with(&d, q);
            let rate = m::constraint_bias_with(&d, q, qd);
            let n = m::NV + m::NC;
            let mut a = vec![vec![0.0; n]; n];
            let mut b = vec![0.0; n];
            for i in 0..m::NV {
                a[i][..m::NV].copy_from_slice(&mass[i]);
                for r in 0..m::NC {
                    a[i][m::NV + r] = jacobian[r][i];
                    a[m::NV + r][i] = jacobian[r][i];
                }
                b[i] = tau[i] - bias[i];
            }
            for r in 0..m::NC {
                b[m::NV + r] = -rate[r];
            }
            dense_solve(a, b)
        };
        let (expected, _) =
            m::constrained_forward_dynamics_with(&d, &q, &qd, &tau).expect("regular");
        let (from_folded, _) =
            folded::constrained_forward_dynamics_with(&df, &q, &qd, &tau).expect("regular");
        let from_generic = generic(&q, &qd, &tau);
        for k in 0..m::NV {
            let scale = 1.0 + expected[k].abs();
            assert!(
                (from_folded[k] - expected[k]).abs() < 1e-8 * scale,
                "folded disagrees"
            );
            assert!(
                (from_generic[k] - expected[k]).abs() < 1e-8 * scale,
                "generic disagrees"
            );
        }
        let [generated, folded_ns, generic_ns] = interleaved_medians_ns(
            || {
                black_box(m::constrained_forward_dynamics_with(
                    black_box(&d),
                    black_box(&q),
                    &qd,
                    &tau,
                ))
                .ok();
            },
            || {
                black_box(folded::constrained_forward_dynamics_with(
                    black_box(&df),
                    black_box(&q),
                    &qd,
                    &tau,
                ))
                .ok();
            },
            || {
                black_box(generic(black_box(&q), &qd, &tau));
            },
        );
        println!(
            "| `{}` | {} | {} | {generated:.0} | {folded_ns:.0} | {generic_ns:.0} | {:.1}× |",
            stringify!($module),
            m::NV,
            m::NC,
            generic_ns / generated
        );
    }};
}

fn main() {
    println!("| mechanism | NV | NC | generated (ns) | folded (ns) | generic (ns) | speed-up |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    loop_row!(four_bar, four_bar_folded);
    loop_row!(crank_slider, crank_slider_folded);
    loop_row!(watt_six_bar, watt_six_bar_folded);
    loop_row!(five_bar, five_bar_folded);
    loop_row!(rssr, rssr_folded);
    loop_row!(delta, delta_folded);
}
