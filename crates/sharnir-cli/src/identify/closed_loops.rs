//! Identification of a mechanism with loops: the tree's equations seen
//! through the loops, and the base parameters the loops leave.
//!
//! With `q` the spanning tree's coordinates, `J` the loop-closure
//! constraints' Jacobian and `λ` the cut joints' reactions, the tree's
//! joint forces are `Y_b β = τ + Jᵀ λ`. A basis `G` of the motions the
//! loops allow (`J G = 0`) removes the unknown reactions:
//! `Gᵀ Y_b β = Gᵀ τ`. `G` is `∂q/∂q_ind`, the tree's velocities per unit
//! velocity of each independent coordinate (`I` on the independent rows,
//! `−J_d⁺ J_i` on the dependent ones, `J_d⁺` the pseudo-inverse, so that
//! redundant constraints are harmless), so row `k` is the generalised
//! force of independent coordinate `k`: the virtual work of every tree
//! joint's force when that coordinate moves alone. A joint without a
//! force column is unactuated (`τ = 0`), as the passive joints of a
//! closed chain are.
//!
//! Every sample is first made to close the loops exactly, the independent
//! coordinates held ([`consistent`]): the dependent positions by Newton's
//! method on the constraints (each step in velocity coordinates, taken to
//! the positions by the coordinate rates, a quaternion normalised after
//! it), the dependent velocities `G q̇_ind`, the
//! dependent accelerations from `J q̈ + J̇ q̇ = 0`. A simulation closes the
//! loops only to its tolerance and a measurement to its own; the
//! dependencies between the columns below hold exactly only on the loops.
//!
//! The loops make more combinations of `β` unidentifiable than the tree
//! does (a coupler's mass moves with both its neighbours). The columns of
//! `Gᵀ Y_b`, stacked over the samples and scaled to unit norm, are taken in
//! order, as the tree's own completion takes them ([`classify`]): a column
//! whose part orthogonal to the kept ones is below 1e-8 of its norm is
//! regrouped into them with the least-squares coefficients
//! (`β_k += c_k β_d`); a column below 1e-12 of the largest is not felt
//! through the loops at all. The coefficients are the data's: a geometric
//! dependency is exact in them, an accident of a poor trajectory is too.

use super::Stacked;
use crate::measurements::Samples;
use faer::Mat;
use sharnir_codegen::Plan;
use sharnir_mech::formalisms::column_selection::{classify, Column};
use sharnir_mech::{Input, Mechanism};
use std::collections::HashMap;

/// A regrouping coefficient below this fraction of the largest (or of 1)
/// is rounding's, and dropped.
const NEGLIGIBLE: f64 = 1e-10;

/// Newton's method on the loops stops when every constraint is below this
/// (metres or radians), or when rounding stops it below [`ROUNDING`].
const CLOSED: f64 = 1e-13;

/// Constraints below this that a Newton step no longer halves are as
/// closed as rounding lets them be; above it after [`NEWTON_STEPS`], the
/// sample cannot be closed.
const ROUNDING: f64 = 1e-9;

/// At most this many Newton steps close a sample's loops.
const NEWTON_STEPS: usize = 20;

/// The identification problem seen through the loops.
pub(super) struct Projected {
    /// `Gᵀ Y_b` (kept columns) and `Gᵀ τ`, one row per independent
    /// coordinate per sample.
    pub(super) stacked: Stacked,
    /// The independent coordinates, one per row of a sample.
    pub(super) coordinates: Vec<String>,
    /// The base parameters kept, each standing for itself plus what is
    /// regrouped into it.
    pub(super) names: Vec<String>,
    /// Their values at the spec's parameters, regrouped likewise.
    pub(super) spec_values: Vec<f64>,
    /// Per kept parameter, the parameters regrouped into it with their
    /// coefficients (empty where none).
    pub(super) regrouped: Vec<Vec<(String, f64)>>,
    /// The base parameters the loops hide entirely.
    pub(super) unfelt: Vec<String>,
}

/// `Gᵀ Y_b β = Gᵀ τ` over every sample, made to close the loops, reduced
/// to the columns the loops leave independent; `None` if a function reads
/// an input it was not given (a bug), an error where a sample cannot be
/// closed or the loops lock it (dependent coordinates that cannot follow
/// the independent ones).
pub(super) fn project(
    plan: &Plan,
    mechanism: &Mechanism,
    parameters: &HashMap<String, f64>,
    samples: &Samples,
    names: &[String],
    spec_values: &[f64],
) -> miette::Result<Option<Projected>> {
    let nv = mechanism.dof();
    let independent = &mechanism.independent;
    let nd = independent.len();
    let nbp = names.len();
    let mut closed = Samples {
        q: Vec::with_capacity(samples.q.len()),
        v: Vec::with_capacity(samples.q.len()),
        a: Vec::with_capacity(samples.q.len()),
        tau: samples.tau.clone(),
        force_columns: samples.force_columns.clone(),
        derivatives: samples.derivatives,
    };
    let mut motions = Vec::with_capacity(samples.q.len());
    for (s, ((q, v), a)) in samples.q.iter().zip(&samples.v).zip(&samples.a).enumerate() {
        let sample = Sample { q, v, a };
        let Some(on_loops) = consistent(plan, mechanism, parameters, &sample).transpose() else {
            return Ok(None);
        };
        let (q, v, a, g) = on_loops.map_err(|why| {
            miette::miette!(
                help = "identify from samples away from the loops' singular configurations",
                "sample {s}: {why}"
            )
        })?;
        closed.q.push(q);
        closed.v.push(v);
        closed.a.push(a);
        motions.push(g);
    }
    let Some(tree) = super::stack(plan, parameters, &closed, nv, nbp) else {
        return Ok(None);
    };
    let mut rows = Vec::with_capacity(samples.q.len() * nd);
    let mut forces = Vec::with_capacity(samples.q.len() * nd);
    for (s, g) in motions.iter().enumerate() {
        let block = &tree.rows[s * nv..(s + 1) * nv];
        let tau = &tree.forces[s * nv..(s + 1) * nv];
        for k in 0..nd {
            let along = |i: usize| g[i * nd + k];
            rows.push(
                (0..nbp)
                    .map(|j| (0..nv).map(|i| along(i) * block[i][j]).sum())
                    .collect::<Vec<f64>>(),
            );
            forces.push((0..nv).map(|i| along(i) * tau[i]).sum());
        }
    }
    let selection = select_columns(&rows, nbp);
    let mut kept_values: Vec<f64> = selection.kept.iter().map(|&j| spec_values[j]).collect();
    let mut regrouped = vec![Vec::new(); selection.kept.len()];
    for (d, coefficients) in &selection.dependent {
        for (k, &c) in coefficients.iter().enumerate() {
            if c != 0.0 {
                kept_values[k] += c * spec_values[*d];
                regrouped[k].push((names[*d].clone(), c));
            }
        }
    }
    let stacked = Stacked {
        rows: rows
            .iter()
            .map(|row| selection.kept.iter().map(|&j| row[j]).collect())
            .collect(),
        forces,
        nv: nd,
    };
    Ok(Some(Projected {
        stacked,
        coordinates: independent
            .iter()
            .map(|&i| mechanism.coordinates[i].clone())
            .collect(),
        names: selection.kept.iter().map(|&j| names[j].clone()).collect(),
        spec_values: kept_values,
        regrouped,
        unfelt: selection.unfelt.iter().map(|&j| names[j].clone()).collect(),
    }))
}

/// One measured sample.
struct Sample<'a> {
    q: &'a [f64],
    v: &'a [f64],
    a: &'a [f64],
}

/// Positions, velocities, accelerations and motions `G` (row-major,
/// `nv × nd`): the sample on the loops, its independent coordinates as
/// measured.
type OnLoops = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

/// `sample` made to close the loops, as the module documentation says;
/// `Ok(None)` if a function cannot be evaluated (a bug), `Err` saying why
/// the sample cannot be closed.
fn consistent(
    plan: &Plan,
    mechanism: &Mechanism,
    parameters: &HashMap<String, f64>,
    sample: &Sample<'_>,
) -> Result<Option<OnLoops>, String> {
    let nv = mechanism.dof();
    let independent = &mechanism.independent;
    let dependent: Vec<usize> = (0..nv).filter(|i| !independent.contains(i)).collect();
    let at = |name: &str, q: &[f64], v: &[f64]| {
        plan.evaluate(name, &|input: &Input| match input {
            Input::Parameter(name) => parameters.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            _ => None,
        })
    };
    let mut q = sample.q.to_vec();
    let mut previous = f64::INFINITY;
    for step in 0..=NEWTON_STEPS {
        let Some(residual) = at("constraints", &q, &[]) else {
            return Ok(None);
        };
        let worst = residual.iter().fold(0.0_f64, |m, r| m.max(r.abs()));
        if worst <= CLOSED || (worst <= ROUNDING && worst > 0.5 * previous) {
            break;
        }
        previous = worst;
        if step == NEWTON_STEPS {
            return Err(format!(
                "the loops do not close within {NEWTON_STEPS} Newton steps from the measured \
                 positions (the independent coordinates held)"
            ));
        }
        let Some(jacobian) = at("constraint_jacobian", &q, &[]) else {
            return Ok(None);
        };
        let minus: Vec<f64> = residual.iter().map(|r| -r).collect();
        let step = least_squares_on(&jacobian, nv, &dependent, &minus)
            .ok_or("the loops lock the dependent coordinates there")?;
        let mut velocity = vec![0.0; nv];
        for (&i, dx) in dependent.iter().zip(step) {
            velocity[i] = dx;
        }
        if !move_along(&mut q, &velocity, mechanism, &at) {
            return Ok(None);
        }
    }
    let Some(jacobian) = at("constraint_jacobian", &q, &[]) else {
        return Ok(None);
    };
    let g = allowed_motions(&jacobian, nv, independent).ok_or(
        "the loops lock the dependent coordinates there (their constraint Jacobian is singular)",
    )?;
    let nd = independent.len();
    let follow = |x: &[f64]| -> Vec<f64> {
        (0..nv)
            .map(|i| (0..nd).map(|k| g[i * nd + k] * x[independent[k]]).sum())
            .collect()
    };
    let v = follow(sample.v);
    let Some(bias) = at("constraint_bias", &q, &v) else {
        return Ok(None);
    };
    // J_d q̈_d = −(J_i q̈_i + J̇ q̇), the independent accelerations as measured.
    let mut a = vec![0.0; nv];
    for &i in independent {
        a[i] = sample.a[i];
    }
    let nc = jacobian.len() / nv.max(1);
    let rhs: Vec<f64> = (0..nc)
        .map(|r| {
            let known: f64 = independent
                .iter()
                .map(|&i| jacobian[r * nv + i] * a[i])
                .sum();
            -(known + bias[r])
        })
        .collect();
    let dependent_accelerations = least_squares_on(&jacobian, nv, &dependent, &rhs)
        .ok_or("the loops lock the dependent coordinates there")?;
    for (&i, x) in dependent.iter().zip(dependent_accelerations) {
        a[i] = x;
    }
    Ok(Some((q, v, a, g)))
}

/// A function of the module by name, at positions and velocities.
type Evaluate<'a> = dyn Fn(&str, &[f64], &[f64]) -> Option<Vec<f64>> + 'a;

/// `q` moved by the velocity-coordinate step `velocity`: added where a
/// position is its velocity's coordinate, through the coordinate rates
/// `q̇ = Q(q) v` where a joint stores a quaternion (normalised after it),
/// a retraction exact to first order, which is what Newton's method needs;
/// `false` if the rates cannot be evaluated (a bug).
fn move_along(q: &mut [f64], velocity: &[f64], mechanism: &Mechanism, at: &Evaluate<'_>) -> bool {
    if mechanism.quaternions.is_empty() {
        for (x, dx) in q.iter_mut().zip(velocity) {
            *x += dx;
        }
        return true;
    }
    let Some(rates) = at("coordinate_rates", q, velocity) else {
        return false;
    };
    for (x, dx) in q.iter_mut().zip(rates) {
        *x += dx;
    }
    for &start in &mechanism.quaternions {
        if let Some(quaternion) = q.get_mut(start..start + 4) {
            let norm = quaternion.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                quaternion.iter_mut().for_each(|x| *x /= norm);
            }
        }
    }
    true
}

/// `x` minimising `‖J_d x − rhs‖`, `J_d` the columns `dependent` of the
/// constraint Jacobian (row-major, `nc × nv`), by its pseudo-inverse (so
/// that redundant constraints are harmless); `None` where `J_d` has less
/// than full column rank.
fn least_squares_on(
    jacobian: &[f64],
    nv: usize,
    dependent: &[usize],
    rhs: &[f64],
) -> Option<Vec<f64>> {
    let nc = jacobian.len() / nv.max(1);
    let nd = dependent.len();
    if nd == 0 {
        return Some(Vec::new());
    }
    let j_d = Mat::<f64>::from_fn(nc, nd, |r, c| jacobian[r * nv + dependent[c]]);
    match pseudo_inverse_times(&j_d, rhs, 1e-10)? {
        (x, false) => Some(x),
        (_, true) => None,
    }
}

/// `A⁺ b` by the singular value decomposition of `A`, the singular values
/// below `cutoff` of the largest left out, and whether any was; `None` if
/// the decomposition fails.
fn pseudo_inverse_times(a: &Mat<f64>, b: &[f64], cutoff: f64) -> Option<(Vec<f64>, bool)> {
    let (m, n) = (a.nrows(), a.ncols());
    let svd = a.thin_svd().ok()?;
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let top = (0..n).map(|k| s[k]).fold(0.0, f64::max);
    let kept = |k: usize| s[k] > cutoff * top;
    let projected: Vec<f64> = (0..n)
        .map(|k| {
            if kept(k) {
                (0..m).map(|i| u[(i, k)] * b[i]).sum::<f64>() / s[k]
            } else {
                0.0
            }
        })
        .collect();
    let x = (0..n)
        .map(|j| (0..n).map(|k| v[(j, k)] * projected[k]).sum())
        .collect();
    Some((x, !(0..n).all(kept)))
}

/// `G` (row-major, `nv × nd`) from the constraint Jacobian (row-major,
/// `nc × nv`): `I` on the independent coordinates, `−J_d⁺ J_i` on the
/// others; `None` where `J_d` has less than full column rank.
fn allowed_motions(jacobian: &[f64], nv: usize, independent: &[usize]) -> Option<Vec<f64>> {
    let nd = independent.len();
    let nc = jacobian.len() / nv.max(1);
    let dependent: Vec<usize> = (0..nv).filter(|i| !independent.contains(i)).collect();
    let mut motions = vec![0.0; nv * nd];
    for (k, &i) in independent.iter().enumerate() {
        motions[i * nd + k] = 1.0;
        let column: Vec<f64> = (0..nc).map(|r| -jacobian[r * nv + i]).collect();
        let followed = least_squares_on(jacobian, nv, &dependent, &column)?;
        for (&d, x) in dependent.iter().zip(followed) {
            motions[d * nd + k] = x;
        }
    }
    Some(motions)
}

/// Which columns of the stacked rows the loops leave independent.
struct Selection {
    kept: Vec<usize>,
    /// Each dependent column with its coefficients on the kept ones.
    dependent: Vec<(usize, Vec<f64>)>,
    unfelt: Vec<usize>,
}

/// The columns in order, by the completion of the tree's base parameters
/// ([`classify`]: Gram–Schmidt twice, at its tolerances), every dependent
/// column with its least-squares coefficients on the kept ones, whether
/// they are small rationals or not.
fn select_columns(rows: &[Vec<f64>], width: usize) -> Selection {
    let columns: Vec<Vec<f64>> = (0..width)
        .map(|j| rows.iter().map(|r| r[j]).collect())
        .collect();
    let mut selection = Selection {
        kept: Vec::new(),
        dependent: Vec::new(),
        unfelt: Vec::new(),
    };
    let mut dependent = Vec::new();
    for (j, class) in classify(&columns).into_iter().enumerate() {
        match class {
            Column::Independent => selection.kept.push(j),
            Column::Zero => selection.unfelt.push(j),
            Column::Combination(_) | Column::Inexact(_) => dependent.push(j),
        }
    }
    selection.dependent = dependent
        .into_iter()
        .map(|d| {
            let mut c = coefficients(rows, &selection.kept, d);
            // What rounding leaves of a coefficient the geometry makes zero.
            let largest = c.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            c.iter_mut()
                .filter(|x| x.abs() <= NEGLIGIBLE * largest)
                .for_each(|x| *x = 0.0);
            (d, c)
        })
        .collect();
    selection
}

/// The least-squares coefficients of column `d` on the columns `kept`.
fn coefficients(rows: &[Vec<f64>], kept: &[usize], d: usize) -> Vec<f64> {
    let a = Mat::<f64>::from_fn(rows.len(), kept.len(), |i, k| rows[i][kept[k]]);
    let b: Vec<f64> = rows.iter().map(|r| r[d]).collect();
    pseudo_inverse_times(&a, &b, 1e-12).map_or_else(|| vec![0.0; kept.len()], |(x, _)| x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowed_motions_keep_the_constraints() {
        // Two constraints on four coordinates, the first and third
        // independent, and a third constraint repeating the first.
        let jacobian = [
            1.0, 2.0, 0.5, -1.0, //
            0.0, 1.0, 3.0, 2.0, //
            2.0, 4.0, 1.0, -2.0,
        ];
        let motions = allowed_motions(&jacobian, 4, &[0, 2]).expect("full rank");
        for r in 0..3 {
            for k in 0..2 {
                let product: f64 = (0..4)
                    .map(|i| jacobian[r * 4 + i] * motions[i * 2 + k])
                    .sum();
                assert!(product.abs() < 1e-12, "row {r}, motion {k}: {product}");
            }
        }
        assert_eq!(
            (motions[0], motions[1], motions[4], motions[5]),
            (1.0, 0.0, 0.0, 1.0)
        );
        // Coordinates 1 and 3 cannot follow when they do not enter.
        let locked = [1.0, 0.0, 0.5, 0.0, 0.0, 0.0, 3.0, 0.0];
        assert!(allowed_motions(&locked, 4, &[0, 2]).is_none());
    }

    /// The Stewart platform's dependent coordinates, a ball joint's
    /// quaternion among them, moved off the loops: Newton's method closes
    /// them again to the assembled configuration it started from, the leg
    /// lengths held and the quaternion of unit norm.
    #[test]
    fn a_loop_through_a_quaternion_is_closed() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs/stewart.spec");
        let text = std::fs::read_to_string(path).expect("the checkout has specs/stewart.spec");
        let source = sharnir_spec::Source {
            name: path.to_owned(),
            text,
        };
        let spec = sharnir_spec::parse(source).expect("stewart.spec is valid");
        let mut mechanism = Mechanism::from_spec(&spec, sharnir_mech::ParameterMode::Runtime)
            .expect("stewart.spec is a mechanism");
        let options = sharnir_codegen::PlanOptions {
            outputs: Some(
                sharnir_codegen::plan::outputs::Outputs::NONE
                    .with(sharnir_codegen::plan::outputs::Function::CoordinateRates),
            ),
            ..sharnir_codegen::PlanOptions::default()
        };
        let plan = sharnir_codegen::plan(&mut mechanism, &options).expect("plans");
        let parameters: HashMap<String, f64> = mechanism
            .parameters
            .iter()
            .map(|p| (p.name.clone(), p.default))
            .collect();
        let assembled = spec.initial_positions.clone();
        let (nq, nv) = (assembled.len(), mechanism.dof());
        assert!(!mechanism.quaternions.is_empty());
        let mut moved = assembled.clone();
        for (i, x) in moved.iter_mut().enumerate() {
            let position = &mechanism.positions[i];
            if !["s1", "s2", "s3", "s4", "s5", "s6"].contains(&position.as_str()) {
                *x += 0.01 * ((i as f64) * 1.7).sin();
            }
        }
        let (v, a) = (vec![0.0; nv], vec![0.0; nv]);
        let sample = Sample {
            q: &moved,
            v: &v,
            a: &a,
        };
        let (q, _, _, _) = consistent(&plan, &mechanism, &parameters, &sample)
            .expect("closes")
            .expect("evaluates");
        let at = |name: &str| {
            plan.evaluate(name, &|input: &Input| match input {
                Input::Parameter(name) => parameters.get(name).copied(),
                Input::Position(i) => q.get(*i).copied(),
                _ => None,
            })
            .expect("evaluates")
        };
        let worst = at("constraints")
            .iter()
            .fold(0.0_f64, |m, r| m.max(r.abs()));
        assert!(worst < 1e-12, "constraints {worst:e}");
        for i in 0..nq {
            assert!(
                (q[i] - assembled[i]).abs() < 1e-9,
                "{}: {} against {}",
                mechanism.positions[i],
                q[i],
                assembled[i]
            );
        }
        for &start in &mechanism.quaternions {
            let norm: f64 = q[start..start + 4].iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn a_dependent_column_is_regrouped_and_a_zero_one_is_unfelt() {
        // Columns: a, b, 2a − 0.5b, 0, c.
        let rows: Vec<Vec<f64>> = (0..6)
            .map(|i| {
                let x = i as f64;
                let (a, b, c) = (1.0 + x, x * x - 2.0, (x * 0.7).sin());
                vec![a, b, 2.0 * a - 0.5 * b, 0.0, c]
            })
            .collect();
        let selection = select_columns(&rows, 5);
        assert_eq!(selection.kept, [0, 1, 4]);
        assert_eq!(selection.unfelt, [3]);
        let (d, c) = &selection.dependent[0];
        assert_eq!(*d, 2);
        assert!((c[0] - 2.0).abs() < 1e-12 && (c[1] + 0.5).abs() < 1e-12 && c[2].abs() < 1e-12);
    }
}
