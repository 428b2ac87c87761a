//! Principal moments of a symmetric 3×3 tensor, by cyclic Jacobi rotations:
//! simple, unconditionally stable and accurate to rounding for the small,
//! well-scaled tensors of rigid bodies.

/// The eigenvalues of the symmetric matrix `m`, ascending.
pub(super) fn principal_moments(m: [[f64; 3]; 3]) -> [f64; 3] {
    let mut a = m;
    let norm = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..32 {
        let off = (a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]).sqrt();
        if off <= f64::EPSILON * 1e-3 * norm {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            rotate(&mut a, p, q);
        }
    }
    let mut diagonal = [a[0][0], a[1][1], a[2][2]];
    diagonal.sort_by(f64::total_cmp);
    diagonal
}

/// One Jacobi rotation `A ← Jᵀ A J` that zeroes `a[p][q]`.
fn rotate(a: &mut [[f64; 3]; 3], p: usize, q: usize) {
    let apq = a[p][q];
    if apq == 0.0 {
        return;
    }
    let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    let t = theta.signum() / (theta.abs() + theta.hypot(1.0));
    let c = 1.0 / t.hypot(1.0);
    let s = t * c;
    let mut j = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    j[p][p] = c;
    j[q][q] = c;
    j[p][q] = s;
    j[q][p] = -s;
    let jt = std::array::from_fn(|i| std::array::from_fn(|k| j[k][i]));
    *a = multiply(&jt, &multiply(a, &j));
}

fn multiply(x: &[[f64; 3]; 3], y: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|k| (0..3).map(|j| x[i][j] * y[j][k]).sum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_tensors_give_their_diagonal() {
        assert_eq!(
            principal_moments([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]),
            [1.0, 2.0, 3.0]
        );
    }

    #[test]
    fn full_tensor_matches_known_eigenvalues() {
        // Eigenvalues of [[2, 1, 0], [1, 2, 1], [0, 1, 2]] are 2 - √2, 2, 2 + √2.
        let moments = principal_moments([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]);
        let expected = [2.0 - 2f64.sqrt(), 2.0, 2.0 + 2f64.sqrt()];
        for (got, want) in moments.iter().zip(expected) {
            assert!((got - want).abs() < 1e-14, "{moments:?} vs {expected:?}");
        }
    }

    #[test]
    fn rotated_diagonal_tensor_keeps_its_moments() {
        // R diag(1, 2, 4) Rᵀ with R a rotation about z by 0.3 and about x by 1.1.
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let rz = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let (c, s) = (1.1f64.cos(), 1.1f64.sin());
        let rx = [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]];
        let r = multiply(&rz, &rx);
        let d = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 4.0]];
        let rt = std::array::from_fn(|i| std::array::from_fn(|k| r[k][i]));
        let tensor = multiply(&multiply(&r, &d), &rt);
        let moments = principal_moments(tensor);
        for (got, want) in moments.iter().zip([1.0, 2.0, 4.0]) {
            assert!((got - want).abs() < 1e-13, "{moments:?}");
        }
    }
}
