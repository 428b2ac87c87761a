//! The eigenvalues and eigenvectors of small symmetric matrices: a body's
//! principal moments and axes (the animation's default box, the
//! consistency of identified inertias).

/// Sweeps of the cyclic Jacobi method: a 4×4 symmetric matrix converges
/// to rounding in fewer than ten.
const JACOBI_SWEEPS: usize = 50;

/// The eigenvalues and eigenvectors (columns) of the leading `n × n` block
/// of the symmetric `a`, by cyclic Jacobi rotations: exact to rounding for
/// the 3×3 and 4×4 matrices here, and simple enough to trust.
pub(crate) fn symmetric_eigen<const N: usize>(
    mut a: [[f64; N]; N],
    n: usize,
) -> ([f64; N], [[f64; N]; N]) {
    let mut v = [[0.0; N]; N];
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for _ in 0..JACOBI_SWEEPS {
        let off: f64 = (0..n)
            .flat_map(|p| (p + 1..n).map(move |q| (p, q)))
            .map(|(p, q)| a[p][q] * a[p][q])
            .sum();
        let scale: f64 = (0..n).map(|i| a[i][i] * a[i][i]).sum::<f64>() + off;
        if off <= 1e-32 * scale || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in a.iter_mut().take(n) {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (row_p, row_q) = (a[p], a[q]);
                for (k, (apk, aqk)) in row_p.iter().zip(&row_q).enumerate().take(n) {
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for row in v.iter_mut().take(n) {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
        }
    }
    (std::array::from_fn(|i| a[i][i]), v)
}
