//! Which integrator for joint stops: the pendulum of
//! `specs/pendulum_stop.spec` swinging into its stops for three seconds,
//! with the spec's soft stop, with one a million-fold stiffer, and resting
//! against a sharp stop that gravity presses it into (the upper bound moved
//! below the hanging position), by every adaptive method at `rtol = 1e-8`,
//! `atol = 1e-10`.
//!
//! `cargo run --release -p sharnir-benches --bin stop-table`
//!
//! Prints steps, rejected steps, right-hand-side evaluations, wall time,
//! and the number of contact events (stops struck and left) seen, as
//! Markdown for `docs/performance.md`.

use sharnir_generated::pendulum_stop::Params;
use sharnir_runtime::{model, Direction, Event, Method, Model, Sample, Simulation, Tolerances};
use std::time::Instant;

model!(Pendulum = sharnir_generated::pendulum_stop);

fn main() {
    let stops = [
        ("soft (k = 100, a = 200)", 0.0, Params::default()),
        (
            "hard (k = 1e6, μ = 1e6, a = 1e4)",
            0.0,
            Params {
                k_stop: 1e6,
                mu_stop: 1e6,
                a_stop: 1e4,
                ..Params::default()
            },
        ),
        (
            "resting (upper = −0.2, k = 100, μ = 1e4, a = 1e6; from −0.5 rad)",
            -0.5,
            Params {
                upper: -0.2,
                mu_stop: 1e4,
                a_stop: 1e6,
                ..Params::default()
            },
        ),
    ];
    let methods = [
        ("Dopri5", Method::Dopri5),
        ("DOP853", Method::Dop853),
        ("Adams", Method::Adams),
        ("Radau5", Method::Radau5),
    ];
    println!("| stop | method | steps | rejected | evaluations | wall time | contact events |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (stop, theta0, params) in stops {
        for (name, method) in methods {
            let model = Pendulum::new(params);
            let gaps = model;
            let events = <Pendulum as Model<1, 1>>::CONTACT_NAMES
                .iter()
                .map(|n| Event::new(*n, Direction::Either))
                .collect();
            let started = Instant::now();
            let result = Simulation::new(model)
                .initial_state([theta0], [4.0])
                .method(method)
                .tolerances(Tolerances {
                    rtol: 1e-8,
                    atol: 1e-10,
                })
                .events(events, move |_t, q, _v, g| gaps.contact_gaps(&[q[0]], g))
                .run(3.0, |_: &Sample<'_>| {});
            let wall = started.elapsed().as_secs_f64() * 1e3;
            match result {
                Ok(summary) => {
                    let s = summary.stats;
                    println!(
                        "| {stop} | {name} | {} | {} | {} | {wall:.2} ms | {} |",
                        s.steps,
                        s.rejected,
                        s.rhs_evaluations,
                        summary.events.len()
                    );
                }
                Err(e) => println!("| {stop} | {name} | failed: {e} | | | {wall:.2} ms | |"),
            }
        }
    }
}
