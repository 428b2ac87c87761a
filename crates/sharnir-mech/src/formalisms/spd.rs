//! Symbolic solves with a small symmetric positive-definite matrix, by an
//! `L Δ Lᵀ` factorisation: the inverse a multi-degree-of-freedom joint of the
//! separate-bodies method divides by, and the solve of `M q̈ = τ − bias` in
//! the joint-coordinate formalism. No square roots, and one reciprocal per
//! pivot.

use sharnir_cas::{Id, Pool};

/// `A = L Δ Lᵀ` with `L` unit lower-triangular, kept as `L` below the
/// diagonal and the reciprocals of the pivots `Δ`.
struct Factors {
    l: Vec<Vec<Id>>,
    reciprocals: Vec<Id>,
}

impl Factors {
    /// Factorises `a`, reading only its lower triangle.
    fn new(pool: &mut Pool, a: &[Vec<Id>]) -> Factors {
        let n = a.len();
        let zero = pool.zero();
        let entry =
            |i: usize, j: usize| a.get(i).and_then(|row| row.get(j)).copied().unwrap_or(zero);
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
        Factors { l, reciprocals }
    }

    /// `x` with `A x = b`: `L y = b`, `z = Δ⁻¹ y`, `Lᵀ x = z`.
    fn solve(&self, pool: &mut Pool, b: &[Id]) -> Vec<Id> {
        let (l, n) = (&self.l, self.reciprocals.len());
        let zero = pool.zero();
        let mut y = vec![zero; n];
        for i in 0..n {
            let mut v = b.get(i).copied().unwrap_or(zero);
            for k in 0..i {
                let t = pool.mul(l[i][k], y[k]);
                v = pool.sub(v, t);
            }
            y[i] = v;
        }
        let z: Vec<Id> = y
            .iter()
            .zip(&self.reciprocals)
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
    }
}

/// `A⁻¹` for a symmetric positive-definite `A` (only the lower triangle is
/// read); symmetric entry for entry.
pub(crate) fn spd_inverse(pool: &mut Pool, a: &[Vec<Id>]) -> Vec<Vec<Id>> {
    let n = a.len();
    let factors = Factors::new(pool, a);
    let (zero, one) = (pool.zero(), pool.one());
    // Column c of the inverse solves A x = e_c.
    let columns: Vec<Vec<Id>> = (0..n)
        .map(|c| {
            let unit: Vec<Id> = (0..n).map(|i| if i == c { one } else { zero }).collect();
            factors.solve(pool, &unit)
        })
        .collect();
    // The lower triangle (column c, rows r ≥ c) mirrored, so the inverse is
    // symmetric entry for entry.
    (0..n)
        .map(|r| (0..n).map(|c| columns[r.min(c)][r.max(c)]).collect())
        .collect()
}

/// `A⁻¹` with the pivots taken in `order` (a permutation of `0..n`): for the
/// mass matrix of a tree, the coordinates of outboard bodies before those
/// of their ancestors, so that the factors have no fill-in (the entries of
/// different branches stay structural zeros, Featherstone's `LTDL`).
pub(crate) fn spd_inverse_in_order(
    pool: &mut Pool,
    a: &[Vec<Id>],
    order: &[usize],
) -> Vec<Vec<Id>> {
    let permuted = permuted(pool, a, order);
    let inverse = spd_inverse(pool, &permuted);
    unpermuted(pool, &inverse, order)
}

/// `X` with `A X = B` for every column of `B` (given as columns), the
/// pivots taken in `order` as for [`spd_inverse_in_order`].
pub(crate) fn spd_solve_in_order(
    pool: &mut Pool,
    a: &[Vec<Id>],
    columns: &[Vec<Id>],
    order: &[usize],
) -> Vec<Vec<Id>> {
    let permuted = permuted(pool, a, order);
    let factors = Factors::new(pool, &permuted);
    let zero = pool.zero();
    columns
        .iter()
        .map(|b| {
            let b: Vec<Id> = order
                .iter()
                .map(|&i| b.get(i).copied().unwrap_or(zero))
                .collect();
            let y = factors.solve(pool, &b);
            let mut x = vec![zero; y.len()];
            for (&i, yi) in order.iter().zip(y) {
                if let Some(slot) = x.get_mut(i) {
                    *slot = yi;
                }
            }
            x
        })
        .collect()
}

/// `P A Pᵀ`: row and column `k` are `A`'s row and column `order[k]`.
fn permuted(pool: &mut Pool, a: &[Vec<Id>], order: &[usize]) -> Vec<Vec<Id>> {
    let zero = pool.zero();
    let entry = |i: usize, j: usize| a.get(i).and_then(|row| row.get(j)).copied().unwrap_or(zero);
    order
        .iter()
        .map(|&i| order.iter().map(|&j| entry(i, j)).collect())
        .collect()
}

/// `Pᵀ B P`, the inverse of [`permuted`].
fn unpermuted(pool: &mut Pool, b: &[Vec<Id>], order: &[usize]) -> Vec<Vec<Id>> {
    let zero = pool.zero();
    let n = order.len();
    let mut a = vec![vec![zero; n]; n];
    for (k, &i) in order.iter().enumerate() {
        for (l, &j) in order.iter().enumerate() {
            if let Some(slot) = a.get_mut(i).and_then(|row| row.get_mut(j)) {
                *slot = b.get(k).and_then(|row| row.get(l)).copied().unwrap_or(zero);
            }
        }
    }
    a
}

/// `x` with `A x = b` for a symmetric positive-definite `A` (only the lower
/// triangle is read): cheaper than multiplying by [`spd_inverse`], and
/// every product with a structural zero of `A` vanishes as the pool
/// canonicalises it.
pub(crate) fn spd_solve(pool: &mut Pool, a: &[Vec<Id>], b: &[Id]) -> Vec<Id> {
    Factors::new(pool, a).solve(pool, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_cas::Symbol;

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
        let env = |symbol: &Symbol| {
            let name = symbol.to_string();
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

    #[test]
    fn solve_satisfies_the_system() {
        let mut pool = Pool::new();
        let values = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]];
        let b = [1.5, -2.0, 0.25];
        let a: Vec<Vec<Id>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| pool.symbol(&format!("a{}{}", i.max(j), i.min(j))))
                    .collect()
            })
            .collect();
        let rhs: Vec<Id> = (0..3).map(|i| pool.symbol(&format!("b{i}"))).collect();
        let x = spd_solve(&mut pool, &a, &rhs);
        let env = |symbol: &Symbol| {
            let name = symbol.to_string();
            let digits: Vec<usize> = name[1..]
                .chars()
                .filter_map(|c| c.to_digit(10))
                .map(|d| d as usize)
                .collect();
            match (name.chars().next(), digits.as_slice()) {
                (Some('a'), [i, j]) => Some(values[*i][*j]),
                (Some('b'), [i]) => Some(b[*i]),
                _ => None,
            }
        };
        let x = pool.eval(&x, &env).expect("all bound");
        for (i, row) in values.iter().enumerate() {
            let ax: f64 = row.iter().zip(&x).map(|(a, x)| a * x).sum();
            assert!((ax - b[i]).abs() < 1e-14, "row {i}: {ax} ≠ {}", b[i]);
        }
    }
}
