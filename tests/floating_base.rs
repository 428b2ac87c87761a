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
use sharnir_tests::oracle::{Oracle, States};

model!(FloatingChain = sharnir_generated::floating_chain);

type State = ([f64; m::NQ], [f64; m::NV]);

/// Linear and angular momentum (about the ground origin) in ground axes.
fn momentum(p: &m::Params, oracle: &Oracle, (q, v): &State) -> [f64; 6] {
    let poses = m::body_poses(p, q);
    let jacobians = m::body_jacobians(p, q);
    let mut total = [0.0; 6];
    for ((pose, jacobian), name) in poses.iter().zip(&jacobians).zip(m::BODY_NAMES) {
        let body = oracle.tree_body(name);
        let rate = |row: &[f64; m::NV]| row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        let v_origin: [f64; 3] = core::array::from_fn(|i| rate(&jacobian[i]));
        let omega: [f64; 3] = core::array::from_fn(|i| rate(&jacobian[3 + i]));
        let r = pose.rotation;
        let offset: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| r[i][j] * body.com[j]).sum());
        let com: [f64; 3] = core::array::from_fn(|i| pose.position[i] + offset[i]);
        let v_com: [f64; 3] = core::array::from_fn(|i| v_origin[i] + cross(omega, offset)[i]);
        let linear: [f64; 3] = v_com.map(|x| body.mass * x);
        // R I_c Rᵀ ω
        let body_omega: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| r[j][i] * omega[j]).sum());
        let spin_body: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| body.inertia[i][j] * body_omega[j]).sum());
        let spin: [f64; 3] = core::array::from_fn(|i| (0..3).map(|j| r[i][j] * spin_body[j]).sum());
        let orbital = cross(com, linear);
        for i in 0..3 {
            total[i] += linear[i];
            total[3 + i] += orbital[i] + spin[i];
        }
    }
    total
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
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
