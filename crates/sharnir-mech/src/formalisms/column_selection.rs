//! Which columns of a numerically sampled regressor are independent: the
//! numeric completion of the base parameters
//! ([`crate::formalisms::base_regressor`]).
//!
//! The symbolic regrouping leaves columns that are zero or dependent only
//! for the mechanism's particular geometry (a first axis parallel to
//! gravity, two axes that happen to be parallel). Sampled at random states,
//! a dependent column is a combination of the columns before it, and a
//! QR factorisation in the columns' own order finds it: Gram–Schmidt,
//! twice for orthogonality (modified Gram–Schmidt's loss of orthogonality
//! is repaired by the second pass), keeping a column whose part orthogonal
//! to the kept ones exceeds [`RANK_TOLERANCE`] of its norm. Taking the
//! columns in order rather than by a pivot keeps the earliest of a
//! dependent set, so that the choice does not depend on rounding. A
//! dependent column whose coefficients are small rationals that reproduce
//! it ([`RATIONAL_TOLERANCE`]) is a [`Column::Combination`]; one whose
//! coefficients are not is [`Column::Inexact`], with its coefficients, for
//! the caller to fold only where they do not change with the geometry
//! ([`reproduces`]).
//!
//! Plain `f64` arithmetic, written here: a few hundred columns at most, and
//! no dependency for the algebra crates.

use sharnir_cas::Coeff;

/// A column whose norm is at most this fraction of the largest column's is
/// zero at every sampled state: what rounding leaves of an exact zero is
/// about 1e-16 of the entries it came from.
pub const ZERO_TOLERANCE: f64 = 1e-12;

/// A column whose part orthogonal to the kept columns is at most this
/// fraction of its norm depends on them. Rounding leaves about 1e-14 of a
/// dependent column; an independent one sampled at random states stays
/// far above 1e-8.
pub const RANK_TOLERANCE: f64 = 1e-8;

/// A coefficient of a dependent column is the rational `n/d` (`d` at most
/// [`MAX_DENOMINATOR`]) when it is within this fraction of it (or of 1),
/// and the rational coefficients must reproduce the column to this
/// fraction of the sizes summed.
pub const RATIONAL_TOLERANCE: f64 = 1e-9;

/// The largest denominator tried for a dependent column's coefficients.
pub const MAX_DENOMINATOR: i128 = 12;

/// The largest magnitude of a folded coefficient: the dependencies that
/// geometry makes exact are between columns of one scale (`±1`, `±2`,
/// `1/2`); a larger ratio is a tiny column against a large one, whose
/// folding would lose precision in `β`.
pub const MAX_COEFFICIENT: f64 = 64.0;

/// What a sampled column is, in the order the columns were given.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Independent of the columns before it: a base parameter.
    Independent,
    /// Zero at every sample: its parameter has no effect.
    Zero,
    /// The combination of earlier independent columns (their indices) with
    /// these exact coefficients.
    Combination(Vec<(usize, Coeff)>),
    /// Dependent on earlier independent columns (their indices) with these
    /// coefficients, which are not small rationals: a fixed rotation's
    /// cosines, or a ratio of lengths that would change with them.
    Inexact(Vec<(usize, f64)>),
}

/// Classifies `columns` (each the same length: the samples), in order.
pub fn classify(columns: &[Vec<f64>]) -> Vec<Column> {
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let largest = columns.iter().map(|c| norm(c)).fold(0.0_f64, f64::max);
    // Orthonormal basis of the kept columns, and `R` by columns: `r[j]`
    // holds the projections of kept column `j` on the basis before it
    // and, last, its own orthogonal norm.
    let mut basis: Vec<Vec<f64>> = Vec::new();
    let mut r: Vec<Vec<f64>> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut classes = Vec::with_capacity(columns.len());
    for (index, column) in columns.iter().enumerate() {
        let size = norm(column);
        if size <= ZERO_TOLERANCE * largest || size == 0.0 {
            classes.push(Column::Zero);
            continue;
        }
        let mut residual = column.clone();
        let mut projections = vec![0.0; basis.len()];
        for _ in 0..2 {
            for (q, h) in basis.iter().zip(&mut projections) {
                let dot: f64 = q.iter().zip(&residual).map(|(a, b)| a * b).sum();
                *h += dot;
                for (x, qi) in residual.iter_mut().zip(q) {
                    *x -= dot * qi;
                }
            }
        }
        let orthogonal = norm(&residual);
        if orthogonal > RANK_TOLERANCE * size {
            basis.push(residual.iter().map(|x| x / orthogonal).collect());
            projections.push(orthogonal);
            r.push(projections);
            kept.push(index);
            classes.push(Column::Independent);
            continue;
        }
        let coefficients = back_substitute(&r, &projections);
        let exact = rational(&coefficients).filter(|exact| {
            let mut rest = column.clone();
            let mut scale = size;
            for (&k, &c) in kept.iter().zip(exact) {
                let c = c.to_f64();
                scale += c.abs() * norm(&columns[k]);
                for (x, y) in rest.iter_mut().zip(&columns[k]) {
                    *x -= c * y;
                }
            }
            norm(&rest) <= RATIONAL_TOLERANCE * scale
        });
        classes.push(match exact {
            Some(exact) => Column::Combination(
                kept.iter()
                    .zip(exact)
                    .filter(|(_, c)| !c.is_zero())
                    .map(|(&k, c)| (k, c))
                    .collect(),
            ),
            None => Column::Inexact(kept.iter().copied().zip(coefficients).collect()),
        });
    }
    classes
}

/// Whether `column` is `Σ c·columns[k]` over `terms`, to
/// [`RATIONAL_TOLERANCE`] of the sizes summed, every coefficient at most
/// [`MAX_COEFFICIENT`]: the test that an [`Column::Inexact`] dependency
/// found at one geometry holds at another.
pub fn reproduces(column: &[f64], columns: &[Vec<f64>], terms: &[(usize, f64)]) -> bool {
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut rest = column.to_vec();
    let mut scale = norm(column);
    for &(k, c) in terms {
        let Some(other) = columns.get(k) else {
            return false;
        };
        if c.abs() > MAX_COEFFICIENT {
            return false;
        }
        scale += c.abs() * norm(other);
        for (x, y) in rest.iter_mut().zip(other) {
            *x -= c * y;
        }
    }
    norm(&rest) <= RATIONAL_TOLERANCE * scale
}

/// `x` with `R x = h`, `R` upper triangular by columns as [`classify`]
/// keeps it.
fn back_substitute(r: &[Vec<f64>], h: &[f64]) -> Vec<f64> {
    let n = h.len();
    let mut x = h.to_vec();
    for j in (0..n).rev() {
        let diagonal = r[j][j];
        x[j] /= diagonal;
        let xj = x[j];
        for (xi, rij) in x.iter_mut().zip(&r[j]).take(j) {
            *xi -= rij * xj;
        }
    }
    x
}

/// Each value as a rational of denominator at most [`MAX_DENOMINATOR`] and
/// magnitude at most [`MAX_COEFFICIENT`], or `None` if one is not.
fn rational(values: &[f64]) -> Option<Vec<Coeff>> {
    values
        .iter()
        .map(|&x| {
            (1..=MAX_DENOMINATOR).find_map(|d| {
                let n = (x * d as f64).round();
                let close = (x - n / d as f64).abs() <= RATIONAL_TOLERANCE * x.abs().max(1.0);
                (close && x.abs() <= MAX_COEFFICIENT).then(|| Coeff::ratio(n as i128, d))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_zero_dependent_and_inexact_columns() {
        let a = vec![1.0, 2.0, 0.5, -1.0];
        let b = vec![0.3, -1.0, 2.0, 0.7];
        let zero = vec![0.0; 4];
        let half_sum: Vec<f64> = a.iter().zip(&b).map(|(x, y)| 0.5 * x - y).collect();
        let irrational: Vec<f64> = a.iter().map(|x| std::f64::consts::SQRT_2 * x).collect();
        let c = vec![1.0, 0.0, 0.0, 3.0];
        let columns = [a, zero, b, half_sum, irrational, c];
        let classes = classify(&columns);
        assert_eq!(
            classes[..4],
            [
                Column::Independent,
                Column::Zero,
                Column::Independent,
                Column::Combination(vec![(0, Coeff::ratio(1, 2)), (2, Coeff::int(-1))]),
            ]
        );
        assert_eq!(classes[5], Column::Independent);
        let Column::Inexact(terms) = &classes[4] else {
            panic!("√2·a is inexact: {:?}", classes[4]);
        };
        let [(0, root), (2, none)] = terms[..] else {
            panic!("√2·a depends on a and b: {terms:?}");
        };
        assert!((root - std::f64::consts::SQRT_2).abs() < 1e-14 && none.abs() < 1e-14);
        assert!(reproduces(&columns[4], &columns, terms));
        assert!(!reproduces(&columns[3], &columns, terms));
    }
}
