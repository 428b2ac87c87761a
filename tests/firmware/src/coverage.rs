//! Every public function of a handful of generated modules, called once
//! with inputs the optimiser cannot see, so that the firmware's link check
//! (no reachable panic path) covers all the code shapes the generator
//! emits, not only the dynamics the workload times: quaternions and a free
//! joint (`floating_chain`, whose linearization has a free joint's
//! velocity-dependent chart block), the derivative functions, joint stops with their exponential law
//! (`pendulum_stop`), damping, friction and applied forces
//! (`damped_pendulum`), loops with the emitted Cholesky and pivoted
//! Cholesky solves and the dependent-velocity map (`delta`, `four_bar`),
//! and detachable joints in a loop (`payload_release`).

use core::hint::black_box;

#[rustfmt::skip]
#[path = "../../../generated/src/floating_chain.rs"]
mod floating_chain;
#[rustfmt::skip]
#[path = "../../../generated/src/pendulum_stop.rs"]
mod pendulum_stop;
#[rustfmt::skip]
#[path = "../../../generated/src/damped_pendulum.rs"]
mod damped_pendulum;
#[rustfmt::skip]
#[path = "../../../generated/src/delta.rs"]
mod delta;
#[rustfmt::skip]
#[path = "../../../generated/src/payload_release.rs"]
mod payload_release;

/// Calls the functions every module has, at its initial state (through
/// `black_box`), and returns the parameter groups and the state for more.
macro_rules! tree_functions {
    ($m:ident) => {{
        let d = black_box($m::Params::default()).derived();
        let (q, qd) = (
            black_box($m::INITIAL_POSITIONS),
            black_box($m::INITIAL_VELOCITIES),
        );
        let qdd = black_box([0.0; $m::NV]);
        black_box($m::inverse_dynamics_with(&d, &q, &qd, &qdd));
        black_box($m::mass_matrix_with(&d, &q));
        black_box($m::bias_with(&d, &q, &qd));
        black_box($m::gravity_with(&d, &q));
        black_box($m::joint_space_with(&d, &q, &qd));
        black_box($m::forward_dynamics_with(&d, &q, &qd, &qdd));
        black_box($m::coriolis_matrix_with(&d, &q, &qd));
        black_box($m::energy_with(&d, &q, &qd));
        black_box($m::body_poses_with(&d, &q));
        black_box($m::coordinate_rates_with(&d, &q, &qd));
        black_box($m::body_jacobians_with(&d, &q));
        black_box($m::contact_gaps_with(&d, &q));
        black_box($m::limit_forces_with(&d, &q, &qd));
        black_box($m::friction_forces_with(&d, &q, &qd));
        black_box($m::inverse_dynamics_derivatives_with(&d, &q, &qd, &qdd));
        black_box($m::gravity_derivatives_with(&d, &q));
        black_box($m::mass_matrix_inverse_with(&d, &q));
        black_box($m::forward_dynamics_derivatives_with(&d, &q, &qd, &qdd));
        black_box($m::linearization_with(&d, &q, &qd, &qdd));
        (d, q, qd, qdd)
    }};
}

/// Calls the functions of a module with loops.
macro_rules! loop_functions {
    ($m:ident, $d:expr, $q:expr, $qd:expr, $qdd:expr) => {{
        let (d, q, qd, qdd) = (&$d, &$q, &$qd, &$qdd);
        let lambda = black_box([0.0; $m::NC]);
        black_box($m::constraints_with(d, q));
        black_box($m::constraint_jacobian_with(d, q));
        black_box($m::constraint_bias_with(d, q, qd));
        black_box($m::reactions_of_multipliers_with(d, q, &lambda));
        black_box($m::constrained_forward_dynamics_with(d, q, qd, qdd).is_ok());
        black_box($m::cut_joint_reactions_with(d, q, qd, qdd).is_ok());
        let independent = black_box([0.0; $m::N_INDEPENDENT]);
        black_box($m::dependent_velocities_with(d, q, &independent).is_ok());
        black_box($m::constrained_inverse_dynamics_with(d, q, qd, qdd).is_ok());
        black_box($m::constrained_forward_dynamics_derivatives_with(d, q, qd, qdd).is_ok());
        lambda
    }};
}

/// Calls every public function of the modules listed above once.
pub fn every_function() {
    tree_functions!(floating_chain);
    tree_functions!(pendulum_stop);
    let (d, q, qd, _) = tree_functions!(damped_pendulum);
    black_box(damped_pendulum::applied_forces_with(
        &d,
        black_box(0.0),
        &q,
        &qd,
    ));
    let (d, q, qd, qdd) = tree_functions!(delta);
    loop_functions!(delta, d, q, qd, qdd);
    let (d, q, qd, qdd) = tree_functions!(payload_release);
    let lambda = loop_functions!(payload_release, d, q, qd, qdd);
    black_box(payload_release::joint_reactions_with(
        &d, &q, &qd, &qdd, &lambda,
    ));
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_function_runs() {
        super::every_function();
    }
}
