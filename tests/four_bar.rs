//! The generated four-bar (`specs/four_bar.spec`) against its closed-form
//! one-degree-of-freedom reduction, and integrated through the runtime.
//!
//! The reduction is written here from the linkage's geometry alone: the
//! crank angle θ places B; C is where the circles of radius b about B and c
//! about D meet (the branch above the line BD, as assembled in the spec);
//! the link angles and centres of mass follow. With `T = ½ m(θ) θ̇²` and
//! `V(θ)`, Lagrange's equation in θ is `m θ̈ + ½ m′ θ̇² + V′ = 0`, whose
//! derivatives are taken here by finite differences of the closed form.

use sharnir_generated::four_bar;
use sharnir_runtime::adaptive::Dop853;
use sharnir_runtime::{
    assemble, model, project_velocities, ConstrainedSystem, LoopClosure, Model, Stepper,
    Tolerances, Trajectory,
};

model!(FourBar = four_bar, loops);

/// The spec's parameters.
struct Linkage {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    masses: [f64; 3],
    g: f64,
}

impl Linkage {
    fn of(p: &four_bar::Params) -> Linkage {
        Linkage {
            a: p.a,
            b: p.b,
            c: p.c,
            d: p.d,
            masses: [p.m1, p.m2, p.m3],
            g: p.g,
        }
    }

    /// The absolute angles of crank, coupler and rocker at crank angle θ.
    fn angles(&self, theta: f64) -> [f64; 3] {
        let (bx, by) = (self.a * theta.cos(), self.a * theta.sin());
        let (dx, dy) = (self.d - bx, -by);
        let l = dx.hypot(dy);
        let along = (self.b * self.b - self.c * self.c + l * l) / (2.0 * l);
        let up = (self.b * self.b - along * along).sqrt();
        let (ex, ey) = (dx / l, dy / l);
        let (cx, cy) = (bx + along * ex - up * ey, by + along * ey + up * ex);
        [theta, (cy - by).atan2(cx - bx), cy.atan2(cx - self.d)]
    }

    /// The joint coordinates (crank, coupler relative to crank, rocker).
    fn coordinates(&self, theta: f64) -> [f64; 3] {
        let [p1, p2, p3] = self.angles(theta);
        [p1, p2 - p1, p3]
    }

    /// Centres of mass (x, y) of the three links.
    fn centres(&self, theta: f64) -> [[f64; 2]; 3] {
        let [p1, p2, p3] = self.angles(theta);
        let (bx, by) = (self.a * p1.cos(), self.a * p1.sin());
        [
            [0.5 * self.a * p1.cos(), 0.5 * self.a * p1.sin()],
            [bx + 0.5 * self.b * p2.cos(), by + 0.5 * self.b * p2.sin()],
            [self.d + 0.5 * self.c * p3.cos(), 0.5 * self.c * p3.sin()],
        ]
    }

    /// `m(θ)`: twice the kinetic energy at θ̇ = 1 (rods turning about z,
    /// `I = m l²/12` about the centre).
    fn reduced_mass(&self, theta: f64) -> f64 {
        const H: f64 = 1e-5;
        let rate = |f: &dyn Fn(f64) -> f64| (f(theta + H) - f(theta - H)) / (2.0 * H);
        let lengths = [self.a, self.b, self.c];
        (0..3)
            .map(|i| {
                let vx = rate(&|t| self.centres(t)[i][0]);
                let vy = rate(&|t| self.centres(t)[i][1]);
                let w = rate(&|t| self.angles(t)[i]);
                let m = self.masses[i];
                m * (vx * vx + vy * vy) + m * lengths[i] * lengths[i] / 12.0 * w * w
            })
            .sum()
    }

    fn potential(&self, theta: f64) -> f64 {
        let centres = self.centres(theta);
        (0..3)
            .map(|i| self.masses[i] * self.g * centres[i][1])
            .sum()
    }

    /// θ̈ of the free linkage from Lagrange's equation in θ.
    fn crank_acceleration(&self, theta: f64, rate: f64) -> f64 {
        const H: f64 = 1e-4;
        let m = self.reduced_mass(theta);
        let dm = (self.reduced_mass(theta + H) - self.reduced_mass(theta - H)) / (2.0 * H);
        let dv = (self.potential(theta + H) - self.potential(theta - H)) / (2.0 * H);
        -(0.5 * dm * rate * rate + dv) / m
    }
}

#[test]
fn the_spec_starts_assembled_and_names_its_constraints() {
    let model = FourBar::default();
    let psi = model.constraints(&four_bar::INITIAL_POSITIONS);
    assert!(psi.iter().all(|x| x.abs() < 1e-12), "Ψ = {psi:?}");
    assert_eq!(four_bar::CONSTRAINT_NAMES, ["pin.fx", "pin.fy"]);
    assert_eq!(four_bar::CUT_JOINTS, ["pin"]);
    assert_eq!(four_bar::INDEPENDENT, [0]);
}

#[test]
fn assembly_holds_the_crank_and_finds_the_closed_form_configuration() {
    let model = FourBar::default();
    let linkage = Linkage::of(&four_bar::Params::default());
    // The crank walks once round in steps of 0.1 rad, each assembly starting
    // from the last (a far guess may reach the linkage's other branch).
    let mut q = four_bar::INITIAL_POSITIONS;
    for step in 1..=63 {
        let theta = 0.1 * f64::from(step);
        q = assemble(&model, [theta, q[1], q[2]], &[0], 1e-13)
            .expect("a crank–rocker reaches every crank angle");
        let expected = linkage.coordinates(theta);
        assert_eq!(q[0], theta, "the crank was held");
        for k in 1..3 {
            let turns = ((q[k] - expected[k]) / std::f64::consts::TAU).round();
            let error = q[k] - expected[k] - turns * std::f64::consts::TAU;
            assert!(
                error.abs() < 1e-10,
                "θ = {theta}: q = {q:?}, closed form {expected:?}"
            );
        }
    }
}

#[test]
fn constrained_accelerations_match_the_one_degree_of_freedom_reduction() {
    let model = FourBar::default();
    let linkage = Linkage::of(&four_bar::Params::default());
    let mut system = ConstrainedSystem::new(model);
    for (theta, rate) in [(0.0, 0.0), (0.7, 2.0), (-1.9, -3.5), (2.6, 1.0)] {
        let q = linkage.coordinates(theta);
        const H: f64 = 1e-6;
        let (ahead, behind) = (
            linkage.coordinates(theta + H),
            linkage.coordinates(theta - H),
        );
        let qd: [f64; 3] = core::array::from_fn(|k| (ahead[k] - behind[k]) / (2.0 * H) * rate);
        let qd = project_velocities(&system.model, &q, &qd);
        let solution = system.accelerations(0.0, &q, &qd).expect("regular");
        let expected = linkage.crank_acceleration(theta, rate);
        assert!(
            (solution.qdd[0] - expected).abs() < 1e-5 * (1.0 + expected.abs()),
            "θ = {theta}, θ̇ = {rate}: q̈₁ = {}, closed form {expected}",
            solution.qdd[0]
        );
        let jacobian = system.model.constraint_jacobian(&q);
        let bias = system.model.constraint_bias(&q, &qd);
        for row in 0..four_bar::NC {
            let acceleration: f64 = (0..3)
                .map(|c| jacobian[row][c] * solution.qdd[c])
                .sum::<f64>()
                + bias[row];
            assert!(acceleration.abs() < 1e-9, "J q̈ + J̇ q̇ = {acceleration:e}");
        }
    }
}

#[test]
fn ten_seconds_keep_energy_and_closure() {
    let mut system = ConstrainedSystem::new(FourBar::default());
    let q0 = four_bar::INITIAL_POSITIONS;
    let qd0 = project_velocities(&system.model, &q0, &[25.0, 0.0, 0.0]);
    let y0 = [q0[0], q0[1], q0[2], qd0[0], qd0[1], qd0[2]];
    let energy = |y: &[f64]| {
        let (t, v) = FourBar::default().energy(&[y[0], y[1], y[2]], &[y[3], y[4], y[5]]);
        t + v
    };
    let e0 = energy(&y0);
    let tolerances = Tolerances {
        rtol: 1e-11,
        atol: 1e-11,
    };
    let mut stepper = Dop853::new(&mut system, 0.0, &y0, tolerances).expect("valid start");
    let (mut worst_energy, mut worst_closure, mut turned) = (0.0_f64, 0.0_f64, 0.0_f64);
    while stepper.t() < 10.0 {
        stepper.step(&mut system, 10.0).expect("step");
        let y = stepper.y();
        worst_energy = worst_energy.max((energy(y) - e0).abs());
        let psi = system.model.constraints(&[y[0], y[1], y[2]]);
        worst_closure = worst_closure.max(psi.iter().fold(0.0, |m, x| m.max(x.abs())));
        turned = turned.max((y[0] - y0[0]).abs());
    }
    assert!(turned > 6.3, "the crank did not turn round: {turned}");
    assert!(
        worst_energy < 1e-8 * e0.abs(),
        "energy drifted by {worst_energy:e} of {e0}"
    );
    assert!(worst_closure < 1e-10, "Ψ reached {worst_closure:e}");
}

/// A few assembled states with the crank turning, from the closed form.
fn moving_states() -> Vec<([f64; 3], [f64; 3])> {
    let linkage = Linkage::of(&four_bar::Params::default());
    [(0.0, 0.0), (0.7, 2.0), (-1.9, -3.5), (2.6, 1.0)]
        .into_iter()
        .map(|(theta, rate)| {
            const H: f64 = 1e-6;
            let (ahead, behind) = (
                linkage.coordinates(theta + H),
                linkage.coordinates(theta - H),
            );
            let q = linkage.coordinates(theta);
            let qd = project_velocities(
                &FourBar::default(),
                &q,
                &core::array::from_fn(|k| (ahead[k] - behind[k]) / (2.0 * H) * rate),
            );
            (q, qd)
        })
        .collect()
}

#[test]
fn the_emitted_constrained_dynamics_matches_the_runtime_solve() {
    let p = four_bar::Params::default();
    let mut system = ConstrainedSystem::new(FourBar::default());
    for (q, qd) in moving_states() {
        let tau = [0.3, -0.2, 0.1];
        let (qdd, lambda) =
            four_bar::constrained_forward_dynamics(&p, &q, &qd, &tau).expect("regular");
        let free = FourBar::default().forward_dynamics(&q, &qd, &tau);
        let jacobian = four_bar::constraint_jacobian(&p, &q);
        // M (q̈ − q̈_free) = Jᵀλ and J q̈ + J̇ q̇ = 0 determine q̈ and λ.
        let mass = four_bar::mass_matrix(&p, &q);
        for i in 0..3 {
            let lhs: f64 = (0..3).map(|k| mass[i][k] * (qdd[k] - free[k])).sum();
            let rhs: f64 = (0..four_bar::NC).map(|r| jacobian[r][i] * lambda[r]).sum();
            assert!((lhs - rhs).abs() < 1e-10, "row {i}: {lhs} against {rhs}");
        }
        let bias = four_bar::constraint_bias(&p, &q, &qd);
        for r in 0..four_bar::NC {
            let a: f64 = (0..3).map(|k| jacobian[r][k] * qdd[k]).sum::<f64>() + bias[r];
            assert!(a.abs() < 1e-10, "J q̈ + J̇ q̇ = {a:e}");
        }
        // The runtime's own solve (regularised normal equations) agrees.
        let runtime = system.accelerations(0.0, &q, &qd).expect("regular");
        let (passive, _) =
            four_bar::constrained_forward_dynamics(&p, &q, &qd, &[0.0; 3]).expect("regular");
        for k in 0..3 {
            assert!(
                (runtime.qdd[k] - passive[k]).abs() < 1e-9 * (1.0 + passive[k].abs()),
                "q̈ {:?} against the runtime's {:?}",
                passive,
                runtime.qdd
            );
        }
    }
}

#[test]
fn the_pin_reaction_balances_the_rocker() {
    // The rocker turns about its ground pivot D under gravity and the pin
    // force f at C (what the coupler, the pin's parent, exerts on it):
    // I_D φ̈₃ = ((C − D) × f + (G − D) × m g)_z.
    let p = four_bar::Params::default();
    for (q, qd) in moving_states() {
        let (qdd, _) =
            four_bar::constrained_forward_dynamics(&p, &q, &qd, &[0.0; 3]).expect("regular");
        let [wrench] = four_bar::cut_joint_reactions(&p, &q, &qd, &[0.0; 3]).expect("regular");
        let phi = q[2];
        let (ux, uy) = (phi.cos(), phi.sin());
        let arm = [p.c * ux, p.c * uy];
        let moment_of_force = arm[0] * wrench[1] - arm[1] * wrench[0];
        let gravity_moment = 0.5 * p.c * ux * (-p.m3 * p.g);
        let inertia = p.m3 * p.c * p.c / 3.0;
        let balance = inertia * qdd[2] - moment_of_force - gravity_moment - wrench[5];
        assert!(
            balance.abs() < 1e-9,
            "rocker moment balance off by {balance:e}"
        );
        // A planar pin transmits no moment about z and no out-of-plane force.
        assert!(
            wrench[2].abs() < 1e-12 && wrench[5].abs() < 1e-12,
            "{wrench:?}"
        );
    }
}

#[test]
fn constrained_inverse_dynamics_inverts_the_forward_dynamics() {
    let p = four_bar::Params::default();
    for (q, qd) in moving_states() {
        for crank_torque in [-2.0, 0.0, 5.0] {
            let tau = [crank_torque, 0.0, 0.0];
            let (qdd, _) =
                four_bar::constrained_forward_dynamics(&p, &q, &qd, &tau).expect("regular");
            let [u] = four_bar::constrained_inverse_dynamics(&p, &q, &qd, &qdd).expect("regular");
            assert!(
                (u - crank_torque).abs() < 1e-9,
                "crank torque {u} for the motion of {crank_torque}"
            );
        }
        let velocities = four_bar::dependent_velocities(&p, &q, &[qd[0]]).expect("regular");
        for k in 0..3 {
            assert!(
                (velocities[k] - qd[k]).abs() < 1e-9 * (1.0 + qd[k].abs()),
                "q̇ {velocities:?} against {qd:?}"
            );
        }
    }
}

/// The largest `|Ψ|` over 10 s of the crank turning, with `drift_control`.
fn closure_over_ten_seconds(drift_control: sharnir_runtime::DriftControl) -> f64 {
    let mut system = ConstrainedSystem::new(FourBar::default());
    system.drift_control = drift_control;
    let q0 = four_bar::INITIAL_POSITIONS;
    let qd0 = project_velocities(&system.model, &q0, &[25.0, 0.0, 0.0]);
    let y0 = [q0[0], q0[1], q0[2], qd0[0], qd0[1], qd0[2]];
    let tolerances = Tolerances {
        rtol: 1e-8,
        atol: 1e-8,
    };
    let mut stepper = Dop853::new(&mut system, 0.0, &y0, tolerances).expect("valid start");
    let mut worst = 0.0_f64;
    while stepper.t() < 10.0 {
        stepper.step(&mut system, 10.0).expect("step");
        let y = stepper.y();
        let psi = system.model.constraints(&[y[0], y[1], y[2]]);
        worst = psi.iter().fold(worst, |m, x| m.max(x.abs()));
    }
    worst
}

#[test]
fn baumgarte_stabilisation_holds_the_drift_that_plain_integration_lets_grow() {
    use sharnir_runtime::DriftControl;
    let plain = closure_over_ten_seconds(DriftControl::Baumgarte {
        alpha: 0.0,
        beta: 0.0,
    });
    let stabilised = closure_over_ten_seconds(DriftControl::Baumgarte {
        alpha: 20.0,
        beta: 20.0,
    });
    let projected = closure_over_ten_seconds(DriftControl::Projection);
    // Observed: plain 2.1e-7, Baumgarte 4.0e-10, projection 4.6e-15
    // (tolerances 1e-8).
    assert!(
        stabilised < 0.05 * plain,
        "Baumgarte {stabilised:e} against plain {plain:e}"
    );
    assert!(stabilised < 1e-6, "Baumgarte let Ψ reach {stabilised:e}");
    assert!(projected < 1e-10, "projection let Ψ reach {projected:e}");
}

#[test]
fn without_independent_the_compiler_partitions_the_coordinates() {
    let path = sharnir_tests::oracle::specs_dir().join("four_bar.spec");
    let text = std::fs::read_to_string(&path).expect("spec");
    let text = text.replace("independent = [\"crank\"]\n", "");
    let spec = sharnir_spec::parse(sharnir_spec::Source {
        name: "four_bar_unnamed.spec".to_owned(),
        text,
    })
    .expect("valid");
    assert!(spec.independent.is_empty());
    let mechanism = sharnir_mech::Mechanism::from_spec(&spec, sharnir_mech::ParameterMode::Runtime)
        .expect("builds");
    assert!(mechanism.independent_chosen);
    assert_eq!(mechanism.independent.len(), 1, "one degree of freedom");
    // The other two coordinates must be determined by the chosen one: their
    // columns of J at the initial configuration are independent.
    let p = four_bar::Params::default();
    let jacobian = four_bar::constraint_jacobian(&p, &four_bar::INITIAL_POSITIONS);
    let dependent: Vec<usize> = (0..3)
        .filter(|c| !mechanism.independent.contains(c))
        .collect();
    let (a, b) = (dependent[0], dependent[1]);
    let determinant = jacobian[0][a] * jacobian[1][b] - jacobian[0][b] * jacobian[1][a];
    assert!(determinant.abs() > 1e-3, "J_d is singular: {determinant}");
}
