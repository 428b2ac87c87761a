//! The joints' own forces end to end: stops (`specs/pendulum_stop.spec`,
//! `specs/slider_stops.spec`), a gear mesh with backlash
//! (`specs/gear_backlash.spec`) and a pin with clearance
//! (`specs/pin_clearance.spec`).
//!
//! Every check goes through a path written here from the specs' geometry,
//! not from the modules: the gaps and their gradients by hand, the contact
//! law `F = max(0, k − μ ġ) e^{−a g}` again, the energy balance
//! `T + V + U = E₀ + D(t)` with the contacts' potential
//! `U = Σ (k/a) e^{−a g}` and the dissipated work `D` integrated alongside
//! the motion, and for the slider between elastic stops the closed-form
//! (Toda) collision.

use sharnir_generated::{gear_backlash as gear, pendulum_stop as pendulum};
use sharnir_generated::{pin_clearance as pin, slider_stops as slider};
use sharnir_runtime::adaptive::{Dop853, Radau5};
use sharnir_runtime::{model, Direction, Event, Method, Model, OdeSystem, RhsError, Sample};
use sharnir_runtime::{Simulation, Stepper, Tolerances, Trajectory};

model!(Pendulum = sharnir_generated::pendulum_stop);
model!(Gear = sharnir_generated::gear_backlash);
model!(Pin = sharnir_generated::pin_clearance);
model!(Slider = sharnir_generated::slider_stops);

/// One contact as this file sees it: gap, its gradient in the velocity
/// coordinates, and the law's `k`, `μ`, `a`.
struct Contact {
    gap: f64,
    gradient: Vec<f64>,
    k: f64,
    mu: f64,
    a: f64,
}

impl Contact {
    fn rate(&self, v: &[f64]) -> f64 {
        self.gradient.iter().zip(v).map(|(w, v)| w * v).sum()
    }

    /// The law, written again: never pulls, no cut-off.
    fn force(&self, v: &[f64]) -> f64 {
        (self.k - self.mu * self.rate(v)).max(0.0) * (-self.a * self.gap).exp()
    }

    /// The potential of the law's elastic part.
    fn potential(&self) -> f64 {
        self.k / self.a * (-self.a * self.gap).exp()
    }

    /// The power of the law's dissipative part, `(F − k e^{−a g}) ġ ≤ 0`.
    fn dissipation(&self, v: &[f64]) -> f64 {
        (self.force(v) - self.k * (-self.a * self.gap).exp()) * self.rate(v)
    }
}

fn pendulum_contacts(p: &pendulum::Params, q: &[f64]) -> Vec<Contact> {
    let law = |gap, sign| Contact {
        gap,
        gradient: vec![sign],
        k: p.k_stop,
        mu: p.mu_stop,
        a: p.a_stop,
    };
    vec![law(q[0] - p.lower, 1.0), law(p.upper - q[0], -1.0)]
}

fn gear_contacts(p: &gear::Params, q: &[f64]) -> Vec<Contact> {
    // q = (pinion, wheel); play s = wheel − ratio · pinion.
    let s = q[1] - p.ratio * q[0];
    let law = |gap, sign: f64| Contact {
        gap,
        gradient: vec![-sign * p.ratio, sign],
        k: p.k_mesh,
        mu: p.mu_mesh,
        a: p.a_mesh,
    };
    vec![
        law(p.backlash / 2.0 - s, -1.0),
        law(p.backlash / 2.0 + s, 1.0),
    ]
}

fn pin_contacts(p: &pin::Params, q: &[f64]) -> Vec<Contact> {
    // q = (x, y, angle) of the pin in the hole. At the centre the radial
    // direction is undefined, and the law (decay × clearance ≥ 27.7 by
    // validation) has nothing left to push with.
    let r = q[0].hypot(q[1]);
    let radial = if r > 0.0 {
        [q[0] / r, q[1] / r]
    } else {
        [0.0, 0.0]
    };
    vec![Contact {
        gap: p.c - r,
        gradient: vec![-radial[0], -radial[1], 0.0],
        k: p.k_pin,
        mu: p.mu_pin,
        a: p.a_pin,
    }]
}

/// `Σ F ∇g`, the generalised contact forces from this file's law.
fn contact_forces(contacts: &[Contact], v: &[f64]) -> Vec<f64> {
    let mut tau = vec![0.0; v.len()];
    for contact in contacts {
        let f = contact.force(v);
        for (t, w) in tau.iter_mut().zip(&contact.gradient) {
            *t += f * w;
        }
    }
    tau
}

/// A cheap deterministic sequence in [0, 1).
struct Sequence(f64);

impl Sequence {
    fn next(&mut self) -> f64 {
        self.0 = (self.0 * 7.13 + 0.31).fract();
        self.0
    }
}

fn assert_close(got: f64, expected: f64, scale: f64, what: &str) {
    assert!(
        (got - expected).abs() <= 1e-12 * scale.max(expected.abs()),
        "{what}: {got} against {expected}"
    );
}

#[test]
fn stops_follow_the_law_and_never_pull() {
    let p = pendulum::Params::default();
    let mut x = Sequence(0.37);
    for _ in 0..200 {
        // Angles over the whole range and a little past both bounds.
        let theta = -0.7 + 1.4 * x.next();
        // Rates past k/μ = 50 rad/s in both directions: the clamp engages.
        let rate = 200.0 * x.next() - 100.0;
        let contacts = pendulum_contacts(&p, &[theta]);
        let expected = contact_forces(&contacts, &[rate])[0];
        let got = pendulum::limit_forces(&p, &[theta], &[rate])[0];
        // The cut-off drops at most 1e-12 of the force at zero gap.
        let scale = (p.k_stop + p.mu_stop * rate.abs()).max(expected.abs());
        assert!(
            (got - expected).abs() <= 1e-12 * scale,
            "θ = {theta}, θ̇ = {rate}: {got} against {expected}"
        );
        let gaps = pendulum::contact_gaps(&p, &[theta]);
        assert_eq!(gaps, [theta - p.lower, p.upper - theta]);
        let friction = pendulum::friction_forces(&p, &[theta], &[rate])[0];
        assert_close(friction, -p.c * rate, 1.0, "damping");
    }
    // Pressed 0.01 rad into the upper stop and leaving it faster than k/μ:
    // the clamp lets go instead of pulling.
    let leaving = pendulum::limit_forces(&p, &[p.upper + 0.01], &[-(p.k_stop / p.mu_stop) - 1.0]);
    assert_eq!(leaving[0], 0.0);
    // Far from both stops the law costs nothing and gives exactly zero.
    assert_eq!(pendulum::limit_forces(&p, &[0.0], &[3.0])[0], 0.0);
    assert_eq!(
        pendulum::CONTACT_NAMES,
        ["pivot.lower", "pivot.upper"],
        "contact names"
    );
    const { assert!(pendulum::HAS_JOINT_FORCES) };
}

#[test]
fn gear_flanks_and_pin_clearance_follow_the_law() {
    let p = gear::Params::default();
    let mut x = Sequence(0.11);
    for _ in 0..200 {
        let pinion = 4.0 * x.next() - 2.0;
        // The play within ±0.012 rad of the centre: both flanks and past them.
        let wheel = p.ratio * pinion + 0.024 * x.next() - 0.012;
        let v = [20.0 * x.next() - 10.0, 10.0 * x.next() - 5.0];
        let contacts = gear_contacts(&p, &[pinion, wheel]);
        let expected = contact_forces(&contacts, &v);
        let got = gear::limit_forces(&p, &[pinion, wheel], &v);
        let gaps = gear::contact_gaps(&p, &[pinion, wheel]);
        for i in 0..2 {
            let scale = p.k_mesh * (1.0 + p.mu_mesh * 20.0);
            assert!(
                (got[i] - expected[i]).abs() <= 1e-12 * scale,
                "{got:?} against {expected:?}"
            );
            assert_close(gaps[i], contacts[i].gap, 1.0, "flank gap");
        }
        // Dry friction of the pinion, regularised below 1e-3 rad/s.
        let friction = gear::friction_forces(&p, &[pinion, wheel], &v);
        let dry = -p.f_pinion * v[0] / (v[0] * v[0] + 1e-6).sqrt();
        assert_close(friction[0], dry, 1.0, "pinion friction");
        assert_close(friction[1], -p.c_wheel * v[1], 1.0, "wheel damping");
    }
    let p = pin::Params::default();
    for _ in 0..200 {
        let angle = std::f64::consts::TAU * x.next();
        let r = p.c * (0.9 + 0.15 * x.next());
        let q = [r * angle.cos(), r * angle.sin(), x.next()];
        let v = [0.2 * x.next() - 0.1, 0.2 * x.next() - 0.1, x.next()];
        let contacts = pin_contacts(&p, &q);
        let expected = contact_forces(&contacts, &v);
        let got = pin::limit_forces(&p, &q, &v);
        for i in 0..3 {
            assert!(
                (got[i] - expected[i]).abs() <= 1e-12 * p.k_pin * 10.0,
                "{got:?} against {expected:?}"
            );
        }
        assert_close(
            pin::contact_gaps(&p, &q)[0],
            contacts[0].gap,
            1e-3,
            "clearance gap",
        );
    }
    // The pin centred in its hole: no force, and no NaN from the gradient.
    assert_eq!(
        pin::limit_forces(&p, &[0.0, 0.0, 0.3], &[0.1, 0.0, 1.0]),
        [0.0; 3]
    );
}

/// A model's motion with the dissipated work `D` as one more state:
/// `y = (q, q̇, D)`, `Ḋ` = the contacts' dissipation (this file's law) plus
/// the power of `friction_forces`.
struct Balance<M, F, const N: usize> {
    model: M,
    contacts: F,
}

impl<M, F, const N: usize> OdeSystem for Balance<M, F, N>
where
    M: Model<N, N, Real = f64>,
    F: Fn(&M, &[f64]) -> Vec<Contact>,
{
    fn dimension(&self) -> usize {
        2 * N + 1
    }

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let q: [f64; N] = y[..N].try_into().map_err(|_| LENGTH)?;
        let v: [f64; N] = y[N..2 * N].try_into().map_err(|_| LENGTH)?;
        let tau = self.model.model_forces(t, &q, &v);
        dy[..N].copy_from_slice(&self.model.coordinate_rates(&q, &v));
        dy[N..2 * N].copy_from_slice(&self.model.forward_dynamics(&q, &v, &tau));
        let contacts = (self.contacts)(&self.model, &q);
        let contact = contact_forces(&contacts, &v);
        let friction: f64 = (0..N).map(|i| (tau[i] - contact[i]) * v[i]).sum();
        dy[2 * N] = contacts.iter().map(|c| c.dissipation(&v)).sum::<f64>() + friction;
        Ok(())
    }
}

const LENGTH: RhsError = RhsError {
    message: "wrong state length",
};

/// `T + V + U` at a state.
fn mechanical_energy<M, F, const N: usize>(system: &Balance<M, F, N>, y: &[f64]) -> f64
where
    M: Model<N, N, Real = f64>,
    F: Fn(&M, &[f64]) -> Vec<Contact>,
{
    let q: [f64; N] = y[..N].try_into().expect("length");
    let v: [f64; N] = y[N..2 * N].try_into().expect("length");
    let (kinetic, potential) = system.model.energy(&q, &v);
    let contact: f64 = (system.contacts)(&system.model, &q)
        .iter()
        .map(Contact::potential)
        .sum();
    kinetic + potential + contact
}

/// Integrates to `t_end` with `stepper` and returns the worst
/// `|E(t) − E₀ − D(t)|` over the accepted steps, the dissipated work at the
/// end, and the accepted steps.
fn balance<M, F, S, const N: usize>(
    mut system: Balance<M, F, N>,
    mut stepper: S,
    t_end: f64,
) -> (f64, f64, u64)
where
    M: Model<N, N, Real = f64>,
    F: Fn(&M, &[f64]) -> Vec<Contact>,
    S: Stepper<Balance<M, F, N>>,
{
    let e0 = mechanical_energy(&system, stepper.y());
    let mut worst: f64 = 0.0;
    while stepper.t() < t_end {
        if let Err(e) = stepper.step(&mut system, t_end) {
            panic!("{e} after {:?}", stepper.stats());
        }
        let y = stepper.y();
        worst = worst.max((mechanical_energy(&system, y) - e0 - y[2 * N]).abs());
    }
    (worst, stepper.y()[2 * N], stepper.stats().steps)
}

fn initial_state<M: Model<N, N, Real = f64>, const N: usize>(model: &M) -> Vec<f64> {
    let mut y = model.initial_positions().to_vec();
    y.extend(model.initial_velocities());
    y.push(0.0);
    y
}

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-11,
    atol: 1e-11,
};

#[test]
fn a_pendulum_hitting_its_stops_loses_what_the_dissipation_takes() {
    let model = Pendulum::default();
    let e_start = model.energy(&model.initial_positions(), &model.initial_velocities());
    let y = initial_state(&model);
    let mut system = Balance {
        model,
        contacts: |m: &Pendulum, q: &[f64]| pendulum_contacts(m.params(), q),
    };
    let stepper = Dop853::new(&mut system, 0.0, &y, TIGHT).expect("starts");
    let (worst, dissipated, _) = balance(system, stepper, 3.0);
    let initial = e_start.0 + e_start.1 + 0.0;
    // Every impact takes energy: more than a tenth of the initial kinetic
    // energy goes in three seconds, and the balance holds to 1e-8 of it.
    assert!(
        dissipated < -0.1 * e_start.0,
        "dissipated {dissipated} of {initial}"
    );
    assert!(worst < 1e-8 * e_start.0, "energy balance off by {worst}");
}

/// The pendulum with `params`, started at `theta0` with the spec's 4 rad/s,
/// through three seconds of Radau IIA at `rtol = 1e-8`: the energy
/// balance's worst error, the dissipated work and the accepted steps.
fn radau_pendulum(params: pendulum::Params, theta0: f64) -> (f64, f64, u64) {
    let model = Pendulum::new(params);
    let mut y = initial_state(&model);
    y[0] = theta0;
    let mut system = Balance {
        model,
        contacts: |m: &Pendulum, q: &[f64]| pendulum_contacts(m.params(), q),
    };
    let tolerances = Tolerances {
        rtol: 1e-8,
        atol: 1e-10,
    };
    let stepper = Radau5::new(&mut system, 0.0, &y, tolerances).expect("starts");
    balance(system, stepper, 3.0)
}

/// Kinetic energy at the start: 4 rad/s about the pivot.
const KINETIC: f64 = 0.5 * 1.0 * 0.5 * 0.5 / 3.0 * 16.0;

#[test]
fn radau_holds_a_stop_a_million_times_stiffer() {
    let (worst, dissipated, steps) = radau_pendulum(
        pendulum::Params {
            k_stop: 1e6,
            mu_stop: 1e6,
            a_stop: 1e4,
            ..pendulum::Params::default()
        },
        0.0,
    );
    // No step collapse: the run ends, in a few thousand steps, and the
    // energy it reports still balances.
    assert!(steps < 20_000, "{steps} steps");
    assert!(dissipated < -0.1 * KINETIC, "dissipated {dissipated}");
    assert!(worst < 1e-5 * KINETIC, "energy balance off by {worst}");
}

#[test]
fn radau_holds_a_pendulum_pressed_into_a_sharp_stop() {
    // The upper bound below the hanging position: gravity presses the rod
    // into a stop with a = 1e6 after it strikes it (a persistent, stiff
    // contact; see docs/performance.md, Joint stops).
    let (worst, dissipated, steps) = radau_pendulum(
        pendulum::Params {
            upper: -0.2,
            mu_stop: 1e4,
            a_stop: 1e6,
            ..pendulum::Params::default()
        },
        -0.5,
    );
    assert!(steps < 2_000, "{steps} steps");
    // It strikes at about 4 rad/s and comes to rest on the stop.
    assert!(dissipated < -0.3 * KINETIC, "dissipated {dissipated}");
    assert!(worst < 1e-6 * KINETIC, "energy balance off by {worst}");
}

#[test]
fn a_gear_mesh_with_backlash_balances_its_energy() {
    let model = Gear::default();
    let (t0, _) = model.energy(&model.initial_positions(), &model.initial_velocities());
    let y = initial_state(&model);
    let mut system = Balance {
        model,
        contacts: |m: &Gear, q: &[f64]| gear_contacts(m.params(), q),
    };
    let stepper = Dop853::new(&mut system, 0.0, &y, TIGHT).expect("starts");
    let (worst, dissipated, _) = balance(system, stepper, 2.0);
    assert!(dissipated < -0.2 * t0, "dissipated {dissipated} of {t0}");
    assert!(worst < 1e-8 * t0, "energy balance off by {worst}");
}

#[test]
fn a_pin_rattling_in_its_hole_balances_its_energy() {
    let model = Pin::default();
    let (_, v0) = model.energy(&model.initial_positions(), &model.initial_velocities());
    let y = initial_state(&model);
    let mut system = Balance {
        model,
        contacts: |m: &Pin, q: &[f64]| pin_contacts(m.params(), q),
    };
    let tolerances = Tolerances {
        rtol: 1e-10,
        atol: 1e-12,
    };
    let stepper = Radau5::new(&mut system, 0.0, &y, tolerances).expect("starts");
    let (worst, dissipated, _) = balance(system, stepper, 1.0);
    // The swing's energy is m g l/2 (1 − cos 0.5) ≈ 0.24 J; the pin's
    // impacts take a measurable part of it.
    let swing = 1.0 * 9.81 * 0.2 * (1.0 - 0.5_f64.cos());
    assert!(
        dissipated < -1e-4 * swing,
        "dissipated {dissipated}, potential {v0}"
    );
    assert!(worst < 1e-7 * swing, "energy balance off by {worst}");
}

/// The slider's closed-form position: uniform motion at `v` between
/// Toda collisions with the virtual walls at `δ` and `L − δ`.
fn slider_position(p: &slider::Params, t: f64) -> f64 {
    let (x0, v) = (0.5, 2.0);
    let energy = 0.5 * p.m * v * v;
    let ratio = p.k_stop / (p.a_stop * energy);
    let delta = (ratio / 4.0).ln() / p.a_stop;
    let half_period = (p.length - 2.0 * delta) / v;
    let first_turn = (x0 - delta) / v;
    let b = p.a_stop * v / 2.0;
    // The nearest turning time and which wall it is at.
    let n = ((t - first_turn) / half_period).round().max(0.0);
    let turn = first_turn + n * half_period;
    let near_wall = (ratio * (b * (t - turn)).cosh().powi(2)).ln() / p.a_stop;
    if (n as u64).is_multiple_of(2) {
        near_wall
    } else {
        p.length - near_wall
    }
}

#[test]
fn a_slider_between_elastic_stops_moves_as_the_closed_form() {
    let model = Slider::default();
    let p = *model.params();
    let mut y = model.initial_positions().to_vec();
    y.extend(model.initial_velocities());
    let mut system = sharnir_runtime::ModelSystem::new(model);
    let mut stepper = Dop853::new(&mut system, 0.0, &y, TIGHT).expect("starts");
    let mut worst: f64 = 0.0;
    let mut out = [0.0; 2];
    // Two round trips: four collisions.
    for k in 1..=2000 {
        let t = f64::from(k) * 1e-3;
        while stepper.t() < t {
            stepper.step(&mut system, 2.0).expect("integrates");
        }
        stepper.interpolate(t, &mut out);
        worst = worst.max((out[0] - slider_position(&p, t)).abs());
    }
    assert!(worst < 1e-7, "off the closed form by {worst} m");
}

#[test]
fn the_slider_meets_and_leaves_its_stops_at_the_closed_form_times() {
    let model = Slider::default();
    let p = *model.params();
    let gaps_model = model;
    let events = slider::CONTACT_NAMES
        .iter()
        .map(|name| Event::new(*name, Direction::Either))
        .collect();
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .events(events, move |_t, q, _v, g| {
            gaps_model.contact_gaps(&[q[0]], g);
        })
        .run(2.0, |_: &Sample<'_>| {})
        .expect("runs");
    // Closed form: the gap crosses zero τ* before and after each turn,
    // cosh²(b τ*) = aE/k; turns alternate between the stops.
    let v = 2.0;
    let energy = 0.5 * p.m * v * v;
    let ratio = p.k_stop / (p.a_stop * energy);
    let delta = (ratio / 4.0).ln() / p.a_stop;
    let half_period = (p.length - 2.0 * delta) / v;
    let first_turn = (0.5 - delta) / v;
    let b = p.a_stop * v / 2.0;
    let crossing = (1.0 / ratio).sqrt().acosh() / b;
    let mut expected = Vec::new();
    for n in 0..4 {
        let turn = first_turn + f64::from(n) * half_period;
        let stop = if n % 2 == 0 {
            "slide.lower"
        } else {
            "slide.upper"
        };
        expected.push((turn - crossing, stop, Direction::Falling));
        expected.push((turn + crossing, stop, Direction::Rising));
    }
    assert_eq!(summary.events.len(), expected.len(), "{:?}", summary.events);
    for (record, (t, name, direction)) in summary.events.iter().zip(&expected) {
        assert_eq!(record.name, *name);
        assert_eq!(record.direction, *direction);
        assert!(
            (record.t - t).abs() < 1e-9,
            "{name} at {} s, closed form {t} s",
            record.t
        );
    }
}
