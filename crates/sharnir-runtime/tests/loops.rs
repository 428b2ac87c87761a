//! Loop closure at run time on a four-bar made from the generated triple
//! pendulum (`specs/triple_pendulum.spec`: three rods of length 2 from a
//! ground pivot) whose free end is pinned to a ground point 3 away: ground,
//! crank, coupler and rocker. The constraints are written here by hand —
//! the tip of rod 3 at the anchor — in the form sharnir will emit for cut
//! joints: assembly, velocity projection and the constrained dynamics are
//! checked against finite differences, energy and `Ψ = 0`.

use sharnir_runtime::adaptive::Dop853;
use sharnir_runtime::{
    assemble, model, project_velocities, ConstrainedSystem, LoopClosure, Model, OdeSystem, Stepper,
    Tolerances, Trajectory,
};

model!(FourBar = sharnir_generated::triple_pendulum);
model!(Unreachable = sharnir_generated::triple_pendulum);

const LENGTH: f64 = 2.0;

/// Absolute rod angles and their rates.
fn absolute(q: &[f64; 3], qd: &[f64; 3]) -> ([f64; 3], [f64; 3]) {
    let phi = [q[0], q[0] + q[1], q[0] + q[1] + q[2]];
    let rate = [qd[0], qd[0] + qd[1], qd[0] + qd[1] + qd[2]];
    (phi, rate)
}

fn tip_minus(anchor: f64, q: &[f64; 3]) -> [f64; 2] {
    let (phi, _) = absolute(q, &[0.0; 3]);
    [
        LENGTH * phi.iter().map(|a| a.cos()).sum::<f64>() - anchor,
        LENGTH * phi.iter().map(|a| a.sin()).sum::<f64>(),
    ]
}

fn jacobian(q: &[f64; 3]) -> [[f64; 3]; 2] {
    let (phi, _) = absolute(q, &[0.0; 3]);
    let mut j = [[0.0; 3]; 2];
    for column in 0..3 {
        for &angle in &phi[column..] {
            j[0][column] -= LENGTH * angle.sin();
            j[1][column] += LENGTH * angle.cos();
        }
    }
    j
}

fn bias(q: &[f64; 3], qd: &[f64; 3]) -> [f64; 2] {
    let (phi, rate) = absolute(q, qd);
    let mut b = [0.0; 2];
    for (angle, w) in phi.iter().zip(rate) {
        b[0] -= LENGTH * angle.cos() * w * w;
        b[1] -= LENGTH * angle.sin() * w * w;
    }
    b
}

impl LoopClosure<3, 3, 2> for FourBar {
    fn constraints(&self, q: &[f64; 3]) -> [f64; 2] {
        tip_minus(3.0, q)
    }
    fn constraint_jacobian(&self, q: &[f64; 3]) -> [[f64; 3]; 2] {
        jacobian(q)
    }
    fn constraint_bias(&self, q: &[f64; 3], qd: &[f64; 3]) -> [f64; 2] {
        bias(q, qd)
    }
}

/// The same rods pinned 7 away: farther than their 6 of reach.
impl LoopClosure<3, 3, 2> for Unreachable {
    fn constraints(&self, q: &[f64; 3]) -> [f64; 2] {
        tip_minus(7.0, q)
    }
    fn constraint_jacobian(&self, q: &[f64; 3]) -> [[f64; 3]; 2] {
        jacobian(q)
    }
    fn constraint_bias(&self, q: &[f64; 3], qd: &[f64; 3]) -> [f64; 2] {
        bias(q, qd)
    }
}

#[test]
fn the_hand_written_constraints_match_finite_differences() {
    let (q, qd) = ([-0.7, 1.1, 0.4], [0.3, -0.8, 1.7]);
    let h = 1e-6;
    let j = jacobian(&q);
    for column in 0..3 {
        let mut plus = q;
        let mut minus = q;
        plus[column] += h;
        minus[column] -= h;
        let (a, b) = (tip_minus(3.0, &plus), tip_minus(3.0, &minus));
        for row in 0..2 {
            assert!((j[row][column] - (a[row] - b[row]) / (2.0 * h)).abs() < 1e-8);
        }
    }
    // J̇ q̇ = d/dt (J(q) q̇) along q̇.
    let plus: [f64; 3] = core::array::from_fn(|i| q[i] + h * qd[i]);
    let minus: [f64; 3] = core::array::from_fn(|i| q[i] - h * qd[i]);
    let jv = |q: &[f64; 3]| {
        let j = jacobian(q);
        [0, 1].map(|r| (0..3).map(|c| j[r][c] * qd[c]).sum::<f64>())
    };
    let (a, b) = (jv(&plus), jv(&minus));
    let exact = bias(&q, &qd);
    for row in 0..2 {
        assert!(
            (exact[row] - (a[row] - b[row]) / (2.0 * h)).abs() < 1e-7,
            "{exact:?}"
        );
    }
}

#[test]
fn assembly_closes_the_loop_and_keeps_the_held_crank() {
    let model = FourBar::default();
    let q = assemble(&model, [-1.0, 1.5, 1.5], &[0], 1e-13).expect("reachable");
    assert_eq!(q[0], -1.0, "the held crank moved");
    let psi = model.constraints(&q);
    assert!(psi.iter().all(|x| x.abs() < 1e-13), "Ψ = {psi:?}");

    let qd = project_velocities(&model, &q, &[1.0, 0.0, 0.0]);
    let j = jacobian(&q);
    for row in j {
        let rate: f64 = row.iter().zip(&qd).map(|(a, b)| a * b).sum();
        assert!(rate.abs() < 1e-12, "J q̇ = {rate}");
    }

    let error =
        assemble(&Unreachable::default(), [-1.0, 1.5, 1.5], &[0], 1e-12).expect_err("out of reach");
    assert!(error.residual > 0.5, "{error}");
    assert!(error.to_string().contains("cannot close the loops"));
}

#[test]
fn the_four_bar_keeps_its_energy_and_its_closure() {
    let model = FourBar::default();
    let q0 = assemble(&model, [-1.0, 1.5, 1.5], &[0], 1e-14).expect("reachable");
    let mut system = ConstrainedSystem::new(model);
    let y0 = [q0[0], q0[1], q0[2], 0.0, 0.0, 0.0];
    let energy = |y: &[f64]| {
        let (t, v) = system_energy(y);
        t + v
    };
    let e0 = energy(&y0);
    let mut stepper = Dop853::new(
        &mut system,
        0.0,
        &y0,
        Tolerances {
            rtol: 1e-11,
            atol: 1e-11,
        },
    )
    .expect("valid start");
    let (mut worst_energy, mut worst_closure, mut swing) = (0.0_f64, 0.0_f64, 0.0_f64);
    while stepper.t() < 10.0 {
        stepper.step(&mut system, 10.0).expect("step");
        let y = stepper.y();
        worst_energy = worst_energy.max((energy(y) - e0).abs());
        let psi = system.model.constraints(&[y[0], y[1], y[2]]);
        worst_closure = worst_closure.max(psi[0].abs().max(psi[1].abs()));
        swing = swing.max((y[0] - y0[0]).abs());
    }
    assert!(swing > 0.5, "the crank barely moved: {swing}");
    // The energy that moves is about |e0| here. Observed: energy within
    // 3e-12, Ψ within 1e-12 (the projection's tolerance).
    assert!(
        worst_energy < 1e-8 * e0.abs(),
        "energy drifted by {worst_energy:e} of {e0}"
    );
    assert!(worst_closure < 1e-10, "Ψ reached {worst_closure:e}");

    // The accelerations keep J q̈ + J̇ q̇ = 0 and the multipliers are finite.
    let (q, qd) = ([q0[0], q0[1], q0[2]], [0.0; 3]);
    let qd = project_velocities(&system.model, &q, &[qd[0] + 1.0, qd[1], qd[2]]);
    let solution = system.accelerations(0.0, &q, &qd).expect("regular");
    let (qdd, lambda) = (solution.qdd, solution.multipliers);
    let j = jacobian(&q);
    let b = bias(&q, &qd);
    for row in 0..2 {
        let acceleration: f64 = (0..3).map(|c| j[row][c] * qdd[c]).sum::<f64>() + b[row];
        assert!(acceleration.abs() < 1e-9, "J q̈ + J̇ q̇ = {acceleration}");
    }
    assert!(lambda.iter().all(|l| l.is_finite()));
    let mut y = [q[0] + 1e-3, q[1], q[2], qd[0], qd[1], qd[2]];
    assert!(
        system.project(0.0, &mut y),
        "a perturbed state was not projected"
    );
}

fn system_energy(y: &[f64]) -> (f64, f64) {
    FourBar::default().energy(&[y[0], y[1], y[2]], &[y[3], y[4], y[5]])
}
