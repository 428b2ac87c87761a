//! Small dense linear algebra on fixed-size arrays, without an allocator:
//! the Cholesky factorisations the symplectic integrator and the
//! loop-closure solves need (mass matrices, `J M⁻¹ Jᵀ`).

use crate::Real;

/// The lower Cholesky factor of a symmetric positive definite matrix;
/// `None` when it is not positive definite.
// Index loops over the triangle read like the textbook algorithm.
#[allow(clippy::needless_range_loop)]
pub(crate) fn cholesky<R: Real, const N: usize>(a: &[[R; N]; N]) -> Option<[[R; N]; N]> {
    let mut l = [[R::ZERO; N]; N];
    for i in 0..N {
        for j in 0..=i {
            let mut sum = a[i][j];
            for k in 0..j {
                sum -= l[i][k] * l[j][k];
            }
            if i == j {
                if sum.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) {
                    return None;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b`.
#[allow(clippy::needless_range_loop)]
pub(crate) fn solve<R: Real, const N: usize>(l: &[[R; N]; N], b: &[R; N]) -> [R; N] {
    let mut x = *b;
    for i in 0..N {
        for k in 0..i {
            let lx = l[i][k] * x[k];
            x[i] -= lx;
        }
        x[i] = x[i] / l[i][i];
    }
    for i in (0..N).rev() {
        for k in i + 1..N {
            let lx = l[k][i] * x[k];
            x[i] -= lx;
        }
        x[i] = x[i] / l[i][i];
    }
    x
}
