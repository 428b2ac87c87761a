//! The symbolic inverse of a small symmetric positive-definite matrix, by
//! an `L Δ Lᵀ` factorisation: what a multi-degree-of-freedom joint of the
//! separate-bodies method divides by. No square roots, and one reciprocal
//! per pivot.

use sharnir_cas::{Id, Pool};

/// `A⁻¹` for a symmetric positive-definite `A` (only the lower triangle is
/// read); symmetric entry for entry.
pub(crate) fn spd_inverse(pool: &mut Pool, a: &[Vec<Id>]) -> Vec<Vec<Id>> {
    let n = a.len();
    let zero = pool.zero();
    let entry = |i: usize, j: usize| a.get(i).and_then(|row| row.get(j)).copied().unwrap_or(zero);
    let mut l = vec![vec![zero; n]; n];
    let mut pivots = vec![zero; n];
    let mut reciprocals = vec![zero; n];
    for j in 0..n {
        let mut dj = entry(j, j);
        for k in 0..j {
            let t = pool.mul_all(&[l[j][k], l[j][k], pivots[k]]);
            dj = pool.sub(dj, t);
        }
        pivots[j] = dj;
        reciprocals[j] = pool.powi(dj, -1);
        for i in j + 1..n {
            let mut v = entry(i, j);
            for k in 0..j {
                let t = pool.mul_all(&[l[i][k], l[j][k], pivots[k]]);
                v = pool.sub(v, t);
            }
            l[i][j] = pool.mul(v, reciprocals[j]);
        }
    }
    // Column c of the inverse: L y = e_c, z = Δ⁻¹ y, Lᵀ x = z.
    let columns: Vec<Vec<Id>> = (0..n)
        .map(|c| {
            let mut y = vec![zero; n];
            for i in 0..n {
                let mut v = if i == c { pool.one() } else { zero };
                for k in 0..i {
                    let t = pool.mul(l[i][k], y[k]);
                    v = pool.sub(v, t);
                }
                y[i] = v;
            }
            let z: Vec<Id> = y
                .iter()
                .zip(&reciprocals)
                .map(|(&yi, &r)| pool.mul(yi, r))
                .collect();
            let mut x = vec![zero; n];
            for i in (0..n).rev() {
                let mut v = z[i];
                for k in i + 1..n {
                    let t = pool.mul(l[k][i], x[k]);
                    v = pool.sub(v, t);
                }
                x[i] = v;
            }
            x
        })
        .collect();
    // The lower triangle (column c, rows r ≥ c) mirrored, so the inverse is
    // symmetric entry for entry.
    (0..n)
        .map(|r| (0..n).map(|c| columns[r.min(c)][r.max(c)]).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_times_matrix_is_identity() {
        let mut pool = Pool::new();
        let values = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]];
        let names = ["a00", "a10", "a20", "a11", "a21", "a22"];
        let ids: Vec<Id> = names.iter().map(|n| pool.symbol(n)).collect();
        let a = vec![
            vec![ids[0], ids[1], ids[2]],
            vec![ids[1], ids[3], ids[4]],
            vec![ids[2], ids[4], ids[5]],
        ];
        let inverse = spd_inverse(&mut pool, &a);
        let env = |name: &str| {
            let k = names.iter().position(|n| *n == name)?;
            let (i, j) = [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (2, 2)][k];
            Some(values[i][j])
        };
        let flat: Vec<Id> = inverse.concat();
        let inv = pool.eval(&flat, &env).expect("all bound");
        for (i, row) in values.iter().enumerate() {
            for j in 0..3 {
                let product: f64 = (0..3).map(|k| row[k] * inv[k * 3 + j]).sum();
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((product - expected).abs() < 1e-14, "({i},{j}): {product}");
            }
        }
    }
}
