//! Whether the spec's initial configuration can be assembled: the loops
//! closed by moving the dependent coordinates while the independent ones
//! hold, as a simulation does before its first step. Checked when the
//! mechanism is built, so that a link too short to close or a forgotten
//! `child_origin` is reported at the cut joint by `gen`, not as a failed
//! simulation.
//!
//! Newton's method on `Ψ(q) = 0` with the minimum-norm step of the
//! dependent coordinates, `δ = −J_dᵀ (J_d J_dᵀ + εI)⁻¹ Ψ` (the small `ε`
//! keeps redundant rows solvable), with the expressions of the loop
//! equations evaluated at the parameters' spec values. Only where every
//! position coordinate is its own rate: a quaternion is not moved by
//! adding a velocity-coordinate step.

use crate::geometry::mobility::at_configuration;
use crate::model::loops::LoopClosure;
use crate::model::Mechanism;

/// Newton iterations before giving up.
const ITERATIONS: usize = 50;
/// `|Ψ|` below which the loops are closed.
const CLOSED: f64 = 1e-10;

/// The constraint row that cannot be brought to zero, and by how much.
#[derive(Clone, Debug, PartialEq)]
pub struct Unassembled {
    /// Index of the row in `closure.rows`.
    pub row: usize,
    /// `|Ψ|` of that row where Newton's method stopped.
    pub residual: f64,
}

/// Assembles the initial configuration of `mechanism` holding the
/// coordinates `independent` (velocity indices): `Ok` with the largest
/// change of a coordinate when the loops close (zero when they already
/// are), `Err` naming the worst row otherwise. `Ok(0.0)` without trying
/// for a mechanism with quaternions.
pub fn assemble_initial(
    mechanism: &Mechanism,
    closure: &LoopClosure,
    independent: &[usize],
) -> Result<f64, Unassembled> {
    let nv = mechanism.dof();
    if mechanism.nq() != nv {
        return Ok(0.0);
    }
    let start = mechanism.initial_positions.clone();
    let mut q = start.clone();
    let dependent: Vec<usize> = (0..nv).filter(|i| !independent.contains(i)).collect();
    let flat_jacobian = closure.jacobian.concat();
    let mut worst = Unassembled {
        row: 0,
        residual: f64::INFINITY,
    };
    for _ in 0..ITERATIONS {
        let evaluated = {
            let env = at_configuration(mechanism, &q);
            (
                mechanism.pool.eval(&closure.constraints, &env),
                mechanism.pool.eval(&flat_jacobian, &env),
            )
        };
        let (Ok(psi), Ok(jacobian)) = evaluated else {
            return Ok(0.0);
        };
        worst = psi
            .iter()
            .enumerate()
            .map(|(row, x)| Unassembled {
                row,
                residual: x.abs(),
            })
            .fold(
                Unassembled {
                    row: 0,
                    residual: 0.0,
                },
                |w, u| if u.residual > w.residual { u } else { w },
            );
        if worst.residual < CLOSED {
            let moved = q
                .iter()
                .zip(&start)
                .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
            return Ok(moved);
        }
        if !worst.residual.is_finite() {
            break;
        }
        let rows = psi.len();
        let entry = |r: usize, c: usize| jacobian.get(r * nv + c).copied().unwrap_or(0.0);
        // (J_d J_dᵀ + εI) y = Ψ, then δ = −J_dᵀ y.
        let mut normal: Vec<Vec<f64>> = (0..rows)
            .map(|i| {
                (0..rows)
                    .map(|j| dependent.iter().map(|&c| entry(i, c) * entry(j, c)).sum())
                    .collect()
            })
            .collect();
        let scale = (0..rows).fold(1e-300_f64, |m, i| m.max(normal[i][i]));
        for (i, row) in normal.iter_mut().enumerate() {
            row[i] += 1e-12 * scale;
        }
        let Some(y) = cholesky_solve(normal, psi) else {
            break;
        };
        for &c in &dependent {
            let step: f64 = (0..rows).map(|r| entry(r, c) * y[r]).sum();
            if let Some(x) = q.get_mut(c) {
                *x -= step;
            }
        }
    }
    Err(worst)
}

/// `x` with `A x = b` for a symmetric positive-definite `A` (rows), or
/// `None` where a pivot is not positive.
fn cholesky_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for j in 0..n {
        let diagonal = a[j][j] - (0..j).map(|k| a[j][k] * a[j][k]).sum::<f64>();
        if diagonal.is_nan() || diagonal <= 0.0 {
            return None;
        }
        let pivot = diagonal.sqrt();
        a[j][j] = pivot;
        for i in j + 1..n {
            let sum = a[i][j] - (0..j).map(|k| a[i][k] * a[j][k]).sum::<f64>();
            a[i][j] = sum / pivot;
        }
    }
    for i in 0..n {
        b[i] = (b[i] - (0..i).map(|k| a[i][k] * b[k]).sum::<f64>()) / a[i][i];
    }
    for i in (0..n).rev() {
        b[i] = (b[i] - (i + 1..n).map(|k| a[k][i] * b[k]).sum::<f64>()) / a[i][i];
    }
    Some(b)
}
