//! `constrained_mixed_dynamics` of a loop module whose spec prescribes some
//! of its independent coordinates (`[motion]`): the accelerations, the
//! drives' forces and the cut joints' multipliers of the closed mechanism
//! along the laws — a parallel robot's actuator forces along a trajectory.
//!
//! The prescribed accelerations `a_p` are known, so the closed solve of
//! `constrained.rs` (the emitted `closed_solve`) runs on the free
//! coordinates: the rows and columns of
//! `p` in `M` become the identity, `a_p` moves to the right-hand sides
//! (`τ − bias − M a`, `J̇ q̇ + J a`) and the columns of `p` in `J` become
//! zero. The drives' forces close the rows of `p`:
//! `M q̈ + bias − τ − Jᵀλ`. Emitted after `constrained.rs`'s helpers.

use crate::print::printer::op_count_literal;
use crate::render::constrained::{closed_solve_ops, count_of};
use proc_macro2::TokenStream;
use quote::quote;
use sharnir_cas::OpCount;

/// The emitted items and the operation count of
/// `constrained_mixed_dynamics`, from the counts of the functions emitted
/// before them.
pub(crate) fn items(
    nv: usize,
    nc: usize,
    counts: &[(String, OpCount)],
    fma: bool,
) -> (TokenStream, (String, OpCount)) {
    let [n, c] = [nv, nc].map(|x| u32::try_from(x).unwrap_or(u32::MAX));
    let ops = count_of(counts, "joint_space")
        + count_of(counts, "constraint_jacobian")
        + count_of(counts, "constraint_bias")
        + count_of(counts, "prescribed_motion")
        + closed_solve_ops(n, c)
        + OpCount {
            // τ − bias − M a; b + J a; the residual of every row,
            // M q̈ + bias − τ − Jᵀλ.
            mul: n * n + c * n + n * n + n * c,
            add: n * n + n + c * n + n * n + n + n * c,
            ..OpCount::default()
        };
    let literal = op_count_literal(ops, fma);
    let items = quote! {
        /// The closed mechanism with its prescribed coordinates on their
        /// laws at one state: what [`constrained_mixed_dynamics`] solves for.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct DrivenMotion {
            /// Every acceleration `q̈` (the prescribed ones their laws').
            pub accelerations: [Real; NV],
            /// The force each drive supplies, in the order of `PRESCRIBED`.
            pub drives: [Real; NP],
            /// The multipliers λ: the cut joints' reactions in the rows of
            /// `CONSTRAINT_NAMES` (see `reactions_of_multipliers`).
            pub multipliers: [Real; NC],
        }

        /// Operation count of [`constrained_mixed_dynamics_with`] at full
        /// constraint rank (the called functions included).
        pub const OPS_CONSTRAINED_MIXED_DYNAMICS: OpCount = #literal;

        /// The closed mechanism with the prescribed coordinates on their laws
        /// at time `t`: every acceleration, the force each drive supplies and
        /// the cut joints' multipliers ([`DrivenMotion`]), from
        /// `M q̈ + bias = τ + Jᵀλ + drives`, `J q̈ + J̇ q̇ = 0` and the laws'
        /// accelerations. With every independent coordinate prescribed, the
        /// drives are a parallel robot's actuator forces along a trajectory.
        /// The entries of `q` and `qd` at prescribed coordinates are not read;
        /// the others must close the loops. `Err` when the state admits no
        /// solution.
        pub fn constrained_mixed_dynamics(
            p: &Params,
            t: Real,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<DrivenMotion, Singular> {
            constrained_mixed_dynamics_with(&p.derived(), t, q, qd, tau)
        }

        /// [`constrained_mixed_dynamics`] with the parameter groups already
        /// computed by [`Params::derived`].
        pub fn constrained_mixed_dynamics_with(
            d: &Derived,
            t: Real,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<DrivenMotion, Singular> {
            let (positions, rates, laws) = prescribed_motion_with(d, t);
            let (mut q, mut qd) = (*q, *qd);
            let mut known = [0.0; NV];
            let mut prescribed = [false; NV];
            for (k, (&position, &velocity)) in PRESCRIBED_POSITIONS.iter().zip(&PRESCRIBED).enumerate() {
                if let Some(slot) = q.get_mut(position) {
                    *slot = positions[k];
                }
                if let (Some(rate), Some(acceleration), Some(mark)) = (
                    qd.get_mut(velocity),
                    known.get_mut(velocity),
                    prescribed.get_mut(velocity),
                ) {
                    *rate = rates[k];
                    *acceleration = laws[k];
                    *mark = true;
                }
            }
            let terms = joint_space_with(d, &q, &qd);
            let jacobian = constraint_jacobian_with(d, &q);
            let mut bias = constraint_bias_with(d, &q, &qd);
            let free: [Real; NV] = core::array::from_fn(|i| {
                let mut sum = tau[i] - terms.bias[i];
                for k in 0..NV {
                    sum -= terms.mass_matrix[i][k] * known[k];
                }
                if prescribed[i] { known[i] } else { sum }
            });
            let factor: [[Real; NV]; NV] = core::array::from_fn(|i| {
                core::array::from_fn(|k| {
                    if prescribed[i] || prescribed[k] {
                        if i == k { 1.0 } else { 0.0 }
                    } else {
                        terms.mass_matrix[i][k]
                    }
                })
            });
            let mut reduced = jacobian;
            for (row, b) in reduced.iter_mut().zip(bias.iter_mut()) {
                for k in 0..NV {
                    if prescribed[k] {
                        *b += row[k] * known[k];
                        row[k] = 0.0;
                    }
                }
            }
            let (qdd, lambda) = closed_solve(factor, free, &reduced, &bias)?;
            let residual: [Real; NV] = core::array::from_fn(|i| {
                let mut sum = terms.bias[i] - tau[i];
                for k in 0..NV {
                    sum += terms.mass_matrix[i][k] * qdd[k];
                }
                for (row, &l) in jacobian.iter().zip(&lambda) {
                    sum -= row[i] * l;
                }
                sum
            });
            let drives: [Real; NP] = core::array::from_fn(|k| {
                let mut value = 0.0;
                for (i, &r) in residual.iter().enumerate() {
                    if PRESCRIBED[k] == i {
                        value = r;
                    }
                }
                value
            });
            Ok(DrivenMotion {
                accelerations: qdd,
                drives,
                multipliers: lambda,
            })
        }
    };
    (items, ("constrained_mixed_dynamics".to_owned(), ops))
}
