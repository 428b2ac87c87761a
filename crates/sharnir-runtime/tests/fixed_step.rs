//! The fixed-step integrators and the model adapter on systems with closed
//! forms: a harmonic oscillator (convergence orders, dense output, bounded
//! energy error of the symplectic method) and a torque-free rigid rotor on a
//! spherical joint (unit quaternions, conserved energy and angular
//! momentum). The two "modules" below are written by hand in the shape
//! sharnir generates, so `model!` is checked on them.

use sharnir_runtime::{
    IntegrationError, Model, ModelSystem, OdeSystem, Rk4, SemiImplicitEuler, Stepper, Trajectory,
};

/// A mass on a spring with a driving force: `m ẍ = −k x + f(t)`.
/// What a generated module without `[motion]` has: no prescribed
/// coordinate, and the forward dynamics as its mixed dynamics.
macro_rules! free_motion {
    () => {
        pub const NP: usize = 0;
        pub const PRESCRIBED: [usize; NP] = [];
        pub const PRESCRIBED_POSITIONS: [usize; NP] = [];
        pub fn prescribed_motion_with(
            _d: &Derived,
            _t: Real,
        ) -> ([Real; NP], [Real; NP], [Real; NP]) {
            ([], [], [])
        }
        pub fn mixed_dynamics_with(
            d: &Derived,
            _t: Real,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> ([Real; NV], [Real; NP]) {
            (forward_dynamics_with(d, q, qd, tau), [])
        }
    };
}

mod spring {
    pub type Real = f64;
    pub const NQ: usize = 1;
    pub const NV: usize = 1;
    pub const COORDINATE_NAMES: [&str; NV] = ["x"];
    pub const POSITION_NAMES: [&str; NQ] = ["x"];
    pub const QUATERNIONS: [usize; 0] = [];
    pub const INITIAL_POSITIONS: [Real; NQ] = [1.0];
    pub const INITIAL_VELOCITIES: [Real; NV] = [0.0];
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Params {
        pub m: Real,
        pub k: Real,
        pub f: Real,
    }
    impl Default for Params {
        fn default() -> Self {
            Params {
                m: 2.0,
                k: 8.0,
                f: 0.0,
            }
        }
    }
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Derived {
        pub params: Params,
        pub k0: Real,
    }
    impl Params {
        pub fn derived(&self) -> Derived {
            Derived {
                params: *self,
                k0: 1.0 / self.m,
            }
        }
    }
    pub fn forward_dynamics_with(
        d: &Derived,
        q: &[Real; NQ],
        _qd: &[Real; NV],
        tau: &[Real; NV],
    ) -> [Real; NV] {
        [(tau[0] - d.params.k * q[0]) * d.k0]
    }
    #[allow(clippy::type_complexity)]
    pub fn forward_dynamics_derivatives_with(
        d: &Derived,
        _q: &[Real; NQ],
        _qd: &[Real; NV],
        _tau: &[Real; NV],
    ) -> ([[Real; NV]; NV], [[Real; NV]; NV], [[Real; NV]; NV]) {
        ([[-d.params.k * d.k0]], [[0.0]], [[d.k0]])
    }
    pub fn coordinate_rates_with(_d: &Derived, _q: &[Real; NQ], qd: &[Real; NV]) -> [Real; NQ] {
        [qd[0]]
    }
    pub fn energy_with(d: &Derived, q: &[Real; NQ], qd: &[Real; NV]) -> (Real, Real) {
        (
            0.5 * d.params.m * qd[0] * qd[0],
            0.5 * d.params.k * q[0] * q[0],
        )
    }
    pub fn mass_matrix_with(d: &Derived, _q: &[Real; NQ]) -> [[Real; NV]; NV] {
        [[d.params.m]]
    }
    pub fn coriolis_matrix_with(
        _d: &Derived,
        _q: &[Real; NQ],
        _qd: &[Real; NV],
    ) -> [[Real; NV]; NV] {
        [[0.0]]
    }
    pub const HAS_JOINT_FORCES: bool = false;
    pub const HAS_APPLIED_FORCES: bool = true;
    pub const HAS_LOOPS: bool = false;
    pub const CONTACT_NAMES: [&str; 0] = [];
    pub fn limit_forces_with(_d: &Derived, _q: &[Real; NQ], _qd: &[Real; NV]) -> [Real; NV] {
        [0.0; NV]
    }
    pub fn friction_forces_with(_d: &Derived, _q: &[Real; NQ], _qd: &[Real; NV]) -> [Real; NV] {
        [0.0; NV]
    }
    pub fn contact_gaps_with(_d: &Derived, _q: &[Real; NQ]) -> [Real; 0] {
        []
    }
    pub fn gravity_with(d: &Derived, q: &[Real; NQ]) -> [Real; NV] {
        [d.params.k * q[0]]
    }
    pub fn applied_forces_with(
        d: &Derived,
        t: Real,
        _q: &[Real; NQ],
        _qd: &[Real; NV],
    ) -> [Real; NV] {
        [d.params.f * libm::sin(t)]
    }
    free_motion!();
}

/// A rigid body on a spherical joint without gravity or torque: quaternion
/// `(qx, qy, qz, qw)`, angular velocity in the body frame, principal
/// inertia `(1, 2, 3)`.
mod rotor {
    pub type Real = f64;
    pub const NQ: usize = 4;
    pub const NV: usize = 3;
    pub const COORDINATE_NAMES: [&str; NV] = ["r_wx", "r_wy", "r_wz"];
    pub const POSITION_NAMES: [&str; NQ] = ["r_qx", "r_qy", "r_qz", "r_qw"];
    pub const QUATERNIONS: [usize; 1] = [0];
    pub const INITIAL_POSITIONS: [Real; NQ] = [0.0, 0.0, 0.0, 1.0];
    pub const INITIAL_VELOCITIES: [Real; NV] = [0.1, 3.0, 0.2];
    pub const INERTIA: [Real; 3] = [1.0, 2.0, 3.0];
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Params {}
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Derived {}
    impl Params {
        pub fn derived(&self) -> Derived {
            Derived {}
        }
    }
    pub fn forward_dynamics_with(
        _d: &Derived,
        _q: &[Real; NQ],
        w: &[Real; NV],
        tau: &[Real; NV],
    ) -> [Real; NV] {
        let i = INERTIA;
        [
            (tau[0] - (i[2] - i[1]) * w[1] * w[2]) / i[0],
            (tau[1] - (i[0] - i[2]) * w[2] * w[0]) / i[1],
            (tau[2] - (i[1] - i[0]) * w[0] * w[1]) / i[2],
        ]
    }
    /// Euler's equations do not depend on the orientation.
    #[allow(clippy::type_complexity)]
    pub fn forward_dynamics_derivatives_with(
        _d: &Derived,
        _q: &[Real; NQ],
        w: &[Real; NV],
        _tau: &[Real; NV],
    ) -> ([[Real; NV]; NV], [[Real; NV]; NV], [[Real; NV]; NV]) {
        let i = INERTIA;
        let (a, b, c) = (
            (i[2] - i[1]) / i[0],
            (i[0] - i[2]) / i[1],
            (i[1] - i[0]) / i[2],
        );
        (
            [[0.0; NV]; NV],
            [
                [0.0, -a * w[2], -a * w[1]],
                [-b * w[2], 0.0, -b * w[0]],
                [-c * w[1], -c * w[0], 0.0],
            ],
            [
                [1.0 / i[0], 0.0, 0.0],
                [0.0, 1.0 / i[1], 0.0],
                [0.0, 0.0, 1.0 / i[2]],
            ],
        )
    }
    /// `q̇ = ½ q ⊗ (ω, 0)` with ω in the body frame.
    pub fn coordinate_rates_with(_d: &Derived, q: &[Real; NQ], w: &[Real; NV]) -> [Real; NQ] {
        let [x, y, z, s] = *q;
        [
            0.5 * (s * w[0] + y * w[2] - z * w[1]),
            0.5 * (s * w[1] + z * w[0] - x * w[2]),
            0.5 * (s * w[2] + x * w[1] - y * w[0]),
            -0.5 * (x * w[0] + y * w[1] + z * w[2]),
        ]
    }
    pub fn mass_matrix_with(_d: &Derived, _q: &[Real; NQ]) -> [[Real; NV]; NV] {
        let i = INERTIA;
        [[i[0], 0.0, 0.0], [0.0, i[1], 0.0], [0.0, 0.0, i[2]]]
    }
    /// `C ω = ω × Iω`: `C = −[Iω]×`.
    pub fn coriolis_matrix_with(_d: &Derived, _q: &[Real; NQ], w: &[Real; NV]) -> [[Real; NV]; NV] {
        let l = [INERTIA[0] * w[0], INERTIA[1] * w[1], INERTIA[2] * w[2]];
        [[0.0, l[2], -l[1]], [-l[2], 0.0, l[0]], [l[1], -l[0], 0.0]]
    }
    pub const HAS_JOINT_FORCES: bool = false;
    pub const HAS_APPLIED_FORCES: bool = false;
    pub const HAS_LOOPS: bool = false;
    pub fn applied_forces_with(
        _d: &Derived,
        _t: Real,
        _q: &[Real; NQ],
        _qd: &[Real; NV],
    ) -> [Real; NV] {
        [0.0; NV]
    }
    pub const CONTACT_NAMES: [&str; 0] = [];
    pub fn limit_forces_with(_d: &Derived, _q: &[Real; NQ], _qd: &[Real; NV]) -> [Real; NV] {
        [0.0; NV]
    }
    pub fn friction_forces_with(_d: &Derived, _q: &[Real; NQ], _qd: &[Real; NV]) -> [Real; NV] {
        [0.0; NV]
    }
    pub fn contact_gaps_with(_d: &Derived, _q: &[Real; NQ]) -> [Real; 0] {
        []
    }
    pub fn gravity_with(_d: &Derived, _q: &[Real; NQ]) -> [Real; NV] {
        [0.0; NV]
    }
    pub fn energy_with(_d: &Derived, _q: &[Real; NQ], w: &[Real; NV]) -> (Real, Real) {
        let i = INERTIA;
        (
            0.5 * (i[0] * w[0] * w[0] + i[1] * w[1] * w[1] + i[2] * w[2] * w[2]),
            0.0,
        )
    }
    free_motion!();
}

sharnir_runtime::model!(Spring = spring);
sharnir_runtime::model!(Rotor = rotor);

/// Exact solution of the free spring from x = 1 at rest: cos(ω t), ω = 2.
fn spring_exact(t: f64) -> [f64; 2] {
    [(2.0 * t).cos(), -2.0 * (2.0 * t).sin()]
}

fn rk4_error_at(t_end: f64, h: f64) -> f64 {
    let mut system = ModelSystem::new(Spring::default());
    let mut rk4 = Rk4::new(&mut system, 0.0, [1.0, 0.0], h).expect("valid start");
    while rk4.t() < t_end {
        rk4.step(&mut system, t_end).expect("step");
    }
    assert_eq!(rk4.t(), t_end, "the last step lands on the end time");
    let exact = spring_exact(t_end);
    (rk4.y()[0] - exact[0])
        .abs()
        .max((rk4.y()[1] - exact[1]).abs())
}

#[test]
fn rk4_converges_with_order_four() {
    let coarse = rk4_error_at(10.0, 0.02);
    let fine = rk4_error_at(10.0, 0.01);
    let ratio = coarse / fine;
    assert!(
        (14.0..18.5).contains(&ratio),
        "error ratio {ratio} for a halved step (order 4 gives 16)"
    );
    assert!(fine < 1e-7, "error {fine}");
}

#[test]
fn rk4_lands_on_an_end_time_the_step_does_not_divide() {
    let error = rk4_error_at(1.0, 0.3);
    assert!(error < 1e-2, "error {error}");
}

#[test]
fn rk4_dense_output_is_third_order_accurate_between_steps() {
    let mut system = ModelSystem::new(Spring::default());
    let h = 0.05;
    let mut rk4 = Rk4::new(&mut system, 0.0, vec![1.0, 0.0], h).expect("valid start");
    let (mut worst, mut worst_at_steps) = (0.0_f64, 0.0_f64);
    let mut out = [0.0; 2];
    while rk4.t() < 2.0 {
        rk4.step(&mut system, 2.0).expect("step");
        worst_at_steps = worst_at_steps.max((rk4.y()[0] - spring_exact(rk4.t())[0]).abs());
        for s in [0.25, 0.5, 0.75] {
            let t = rk4.t_previous() + s * (rk4.t() - rk4.t_previous());
            rk4.interpolate(t, &mut out);
            worst = worst.max((out[0] - spring_exact(t)[0]).abs());
        }
    }
    // Between steps: the steps' own error plus the Hermite interpolation
    // error, at most h⁴/384 · max|x⁗| = 16 h⁴ / 384.
    let interpolation = 16.0 * h.powi(4) / 384.0;
    assert!(
        worst < worst_at_steps + 1.5 * interpolation,
        "dense error {worst}, at the steps {worst_at_steps}"
    );
    assert!(worst > 0.0);
}

#[test]
fn semi_implicit_euler_keeps_the_energy_error_bounded() {
    let mut system = ModelSystem::new(Spring::default());
    let h = 0.01;
    let t_end = 2000.0; // about 640 periods
    let mut euler =
        SemiImplicitEuler::new(&mut system, 0.0, [1.0, 0.0], h, 1).expect("valid start");
    let energy = |y: &[f64]| 0.5 * 2.0 * y[1] * y[1] + 0.5 * 8.0 * y[0] * y[0];
    let e0 = energy(euler.y());
    let (mut worst_early, mut worst_late) = (0.0_f64, 0.0_f64);
    while euler.t() < t_end {
        euler.step(&mut system, t_end).expect("step");
        let error = (energy(euler.y()) - e0).abs() / e0;
        if euler.t() < 20.0 {
            worst_early = worst_early.max(error);
        } else {
            worst_late = worst_late.max(error);
        }
    }
    // Symplectic: the energy error oscillates at O(h ω) and does not grow.
    assert!(worst_early < 2.0 * h * 2.0, "early error {worst_early}");
    assert!(
        worst_late < 1.05 * worst_early,
        "energy error grew from {worst_early} to {worst_late}"
    );
    assert_eq!(euler.stats().steps, 200_000);
}

#[test]
fn applied_forces_reach_the_dynamics() {
    let mut system = ModelSystem::new(Spring::new(spring::Params {
        f: 3.0,
        ..Default::default()
    }));
    let mut dy = [0.0; 2];
    system.rhs(0.5, &[0.25, 0.0], &mut dy).expect("rhs");
    // ẍ = (3 sin 0.5 − 8 · 0.25) / 2
    let expected = (3.0 * 0.5_f64.sin() - 2.0) / 2.0;
    assert!((dy[1] - expected).abs() < 1e-15, "{} vs {expected}", dy[1]);
    const { assert!(<Spring as Model<1, 1>>::HAS_APPLIED_FORCES) };
    const { assert!(!<Rotor as Model<4, 3>>::HAS_APPLIED_FORCES) };
    assert_eq!(<Spring as Model<1, 1>>::NAME, "spring");
}

/// World-frame angular momentum `R(q) I ω`.
fn world_momentum(y: &[f64]) -> [f64; 3] {
    let [x, yq, z, s] = [y[0], y[1], y[2], y[3]];
    let l = [
        rotor::INERTIA[0] * y[4],
        rotor::INERTIA[1] * y[5],
        rotor::INERTIA[2] * y[6],
    ];
    let r = [
        [
            1.0 - 2.0 * (yq * yq + z * z),
            2.0 * (x * yq - z * s),
            2.0 * (x * z + yq * s),
        ],
        [
            2.0 * (x * yq + z * s),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (yq * z - x * s),
        ],
        [
            2.0 * (x * z - yq * s),
            2.0 * (yq * z + x * s),
            1.0 - 2.0 * (x * x + yq * yq),
        ],
    ];
    [0, 1, 2].map(|i| r[i][0] * l[0] + r[i][1] * l[1] + r[i][2] * l[2])
}

#[test]
fn a_spinning_rotor_keeps_a_unit_quaternion_energy_and_momentum() {
    let model = Rotor::default();
    let mut y = [0.0; Rotor::STATE_LEN];
    sharnir_runtime::join_state(
        &model.initial_positions(),
        &model.initial_velocities(),
        &mut y,
    );
    let mut system = ModelSystem::new(model);
    // Spinning near the intermediate axis: the tumbling Dzhanibekov motion.
    let mut rk4 = Rk4::new(&mut system, 0.0, y, 1e-3).expect("valid start");
    let l0 = world_momentum(rk4.y());
    let e0 = rotor::energy_with(&rotor::Derived {}, &[0.0; 4], &[0.1, 3.0, 0.2]).0;
    while rk4.t() < 20.0 {
        rk4.step(&mut system, 20.0).expect("step");
        let q = &rk4.y()[..4];
        let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!(
            (norm - 1.0).abs() < 1e-15,
            "|q| = {norm} at t = {}",
            rk4.t()
        );
    }
    let l = world_momentum(rk4.y());
    let w = [rk4.y()[4], rk4.y()[5], rk4.y()[6]];
    let e = rotor::energy_with(&rotor::Derived {}, &[0.0; 4], &w).0;
    for i in 0..3 {
        assert!((l[i] - l0[i]).abs() < 1e-8, "momentum {l:?} vs {l0:?}");
    }
    assert!((e - e0).abs() / e0 < 1e-9, "energy {e} vs {e0}");
    // The body did tumble: ω_y changed sign at some point is not needed, but
    // the state moved far from the start.
    assert!((w[1] - 3.0).abs() > 0.1, "no tumbling: ω = {w:?}");
}

#[test]
fn single_precision_steps_without_an_allocator() {
    struct Decay;
    impl OdeSystem<f32> for Decay {
        fn dimension(&self) -> usize {
            1
        }
        fn rhs(
            &mut self,
            _t: f32,
            y: &[f32],
            dy: &mut [f32],
        ) -> Result<(), sharnir_runtime::RhsError> {
            dy[0] = -y[0];
            Ok(())
        }
    }
    let mut rk4 = Rk4::new(&mut Decay, 0.0_f32, [1.0_f32], 0.1).expect("valid start");
    while rk4.t() < 1.0 {
        rk4.step(&mut Decay, 1.0).expect("step");
    }
    let error = (rk4.y()[0] - (-1.0_f32).exp()).abs();
    assert!(error < 1e-5, "error {error}");
}

#[test]
fn bad_arguments_and_blow_ups_are_errors() {
    let mut system = ModelSystem::new(Spring::default());
    let wrong_step = Rk4::new(&mut system, 0.0, [1.0, 0.0], 0.0);
    assert!(matches!(
        wrong_step,
        Err(IntegrationError::InvalidArgument { .. })
    ));
    let wrong_length = Rk4::new(&mut system, 0.0, [1.0, 0.0, 0.0], 0.1);
    assert!(matches!(
        wrong_length,
        Err(IntegrationError::InvalidArgument { .. })
    ));
    let not_finite = Rk4::new(&mut system, 0.0, [f64::NAN, 0.0], 0.1);
    assert!(matches!(
        not_finite,
        Err(IntegrationError::InvalidArgument { .. })
    ));

    struct Blowup;
    impl OdeSystem for Blowup {
        fn dimension(&self) -> usize {
            1
        }
        fn rhs(
            &mut self,
            _t: f64,
            y: &[f64],
            dy: &mut [f64],
        ) -> Result<(), sharnir_runtime::RhsError> {
            dy[0] = y[0] * y[0];
            Ok(())
        }
    }
    // y' = y², y(0) = 1 blows up at t = 1.
    let mut rk4 = Rk4::new(&mut Blowup, 0.0, [1.0], 0.01).expect("valid start");
    let error = loop {
        match rk4.step(&mut Blowup, 2.0) {
            Ok(()) if rk4.t() < 2.0 => continue,
            Ok(()) => panic!("integrated through a blow-up"),
            Err(e) => break e,
        }
    };
    let t = error.time().expect("a time");
    assert!((0.9..1.2).contains(&t), "stopped at {t}: {error}");
}
