//! The runtime's Jacobians where not every coordinate moves freely, and
//! Radau IIA with them. `ConstrainedSystem`'s is built from a loop
//! module's emitted `constrained_forward_dynamics_derivatives` (the forces
//! through the constrained response `P`):
//!
//! - on the four-bar, passive and with a controller, against central
//!   differences of the system's right-hand side in every state component,
//!   to 1e-6 of the largest entry;
//! - on the Stewart platform (spring–damper legs, a ball joint's quaternion
//!   in the state) along every direction the state can move in, the same;
//! - not offered with Baumgarte's drift control, whose feedback the
//!   emitted derivatives do not hold;
//! - Radau IIA on the four-bar follows DOP853 with it, for fewer
//!   evaluations of the dynamics than with numeric differences.
//!
//! With prescribed coordinates as well (the driven crank–slider, whose
//! crank's law moves everything, and the five-bar with one motor driven
//! and one free), it is the right-hand side's in every state component,
//! with a controller on the free coordinates, and Radau IIA with it
//! follows DOP853 on the five-bar.
//!
//! `ModelSystem`'s with prescribed coordinates is the free coordinates'
//! block, from the tree's `forward_dynamics_derivatives`; on the spun and
//! the shaken pendulum it is the right-hand side's in every state
//! component (zero along the prescribed ones, which the right-hand side
//! puts on their laws), and Radau IIA with it follows DOP853.

use sharnir_runtime::{model, ConstrainedSystem, DriftControl, Model, ModelSystem, OdeSystem};
use sharnir_tests::implicit::radau_against_numeric;
use sharnir_tests::oracle::relative_error;

model!(FourBar = sharnir_generated::four_bar, loops);
model!(Stewart = sharnir_generated::stewart, loops);
model!(
    DrivenCrankSlider = sharnir_generated::driven_crank_slider,
    loops
);
model!(DrivenFiveBar = sharnir_generated::driven_five_bar, loops);
model!(Spun = sharnir_generated::spun_pendulum);
model!(Shaken = sharnir_generated::shaken_pendulum);

/// The system's Jacobian times each of `directions` against central
/// differences of its right-hand side along them, relative to the largest.
fn error_along<S: OdeSystem>(system: &mut S, y: &[f64], directions: &[Vec<f64>]) -> f64 {
    error_along_at(system, 0.0, y, directions)
}

/// [`error_along`] at time `t`.
fn error_along_at<S: OdeSystem>(system: &mut S, t: f64, y: &[f64], directions: &[Vec<f64>]) -> f64 {
    let n = y.len();
    let mut analytic = vec![0.0; n * n];
    assert!(
        system.jacobian(t, y, &mut analytic).expect("evaluates"),
        "no emitted Jacobian"
    );
    let (mut along, mut numeric) = (Vec::new(), Vec::new());
    let (mut ahead, mut behind) = (vec![0.0; n], vec![0.0; n]);
    for d in directions {
        for i in 0..n {
            along.push((0..n).map(|j| analytic[i * n + j] * d[j]).sum::<f64>());
        }
        let h = 1e-6;
        let moved: Vec<f64> = y.iter().zip(d).map(|(a, b)| a + h * b).collect();
        system.rhs(t, &moved, &mut ahead).expect("evaluates");
        let moved: Vec<f64> = y.iter().zip(d).map(|(a, b)| a - h * b).collect();
        system.rhs(t, &moved, &mut behind).expect("evaluates");
        numeric.extend(ahead.iter().zip(&behind).map(|(a, b)| (a - b) / (2.0 * h)));
    }
    relative_error(&along, &numeric)
}

/// The unit vectors of `n` components.
fn units(n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|j| (0..n).map(|i| f64::from(u8::from(i == j))).collect())
        .collect()
}

/// The four-bar at its assembled initial configuration moved a little,
/// with rates of both signs.
fn four_bar_states() -> Vec<Vec<f64>> {
    let model = FourBar::default();
    let q = model.initial_positions();
    (0..3)
        .map(|k| {
            let k = f64::from(k);
            let mut y: Vec<f64> = q
                .iter()
                .enumerate()
                .map(|(i, x)| x + 0.01 * (k + i as f64).sin())
                .collect();
            y.extend((0..q.len()).map(|i| 1.5 * (0.7 * k + 1.3 * i as f64).cos()));
            y
        })
        .collect()
}

#[test]
fn the_four_bars_jacobian_is_its_right_hand_sides() {
    for (k, y) in four_bar_states().iter().enumerate() {
        let passive = error_along(
            &mut ConstrainedSystem::new(FourBar::default()),
            y,
            &units(y.len()),
        );
        assert!(passive < 1e-6, "passive, state {k}: off by {passive:e}");
        let control = |_t: f64, q: &[f64; 3], qd: &[f64; 3]| -> [f64; 3] {
            [
                -4.0 * q[0] - 0.6 * qd[0] * qd[0],
                0.3 * qd[1],
                -0.2 * q[2] * qd[2],
            ]
        };
        let mut system = ConstrainedSystem::with_control(FourBar::default(), control);
        let controlled = error_along(&mut system, y, &units(y.len()));
        assert!(
            controlled < 1e-6,
            "controlled, state {k}: off by {controlled:e}"
        );
    }
}

/// The platform on its legs' springs and dampers, moved off its assembled
/// configuration along the velocity coordinates (`q ⊕ δ`), with rates on
/// every coordinate: along `(Q(q) e_j, 0)` and `(0, e_j)`; the
/// quaternion's radial direction, which the projection removes, is not one
/// of them.
#[test]
fn the_stewart_platforms_jacobian_along_the_manifold() {
    use sharnir_generated::stewart::{NQ, NV};
    let model = Stewart::default();
    let mut system = ConstrainedSystem::new(model);
    for k in 0..2 {
        let k = f64::from(k);
        let delta: [f64; NV] = std::array::from_fn(|i| 0.01 * (k + 0.9 * i as f64).sin());
        let q = sharnir_runtime::integrate(&model, &model.initial_positions(), &delta);
        let v: [f64; NV] = std::array::from_fn(|i| 0.4 * (1.7 * k + 0.6 * i as f64).cos());
        let mut y = q.to_vec();
        y.extend(v);
        let mut directions: Vec<Vec<f64>> = Vec::new();
        for j in 0..NV {
            let mut unit = [0.0; NV];
            unit[j] = 1.0;
            let mut d = model.coordinate_rates(&q, &unit).to_vec();
            d.extend([0.0; NV]);
            directions.push(d);
        }
        for j in 0..NV {
            let mut d = vec![0.0; NQ + NV];
            d[NQ + j] = 1.0;
            directions.push(d);
        }
        let error = error_along(&mut system, &y, &directions);
        assert!(error < 1e-6, "state {k}: off by {error:e}");
    }
}

#[test]
fn baumgartes_feedback_falls_back_to_differences() {
    let y = &four_bar_states()[0];
    let mut system = ConstrainedSystem::new(FourBar::default());
    let mut jacobian = vec![0.0; y.len() * y.len()];
    assert!(system.jacobian(0.0, y, &mut jacobian).expect("evaluates"));
    system.drift_control = DriftControl::Baumgarte {
        alpha: 5.0,
        beta: 5.0,
    };
    assert!(!system.jacobian(0.0, y, &mut jacobian).expect("evaluates"));
}

/// The four-bar falling from its assembled initial configuration for a
/// second: Radau IIA with the emitted Jacobian and with differences both
/// follow DOP853 at 1e-13 to 1e-7, the emitted one for fewer evaluations
/// of the dynamics (each numeric Jacobian costs one per state component).
#[test]
fn radau_takes_the_emitted_jacobian_on_a_loop() {
    let model = FourBar::default();
    let mut y = model.initial_positions().to_vec();
    y.extend([0.0; 3]);
    radau_against_numeric("four_bar", || ConstrainedSystem::new(model), &y, 1.0, 3);
}

/// The assembled initial state of a loop module with prescribed
/// coordinates, moved a little and given rates, at a few times.
fn moved_states(q: &[f64], k: usize) -> Vec<f64> {
    let k = k as f64;
    let mut y: Vec<f64> = q
        .iter()
        .enumerate()
        .map(|(i, x)| x + 0.02 * (1.3 * k + i as f64).sin())
        .collect();
    y.extend((0..q.len()).map(|i| 1.2 * (0.9 * k + 0.7 * i as f64).cos()));
    y
}

/// A closed mechanism with prescribed coordinates, with a controller on
/// the free ones: the driven crank–slider (one degree of freedom, the
/// crank's, prescribed: the forces move nothing) and the five-bar with
/// motor 1 driven and motor 2 free.
#[test]
fn loops_with_prescribed_coordinates_have_the_free_ones_jacobian() {
    let crank_control = |_t: f64, q: &[f64; 3], qd: &[f64; 3]| -> [f64; 3] {
        [
            0.0,
            -2.0 * q[1] + 0.4 * qd[2],
            -30.0 * q[2] - 0.5 * qd[2] * qd[1],
        ]
    };
    let five_bar_control = |_t: f64, q: &[f64; 4], qd: &[f64; 4]| -> [f64; 4] {
        [
            0.0,
            0.1 * qd[1],
            -0.8 * (q[2] - 0.8) - 0.2 * qd[2] * qd[2],
            0.05 * q[3] * qd[0],
        ]
    };
    for k in 0..3 {
        let t = 0.29 * k as f64;
        let y = moved_states(&DrivenCrankSlider::default().initial_positions(), k);
        let mut passive = ConstrainedSystem::new(DrivenCrankSlider::default());
        let error = error_along_at(&mut passive, t, &y, &units(y.len()));
        assert!(error < 1e-6, "crank–slider at t = {t}: off by {error:e}");
        let mut controlled =
            ConstrainedSystem::with_control(DrivenCrankSlider::default(), crank_control);
        let error = error_along_at(&mut controlled, t, &y, &units(y.len()));
        assert!(
            error < 1e-6,
            "controlled crank–slider at t = {t}: off by {error:e}"
        );
        let y = moved_states(&DrivenFiveBar::default().initial_positions(), k);
        let mut passive = ConstrainedSystem::new(DrivenFiveBar::default());
        let error = error_along_at(&mut passive, t, &y, &units(y.len()));
        assert!(error < 1e-6, "five-bar at t = {t}: off by {error:e}");
        let mut controlled =
            ConstrainedSystem::with_control(DrivenFiveBar::default(), five_bar_control);
        let error = error_along_at(&mut controlled, t, &y, &units(y.len()));
        assert!(
            error < 1e-6,
            "controlled five-bar at t = {t}: off by {error:e}"
        );
    }
}

/// The five-bar with motor 1 driven, for a second from its assembled
/// initial state: Radau IIA with the emitted Jacobian and with
/// differences both follow DOP853 at 1e-13 to 1e-7, the emitted one for
/// fewer evaluations of the dynamics.
#[test]
fn radau_takes_the_emitted_jacobian_on_a_driven_loop() {
    let model = DrivenFiveBar::default();
    let mut y = model.initial_positions().to_vec();
    y.extend(model.initial_velocities());
    radau_against_numeric(
        "driven_five_bar",
        || ConstrainedSystem::new(model),
        &y,
        1.0,
        3,
    );
}

/// The spun pendulum (its spin prescribed) and the shaken one (its
/// support's two coordinates prescribed), at a few times and states, with
/// a controller on the free coordinates: the Jacobian is the right-hand
/// side's in every state component.
#[test]
fn prescribed_coordinates_have_the_free_ones_jacobian() {
    let spun_control = |_t: f64, q: &[f64; 2], qd: &[f64; 2]| -> [f64; 2] {
        [0.0, -0.8 * q[1] - 0.3 * qd[1] * qd[1]]
    };
    let mut spun = ModelSystem::with_control(Spun::default(), spun_control);
    let mut shaken = ModelSystem::new(Shaken::default());
    for k in 0..3 {
        let t = 0.37 * f64::from(k);
        let y: Vec<f64> = (0..4).map(|i| (0.9 * t + 1.1 * i as f64).sin()).collect();
        let error = error_along_at(&mut spun, t, &y, &units(4));
        assert!(error < 1e-6, "spun pendulum at t = {t}: off by {error:e}");
        let y: Vec<f64> = (0..6).map(|i| (0.7 * t + 0.8 * i as f64).cos()).collect();
        let error = error_along_at(&mut shaken, t, &y, &units(6));
        assert!(error < 1e-6, "shaken pendulum at t = {t}: off by {error:e}");
    }
}

/// The shaken pendulum over two seconds: Radau IIA with the emitted
/// Jacobian and with differences both follow DOP853 at 1e-13 to 1e-7, the
/// emitted one for fewer evaluations of the dynamics.
#[test]
fn radau_takes_the_emitted_jacobian_with_prescribed_coordinates() {
    let model = Shaken::default();
    let mut y = model.initial_positions().to_vec();
    y.extend(model.initial_velocities());
    radau_against_numeric("shaken_pendulum", || ModelSystem::new(model), &y, 2.0, 3);
}
