//! The Cholesky factorisation `D = L Lᵀ` of a joint's articulated inertia
//! about its free directions, `D = Sᵀ Iᴬ S` (N×N for an N-degree-of-freedom
//! joint).
//!
//! The articulated-body algorithm has to apply `D⁻¹` at every joint; a
//! Cholesky factor does so stably and doubles as the positive-definiteness
//! test that decides [`crate::TreeError::SingularJoint`]. The size is a
//! const parameter so that the one-degree-of-freedom case compiles to the
//! scalar arithmetic it needs.

use crate::spatial::Force;

/// What forward substitution can solve for: numbers, and spatial forces
/// (the columns of `U`, whitened into `W = U L⁻ᵀ` by solving `L Wᵀ = Uᵀ`).
pub(crate) trait Solvable: Copy {
    /// `(self − Σ cₖ xₖ) / d`, one substitution step.
    fn substitute(self, terms: impl Iterator<Item = (f64, Self)>, d: f64) -> Self;
}

impl Solvable for f64 {
    fn substitute(self, terms: impl Iterator<Item = (f64, f64)>, d: f64) -> f64 {
        (self - terms.map(|(c, x)| c * x).sum::<f64>()) / d
    }
}

impl Solvable for Force {
    fn substitute(self, terms: impl Iterator<Item = (f64, Force)>, d: f64) -> Force {
        let rest = terms.fold(self, |rest, (c, x)| rest + x.scaled(-c));
        rest.scaled(1.0 / d)
    }
}

/// The lower-triangular factor `L` of a symmetric positive-definite N×N
/// matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cholesky<const N: usize> {
    /// `L`, row-major; entries above the diagonal are zero.
    lower: [[f64; N]; N],
}

impl<const N: usize> Cholesky<N> {
    /// Factors the symmetric `matrix` (only its lower triangle is read);
    /// `None` if it is not positive definite (a pivot is not positive, or is
    /// NaN).
    pub fn factor(matrix: &[[f64; N]; N]) -> Option<Cholesky<N>> {
        let mut lower = [[0.0; N]; N];
        for i in 0..N {
            for j in 0..=i {
                let partial: f64 = (0..j).map(|k| lower[i][k] * lower[j][k]).sum();
                let rest = matrix[i][j] - partial;
                if i == j {
                    if rest.is_nan() || rest <= 0.0 {
                        return None;
                    }
                    lower[i][i] = rest.sqrt();
                } else {
                    lower[i][j] = rest / lower[j][j];
                }
            }
        }
        Some(Cholesky { lower })
    }

    /// `L⁻¹ b` by forward substitution.
    pub fn forward<T: Solvable>(&self, mut b: [T; N]) -> [T; N] {
        for i in 0..N {
            let terms = (0..i).map(|k| (self.lower[i][k], b[k]));
            b[i] = b[i].substitute(terms, self.lower[i][i]);
        }
        b
    }

    /// `L⁻ᵀ b` by back substitution.
    pub fn backward(&self, mut b: [f64; N]) -> [f64; N] {
        for i in (0..N).rev() {
            let partial: f64 = (i + 1..N).map(|k| self.lower[k][i] * b[k]).sum();
            b[i] = (b[i] - partial) / self.lower[i][i];
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric positive-definite 4×4 matrix (diagonally dominant).
    const MATRIX: [[f64; 4]; 4] = [
        [4.0, 1.0, -0.5, 0.2],
        [1.0, 3.0, 0.3, -0.1],
        [-0.5, 0.3, 2.5, 0.4],
        [0.2, -0.1, 0.4, 2.0],
    ];

    #[test]
    fn forward_then_backward_solves_the_system() {
        let factor = Cholesky::factor(&MATRIX).unwrap();
        let b = [1.0, -2.0, 0.5, 3.0];
        let x = factor.backward(factor.forward(b));
        for (row, bi) in MATRIX.iter().zip(b) {
            let mx: f64 = row.iter().zip(x).map(|(m, x)| m * x).sum();
            assert!((mx - bi).abs() < 1e-14, "{mx} vs {bi}");
        }
    }

    #[test]
    fn whitening_forces_matches_whitening_their_coordinates() {
        // Forward substitution on spatial forces is the same as on each of
        // their six coordinates.
        let factor = Cholesky::factor(&MATRIX).unwrap();
        let columns: [Force; 4] = std::array::from_fn(|k| Force {
            moment: [1.0 + k as f64, -0.5, 0.25 * k as f64],
            force: [0.3, k as f64 - 1.5, 2.0],
        });
        let whitened = factor.forward(columns);
        for e in 0..3 {
            let row = factor.forward(columns.map(|f| f.moment[e]));
            for (w, x) in whitened.iter().zip(row) {
                assert!((w.moment[e] - x).abs() < 1e-15, "{} vs {x}", w.moment[e]);
            }
        }
    }

    #[test]
    fn indefinite_and_nan_matrices_are_refused() {
        let mut m = MATRIX;
        m[3][3] = -2.0;
        assert_eq!(Cholesky::factor(&m), None);
        let leading = [[m[0][0], m[0][1]], [m[1][0], m[1][1]]];
        assert!(
            Cholesky::factor(&leading).is_some(),
            "leading block is definite"
        );
        assert_eq!(Cholesky::factor(&[[f64::NAN]]), None);
        assert_eq!(Cholesky::factor(&[[0.0]]), None);
    }
}
