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
//! equations evaluated at the parameters' spec values. The step is in
//! velocity coordinates and moves each joint its own way (`displace`): a
//! quaternion turns by the exponential map of its body-axis rotation and
//! stays unit, a free joint's origin moves by its body-axis displacement.

use crate::geometry::mobility::at_configuration;
use crate::model::loops::LoopClosure;
use crate::model::{JointKind, Mechanism};

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
/// are), `Err` naming the worst row otherwise.
pub fn assemble_initial(
    mechanism: &Mechanism,
    closure: &LoopClosure,
    independent: &[usize],
) -> Result<f64, Unassembled> {
    let nv = mechanism.dof();
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
        let mut step = vec![0.0; nv];
        for &c in &dependent {
            step[c] = -(0..rows).map(|r| entry(r, c) * y[r]).sum::<f64>();
        }
        displace(mechanism, &mut q, &step);
    }
    Err(worst)
}

/// `q ⊕ δ`: every joint of `mechanism` moved by its velocity-coordinate
/// step in `delta`. A revolute or prismatic coordinate adds its step; a
/// quaternion `ρ` (`x, y, z, w`) becomes `ρ ⊗ exp(ω/2)` for its body-axis
/// rotation `ω`; a free joint's origin moves by `R(ρ) δᵥ`, its body-axis
/// displacement in the joint frame (the rate `coordinate_rates` gives).
fn displace(mechanism: &Mechanism, q: &mut [f64], delta: &[f64]) {
    for body in mechanism.bodies.iter().filter(|b| b.coupling.is_none()) {
        let (p, v) = (body.position, body.velocity);
        let step = |k: usize| delta.get(v + k).copied().unwrap_or(0.0);
        match body.kind {
            JointKind::Revolute | JointKind::Prismatic => {
                if let Some(x) = q.get_mut(p) {
                    *x += step(0);
                }
            }
            JointKind::Spherical => turn(q, p, [step(0), step(1), step(2)]),
            JointKind::Free => {
                let Some(&[x, y, z, w]) = q.get(p + 3..p + 7) else {
                    continue;
                };
                let r = [
                    [
                        1.0 - 2.0 * (y * y + z * z),
                        2.0 * (x * y - z * w),
                        2.0 * (x * z + y * w),
                    ],
                    [
                        2.0 * (x * y + z * w),
                        1.0 - 2.0 * (x * x + z * z),
                        2.0 * (y * z - x * w),
                    ],
                    [
                        2.0 * (x * z - y * w),
                        2.0 * (y * z + x * w),
                        1.0 - 2.0 * (x * x + y * y),
                    ],
                ];
                for (i, row) in r.iter().enumerate() {
                    if let Some(c) = q.get_mut(p + i) {
                        *c += (0..3).map(|k| row[k] * step(k)).sum::<f64>();
                    }
                }
                turn(q, p + 3, [step(3), step(4), step(5)]);
            }
        }
    }
}

/// The quaternion at `q[start..start + 4]` turned by the body-axis
/// rotation `omega`: `ρ ⊗ exp(ω/2)`, normalised.
fn turn(q: &mut [f64], start: usize, omega: [f64; 3]) {
    let Some(rho) = q.get_mut(start..start + 4) else {
        return;
    };
    let angle = omega.iter().map(|w| w * w).sum::<f64>().sqrt();
    let half = 0.5 * angle;
    // sin(|ω|/2)/|ω| by its series where |ω| is too small to divide by.
    let scale = if half > 1e-4 {
        half.sin() / angle
    } else {
        0.5 * (1.0 - half * half / 6.0)
    };
    let e = [
        scale * omega[0],
        scale * omega[1],
        scale * omega[2],
        half.cos(),
    ];
    let (v, w) = ([rho[0], rho[1], rho[2]], rho[3]);
    let product = [
        w * e[0] + e[3] * v[0] + v[1] * e[2] - v[2] * e[1],
        w * e[1] + e[3] * v[1] + v[2] * e[0] - v[0] * e[2],
        w * e[2] + e[3] * v[2] + v[0] * e[1] - v[1] * e[0],
        w * e[3] - v[0] * e[0] - v[1] * e[1] - v[2] * e[2],
    ];
    let norm = product.iter().map(|c| c * c).sum::<f64>().sqrt();
    if norm > 0.0 {
        for (c, p) in rho.iter_mut().zip(product) {
            *c = p / norm;
        }
    }
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
