//! `[motion]` on a mechanism with loops: `specs/driven_crank_slider.spec`,
//! an offset crank–slider whose crank a drive turns at a constant rate `ω`
//! against a gas force `F` on the slider. Checked against a hand
//! derivation written here:
//!
//! - the slider `x(θ) = a cos θ + l cos φ`, the rod's angle
//!   `φ = asin((e − a sin θ)/l)`, the rod's centre `A + (l/2)(cos φ, sin φ)`;
//! - Lagrange's equation in the crank angle with `θ̈ = 0`: the drive torque
//!   `τ = ½ J′(θ) ω² + V′(θ) + F x′(θ)`, `J(θ)` the generalized inertia
//!   (`T = ½ J θ̇²`) and `V` the potential, `J′` by central differences;
//! - Newton's law of the slider along the guide: the rod pushes it with
//!   `m₃ ẍ + F`, `ẍ = x″(θ) ω²`.

use sharnir_generated::driven_crank_slider as m;
use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};

model!(Driven = sharnir_generated::driven_crank_slider, loops);

/// The hand kinematics at crank angle `theta`: the rod's absolute angle
/// and its rate per unit crank rate, the slider's `x` and `x′`, the rod
/// centre's velocity per unit crank rate.
struct Kinematics {
    phi: f64,
    phi_rate: f64,
    x: f64,
    x_rate: f64,
    rod_centre_rate: [f64; 2],
    rod_centre_height: f64,
}

fn kinematics(p: &m::Params, theta: f64) -> Kinematics {
    let u = (p.e - p.a * theta.sin()) / p.l;
    let phi = u.asin();
    let phi_rate = -p.a * theta.cos() / p.l / (1.0 - u * u).sqrt();
    Kinematics {
        phi,
        phi_rate,
        x: p.a * theta.cos() + p.l * phi.cos(),
        x_rate: -p.a * theta.sin() - p.l * phi.sin() * phi_rate,
        rod_centre_rate: [
            -p.a * theta.sin() - 0.5 * p.l * phi.sin() * phi_rate,
            p.a * theta.cos() + 0.5 * p.l * phi.cos() * phi_rate,
        ],
        rod_centre_height: p.a * theta.sin() + 0.5 * p.l * phi.sin(),
    }
}

/// `J(θ)` with `T = ½ J θ̇²`, and `V(θ)`.
fn inertia_and_potential(p: &m::Params, theta: f64) -> (f64, f64) {
    let k = kinematics(p, theta);
    let [vx, vy] = k.rod_centre_rate;
    let inertia = p.m1 * p.a * p.a / 3.0
        + p.m2 * (vx * vx + vy * vy)
        + p.m2 * p.l * p.l / 12.0 * k.phi_rate * k.phi_rate
        + p.m3 * k.x_rate * k.x_rate;
    let potential = p.g * (p.m1 * 0.5 * p.a * theta.sin() + p.m2 * k.rod_centre_height);
    (inertia, potential)
}

/// The crank torque at constant rate, and the slider's push from the rod.
fn hand_derivation(p: &m::Params, theta: f64) -> (f64, f64) {
    let h = 1e-5;
    let (plus, minus) = (
        inertia_and_potential(p, theta + h),
        inertia_and_potential(p, theta - h),
    );
    let inertia_rate = (plus.0 - minus.0) / (2.0 * h);
    let potential_rate = (plus.1 - minus.1) / (2.0 * h);
    let k = kinematics(p, theta);
    let torque = 0.5 * inertia_rate * p.omega * p.omega + potential_rate + p.F * k.x_rate;
    let x_second = (kinematics(p, theta + h).x_rate - kinematics(p, theta - h).x_rate) / (2.0 * h);
    (torque, p.m3 * x_second * p.omega * p.omega + p.F)
}

/// The assembled state at time `t` from the hand kinematics.
fn state(p: &m::Params, t: f64) -> ([f64; 3], [f64; 3]) {
    let theta = p.theta0 + p.omega * t;
    let k = kinematics(p, theta);
    (
        [theta, k.phi - theta, k.x],
        [p.omega, (k.phi_rate - 1.0) * p.omega, k.x_rate * p.omega],
    )
}

#[test]
fn drive_torque_and_pin_force_match_the_hand_derivation() {
    let p = m::Params::default();
    assert_eq!((m::PRESCRIBED, m::INDEPENDENT), ([0], [0]));
    for t in [0.0, 0.05, 0.13, 0.31, 0.44] {
        let (q, qd) = state(&p, t);
        assert!(m::constraints(&p, &q).iter().all(|c| c.abs() < 1e-12));
        let tau = m::applied_forces(&p, t, &q, &qd);
        let solution =
            m::constrained_mixed_dynamics(&p, t, &q, &qd, &tau).expect("a regular state");
        let (qdd, drives, lambda) = (
            solution.accelerations,
            solution.drives,
            solution.multipliers,
        );
        let (torque, push) = hand_derivation(&p, q[0]);
        assert_eq!(qdd[0], 0.0);
        assert!(
            (drives[0] - torque).abs() < 1e-7 * torque.abs().max(1.0),
            "t = {t}: drive {} vs {torque}",
            drives[0]
        );
        let pin = m::reactions_of_multipliers(&p, &q, &lambda)[0];
        assert!(
            (pin[0] - push).abs() < 1e-7 * push.abs().max(1.0),
            "t = {t}: pin force {} vs {push}",
            pin[0]
        );
        // The accelerations keep the loop closed: J q̈ + J̇ q̇ = 0.
        let jacobian = m::constraint_jacobian(&p, &q);
        let bias = m::constraint_bias(&p, &q, &qd);
        for (row, b) in jacobian.iter().zip(bias) {
            let rate: f64 = row.iter().zip(&qdd).map(|(j, a)| j * a).sum();
            assert!((rate + b).abs() < 1e-9, "{rate} + {b}");
        }
        // Every independent coordinate prescribed: the drive is the
        // actuator force of the constrained inverse dynamics.
        let unforced = m::constrained_mixed_dynamics(&p, t, &q, &qd, &[0.0; 3])
            .expect("regular")
            .drives;
        let actuator = m::constrained_inverse_dynamics(&p, &q, &qd, &qdd).expect("regular");
        assert!(
            (unforced[0] - actuator[0]).abs() < 1e-9 * actuator[0].abs().max(1.0),
            "{} vs {}",
            unforced[0],
            actuator[0]
        );
    }
}

/// The runtime closes the loops, keeps the crank on its law, reports the
/// drive torque of the hand derivation and balances energy with the
/// drive's and the gas force's work.
#[test]
fn a_closed_simulation_follows_the_law_and_balances_energy() {
    let model = Driven::default();
    let p = m::Params::default();
    let mut rows: Vec<(f64, [f64; 3], f64, f64, f64)> = Vec::new();
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-10,
            atol: 1e-10,
        })
        .output_interval(0.01)
        .closed::<{ m::NC }>()
        .run(1.0, |s: &Sample<'_>| {
            rows.push((
                s.t,
                [s.q[0], s.q[1], s.q[2]],
                s.drives[0],
                s.kinetic + s.potential,
                s.work,
            ));
        })
        .expect("the simulation runs to its end");
    assert!(!summary.conservative);
    for &(t, q, drive, _, _) in &rows {
        let (expected, _) = state(&p, t);
        for (a, b) in q.iter().zip(expected) {
            assert!((a - b).abs() < 1e-9, "t = {t}: {q:?} vs {expected:?}");
        }
        let (torque, _) = hand_derivation(&p, q[0]);
        assert!(
            (drive - torque).abs() < 1e-6 * torque.abs().max(1.0),
            "t = {t}: drive {drive} vs {torque}"
        );
    }
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    let swing = rows
        .iter()
        .map(|r| (r.3 - first.3).abs())
        .fold(0.0, f64::max);
    assert!(swing > 0.1, "the energy barely moved: {swing}");
    assert!(
        ((last.3 - first.3) - last.4).abs() < 1e-7 * swing,
        "ΔE = {}, W = {}",
        last.3 - first.3,
        last.4
    );
}
