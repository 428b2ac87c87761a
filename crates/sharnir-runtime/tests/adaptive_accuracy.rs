//! The adaptive integrators measured: orders with fixed steps, errors in
//! proportion to the tolerance, the end of an interval, work counted stage
//! by stage, published reference values (Van der Pol, Robertson) and the
//! error paths.

mod problems;

use problems::{tolerance, Arenstorf, Oscillator, Robertson, VanDerPol, PERIOD};
use sharnir_runtime::adaptive::{Dop853, Dopri5, Radau5};
use sharnir_runtime::{IntegrationError, OdeSystem, RhsError, Stepper, Tolerances, Trajectory};

/// The two-body problem of HNW I (II.10) with eccentricity 0.3, from
/// perihelion: nonlinear and coupled (so every order condition of the
/// methods shows in its error, not only the linear ones), with a closed
/// form through Kepler's equation.
struct Kepler;

const ECCENTRICITY: f64 = 0.3;

impl OdeSystem for Kepler {
    fn dimension(&self) -> usize {
        4
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let r3 = (y[0] * y[0] + y[1] * y[1]).powf(1.5);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
        Ok(())
    }
}

/// The exact state of [`Kepler`] at `t`: the eccentric anomaly `E` solves
/// `E − e sin E = t` (Newton, converged to roundoff), then
/// `q = (cos E − e, √(1−e²) sin E)`.
fn kepler(t: f64) -> [f64; 4] {
    let e = ECCENTRICITY;
    let mut anomaly = t;
    for _ in 0..30 {
        anomaly -= (anomaly - e * anomaly.sin() - t) / (1.0 - e * anomaly.cos());
    }
    let w = (1.0 - e * e).sqrt();
    let rate = 1.0 / (1.0 - e * anomaly.cos());
    [
        anomaly.cos() - e,
        w * anomaly.sin(),
        -anomaly.sin() * rate,
        w * anomaly.cos() * rate,
    ]
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Tolerances so loose that every step is accepted: with `initial_step(h)`
/// and `max_step(h)` an adaptive method takes fixed steps of `h`.
fn accept_everything() -> Tolerances {
    tolerance(1e3)
}

/// One step of exactly `h` from the exact state at `t = 1`: the error of
/// the step and of the dense output at 30 % of it.
fn one_kepler_step<T: Stepper<Kepler>>(mut stepper: T, h: f64) -> (f64, f64) {
    stepper.step(&mut Kepler, 100.0).expect("step");
    assert_eq!(stepper.t(), 1.0 + h, "not a fixed step");
    let mut out = [0.0; 4];
    stepper.interpolate(1.0 + 0.3 * h, &mut out);
    (
        max_difference(stepper.y(), &kepler(1.0 + h)),
        max_difference(&out, &kepler(1.0 + 0.3 * h)),
    )
}

/// The order `log₂(coarse / fine)` of an error that halving `h` reduced
/// from `coarse` to `fine`.
fn order(coarse: f64, fine: f64) -> f64 {
    (coarse / fine).log2()
}

#[test]
fn fixed_steps_converge_at_the_methods_orders() {
    let y1 = kepler(1.0);
    let loose = accept_everything();
    let dopri5 = |h: f64| {
        let s = Dopri5::new(&mut Kepler, 1.0, &y1, loose).unwrap();
        one_kepler_step(s.initial_step(h).max_step(h), h)
    };
    let dop853 = |h: f64| {
        let s = Dop853::new(&mut Kepler, 1.0, &y1, loose).unwrap();
        one_kepler_step(s.initial_step(h).max_step(h), h)
    };
    // A method of order p errs by O(h^(p+1)) in one step; its continuous
    // extension of order q by O(h^(q+1)) inside the step. Observed orders:
    // Dopri5 6.3 and 4.9, DOP853 8.6 and 7.8 (asymptotically 6, 5, 9, 8).
    let (step_a, dense_a) = dopri5(0.1);
    let (step_b, dense_b) = dopri5(0.05);
    let (p, q) = (order(step_a, step_b), order(dense_a, dense_b));
    assert!((5.5..7.0).contains(&p), "Dopri5 local order {p}");
    assert!((4.5..5.5).contains(&q), "Dopri5 dense local order {q}");
    let (step_a, dense_a) = dop853(0.2);
    let (step_b, dense_b) = dop853(0.1);
    let (p, q) = (order(step_a, step_b), order(dense_a, dense_b));
    assert!(
        (8.0..9.8).contains(&p),
        "DOP853 local order {p} ({step_a:e}, {step_b:e})"
    );
    assert!((7.3..8.7).contains(&q), "DOP853 dense local order {q}");

    // Globally, over one period: Dopri5's error falls like h⁵ (observed
    // 5.1 from 100 to 200 steps); every step has the size asked for.
    let period = 2.0 * std::f64::consts::PI;
    let global = |steps: u64| {
        let h = period / steps as f64;
        let mut s = Dopri5::new(&mut Kepler, 0.0, &kepler(0.0), loose)
            .unwrap()
            .initial_step(h)
            .max_step(h);
        while s.t() < period {
            s.step(&mut Kepler, period).unwrap();
        }
        assert_eq!(s.stats().steps, steps);
        max_difference(s.y(), &kepler(0.0))
    };
    let p = order(global(100), global(200));
    assert!((4.6..5.6).contains(&p), "Dopri5 global order {p}");
}

/// Prothero and Robinson's test equation `y' = λ (y − cos t) − sin t`,
/// solved by `y = cos t` whatever `λ`; stiff for large negative `λ`.
struct ProtheroRobinson(f64);

impl OdeSystem for ProtheroRobinson {
    fn dimension(&self) -> usize {
        1
    }
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = self.0 * (y[0] - t.cos()) - t.sin();
        Ok(())
    }
}

/// Integrates `y' = −y` (or Prothero–Robinson) over `[0, t_end]` and
/// returns the error at the end and the worst error of the dense output at
/// four interior points of every step.
fn closed_form_errors<S: OdeSystem, T: Stepper<S>>(
    system: &mut S,
    mut stepper: T,
    t_end: f64,
    exact: impl Fn(f64) -> f64,
) -> (f64, f64) {
    let mut dense: f64 = 0.0;
    let mut out = [0.0];
    while stepper.t() < t_end {
        stepper.step(system, t_end).expect("step");
        for theta in [0.2, 0.4, 0.6, 0.8] {
            let t = stepper.t_previous() + theta * (stepper.t() - stepper.t_previous());
            stepper.interpolate(t, &mut out);
            dense = dense.max((out[0] - exact(t)).abs());
        }
    }
    assert_eq!(stepper.t(), t_end);
    ((stepper.y()[0] - exact(t_end)).abs(), dense)
}

/// Exponential decay `y' = −y`.
struct Decay;

impl OdeSystem for Decay {
    fn dimension(&self) -> usize {
        1
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = -y[0];
        Ok(())
    }
}

#[test]
fn errors_shrink_in_proportion_to_the_tolerance() {
    let decay = |t: f64| (-t).exp();
    // (error at 1e-5, error at 1e-9) for each method on each problem.
    let mut rows = Vec::new();
    for (name, forced) in [("decay", false), ("prothero-robinson", true)] {
        let errors = |tol: f64| -> [(f64, f64); 3] {
            let tol = tolerance(tol);
            if forced {
                let mut pr = ProtheroRobinson(-10.0);
                let a = Dopri5::new(&mut pr, 0.0, &[1.0], tol).unwrap();
                let dopri5 = closed_form_errors(&mut pr, a, 5.0, f64::cos);
                let b = Dop853::new(&mut pr, 0.0, &[1.0], tol).unwrap();
                let dop853 = closed_form_errors(&mut pr, b, 5.0, f64::cos);
                let c = Radau5::new(&mut pr, 0.0, &[1.0], tol).unwrap();
                let radau = closed_form_errors(&mut pr, c, 5.0, f64::cos);
                [dopri5, dop853, radau]
            } else {
                let a = Dopri5::new(&mut Decay, 0.0, &[1.0], tol).unwrap();
                let b = Dop853::new(&mut Decay, 0.0, &[1.0], tol).unwrap();
                let c = Radau5::new(&mut Decay, 0.0, &[1.0], tol).unwrap();
                [
                    closed_form_errors(&mut Decay, a, 5.0, decay),
                    closed_form_errors(&mut Decay, b, 5.0, decay),
                    closed_form_errors(&mut Decay, c, 5.0, decay),
                ]
            }
        };
        let (loose, tight) = (errors(1e-5), errors(1e-9));
        for (m, method) in ["dopri5", "dop853", "radau5"].into_iter().enumerate() {
            rows.push((name, method, loose[m], tight[m]));
        }
    }
    for (problem, method, (end5, dense5), (end9, dense9)) in rows {
        let label = format!("{method} on {problem}: {end5:e} at 1e-5, {end9:e} at 1e-9");
        // Within a small multiple of the tolerance, end point and dense
        // output alike (observed: at most 1.7× at the end, 4× inside a step
        // for the explicit methods, 32× for Radau IIA, whose collocation
        // cubic is a degree less accurate than its steps)...
        assert!(end5 < 10.0 * 1e-5 && end9 < 10.0 * 1e-9, "{label}");
        let dense_factor = if method == "radau5" { 50.0 } else { 20.0 };
        assert!(
            dense5 < dense_factor * 1e-5 && dense9 < dense_factor * 1e-9,
            "{label}, dense {dense5:e} {dense9:e}"
        );
        // ...and 10⁴ times tighter gives errors 10^1.8 to 10⁵ times smaller:
        // an exponent of the tolerance between 0.45 and 1.25 (observed
        // 1.7e3 to 1.1e4 for the explicit methods; for Radau IIA, whose
        // control works on `0.1·tol^(2/3)`, 990 on the decay and 87 on
        // Prothero–Robinson, mildly stiff at λ = −10).
        let ratio = end5 / end9;
        assert!((63.0..1e5).contains(&ratio), "{label}: ratio {ratio:e}");
    }
}

#[test]
fn steps_land_on_the_end_time_and_stop_there() {
    let t_end = 1.0 / 3.0;
    let y0 = [1.0, 0.0];
    let tol = tolerance(1e-8);
    let mut steppers: Vec<(&str, Box<dyn Stepper<Oscillator>>)> = vec![
        (
            "dopri5",
            Box::new(Dopri5::new(&mut Oscillator, 0.0, &y0, tol).unwrap()),
        ),
        (
            "dop853",
            Box::new(Dop853::new(&mut Oscillator, 0.0, &y0, tol).unwrap()),
        ),
        (
            "radau5",
            Box::new(Radau5::new(&mut Oscillator, 0.0, &y0, tol).unwrap()),
        ),
    ];
    for (name, stepper) in &mut steppers {
        let mut out = [0.0; 2];
        while stepper.t() < t_end {
            let (t0, y_start) = (stepper.t(), stepper.y().to_vec());
            stepper.step(&mut Oscillator, t_end).unwrap();
            assert_eq!(stepper.t_previous(), t0, "{name}");
            assert!(stepper.t() <= t_end, "{name} stepped past the end");
            // The continuous extension joins the step's two ends.
            stepper.interpolate(t0, &mut out);
            assert!(
                max_difference(&out, &y_start) < 1e-14,
                "{name}: {out:?} vs {y_start:?}"
            );
            let t1 = stepper.t();
            stepper.interpolate(t1, &mut out);
            assert!(max_difference(&out, stepper.y()) < 1e-14, "{name}");
        }
        assert_eq!(stepper.t(), t_end, "{name}");
        // At the end, a step does nothing: no evaluation, no change.
        let (stats, y) = (stepper.stats(), stepper.y().to_vec());
        stepper.step(&mut Oscillator, t_end).unwrap();
        stepper.step(&mut Oscillator, 0.0).unwrap();
        assert_eq!(stepper.stats(), stats, "{name}");
        assert_eq!(stepper.y(), &y[..], "{name}");
        assert!(
            max_difference(&y, &[t_end.cos(), -t_end.sin()]) < 1e-7,
            "{name}"
        );
        // An output slice of the wrong length gets what fits, no panic.
        let (mut short, mut long) = ([7.0; 1], [7.0; 3]);
        stepper.interpolate(0.3, &mut short);
        stepper.interpolate(0.3, &mut long);
        assert!(
            (short[0] - long[0]).abs() < 1e-15 && long[2] == 7.0,
            "{name}"
        );
    }
}

/// The unit circle `y' = (−y₂, y₁)`, with a projection back onto it that
/// says it changed the state after every step.
struct Circle {
    projections: u64,
}

impl OdeSystem for Circle {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = -y[1];
        dy[1] = y[0];
        Ok(())
    }
    fn project(&mut self, _t: f64, y: &mut [f64]) -> bool {
        let norm = (y[0] * y[0] + y[1] * y[1]).sqrt();
        y[0] /= norm;
        y[1] /= norm;
        self.projections += 1;
        true
    }
}

#[test]
fn work_is_counted_stage_by_stage() {
    // Dopri5: one evaluation at the start, one for the initial step
    // (HINIT), six per attempted step (the seventh is the next step's
    // first, FSAL). DOP853: eleven per attempt, and on acceptance the
    // rate at the new point plus three for the dense output.
    let y0 = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
    let tol = tolerance(1e-7);
    let mut dopri5 = Dopri5::new(&mut Arenstorf, 0.0, &y0, tol).unwrap();
    let mut dop853 = Dop853::new(&mut Arenstorf, 0.0, &y0, tol).unwrap();
    while dopri5.t() < PERIOD {
        dopri5.step(&mut Arenstorf, PERIOD).unwrap();
    }
    while dop853.t() < PERIOD {
        dop853.step(&mut Arenstorf, PERIOD).unwrap();
    }
    let s = dopri5.stats();
    assert!(s.steps > 50 && s.rejected > 0, "{s:?}");
    assert_eq!(s.rhs_evaluations, 2 + 6 * (s.steps + s.rejected), "{s:?}");
    assert_eq!((s.jacobian_evaluations, s.decompositions), (0, 0));
    let s = dop853.stats();
    assert!(s.steps > 20 && s.rejected > 0, "{s:?}");
    assert_eq!(
        s.rhs_evaluations,
        2 + 11 * (s.steps + s.rejected) + 4 * s.steps,
        "{s:?}"
    );

    // A projection that changed the state costs one more evaluation per
    // step in the FSAL methods, and keeps the state on the circle.
    let mut circle = Circle { projections: 0 };
    let mut dopri5 = Dopri5::new(&mut circle, 0.0, &[1.0, 0.0], tol).unwrap();
    while dopri5.t() < 20.0 {
        dopri5.step(&mut circle, 20.0).unwrap();
        let y = dopri5.y();
        assert!((y[0].hypot(y[1]) - 1.0).abs() < 1e-15);
    }
    let s = dopri5.stats();
    assert_eq!(circle.projections, s.steps + 1, "{s:?}");
    assert_eq!(
        s.rhs_evaluations,
        2 + 6 * (s.steps + s.rejected) + s.steps,
        "{s:?}"
    );
    assert!(max_difference(dopri5.y(), &[20f64.cos(), 20f64.sin()]) < 1e-5);
    let mut circle = Circle { projections: 0 };
    let mut dop853 = Dop853::new(&mut circle, 0.0, &[1.0, 0.0], tol).unwrap();
    while dop853.t() < 20.0 {
        dop853.step(&mut circle, 20.0).unwrap();
    }
    let s = dop853.stats();
    assert_eq!(
        s.rhs_evaluations,
        2 + 11 * (s.steps + s.rejected) + 5 * s.steps,
        "{s:?}"
    );

    // Radau IIA: one Jacobian (here by differences: n = 2 evaluations
    // each) serves several steps; each decomposition is of the pair of
    // matrices; each attempt costs 3 evaluations per Newton iteration
    // (1 to 7), and an accepted step one more for the rate at its end.
    let mut radau = Radau5::new(&mut VanDerPol, 0.0, &[2.0, 0.0], tolerance(1e-6)).unwrap();
    while radau.t() < 3000.0 {
        radau.step(&mut VanDerPol, 3000.0).unwrap();
    }
    let s = radau.stats();
    assert!(
        s.jacobian_evaluations >= 1 && s.jacobian_evaluations < s.steps,
        "{s:?}"
    );
    assert!(s.decompositions >= s.jacobian_evaluations, "{s:?}");
    assert!(s.decompositions <= s.steps + s.rejected, "{s:?}");
    let newton = s.rhs_evaluations - 2 - s.steps - 2 * s.jacobian_evaluations;
    assert!(
        newton >= 3 * (s.steps + s.rejected) && newton <= 22 * (s.steps + s.rejected),
        "{s:?}"
    );
}

/// Van der Pol in HNW II's scaled form (their (IV.1.5') and the test set's
/// VDPOL): `y₁' = y₂`, `ε y₂' = (1 − y₁²) y₂ − y₁`, ε = 10⁻⁶, which is
/// μ = 1000 with time scaled by 1/μ.
struct ScaledVanDerPol;

impl OdeSystem for ScaledVanDerPol {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / 1e-6;
        Ok(())
    }
}

/// Van der Pol unscaled with a mild μ, where an explicit method is cheap
/// enough to serve as the cross-check.
struct MildVanDerPol(f64);

impl OdeSystem for MildVanDerPol {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = self.0 * (1.0 - y[0] * y[0]) * y[1] - y[0];
        Ok(())
    }
}

#[test]
fn van_der_pol_matches_the_published_reference_and_dop853() {
    // The reference of Hairer's test set (VDPOL, y(0) = (2, 0), t = 2).
    let reference = [1.706_167_732_170_483, -0.892_809_701_024_797_5];
    let run = |tol: f64| {
        let mut radau =
            Radau5::new(&mut ScaledVanDerPol, 0.0, &[2.0, 0.0], tolerance(tol)).unwrap();
        while radau.t() < 2.0 {
            radau.step(&mut ScaledVanDerPol, 2.0).unwrap();
        }
        (max_difference(radau.y(), &reference), radau.stats())
    };
    // Observed: 4.5e-7 in 487 steps at 1e-6; 5.5e-11 in 2267 at 1e-10.
    let (error, stats) = run(1e-6);
    assert!(error < 3e-6 && stats.steps < 800, "{error:e} {stats:?}");
    let (error, stats) = run(1e-10);
    assert!(error < 5e-10 && stats.steps < 4000, "{error:e} {stats:?}");

    // μ = 10 over two periods: Radau IIA at 1e-10 against DOP853 at 1e-13.
    let mut mild = MildVanDerPol(10.0);
    let mut radau = Radau5::new(&mut mild, 0.0, &[2.0, 0.0], tolerance(1e-10)).unwrap();
    let mut dop853 = Dop853::new(&mut mild, 0.0, &[2.0, 0.0], tolerance(1e-13)).unwrap();
    while radau.t() < 20.0 {
        radau.step(&mut mild, 20.0).unwrap();
    }
    while dop853.t() < 20.0 {
        dop853.step(&mut mild, 20.0).unwrap();
    }
    let difference = max_difference(radau.y(), dop853.y());
    assert!(difference < 1e-7, "{:?} vs {:?}", radau.y(), dop853.y());
}

#[test]
fn robertson_matches_the_test_set_at_1e11_with_either_jacobian() {
    /// Robertson without its Jacobian: Radau IIA forms it by differences.
    struct RobertsonNumeric;
    impl OdeSystem for RobertsonNumeric {
        fn dimension(&self) -> usize {
            3
        }
        fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
            Robertson.rhs(t, y, dy)
        }
    }
    let tol = Tolerances {
        rtol: 1e-10,
        atol: 1e-14,
    };
    let y0 = [1.0, 0.0, 0.0];
    // At t = 40 the two Jacobians give the same solution, the differences
    // costing n = 3 evaluations per Jacobian.
    let mut analytic = Radau5::new(&mut Robertson, 0.0, &y0, tol).unwrap();
    let mut numeric = Radau5::new(&mut RobertsonNumeric, 0.0, &y0, tol).unwrap();
    while analytic.t() < 40.0 {
        analytic.step(&mut Robertson, 40.0).unwrap();
        let sum: f64 = analytic.y().iter().sum();
        assert!((sum - 1.0).abs() < 1e-14, "mass {sum} at {}", analytic.t());
    }
    while numeric.t() < 40.0 {
        numeric.step(&mut RobertsonNumeric, 40.0).unwrap();
    }
    let (a, n) = (analytic.stats(), numeric.stats());
    assert!(max_difference(analytic.y(), numeric.y()) < 1e-12);
    let without_jacobians = n.rhs_evaluations - 3 * n.jacobian_evaluations;
    assert!(
        (without_jacobians as f64 / a.rhs_evaluations as f64 - 1.0).abs() < 0.05,
        "{a:?} {n:?}"
    );
    // On to 10¹¹ (HNW's range): the reference of the test set (ROBER).
    let reference = [
        0.208_334_014_970_125_5e-7,
        0.833_336_077_033_471_3e-13,
        0.999_999_979_166_505,
    ];
    while analytic.t() < 1e11 {
        analytic.step(&mut Robertson, 1e11).unwrap();
    }
    let y = analytic.y();
    // Observed relative errors about 1e-8.
    for i in 0..3 {
        assert!(
            (y[i] - reference[i]).abs() < 1e-6 * reference[i],
            "y = {y:?}"
        );
    }
    assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-13);
    assert!(analytic.stats().steps < 1500, "{:?}", analytic.stats());
}

#[test]
fn radau_follows_a_stiff_smooth_solution_in_few_steps() {
    // Prothero–Robinson with λ = −10⁶: the explicit methods need steps of
    // about 3/|λ| for stability; Radau IIA steps as the smooth cos t allows.
    let mut stiff = ProtheroRobinson(-1e6);
    let tol = tolerance(1e-6);
    let mut radau = Radau5::new(&mut stiff, 0.0, &[1.0], tol).unwrap();
    while radau.t() < 5.0 {
        radau.step(&mut stiff, 5.0).unwrap();
    }
    let s = radau.stats();
    assert!((radau.y()[0] - 5f64.cos()).abs() < 1e-6, "{:?}", radau.y());
    assert!(s.steps < 30, "{s:?}");
    let mut dopri5 = Dopri5::new(&mut stiff, 0.0, &[1.0], tol)
        .unwrap()
        .max_steps(100 * s.steps);
    let outcome = loop {
        match dopri5.step(&mut stiff, 5.0) {
            Ok(()) if dopri5.t() < 5.0 => {}
            other => break other,
        }
    };
    assert!(
        matches!(outcome, Err(IntegrationError::TooManySteps { .. })),
        "{outcome:?} {:?}",
        dopri5.stats()
    );
    // The collocation cubic between such long steps is only an
    // interpolant (its error is not controlled): bounding the step bounds
    // it. With steps ≤ 0.05 the dense output is within the tolerance.
    let mut bounded = Radau5::new(&mut stiff, 0.0, &[1.0], tol)
        .unwrap()
        .max_step(0.05);
    let mut worst: f64 = 0.0;
    let mut out = [0.0];
    while bounded.t() < 5.0 {
        bounded.step(&mut stiff, 5.0).unwrap();
        let t = 0.5 * (bounded.t_previous() + bounded.t());
        bounded.interpolate(t, &mut out);
        worst = worst.max((out[0] - t.cos()).abs());
    }
    assert!(worst < 1e-6, "dense error {worst:e}");
}

/// `y' = 1` until `t = 0.5`, then a right-hand side that fails: with an
/// error (`fail`) or with NaN.
struct Breaks {
    fail: bool,
}

impl OdeSystem for Breaks {
    fn dimension(&self) -> usize {
        1
    }
    fn rhs(&mut self, t: f64, _y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        if t <= 0.5 {
            dy[0] = 1.0;
        } else if self.fail {
            return Err(RhsError { message: "broken" });
        } else {
            dy[0] = f64::NAN;
        }
        Ok(())
    }
}

/// Steps `stepper` towards `t_end` until it fails (or reaches the end).
fn run_to<S: OdeSystem>(
    system: &mut S,
    stepper: &mut dyn Stepper<S>,
    t_end: f64,
) -> Result<(), IntegrationError> {
    while stepper.t() < t_end {
        stepper.step(system, t_end)?;
    }
    Ok(())
}

#[test]
fn failures_stop_with_their_time_and_kind() {
    let tol = tolerance(1e-8);
    for fail in [true, false] {
        let mut system = Breaks { fail };
        let steppers: [Box<dyn Stepper<Breaks>>; 3] = [
            Box::new(Dopri5::new(&mut system, 0.0, &[0.0], tol).unwrap()),
            Box::new(Dop853::new(&mut system, 0.0, &[0.0], tol).unwrap()),
            Box::new(Radau5::new(&mut system, 0.0, &[0.0], tol).unwrap()),
        ];
        for mut stepper in steppers {
            let error = run_to(&mut system, stepper.as_mut(), 1.0).unwrap_err();
            let t = error.time().unwrap();
            if fail {
                // Reported at the time of the failed evaluation.
                assert!(
                    matches!(
                        error,
                        IntegrationError::Rhs {
                            error: RhsError { message: "broken" },
                            ..
                        }
                    ),
                    "{error:?}"
                );
                assert!(t > 0.5 && t <= 1.0, "{error:?}");
            } else {
                // NaN stages are rejected and the step shrunk until it
                // cannot advance: the integration gets as close to 0.5 as
                // the arithmetic allows.
                assert!(
                    matches!(error, IntegrationError::StepSizeTooSmall { .. }),
                    "{error:?}"
                );
                assert!((t - 0.5).abs() < 1e-9, "{error:?}");
                assert!((stepper.y()[0] - t).abs() < 1e-9, "{:?}", stepper.y());
            }
        }
    }

    // A rate that is not finite at the start.
    struct Singular;
    impl OdeSystem for Singular {
        fn dimension(&self) -> usize {
            1
        }
        fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
            dy[0] = 1.0 / y[0];
            Ok(())
        }
    }
    assert_eq!(
        Dopri5::new(&mut Singular, 2.0, &[0.0], tol).err(),
        Some(IntegrationError::NonFinite { t: 2.0 })
    );
    assert_eq!(
        Radau5::new(&mut Singular, 2.0, &[0.0], tol).err(),
        Some(IntegrationError::NonFinite { t: 2.0 })
    );

    // The step budget counts accepted and rejected steps.
    let mut dop853 = Dop853::new(&mut Oscillator, 0.0, &[1.0, 0.0], tol)
        .unwrap()
        .max_steps(3);
    let error = run_to(&mut Oscillator, &mut dop853, 100.0).unwrap_err();
    assert!(
        matches!(error, IntegrationError::TooManySteps { limit: 3, .. }),
        "{error:?}"
    );
    let s = dop853.stats();
    assert_eq!(s.steps + s.rejected, 3);
}

#[test]
fn unusable_step_sizes_and_mass_matrices_are_refused() {
    let tol = tolerance(1e-6);
    let y0 = [1.0, 0.0];
    let fresh = || Dopri5::new(&mut Oscillator, 0.0, &y0, tol).unwrap();
    let mut cases: Vec<(&str, Box<dyn Stepper<Oscillator>>, f64)> = vec![
        ("max_step 0", Box::new(fresh().max_step(0.0)), 1.0),
        ("max_step NaN", Box::new(fresh().max_step(f64::NAN)), 1.0),
        ("initial_step −1", Box::new(fresh().initial_step(-1.0)), 1.0),
        (
            "initial_step ∞",
            Box::new(fresh().initial_step(f64::INFINITY)),
            1.0,
        ),
        ("t_end NaN", Box::new(fresh()), f64::NAN),
        (
            "dop853 initial_step 0",
            Box::new(
                Dop853::new(&mut Oscillator, 0.0, &y0, tol)
                    .unwrap()
                    .initial_step(0.0),
            ),
            1.0,
        ),
        (
            "radau5 max_step −1",
            Box::new(
                Radau5::new(&mut Oscillator, 0.0, &y0, tol)
                    .unwrap()
                    .max_step(-1.0),
            ),
            1.0,
        ),
    ];
    for (name, stepper, t_end) in &mut cases {
        let outcome = stepper.step(&mut Oscillator, *t_end);
        assert!(
            matches!(outcome, Err(IntegrationError::InvalidArgument { .. })),
            "{name}: {outcome:?}"
        );
        assert_eq!(stepper.t(), 0.0, "{name}");
    }
    for t0 in [f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Dop853::new(&mut Oscillator, t0, &y0, tol).err(),
            Some(IntegrationError::InvalidArgument { .. })
        ));
    }
    for mass in [vec![1.0], vec![1.0, f64::NAN]] {
        let radau = Radau5::new(&mut Oscillator, 0.0, &y0, tol).unwrap();
        assert!(matches!(
            radau.with_mass_diagonal(mass),
            Err(IntegrationError::InvalidArgument { .. })
        ));
    }
}

/// Robertson as an index-1 DAE (HNW II, VI.1): the third equation replaced
/// by the conservation law `0 = y₁ + y₂ + y₃ − 1`.
struct RobertsonDae;

impl OdeSystem for RobertsonDae {
    fn dimension(&self) -> usize {
        3
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        dy[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
        dy[2] = y[0] + y[1] + y[2] - 1.0;
        Ok(())
    }
}

#[test]
fn radau_solves_robertson_as_a_nonlinear_index_one_dae() {
    let mut radau = Radau5::new(
        &mut RobertsonDae,
        0.0,
        &[1.0, 0.0, 0.0],
        Tolerances {
            rtol: 1e-8,
            atol: 1e-14,
        },
    )
    .unwrap()
    .with_mass_diagonal(vec![1.0, 1.0, 0.0])
    .unwrap();
    while radau.t() < 40.0 {
        radau.step(&mut RobertsonDae, 40.0).unwrap();
        // The algebraic equation holds at every step.
        let sum: f64 = radau.y().iter().sum();
        assert!((sum - 1.0).abs() < 1e-14, "{sum} at {}", radau.t());
    }
    // The ODE's reference at t = 40 (checked above to 1e-8 and against the
    // test set at 1e11).
    let reference = [
        0.715_827_068_719_4,
        9.185_534_764_56e-6,
        0.284_163_745_745_8,
    ];
    let y = radau.y();
    for i in 0..3 {
        assert!(
            (y[i] - reference[i]).abs() < 1e-8 * reference[i],
            "y = {y:?}, {:?}",
            radau.stats()
        );
    }
    // Observed: relative errors below 1e-10 in 116 steps.
    assert!(radau.stats().steps < 200, "{:?}", radau.stats());
}
