//! The simulation table of `docs/performance.md`: real-time factors of the
//! runtime's integrators on the 10-rod chain and a 6-DOF arm, each
//! integrator driving the generated module and, in the same run, the
//! generic articulated-body forward dynamics of `sharnir-numeric`.
//!
//! `cargo run --release -p sharnir-benches --bin simulation-table`
//!
//! Both contestants start from the same state and take the same method and
//! tolerances; their step counts are printed so that a difference in work
//! (not in speed per evaluation) shows. Each run is repeated and the best
//! wall time kept. The symplectic method needs the Coriolis matrix, which
//! only generated modules have: its generic columns are empty.

use sharnir_runtime::{model, Method, Model, OdeSystem, RhsError, Simulation, Tolerances};
use sharnir_runtime::{Rk4, Stepper};
use sharnir_tests::oracle::Oracle;
use std::time::Instant;

model!(Chain10 = sharnir_generated::chain10);
model!(Puma560 = sharnir_generated::puma560);

/// The generic forward dynamics (articulated-body algorithm) as an ODE.
struct Generic {
    oracle: Oracle,
    nq: usize,
}

impl OdeSystem for Generic {
    fn dimension(&self) -> usize {
        self.nq + self.oracle.dof()
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let (q, v) = y.split_at(self.nq);
        let tau = vec![0.0; v.len()];
        let rates = self.oracle.coordinate_rates(q, v);
        let accelerations = self.oracle.forward_dynamics(q, v, &tau);
        dy[..self.nq].copy_from_slice(&rates);
        dy[self.nq..].copy_from_slice(&accelerations);
        Ok(())
    }
}

const REPEATS: usize = 5;

/// Best wall time (s) and the step count of a run of the generated model.
fn time_generated<M, const NQ: usize, const NV: usize>(
    model: M,
    method: Method,
    tolerances: Tolerances,
    t_end: f64,
) -> (f64, u64, u64)
where
    M: Model<NQ, NV, Real = f64> + Copy,
{
    let mut best = f64::INFINITY;
    let mut work = (0, 0);
    for _ in 0..REPEATS {
        let mut simulation = Simulation::new(model)
            .method(method)
            .tolerances(tolerances)
            .output_interval(t_end);
        let started = Instant::now();
        let summary = simulation.run(t_end, |_: &sharnir_runtime::Sample<'_>| {});
        let elapsed = started.elapsed().as_secs_f64();
        if let Ok(summary) = summary {
            best = best.min(elapsed);
            work = (summary.stats.steps, summary.stats.rhs_evaluations);
        }
    }
    (best, work.0, work.1)
}

/// The same for the generic algorithm, stepped directly (the `Simulation`
/// driver is for models; its per-step overhead is one energy evaluation per
/// sample, and there are two samples here).
fn time_generic(
    system: &mut Generic,
    y0: &[f64],
    method: Method,
    tolerances: Tolerances,
    t_end: f64,
) -> (f64, u64, u64) {
    let mut best = f64::INFINITY;
    let mut work = (0, 0);
    for _ in 0..REPEATS {
        let started = Instant::now();
        let stepper: Result<Box<dyn Stepper<Generic>>, _> = match method {
            Method::Rk4 { step } => Rk4::new(system, 0.0, y0.to_vec(), step)
                .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>),
            Method::Dopri5 => sharnir_runtime::adaptive::Dopri5::new(system, 0.0, y0, tolerances)
                .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>),
            Method::Dop853 => sharnir_runtime::adaptive::Dop853::new(system, 0.0, y0, tolerances)
                .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>),
            Method::Radau5 => sharnir_runtime::adaptive::Radau5::new(system, 0.0, y0, tolerances)
                .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>),
            Method::Adams => sharnir_runtime::adaptive::Adams::new(system, 0.0, y0, tolerances)
                .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>),
            // The generic tree has no Coriolis matrix: the momentum form runs
            // on generated modules only.
            Method::Symplectic { .. } => return (f64::NAN, 0, 0),
            Method::SemiImplicitEuler { step } => {
                sharnir_runtime::SemiImplicitEuler::new(system, 0.0, y0.to_vec(), step, system.nq)
                    .map(|s| Box::new(s) as Box<dyn Stepper<Generic>>)
            }
        };
        let Ok(mut stepper) = stepper else {
            return (f64::NAN, 0, 0);
        };
        while stepper.t() < t_end {
            if stepper.step(system, t_end).is_err() {
                return (f64::NAN, 0, 0);
            }
        }
        best = best.min(started.elapsed().as_secs_f64());
        let stats = stepper.stats();
        work = (stats.steps, stats.rhs_evaluations);
    }
    (best, work.0, work.1)
}

fn methods() -> Vec<(&'static str, Method, Tolerances)> {
    let tol = |t: f64| Tolerances { rtol: t, atol: t };
    vec![
        ("rk4, h = 1e-3", Method::Rk4 { step: 1e-3 }, tol(1.0)),
        (
            "euler, h = 1e-4",
            Method::SemiImplicitEuler { step: 1e-4 },
            tol(1.0),
        ),
        ("dopri5, tol 1e-8", Method::Dopri5, tol(1e-8)),
        ("dop853, tol 1e-10", Method::Dop853, tol(1e-10)),
        ("adams, tol 1e-10", Method::Adams, tol(1e-10)),
        (
            "symplectic, h = 1e-3",
            Method::Symplectic { step: 1e-3 },
            tol(1.0),
        ),
        ("radau5, tol 1e-8", Method::Radau5, tol(1e-8)),
    ]
}

fn rows<M, const NQ: usize, const NV: usize>(name: &str, spec: &str, model: M, t_end: f64)
where
    M: Model<NQ, NV, Real = f64> + Copy,
{
    let oracle = Oracle::for_spec(spec);
    let y0: Vec<f64> = model
        .initial_positions()
        .iter()
        .chain(&model.initial_velocities())
        .copied()
        .collect();
    let mut generic = Generic { oracle, nq: NQ };
    for (label, method, tolerances) in methods() {
        let (wall, steps, evaluations) = time_generated(model, method, tolerances, t_end);
        let (generic_wall, generic_steps, _) =
            time_generic(&mut generic, &y0, method, tolerances, t_end);
        let generic = if generic_wall.is_finite() {
            format!(
                "{:.2} | {generic_steps} | {:.1}×",
                generic_wall * 1e3,
                generic_wall / wall
            )
        } else {
            "— | — | —".to_owned()
        };
        println!(
            "| {name} | {label} | {steps} | {evaluations} | {:.2} | {:.0} | {generic} |",
            wall * 1e3,
            t_end / wall,
        );
    }
}

fn main() {
    println!(
        "| mechanism | method | steps | rhs evaluations | generated, ms | real-time factor | generic (ABA), ms | generic steps | speed-up |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    rows("chain10, 10 s", "chain10", Chain10::default(), 10.0);
    let arm = Puma560::default();
    rows("puma560, 10 s", "puma560", arm, 10.0);
}
