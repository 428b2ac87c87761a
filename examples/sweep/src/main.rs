//! A parameter sweep from Rust: the rod of `specs/damped_pendulum.spec`,
//! without its spring, damper and drive, swung 0.5 rad from hanging and
//! timed over eleven lengths, one case per core at a time with rayon, what
//! `sharnir sweep --vary p.l=0.2:1.2:11` does from the command line.
//!
//! A uniform rod of length `l` pivoted at one end is a compound pendulum
//! with `I = m l²/3` about the pivot and its centre of mass `l/2` below
//! it: for an amplitude `θ₀` its period is exactly
//! `2π √(2l/(3g)) / AGM(1, cos(θ₀/2))` (the complete elliptic integral
//! through the arithmetic–geometric mean).

use rayon::prelude::*;
use sharnir_generated::damped_pendulum::Params;
use sharnir_runtime::{model, Direction, Event, Method, Sample, Simulation, Tolerances};
use std::f64::consts::PI;

model!(Pendulum = sharnir_generated::damped_pendulum);

/// The swing's amplitude from hanging, rad.
const AMPLITUDE: f64 = 0.5;

/// The rod hanging straight down (gravity along −y, the rod along its x).
const HANGING: f64 = -PI / 2.0;

/// The period of the rod of length `l`, s: the time between its first and
/// third passages through the bottom (events located on the dense output),
/// or the integrator's error.
fn period(l: f64) -> Result<f64, String> {
    let params = Params {
        l,
        k: 0.0,
        c: 0.0,
        tau0: 0.0,
        ..Params::default()
    };
    let bottom = |_t: f64, q: &[f64], _v: &[f64], g: &mut [f64]| {
        if let (Some(slot), Some(theta)) = (g.first_mut(), q.first()) {
            *slot = theta - HANGING;
        }
    };
    let summary = Simulation::new(Pendulum::new(params))
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        })
        .initial_state([HANGING + AMPLITUDE], [0.0])
        .events(vec![Event::new("bottom", Direction::Either)], bottom)
        .run(3.0 * closed_form(l), |_: &Sample<'_>| {})
        .map_err(|e| e.to_string())?;
    match &summary.events[..] {
        [first, _, third, ..] => Ok(third.t - first.t),
        events => Err(format!("{} passages through the bottom", events.len())),
    }
}

/// The exact period of the rod of length `l` at [`AMPLITUDE`], s.
fn closed_form(l: f64) -> f64 {
    let g = Params::default().g;
    let (mut a, mut b) = (1.0_f64, (AMPLITUDE / 2.0).cos());
    while (a - b).abs() > 1e-15 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    2.0 * PI * (2.0 * l / (3.0 * g)).sqrt() / a
}

/// The lengths swept, m: 0.2 to 1.2 in steps of 0.1.
fn lengths() -> Vec<f64> {
    (0..11).map(|i| 0.2 + 0.1 * f64::from(i)).collect()
}

/// Every length with its simulated period, in parallel and in order.
fn sweep() -> Vec<(f64, Result<f64, String>)> {
    lengths().into_par_iter().map(|l| (l, period(l))).collect()
}

fn main() -> std::process::ExitCode {
    let mut failed = 0;
    println!("l/m   period/s (simulated)  period/s (closed form)");
    for (l, period) in sweep() {
        match period {
            Ok(t) => println!("{l:.1}   {t:.12}        {:.12}", closed_form(l)),
            Err(e) => {
                failed += 1;
                println!("{l:.1}   failed: {e}");
            }
        }
    }
    std::process::ExitCode::from(failed)
}

#[cfg(test)]
mod tests {
    /// The periods within 1e-8 of the closed form (the integrator's
    /// tolerance is 1e-12; event location adds its own rounding).
    #[test]
    fn periods_match_the_closed_form() {
        let results = super::sweep();
        assert_eq!(results.len(), 11);
        for (l, period) in results {
            let period = period.expect("the pendulum swings");
            let exact = super::closed_form(l);
            assert!(
                ((period - exact) / exact).abs() < 1e-8,
                "l = {l}: {period} s against {exact} s"
            );
        }
    }
}
