//! `[motion]` end to end on `specs/spun_pendulum.spec` (and, in `shaken`,
//! `specs/shaken_pendulum.spec`): a bob hinged at the
//! tip of an arm that a drive spins at a constant rate `ω` about the
//! vertical. Checked against closed forms written here from the physics,
//! not from the derivation:
//!
//! - the bob's equation in the rotating frame,
//!   `(m l² + I_b) θ̈ = m ω² (R + l sin θ) l cos θ − m g l sin θ + τ_θ`
//!   (the bob a solid sphere: its inertia `I_b` about its centre is
//!   isotropic and adds no moment);
//! - the drive torque, the rate of the angular momentum about the shaft,
//!   `H_z = I_z(θ) ω` with `I_z(θ) = I_arm + m (R + l sin θ)² + I_b`:
//!   `τ_drive = 2 m ω l cos θ (R + l sin θ) θ̇ − τ_ψ`;
//! - the relative equilibrium `tan θ* = ω² (R + l sin θ*) / g`, which the
//!   damped bob settles at in a simulation, whose energy balance closes
//!   with the drive's work.

use sharnir_generated::spun_pendulum as m;
use sharnir_runtime::{model, Method, Model, Sample, Simulation, Tolerances};

model!(Spun = sharnir_generated::spun_pendulum);

/// `θ̈` of the bob in the rotating frame.
fn bob_acceleration(p: &m::Params, theta: f64, tau: f64) -> f64 {
    let inertia = p.m * p.l * p.l + 0.4 * p.m * p.r * p.r;
    let radius = p.R + p.l * theta.sin();
    (p.m * p.omega * p.omega * radius * p.l * theta.cos() - p.m * p.g * p.l * theta.sin() + tau)
        / inertia
}

/// The torque the drive applies to keep `ψ̇ = ω`.
fn drive_torque(p: &m::Params, theta: f64, rate: f64, tau: f64) -> f64 {
    2.0 * p.m * p.omega * p.l * theta.cos() * (p.R + p.l * theta.sin()) * rate - tau
}

/// `θ*` from `tan θ = ω² (R + l sin θ) / g` by Newton's method.
fn relative_equilibrium(p: &m::Params) -> f64 {
    let w2 = p.omega * p.omega;
    let mut theta = 0.5_f64;
    for _ in 0..50 {
        let f = p.g * theta.sin() - w2 * (p.R + p.l * theta.sin()) * theta.cos();
        let df = p.g * theta.cos() - w2 * (p.l * (2.0 * theta).cos() - p.R * theta.sin());
        theta -= f / df;
    }
    theta
}

#[test]
fn prescribed_motion_is_the_law_and_its_derivatives() {
    let p = m::Params::default();
    assert_eq!(
        (m::NP, m::PRESCRIBED, m::PRESCRIBED_POSITIONS),
        (1, [0], [0])
    );
    for t in [0.0, 0.7, 3.1] {
        let (position, rate, acceleration) = m::prescribed_motion(&p, t);
        assert_eq!(position[0], p.omega * t);
        assert_eq!((rate[0], acceleration[0]), (p.omega, 0.0));
    }
    assert_eq!(m::INITIAL_POSITIONS, [0.0, 0.0]);
    assert_eq!(m::INITIAL_VELOCITIES, [p.omega, 0.0]);
}

#[test]
fn mixed_dynamics_match_the_closed_forms() {
    let p = m::Params::default();
    let mut x = 0.41_f64;
    for _ in 0..40 {
        x = (x * 7.31 + 0.17).fract();
        let (t, theta, rate) = (5.0 * x, 3.0 * x - 1.5, 4.0 * (x * 5.3).fract() - 2.0);
        let tau = [0.8 * x - 0.4, 1.3 * (x * 2.9).fract() - 0.6];
        // The shaft's entries of q and qd are not read: the law gives them.
        let (qdd, drive) = m::mixed_dynamics(&p, t, &[99.0, theta], &[-7.0, rate], &tau);
        let expected = bob_acceleration(&p, theta, tau[1]);
        assert_eq!(qdd[0], 0.0);
        assert!(
            (qdd[1] - expected).abs() < 1e-12 * expected.abs().max(1.0),
            "θ̈ {} vs {expected}",
            qdd[1]
        );
        let torque = drive_torque(&p, theta, rate, tau[0]);
        assert!(
            (drive[0] - torque).abs() < 1e-12 * torque.abs().max(1.0),
            "drive {} vs {torque}",
            drive[0]
        );
    }
}

/// With the free coordinate's acceleration from `mixed_dynamics`, the
/// module's own inverse dynamics (Newton–Euler, a separate derivation)
/// along the whole motion needs exactly the given forces plus the drive's.
#[test]
fn drive_forces_are_the_inverse_dynamics_of_the_motion() {
    let p = m::Params::default();
    for (t, theta, rate) in [(0.3, 0.2, -1.0), (2.0, -1.1, 0.4), (4.4, 2.5, 3.0)] {
        let tau = [0.25, -0.5];
        let (qdd, drive) = m::mixed_dynamics(&p, t, &[0.0, theta], &[0.0, rate], &tau);
        let (law, law_rate, _) = m::prescribed_motion(&p, t);
        let needed = m::inverse_dynamics(&p, &[law[0], theta], &[law_rate[0], rate], &qdd);
        let given = [tau[0] + drive[0], tau[1]];
        for (a, b) in needed.iter().zip(given) {
            assert!(
                (a - b).abs() < 1e-12 * b.abs().max(1.0),
                "{needed:?} vs {given:?}"
            );
        }
    }
}

#[test]
fn the_bob_rests_at_the_relative_equilibrium() {
    let p = m::Params::default();
    let theta = relative_equilibrium(&p);
    assert!(theta > 0.3 && theta < 1.4, "θ* = {theta}");
    let (qdd, drive) = m::mixed_dynamics(&p, 1.0, &[0.0, theta], &[0.0, 0.0], &[0.0; 2]);
    assert!(qdd[1].abs() < 1e-12, "θ̈ at θ* = {}", qdd[1]);
    assert!(drive[0].abs() < 1e-15, "no torque holds a steady spin");
    // Displaced outwards the bob is pulled back, inwards pushed out.
    let (outward, _) = m::mixed_dynamics(&p, 1.0, &[0.0, theta + 0.05], &[0.0; 2], &[0.0; 2]);
    let (inward, _) = m::mixed_dynamics(&p, 1.0, &[0.0, theta - 0.05], &[0.0; 2], &[0.0; 2]);
    assert!(outward[1] < 0.0 && inward[1] > 0.0);
}

/// The runtime integrates the bob only, keeps the shaft on its law, and
/// closes the energy balance with the drive's and the damper's work.
#[test]
fn a_simulation_settles_at_the_relative_equilibrium_and_balances_energy() {
    let model = Spun::default();
    let p = *model.params();
    let theta_star = relative_equilibrium(&p);
    let mut samples: Vec<(f64, f64, f64, f64, f64, f64)> = Vec::new();
    let t_end = 30.0;
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-11,
            atol: 1e-11,
        })
        .output_interval(0.01)
        .run(t_end, |s: &Sample<'_>| {
            samples.push((
                s.t,
                s.q[0],
                s.v[0],
                s.kinetic + s.potential,
                s.work,
                s.drives[0],
            ));
        })
        .expect("the simulation runs to its end");
    assert!(!summary.conservative);
    let q = &summary.final_state;
    assert!(
        (q[0] - p.omega * t_end).abs() < 1e-12 * p.omega * t_end,
        "the shaft left its law: {} vs {}",
        q[0],
        p.omega * t_end
    );
    assert_eq!(q[2], p.omega);
    assert!(
        (q[1] - theta_star).abs() < 1e-6,
        "θ(T) = {} vs θ* = {theta_star}",
        q[1]
    );
    for &(t, psi, rate, ..) in &samples {
        assert!((psi - p.omega * t).abs() < 1e-12 * (p.omega * t).max(1.0));
        assert_eq!(rate, p.omega);
    }
    let last = samples.last().expect("samples");
    assert!(last.5.abs() < 1e-6, "drive torque at rest {}", last.5);
    // E − W is constant: the drive feeds energy as the bob swings out, the
    // damper takes some.
    let (first, change) = (samples[0], last.3 - samples[0].3);
    assert_eq!(first.4, 0.0);
    assert!(change > 1.0, "the bob barely moved: ΔE = {change}");
    assert!(
        (change - last.4).abs() < 1e-8 * change,
        "ΔE = {change}, work of the drive and the damper = {}",
        last.4
    );
}

mod shaken {
    //! `specs/shaken_pendulum.spec`: a bob on a table shaken by prescribed
    //! laws. Its hinge equation, written from Lagrange's equations here,
    //! `I θ̈ = m l (cos θ ẍ − sin θ (g + z̈))` with `I = m l² + I_b`, gives
    //! Kapitza's threshold `a² ω² > 2 g I / (m l)` for the inverted bob
    //! under a vertical shake, and under a small horizontal one the
    //! linearised forced oscillation from rest,
    //! `θ = B (sin ωt − (ω/ω₀) sin ω₀t)`, `B = −k a ω² / (ω₀² − ω²)`,
    //! `k = m l / I`, `ω₀² = g k`.

    use sharnir_generated::shaken_pendulum as s;
    use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};

    model!(Shaken = sharnir_generated::shaken_pendulum);

    fn k(p: &s::Params) -> f64 {
        let inertia = p.m * p.l * p.l + 0.4 * p.m * p.r * p.r;
        p.m * p.l / inertia
    }

    /// The hinge angle over `t_end` s from the spec's start, every 1 ms.
    fn run(p: s::Params, theta0: f64, t_end: f64) -> Vec<(f64, f64)> {
        let mut angles = Vec::new();
        Simulation::new(Shaken::new(p))
            .method(Method::Dop853)
            .tolerances(Tolerances {
                rtol: 1e-10,
                atol: 1e-10,
            })
            .initial_state([0.0, 0.0, theta0], [0.0; 3])
            .output_interval(1e-3)
            .run(t_end, |sample: &Sample<'_>| {
                angles.push((sample.t, sample.q[2]))
            })
            .expect("the simulation runs to its end");
        angles
    }

    #[test]
    fn the_hinge_equation_is_lagranges() {
        let p = s::Params {
            ax: 0.03,
            ..s::Params::default()
        };
        for (t, theta, rate) in [(0.01, 0.3, -2.0), (0.4, 2.9, 0.5), (1.3, -1.0, 4.0)] {
            let (qdd, _) =
                s::mixed_dynamics(&p, t, &[0.0, 0.0, theta], &[0.0, 0.0, rate], &[0.0; 3]);
            let xdd = -p.ax * p.wx * p.wx * (p.wx * t).sin();
            let zdd = -p.az * p.wz * p.wz * (p.wz * t).cos();
            let expected = k(&p) * (theta.cos() * xdd - theta.sin() * (p.g + zdd));
            assert_eq!((qdd[0], qdd[1]), (xdd, zdd));
            assert!(
                (qdd[2] - expected).abs() < 1e-10 * expected.abs().max(1.0),
                "θ̈ {} vs {expected}",
                qdd[2]
            );
        }
    }

    /// Kapitza's pendulum: started 0.1 rad from upright, it stays up when
    /// shaken above the threshold and falls below it.
    #[test]
    fn the_inverted_pendulum_is_stable_above_kapitzas_threshold() {
        let defaults = s::Params::default();
        let threshold = (2.0 * defaults.g / k(&defaults)).sqrt() / defaults.az;
        let upright = std::f64::consts::PI;
        for (factor, stable) in [(1.5, true), (0.7, false)] {
            let p = s::Params {
                wz: factor * threshold,
                ..defaults
            };
            let angles = run(p, upright - 0.1, 3.0);
            let furthest = angles
                .iter()
                .map(|&(_, theta)| (theta - upright).abs())
                .fold(0.0, f64::max);
            if stable {
                assert!(furthest < 0.25, "ω = {}: strayed {furthest} rad", p.wz);
            } else {
                assert!(furthest > 1.0, "ω = {}: stayed within {furthest} rad", p.wz);
            }
        }
    }

    /// A small horizontal shake from rest: the forced oscillation of the
    /// linearised equation, to its neglected terms (θ² ≈ 1e-4 relative).
    #[test]
    fn a_horizontal_shake_drives_the_linear_forced_oscillation() {
        let p = s::Params {
            ax: 2e-3,
            wx: 4.0,
            az: 0.0,
            ..s::Params::default()
        };
        let w0 = (p.g * k(&p)).sqrt();
        let b = -k(&p) * p.ax * p.wx * p.wx / (w0 * w0 - p.wx * p.wx);
        let angles = run(p, 0.0, 4.0);
        let amplitude = angles.iter().map(|&(_, a)| a.abs()).fold(0.0, f64::max);
        assert!(amplitude > 5e-3, "barely moved: {amplitude}");
        for &(t, theta) in &angles {
            let linear = b * ((p.wx * t).sin() - p.wx / w0 * (w0 * t).sin());
            assert!(
                (theta - linear).abs() < 2e-3 * amplitude,
                "t = {t}: θ = {theta}, linearised {linear}"
            );
        }
    }
}

mod ship {
    //! `specs/ship_pendulum.spec`: a moving base (`[base]`, a ship rolling
    //! and heaving) carrying a rod pendulum, against its equation written
    //! here: with `ψ = roll + θ`, the hinge at
    //! `H = (0, −h sin roll, h cos roll + z)`, `d = l/2`, `I_c = m l²/12`,
    //! `(m d² + I_c) ψ̈ + m d (sin ψ (Ḧz + g) + cos ψ Ḧy) = τ`.

    use sharnir_generated::ship_pendulum as s;
    use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};

    model!(Ship = sharnir_generated::ship_pendulum);

    /// The laws: heave `z`, roll `φ`, with their rates and accelerations.
    fn laws(p: &s::Params, t: f64) -> ([f64; 3], [f64; 3]) {
        let (sw, cw) = (p.W * t).sin_cos();
        let (sr, cr) = (p.w * t).sin_cos();
        (
            [p.H * sw, p.H * p.W * cw, -p.H * p.W * p.W * sw],
            [p.A * sr, p.A * p.w * cr, -p.A * p.w * p.w * sr],
        )
    }

    fn bob_acceleration(p: &s::Params, t: f64, theta: f64, tau: f64) -> f64 {
        let ([_, _, zdd], [phi, phid, phidd]) = laws(p, t);
        let hyy = -p.h * (phi.cos() * phidd - phi.sin() * phid * phid);
        let hzz = p.h * (-phi.sin() * phidd - phi.cos() * phid * phid) + zdd;
        let psi = phi + theta;
        let d = 0.5 * p.l;
        let inertia = p.m * d * d + p.m * p.l * p.l / 12.0;
        let psidd = (tau - p.m * d * (psi.sin() * (hzz + p.g) + psi.cos() * hyy)) / inertia;
        psidd - phidd
    }

    #[test]
    fn the_base_is_two_prescribed_coordinates_first() {
        assert_eq!(s::COORDINATE_NAMES, ["base_z", "base_roll", "theta"]);
        assert_eq!((s::PRESCRIBED, s::PRESCRIBED_POSITIONS), ([0, 1], [0, 1]));
        let p = s::Params::default();
        let ([z, zd, _], [phi, phid, _]) = laws(&p, 0.0);
        assert_eq!(s::INITIAL_POSITIONS, [z, phi, 0.0]);
        assert_eq!(s::INITIAL_VELOCITIES, [zd, phid, 0.0]);
    }

    #[test]
    fn the_bob_follows_its_equation_aboard() {
        let p = s::Params {
            A: 0.3,
            H: 1.5,
            ..s::Params::default()
        };
        let mut x = 0.29_f64;
        for _ in 0..30 {
            x = (x * 6.7 + 0.11).fract();
            let (t, theta, rate, tau) = (20.0 * x, 4.0 * x - 2.0, 3.0 * x - 1.0, x - 0.5);
            let (qdd, _) = s::mixed_dynamics(
                &p,
                t,
                &[0.0, 0.0, theta],
                &[0.0, 0.0, rate],
                &[0.0, 0.0, tau],
            );
            let expected = bob_acceleration(&p, t, theta, tau);
            assert!(
                (qdd[2] - expected).abs() < 1e-11 * expected.abs().max(1.0),
                "t = {t}: θ̈ {} vs {expected}",
                qdd[2]
            );
        }
    }

    /// The base's drives do the work the pendulum's energy gains and loses.
    #[test]
    fn a_voyage_balances_energy_with_the_base_s_work() {
        let p = s::Params {
            c: 0.5,
            ..s::Params::default()
        };
        let mut rows: Vec<(f64, f64, f64)> = Vec::new();
        let summary = Simulation::new(Ship::new(p))
            .method(Method::Dop853)
            .tolerances(Tolerances {
                rtol: 1e-11,
                atol: 1e-11,
            })
            .output_interval(0.05)
            .run(30.0, |sample: &Sample<'_>| {
                rows.push((sample.t, sample.kinetic + sample.potential, sample.work));
            })
            .expect("the voyage runs");
        assert!(!summary.conservative);
        let first = rows[0];
        let swing = rows
            .iter()
            .map(|r| (r.1 - first.1).abs())
            .fold(0.0, f64::max);
        assert!(swing > 1.0, "the energy barely moved: {swing}");
        for &(t, e, w) in &rows {
            assert!(
                ((e - first.1) - w).abs() < 1e-7 * swing,
                "t = {t}: ΔE = {}, W = {w}",
                e - first.1
            );
        }
    }
}

/// A module of a spec with `[motion]` planned with only some outputs
/// (`--outputs`, or `identify`'s regressor) still has `mixed_dynamics`,
/// which reads the mass matrix and bias, and it equals the closed forms.
#[test]
fn mixed_dynamics_come_with_any_choice_of_outputs() {
    use sharnir_codegen::plan::outputs::{Function, Outputs};
    use sharnir_codegen::{plan, PlanOptions};
    use sharnir_mech::{Input, Mechanism, ParameterMode};
    let spec = sharnir_tests::oracle::load_spec("spun_pendulum");
    let p = m::Params::default();
    let values = spec.parameter_values();
    for only in [
        Function::Regressor,
        Function::InverseDynamics,
        Function::Energy,
    ] {
        let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("valid");
        let options = PlanOptions {
            outputs: Some(Outputs::NONE.with(only)),
            ..PlanOptions::default()
        };
        let planned = plan(&mut mechanism, &options).expect("plans");
        let (t, theta, rate, tau) = (0.7, 0.4, -1.1, [0.2, -0.3]);
        let input = |symbol: &Input| match symbol {
            Input::Parameter(name) => values.get(name).copied(),
            Input::Time => Some(t),
            Input::Position(1) => Some(theta),
            Input::Velocity(1) => Some(rate),
            Input::Force(i) => tau.get(*i).copied(),
            _ => Some(0.0),
        };
        let mixed = planned
            .evaluate("mixed_dynamics", &input)
            .unwrap_or_else(|| panic!("{only:?}: no mixed_dynamics"));
        let expected = [
            bob_acceleration(&p, theta, tau[1]),
            drive_torque(&p, theta, rate, tau[0]),
        ];
        for (got, want) in [mixed[1], mixed[2]].into_iter().zip(expected) {
            assert!(
                (got - want).abs() < 1e-12 * want.abs().max(1.0),
                "{only:?}: {got} vs {want}"
            );
        }
    }
}
