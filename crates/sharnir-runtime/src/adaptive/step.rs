//! The start and the end of every adaptive step, written once: the step to
//! try first (the one the last step proposed, the user's, or HNW's
//! estimate), each attempt held to the limits and landing on the end time,
//! an accepted step's state projected onto the system's manifold with its
//! rate; and the whole step of an explicit pair, whose methods differ only
//! in their attempts.

use super::control::{self, AdaptiveTrack, Controller, Decision, Limits, Start};
use crate::{IntegrationError, OdeSystem, Tolerances};

/// An adaptive integration's step size and what bounds it.
#[derive(Clone, Debug)]
pub(crate) struct StepSize {
    /// The limits the builder methods set.
    pub limits: Limits,
    /// The initial time: the default largest step is the interval from it.
    pub t0: f64,
    /// The step to try next (`None` until the first step estimates it).
    pub next: Option<f64>,
}

impl StepSize {
    /// The step size of an integration from `t0`, with the default limits.
    pub fn new(t0: f64) -> Self {
        StepSize {
            limits: Limits::default(),
            t0,
            next: None,
        }
    }

    /// The start of a step towards `t_end`: `None` where the integration
    /// has reached it, else the first step to try and the largest step
    /// allowed. Without a proposal, HNW's initial step for a method of
    /// order `order` from `rate`, the rate at the current state.
    pub fn begin<S: OdeSystem>(
        &self,
        system: &mut S,
        track: &mut AdaptiveTrack,
        rate: &[f64],
        t_end: f64,
        tolerances: Tolerances,
        order: i32,
    ) -> Result<Option<(f64, f64)>, IntegrationError> {
        if track.t >= t_end {
            return Ok(None);
        }
        let h_max = self.limits.max_step.unwrap_or(t_end - self.t0).abs();
        let h = match self.next.or(self.limits.initial_step) {
            Some(h) => h,
            None => {
                let start = Start {
                    t: track.t,
                    y: &track.y,
                    rate,
                };
                control::initial_step(system, start, tolerances, order, h_max, &mut track.stats)?
            }
        };
        Ok(Some((h, h_max)))
    }

    /// The attempt at a step of `h` towards `t_end`, held to the limits
    /// (see [`control::next_attempt`]): the step and the time it ends at,
    /// `t_end` exactly for the last one.
    pub fn attempt(
        &self,
        track: &AdaptiveTrack,
        t_end: f64,
        h: f64,
        h_max: f64,
    ) -> Result<(f64, f64), IntegrationError> {
        let (h, last) =
            control::next_attempt(&self.limits, &track.stats, track.t, t_end, h, h_max)?;
        Ok((h, if last { t_end } else { track.t + h }))
    }

    /// Ends an accepted step at `t_new`, its new state already in `track`:
    /// projects the state onto the system's manifold and evaluates `rate`
    /// there, where the projection moved the state or `rate` is not yet
    /// its rate (`rate_current` false); counts the step.
    pub fn finish<S: OdeSystem>(
        &self,
        system: &mut S,
        track: &mut AdaptiveTrack,
        t_new: f64,
        rate: &mut [f64],
        rate_current: bool,
    ) -> Result<(), IntegrationError> {
        track.t_previous = track.t;
        track.t = t_new;
        let moved = system.project(t_new, &mut track.y);
        if (moved || !rate_current)
            && !control::evaluate(system, track.t, &track.y, rate, &mut track.stats)?
        {
            return Err(IntegrationError::NonFinite { t: track.t });
        }
        track.stats.steps += 1;
        Ok(())
    }
}

/// What the step of an explicit pair shares with the method: its track,
/// step size and controller, the rate at the current state (the next
/// step's first stage), and its tolerances.
pub(crate) type Parts<'a> = (
    &'a mut AdaptiveTrack,
    &'a mut StepSize,
    &'a mut Controller,
    &'a mut [f64],
    Tolerances,
);

/// What an explicit pair lends [`step_pair`] of the fields every pair has
/// (`track`, `size`, `controller`, `tolerances`, `h_last`): written once,
/// by [`explicit_pair!`].
pub(crate) trait PairFields {
    /// The parts the step shares, with the pair's rate at the current state.
    fn parts(&mut self) -> Parts<'_>;

    /// The track and the size of the last accepted step (0 before the
    /// first), which the continuous extension spans.
    fn last_step(&self) -> (&AdaptiveTrack, f64);
}

/// An explicit Runge–Kutta pair whose last stage is the next step's first
/// (Dormand–Prince 5(4), DOP853): what [`step_pair`] asks of its method.
pub(crate) trait ExplicitPair: PairFields {
    /// The order of the solution, for the initial step.
    const ORDER: i32;

    /// Tries a step of size `h`: the scaled error norm, infinite when a
    /// stage overflowed, with the step's dense output prepared when it
    /// passes (a norm of at most 1).
    fn attempt<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError>;

    /// Takes the attempted step of size `h`: its end state as the state,
    /// its last stage as the rate.
    fn take(&mut self, h: f64);

    /// Component `i` of the continuous extension of the last step at the
    /// fraction `s` of it (`s1 = 1 − s`).
    fn extension(&self, i: usize, s: f64, s1: f64) -> f64;

    /// The continuous extension of the last step at `t`; before the first
    /// step, the state (what fits of it: a wrong-length `out` gets that
    /// rather than a panic).
    fn dense_value(&self, t: f64, out: &mut [f64]) {
        let (track, h_last) = self.last_step();
        if h_last <= 0.0 {
            for (o, y) in out.iter_mut().zip(&track.y) {
                *o = *y;
            }
            return;
        }
        let s = (t - track.t_previous) / h_last;
        let s1 = 1.0 - s;
        for (i, o) in out.iter_mut().enumerate().take(track.y.len()) {
            *o = self.extension(i, s, s1);
        }
    }
}

/// What every explicit pair has alike, for the pair `$pair` whose rate at
/// the current state is its field `$rate`: its [`PairFields`], its
/// [`Stepper`](crate::Stepper) (the shared [`step_pair`]) and its
/// [`Trajectory`](crate::Trajectory).
macro_rules! explicit_pair {
    ($pair:ident, $($rate:tt)+) => {
        impl $crate::adaptive::step::PairFields for $pair {
            fn parts(&mut self) -> $crate::adaptive::step::Parts<'_> {
                let rate = &mut self.$($rate)+;
                (&mut self.track, &mut self.size, &mut self.controller, rate, self.tolerances)
            }

            fn last_step(&self) -> (&$crate::adaptive::control::AdaptiveTrack, f64) {
                (&self.track, self.h_last)
            }
        }

        impl<S: $crate::OdeSystem> $crate::Stepper<S> for $pair {
            fn step(&mut self, system: &mut S, t_end: f64) -> Result<(), $crate::IntegrationError> {
                $crate::adaptive::step::step_pair(self, system, t_end)
            }
        }

        $crate::stepper::trajectory!([] f64, $pair);
    };
}

pub(crate) use explicit_pair;

/// One accepted step of an explicit pair towards `t_end`, with the
/// controller of HNW's `dopri5` and `dop853`: attempts shrink until one
/// passes.
pub(crate) fn step_pair<P: ExplicitPair, S: OdeSystem>(
    pair: &mut P,
    system: &mut S,
    t_end: f64,
) -> Result<(), IntegrationError> {
    let (track, size, _, rate, tolerances) = pair.parts();
    let Some((mut h, h_max)) = size.begin(system, track, rate, t_end, tolerances, P::ORDER)? else {
        return Ok(());
    };
    loop {
        let (track, size, ..) = pair.parts();
        let (h_try, t_new) = size.attempt(track, t_end, h, h_max)?;
        let error = pair.attempt(system, h_try)?;
        let (track, _, controller, ..) = pair.parts();
        match controller.decide(error, h_try) {
            Decision::Accept(h_new) => {
                pair.take(h_try);
                let (track, size, _, rate, _) = pair.parts();
                size.finish(system, track, t_new, rate, true)?;
                size.next = Some(h_new);
                return Ok(());
            }
            Decision::Reject(h_new) => {
                track.stats.rejected += 1;
                h = h_new;
            }
        }
    }
}
