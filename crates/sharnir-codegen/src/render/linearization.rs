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

use crate::plan::Plan;
use crate::print::printer::op_count_literal;
use crate::vocabulary::{Facts, Rotation};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_cas::OpCount;
use sharnir_mech::Input;

/// One entry of `∂δ̇/∂δ`: `A[row][column] = coefficient · q̇[velocity]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChartEntry {
    pub(crate) row: usize,
    pub(crate) column: usize,
    pub(crate) velocity: usize,
    pub(crate) coefficient: f64,
}

/// Every nonzero entry of `∂δ̇/∂δ` for the joints `rotations`: what both
/// the emitted `linearization_with` and [`Plan::linearization`] write.
pub(crate) fn chart_entries(rotations: &[Rotation]) -> Vec<ChartEntry> {
    let mut entries = Vec::new();
    for rotation in rotations {
        match *rotation {
            Rotation::Spherical { velocity } => {
                entries.extend(cross_block(velocity, velocity, velocity));
            }
            Rotation::Free { velocity } => {
                let spin = velocity + 3;
                entries.extend(cross_block(velocity, velocity, spin));
                entries.extend(cross_block(velocity, spin, velocity));
                entries.extend(cross_block(spin, spin, spin));
            }
        }
    }
    entries
}

/// The entries of `A[rows..rows + 3][columns..columns + 3] = −½ [u]×` for
/// the vector `u` at velocity index `u`: its six off-diagonal entries.
fn cross_block(rows: usize, columns: usize, u: usize) -> impl Iterator<Item = ChartEntry> {
    // −½ [u]× = ½ [[0, u_z, −u_y], [−u_z, 0, u_x], [u_y, −u_x, 0]].
    [
        (0, 1, 2, 0.5),
        (0, 2, 1, -0.5),
        (1, 0, 2, -0.5),
        (1, 2, 0, 0.5),
        (2, 0, 1, 0.5),
        (2, 1, 0, -0.5),
    ]
    .into_iter()
    .map(move |(i, j, k, coefficient)| ChartEntry {
        row: rows + i,
        column: columns + j,
        velocity: u + k,
        coefficient,
    })
}

/// The items (`Linearization`, `OPS_LINEARIZATION`, `linearization` and
/// `linearization_with`) and the operation count of `linearization_with`,
/// given the count of `forward_dynamics_derivatives_with`.
pub(crate) fn items(facts: &Facts, derivatives: OpCount, fma: bool) -> (TokenStream, OpCount) {
    let entries = chart_entries(&facts.rotations);
    let index = Literal::usize_unsuffixed;
    let statements: TokenStream = entries
        .iter()
        .map(|e| {
            let (row, column, velocity) = (index(e.row), index(e.column), index(e.velocity));
            let magnitude = Literal::f64_unsuffixed(e.coefficient.abs());
            let coefficient = if e.coefficient < 0.0 {
                quote!(-#magnitude)
            } else {
                quote!(#magnitude)
            };
            quote!(a[#row][#column] = #coefficient * qd[#velocity];)
        })
        .collect();
    let ops = derivatives
        + OpCount {
            mul: u32::try_from(entries.len()).unwrap_or(u32::MAX),
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

/// The state-space matrices of one linearization, rows as vectors: what
/// the emitted `Linearization` holds, for code that evaluates plans.
#[derive(Clone, Debug, PartialEq)]
pub struct StateSpace {
    /// `A`, `2 NV × 2 NV`.
    pub a: Vec<Vec<f64>>,
    /// `B`, `2 NV × NV`.
    pub b: Vec<Vec<f64>>,
}

impl Plan {
    /// `A` (`2 NV × 2 NV`) and `B` (`2 NV × NV`) of the emitted
    /// `linearization` at the state `input` gives (`q`, `q̇`, `τ` and the
    /// parameters), computed from the planned `forward_dynamics_derivatives`
    /// as the emitted function computes them; `None` without that function
    /// or for an input `input` does not give.
    pub fn linearization(&self, input: &dyn Fn(&Input) -> Option<f64>) -> Option<StateSpace> {
        let nv = self.facts.dof;
        let values = self.evaluate("forward_dynamics_derivatives", input)?;
        let entry =
            |matrix: usize, i: usize, j: usize| values.get((matrix * nv + i) * nv + j).copied();
        let mut a = vec![vec![0.0; 2 * nv]; 2 * nv];
        let mut b = vec![vec![0.0; nv]; 2 * nv];
        for i in 0..nv {
            a[i][nv + i] = 1.0;
            for j in 0..nv {
                a[nv + i][j] = entry(0, i, j)?;
                a[nv + i][nv + j] = entry(1, i, j)?;
                b[nv + i][j] = entry(2, i, j)?;
            }
        }
        for e in chart_entries(&self.facts.rotations) {
            a[e.row][e.column] = e.coefficient * input(&Input::Velocity(e.velocity))?;
        }
        Some(StateSpace { a, b })
    }
}
