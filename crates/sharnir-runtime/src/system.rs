//! What an integrator integrates: a first-order system `y' = f(t, y)` on a
//! flat state vector.
//!
//! A mechanism's state is `y = (q, q̇)`; [`crate::ModelSystem`] adapts a
//! generated module to this trait. Integrators see only this trait, so they
//! are tested on the classic test problems of numerical analysis as well as
//! on mechanisms.

use crate::Real;
use core::fmt;

/// A first-order ordinary differential equation `y' = f(t, y)`.
///
/// Slices keep the trait usable without an allocator; every slice an
/// integrator passes has length [`OdeSystem::dimension`].
pub trait OdeSystem<R: Real = f64> {
    /// The length of `y`.
    fn dimension(&self) -> usize;

    /// Writes `f(t, y)` into `dy`. An `Err` (a singular constraint matrix,
    /// say) stops the integration with the time at which it happened.
    fn rhs(&mut self, t: R, y: &[R], dy: &mut [R]) -> Result<(), RhsError>;

    /// Writes `∂f/∂y` at `(t, y)` into `jacobian`, row-major (`n × n`), and
    /// returns `Ok(true)`, when the system knows it in closed form.
    ///
    /// The default returns `Ok(false)`: stiff integrators then form it by
    /// finite differences of [`OdeSystem::rhs`].
    fn jacobian(&mut self, t: R, y: &[R], jacobian: &mut [R]) -> Result<bool, RhsError> {
        let _ = (t, y, jacobian);
        Ok(false)
    }

    /// Puts an accepted state at time `t` back on the manifold it must stay
    /// on (unit quaternions of spherical and free joints, closed loops,
    /// coordinates prescribed as functions of time), and says whether it
    /// changed `y`, so that an integrator that reuses the rate at the end
    /// of a step evaluates it again. The default does nothing.
    fn project(&mut self, t: R, y: &mut [R]) -> bool {
        let _ = (t, y);
        false
    }
}

/// Why a right-hand side could not be evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RhsError {
    /// What went wrong, for the user.
    pub message: &'static str,
}

impl fmt::Display for RhsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}
