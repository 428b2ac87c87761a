//! The text a run prints: how its start had to change to be consistent,
//! and the closing summary (integration statistics, energy, events).

use crate::csv_output::direction_name;
use crate::options::SimOptions;
use sharnir_runtime::{Model, Summary};
use std::fmt::Write as _;

/// How many events the summary names; the rest are in the events file.
const EVENTS_LISTED: usize = 5;

/// The closing summary: what MATLAB prints with `Stats = 'on'`, plus the
/// real-time factor, the energy drift and, when events were watched, their
/// count and the first few.
pub(crate) fn report(
    summary: &Summary,
    options: &SimOptions,
    t0: f64,
    wall: f64,
    watching: bool,
) -> String {
    let s = summary.stats;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "simulated {} s with {} in {:.3} s wall time: real-time factor {:.3e}",
        summary.t_end - t0,
        options.method_name(),
        wall,
        (summary.t_end - t0) / wall.max(1e-12)
    );
    let _ = writeln!(
        text,
        "steps {}, rejected {}, rhs evaluations {}, jacobians {}, decompositions {}, samples {}",
        s.steps,
        s.rejected,
        s.rhs_evaluations,
        s.jacobian_evaluations,
        s.decompositions,
        summary.samples
    );
    if summary.conservative {
        let _ = writeln!(
            text,
            "energy: E(0) = {:e}, max |E(t) − E(0)| = {:.3e} ({:.3e} of the energy that moved)",
            summary.initial_energy,
            summary.energy_drift,
            summary.relative_energy_drift()
        );
    } else {
        let _ = writeln!(
            text,
            "energy balance: E(0) = {:e}, work of the forces W = {:.3e}, max |E(t) − W(t) − E(0)| \
             = {:.3e} ({:.3e} of the energy that moved; W: the spec's forces, stops, damping, \
             friction, drives)",
            summary.initial_energy,
            summary.work,
            summary.energy_drift,
            summary.relative_energy_drift()
        );
    }
    if watching {
        report_events(&mut text, summary);
    }
    text
}

/// Changes of the start below this (rounding, quaternions normalised) go
/// unreported.
const UNREPORTED_CORRECTION: f64 = 1e-9;

/// The line that says how the requested initial state had to change to
/// start (quaternions normalised; loops assembled with the independent
/// coordinates held, velocities projected), naming the coordinates that moved most; empty when nothing
/// moved by more than [`UNREPORTED_CORRECTION`].
pub(crate) fn report_start<M, const NQ: usize, const NV: usize>(
    q0: &[f64; NQ],
    v0: &[f64; NV],
    started: &[f64],
) -> String
where
    M: Model<NQ, NV, Real = f64>,
{
    const LISTED: usize = 3;
    let names = M::POSITION_NAMES
        .iter()
        .map(|n| format!("q.{n}"))
        .chain(M::VELOCITY_NAMES.iter().map(|n| format!("v.{n}")));
    let mut changes: Vec<(String, f64)> = names
        .zip(q0.iter().chain(v0))
        .zip(started)
        .map(|((name, requested), started)| (name, started - requested))
        .filter(|(_, change)| change.abs() > UNREPORTED_CORRECTION)
        .collect();
    if changes.is_empty() {
        return String::new();
    }
    changes.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let mut text = format!(
        "start: the initial state was made consistent (quaternions unit, loops closed with the \
         independent coordinates held, velocities projected); {} value(s) changed: ",
        changes.len()
    );
    for (i, (name, change)) in changes.iter().take(LISTED).enumerate() {
        let separator = if i == 0 { "" } else { ", " };
        let _ = write!(text, "{separator}{name} by {change:+.3e}");
    }
    if changes.len() > LISTED {
        text.push_str(", …");
    }
    text.push('\n');
    text
}

/// The events lines of the summary: the count, the first few with their
/// times, and the terminal event that ended the run.
fn report_events(text: &mut String, summary: &Summary) {
    let events = &summary.events;
    let _ = write!(text, "events: {}", events.len());
    for (i, e) in events.iter().take(EVENTS_LISTED).enumerate() {
        let separator = if i == 0 { ": " } else { ", " };
        let _ = write!(
            text,
            "{separator}{} ({}) at {} s",
            e.name,
            direction_name(e.direction),
            e.t
        );
    }
    if events.len() > EVENTS_LISTED {
        let _ = write!(text, ", …");
    }
    text.push('\n');
    if let Some(e) = summary.terminated_by.and_then(|i| events.get(i)) {
        let _ = writeln!(
            text,
            "stopped by the terminal event {} at t = {} s",
            e.name, e.t
        );
    }
}
