//! Adaptive integrators (need `std`: their stages live on the heap, sized at
//! run time): explicit Dormand–Prince 5(4) and DOP853 and the
//! Adams–Bashforth–Moulton multistep method for non-stiff mechanisms, and
//! Radau IIA of order 5 for stiff ones.
//!
//! All four step one accepted step at a time through [`crate::Stepper`],
//! with a continuous extension over the last step ([`crate::Trajectory`]),
//! and count their work in [`crate::Stats`]. Their control follows Hairer,
//! Nørsett and Wanner's codes `dopri5`, `dop853` and `RADAU5`.

/// The constructor and the builder methods every adaptive integrator has:
/// `new` starts the integration ([`control::start`]) and hands the track
/// and the rate to the integrator's own `starting`; the limits are those of
/// its step size (`size`, a [`step::StepSize`]).
macro_rules! constructors {
    () => {
        /// Starts at `(t0, y0)` (projected onto the system's manifold).
        pub fn new<S: $crate::OdeSystem>(
            system: &mut S,
            t0: f64,
            y0: &[f64],
            tolerances: $crate::Tolerances,
        ) -> Result<Self, $crate::IntegrationError> {
            let (track, rate) = $crate::adaptive::control::start(system, t0, y0, tolerances)?;
            Ok(Self::starting(track, rate, tolerances))
        }

        /// At most this many steps (accepted and rejected; default 10⁶).
        pub fn max_steps(mut self, steps: u64) -> Self {
            self.size.limits.max_steps = steps;
            self
        }

        /// Steps no longer than `h` (default: the whole interval).
        pub fn max_step(mut self, h: f64) -> Self {
            self.size.limits.max_step = Some(h);
            self
        }

        /// The first step to try (default: estimated from `f`, HNW's
        /// `HINIT`).
        pub fn initial_step(mut self, h: f64) -> Self {
            self.size.limits.initial_step = Some(h);
            self
        }
    };
}

use constructors;

mod adams;
mod control;
mod dop853;
mod dopri5;
mod linear;
mod radau5;
mod step;

pub use adams::Adams;
pub use dop853::Dop853;
pub use dopri5::Dopri5;
pub use radau5::Radau5;
