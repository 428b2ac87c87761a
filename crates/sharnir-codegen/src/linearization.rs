//! `linearization`: the state-space matrices `A` and `B` of
//! `ẋ = f(x, τ)`, `x = (q, q̇)` in velocity coordinates, emitted into every
//! module that has `forward_dynamics_derivatives`, which it calls.
//!
//! With `q = q̄ ⊕ δ` (the derivatives' convention), `x = (δ, q̇)` and
//!
//! ```text
//!     A = [ ∂δ̇/∂δ   I     ]      B = [ 0   ]
//!         [ ∂q̈/∂q   ∂q̈/∂q̇ ]          [ M⁻¹ ]
//! ```
//!
//! `∂δ̇/∂δ` is zero for revolute and prismatic joints; a spherical joint's
//! orientation moves in its chart as `δ̇ = J_r(δ)⁻¹ ω`, whose derivative at
//! `δ = 0` is `−½ [ω]×` (the first term of the Baker–Campbell–Hausdorff
//! series), and a free joint's as `−½ ad_ν = −½ [[ω×, v×], [0, ω×]]` for
//! its body-frame twist `ν = (v, ω)`. At rest both vanish: the matrices of
//! an equilibrium are the familiar `[[0, I], [∂q̈/∂q, ∂q̈/∂q̇]]`.

use crate::module::{op_count_literal, Facts, Rotation};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_cas::OpCount;

/// The items (`Linearization`, `OPS_LINEARIZATION`, `linearization` and
/// `linearization_with`) and the operation count of `linearization_with`,
/// given the count of `forward_dynamics_derivatives_with`.
pub(crate) fn items(facts: &Facts, derivatives: OpCount, fma: bool) -> (TokenStream, OpCount) {
    let mut statements = TokenStream::new();
    let mut products = 0;
    for rotation in &facts.rotations {
        let (block, count) = match *rotation {
            Rotation::Spherical { velocity } => (cross_block(velocity, velocity, velocity), 6),
            Rotation::Free { velocity } => {
                let spin = velocity + 3;
                let mut block = cross_block(velocity, velocity, spin);
                block.extend(cross_block(velocity, spin, velocity));
                block.extend(cross_block(spin, spin, spin));
                (block, 18)
            }
        };
        statements.extend(block);
        products += count;
    }
    let ops = derivatives
        + OpCount {
            mul: products,
            ..OpCount::default()
        };
    let ops_literal = op_count_literal(ops, fma);
    let items = quote! {
        /// The linearization of `ẋ = f(x, τ)` at one state: `x = (q, q̇)` with
        /// `q` in velocity coordinates (`q = q̄ ⊕ δ`, the derivatives'
        /// convention), so that `δẋ ≈ A δx + B δτ`. What a linear-quadratic
        /// regulator, a model-predictive controller or a stability check
        /// (the eigenvalues of `A` at an equilibrium) needs.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Linearization {
            /// `A = ∂ẋ/∂x`, `2 NV × 2 NV`: `[[∂δ̇/∂δ, I], [∂q̈/∂q, ∂q̈/∂q̇]]`, where
            /// `∂δ̇/∂δ` is zero but for the velocity-dependent blocks of
            /// spherical (`−½ [ω]×`) and free joints (`−½ ad_ν`).
            pub a: [[Real; 2 * NV]; 2 * NV],
            /// `B = ∂ẋ/∂τ`, `2 NV × NV`: zero above, `M(q)⁻¹` below.
            pub b: [[Real; NV]; 2 * NV],
        }

        /// Operation count of [`linearization_with`] (and of [`linearization`]
        /// after [`OPS_DERIVED`]).
        pub const OPS_LINEARIZATION: OpCount = #ops_literal;

        /// The state-space matrices `A` and `B` at `(q, q̇, τ)` (see
        /// [`Linearization`]), from [`forward_dynamics_derivatives_with`].
        ///
        /// Computes the parameter groups first; when the parameters do not
        /// change between calls, compute `p.derived()` once and call
        /// [`linearization_with`]; its cost is [`OPS_LINEARIZATION`].
        pub fn linearization(
            p: &Params,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Linearization {
            linearization_with(&p.derived(), q, qd, tau)
        }

        /// [`linearization`] with the parameter groups already computed by
        /// [`Params::derived`].
        pub fn linearization_with(
            d: &Derived,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Linearization {
            let (by_position, by_velocity, by_force) =
                forward_dynamics_derivatives_with(d, q, qd, tau);
            let mut a = [[0.0; 2 * NV]; 2 * NV];
            let mut b = [[0.0; NV]; 2 * NV];
            for i in 0..NV {
                a[i][NV + i] = 1.0;
                for j in 0..NV {
                    a[NV + i][j] = by_position[i][j];
                    a[NV + i][NV + j] = by_velocity[i][j];
                    b[NV + i][j] = by_force[i][j];
                }
            }
            #statements
            Linearization { a, b }
        }
    };
    (items, ops)
}

/// `A[rows..rows + 3][columns..columns + 3] = −½ [u]×` for the vector `u`
/// at velocity index `u`: its six off-diagonal entries.
fn cross_block(rows: usize, columns: usize, u: usize) -> TokenStream {
    let index = Literal::usize_unsuffixed;
    // −½ [u]× = ½ [[0, u_z, −u_y], [−u_z, 0, u_x], [u_y, −u_x, 0]].
    let entries = [
        (0, 1, 2, false),
        (0, 2, 1, true),
        (1, 0, 2, true),
        (1, 2, 0, false),
        (2, 0, 1, false),
        (2, 1, 0, true),
    ];
    entries
        .into_iter()
        .map(|(i, j, k, negative)| {
            let (row, column, component) = (index(rows + i), index(columns + j), index(u + k));
            let half = if negative { quote!(-0.5) } else { quote!(0.5) };
            quote!(a[#row][#column] = #half * qd[#component];)
        })
        .collect()
}
