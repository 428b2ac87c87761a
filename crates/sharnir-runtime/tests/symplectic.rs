//! Symplectic Euler in the momenta on the generated triple pendulum
//! (`specs/triple_pendulum.spec`, whose mass matrix depends on the
//! configuration): released from the horizontal, the motion is chaotic and
//! trades energy between the rods for ever, and the method's energy error
//! stays bounded where a non-symplectic method of the same order drifts.

use sharnir_runtime::{
    model, IntegrationError, Model, ModelSystem, SemiImplicitEuler, Stepper, SymplecticEuler,
    Trajectory,
};

model!(Pendulum = sharnir_generated::triple_pendulum);
model!(Floating = sharnir_generated::floating_chain);

fn total_energy(model: &Pendulum, y: &[f64]) -> f64 {
    let (t, v) = model.energy(&[y[0], y[1], y[2]], &[y[3], y[4], y[5]]);
    t + v
}

/// The largest energy error in each quarter of a run of `steps` steps.
fn energy_errors<S: Stepper<ModelSystem<Pendulum, 3, 3>>>(
    mut stepper: S,
    system: &mut ModelSystem<Pendulum, 3, 3>,
    t_end: f64,
) -> [f64; 4] {
    let e0 = total_energy(&system.model, stepper.y());
    let mut quarters = [0.0_f64; 4];
    while stepper.t() < t_end {
        stepper.step(system, t_end).expect("step");
        let quarter = ((stepper.t() / t_end * 4.0) as usize).min(3);
        let error = (total_energy(&system.model, stepper.y()) - e0).abs();
        quarters[quarter] = quarters[quarter].max(error);
    }
    quarters
}

#[test]
fn the_energy_error_stays_bounded_on_a_chaotic_pendulum() {
    let mut system = ModelSystem::new(Pendulum::default());
    let h = 2e-3;
    let t_end = 200.0;
    let symplectic = SymplecticEuler::new(&mut system, 0.0, [0.0; 6], h).expect("valid start");
    let errors = energy_errors(symplectic, &mut system, t_end);
    // E(0) = 0; the energy that moves is about 10. Observed by quarter of
    // the run: 0.019, 0.034, 0.034, 0.024 — bounded, no trend.
    assert!(errors[0] < 0.1, "{errors:?}");
    let first_half = errors[0].max(errors[1]);
    assert!(errors[3] < 1.5 * first_half, "the error grew: {errors:?}");

    // Semi-implicit Euler in the velocities is not symplectic for this
    // configuration-dependent mass matrix: its error grows (observed 0.07,
    // 0.23, 0.48, 0.73).
    let euler = SemiImplicitEuler::new(&mut system, 0.0, [0.0; 6], h, 3).expect("valid start");
    let drifting = energy_errors(euler, &mut system, t_end);
    assert!(
        drifting[3] > 2.0 * errors[3],
        "velocity-form Euler {drifting:?} vs momentum form {errors:?}"
    );
}

#[test]
fn it_converges_with_order_one() {
    let error_at = |h: f64| {
        let mut system = ModelSystem::new(Pendulum::default());
        let mut stepper =
            SymplecticEuler::new(&mut system, 0.0, [-1.2, 0.3, 0.0, 0.0, 0.0, 0.0], h)
                .expect("valid");
        while stepper.t() < 1.0 {
            stepper.step(&mut system, 1.0).expect("step");
        }
        stepper.y().to_vec()
    };
    let reference = error_at(1e-5);
    let difference = |y: Vec<f64>| {
        y.iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    };
    let coarse = difference(error_at(4e-3));
    let fine = difference(error_at(2e-3));
    let ratio = coarse / fine;
    assert!(
        (1.7..2.3).contains(&ratio),
        "ratio {ratio} (order 1 gives 2)"
    );
}

#[test]
fn quaternion_joints_are_refused() {
    let mut system = ModelSystem::new(Floating::default());
    let y = [0.0; Floating::STATE_LEN];
    let refused = SymplecticEuler::new(&mut system, 0.0, y, 1e-3);
    assert!(matches!(
        refused,
        Err(IntegrationError::InvalidArgument { .. })
    ));
}

model!(LinearPendulum = sharnir_generated::triple_pendulum, linear);

#[test]
fn a_linear_model_has_the_mass_matrix_from_inverse_dynamics_and_no_symplectic_stepper() {
    let (full, linear) = (Pendulum::default(), LinearPendulum::default());
    let q = [0.3, -1.1, 2.0];
    let (want, got) = (full.mass_matrix(&q), linear.mass_matrix(&q));
    for (w, g) in want.iter().flatten().zip(got.iter().flatten()) {
        assert!(
            (w - g).abs() < 1e-12 * (1.0 + w.abs()),
            "{want:?} vs {got:?}"
        );
    }
    const { assert!(!LinearPendulum::HAS_CORIOLIS_MATRIX && Pendulum::HAS_CORIOLIS_MATRIX) };
    assert!(linear
        .coriolis_matrix(&q, &q)
        .iter()
        .flatten()
        .all(|c| c.is_nan()));
    let mut system = ModelSystem::new(linear);
    let refused = SymplecticEuler::new(&mut system, 0.0, [0.0; 6], 1e-3);
    assert!(
        matches!(refused, Err(IntegrationError::InvalidArgument { message }) if message.contains("coriolis_matrix")),
        "{refused:?}"
    );
}
