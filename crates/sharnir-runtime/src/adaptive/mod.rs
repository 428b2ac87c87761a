//! Adaptive integrators (need `std`: their stages live on the heap, sized at
//! run time): explicit Dormand–Prince 5(4) and DOP853 and the
//! Adams–Bashforth–Moulton multistep method for non-stiff mechanisms, and
//! Radau IIA of order 5 for stiff ones.
//!
//! All four step one accepted step at a time through [`crate::Stepper`],
//! with a continuous extension over the last step ([`crate::Trajectory`]),
//! and count their work in [`crate::Stats`]. Their control follows Hairer,
//! Nørsett and Wanner's codes `dopri5`, `dop853` and `RADAU5`.

/// The builder methods of the limits every adaptive integrator keeps in
/// its `limits` field.
macro_rules! limit_setters {
    () => {
        /// At most this many steps (accepted and rejected; default 10⁶).
        pub fn max_steps(mut self, steps: u64) -> Self {
            self.limits.max_steps = steps;
            self
        }

        /// Steps no longer than `h` (default: the whole interval).
        pub fn max_step(mut self, h: f64) -> Self {
            self.limits.max_step = Some(h);
            self
        }

        /// The first step to try (default: estimated from `f`, HNW's
        /// `HINIT`).
        pub fn initial_step(mut self, h: f64) -> Self {
            self.limits.initial_step = Some(h);
            self
        }
    };
}

/// [`crate::Trajectory`] for an integrator with the fields `t`,
/// `t_previous`, `y` and `stats` and an inherent `dense_value`.
macro_rules! trajectory {
    ($integrator:ty) => {
        impl crate::Trajectory for $integrator {
            fn t(&self) -> f64 {
                self.t
            }

            fn t_previous(&self) -> f64 {
                self.t_previous
            }

            fn y(&self) -> &[f64] {
                &self.y
            }

            fn interpolate(&self, t: f64, out: &mut [f64]) {
                self.dense_value(t, out);
            }

            fn stats(&self) -> crate::Stats {
                self.stats
            }
        }
    };
}

use limit_setters;
use trajectory;

mod adams;
mod control;
mod dop853;
mod dopri5;
mod linear;
mod radau5;

pub use adams::Adams;
pub use dop853::Dop853;
pub use dopri5::Dopri5;
pub use radau5::Radau5;
