//! Standard parameters that reproduce identified base parameters: what
//! `--write-spec` writes back into a spec.
//!
//! The base parameters are linear in the standard ones, `β = K π`, `K` the
//! regrouping formulas' coefficients at the spec's geometry. Of the
//! standard parameters with `K π = β̂` that are physically consistent
//! ([`crate::consistency`]: every body's pseudo-inertia positive definite,
//! every drive parameter at least zero), the one nearest the spec's own
//! `π₀` is taken. The distance is that of the bodies' pseudo-inertias
//! `J = [[½ tr(I_o) 1 − I_o, m c], [(m c)ᵀ, m]]` (the second moments of
//! their mass, `∫ [r; 1][r; 1]ᵀ dm`), each scaled by its mass `m₀` and size
//! `ℓ` ([`Prior`]) and compared in the Frobenius norm, and of each drive
//! parameter measured in its own value: `‖π − π₀‖_G`, `G` block diagonal.
//!
//! With `C` a square root of `G⁻¹`, the nearest point of the affine set
//! alone is
//!
//! ```text
//! π̂ = π₀ + C (K C)⁺ (β̂ − K π₀)
//! ```
//!
//! so the spec's values fill the directions the data cannot determine.
//! Where a body of `π̂` is not consistent or a drive parameter is negative,
//! Dykstra's alternating projections between the affine set and the convex
//! set of consistent parameters (each body's scaled pseudo-inertia at least
//! a small margin: its eigenvalues raised, the projection in that norm)
//! converge to the nearest point of their intersection; every point they
//! return lies on the affine set, so `β̂` is kept exactly. When the
//! intersection is empty or out of reach (a base parameter that is one
//! body's mass alone, estimated negative), the inconsistent bodies and
//! drives are named.

use crate::consistency::{violations, MassProperties, PseudoInertia};
use faer::Mat;

/// Singular values of `K C` below this fraction of the largest are taken
/// as zero in its pseudo-inverse.
const PSEUDO_INVERSE_TOLERANCE: f64 = 1e-12;

/// The smallest eigenvalue the projection gives a body's scaled
/// pseudo-inertia (less where the spec's own body is thinner).
const MARGIN: f64 = 1e-6;

/// Alternating projections tried before a body is reported inconsistent.
const ITERATIONS: usize = 5000;

/// The projections have converged when a step moves the parameters by less
/// than this in the scaled norm (a body's scaled pseudo-inertia is of
/// order one).
const CONVERGED: f64 = 1e-10;

/// A drive parameter this far below zero (relative to its scale) is
/// rounding, written as zero.
const DRIVE_TOLERANCE: f64 = 1e-9;

/// The spec's own standard parameters `π₀` and how they are grouped.
pub(crate) struct Prior {
    /// `π₀`: ten per body, then the drive parameters, in the order of
    /// `K`'s columns.
    pub(crate) values: Vec<f64>,
    /// The bodies, each at `offset..offset + 10` of `values`.
    pub(crate) bodies: Vec<BodyPrior>,
    /// The drive parameters, each at `index` of `values`.
    pub(crate) drives: Vec<DrivePrior>,
    /// Standard parameters held at `π₀`: those of the massless bodies of a
    /// moving base's chain, which no spec body writes.
    pub(crate) fixed: Vec<usize>,
}

/// One body of the [`Prior`].
pub(crate) struct BodyPrior {
    /// The body's name.
    pub(crate) name: String,
    /// Where its ten parameters start.
    pub(crate) offset: usize,
    /// The part of its parameters that stays fixed: the bodies welded to
    /// it by fixed joints, which its spec body does not hold. Consistency
    /// is asked of the rest, the spec body's own.
    pub(crate) lumped: [f64; 10],
    /// Its mass and size, the scale of its changes.
    pub(crate) scale: PseudoInertia,
}

/// One drive parameter of the [`Prior`].
pub(crate) struct DrivePrior {
    /// `<joint>.armature`, `<joint>.damping`, `<joint>.friction`.
    pub(crate) name: String,
    /// Its index in the standard parameters.
    pub(crate) index: usize,
    /// Its scale: its own value, or a small one where that is zero.
    pub(crate) scale: f64,
}

/// A body or drive parameter that is not physically consistent.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Inconsistency {
    /// The body's or the drive parameter's name.
    pub(crate) name: String,
    /// What fails, in words.
    pub(crate) problems: Vec<String>,
}

/// Standard parameters for identified base parameters.
pub(crate) struct Recovered {
    /// `π̂`, in the order of the [`Prior`]'s values.
    pub(crate) values: Vec<f64>,
    /// `max |K π̂ − β̂| / max |β̂|`: rounding, unless `K`'s rows are
    /// dependent and `β̂` is out of their range.
    pub(crate) mismatch: f64,
    /// The alternating projections taken to reach consistency (zero when
    /// the nearest parameters already were).
    pub(crate) iterations: usize,
    /// What is still inconsistent; empty when every body and drive is.
    pub(crate) inconsistent: Vec<Inconsistency>,
}

/// `π̂` from `β̂` (module documentation); `k` is `K`, one row per base
/// parameter. An error only if the pseudo-inverse fails to converge.
pub(crate) fn recover(k: &[Vec<f64>], beta: &[f64], prior: &Prior) -> Result<Recovered, String> {
    let projector = Projector::new(k, &square_root_of_inverse_metric(prior))?;
    let affine = |x: &[f64]| projector.project(x, beta);
    let margins: Vec<f64> = prior
        .bodies
        .iter()
        .map(|b| {
            let own = own(&prior.values, b);
            let smallest = b.scale.smallest_eigenvalue(&own);
            if smallest > 0.0 {
                MARGIN.min(0.5 * smallest)
            } else {
                MARGIN
            }
        })
        .collect();
    let consistent = |x: &[f64]| -> Vec<f64> {
        let mut y = x.to_vec();
        for (body, margin) in prior.bodies.iter().zip(&margins) {
            let projected = body.scale.project(&own(x, body), *margin);
            for (i, value) in projected.iter().enumerate() {
                y[body.offset + i] = value + body.lumped[i];
            }
        }
        for drive in &prior.drives {
            y[drive.index] = y[drive.index].max(0.0);
        }
        y
    };
    let mut y = affine(&prior.values);
    let mut best = y.clone();
    let mut inconsistent = check(&best, prior);
    let mut iterations = 0;
    if !inconsistent.is_empty() {
        // Dykstra: `increment` carries what the projection onto the
        // consistent set took away, so that the iterates converge to the
        // nearest point of the intersection, not to any point of it. The
        // affine set needs none.
        let mut increment = vec![0.0; y.len()];
        while iterations < ITERATIONS {
            let shifted: Vec<f64> = y.iter().zip(&increment).map(|(a, b)| a + b).collect();
            let x = consistent(&shifted);
            for ((inc, s), xi) in increment.iter_mut().zip(&shifted).zip(&x) {
                *inc = s - xi;
            }
            let next = affine(&x);
            let step = distance(prior, &next, &y);
            y = next;
            iterations += 1;
            let found = check(&y, prior);
            if found.len() <= inconsistent.len() || found.is_empty() {
                best = y.clone();
                inconsistent = found;
            }
            if inconsistent.is_empty() && step < CONVERGED {
                break;
            }
        }
    }
    for drive in &prior.drives {
        let value = &mut best[drive.index];
        if *value < 0.0 && *value >= -DRIVE_TOLERANCE * drive.scale {
            *value = 0.0;
        }
    }
    let largest = beta
        .iter()
        .fold(0.0_f64, |m, b| m.max(b.abs()))
        .max(f64::MIN_POSITIVE);
    let mismatch = k
        .iter()
        .zip(beta)
        .map(|(row, b)| (dot(row, &best) - b).abs())
        .fold(0.0, f64::max)
        / largest;
    Ok(Recovered {
        values: best,
        mismatch,
        iterations,
        inconsistent,
    })
}

/// `‖a − b‖_G`: the bodies' scaled pseudo-inertias and the drive
/// parameters in their scales.
fn distance(prior: &Prior, a: &[f64], b: &[f64]) -> f64 {
    let mut squared = 0.0;
    for body in &prior.bodies {
        let difference: [f64; 10] =
            std::array::from_fn(|i| a[body.offset + i] - b[body.offset + i]);
        squared += body.scale.norm_squared(&difference);
    }
    for drive in &prior.drives {
        squared += ((a[drive.index] - b[drive.index]) / drive.scale).powi(2);
    }
    squared.sqrt()
}

/// `C`, with `C Cᵀ = G⁻¹` (module documentation): per body the inverse
/// square root of its block of `G` (the Gram matrix of its scaled
/// pseudo-inertia's entries), per drive parameter its scale; zero for what
/// is held fixed, one for anything else.
fn square_root_of_inverse_metric(prior: &Prior) -> Mat<f64> {
    let n = prior.values.len();
    let mut c = Mat::<f64>::identity(n, n);
    for body in &prior.bodies {
        let block = body.scale.inverse_metric_root();
        for (i, row) in block.iter().enumerate() {
            for (j, value) in row.iter().enumerate() {
                c[(body.offset + i, body.offset + j)] = *value;
            }
        }
    }
    for drive in &prior.drives {
        c[(drive.index, drive.index)] = drive.scale;
    }
    for &index in &prior.fixed {
        for j in 0..n {
            c[(index, j)] = 0.0;
            c[(j, index)] = 0.0;
        }
    }
    c
}

/// A body's own ten parameters in `values`: without what is lumped into it.
fn own(values: &[f64], body: &BodyPrior) -> [f64; 10] {
    std::array::from_fn(|i| values[body.offset + i] - body.lumped[i])
}

/// The bodies and drive parameters of `values` that are inconsistent.
fn check(values: &[f64], prior: &Prior) -> Vec<Inconsistency> {
    let mut found = Vec::new();
    for body in &prior.bodies {
        let problems = violations(&MassProperties::from_standard(&own(values, body)));
        if !problems.is_empty() {
            found.push(Inconsistency {
                name: body.name.clone(),
                problems: problems.iter().map(ToString::to_string).collect(),
            });
        }
    }
    for drive in &prior.drives {
        let value = values[drive.index];
        if value.is_nan() || value < -DRIVE_TOLERANCE * drive.scale {
            found.push(Inconsistency {
                name: drive.name.clone(),
                problems: vec![format!("{value:.6e} is negative")],
            });
        }
    }
    found
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The projection onto `K π = β` in the metric `G`:
/// `x + C (K C)⁺ (β − K x)`.
struct Projector<'k> {
    k: &'k [Vec<f64>],
    /// `C (K C)⁺`, one row per standard parameter.
    lift: Vec<Vec<f64>>,
}

impl<'k> Projector<'k> {
    fn new(k: &'k [Vec<f64>], c: &Mat<f64>) -> Result<Projector<'k>, String> {
        let (rows, columns) = (k.len(), c.nrows());
        let kc = Mat::<f64>::from_fn(rows, columns, |i, j| {
            (0..columns)
                .map(|l| k[i].get(l).copied().unwrap_or(0.0) * c[(l, j)])
                .sum()
        });
        let svd = kc
            .thin_svd()
            .map_err(|e| format!("the regrouping's singular values did not converge: {e:?}"))?;
        let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
        let rank = rows.min(columns);
        let top = (0..rank).map(|r| s[r]).fold(0.0, f64::max);
        // `(K C)⁺ = V S⁺ Uᵀ`, then `C` on the left.
        let mut pseudo_inverse = Mat::<f64>::zeros(columns, rows);
        for r in 0..rank {
            if s[r] <= PSEUDO_INVERSE_TOLERANCE * top {
                continue;
            }
            for j in 0..columns {
                let factor = v[(j, r)] / s[r];
                for i in 0..rows {
                    pseudo_inverse[(j, i)] += factor * u[(i, r)];
                }
            }
        }
        let product = c * &pseudo_inverse;
        let lift = (0..columns)
            .map(|j| (0..rows).map(|i| product[(j, i)]).collect())
            .collect();
        Ok(Projector { k, lift })
    }

    fn project(&self, x: &[f64], beta: &[f64]) -> Vec<f64> {
        let residual: Vec<f64> = self
            .k
            .iter()
            .zip(beta)
            .map(|(row, b)| b - dot(row, x))
            .collect();
        x.iter()
            .zip(&self.lift)
            .map(|(xi, row)| xi + dot(row, &residual))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consistency::symmetric;

    /// One body about its centre of mass at the origin, 2 kg, ℓ = 0.2 m,
    /// and a drive's armature: `xx = yy = 0.03`, `zz = 0.05`, armature 0.1.
    fn prior() -> Prior {
        let body = MassProperties {
            mass: 2.0,
            com: [0.0; 3],
            inertia: symmetric([0.03, 0.03, 0.05, 0.0, 0.0, 0.0]),
        };
        let mut values = body.standard().to_vec();
        values.push(0.1);
        Prior {
            values,
            bodies: vec![BodyPrior {
                name: "link".to_owned(),
                offset: 0,
                lumped: [0.0; 10],
                scale: PseudoInertia {
                    mass: 2.0,
                    length: 0.2,
                },
            }],
            drives: vec![DrivePrior {
                name: "joint.armature".to_owned(),
                index: 10,
                scale: 0.1,
            }],
            fixed: Vec::new(),
        }
    }

    /// The regrouping of a first link turning about z: `m`, the first
    /// moments, the products, `xx − yy`, `zz + armature`; `xx + yy` and the
    /// split of `zz_r` are not determined.
    fn regrouping() -> Vec<Vec<f64>> {
        let unit = |entries: &[(usize, f64)]| {
            let mut row = vec![0.0; 11];
            for &(i, c) in entries {
                row[i] = c;
            }
            row
        };
        vec![
            unit(&[(0, 1.0)]),
            unit(&[(1, 1.0)]),
            unit(&[(2, 1.0)]),
            unit(&[(3, 1.0)]),
            unit(&[(5, 1.0)]),
            unit(&[(7, 1.0)]),
            unit(&[(8, 1.0)]),
            unit(&[(4, 1.0), (6, -1.0)]),
            unit(&[(9, 1.0), (10, 1.0)]),
        ]
    }

    fn beta_of(k: &[Vec<f64>], pi: &[f64]) -> Vec<f64> {
        k.iter().map(|row| dot(row, pi)).collect()
    }

    /// The nearest parameters reproduce `β̂` and split a change of `zz_r`
    /// between `zz` and the armature as the metric says. A change `δ` of
    /// `zz` alone moves the pseudo-inertia's `Σ_zz` (the second moment of
    /// the mass along z) too; the nearest body keeps `Σ_zz`, growing `xx`
    /// and `yy` by `δ/2` each (`xx + yy` is not determined), which costs
    /// `δ²/2` in units of `m₀ ℓ²`: the split is `2 (m₀ ℓ²)² : 0.1²`.
    #[test]
    fn the_nearest_parameters_reproduce_beta() {
        let (k, prior) = (regrouping(), prior());
        let mut beta = beta_of(&k, &prior.values);
        beta[8] += 0.01;
        beta[0] = 2.5;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert!(got.mismatch < 1e-14, "{}", got.mismatch);
        assert_eq!(got.iterations, 0);
        assert!(got.inconsistent.is_empty());
        let (dz, da) = (got.values[9] - 0.05, got.values[10] - 0.1);
        let (sz, sa) = (2.0 * 0.04, 0.1);
        assert!((dz + da - 0.01).abs() < 1e-15);
        assert!(
            (dz / da - 2.0 * (sz * sz) / (sa * sa)).abs() < 1e-9,
            "{dz} {da}"
        );
        let sigma_zz = got.values[4] + got.values[6] - got.values[9];
        assert!((sigma_zz - 0.01).abs() < 1e-15, "{sigma_zz}");
    }

    /// `zz_r` lowered so far that the nearest parameters take `xx` and `yy`
    /// below `zz / 2` (the pseudo-inertia's `Σ_xx = Σ_yy = (zz + δ)/2 −
    /// … < 0`): the nearest consistent point puts the body on the boundary,
    /// `Σ_xx ≈ 0` with `zz` lowered by 0.05, and the rest of the change on
    /// the armature, 0.1 − 0.12 + 0.05; `β̂` is kept.
    #[test]
    fn an_inconsistent_body_is_moved_to_the_nearest_consistent_point() {
        let (k, prior) = (regrouping(), prior());
        let mut beta = beta_of(&k, &prior.values);
        beta[8] -= 0.12;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert!(got.inconsistent.is_empty(), "{:?}", got.inconsistent);
        assert!(got.iterations > 0);
        assert!(got.mismatch < 1e-12, "{}", got.mismatch);
        let body = MassProperties::from_standard(&std::array::from_fn(|i| got.values[i]));
        assert!(violations(&body).is_empty());
        let armature = got.values[10];
        assert!((armature - 0.03).abs() < 1e-5, "{armature}");
        let sigma_zz = got.values[4] + got.values[6] - got.values[9];
        assert!((sigma_zz - 0.01).abs() < 1e-5, "{sigma_zz}");
    }

    /// The point Dykstra's projections return is the nearest consistent
    /// one, not merely a consistent one: a body with products of inertia
    /// and an offset centre, only its mass, first moments and `xx − yy`
    /// identified beside `zz_r`, and estimates that put two eigenvalues of
    /// its pseudo-inertia below zero. No move along the null space of `K`
    /// that stays consistent comes nearer the spec's parameters.
    #[test]
    fn no_consistent_move_comes_nearer() {
        let body = MassProperties {
            mass: 2.0,
            com: [0.05, -0.02, 0.01],
            inertia: symmetric([0.03, 0.035, 0.05, 0.004, -0.002, 0.003]),
        };
        let mut prior = prior();
        prior.values[..10].copy_from_slice(&body.standard());
        let k = regrouping();
        let mut beta = beta_of(&k, &prior.values);
        beta[7] += 0.03;
        beta[8] -= 0.1;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert!(got.inconsistent.is_empty(), "{:?}", got.inconsistent);
        assert!(got.iterations > 0);
        let reference = distance(&prior, &got.values, &prior.values);
        // The null space of `K`: the standard parameters no row reads.
        let kernel = Mat::<f64>::from_fn(k.len(), 11, |i, j| k[i][j])
            .svd()
            .map(|svd| svd.V().to_owned())
            .expect("converges");
        let free: Vec<Vec<f64>> = Mat::<f64>::from_fn(11, 11, |i, j| kernel[(i, j)])
            .col_iter()
            .map(|c| c.iter().copied().collect::<Vec<f64>>())
            .filter(|c| dot_rows(&k, c) < 1e-12)
            .collect();
        assert_eq!(free.len(), 2, "xx + yy and the split of zz_r");
        // Every consistent point of a grid on that plane around the result,
        // 2.5e-5 apart: none nearer (alternating projections without
        // Dykstra's correction stop 1.7e-4 farther, 1e-3 away).
        for a in -100..=100 {
            for b in -100..=100 {
                let (a, b) = (f64::from(a) * 2.5e-5, f64::from(b) * 2.5e-5);
                let moved: Vec<f64> = (0..11)
                    .map(|i| got.values[i] + a * free[0][i] + b * free[1][i])
                    .collect();
                if check(&moved, &prior).is_empty() {
                    let d = distance(&prior, &moved, &prior.values);
                    assert!(d >= reference - 1e-8, "{d} < {reference} at ({a}, {b})");
                }
            }
        }
    }

    /// `max |K x|`.
    fn dot_rows(k: &[Vec<f64>], x: &[f64]) -> f64 {
        k.iter().map(|row| dot(row, x).abs()).fold(0.0, f64::max)
    }

    /// A mass estimated negative cannot be helped: it is a base parameter
    /// alone. Flagged, with β̂ still reproduced.
    #[test]
    fn an_impossible_estimate_is_flagged() {
        let (k, prior) = (regrouping(), prior());
        let mut beta = beta_of(&k, &prior.values);
        beta[0] = -0.3;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert!(got.mismatch < 1e-12, "{}", got.mismatch);
        let names: Vec<&str> = got.inconsistent.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["link"], "{:?}", got.inconsistent);
        assert!(got.inconsistent[0].problems[0].contains("mass"));
    }

    /// A drive parameter alone in its base parameter and estimated
    /// negative is flagged; rounding below zero is written as zero.
    #[test]
    fn drive_parameters_are_not_negative() {
        let mut prior = prior();
        prior.values.push(0.5);
        prior.drives.push(DrivePrior {
            name: "joint.damping".to_owned(),
            index: 11,
            scale: 0.5,
        });
        let mut k = regrouping();
        for row in &mut k {
            row.push(0.0);
        }
        let mut damping = vec![0.0; 12];
        damping[11] = 1.0;
        k.push(damping);
        let mut beta = beta_of(&k, &prior.values);
        beta[9] = -1e-12;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert!(got.inconsistent.is_empty());
        assert_eq!(got.values[11], 0.0);
        beta[9] = -0.2;
        let got = recover(&k, &beta, &prior).expect("recovers");
        assert_eq!(got.inconsistent.len(), 1);
        assert_eq!(got.inconsistent[0].name, "joint.damping");
    }
}
