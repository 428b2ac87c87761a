//! Every module `cargo xtask gen --all` writes, checked as it ships: for
//! every bundled spec, every variant of its detachable joints and both
//! parameter modes, the plan's own programs (those the module is printed
//! from) are evaluated and compared with the numeric oracle at random
//! states, the derivative functions with the oracle's central differences
//! along the configuration manifold. A new spec is covered without editing
//! any list.

use sharnir_codegen::{plan, Plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::base_parameters;
use sharnir_tests::derivatives::Derivatives;
use sharnir_tests::oracle::{bundled_specs, load_spec, relative_error, Oracle, States};
use std::collections::BTreeMap;

/// Agreement of every checked output with the oracle, relative to the
/// largest entry (or 1): both sides are double precision, and forward
/// dynamics goes through a factorisation of matrices whose condition
/// reaches 1e4 for the bundled mechanisms.
const TOLERANCE: f64 = 1e-8;

/// Agreement of the derivative functions with central differences of the
/// oracle, relative to each matrix's largest entry (or 1): the differences'
/// own error is about 1e-10 ([`sharnir_tests::derivatives::STEP`]), a
/// derivative in the wrong convention (a floating base perturbed in ground
/// axes) or with a term missing is off by the order of the entries.
const DERIVATIVE_TOLERANCE: f64 = 1e-6;

/// Random states per module.
const STATES: usize = 3;

/// Room for the largest bundled mechanism's coordinates.
const MAX_COORDINATES: usize = 64;

/// One state's inputs, read by the plan's programs.
struct Inputs<'a> {
    parameters: &'a BTreeMap<String, f64>,
    q: &'a [f64],
    qd: &'a [f64],
    qdd: &'a [f64],
    tau: &'a [f64],
}

impl Inputs<'_> {
    fn get(&self, input: &Input) -> Option<f64> {
        match input {
            Input::Parameter(name) => self.parameters.get(name).copied(),
            Input::Position(i) => self.q.get(*i).copied(),
            Input::Velocity(i) => self.qd.get(*i).copied(),
            Input::Acceleration(i) => self.qdd.get(*i).copied(),
            Input::Force(i) => self.tau.get(*i).copied(),
            _ => None,
        }
    }
}

fn evaluate(plan: &Plan, function: &str, inputs: &Inputs<'_>) -> Vec<f64> {
    plan.evaluate(function, &|input| inputs.get(input))
        .unwrap_or_else(|| panic!("{}: `{function}` cannot be evaluated", plan.name))
}

/// Checks one planned module against the oracle of its spec.
fn check(plan: &Plan, oracle: &Oracle, parameters: &BTreeMap<String, f64>, seed: u64) {
    let nv = oracle.dof();
    let nq = oracle.sampling.len();
    let mut states = States::seeded(seed);
    for _ in 0..STATES {
        let (q, qd, qdd) = states.next::<MAX_COORDINATES, MAX_COORDINATES>(&oracle.sampling);
        let (q, qd, qdd) = (&q[..nq], &qd[..nv], &qdd[..nv]);
        let tau = oracle.inverse_dynamics(q, qd, qdd);
        let inputs = Inputs {
            parameters,
            q,
            qd,
            qdd,
            tau: &tau,
        };
        let bias = oracle.bias(q, qd);
        let zero = vec![0.0; nv];
        let gravity = oracle.bias(q, &zero);
        let mass: Vec<f64> = oracle.mass_matrix(q).concat();
        let (kinetic, potential) = oracle.energy(q, qd);
        let names: Vec<&str> = plan.body_names().iter().map(String::as_str).collect();
        let poses: Vec<f64> = oracle
            .body_poses_named(q, &names)
            .iter()
            .flat_map(|(rotation, origin)| rotation.concat().into_iter().chain(*origin))
            .collect();
        let expected: [(&str, Vec<f64>); 9] = [
            ("inverse_dynamics", tau.clone()),
            ("mass_matrix", mass.clone()),
            ("bias", bias.clone()),
            ("gravity", gravity.clone()),
            ("joint_space", [mass.clone(), bias, gravity].concat()),
            ("forward_dynamics", qdd.to_vec()),
            ("energy", vec![kinetic, potential]),
            ("coordinate_rates", oracle.coordinate_rates(q, qd)),
            ("body_poses", poses),
        ];
        for (function, want) in expected {
            let got = evaluate(plan, function, &inputs);
            let error = relative_error(&got, &want);
            assert!(
                error < TOLERANCE,
                "{}: `{function}` differs from the oracle by {error:e} at q = {q:?}, q̇ = {qd:?}",
                plan.name
            );
        }
        check_derivatives(plan, oracle, &inputs, &mass);
        check_regressor(plan, oracle, &inputs);
    }
}

/// `Y π = τ`: the planned `standard_regressor` times the oracle's bodies'
/// parameters (mass, first moment, inertia about the body origin) and the
/// spec's drive parameters is the oracle's inverse dynamics less the
/// spec's friction forces, to [`TOLERANCE`]; and the base parameters'
/// identities ([`base_parameters::check`]).
fn check_regressor(plan: &Plan, oracle: &Oracle, inputs: &Inputs<'_>) {
    let regressor = evaluate(plan, "standard_regressor", inputs);
    let names: Vec<&str> = plan.body_names().iter().map(String::as_str).collect();
    let mut parameters = oracle.standard_parameters(&names);
    parameters.extend(oracle.drives.parameters(plan.drive_parameters()));
    let width = parameters.len();
    let tau: Vec<f64> = regressor
        .chunks(width.max(1))
        .map(|row| row.iter().zip(&parameters).map(|(y, p)| y * p).sum())
        .collect();
    let friction = oracle.drives.friction_forces(inputs.qd);
    let motor: Vec<f64> = inputs
        .tau
        .iter()
        .zip(&friction)
        .map(|(t, f)| t - f)
        .collect();
    let error = relative_error(&tau, &motor);
    assert!(
        error < TOLERANCE,
        "{}: Y π differs from τ by {error:e}",
        plan.name
    );
    if let Err(problem) = base_parameters::check(plan, &|i| inputs.get(i), &parameters, 7) {
        panic!("{}: base parameters: {problem}", plan.name);
    }
}

/// The derivative functions at one state against the oracle's central
/// differences, and `M⁻¹` against the oracle's mass matrix (`M⁻¹ M = I`).
fn check_derivatives(plan: &Plan, oracle: &Oracle, inputs: &Inputs<'_>, mass: &[f64]) {
    let nv = oracle.dof();
    let differences = Derivatives::at(oracle, inputs.q, inputs.qd, inputs.qdd, inputs.tau);
    let expected: [(&str, Vec<f64>); 3] = [
        (
            "inverse_dynamics_derivatives",
            [
                differences.inverse_by_position,
                differences.inverse_by_velocity,
            ]
            .concat(),
        ),
        ("gravity_derivatives", differences.gravity_by_position),
        (
            "forward_dynamics_derivatives",
            [
                differences.forward_by_position,
                differences.forward_by_velocity,
                differences.forward_by_force,
            ]
            .concat(),
        ),
    ];
    for (function, want) in expected {
        let got = evaluate(plan, function, inputs);
        for (k, (got, want)) in got.chunks(nv * nv).zip(want.chunks(nv * nv)).enumerate() {
            let error = relative_error(got, want);
            assert!(
                error < DERIVATIVE_TOLERANCE,
                "{}: matrix {k} of `{function}` differs from central differences by {error:e} \
                 at q = {:?}, q̇ = {:?}",
                plan.name,
                inputs.q,
                inputs.qd
            );
        }
    }
    let inverse = evaluate(plan, "mass_matrix_inverse", inputs);
    let identity: Vec<f64> = (0..nv * nv)
        .map(|k| if k / nv == k % nv { 1.0 } else { 0.0 })
        .collect();
    let product: Vec<f64> = (0..nv * nv)
        .map(|k| {
            (0..nv)
                .map(|l| inverse[k / nv * nv + l] * mass[l * nv + k % nv])
                .sum()
        })
        .collect();
    let error = relative_error(&product, &identity);
    assert!(
        error < 1e-10,
        "{}: M⁻¹ M differs from I by {error:e}",
        plan.name
    );
}

#[test]
fn every_shipped_module_agrees_with_the_oracle() {
    let mut checked = 0;
    for (k, stem) in bundled_specs().iter().enumerate() {
        let specs = sharnir_mech::geometry::release::with_variants(load_spec(stem))
            .expect("bundled variants are valid");
        for spec in &specs {
            let oracle = Oracle::for_parsed_spec(spec);
            let parameters = spec.parameter_values();
            for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
                let mut mechanism =
                    Mechanism::from_spec(spec, mode).expect("bundled spec is valid");
                let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
                check(&plan, &oracle, &parameters, k as u64);
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "only {checked} modules checked");
}
