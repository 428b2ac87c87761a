//! The simulation examples of the sources, integrated by the runtime with
//! the generated dynamics:
//!
//! - Vereshchagin's 10-rod chain (`000_*`, `specs/chain10.spec`) released
//!   from q₁ = −1 rad: energy kept by DOP853, and every integrator agreeing
//!   with it to what its tolerance promises;
//! - the textbook's triple pendulum (`003`, §3.5–3.7) released from the
//!   horizontal: its first accelerations and Ek + Ep ≡ 0;
//! - the 3-link pendulum of `002_*` (100 s at step 0.01, RK4 and Radau),
//!   read as the triple pendulum hanging down and released 0.2 rad off, the
//!   amplitude the source reports (the source gives no other data).
//!
//! Tolerances are stated at each assertion with what was observed.

use sharnir_generated::{chain10, triple_pendulum};
use sharnir_runtime::{model, Method, Model, Sample, Simulation, Summary, Tolerances};
use std::f64::consts::FRAC_PI_2;

model!(Chain10 = sharnir_generated::chain10);
model!(TriplePendulum = sharnir_generated::triple_pendulum);

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-12,
    atol: 1e-12,
};

/// Runs a simulation and returns the summary and the states at `times`.
fn states_at<M, const NQ: usize, const NV: usize>(
    simulation: Simulation<M, NQ, NV>,
    t_end: f64,
    output_dt: f64,
    times: &[f64],
) -> (Summary, Vec<Vec<f64>>)
where
    M: Model<NQ, NV, Real = f64>,
{
    let mut simulation = simulation.output_interval(output_dt);
    let mut states = vec![Vec::new(); times.len()];
    let summary = simulation
        .run(t_end, |s: &Sample<'_>| {
            for (state, &t) in states.iter_mut().zip(times) {
                if (s.t - t).abs() < 1e-9 {
                    *state = s.q.iter().chain(s.v).copied().collect();
                }
            }
        })
        .expect("the simulation runs to its end");
    assert!(
        states.iter().all(|s| !s.is_empty()),
        "a time was not sampled"
    );
    (summary, states)
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn chain10_starts_where_the_source_releases_it() {
    let model = Chain10::default();
    let q = model.initial_positions();
    assert_eq!(q[0], -1.0);
    assert!(q[1..].iter().all(|&x| x == 0.0));
    assert!(model.initial_velocities().iter().all(|&x| x == 0.0));
    assert_eq!(chain10::NQ, 10);
}

#[test]
fn chain10_keeps_its_energy_and_the_integrators_agree() {
    let times = [1.0, 10.0];
    let (reference, exact) = states_at(
        Simulation::new(Chain10::default())
            .method(Method::Dop853)
            .tolerances(TIGHT),
        10.0,
        0.01,
        &times,
    );
    // Observed drift 1.2e-14 of the energy that moves, in 3540 steps.
    assert!(
        reference.relative_energy_drift() < 1e-9,
        "DOP853 at 1e-12 drifted {:e} (absolute {:e})",
        reference.relative_energy_drift(),
        reference.energy_drift
    );
    assert!(reference.conservative);

    // The chain is chaotic: differences grow by orders of magnitude over
    // 10 s, so agreement is asserted at t = 1 s. Observed: DOPRI5 4e-9,
    // Radau IIA 6e-9, RK4 (h = 1 ms) 1.5e-5, semi-implicit Euler
    // (h = 0.1 ms) 3e-3.
    let others = [
        (Method::Dopri5, 1e-10, 1e-7),
        (Method::Radau5, 1e-10, 1e-6),
        (Method::Rk4 { step: 1e-3 }, 0.0, 1e-4),
        (Method::SemiImplicitEuler { step: 1e-4 }, 0.0, 1e-2),
    ];
    for (method, tolerance, agreement) in others {
        let mut simulation = Simulation::new(Chain10::default()).method(method);
        if tolerance > 0.0 {
            simulation = simulation.tolerances(Tolerances {
                rtol: tolerance,
                atol: tolerance,
            });
        }
        let (_, states) = states_at(simulation, 1.0, 0.01, &[1.0]);
        let difference = max_difference(&states[0], &exact[0]);
        assert!(
            difference < agreement,
            "{method:?} differs from DOP853 by {difference:e} at t = 1 s"
        );
    }
}

#[test]
fn triple_pendulum_first_accelerations_match_the_textbook() {
    let model = TriplePendulum::default();
    let qdd = model.forward_dynamics(&[0.0; 3], &[0.0; 3], &[0.0; 3]);
    // The book's absolute accelerations (−0.5, 0, 0) in relative angles.
    let expected = [-0.5, 0.5, 0.0];
    assert!(
        max_difference(&qdd, &expected) < 1e-14,
        "q̈(0) = {qdd:?}, expected {expected:?}"
    );
    let (kinetic, potential) = model.energy(&[0.0; 3], &[0.0; 3]);
    assert_eq!((kinetic, potential), (0.0, 0.0));
}

#[test]
fn triple_pendulum_keeps_zero_total_energy() {
    let mut worst: f64 = 0.0;
    let mut swing: f64 = 0.0;
    let summary = Simulation::new(TriplePendulum::default())
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .output_interval(0.01)
        .run(5.0, |s: &Sample<'_>| {
            worst = worst.max((s.kinetic + s.potential).abs());
            swing = swing.max(s.kinetic);
        })
        .expect("the simulation runs to its end");
    assert!(swing > 1.0, "the pendulum barely moved: max Ek = {swing}");
    // Observed 2.8e-11.
    assert!(worst < 1e-9, "|Ek + Ep| reached {worst:e}");
    assert_eq!(summary.initial_energy, 0.0);
}

#[test]
fn three_link_pendulum_over_100_s_at_step_0_01() {
    let start = |method| {
        Simulation::new(TriplePendulum::default())
            .initial_state([-FRAC_PI_2 + 0.2, 0.0, 0.0], [0.0; 3])
            .method(method)
    };
    let times = [10.0, 100.0];
    let (rk4, rk4_states) = states_at(start(Method::Rk4 { step: 0.01 }), 100.0, 0.01, &times);
    let (radau, radau_states) = states_at(
        start(Method::Radau5).tolerances(Tolerances {
            rtol: 1e-10,
            atol: 1e-10,
        }),
        100.0,
        0.01,
        &times,
    );
    assert_eq!(rk4.stats.steps, 10_000);
    // Observed: RK4 1.3e-11 of the energy that moves, Radau IIA 4e-9.
    for (name, summary) in [("RK4", &rk4), ("Radau IIA", &radau)] {
        assert!(
            summary.relative_energy_drift() < 1e-7,
            "{name} drifted {:e}",
            summary.relative_energy_drift()
        );
    }
    // The source agreed with OpenModelica to 0.04 at amplitudes of 0.2;
    // the two integrators here agree to 7e-10 at 10 s and 1e-8 at 100 s.
    assert!(max_difference(&rk4_states[0], &radau_states[0]) < 1e-8);
    assert!(max_difference(&rk4_states[1], &radau_states[1]) < 1e-6);
}

#[test]
fn generated_sizes_are_what_the_model_reports() {
    assert_eq!(triple_pendulum::NQ, 3);
    assert_eq!(
        <TriplePendulum as Model<3, 3>>::POSITION_NAMES,
        triple_pendulum::POSITION_NAMES
    );
}
