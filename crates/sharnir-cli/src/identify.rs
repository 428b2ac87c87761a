//! `sharnir identify`: the base parameters of a spec (and the drives'
//! armature, damping and friction) estimated from measured joint forces.
//!
//! Nothing is compiled: the module's `regressor` and `base_parameters` are
//! planned and evaluated in memory, the geometry and gravity at the spec's
//! values. The samples ([`crate::measurements`]) give one block of rows
//! each, `τ_motor(tᵢ) = Y_b(qᵢ, q̇ᵢ, q̈ᵢ) β`, stacked into `W β = T`
//! (`N·NV` rows, `NBP` columns). The estimate is Gautier and Khalil's
//! weighted least squares: an ordinary solution first, whose residuals give
//! each joint's error `σⱼ`, then the rows of joint `j` divided by `σⱼ` and
//! solved again. Both solves are by the singular value decomposition of
//! the regressor with columns scaled to unit norm (`faer`); its condition
//! number is the one reported. With `r` the weighted residual,
//! `σ̂² = ‖r‖² / (N·NV − NBP)` and `cov(β) = σ̂² (WᵀW)⁻¹` (weighted `W`), whose
//! diagonal's roots are the standard deviations. A singular value below
//! 1e-10 of the largest means the data do not determine `β`: the
//! parameters along those directions are named and nothing is estimated.
//! A mechanism with loops is identified through them ([`closed_loops`]):
//! one row per independent coordinate, the cut joints' reactions
//! eliminated, the base parameters the loops make dependent regrouped.
//! `--write-spec` writes the estimate back into a copy of the spec
//! ([`write_spec`]), for trees.

mod closed_loops;
mod prior;
mod report;
mod spec_text;
mod standard;
mod write_spec;

use crate::args::{DrivesArg, IdentifyArgs};
use crate::load;
use crate::measurements::{self, Layout, Samples};
use faer::Mat;
use sharnir_codegen::plan::outputs::{Function, Outputs};
use sharnir_codegen::PlanOptions;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// Below this fraction of the largest singular value of the scaled
/// regressor, a direction of `β` is not identifiable from the data.
const RANK_TOLERANCE: f64 = 1e-10;

/// A joint's error estimate is at least this fraction of the largest, so
/// that a joint the model fits exactly does not get an infinite weight.
const WEIGHT_FLOOR: f64 = 1e-9;

/// What `identify` found.
struct Identified {
    names: Vec<String>,
    estimate: Vec<f64>,
    deviation: Vec<f64>,
    spec_values: Vec<f64>,
    coordinates: Vec<String>,
    /// The column each coordinate's joint force came from (`tau.<name>`,
    /// or `drive.<name>` from `sharnir sim` on a prescribed coordinate).
    force_columns: Vec<String>,
    residual_rms: Vec<f64>,
    condition: f64,
    samples: usize,
    /// How the velocities and accelerations were found.
    derivatives: &'static str,
    /// The direction of the smallest singular value, as (name, component)
    /// with the largest components, and the ratio to the largest.
    weakest: (f64, Vec<(String, f64)>),
    /// The spec `--write-spec` wrote.
    written: Option<write_spec::Written>,
    /// What the loops did, for a mechanism with loops.
    loops: Option<Regrouped>,
}

/// What a mechanism's loops did to its base parameters (see
/// [`closed_loops`]).
struct Regrouped {
    /// The coordinates without a force column, taken as unactuated.
    passive: Vec<String>,
    /// Per estimated parameter, the parameters regrouped into it with their
    /// coefficients.
    into: Vec<Vec<(String, f64)>>,
    /// The base parameters the loops hide entirely.
    unfelt: Vec<String>,
}

/// Runs `sharnir identify`.
pub(crate) fn run(args: &IdentifyArgs, root: &Path) -> miette::Result<()> {
    if args.write_spec.is_some() && crate::is_urdf(&args.spec) {
        miette::bail!(
            help = "convert it first (`sharnir urdf2spec robot.urdf > robot.spec`) and identify \
                    the spec: --write-spec rewrites a spec's text",
            "{}: --write-spec needs a spec, not a URDF",
            args.spec.display()
        );
    }
    let loaded = load(root, &args.spec, &args.urdf.options())?;
    let spec = match args.drives {
        DrivesArg::Declared => loaded,
        DrivesArg::All => loaded.with_every_drive(),
    };
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime)?;
    let loops = mechanism.has_loops();
    if loops && args.write_spec.is_some() {
        miette::bail!(
            help = "drop --write-spec: the estimate is printed",
            "{}: --write-spec writes a tree's base parameters back into its bodies, but \
             the loops regroup them further",
            spec.source.name
        );
    }
    // The coordinate rates move a quaternion along a Newton step that
    // closes the loops.
    let options = PlanOptions {
        outputs: Some(
            Outputs::NONE
                .with(Function::Regressor)
                .with(Function::BaseParameters)
                .with(Function::CoordinateRates),
        ),
        ..PlanOptions::default()
    };
    let plan = sharnir_codegen::plan(&mut mechanism, &options)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
    let names = plan
        .base_parameters()
        .map(|b| b.names.clone())
        .unwrap_or_default();
    let layout = Layout {
        positions: &mechanism.positions,
        coordinates: &mechanism.coordinates,
        quaternions: &mechanism.quaternions,
        passive_joints: loops,
    };
    let samples = measurements::read(&args.data, &layout, args.cutoff)?;
    let parameters: HashMap<String, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect();
    let unevaluated =
        |what: &str| miette::miette!("{}: {what} cannot be evaluated", spec.source.name);
    let spec_values = plan
        .evaluate("base_parameters", &|input: &Input| match input {
            Input::Parameter(name) => parameters.get(name).copied(),
            _ => None,
        })
        .ok_or_else(|| unevaluated("base_parameters"))?;
    let nv = mechanism.dof();
    let data = args.data.display().to_string();
    let mut identified = if loops {
        let projected = closed_loops::project(
            &plan,
            &mechanism,
            &parameters,
            &samples,
            &names,
            &spec_values,
        )?
        .ok_or_else(|| unevaluated("the loops' functions"))?;
        let mut identified = solve(
            &projected.stacked,
            &projected.names,
            &projected.coordinates,
            projected.spec_values,
            &data,
        )?;
        identified.force_columns = projected
            .coordinates
            .iter()
            .map(|c| format!("through.{c}"))
            .collect();
        identified.loops = Some(Regrouped {
            passive: (mechanism.coordinates.iter())
                .zip(&samples.force_columns)
                .filter(|(_, column)| *column == "passive")
                .map(|(name, _)| name.clone())
                .collect(),
            into: projected.regrouped,
            unfelt: projected.unfelt,
        });
        identified
    } else {
        let stacked = stack(&plan, &parameters, &samples, nv, names.len())
            .ok_or_else(|| unevaluated("the regressor"))?;
        let mut identified = solve(&stacked, &names, &mechanism.coordinates, spec_values, &data)?;
        identified.force_columns = samples.force_columns.clone();
        identified
    };
    identified.derivatives = samples.derivatives;
    if let Some(out) = &args.write_spec {
        let facts = plan
            .base_parameters()
            .ok_or_else(|| unevaluated("the base parameters"))?;
        let written = write_spec::write(out, &spec, &mechanism, facts, &identified, &data)?;
        identified.written = Some(written);
    }
    let name = args.spec.display().to_string();
    if args.json {
        println!("{}", report::json(&name, &data, &identified));
    } else {
        print!("{}", report::text(&name, &data, &identified));
    }
    Ok(())
}

/// The stacked regressor (rows sample by sample, joint by joint) and the
/// measured forces.
struct Stacked {
    rows: Vec<Vec<f64>>,
    forces: Vec<f64>,
    nv: usize,
}

/// `W` and `T` from every sample; `None` if the regressor reads an input
/// it was not given (a bug).
fn stack(
    plan: &sharnir_codegen::Plan,
    parameters: &HashMap<String, f64>,
    samples: &Samples,
    nv: usize,
    nbp: usize,
) -> Option<Stacked> {
    let mut rows = Vec::with_capacity(samples.q.len() * nv);
    let mut forces = Vec::with_capacity(samples.q.len() * nv);
    for (((q, v), a), tau) in samples
        .q
        .iter()
        .zip(&samples.v)
        .zip(&samples.a)
        .zip(&samples.tau)
    {
        let input = |symbol: &Input| match symbol {
            Input::Parameter(name) => parameters.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Acceleration(i) => a.get(*i).copied(),
            _ => None,
        };
        let block = plan.evaluate("regressor", &input)?;
        rows.extend(block.chunks(nbp.max(1)).take(nv).map(<[f64]>::to_vec));
        forces.extend(tau.iter().copied());
    }
    Some(Stacked { rows, forces, nv })
}

/// A least-squares solution of `W β = T` with rows scaled by `weights`
/// (one per joint): the estimate, the scaled regressor's SVD parts for the
/// covariance, and the residual `T − W β` unweighted.
struct Solution {
    estimate: Vec<f64>,
    /// `D V S⁻¹` (`D` the column scaling): `cov = σ̂² (D V S⁻¹)(D V S⁻¹)ᵀ`.
    whitened: Vec<Vec<f64>>,
    singular: Vec<f64>,
    /// The right singular vectors, scaled back: column `k` is direction `k`
    /// of `β`.
    directions: Vec<Vec<f64>>,
    residual: Vec<f64>,
}

fn least_squares(stacked: &Stacked, weights: &[f64]) -> miette::Result<Solution> {
    let (m, p) = (stacked.rows.len(), stacked.rows.first().map_or(0, Vec::len));
    let weight = |i: usize| weights[i % stacked.nv];
    let norms: Vec<f64> = (0..p)
        .map(|j| {
            let n = (0..m)
                .map(|i| (weight(i) * stacked.rows[i][j]).powi(2))
                .sum::<f64>()
                .sqrt();
            if n > 0.0 {
                n
            } else {
                1.0
            }
        })
        .collect();
    let a = Mat::<f64>::from_fn(m, p, |i, j| weight(i) * stacked.rows[i][j] / norms[j]);
    let svd = a
        .thin_svd()
        .map_err(|e| miette::miette!("the regressor's singular values did not converge: {e:?}"))?;
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let singular: Vec<f64> = (0..p).map(|k| s[k]).collect();
    let top = singular.iter().copied().fold(0.0, f64::max);
    let projected: Vec<f64> = (0..p)
        .map(|k| {
            (0..m)
                .map(|i| u[(i, k)] * weight(i) * stacked.forces[i])
                .sum()
        })
        .collect();
    let mut estimate = vec![0.0; p];
    let mut whitened = vec![vec![0.0; p]; p];
    let mut directions = vec![vec![0.0; p]; p];
    for k in 0..p {
        let sk = if singular[k] > RANK_TOLERANCE * top {
            singular[k]
        } else {
            f64::INFINITY
        };
        for j in 0..p {
            let d = v[(j, k)] / norms[j];
            estimate[j] += d * projected[k] / sk;
            whitened[j][k] = d / sk;
            directions[j][k] = d;
        }
    }
    let residual = (0..m)
        .map(|i| {
            let fitted: f64 = stacked.rows[i]
                .iter()
                .zip(&estimate)
                .map(|(y, b)| y * b)
                .sum();
            stacked.forces[i] - fitted
        })
        .collect();
    Ok(Solution {
        estimate,
        whitened,
        singular,
        directions,
        residual,
    })
}

/// Weighted least squares as the module documentation says.
fn solve(
    stacked: &Stacked,
    names: &[String],
    coordinates: &[String],
    spec_values: Vec<f64>,
    data: &str,
) -> miette::Result<Identified> {
    let (m, p, nv) = (stacked.rows.len(), names.len(), stacked.nv);
    if m <= p {
        miette::bail!(
            help = format!("{p} base parameters need more than {p} rows (samples × joints)"),
            "{data}: {} samples of {nv} joints are too few",
            m / nv.max(1)
        );
    }
    let ordinary = least_squares(stacked, &vec![1.0; nv])?;
    let top = ordinary.singular.iter().copied().fold(0.0, f64::max);
    let deficient: Vec<usize> = (0..p)
        .filter(|&k| ordinary.singular[k].is_nan() || ordinary.singular[k] <= RANK_TOLERANCE * top)
        .collect();
    if !deficient.is_empty() {
        let described: Vec<String> = deficient
            .iter()
            .map(|&k| direction(names, &ordinary.directions, k))
            .collect();
        miette::bail!(
            help = "a trajectory that moves every joint, at several speeds and accelerations, \
                    excites every parameter; or fix these in the spec and identify the rest",
            "{data}: the data do not determine {} combination(s) of the parameters: {}",
            deficient.len(),
            described.join("; ")
        );
    }
    let per_joint = |residual: &[f64]| -> Vec<f64> {
        (0..nv)
            .map(|j| {
                let squares: f64 = residual.iter().skip(j).step_by(nv).map(|r| r * r).sum();
                (squares / (m / nv) as f64).sqrt()
            })
            .collect()
    };
    let errors = per_joint(&ordinary.residual);
    let largest = errors.iter().copied().fold(0.0, f64::max);
    let weights: Vec<f64> = if largest > 0.0 {
        errors
            .iter()
            .map(|e| 1.0 / e.max(WEIGHT_FLOOR * largest))
            .collect()
    } else {
        vec![1.0; nv]
    };
    let weighted = least_squares(stacked, &weights)?;
    let squares: f64 = weighted
        .residual
        .iter()
        .enumerate()
        .map(|(i, r)| (weights[i % nv] * r).powi(2))
        .sum();
    let variance = squares / (m - p) as f64;
    let deviation: Vec<f64> = weighted
        .whitened
        .iter()
        .map(|row| (variance * row.iter().map(|x| x * x).sum::<f64>()).sqrt())
        .collect();
    let top = weighted.singular.iter().copied().fold(0.0, f64::max);
    let (smallest, low) =
        weighted
            .singular
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |best, (k, s)| if s < best.1 { (k, s) } else { best },
            );
    let weakest = components(names, &weighted.directions, smallest);
    Ok(Identified {
        names: names.to_vec(),
        estimate: weighted.estimate,
        deviation,
        spec_values,
        coordinates: coordinates.to_vec(),
        force_columns: coordinates.iter().map(|c| format!("tau.{c}")).collect(),
        residual_rms: per_joint(&weighted.residual),
        condition: top / low,
        samples: m / nv.max(1),
        derivatives: "",
        weakest: (low / top, weakest),
        written: None,
        loops: None,
    })
}

/// The largest components of direction `k` (at least a fifth of the
/// largest), as `(name, component)`, the largest first, scaled so that it
/// is one.
fn components(names: &[String], directions: &[Vec<f64>], k: usize) -> Vec<(String, f64)> {
    let column: Vec<f64> = directions.iter().map(|row| row[k]).collect();
    let largest = column.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let mut parts: Vec<(String, f64)> = names
        .iter()
        .zip(&column)
        .filter(|(_, x)| x.abs() >= 0.2 * largest && largest > 0.0)
        .map(|(n, x)| (n.clone(), x / largest))
        .collect();
    parts.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    parts
}

/// Direction `k` as text: `link2.xx_r − 0.5·link3.m`.
fn direction(names: &[String], directions: &[Vec<f64>], k: usize) -> String {
    let mut text = String::new();
    for (name, x) in components(names, directions, k) {
        let sign = match (text.is_empty(), x < 0.0) {
            (true, false) => "",
            (true, true) => "−",
            (false, false) => " + ",
            (false, true) => " − ",
        };
        let magnitude = x.abs();
        if (magnitude - 1.0).abs() < 1e-9 {
            let _ = write!(text, "{sign}{name}");
        } else {
            let _ = write!(text, "{sign}{magnitude:.3}·{name}");
        }
    }
    text
}
