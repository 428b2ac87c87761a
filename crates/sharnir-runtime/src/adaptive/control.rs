//! What the adaptive integrators share: argument checks, the error norm,
//! the step-size controller and the initial step of Hairer, Nørsett and
//! Wanner (*Solving ODEs I*, II.4, and their codes `dopri5`, `dop853`).

use crate::stepper::Track;
use crate::{IntegrationError, OdeSystem, Stats, Tolerances};

/// Unit roundoff of `f64` as HNW's codes use it (a step shorter than
/// `t · UROUND · 10` cannot advance time).
pub(crate) const UROUND: f64 = 2.3e-16;

/// The track of an adaptive integration, whose states live on the heap.
pub(crate) type AdaptiveTrack = Track<f64, Vec<f64>>;

/// Limits every adaptive integrator takes, set by its builder methods.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Most accepted + rejected steps before giving up.
    pub max_steps: u64,
    /// Largest step size (`None`: the whole interval).
    pub max_step: Option<f64>,
    /// First step size (`None`: HNW's estimate).
    pub initial_step: Option<f64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 1_000_000,
            max_step: None,
            initial_step: None,
        }
    }
}

/// Checks the start of an integration: a finite time (a NaN one would
/// never reach any end and only exhaust the step budget), the state length,
/// finite entries and positive tolerances.
fn check_start<S: OdeSystem>(
    system: &S,
    t0: f64,
    y0: &[f64],
    tolerances: Tolerances,
) -> Result<(), IntegrationError> {
    let invalid = |message| Err(IntegrationError::InvalidArgument { message });
    if !t0.is_finite() {
        return invalid("the initial time must be finite");
    }
    if system.dimension() != y0.len() {
        return invalid("the state length differs from the system's dimension");
    }
    if !y0.iter().all(|c| c.is_finite()) {
        return invalid("the initial state has an infinite or NaN entry");
    }
    let positive = |x: f64| x.is_finite() && x > 0.0;
    if !positive(tolerances.rtol) || !positive(tolerances.atol) {
        return invalid("the tolerances must be positive and finite");
    }
    if tolerances.rtol < 10.0 * UROUND {
        return invalid("the relative tolerance is below what f64 can resolve (about 2.3e-15)");
    }
    Ok(())
}

/// Starts an integration at `(t0, y0)`: checks the arguments, projects the
/// state onto the system's manifold and evaluates its rate. Returns the
/// track (with the work counted so far) and the rate.
pub(crate) fn start<S: OdeSystem>(
    system: &mut S,
    t0: f64,
    y0: &[f64],
    tolerances: Tolerances,
) -> Result<(AdaptiveTrack, Vec<f64>), IntegrationError> {
    check_start(system, t0, y0, tolerances)?;
    let mut y = y0.to_vec();
    system.project(t0, &mut y);
    let mut stats = Stats::default();
    let mut rate = vec![0.0; y.len()];
    if !evaluate(system, t0, &y, &mut rate, &mut stats)? {
        return Err(IntegrationError::NonFinite { t: t0 });
    }
    Ok((Track::new(t0, y, stats), rate))
}

/// Evaluates the right-hand side, counting it. `Ok(false)` when a rate is
/// infinite or NaN: the integrators then reject the step and try a shorter
/// one rather than stop at once, since an explicit stage far from the
/// solution can overflow where the solution itself is fine.
pub(crate) fn evaluate<S: OdeSystem>(
    system: &mut S,
    t: f64,
    y: &[f64],
    dy: &mut [f64],
    stats: &mut Stats,
) -> Result<bool, IntegrationError> {
    stats.rhs_evaluations += 1;
    system
        .rhs(t, y, dy)
        .map_err(|error| IntegrationError::Rhs { t, error })?;
    Ok(dy.iter().all(|c| c.is_finite()))
}

/// The scale of each component's error: `atol + rtol·max(|y₀|, |y₁|)`.
pub(crate) fn scale(tolerances: Tolerances, y0: f64, y1: f64) -> f64 {
    tolerances.atol + tolerances.rtol * y0.abs().max(y1.abs())
}

/// What the controller decided about a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Decision {
    /// Keep the step; continue with this step size.
    Accept(f64),
    /// Redo the step with this step size.
    Reject(f64),
}

/// The step-size controller of `dopri5` and `dop853`: `h_new = h /
/// clamp(err^α / err_old^β / safety)`, with the growth after a rejected
/// step capped at the rejected size (Gustafsson's stabilised, "PI"
/// control when β > 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Controller {
    /// `α`: 1/(q+1) less 0.75·β for dopri5, 1/8 for dop853.
    pub exponent: f64,
    /// `β` (0.04 for dopri5, 0 for dop853).
    pub beta: f64,
    /// Largest factor by which the step may shrink (5 for dopri5, 3 for
    /// dop853, as `1/fac1`).
    pub max_shrink: f64,
    /// Largest factor by which the step may grow (10 for dopri5, 6 for
    /// dop853).
    pub max_growth: f64,
    /// The previous accepted error (1e-4 at the start).
    pub previous_error: f64,
    /// Whether the last step was rejected.
    pub rejected_last: bool,
}

impl Controller {
    const SAFETY: f64 = 0.9;

    /// HNW's `dopri5` settings.
    pub fn dopri5() -> Self {
        Controller {
            exponent: 0.2 - 0.04 * 0.75,
            beta: 0.04,
            max_shrink: 5.0,
            max_growth: 10.0,
            previous_error: 1e-4,
            rejected_last: false,
        }
    }

    /// HNW's `dop853` settings.
    pub fn dop853() -> Self {
        Controller {
            exponent: 1.0 / 8.0,
            beta: 0.0,
            max_shrink: 3.0,
            max_growth: 6.0,
            previous_error: 1e-4,
            rejected_last: false,
        }
    }

    /// Judges a step of size `h` whose scaled error norm is `error`
    /// (`f64::INFINITY` for a step whose stages overflowed).
    pub fn decide(&mut self, error: f64, h: f64) -> Decision {
        if !error.is_finite() {
            self.rejected_last = true;
            return Decision::Reject(h / self.max_shrink);
        }
        let fac11 = error.powf(self.exponent);
        if error <= 1.0 {
            let fac = fac11 / self.previous_error.powf(self.beta);
            let fac = (fac / Self::SAFETY).clamp(1.0 / self.max_growth, self.max_shrink);
            let mut h_new = h / fac;
            if self.rejected_last {
                h_new = h_new.min(h);
            }
            self.previous_error = error.max(1e-4);
            self.rejected_last = false;
            Decision::Accept(h_new)
        } else {
            self.rejected_last = true;
            Decision::Reject(h / (fac11 / Self::SAFETY).min(self.max_shrink))
        }
    }
}

/// Where an integration starts: time, state and rate.
pub(crate) struct Start<'a> {
    pub t: f64,
    pub y: &'a [f64],
    pub rate: &'a [f64],
}

/// HNW's initial step (`HINIT`): a step whose explicit Euler error,
/// estimated from `f` and a second evaluation, is about 0.01 in the error
/// norm, for a method of order `order`.
pub(crate) fn initial_step<S: OdeSystem>(
    system: &mut S,
    start: Start<'_>,
    tolerances: Tolerances,
    order: i32,
    h_max: f64,
    stats: &mut Stats,
) -> Result<f64, IntegrationError> {
    let Start {
        t: t0,
        y: y0,
        rate: f0,
    } = start;
    let n = y0.len();
    let (mut dnf, mut dny) = (0.0, 0.0);
    for i in 0..n {
        let sk = scale(tolerances, y0[i], y0[i]);
        dnf += (f0[i] / sk).powi(2);
        dny += (y0[i] / sk).powi(2);
    }
    let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
        1e-6
    } else {
        (dny / dnf).sqrt() * 0.01
    };
    h = h.min(h_max);
    let y1: Vec<f64> = (0..n).map(|i| y0[i] + h * f0[i]).collect();
    let mut f1 = vec![0.0; n];
    if !evaluate(system, t0 + h, &y1, &mut f1, stats)? {
        return Ok((h * 1e-3).max(1e-12 * t0.abs().max(1.0)));
    }
    let der2 = (0..n)
        .map(|i| ((f1[i] - f0[i]) / scale(tolerances, y0[i], y0[i])).powi(2))
        .sum::<f64>()
        .sqrt()
        / h;
    let der12 = der2.abs().max(dnf.sqrt());
    let h1 = if der12 <= 1e-15 {
        (h * 1e-3).max(1e-6)
    } else {
        (0.01 / der12).powf(1.0 / f64::from(order))
    };
    Ok((100.0 * h).min(h1).min(h_max))
}

/// The step to try from `t` towards `t_end`: `h`, limited by `h_max`, and
/// stretched to land on `t_end` when within 1 % of it. Returns the step and
/// whether it ends exactly at `t_end`.
pub(crate) fn clip_step(t: f64, t_end: f64, h: f64, h_max: f64) -> (f64, bool) {
    let h = h.min(h_max);
    if t + 1.01 * h >= t_end {
        (t_end - t, true)
    } else {
        (h, false)
    }
}

/// Whether a step of size `h` at time `t` is too small to advance time.
pub(crate) fn too_small(t: f64, h: f64) -> bool {
    0.1 * h.abs() <= t.abs() * UROUND || h <= 0.0 || !h.is_finite()
}

/// Checks the step sizes the builder methods set: they cannot fail
/// themselves (they return `Self`), so a zero, negative or NaN size is
/// reported by the first step, as an argument error rather than as a step
/// size "too small" that the solution never asked for.
fn check_limits(limits: &Limits) -> Result<(), IntegrationError> {
    let usable = |h: Option<f64>| h.is_none_or(|h| h.is_finite() && h > 0.0);
    if !usable(limits.max_step) {
        return Err(IntegrationError::InvalidArgument {
            message: "the largest step must be positive and finite",
        });
    }
    if !usable(limits.initial_step) {
        return Err(IntegrationError::InvalidArgument {
            message: "the initial step must be positive and finite",
        });
    }
    Ok(())
}

/// The step to attempt next from `t` towards `t_end`: refuses to go on past
/// the step budget or with a step too small to advance time, else `h`
/// clipped as [`clip_step`] does.
pub(crate) fn next_attempt(
    limits: &Limits,
    stats: &Stats,
    t: f64,
    t_end: f64,
    h: f64,
    h_max: f64,
) -> Result<(f64, bool), IntegrationError> {
    check_limits(limits)?;
    if t_end.is_nan() {
        return Err(IntegrationError::InvalidArgument {
            message: "the end time is NaN",
        });
    }
    if stats.steps + stats.rejected >= limits.max_steps {
        return Err(IntegrationError::TooManySteps {
            t,
            limit: limits.max_steps,
        });
    }
    let (h, last) = clip_step(t, t_end, h, h_max);
    if too_small(t, h) {
        return Err(IntegrationError::StepSizeTooSmall { t, h });
    }
    Ok((h, last))
}
