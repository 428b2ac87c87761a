//! The interface every integrator shares: one accepted step at a time, with
//! a continuous extension (dense output) over the last step.
//!
//! Stepping one accepted step at a time lets a driver write output at exact
//! times, show progress, locate events and stop on a blow-up without the
//! integrator knowing about any of it.

use crate::{OdeSystem, Real, RhsError};
use core::fmt;

/// Work done by an integrator so far; what MATLAB's `ode45` prints with
/// `Stats = 'on'`, and what the performance tables compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps (error too large, or a Newton iteration that failed).
    pub rejected: u64,
    /// Evaluations of the right-hand side, finite-difference Jacobians
    /// included.
    pub rhs_evaluations: u64,
    /// Jacobians formed (analytic or by finite differences).
    pub jacobian_evaluations: u64,
    /// LU decompositions of iteration matrices (implicit methods).
    pub decompositions: u64,
}

/// Error tolerances of an adaptive integrator: a step is accepted when its
/// local error estimate `e` satisfies `‖e / (atol + rtol·|y|)‖ ≤ 1` in the
/// root-mean-square norm, as in Hairer, Nørsett and Wanner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Default for Tolerances {
    /// `rtol = 1e-6`, `atol = 1e-9`: tighter than MATLAB's defaults
    /// (`1e-3`, `1e-6`), which are too loose for mechanisms whose energy the
    /// user checks.
    fn default() -> Self {
        Tolerances {
            rtol: 1e-6,
            atol: 1e-9,
        }
    }
}

/// Why an integration stopped before its end time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IntegrationError {
    /// The step size the error control asks for fell below what the
    /// floating-point time can resolve: the solution blows up or has a
    /// singularity near `t`.
    StepSizeTooSmall {
        /// Time reached.
        t: f64,
        /// The step size that was too small.
        h: f64,
    },
    /// The state or its rate became infinite or NaN at `t`.
    NonFinite {
        /// Time reached.
        t: f64,
    },
    /// More steps than the integrator's limit.
    TooManySteps {
        /// Time reached.
        t: f64,
        /// The limit.
        limit: u64,
    },
    /// The right-hand side refused the state at `t`.
    Rhs {
        /// Time reached.
        t: f64,
        /// What the system said.
        error: RhsError,
    },
    /// An argument of the integrator itself is unusable (a step size that is
    /// not positive, a state of the wrong length, a tolerance that is not
    /// positive).
    InvalidArgument {
        /// Which argument, and what it must be.
        message: &'static str,
    },
}

impl IntegrationError {
    /// The time at which the integration stopped, when it started at all.
    pub fn time(&self) -> Option<f64> {
        match *self {
            IntegrationError::StepSizeTooSmall { t, .. }
            | IntegrationError::NonFinite { t }
            | IntegrationError::TooManySteps { t, .. }
            | IntegrationError::Rhs { t, .. } => Some(t),
            IntegrationError::InvalidArgument { .. } => None,
        }
    }
}

impl fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntegrationError::StepSizeTooSmall { t, h } => write!(
                f,
                "step size {h:e} too small at t = {t}: the solution blows up or is singular there"
            ),
            IntegrationError::NonFinite { t } => {
                write!(f, "the state became infinite or NaN at t = {t}")
            }
            IntegrationError::TooManySteps { t, limit } => {
                write!(f, "more than {limit} steps before t = {t}")
            }
            IntegrationError::Rhs { t, error } => write!(f, "at t = {t}: {error}"),
            IntegrationError::InvalidArgument { message } => f.write_str(message),
        }
    }
}

/// With `std`, an integration error is a standard error, so callers can use
/// `?` into `Box<dyn Error>`.
#[cfg(feature = "std")]
impl std::error::Error for IntegrationError {}

/// Where an integration is: the current time and state, and the continuous
/// extension (dense output) of the last accepted step.
///
/// Separate from [`Stepper`] so that reading the state needs no mention of
/// the system being integrated.
pub trait Trajectory<R: Real = f64> {
    /// The current time (the end of the last accepted step).
    fn t(&self) -> R;

    /// The time at the start of the last accepted step (the initial time
    /// before the first step).
    fn t_previous(&self) -> R;

    /// The current state.
    fn y(&self) -> &[R];

    /// Writes the continuous extension of the last accepted step at `t`
    /// (between [`Trajectory::t_previous`] and [`Trajectory::t`]) into
    /// `out`.
    fn interpolate(&self, t: R, out: &mut [R]);

    /// Work done so far.
    fn stats(&self) -> Stats;
}

/// An integrator in the middle of an integration: it holds the current time
/// and state ([`Trajectory`]) and advances by one accepted step per call.
///
/// Generic over the system rather than over the call, so that a driver can
/// choose the integrator at run time (`Box<dyn Stepper<S>>`).
///
/// A control loop on a microcontroller, as `docs/simulation.md` shows it:
/// sampling every 10 ms, integrating in steps of 1 ms.
///
/// ```
/// use sharnir_generated::telegin6_f32;
/// use sharnir_runtime::{model, Model, ModelSystem, Rk4, Stepper, Trajectory};
/// model!(Arm = telegin6_f32);
///
/// # fn main() -> Result<(), sharnir_runtime::IntegrationError> {
/// let arm = Arm::default();
/// let mut y = [0.0f32; Arm::STATE_LEN];
/// y[..6].copy_from_slice(&arm.initial_positions());
/// let mut system = ModelSystem::new(arm);
/// let mut rk4 = Rk4::new(&mut system, 0.0, y, 1e-3)?;
/// let period = 0.01;
/// for k in 1..=100 {
///     rk4.advance_to(&mut system, k as f32 * period)?; // one control period
///     let state = rk4.y(); // (q, q̇) at t = k · period
///     # assert!((rk4.t() - k as f32 * period).abs() < 1e-6);
///     # assert!(state.iter().all(|x| x.is_finite()));
/// }
/// assert!((rk4.t() - 1.0).abs() < 1e-6);
/// assert_eq!(rk4.stats().steps, 1000);
/// # Ok(())
/// # }
/// ```
pub trait Stepper<S: OdeSystem<R>, R: Real = f64>: Trajectory<R> {
    /// Advances by one accepted step (of the fixed step `h`, or of the
    /// size the error control chooses), never past the *time* `t_end`;
    /// landing exactly on `t_end` when the step reaches it. Calling it at
    /// `t_end` does nothing. To integrate up to a time, whatever the steps,
    /// call [`Stepper::advance_to`].
    fn step(&mut self, system: &mut S, t_end: R) -> Result<(), IntegrationError>;

    /// Steps until the time `t`, landing on it: one control period of a
    /// controller that samples every `period` is `advance_to(system, t +
    /// period)`. Does nothing at or past `t`.
    fn advance_to(&mut self, system: &mut S, t: R) -> Result<(), IntegrationError> {
        while self.t() < t {
            self.step(system, t)?;
        }
        Ok(())
    }
}

/// Where an integration is: the time now and at the start of the last
/// accepted step, the state and the work done. Every integrator keeps one
/// in a field `track`, so that their [`Trajectory`] is written once
/// ([`trajectory!`]).
#[derive(Clone, Debug)]
pub(crate) struct Track<R, V> {
    /// The current time (the end of the last accepted step).
    pub t: R,
    /// The start of the last accepted step (the initial time before it).
    pub t_previous: R,
    /// The current state.
    pub y: V,
    /// Work done so far.
    pub stats: Stats,
}

impl<R: Copy, V> Track<R, V> {
    /// At `(t0, y)` before the first step, `stats` the work of starting.
    pub fn new(t0: R, y: V, stats: Stats) -> Self {
        Track {
            t: t0,
            t_previous: t0,
            y,
            stats,
        }
    }
}

/// [`Trajectory`] for an integrator that keeps its [`Track`] in a field
/// `track` and writes its dense output with an inherent
/// `dense_value(&self, t, out)`: `trajectory!([generics] Real, Integrator)`.
macro_rules! trajectory {
    ([$($generics:tt)*] $real:ty, $integrator:ty) => {
        impl<$($generics)*> $crate::Trajectory<$real> for $integrator {
            fn t(&self) -> $real {
                self.track.t
            }

            fn t_previous(&self) -> $real {
                self.track.t_previous
            }

            fn y(&self) -> &[$real] {
                self.track.y.as_ref()
            }

            fn interpolate(&self, t: $real, out: &mut [$real]) {
                self.dense_value(t, out);
            }

            fn stats(&self) -> $crate::Stats {
                self.track.stats
            }
        }
    };
}

pub(crate) use trajectory;
