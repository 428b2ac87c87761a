//! The derivative functions as they ship, beyond their values (which
//! `shipped_programs.rs`, `random_mechanisms.rs` and the Pinocchio tests
//! check): the convention they are taken in, and `linearization` built on
//! them.
//!
//! - A floating base perturbed in ground axes gives derivatives that are not
//!   the module's (nor Pinocchio's): the checks elsewhere tell the
//!   conventions apart.
//! - `linearization`'s lower half is `forward_dynamics_derivatives` exactly;
//!   its upper half moves the chart coordinates `δ` of `q = q̄ ⊕ δ` as the
//!   oracle's exact exponentials do: `(q̄ ⊕ δ) ⊕ q̇ h` is
//!   `q̄ ⊕ (δ + h (q̇ + A_qq δ))` up to second-order terms, and the
//!   velocity-dependent blocks of spherical and free joints are what makes it
//!   so; `Plan::linearization` (what `sharnir linearize` prints) is the
//!   emitted one.
//! - A loop module's `constrained_forward_dynamics_derivatives` are central
//!   differences of its `constrained_forward_dynamics`.
//! - The runtime's `ModelSystem` Jacobian, and Radau IIA with it.

use sharnir_tests::derivatives::{by_position, by_vector};
use sharnir_tests::oracle::{relative_error, Oracle, States};

/// `(q̄ ⊕ δ) ⊕ q̇ h` against `q̄ ⊕ (δ + h (q̇ + A_qq δ))` for every unit
/// direction of `δ` with `|δ| = h = STEP`: the second-order remainder is
/// about `STEP²` times the velocities squared, while an `A_qq` missing its
/// `−½ [ω]×` is off by `STEP² |ω| / 2`; the tolerance sits between.
const STEP: f64 = 1e-4;
const CHART_TOLERANCE: f64 = 1e-10;

/// Runs `check` with the state of `states` and the module's sizes.
macro_rules! linearization_moves_the_chart_as_the_exponential_does {
    ($test:ident, $module:ident) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as generated;
            const NQ: usize = generated::NQ;
            const NV: usize = generated::NV;
            let oracle = Oracle::for_spec(stringify!($module));
            let p = generated::Params::default();
            let mut states = States::seeded(7);
            for _ in 0..3 {
                let (q, qd, tau) = states.next::<NQ, NV>(&oracle.sampling);
                let lin = generated::linearization(&p, &q, &qd, &tau);
                let (by_q, by_v, by_tau) =
                    generated::forward_dynamics_derivatives(&p, &q, &qd, &tau);
                for i in 0..NV {
                    assert_eq!(lin.a[i][NV + i], 1.0);
                    for j in 0..NV {
                        assert_eq!(lin.a[NV + i][j], by_q[i][j]);
                        assert_eq!(lin.a[NV + i][NV + j], by_v[i][j]);
                        assert_eq!(lin.b[NV + i][j], by_tau[i][j]);
                        assert_eq!(lin.b[i][j], 0.0);
                        if i != j {
                            assert_eq!(lin.a[i][NV + j], 0.0);
                        }
                    }
                }
                let chart: Vec<Vec<f64>> = (0..NV).map(|i| lin.a[i][..NV].to_vec()).collect();
                let zero = vec![vec![0.0; NV]; NV];
                let mut spins = false;
                for j in 0..NV {
                    let error = chart_error(&oracle, &q, &qd, &chart, j);
                    assert!(
                        error < CHART_TOLERANCE,
                        "{}: direction {j}: the chart moves by {error:e} otherwise",
                        stringify!($module)
                    );
                    spins |= chart_error(&oracle, &q, &qd, &zero, j) > 10.0 * CHART_TOLERANCE;
                }
                assert!(
                    spins,
                    "the chart blocks are never needed: the test cannot fail"
                );
                let planned = planned_linearization(stringify!($module), &q, &qd, &tau);
                let emitted_a: Vec<f64> = lin.a.iter().flatten().copied().collect();
                let emitted_b: Vec<f64> = lin.b.iter().flatten().copied().collect();
                assert!(relative_error(&planned.a.concat(), &emitted_a) < 1e-12);
                assert!(relative_error(&planned.b.concat(), &emitted_b) < 1e-12);
            }
        }
    };
}

/// `Plan::linearization` (what `sharnir linearize` prints) of the bundled
/// spec `stem` at `(q, q̇, τ)`, with the spec's parameter values.
fn planned_linearization(
    stem: &str,
    q: &[f64],
    qd: &[f64],
    tau: &[f64],
) -> sharnir_codegen::linearization::StateSpace {
    use sharnir_codegen::plan::outputs::{Function, Outputs};
    use sharnir_codegen::{plan, PlanOptions};
    use sharnir_mech::{Mechanism, ParameterMode};
    let spec = sharnir_tests::oracle::load_spec(stem);
    let values = spec.parameter_values();
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("valid");
    let options = PlanOptions {
        outputs: Some(Outputs::NONE.with(Function::ForwardDynamicsDerivatives)),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).expect("plans");
    let input = sharnir_tests::inputs::environment(&values, q, qd, &[], tau);
    plan.linearization(&input).expect("evaluates")
}

/// `|(q̄ ⊕ δ) ⊕ q̇ h − q̄ ⊕ (δ + h (q̇ + A_qq δ))|∞` for `δ = STEP eⱼ`,
/// `h = STEP`.
fn chart_error(oracle: &Oracle, q: &[f64], qd: &[f64], chart: &[Vec<f64>], j: usize) -> f64 {
    let nv = qd.len();
    let mut delta = vec![0.0; nv];
    delta[j] = STEP;
    let moved = oracle.integrate(&oracle.integrate(q, &delta, 1.0), qd, STEP);
    let predicted: Vec<f64> = (0..nv)
        .map(|i| delta[i] + STEP * (qd[i] + (0..nv).map(|k| chart[i][k] * delta[k]).sum::<f64>()))
        .collect();
    let reached = oracle.integrate(q, &predicted, 1.0);
    moved
        .iter()
        .zip(&reached)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

linearization_moves_the_chart_as_the_exponential_does!(solo12_linearization, solo12);
linearization_moves_the_chart_as_the_exponential_does!(joint_zoo_linearization, joint_zoo);

/// Solo12's `∂τ/∂q` against central differences of its own inverse
/// dynamics with the base moved on the right, in the base frame (the
/// module's convention: agrees), and in ground axes (position along the
/// ground axes, orientation turned on the left: disagrees in the base's
/// columns by the order of the entries).
#[test]
fn a_floating_base_perturbed_in_ground_axes_is_told_apart() {
    use sharnir_generated::solo12 as generated;
    const NQ: usize = generated::NQ;
    const NV: usize = generated::NV;
    let oracle = Oracle::for_spec("solo12");
    let p = generated::Params::default();
    let mut states = States::seeded(11);
    let (q, qd, qdd) = states.next::<NQ, NV>(&oracle.sampling);
    let tau = |q: &[f64]| {
        let q: [f64; NQ] = q.try_into().expect("NQ entries");
        generated::inverse_dynamics(&p, &q, &qd, &qdd).to_vec()
    };
    let (by_q, _) = generated::inverse_dynamics_derivatives(&p, &q, &qd, &qdd);
    let shipped: Vec<f64> = by_q.concat();
    let body_frame = by_position(&oracle, &q, tau);
    assert!(relative_error(&shipped, &body_frame) < 1e-6);
    let ground_axes = by_vector(&[0.0; 6], |motion| tau(&moved_in_ground_axes(&q, motion)));
    let base_columns = |m: &[f64], stride: usize, offset: usize| -> Vec<f64> {
        (0..NV)
            .flat_map(|i| (0..6).map(move |j| (i, j)))
            .map(|(i, j)| m[i * stride + offset + j])
            .collect()
    };
    let error = relative_error(
        &base_columns(&ground_axes, 6, 0),
        &base_columns(&shipped, NV, 0),
    );
    assert!(
        error > 1e-2,
        "ground axes agree to {error:e}: the check cannot tell them apart"
    );
}

/// A free flyer's `q = (p, Q)` moved by `(Δp, Δθ)` in ground axes:
/// `p + Δp`, `exp(Δθ) ⊗ Q`.
fn moved_in_ground_axes(q: &[f64], motion: &[f64]) -> Vec<f64> {
    let mut moved = q.to_vec();
    for i in 0..3 {
        moved[i] += motion[i];
    }
    let angle = (motion[3] * motion[3] + motion[4] * motion[4] + motion[5] * motion[5]).sqrt();
    let (s, c) = (0.5 * angle).sin_cos();
    let k = if angle > 0.0 { s / angle } else { 0.5 };
    let turn = [k * motion[3], k * motion[4], k * motion[5], c];
    let quaternion = [q[3], q[4], q[5], q[6]];
    let product = hamilton(turn, quaternion);
    moved[3..7].copy_from_slice(&product);
    moved
}

/// Hamilton's product of quaternions stored `(x, y, z, w)`.
fn hamilton(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

mod runtime {
    //! `ModelSystem`'s Jacobian from the emitted derivatives, and Radau IIA
    //! with it.

    use sharnir_runtime::{model, Model, ModelSystem, OdeSystem};
    use sharnir_tests::implicit::radau_against_numeric;
    use sharnir_tests::oracle::relative_error;

    model!(Chain = sharnir_generated::chain10);
    model!(Pendulum = sharnir_generated::damped_pendulum);
    model!(Stop = sharnir_generated::pendulum_stop);
    model!(Floating = sharnir_generated::floating_chain);

    /// `∂f/∂y` of `system` at `(t, y)` by central differences of its
    /// right-hand side.
    fn numeric_jacobian<S: OdeSystem>(system: &mut S, t: f64, y: &[f64]) -> Vec<f64> {
        let n = y.len();
        let mut jacobian = vec![0.0; n * n];
        let (mut ahead, mut behind) = (vec![0.0; n], vec![0.0; n]);
        for j in 0..n {
            let h = 1e-6 * y[j].abs().max(1.0);
            let mut moved = y.to_vec();
            moved[j] = y[j] + h;
            system.rhs(t, &moved, &mut ahead).expect("evaluates");
            moved[j] = y[j] - h;
            system.rhs(t, &moved, &mut behind).expect("evaluates");
            for i in 0..n {
                jacobian[i * n + j] = (ahead[i] - behind[i]) / (2.0 * h);
            }
        }
        jacobian
    }

    /// The system's own Jacobian at a few states against central
    /// differences, to `tolerance` of its largest entry.
    fn jacobian_is_the_numeric_one<S: OdeSystem>(
        name: &str,
        system: &mut S,
        states: &[Vec<f64>],
        tolerance: f64,
    ) {
        for (k, y) in states.iter().enumerate() {
            let n = y.len();
            let mut analytic = vec![0.0; n * n];
            let t = 0.3 * k as f64;
            assert!(
                system.jacobian(t, y, &mut analytic).expect("evaluates"),
                "{name}: no analytic Jacobian"
            );
            let numeric = numeric_jacobian(system, t, y);
            let error = relative_error(&analytic, &numeric);
            assert!(error < tolerance, "{name}, state {k}: off by {error:e}");
        }
    }

    /// Deterministic states of `n` coordinates: angles in ±1.5, rates in ±2.
    fn states(n: usize) -> Vec<Vec<f64>> {
        let mut x = 0.41_f64;
        (0..3)
            .map(|_| {
                (0..2 * n)
                    .map(|i| {
                        x = (x * 7.13 + 0.29).fract();
                        if i < n {
                            3.0 * x - 1.5
                        } else {
                            4.0 * x - 2.0
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_model_systems_jacobian_is_its_right_hand_sides() {
        jacobian_is_the_numeric_one(
            "chain10 (passive)",
            &mut ModelSystem::new(Chain::default()),
            &states(10),
            1e-6,
        );
        jacobian_is_the_numeric_one(
            "damped_pendulum ([forces], time-dependent)",
            &mut ModelSystem::new(Pendulum::default()),
            &states(1),
            1e-6,
        );
        jacobian_is_the_numeric_one(
            "pendulum_stop (a stop's law)",
            &mut ModelSystem::new(Stop::default()),
            &[vec![1.2, 0.5], vec![-0.3, 2.0]],
            // The stop's law is differentiated by forward differences, whose
            // error is √ε times its curvature: 1.6e-6 here.
            1e-5,
        );
        let control = |_t: f64, q: &[f64; 10], qd: &[f64; 10]| -> [f64; 10] {
            std::array::from_fn(|i| -3.0 * q[i] - 0.5 * qd[i] * qd[i])
        };
        jacobian_is_the_numeric_one(
            "chain10 with a controller",
            &mut ModelSystem::with_control(Chain::default(), control),
            &states(10),
            1e-6,
        );
    }

    /// A floating chain (a free joint's position and quaternion): the
    /// emitted Jacobian along every direction the state can move in — each
    /// velocity coordinate's, `(Q(q) e_j, 0)` and `(0, e_j)` — against
    /// central differences of the right-hand side along it, to 1e-6 of the
    /// largest entry; the quaternions' radial direction, which the
    /// integrator's projection removes, is not one of them.
    #[test]
    fn a_model_with_quaternions_has_its_jacobian_along_the_manifold() {
        use sharnir_generated::floating_chain::{NQ, NV};
        let model = Floating::default();
        let (nq, nv) = (NQ, NV);
        let n = nq + nv;
        let mut system = ModelSystem::new(model);
        for (k, state) in states(nv).iter().enumerate() {
            let delta: [f64; NV] = std::array::from_fn(|i| 0.4 * state[i]);
            let q = sharnir_runtime::integrate(&model, &model.initial_positions(), &delta);
            let v: [f64; NV] = std::array::from_fn(|i| state[nv + i]);
            let mut y = q.to_vec();
            y.extend(v);
            let mut analytic = vec![0.0; n * n];
            assert!(system.jacobian(0.0, &y, &mut analytic).expect("evaluates"));
            let mut directions: Vec<Vec<f64>> = Vec::new();
            for j in 0..nv {
                let mut unit = [0.0; NV];
                unit[j] = 1.0;
                let mut d = model.coordinate_rates(&q, &unit).to_vec();
                d.extend([0.0; NV]);
                directions.push(d);
            }
            for j in 0..nv {
                let mut d = vec![0.0; n];
                d[nq + j] = 1.0;
                directions.push(d);
            }
            let (mut along, mut numeric) = (Vec::new(), Vec::new());
            let (mut ahead, mut behind) = (vec![0.0; n], vec![0.0; n]);
            for d in &directions {
                for i in 0..n {
                    along.push((0..n).map(|j| analytic[i * n + j] * d[j]).sum::<f64>());
                }
                let h = 1e-6;
                let moved: Vec<f64> = y.iter().zip(d).map(|(a, b)| a + h * b).collect();
                system.rhs(0.0, &moved, &mut ahead).expect("evaluates");
                let moved: Vec<f64> = y.iter().zip(d).map(|(a, b)| a - h * b).collect();
                system.rhs(0.0, &moved, &mut behind).expect("evaluates");
                numeric.extend(ahead.iter().zip(&behind).map(|(a, b)| (a - b) / (2.0 * h)));
            }
            let error = relative_error(&along, &numeric);
            assert!(error < 1e-6, "state {k}: off by {error:e}");
        }
    }

    /// The ten-rod chain over one second from 0.1 rad (a regular motion:
    /// from 0.8 rad it is chaotic, and no two integrations agree after two
    /// seconds), and the floating chain tumbling (a free joint's quaternion
    /// in the state).
    #[test]
    fn radau_takes_the_emitted_jacobian() {
        let model = Chain::default();
        let mut y = model.initial_positions().to_vec();
        y.extend(model.initial_velocities());
        y[0] = 0.1;
        radau_against_numeric("chain10", || ModelSystem::new(model), &y, 1.0, 10);
        let model = Floating::default();
        let mut y = model.initial_positions().to_vec();
        let spin = [0.3, -0.2, 0.5, 1.0, -0.7, 0.4, 0.6, -0.5, 0.8, 0.2, -0.3];
        y.extend(spin.iter().take(model.initial_velocities().len()));
        radau_against_numeric("floating_chain", || ModelSystem::new(model), &y, 1.0, 10);
    }
}

/// A loop module's `constrained_forward_dynamics_derivatives` at its
/// assembled initial configuration, with velocities on the constraints
/// (`dependent_velocities` of the independent ones), against central
/// differences of its own `constrained_forward_dynamics`, `q` moved along
/// the manifold by the oracle's `integrate`: the accelerations' and the
/// multipliers' derivatives to 1e-6 of each matrix's largest entry.
macro_rules! constrained_derivatives_are_central_differences {
    ($test:ident, $module:ident) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as generated;
            const NQ: usize = generated::NQ;
            const NV: usize = generated::NV;
            let oracle = Oracle::for_spec(stringify!($module));
            let p = generated::Params::default();
            let q = generated::INITIAL_POSITIONS;
            let independent: [f64; generated::N_INDEPENDENT] =
                std::array::from_fn(|i| 0.7 - 0.4 * i as f64);
            let qd = generated::dependent_velocities(&p, &q, &independent).expect("assembled");
            let tau: [f64; NV] = std::array::from_fn(|i| 0.3 * (i as f64) - 0.5);
            let solve = |q: &[f64], qd: &[f64], tau: &[f64]| -> Vec<f64> {
                let q: [f64; NQ] = q.try_into().expect("NQ");
                let qd: [f64; NV] = qd.try_into().expect("NV");
                let tau: [f64; NV] = tau.try_into().expect("NV");
                let (qdd, lambda) =
                    generated::constrained_forward_dynamics(&p, &q, &qd, &tau).expect("solves");
                qdd.iter().chain(&lambda).copied().collect()
            };
            let by_q = by_position(&oracle, &q, |q| solve(q, &qd, &tau));
            let by_v = by_vector(&qd, |qd| solve(&q, qd, &tau));
            let got = generated::constrained_forward_dynamics_derivatives(&p, &q, &qd, &tau)
                .expect("solves");
            let rows =
                |m: &[f64], from: usize, to: usize| -> Vec<f64> { m[from * NV..to * NV].to_vec() };
            let nc = generated::NC;
            for (what, emitted, differences) in [
                (
                    "∂q̈/∂q",
                    got.accelerations_by_position.concat(),
                    rows(&by_q, 0, NV),
                ),
                (
                    "∂q̈/∂q̇",
                    got.accelerations_by_velocity.concat(),
                    rows(&by_v, 0, NV),
                ),
                (
                    "∂λ/∂q",
                    got.multipliers_by_position.concat(),
                    rows(&by_q, NV, NV + nc),
                ),
                (
                    "∂λ/∂q̇",
                    got.multipliers_by_velocity.concat(),
                    rows(&by_v, NV, NV + nc),
                ),
            ] {
                let error = relative_error(&emitted, &differences);
                assert!(
                    error < 1e-6,
                    "{}: {what} differs from central differences by {error:e}",
                    stringify!($module)
                );
            }
        }
    };
}

constrained_derivatives_are_central_differences!(four_bar_constrained_derivatives, four_bar);
constrained_derivatives_are_central_differences!(
    crank_slider_constrained_derivatives,
    crank_slider
);
constrained_derivatives_are_central_differences!(delta_constrained_derivatives, delta);
constrained_derivatives_are_central_differences!(rssr_constrained_derivatives, rssr);
constrained_derivatives_are_central_differences!(
    watt_six_bar_constrained_derivatives,
    watt_six_bar
);

/// The parallelogram's third rocker repeats a constraint only on the
/// constraint manifold: off it the constrained dynamics have no solution,
/// so its derivatives are checked along the manifold, in the direction `u`
/// of a motion (`J u = 0`): `∂q̈/∂q · u` against central differences of the
/// accelerations from `q ⊕ ±h u`.
#[test]
fn parallelogram_constrained_derivatives_along_the_manifold() {
    use sharnir_generated::parallelogram as generated;
    const NQ: usize = generated::NQ;
    const NV: usize = generated::NV;
    let oracle = Oracle::for_spec("parallelogram");
    let p = generated::Params::default();
    let q = generated::INITIAL_POSITIONS;
    let qd = generated::dependent_velocities(&p, &q, &[0.8]).expect("assembled");
    let u = generated::dependent_velocities(&p, &q, &[1.0]).expect("assembled");
    let tau: [f64; NV] = [0.4, 0.0, 0.0, 0.0];
    let accelerations = |q: &[f64]| -> Vec<f64> {
        let q: [f64; NQ] = q.try_into().expect("NQ");
        let (qdd, _) = generated::constrained_forward_dynamics(&p, &q, &qd, &tau).expect("solves");
        qdd.to_vec()
    };
    let h = sharnir_tests::derivatives::STEP;
    let ahead = accelerations(&oracle.integrate(&q, &u, h));
    let behind = accelerations(&oracle.integrate(&q, &u, -h));
    let differences: Vec<f64> = ahead
        .iter()
        .zip(&behind)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    let got =
        generated::constrained_forward_dynamics_derivatives(&p, &q, &qd, &tau).expect("solves");
    let along: Vec<f64> = got
        .accelerations_by_position
        .iter()
        .map(|row| row.iter().zip(&u).map(|(d, u)| d * u).sum())
        .collect();
    let error = relative_error(&along, &differences);
    assert!(
        error < 1e-6,
        "∂q̈/∂q · u differs from central differences by {error:e}"
    );
    assert!(
        differences.iter().any(|x| x.abs() > 1e-3),
        "the direction changes nothing"
    );
}
