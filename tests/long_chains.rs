//! A chain long enough for the automatic rule of `sharnir gen`: its plan
//! has only the linear outputs (no mass matrix, `joint_space`, Coriolis
//! matrix or body Jacobians), and those are checked, as the module would
//! compute them (`Plan::evaluate`), against the numeric oracle. Asked for
//! its mass matrix, it takes the CRBA's without deriving the other
//! formalisms' for comparison.

use sharnir_codegen::plan::outputs::{Function, Outputs, AUTOMATIC_LIMIT};
use sharnir_codegen::plan::provenance::{Formalism, Provenance};
use sharnir_codegen::{plan, PlanOptions};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::chains::chain;
use sharnir_tests::inputs::environment;
use sharnir_tests::oracle::{relative_error, Oracle, States};

/// Links: one more than the automatic rule allows every output for.
const LINKS: usize = AUTOMATIC_LIMIT + 1;

/// Room for the chain's coordinates in the oracle's sampler.
const MAX_COORDINATES: usize = 64;

/// Agreement with the oracle, relative to the largest entry (or 1), as in
/// `shipped_programs.rs`.
const TOLERANCE: f64 = 1e-8;

#[test]
fn a_long_chain_plans_only_its_linear_outputs_and_they_agree_with_the_oracle() {
    let (spec, mut mechanism) = chain(LINKS);
    let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    assert_eq!(plan.outputs, Outputs::linear());
    assert_eq!(
        plan.skipped_automatically(),
        Some(vec![
            "mass_matrix",
            "joint_space",
            "coriolis_matrix",
            "body_jacobians",
            "inverse_dynamics_derivatives",
            "gravity_derivatives",
            "mass_matrix_inverse",
            "forward_dynamics_derivatives",
            "standard_regressor",
            "base_parameters",
            "regressor",
            "base_inverse_dynamics"
        ])
    );
    for function in Function::ALL {
        assert_eq!(
            plan.function(function.name()).is_some(),
            !function.is_superlinear(),
            "{}",
            function.name()
        );
    }

    let oracle = Oracle::for_parsed_spec(&spec);
    let parameters = spec.parameter_values();
    let names: Vec<&str> = plan.body_names().iter().map(String::as_str).collect();
    let mut states = States::seeded(15);
    for _ in 0..2 {
        let (q, qd, qdd) = states.next::<MAX_COORDINATES, MAX_COORDINATES>(&oracle.sampling);
        let (q, qd, qdd) = (&q[..LINKS], &qd[..LINKS], &qdd[..LINKS]);
        let tau = oracle.inverse_dynamics(q, qd, qdd);
        let input = environment(&parameters, q, qd, qdd, &tau);
        let (kinetic, potential) = oracle.energy(q, qd);
        let poses: Vec<f64> = oracle
            .body_poses_named(q, &names)
            .iter()
            .flat_map(|(rotation, origin)| rotation.concat().into_iter().chain(*origin))
            .collect();
        let expected = [
            ("inverse_dynamics", tau.clone()),
            ("bias", oracle.bias(q, qd)),
            ("gravity", oracle.bias(q, &[0.0; LINKS])),
            ("forward_dynamics", qdd.to_vec()),
            ("energy", vec![kinetic, potential]),
            ("coordinate_rates", oracle.coordinate_rates(q, qd)),
            ("body_poses", poses),
        ];
        for (function, want) in expected {
            let got = plan
                .evaluate(function, &input)
                .unwrap_or_else(|| panic!("`{function}` cannot be evaluated"));
            let error = relative_error(&got, &want);
            assert!(error < TOLERANCE, "`{function}` differs by {error:e}");
        }
    }
}

#[test]
fn a_long_chain_asked_for_its_mass_matrix_takes_the_crba_alone_and_it_agrees_with_the_oracle() {
    let (spec, mut mechanism) = chain(LINKS);
    let options = PlanOptions {
        outputs: Some(Outputs::parse_list("mass_matrix,joint_space").expect("valid names")),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).expect("plans");
    for name in ["mass_matrix", "joint_space"] {
        let function = plan.function(name).expect("asked for");
        let Provenance::Cheapest { chosen, candidates } = &function.provenance else {
            panic!("{name}: {:?}", function.provenance);
        };
        assert_eq!(*chosen, Formalism::CompositeRigidBody, "{name}");
        let compared: Vec<Formalism> = candidates.iter().map(|(f, _)| *f).collect();
        assert_eq!(
            compared,
            [Formalism::CompositeRigidBody],
            "{name}: nothing else derived"
        );
    }

    let oracle = Oracle::for_parsed_spec(&spec);
    let parameters = spec.parameter_values();
    let mut states = States::seeded(16);
    let (q, qd, _) = states.next::<MAX_COORDINATES, MAX_COORDINATES>(&oracle.sampling);
    let (q, qd) = (&q[..LINKS], &qd[..LINKS]);
    let input = |input: &Input| match input {
        Input::Parameter(name) => parameters.get(name).copied(),
        Input::Position(i) => q.get(*i).copied(),
        Input::Velocity(i) => qd.get(*i).copied(),
        _ => None,
    };
    let mass_matrix = oracle.mass_matrix(q).concat();
    let terms = [
        mass_matrix.clone(),
        oracle.bias(q, qd),
        oracle.bias(q, &[0.0; LINKS]),
    ]
    .concat();
    for (function, want) in [("mass_matrix", mass_matrix), ("joint_space", terms)] {
        let got = plan.evaluate(function, &input).expect("evaluates");
        let error = relative_error(&got, &want);
        assert!(error < TOLERANCE, "`{function}` differs by {error:e}");
    }
}

#[test]
fn asked_outputs_are_the_only_standard_functions_derived() {
    let (_, mut mechanism) = chain(4);
    let outputs = Outputs::parse_list("forward_dynamics,mass_matrix").expect("valid names");
    let options = PlanOptions {
        outputs: Some(outputs),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).expect("plans");
    let names: Vec<&str> = plan.functions.iter().map(|f| f.name.as_str()).collect();
    // The applied forces (zero without `[forces]`) and the joints' own
    // forces always come with a module: the runtime reads them.
    assert_eq!(
        names,
        [
            "mass_matrix",
            "forward_dynamics",
            "applied_forces",
            "contact_gaps",
            "limit_forces",
            "friction_forces"
        ]
    );
    assert_eq!(plan.skipped_automatically(), None);
}

/// The functions of `stem`'s plan when only `forward_dynamics` is asked for.
fn planned_with_forward_dynamics_only(stem: &str) -> Vec<String> {
    let spec = sharnir_tests::oracle::load_spec(stem);
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("valid");
    let options = PlanOptions {
        outputs: Some(Outputs::NONE.with(Function::ForwardDynamics)),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).expect("plans");
    plan.functions.into_iter().map(|f| f.name).collect()
}

#[test]
fn loops_and_releases_keep_the_outputs_the_runtime_reads() {
    // Constrained dynamics solve with `joint_space` and `inverse_dynamics`.
    let four_bar = planned_with_forward_dynamics_only("four_bar");
    for name in [
        "inverse_dynamics",
        "joint_space",
        "forward_dynamics",
        "constraints",
    ] {
        assert!(four_bar.iter().any(|f| f == name), "{name}: {four_bar:?}");
    }
    assert!(!four_bar.iter().any(|f| f == "coriolis_matrix"));
    // A release maps the state through the poses and Jacobians.
    let sling = planned_with_forward_dynamics_only("sling_release");
    for name in ["body_poses", "body_jacobians", "joint_reactions"] {
        assert!(sling.iter().any(|f| f == name), "{name}: {sling:?}");
    }
    assert!(!sling.iter().any(|f| f == "mass_matrix"));
}
