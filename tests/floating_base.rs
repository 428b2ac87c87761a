//! A free-floating chain (`specs/floating_chain.spec`) in zero gravity with
//! no joint forces conserves its linear and angular momentum and its energy.
//!
//! The runtime integrates the generated `forward_dynamics` and
//! `coordinate_rates` with DOP853 at `rtol = atol = 1e-12` for 2 s
//! (quaternions renormalised after each step); momentum is assembled from
//! the generated `body_poses` and `body_jacobians` and the bodies' numeric
//! masses and inertias. None of the three is linear in the state
//! (velocities are in body axes), so the integrator keeps them only to its
//! error: the tolerance is 1e-9 relative (observed: about 1e-12).

use sharnir_generated::floating_chain as m;
use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};
use sharnir_tests::momentum::{self, norm, BodyState};
use sharnir_tests::oracle::{Oracle, States};

model!(FloatingChain = sharnir_generated::floating_chain);

type State = ([f64; m::NQ], [f64; m::NV]);

/// Linear and angular momentum (about the ground origin) in ground axes.
fn momentum(p: &m::Params, oracle: &Oracle, (q, v): &State) -> [f64; 6] {
    let poses = m::body_poses(p, q);
    let jacobians = m::body_jacobians(p, q);
    let bodies: Vec<BodyState<'_, { m::NV }>> = m::BODY_NAMES
        .iter()
        .zip(poses.iter().zip(jacobians))
        .map(|(&name, (pose, jacobian))| (name, pose.rotation, pose.position, jacobian))
        .collect();
    momentum::momentum(oracle, &bodies, v)
}

#[test]
fn free_floating_chain_conserves_momentum_and_energy() {
    let oracle = Oracle::for_spec("floating_chain");
    let p = m::Params {
        g: 0.0,
        ..m::Params::default()
    };
    let (q, v, _) = oracle.sample::<{ m::NQ }, { m::NV }>(&mut States::seeded(0xF10A7));
    let start_state: State = (q, v);
    let start = momentum(&p, &oracle, &start_state);
    let (t0, _) = m::energy(&p, &q, &v);
    let mut state = start_state;
    let summary = Simulation::new(FloatingChain::new(p))
        .initial_state(q, v)
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        })
        .output_interval(2.0)
        .run(2.0, |s: &Sample<'_>| {
            state.0.copy_from_slice(s.q);
            state.1.copy_from_slice(s.v);
        })
        .expect("the simulation runs to its end");
    assert_eq!(summary.t_end, 2.0);
    let end = momentum(&p, &oracle, &state);
    let (t1, _) = m::energy(&p, &state.0, &state.1);
    let linear_drift = norm(&[end[0] - start[0], end[1] - start[1], end[2] - start[2]]);
    let angular_drift = norm(&[end[3] - start[3], end[4] - start[4], end[5] - start[5]]);
    assert!(
        norm(&start[..3]) > 0.1 && norm(&start[3..]) > 0.1,
        "a trivial start state: {start:?}"
    );
    assert!(
        linear_drift < 1e-9 * norm(&start[..3]),
        "linear momentum drifted by {linear_drift:e}: {start:?} → {end:?}"
    );
    assert!(
        angular_drift < 1e-9 * norm(&start[3..]),
        "angular momentum drifted by {angular_drift:e}: {start:?} → {end:?}"
    );
    assert!(
        (t1 - t0).abs() < 1e-9 * t0,
        "kinetic energy drifted from {t0} to {t1}"
    );
    let moved = norm(&core::array::from_fn::<f64, { m::NQ }, _>(|i| {
        state.0[i] - q[i]
    }));
    assert!(
        moved > 0.1,
        "the chain barely moved ({moved}): the test would prove nothing"
    );
}
