//! `[forces]` end to end: `specs/damped_pendulum.spec` compiles its
//! spring–damper and drive into `applied_forces`, which matches the closed
//! form, and a simulation through the runtime obeys the power balance
//! `E(T) − E(0) = ∫ q̇ · applied_forces dt` (the spring's energy is not in
//! the module's potential: the spring is an applied force).

use sharnir_generated::{damped_pendulum as m, damped_pendulum_folded as folded};
use sharnir_runtime::{model, Method, Model, Sample, Simulation, Tolerances};

model!(Pendulum = sharnir_generated::damped_pendulum);

fn closed_form(p: &m::Params, t: f64, theta: f64, rate: f64) -> f64 {
    -p.k * theta - p.c * rate + p.tau0 * (p.w * t).sin()
}

#[test]
fn applied_forces_are_the_spec_expression() {
    let p = m::Params::default();
    let mut x = 0.37_f64;
    for _ in 0..50 {
        // A cheap deterministic sequence of states and times.
        x = (x * 7.13 + 0.31).fract();
        let (t, theta, rate) = (10.0 * x, 4.0 * x - 2.0, 3.0 - 6.0 * (x * 3.7).fract());
        let expected = closed_form(&p, t, theta, rate);
        let got = m::applied_forces(&p, t, &[theta], &[rate])[0];
        let folded_value = folded::applied_forces(&folded::Params {}, t, &[theta], &[rate])[0];
        assert!(
            (got - expected).abs() < 1e-14 * expected.abs().max(1.0),
            "{got} vs {expected}"
        );
        assert!((folded_value - expected).abs() < 1e-14 * expected.abs().max(1.0));
    }
    let stiff = m::Params {
        k: 10.0,
        ..m::Params::default()
    };
    assert_eq!(m::applied_forces(&stiff, 0.0, &[0.5], &[0.0])[0], -5.0);
    assert_eq!(
        m::OPS_APPLIED_FORCES,
        m::OpCount {
            mul: 4,
            add: 2,
            div: 0,
            sqrt: 0,
            sin: 1,
            cos: 0,
            exp: 0
        }
    );
    assert_eq!(m::INITIAL_POSITIONS[0], -std::f64::consts::FRAC_PI_2);
}

#[test]
fn the_runtime_applies_them_and_energy_follows_their_power() {
    let model = Pendulum::default();
    const { assert!(<Pendulum as Model<1, 1>>::HAS_APPLIED_FORCES) };
    let p = *model.params();
    let dt = 1e-3;
    let mut samples: Vec<(f64, f64, f64, f64)> = Vec::new();
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        })
        .output_interval(dt)
        .run(4.0, |s: &Sample<'_>| {
            samples.push((s.t, s.q[0], s.v[0], s.kinetic + s.potential));
        })
        .expect("the simulation runs to its end");
    assert!(!summary.conservative);
    // Simpson's rule over the samples (an even number of intervals).
    let power: Vec<f64> = samples
        .iter()
        .map(|&(t, theta, rate, _)| rate * closed_form(&p, t, theta, rate))
        .collect();
    let n = power.len() - 1;
    assert_eq!(n % 2, 0);
    let work: f64 = (0..=n)
        .map(|i| {
            let weight = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            weight * power[i]
        })
        .sum::<f64>()
        * dt
        / 3.0;
    let change = samples[n].3 - samples[0].3;
    assert!(
        change.abs() > 0.1,
        "the pendulum barely moved: ΔE = {change}"
    );
    // Simpson's error with 1 ms steps and the dense output's error are
    // well below 1e-8 here (observed 8e-11 on ΔE = 0.5 J).
    assert!(
        (change - work).abs() < 1e-8,
        "ΔE = {change}, work of the applied forces = {work}"
    );
}
