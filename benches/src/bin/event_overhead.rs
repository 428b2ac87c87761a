//! The cost of watching events that never fire: the same simulation with
//! and without three event functions, on the 10-rod chain and the triple
//! pendulum, with DOP853 and Dopri5.
//!
//! `cargo run --release -p sharnir-benches --bin event-overhead`
//!
//! Watching costs one evaluation of the event function per accepted step
//! (and a sign comparison); locating costs nothing while nothing crosses.
//! The two runs are interleaved and each keeps its best wall time, so that
//! a slow moment of the machine does not land on one side only.

use sharnir_runtime::{model, Direction, Event, Method, Model, Sample, Simulation, Tolerances};
use std::time::Instant;

model!(Chain10 = sharnir_generated::chain10);
model!(Pendulum = sharnir_generated::triple_pendulum);

const REPEATS: usize = 15;

/// Three events on the first coordinates that no motion of these
/// mechanisms reaches (|q| would have to exceed 100 rad).
fn never(_t: f64, q: &[f64], v: &[f64], g: &mut [f64]) {
    g[0] = q[0] - 100.0;
    g[1] = q[1] + 100.0;
    g[2] = v[0] - 1e6;
}

/// The wall time of one run, and its step count.
fn time_run<M, const NQ: usize, const NV: usize>(
    model: M,
    method: Method,
    t_end: f64,
    watch: bool,
) -> (f64, u64)
where
    M: Model<NQ, NV, Real = f64> + Copy,
{
    let mut simulation = Simulation::new(model)
        .method(method)
        .tolerances(Tolerances {
            rtol: 1e-10,
            atol: 1e-10,
        })
        .output_interval(t_end / 1000.0);
    if watch {
        let events = vec![
            Event::new("q0 high", Direction::Rising),
            Event::new("q1 low", Direction::Falling),
            Event::new("v0 fast", Direction::Either).terminal(),
        ];
        simulation = simulation.events(events, never);
    }
    let started = Instant::now();
    let summary = simulation
        .run(t_end, |_: &Sample<'_>| {})
        .expect("the benchmark runs to its end");
    let elapsed = started.elapsed().as_secs_f64();
    assert!(summary.events.is_empty(), "an event fired");
    (elapsed, summary.stats.steps)
}

/// Best wall times without and with events over interleaved repeats.
fn compare<M, const NQ: usize, const NV: usize>(name: &str, model: M, method: Method, t_end: f64)
where
    M: Model<NQ, NV, Real = f64> + Copy,
{
    let (mut plain, mut watched, mut steps) = (f64::INFINITY, f64::INFINITY, 0);
    for _ in 0..REPEATS {
        let (t, s) = time_run(model, method, t_end, false);
        plain = plain.min(t);
        steps = s;
        watched = watched.min(time_run(model, method, t_end, true).0);
    }
    println!(
        "| {name} | {method:?} | {steps} | {:.3} ms | {:.3} ms | {:.3} |",
        plain * 1e3,
        watched * 1e3,
        watched / plain
    );
}

fn main() {
    println!("| model | method | steps | without events | with 3 events | ratio |");
    println!("|---|---|---:|---:|---:|---:|");
    compare("chain10, 10 s", Chain10::default(), Method::Dop853, 10.0);
    compare("chain10, 10 s", Chain10::default(), Method::Dopri5, 10.0);
    compare(
        "triple pendulum, 5 s",
        Pendulum::default(),
        Method::Dop853,
        5.0,
    );
    compare(
        "triple pendulum, 5 s",
        Pendulum::default(),
        Method::Dopri5,
        5.0,
    );
}
