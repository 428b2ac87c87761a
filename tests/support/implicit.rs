//! Radau IIA with a system's own Jacobian against Radau IIA with numeric
//! differences and against DOP853: what the tests of the runtime's
//! emitted Jacobians (`derivatives.rs`, `runtime_jacobians.rs`) share.

use crate::oracle::relative_error;
use sharnir_runtime::adaptive::{Dop853, Radau5};
use sharnir_runtime::{OdeSystem, RhsError, Stepper, Tolerances, Trajectory};

/// A system that hides its Jacobian, so that Radau IIA differentiates its
/// right-hand side numerically.
pub struct Numeric<S>(pub S);

impl<S: OdeSystem> OdeSystem for Numeric<S> {
    fn dimension(&self) -> usize {
        self.0.dimension()
    }

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.0.rhs(t, y, dy)
    }

    fn project(&mut self, t: f64, y: &mut [f64]) -> bool {
        self.0.project(t, y)
    }
}

/// Radau IIA (1e-9 relative, 1e-11 absolute) through `t_end` of `system`
/// from `y`: the final state, the right-hand-side evaluations and the
/// Jacobians.
pub fn radau<S: OdeSystem>(system: &mut S, y: &[f64], t_end: f64) -> (Vec<f64>, u64, u64) {
    let tolerances = Tolerances {
        rtol: 1e-9,
        atol: 1e-11,
    };
    let mut stepper = Radau5::new(system, 0.0, y, tolerances).expect("starts");
    while stepper.t() < t_end {
        stepper.step(system, t_end).expect("steps");
    }
    let stats = stepper.stats();
    (
        stepper.y().to_vec(),
        stats.rhs_evaluations,
        stats.jacobian_evaluations,
    )
}

/// Radau IIA through `t_end` from `y` on the system `make` builds, with its
/// own Jacobian and with numeric differences: both follow DOP853 at 1e-13
/// to 1e-7, and the own Jacobian saves at least `per_jacobian` evaluations
/// of the dynamics for each Jacobian it gives (a numeric one costs one per
/// state component). Returns the evaluations with and without it.
pub fn radau_against_numeric<S: OdeSystem>(
    name: &str,
    make: impl Fn() -> S,
    y: &[f64],
    t_end: f64,
    per_jacobian: u64,
) -> (u64, u64) {
    let (own, rhs_own, jacobians) = radau(&mut make(), y, t_end);
    let (numeric, rhs_numeric, _) = radau(&mut Numeric(make()), y, t_end);
    let reference = {
        let mut system = make();
        let tight = Tolerances {
            rtol: 1e-13,
            atol: 1e-13,
        };
        let mut stepper = Dop853::new(&mut system, 0.0, y, tight).expect("starts");
        while stepper.t() < t_end {
            stepper.step(&mut system, t_end).expect("steps");
        }
        stepper.y().to_vec()
    };
    for (how, run) in [("emitted", &own), ("numeric", &numeric)] {
        let error = relative_error(run, &reference);
        assert!(
            error < 1e-7,
            "{name}, {how} Jacobian: off DOP853 by {error:e}"
        );
    }
    assert!(jacobians > 0, "{name}");
    assert!(
        rhs_own + per_jacobian * jacobians <= rhs_numeric,
        "{name}: {rhs_own} evaluations with the emitted Jacobian, {rhs_numeric} without"
    );
    (rhs_own, rhs_numeric)
}
