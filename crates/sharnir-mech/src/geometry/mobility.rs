//! How many degrees of freedom a mechanism with loops keeps: its tree
//! coordinates less the rank of the constraint Jacobian, evaluated at the
//! spec's initial configuration with the parameters' spec values.
//!
//! The rank is numeric (Gaussian elimination with complete pivoting, pivots
//! below `1e-9` of the largest entry or below `1e-12` treated as zero, so
//! that rows of roundoff count for nothing), so it is the rank at
//! that configuration: a singular configuration (a four-bar folded flat)
//! reports fewer constraints than elsewhere, which is why specs should start
//! assembled in a general position.

use crate::model::inputs::Input;
use crate::model::loops::{LoopClosure, Mobility};
use crate::model::Mechanism;
use sharnir_cas::UnboundSymbol;

/// The mobility of `mechanism` with the loop equations `closure`.
///
/// # Errors
/// [`UnboundSymbol`] if an expression reads something other than the
/// runtime parameters and positions (a bug in the derivation).
pub fn mobility(mechanism: &Mechanism, closure: &LoopClosure) -> Result<Mobility, UnboundSymbol> {
    let env = at_configuration(mechanism, &mechanism.initial_positions);
    let residual = mechanism
        .pool
        .eval(&closure.constraints, &env)?
        .into_iter()
        .fold(0.0, |m: f64, x| m.max(x.abs()));
    let nv = mechanism.dof();
    let entries = mechanism.pool.eval(&closure.jacobian.concat(), &env)?;
    let rows: Vec<Vec<f64>> = entries.chunks(nv.max(1)).map(<[f64]>::to_vec).collect();
    let (rank, pivots) = eliminate(rows, nv);
    Ok(Mobility {
        coordinates: nv,
        constraints: closure.constraints.len(),
        rank,
        residual,
        partition: (0..nv).filter(|c| !pivots.contains(c)).collect(),
    })
}

/// The inputs of the loop equations at the positions `q`, with the
/// parameters' spec values: what both the mobility and the assembly of the
/// initial configuration evaluate them at.
pub(crate) fn at_configuration<'a>(
    mechanism: &'a Mechanism,
    q: &'a [f64],
) -> impl Fn(&Input) -> Option<f64> + 'a {
    move |symbol: &Input| match symbol {
        Input::Parameter(name) => mechanism
            .parameters
            .iter()
            .find(|p| p.name == *name)
            .map(|p| p.default),
        Input::Position(i) => q.get(*i).copied(),
        _ => None,
    }
}

/// The numeric rank of a matrix given by rows (tests).
#[cfg(test)]
fn rank(rows: Vec<Vec<f64>>) -> usize {
    let columns = rows.first().map_or(0, Vec::len);
    eliminate(rows, columns).0
}

/// Gaussian elimination with complete pivoting of a matrix with `columns`
/// columns given by rows: its numeric rank and the original indices of the
/// pivot columns.
fn eliminate(mut rows: Vec<Vec<f64>>, columns: usize) -> (usize, Vec<usize>) {
    let largest = rows.iter().flatten().fold(0.0, |m: f64, x| m.max(x.abs()));
    let floor = (1e-9 * largest).max(1e-12);
    let mut order: Vec<usize> = (0..columns).collect();
    let mut rank = 0;
    while rank < rows.len() && rank < columns {
        let mut best = (0.0, rank, rank);
        for (r, row) in rows.iter().enumerate().skip(rank) {
            for (c, &x) in row.iter().enumerate().skip(rank) {
                if x.abs() > best.0 {
                    best = (x.abs(), r, c);
                }
            }
        }
        let (size, r, c) = best;
        if size <= floor {
            break;
        }
        rows.swap(rank, r);
        for row in &mut rows {
            row.swap(rank, c);
        }
        order.swap(rank, c);
        let pivot_row = rows[rank].clone();
        for row in rows.iter_mut().skip(rank + 1) {
            let factor = row[rank] / pivot_row[rank];
            for (x, p) in row.iter_mut().zip(&pivot_row) {
                *x -= factor * p;
            }
        }
        rank += 1;
    }
    order.truncate(rank);
    (rank, order)
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn rank_counts_independent_rows() {
        assert_eq!(rank(vec![vec![1.0, 2.0], vec![2.0, 4.0]]), 1);
        assert_eq!(rank(vec![vec![1.0, 0.0, 0.0], vec![0.0, 1e-3, 0.0]]), 2);
        assert_eq!(rank(vec![vec![0.0; 3]; 2]), 0);
        assert_eq!(rank(vec![vec![-2.08e-17, 0.0]]), 0);
        assert_eq!(
            rank(vec![vec![1.0, 1.0], vec![1.0, -1.0], vec![2.0, 0.0]]),
            2
        );
    }
}
