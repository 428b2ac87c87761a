//! `sharnir linearize`: the state-space matrices `A` and `B` of a spec at
//! its initial state (or one given on the command line), with the
//! eigenvalues of `A`, so that an equilibrium's stability is one command.
//!
//! Nothing is compiled: the module's `forward_dynamics_derivatives` is
//! planned and evaluated in memory ([`sharnir_codegen::Plan::linearization`],
//! the same numbers the emitted `linearization` returns). Unlike the
//! emitted function, whose `τ` is every joint force, the command
//! linearizes the mechanism as it moves by itself: the spec's `[forces]`
//! (at `--time`) and the joints' damping and friction are added to `τ`,
//! and their derivatives, by central differences along the configuration
//! manifold, join `A` through `M⁻¹`. Joint stops are left out (the
//! linearization is of the motion with every stop apart), with a note.
//! The eigenvalues come from `faer` (see ARCHITECTURE.md, "Dependencies").

use crate::args::LinearizeArgs;
use crate::{load, normalise_quaternions};
use faer::Mat;
use sharnir_codegen::plan::outputs::{Function, Outputs};
use sharnir_codegen::PlanOptions;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_sim::{parse_assignment, CoordinateKind};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The state, the matrices and the eigenvalues of one linearization.
struct Linearized {
    positions: Vec<(String, f64)>,
    velocities: Vec<(String, f64)>,
    forces: Vec<f64>,
    a: Vec<Vec<f64>>,
    b: Vec<Vec<f64>>,
    eigenvalues: Vec<(f64, f64)>,
}

/// Runs `sharnir linearize`.
pub(crate) fn run(args: &LinearizeArgs, root: &Path) -> miette::Result<()> {
    let spec = load(root, &args.spec, &args.urdf.options())?;
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime)?;
    let mut q = mechanism.initial_positions.clone();
    let mut v = mechanism.initial_velocities.clone();
    let mut tau = vec![0.0; mechanism.dof()];
    for text in &args.set {
        let assignment = parse_assignment(text).map_err(|e| miette::miette!("{e}"))?;
        let (names, values, prefix) = match assignment.kind {
            CoordinateKind::Position => (&mechanism.positions, &mut q, "q"),
            CoordinateKind::Velocity => (&mechanism.coordinates, &mut v, "v"),
            CoordinateKind::Parameter => miette::bail!(
                help = "linearize evaluates at the spec's parameter values; edit [parameters]",
                "--set {text}: linearize sets the state (q., v.), not parameters"
            ),
        };
        let slot = slot(names, &assignment.name, &format!("--set {prefix}."))?;
        values[slot] = assignment.value;
    }
    for text in &args.tau {
        let (name, value) = text.split_once('=').ok_or_else(|| {
            miette::miette!(help = "write --tau NAME=VALUE", "--tau {text}: no '='")
        })?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| {
                miette::miette!("--tau {text}: '{}' is not a finite number", value.trim())
            })?;
        tau[slot(&mechanism.coordinates, name.trim(), "--tau ")?] = value;
    }
    normalise_quaternions(&mechanism.quaternions, &mut q)?;
    let mechanism_quaternions = mechanism.quaternions.clone();
    let parameters: HashMap<String, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect();
    let positions: Vec<(String, f64)> =
        mechanism.positions.iter().cloned().zip(q.clone()).collect();
    let velocities: Vec<(String, f64)> = mechanism
        .coordinates
        .iter()
        .cloned()
        .zip(v.clone())
        .collect();
    if !mechanism.contacts.is_empty() {
        eprintln!(
            "note: {}: the joint stops, clearances and gear meshes are left out: this is the \
             motion with every contact apart",
            spec.source.name
        );
    }
    let options = PlanOptions {
        outputs: Some(
            Outputs::NONE
                .with(Function::ForwardDynamicsDerivatives)
                .with(Function::CoordinateRates),
        ),
        ..PlanOptions::default()
    };
    let plan = sharnir_codegen::plan(&mut mechanism, &options)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
    let state = State {
        plan: &plan,
        parameters: &parameters,
        time: args.time,
    };
    let unevaluated = || {
        miette::miette!(
            "{}: the linearization cannot be evaluated",
            spec.source.name
        )
    };
    let own = state.own_forces(&q, &v).ok_or_else(unevaluated)?;
    let applied: Vec<f64> = tau.iter().zip(&own).map(|(t, f)| t + f).collect();
    let input = state.input(&q, &v, &applied);
    let sharnir_codegen::linearization::StateSpace { mut a, b } =
        plan.linearization(&input).ok_or_else(unevaluated)?;
    let [by_position, by_velocity] = state
        .own_force_derivatives(&q, &v, &mechanism_quaternions)
        .ok_or_else(unevaluated)?;
    let nv = v.len();
    for i in 0..nv {
        for j in 0..nv {
            let inverse = |k: usize| b[nv + i][k];
            a[nv + i][j] += (0..nv).map(|k| inverse(k) * by_position[k][j]).sum::<f64>();
            a[nv + i][nv + j] += (0..nv).map(|k| inverse(k) * by_velocity[k][j]).sum::<f64>();
        }
    }
    if a.iter()
        .flatten()
        .chain(b.iter().flatten())
        .any(|x| !x.is_finite())
    {
        miette::bail!(
            help = "check the state: a mass matrix that is singular there has no inverse",
            "{}: the linearization is not finite at this state",
            spec.source.name
        );
    }
    let linearized = Linearized {
        eigenvalues: eigenvalues(&a)?,
        positions,
        velocities,
        forces: tau,
        a,
        b,
    };
    let text = if args.json {
        json(&linearized)
    } else if args.csv {
        csv(&linearized)
    } else {
        table(&linearized)
    };
    print!("{text}");
    Ok(())
}

/// The planned module at the parameters' spec values, for evaluating its
/// functions at any state.
struct State<'a> {
    plan: &'a sharnir_codegen::Plan,
    parameters: &'a HashMap<String, f64>,
    time: f64,
}

/// Central differences' step for the mechanism's own forces.
const STEP: f64 = 1e-6;

impl State<'_> {
    /// The inputs of the plan's programs at `(q, q̇, τ)`.
    fn input<'s>(
        &'s self,
        q: &'s [f64],
        v: &'s [f64],
        tau: &'s [f64],
    ) -> impl Fn(&Input) -> Option<f64> + 's {
        move |symbol: &Input| match symbol {
            Input::Parameter(name) => self.parameters.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Force(i) => tau.get(*i).copied(),
            Input::Time => Some(self.time),
            _ => None,
        }
    }

    /// The joint forces the mechanism applies by itself and smoothly: the
    /// spec's `[forces]` and the joints' damping and friction.
    fn own_forces(&self, q: &[f64], v: &[f64]) -> Option<Vec<f64>> {
        let input = self.input(q, v, &[]);
        let mut total = vec![0.0; v.len()];
        for function in ["applied_forces", "friction_forces"] {
            if self.plan.function(function).is_some() {
                let forces = self.plan.evaluate(function, &input)?;
                total.iter_mut().zip(forces).for_each(|(t, f)| *t += f);
            }
        }
        Some(total)
    }

    /// `∂τ/∂q` (in velocity coordinates: `q` moved along
    /// `coordinate_rates(q, eⱼ)`, quaternions renormalised) and `∂τ/∂q̇` of
    /// [`State::own_forces`], by central differences, rows as vectors.
    fn own_force_derivatives(
        &self,
        q: &[f64],
        v: &[f64],
        quaternions: &[usize],
    ) -> Option<[Vec<Vec<f64>>; 2]> {
        let nv = v.len();
        let mut by_position = vec![vec![0.0; nv]; nv];
        let mut by_velocity = vec![vec![0.0; nv]; nv];
        for j in 0..nv {
            let mut unit = vec![0.0; nv];
            unit[j] = 1.0;
            let rates = self
                .plan
                .evaluate("coordinate_rates", &self.input(q, &unit, &[]))?;
            let moved = |sign: f64| -> Option<Vec<f64>> {
                let mut moved: Vec<f64> = q
                    .iter()
                    .zip(&rates)
                    .map(|(x, r)| x + sign * STEP * r)
                    .collect();
                normalise_quaternions(quaternions, &mut moved).ok()?;
                self.own_forces(&moved, v)
            };
            let (ahead, behind) = (moved(1.0)?, moved(-1.0)?);
            let mut faster = v.to_vec();
            faster[j] += STEP;
            let mut slower = v.to_vec();
            slower[j] -= STEP;
            let (fast, slow) = (self.own_forces(q, &faster)?, self.own_forces(q, &slower)?);
            for i in 0..nv {
                by_position[i][j] = (ahead[i] - behind[i]) / (2.0 * STEP);
                by_velocity[i][j] = (fast[i] - slow[i]) / (2.0 * STEP);
            }
        }
        Some([by_position, by_velocity])
    }
}

/// The index of `name` among `names`, or an error listing them.
fn slot(names: &[String], name: &str, flag: &str) -> miette::Result<usize> {
    names.iter().position(|n| n == name).ok_or_else(|| {
        miette::miette!(
            help = format!("the names are {}", names.join(", ")),
            "{flag}{name}: no such coordinate"
        )
    })
}

/// The eigenvalues of `a`, largest real part first.
fn eigenvalues(a: &[Vec<f64>]) -> miette::Result<Vec<(f64, f64)>> {
    let n = a.len();
    let matrix = Mat::<f64>::from_fn(n, n, |i, j| a[i][j]);
    let values = matrix
        .eigenvalues()
        .map_err(|e| miette::miette!("the eigenvalues of A did not converge: {e:?}"))?;
    let mut pairs: Vec<(f64, f64)> = values.iter().map(|z| (z.re, z.im)).collect();
    pairs.sort_by(|x, y| y.0.total_cmp(&x.0).then(y.1.total_cmp(&x.1)));
    Ok(pairs)
}

/// What the eigenvalues say about the state, if it is an equilibrium.
fn verdict(eigenvalues: &[(f64, f64)]) -> &'static str {
    let scale = eigenvalues
        .iter()
        .fold(1.0_f64, |m, (re, im)| m.max(re.hypot(*im)));
    let tolerance = 1e-9 * scale;
    let largest = eigenvalues.first().map_or(0.0, |e| e.0);
    if largest > tolerance {
        "unstable: an eigenvalue has a positive real part"
    } else if largest < -tolerance {
        "asymptotically stable: every eigenvalue has a negative real part"
    } else {
        "marginal: the largest real part is zero (to 1e-9), so the linearization does not decide"
    }
}

/// The default output: the state, `A` and `B` with row and column names,
/// the eigenvalues and what they say.
fn table(l: &Linearized) -> String {
    let mut out = String::new();
    let state: Vec<String> = l
        .velocities
        .iter()
        .map(|(n, _)| format!("δ{n}"))
        .chain(l.velocities.iter().map(|(n, _)| format!("v.{n}")))
        .collect();
    let _ = writeln!(out, "state: x = (δq, q̇), q = q̄ ⊕ δq (velocity coordinates)");
    for (name, value) in &l.positions {
        let _ = writeln!(out, "  q.{name} = {value}");
    }
    for ((name, value), tau) in l.velocities.iter().zip(&l.forces) {
        let _ = writeln!(out, "  v.{name} = {value}   tau.{name} = {tau}");
    }
    let columns: Vec<String> = l
        .velocities
        .iter()
        .map(|(n, _)| format!("tau.{n}"))
        .collect();
    let _ = writeln!(out, "\nA = ∂ẋ/∂x:");
    matrix(&mut out, &state, &state, &l.a);
    let _ = writeln!(out, "\nB = ∂ẋ/∂τ:");
    matrix(&mut out, &state, &columns, &l.b);
    let _ = writeln!(out, "\neigenvalues of A:");
    for (re, im) in &l.eigenvalues {
        let _ = writeln!(out, "  {re:>14.6e} {:+.6e}i", im);
    }
    let _ = writeln!(out, "{}", verdict(&l.eigenvalues));
    out
}

/// `rows × columns` of `m` with the names, in aligned columns.
fn matrix(out: &mut String, rows: &[String], columns: &[String], m: &[Vec<f64>]) {
    let width = 13;
    let label = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let _ = write!(out, "{:label$}", "");
    for c in columns {
        let _ = write!(out, " {c:>width$}");
    }
    let _ = writeln!(out);
    for (r, row) in rows.iter().zip(m) {
        let _ = write!(out, "{r:label$}");
        for x in row {
            let _ = write!(out, " {x:>width$.5e}");
        }
        let _ = writeln!(out);
    }
}

/// `--json`: one object.
fn json(l: &Linearized) -> String {
    let named = |pairs: &[(String, f64)]| -> serde_json::Value {
        pairs
            .iter()
            .map(|(n, x)| (n.clone(), serde_json::json!(x)))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let value = serde_json::json!({
        "positions": named(&l.positions),
        "velocities": named(&l.velocities),
        "tau": l.forces,
        "state": l.velocities.iter().map(|(n, _)| format!("dq.{n}"))
            .chain(l.velocities.iter().map(|(n, _)| format!("v.{n}")))
            .collect::<Vec<_>>(),
        "a": l.a,
        "b": l.b,
        "eigenvalues": l.eigenvalues.iter()
            .map(|(re, im)| serde_json::json!({ "re": re, "im": im }))
            .collect::<Vec<_>>(),
        "verdict": verdict(&l.eigenvalues),
    });
    format!("{value}\n")
}

/// `--csv`: `A`, `B` and the eigenvalues, each after a header row, with a
/// blank line between them.
fn csv(l: &Linearized) -> String {
    let mut out = String::new();
    let state: Vec<String> = l
        .velocities
        .iter()
        .map(|(n, _)| format!("dq.{n}"))
        .chain(l.velocities.iter().map(|(n, _)| format!("v.{n}")))
        .collect();
    let forces: Vec<String> = l
        .velocities
        .iter()
        .map(|(n, _)| format!("tau.{n}"))
        .collect();
    for (header, rows) in [(&state, &l.a), (&forces, &l.b)] {
        let _ = writeln!(out, "row,{}", header.join(","));
        for (name, row) in state.iter().zip(rows.iter()) {
            let values: Vec<String> = row.iter().map(|x| format!("{x:e}")).collect();
            let _ = writeln!(out, "{name},{}", values.join(","));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "re,im");
    for (re, im) in &l.eigenvalues {
        let _ = writeln!(out, "{re:e},{im:e}");
    }
    out
}
