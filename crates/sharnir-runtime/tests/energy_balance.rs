//! The energy balance `T + V − W = E(0)` that every simulation's summary
//! and samples report, `W` the work of the mechanism's own forces and the
//! control, integrated over each step by the three-point Gauss rule on the
//! step's continuous extension.
//!
//! - The damped, driven pendulum (`specs/damped_pendulum.spec`: a spring,
//!   a damper and a sinusoidal drive in `[forces]`), 10 s with DOP853 at
//!   1e-11: the balance closes to 1e-8 of the energy that moved while the
//!   forces do work of order one, and `W` against an independent sum: the
//!   trapezoid rule on 100 000 samples of `q̇ · τ` (1e-6).
//! - The triple pendulum driven by a control torque on its first joint:
//!   the same balance, the work coming from the control alone.
//! - A passive, conservative run does no work: `W` is zero.

use sharnir_runtime::{model, Method, Model, Sample, Simulation, Tolerances};

model!(Damped = sharnir_generated::damped_pendulum);
model!(Pendulum = sharnir_generated::triple_pendulum);

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-11,
    atol: 1e-11,
};

#[test]
fn forces_work_closes_the_balance_of_the_damped_driven_pendulum() {
    let model = Damped::default();
    let mut samples: Vec<(f64, f64, f64, f64)> = Vec::new();
    let power_model = model;
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .output_interval(1e-4)
        .run(10.0, |s: &Sample<'_>| {
            let q = [s.q[0]];
            let v = [s.v[0]];
            let power = v[0] * power_model.model_forces(s.t, &q, &v)[0];
            samples.push((s.t, s.kinetic + s.potential, s.work, power));
        })
        .expect("runs");
    assert!(
        summary.work.abs() > 0.1,
        "the forces did little work: {}",
        summary.work
    );
    assert!(
        summary.relative_energy_drift() < 1e-8,
        "balance {:e} of {}",
        summary.energy_drift,
        summary.energy_scale
    );
    // W against the trapezoid rule on the samples' power.
    let mut trapezoid = 0.0;
    for pair in samples.windows(2) {
        let ((t0, _, _, p0), (t1, _, w1, p1)) = (pair[0], pair[1]);
        trapezoid += 0.5 * (p0 + p1) * (t1 - t0);
        assert!(
            (w1 - trapezoid).abs() < 1e-6 * (1.0 + trapezoid.abs()),
            "W {w1} against {trapezoid}"
        );
    }
}

#[test]
fn a_control_torque_does_the_work_of_the_balance() {
    let control = |t: f64, _q: &[f64; 3], _v: &[f64; 3]| [0.5 * (2.0 * t).sin(), 0.0, 0.0];
    let summary = Simulation::new(Pendulum::default())
        .control(control)
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .run(5.0, |_: &Sample<'_>| {})
        .expect("runs");
    assert!(
        summary.work.abs() > 1e-3,
        "the control did no work: {}",
        summary.work
    );
    assert!(
        summary.relative_energy_drift() < 1e-8,
        "balance {:e} of {}",
        summary.energy_drift,
        summary.energy_scale
    );
}

#[test]
fn a_conservative_run_does_no_work() {
    let summary = Simulation::new(Pendulum::default())
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .run(2.0, |s: &Sample<'_>| assert_eq!(s.work, 0.0))
        .expect("runs");
    assert_eq!(summary.work, 0.0);
}
