//! The Coriolis matrix `C(q, q̇)` built from the Christoffel symbols of the
//! mass matrix, the one for which `Ṁ − 2C` is skew-symmetric (passivity-based
//! and adaptive controllers need exactly this factorisation):
//! ```text
//! C_ij = Σ_k Γ_ijk q̇_k,   Γ_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)
//! ```
//! It is not assembled from the Γ, which costs O(n³) derivatives of M.
//! The velocity-dependent forces `h = bias − g = Σ_jk Γ_ijk q̇_j q̇_k` are a
//! quadratic form in q̇ with Γ symmetric in `j, k`, so
//! `∂h_i/∂q̇_m = 2 Σ_k Γ_imk q̇_k = 2 C_im`: the Christoffel `C` is exactly
//! half the Jacobian of the bias with respect to the joint rates (gravity does
//! not depend on them), and shares every subexpression with the bias.

use crate::inputs::Input;
use sharnir_cas::{Coeff, Id, Pool};

/// `C(q, q̇)`, row-major, from the symbolic `bias(q, q̇)` of a mechanism whose
/// velocity `i` is the rate of coordinate `i`.
pub fn coriolis_matrix(pool: &mut Pool, bias: &[Id]) -> Vec<Vec<Id>> {
    let n = bias.len();
    let mut c = vec![Vec::with_capacity(n); n];
    for m in 0..n {
        let qd = pool.symbol(&Input::Velocity(m).symbol_name());
        for (row, derivative) in c.iter_mut().zip(pool.diff_all(bias, qd)) {
            row.push(pool.scale(Coeff::ratio(1, 2), derivative));
        }
    }
    c
}
