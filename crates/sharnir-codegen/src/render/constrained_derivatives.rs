//! `constrained_forward_dynamics_derivatives`: the derivatives of a closed
//! mechanism's constrained motion, emitted into every loop module that has
//! `constrained_residual_derivatives`, after `constrained.rs`'s solves,
//! which it calls.
//!
//! The constrained dynamics are the zero of two residuals,
//! `r₁ = τ(q, q̇, q̈) − Jᵀλ − τ_applied` and `r₂ = J q̈ + J̇ q̇`. Differentiating
//! both in `x` (a velocity coordinate of `q`, or of `q̇`) with the applied
//! forces held:
//!
//! ```text
//!     M ∂q̈ − Jᵀ ∂λ = −∂r₁/∂x        J ∂q̈ = −∂r₂/∂x
//! ```
//!
//! with `∂r/∂x` taken at the solution `(q̈, λ)` with both held
//! (`constrained_residual_derivatives`). Each of the `2 NV` columns is the
//! constrained solve itself: `∂q̈ = M⁻¹(−∂r₁ + Jᵀ ∂λ)` with
//! `(J M⁻¹ Jᵀ) ∂λ = −∂r₂ + J M⁻¹ ∂r₁` by the same pivoted Cholesky, so a
//! redundant constraint row has a zero multiplier and a zero derivative,
//! as `constrained_forward_dynamics` gives it. A row redundant only on the
//! constraint manifold (an overconstrained linkage: the parallelogram's
//! third rocker) is dropped with its equation: the derivatives are those of
//! the dynamics without it, which agree with the linkage's along the
//! manifold, the only directions in which its dynamics are defined.

use crate::print::printer::op_count_literal;
use crate::render::constrained::{cholesky_ops, count_of, semidefinite_ops, solve_ops};
use proc_macro2::TokenStream;
use quote::quote;
use sharnir_cas::OpCount;

/// The items and the operation count of
/// `constrained_forward_dynamics_derivatives_with` at full constraint rank,
/// given the counts of the functions emitted before it.
pub(crate) fn items(
    nv: usize,
    nc: usize,
    counts: &[(String, OpCount)],
    fma: bool,
) -> (TokenStream, OpCount) {
    let (nv, nc) = (
        u32::try_from(nv).unwrap_or(u32::MAX),
        u32::try_from(nc).unwrap_or(u32::MAX),
    );
    let products = |mul: u32, add: u32| OpCount {
        mul,
        add,
        ..OpCount::default()
    };
    let per_column = solve_ops(nv)
        + products(nc * nv, nc * nv)
        + semidefinite_ops(nc)
        + products(nc * nv, nc * nv)
        + products(0, nv);
    let ops = count_of(counts, "constrained_forward_dynamics")
        + count_of(counts, "constrained_residual_derivatives")
        + count_of(counts, "joint_space")
        + count_of(counts, "constraint_jacobian")
        + cholesky_ops(nv)
        + solve_ops(nv) * nc
        + products(nc * nc * nv, nc * nc * nv.saturating_sub(1))
        + per_column * (2 * nv);
    let ops_literal = op_count_literal(ops, fma);
    let items = quote! {
        /// The derivatives of the constrained motion at one state, in tree
        /// coordinates (`∂/∂q` in velocity coordinates, as every derivative
        /// of the module).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct ConstrainedDerivatives {
            /// `∂q̈/∂q` of `constrained_forward_dynamics`' accelerations.
            pub accelerations_by_position: JointMatrix,
            /// `∂q̈/∂q̇`.
            pub accelerations_by_velocity: JointMatrix,
            /// `∂λ/∂q` of its multipliers (rows of `CONSTRAINT_NAMES`).
            pub multipliers_by_position: ConstraintMatrix,
            /// `∂λ/∂q̇`.
            pub multipliers_by_velocity: ConstraintMatrix,
        }

        /// Operation count of [`constrained_forward_dynamics_derivatives_with`]
        /// at full constraint rank (the called functions included).
        pub const OPS_CONSTRAINED_FORWARD_DYNAMICS_DERIVATIVES: OpCount = #ops_literal;

        /// The derivatives of [`constrained_forward_dynamics`] in the state,
        /// with `tau` held: of the accelerations and of the multipliers.
        /// `Err` where the constrained dynamics has no solution.
        pub fn constrained_forward_dynamics_derivatives(
            p: &Params,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<ConstrainedDerivatives, Singular> {
            constrained_forward_dynamics_derivatives_with(&p.derived(), q, qd, tau)
        }

        /// [`constrained_forward_dynamics_derivatives`] with the parameter
        /// groups already computed by [`Params::derived`].
        pub fn constrained_forward_dynamics_derivatives_with(
            d: &Derived,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<ConstrainedDerivatives, Singular> {
            let (qdd, lambda) = constrained_forward_dynamics_with(d, q, qd, tau)?;
            let (force_q, force_v, constraint_q, constraint_v) =
                constrained_residual_derivatives_with(d, q, qd, &qdd, &lambda);
            let terms = joint_space_with(d, q, qd);
            let jacobian = constraint_jacobian_with(d, q);
            let mut factor = terms.mass_matrix;
            if !cholesky(&mut factor) {
                return Err(Singular);
            }
            let mut mobility = jacobian;
            for row in mobility.iter_mut() {
                cholesky_solve(&factor, row);
            }
            let coupling: [[Real; NC]; NC] = core::array::from_fn(|i| {
                core::array::from_fn(|j| {
                    let mut sum = 0.0;
                    for k in 0..NV {
                        sum += jacobian[i][k] * mobility[j][k];
                    }
                    sum
                })
            });
            let mut out = ConstrainedDerivatives {
                accelerations_by_position: [[0.0; NV]; NV],
                accelerations_by_velocity: [[0.0; NV]; NV],
                multipliers_by_position: [[0.0; NV]; NC],
                multipliers_by_velocity: [[0.0; NV]; NC],
            };
            for column in 0..2 * NV {
                let by_velocity = column >= NV;
                let c = if by_velocity { column - NV } else { column };
                let mut free: [Real; NV] = core::array::from_fn(|i| {
                    if by_velocity { -force_v[i][c] } else { -force_q[i][c] }
                });
                cholesky_solve(&factor, &mut free);
                let rhs: [Real; NC] = core::array::from_fn(|k| {
                    let mut sum = if by_velocity { constraint_v[k][c] } else { constraint_q[k][c] };
                    for i in 0..NV {
                        sum += jacobian[k][i] * free[i];
                    }
                    -sum
                });
                let multipliers = semidefinite_solve(coupling, rhs, false)?;
                let mut accelerations = free;
                for (row, &m) in mobility.iter().zip(&multipliers) {
                    for (a, &entry) in accelerations.iter_mut().zip(row) {
                        *a += entry * m;
                    }
                }
                for i in 0..NV {
                    if by_velocity {
                        out.accelerations_by_velocity[i][c] = accelerations[i];
                    } else {
                        out.accelerations_by_position[i][c] = accelerations[i];
                    }
                }
                for k in 0..NC {
                    if by_velocity {
                        out.multipliers_by_velocity[k][c] = multipliers[k];
                    } else {
                        out.multipliers_by_position[k][c] = multipliers[k];
                    }
                }
            }
            Ok(out)
        }
    };
    (items, ops)
}
