//! Standard parameters that reproduce identified base parameters: what
//! `--write-spec` writes back into a spec.
//!
//! The base parameters are linear in the standard ones, `β = K π`, `K` the
//! regrouping formulas' coefficients at the spec's geometry. Of the
//! standard parameters with `K π = β̂`, the one nearest the spec's own
//! `π₀` is taken, in the metric `‖D⁻¹ (π − π₀)‖` that measures each body's
//! mass in its mass `m₀`, its first moments in `m₀ ℓ` and its inertias in
//! `m₀ ℓ²` (`ℓ` the body's size, [`Prior`]), and each drive parameter in
//! its own value:
//!
//! ```text
//! π̂ = π₀ + D (K D)⁺ (β̂ − K π₀)
//! ```
//!
//! so the spec's values fill the directions the data cannot determine.
//! Where a body of `π̂` is not physically consistent
//! ([`crate::consistency`]) or a drive parameter is negative, alternating
//! projections (von Neumann) between the affine set `K π = β̂` and the
//! convex set of consistent parameters (each body's scaled pseudo-inertia
//! at least a small margin, every drive parameter at least zero) look for a
//! consistent point with the same `β̂`: each step moves only along the null
//! space of `K`, so `β̂` is kept exactly. When they find none the set is
//! empty or out of reach (a base parameter that is one body's mass alone,
//! estimated negative), and the inconsistent bodies and drives are named.

use crate::consistency::{violations, MassProperties, PseudoInertia};
use faer::Mat;

/// Singular values of `K D` below this fraction of the largest are taken
/// as zero in its pseudo-inverse.
const PSEUDO_INVERSE_TOLERANCE: f64 = 1e-12;

/// The smallest eigenvalue the projection gives a body's scaled
/// pseudo-inertia (less where the spec's own body is thinner).
const MARGIN: f64 = 1e-6;

/// Alternating projections tried before a body is reported inconsistent.
const ITERATIONS: usize = 5000;

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
    let d = scales(prior);
    let projector = Projector::new(k, &d)?;
    let affine = |x: &[f64]| projector.project(x, beta);
    let nearest = affine(&prior.values);
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
    let mut best = nearest.clone();
    let mut inconsistent = check(&best, prior);
    let mut x = nearest;
    let mut iterations = 0;
    while !inconsistent.is_empty() && iterations < ITERATIONS {
        let mut y = x.clone();
        for (body, margin) in prior.bodies.iter().zip(&margins) {
            let projected = body.scale.project(&own(&y, body), *margin);
            for (i, value) in projected.iter().enumerate() {
                y[body.offset + i] = value + body.lumped[i];
            }
        }
        for drive in &prior.drives {
            y[drive.index] = y[drive.index].max(0.0);
        }
        x = affine(&y);
        iterations += 1;
        let found = check(&x, prior);
        if found.len() < inconsistent.len() || found.is_empty() {
            best = x.clone();
            inconsistent = found;
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

/// `D`'s diagonal: per body `m₀`, `m₀ ℓ` (three), `m₀ ℓ²` (six); per drive
/// parameter its scale; zero for what is held fixed.
fn scales(prior: &Prior) -> Vec<f64> {
    let mut d = vec![1.0; prior.values.len()];
    for body in &prior.bodies {
        let (m, l) = (body.scale.mass, body.scale.length);
        for (i, entry) in d[body.offset..body.offset + 10].iter_mut().enumerate() {
            *entry = match i {
                0 => m,
                1..=3 => m * l,
                _ => m * l * l,
            };
        }
    }
    for drive in &prior.drives {
        d[drive.index] = drive.scale;
    }
    for &index in &prior.fixed {
        d[index] = 0.0;
    }
    d
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

/// The projection onto `K π = β` in the metric of `D⁻¹`:
/// `x + D (K D)⁺ (β − K x)`.
struct Projector<'k> {
    k: &'k [Vec<f64>],
    /// `D (K D)⁺`, one row per standard parameter.
    lift: Vec<Vec<f64>>,
}

impl<'k> Projector<'k> {
    fn new(k: &'k [Vec<f64>], d: &[f64]) -> Result<Projector<'k>, String> {
        let (rows, columns) = (k.len(), d.len());
        let kd = Mat::<f64>::from_fn(rows, columns, |i, j| {
            k[i].get(j).copied().unwrap_or(0.0) * d[j]
        });
        let svd = kd
            .thin_svd()
            .map_err(|e| format!("the regrouping's singular values did not converge: {e:?}"))?;
        let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
        let rank = rows.min(columns);
        let top = (0..rank).map(|r| s[r]).fold(0.0, f64::max);
        let mut lift = vec![vec![0.0; rows]; columns];
        for r in 0..rank {
            if s[r] <= PSEUDO_INVERSE_TOLERANCE * top {
                continue;
            }
            for (j, row) in lift.iter_mut().enumerate() {
                let factor = d[j] * v[(j, r)] / s[r];
                for (i, entry) in row.iter_mut().enumerate() {
                    *entry += factor * u[(i, r)];
                }
            }
        }
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
    /// between `zz` and the armature as the metric says: in proportion to
    /// the squares of their scales, `(m₀ ℓ²)²` and `0.1²`.
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
        assert!((dz / da - (sz * sz) / (sa * sa)).abs() < 1e-9, "{dz} {da}");
        // Undetermined: `xx + yy` stays the spec's.
        assert!((got.values[4] + got.values[6] - 0.06).abs() < 1e-15);
    }

    /// `zz` grown beyond `xx + yy` breaks the triangle inequality in the
    /// nearest parameters; `xx + yy`, which the data do not determine,
    /// grows until it holds, and `β̂` is kept.
    #[test]
    fn an_inconsistent_body_is_moved_along_the_null_space() {
        let (k, prior) = (regrouping(), prior());
        let mut beta = beta_of(&k, &prior.values);
        beta[8] += 0.05;
        let nearest = recover(&k, &beta, &prior);
        let got = nearest.expect("recovers");
        assert!(got.inconsistent.is_empty(), "{:?}", got.inconsistent);
        assert!(got.iterations > 0);
        assert!(got.mismatch < 1e-12, "{}", got.mismatch);
        let body = MassProperties::from_standard(&std::array::from_fn(|i| got.values[i]));
        assert!(violations(&body).is_empty());
        assert!(got.values[4] + got.values[6] > 0.06);
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
