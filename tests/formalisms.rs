//! The joint-coordinate (Lagrange) formalism of Sukhov and Chekina (2024) against the other
//! derivations of the same equations, on every bundled spec (runtime
//! parameters, evaluated at the spec's values):
//!
//! - its `M` and bias against the ones read off Newton–Euler and against the
//!   numeric oracle (composite-rigid-body and Newton–Euler of
//!   `sharnir-numeric`), its gravity against Newton–Euler's;
//! - its inverse dynamics `M q̈ + bias` against the oracle;
//! - its `L D Lᵀ` forward dynamics against Vereshchagin's (on mechanisms
//!   without coupled joints, which the separate-bodies method refuses) and
//!   against the accelerations that produced the oracle's joint forces.
//!
//! Spherical and free joints (quasi-velocities, `NQ ≠ NV`) are covered by
//! `joint_zoo` and `floating_chain`; this is the numeric check of the `Ḃ v`
//! derivation along `coordinate_rates`.
//!
//! Tolerance: 1e-10 relative to `max(1, ‖expected‖∞)` on 20 seeded random
//! states per spec.

use sharnir_cas::Id;
use sharnir_codegen::plan::cost::{Cost, HOPELESS};
use sharnir_codegen::plan::provenance::{Formalism, Provenance};
use sharnir_codegen::{generate, generate_with, Method, PlanOptions};
use sharnir_mech::formalisms::joint_space::JointSpace;
use sharnir_mech::formalisms::rnea::PointAcceleration;
use sharnir_mech::formalisms::{joint_space, lagrange, rnea, vereshchagin};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::oracle::{bundled_specs, load_spec, relative_error, Oracle, States};
use std::collections::HashMap;

const TOLERANCE: f64 = 1e-10;
const STATES: usize = 20;
/// The state arrays are drawn this long and cut to each mechanism's size,
/// so that one loop covers specs of every size.
const MAX_COORDINATES: usize = 32;

/// Every output under comparison, as expressions in one pool.
struct Derivations {
    newton_euler: JointSpace,
    lagrange: JointSpace,
    lagrange_inverse: Vec<Id>,
    lagrange_forward: Vec<Id>,
    vereshchagin_forward: Vec<Id>,
}

impl Derivations {
    fn derive(mechanism: &mut Mechanism) -> Derivations {
        let tau = rnea::inverse_dynamics(mechanism, PointAcceleration::CrossProducts);
        let newton_euler = joint_space::joint_space(&mut mechanism.pool, &tau);
        let lagrange = lagrange::joint_space(mechanism);
        let lagrange_inverse = lagrange::inverse_dynamics(&mut mechanism.pool, &lagrange);
        let lagrange_forward = lagrange::forward_dynamics(&mut mechanism.pool, &lagrange);
        // The separate-bodies method refuses coupled joints; their forward
        // dynamics are checked against q̈ only (below).
        let vereshchagin_forward =
            vereshchagin::forward_dynamics(mechanism).unwrap_or_else(|_| lagrange_forward.clone());
        Derivations {
            newton_euler,
            lagrange,
            lagrange_inverse,
            lagrange_forward,
            vereshchagin_forward,
        }
    }

    /// The roots in one list, so that a state is evaluated in one walk.
    fn roots(&self) -> Vec<Id> {
        [
            self.newton_euler.mass_matrix.concat(),
            self.newton_euler.bias.clone(),
            self.newton_euler.gravity.clone(),
            self.lagrange.mass_matrix.concat(),
            self.lagrange.bias.clone(),
            self.lagrange.gravity.clone(),
            self.lagrange_inverse.clone(),
            self.lagrange_forward.clone(),
            self.vereshchagin_forward.clone(),
        ]
        .concat()
    }
}

/// The values of [`Derivations::roots`] cut back into their outputs.
struct Values {
    newton_euler_mass: Vec<f64>,
    newton_euler_bias: Vec<f64>,
    newton_euler_gravity: Vec<f64>,
    lagrange_mass: Vec<f64>,
    lagrange_bias: Vec<f64>,
    lagrange_gravity: Vec<f64>,
    lagrange_inverse: Vec<f64>,
    lagrange_forward: Vec<f64>,
    vereshchagin_forward: Vec<f64>,
}

impl Values {
    fn split(values: &[f64], n: usize) -> Values {
        let mut rest = values;
        let mut take = |len: usize| {
            let (head, tail) = rest.split_at(len);
            rest = tail;
            head.to_vec()
        };
        Values {
            newton_euler_mass: take(n * n),
            newton_euler_bias: take(n),
            newton_euler_gravity: take(n),
            lagrange_mass: take(n * n),
            lagrange_bias: take(n),
            lagrange_gravity: take(n),
            lagrange_inverse: take(n),
            lagrange_forward: take(n),
            vereshchagin_forward: take(n),
        }
    }
}

#[test]
fn lagrange_agrees_with_newton_euler_the_oracle_and_vereshchagin() {
    let stems = bundled_specs();
    assert!(
        stems.len() >= 9,
        "expected the bundled specs, found {stems:?}"
    );
    for stem in stems {
        let spec = load_spec(&stem);
        let parameters = spec.parameter_values();
        let oracle = Oracle::for_parsed_spec(&spec);
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("bundled spec is valid");
        let (nq, n) = (mechanism.nq(), mechanism.dof());
        assert!(
            nq <= MAX_COORDINATES && n <= MAX_COORDINATES,
            "{stem}: too large"
        );
        let derivations = Derivations::derive(&mut mechanism);
        let roots = derivations.roots();
        let mut states = States::seeded(0x1A_6A46 + n as u64);
        for _ in 0..STATES {
            let (q, qd, qdd) = oracle.sample::<MAX_COORDINATES, MAX_COORDINATES>(&mut states);
            let (q, qd, qdd) = (&q[..nq], &qd[..n], &qdd[..n]);
            let tau = oracle.inverse_dynamics(q, qd, qdd);
            let inputs = [
                (Input::Position as fn(usize) -> Input, q),
                (Input::Velocity, qd),
                (Input::Acceleration, qdd),
                (Input::Force, &tau),
            ];
            let bound: HashMap<Input, f64> = inputs
                .iter()
                .flat_map(|(input, x)| x.iter().enumerate().map(|(i, &x)| (input(i), x)))
                .chain(
                    parameters
                        .iter()
                        .map(|(name, &x)| (Input::Parameter(name.clone()), x)),
                )
                .collect();
            let env = |symbol: &Input| bound.get(symbol).copied();
            let values = mechanism
                .pool
                .eval(&roots, &env)
                .expect("every symbol bound");
            let v = Values::split(&values, n);
            let check = |what: &str, got: &[f64], expected: &[f64]| {
                let err = relative_error(got, expected);
                assert!(
                    err < TOLERANCE,
                    "{stem}: {what} off by {err:e} at q={q:?}, qd={qd:?}"
                );
            };
            let crba = oracle.mass_matrix(q).concat();
            check(
                "Lagrange M vs Newton–Euler",
                &v.lagrange_mass,
                &v.newton_euler_mass,
            );
            check("Lagrange M vs CRBA", &v.lagrange_mass, &crba);
            for i in 0..n {
                for j in 0..i {
                    assert_eq!(
                        v.lagrange_mass[i * n + j],
                        v.lagrange_mass[j * n + i],
                        "{stem}: Lagrange M not symmetric at ({i},{j})"
                    );
                }
            }
            let bias = oracle.bias(q, qd);
            check(
                "Lagrange bias vs Newton–Euler",
                &v.lagrange_bias,
                &v.newton_euler_bias,
            );
            check("Lagrange bias vs oracle", &v.lagrange_bias, &bias);
            check(
                "Lagrange gravity vs Newton–Euler",
                &v.lagrange_gravity,
                &v.newton_euler_gravity,
            );
            check("Lagrange M q̈ + bias vs oracle τ", &v.lagrange_inverse, &tau);
            if !mechanism.has_couplings() {
                check(
                    "L D Lᵀ forward dynamics vs Vereshchagin",
                    &v.lagrange_forward,
                    &v.vereshchagin_forward,
                );
            }
            check("L D Lᵀ forward dynamics vs q̈", &v.lagrange_forward, qdd);
        }
    }
}

/// The method changes the dynamics functions and says so in the header;
/// the default takes, output by output, the cheapest formalism. Folded
/// modules, so that the counts compared are exactly the ones the choice was
/// made on (no parameter groups hoisted afterwards).
#[test]
fn method_choice_reaches_the_module() {
    let spec = load_spec("telegin6");
    let module = |method: Option<Method>| {
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec is valid");
        match method {
            Some(method) => generate_with(&mut mechanism, method),
            None => generate(&mut mechanism),
        }
        .expect("bundled spec emits")
    };
    let default = module(None);
    let ops = |m: &sharnir_codegen::GeneratedModule, name: &str| {
        m.op_counts
            .iter()
            .find(|(function, _)| function == name)
            .map(|(_, ops)| *ops)
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let cost = |o: sharnir_cas::OpCount| o.weight();
    assert!(default.source.contains("formalism whose code is cheapest"));
    let newton_euler = module(Some(Method::NewtonEuler));
    let vereshchagin = module(Some(Method::Vereshchagin));
    assert!(vereshchagin.source.contains("Method `vereshchagin`"));
    assert_eq!(vereshchagin.op_counts, newton_euler.op_counts);
    let lagrange = module(Some(Method::Lagrange));
    assert!(lagrange.source.contains("Method `lagrange`"));
    assert!(lagrange.source.contains("L D Lᵀ factorisation"));
    for name in ["mass_matrix", "bias", "forward_dynamics"] {
        assert_ne!(ops(&lagrange, name), ops(&newton_euler, name), "{name}");
    }
    let telegin = module(Some(Method::Telegin));
    assert!(telegin.source.contains("Method `telegin`"));
    // The plan records every candidate's cost by the one cost model; the
    // choice is the cheapest of them, and the emitted function costs no more
    // than that (angle sums are contracted only where they lower it).
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec is valid");
    let plan = sharnir_codegen::plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    for name in [
        "inverse_dynamics",
        "mass_matrix",
        "bias",
        "gravity",
        "joint_space",
        "forward_dynamics",
    ] {
        let function = plan.function(name).expect("planned");
        let Provenance::Cheapest { chosen, candidates } = &function.provenance else {
            panic!("{name}: {:?} is no choice", function.provenance);
        };
        let formalisms: Vec<Formalism> = candidates.iter().map(|(f, _)| *f).collect();
        // `joint_space` is offered the CRBA's mass matrix against the one
        // `mass_matrix` chose from the methods.
        let methods = if name == "joint_space" {
            Vec::new()
        } else {
            vec![Method::NewtonEuler, Method::Lagrange, Method::Telegin]
        };
        for method in methods {
            let expected = match (name, method) {
                ("forward_dynamics", Method::NewtonEuler | Method::Telegin) => {
                    Formalism::Method(Method::Vereshchagin)
                }
                _ => Formalism::Method(method),
            };
            assert!(formalisms.contains(&expected), "{name}: {formalisms:?}");
        }
        let mass = matches!(name, "mass_matrix" | "joint_space");
        assert_eq!(
            formalisms.contains(&Formalism::CompositeRigidBody),
            mass,
            "{name}: {formalisms:?}"
        );
        // The choice is the cheapest lowered candidate; one not lowered was
        // hopeless against it (see `cost::HOPELESS`).
        let lowered = |c: &Cost| match c {
            Cost::Lowered(w) => Some(*w),
            Cost::Hopeless(_) => None,
        };
        let cheapest = candidates
            .iter()
            .filter_map(|(_, c)| lowered(c))
            .min()
            .expect("candidates");
        let chosen_cost = candidates
            .iter()
            .filter(|(f, _)| f == chosen)
            .filter_map(|(_, c)| lowered(c))
            .min()
            .expect("the chosen one is lowered");
        assert_eq!(chosen_cost, cheapest, "{name}: {chosen:?} {candidates:?}");
        for (formalism, cost) in candidates {
            if let Cost::Hopeless(naive) = cost {
                assert!(
                    *naive > HOPELESS * chosen_cost,
                    "{name}: {formalism:?} {naive}"
                );
            }
        }
        assert!(
            cost(ops(&default, name)) <= chosen_cost,
            "{name}: the module costs more than its choice"
        );
    }
    // The CRBA's mass matrix is cheaper here (47 against Newton–Euler's 53
    // weighted operations), and the header says so.
    let mass = plan.function("mass_matrix").expect("planned");
    assert_eq!(
        mass.provenance.formalism(),
        Some(Formalism::CompositeRigidBody)
    );
    assert!(default
        .source
        .contains("`mass_matrix`: the composite-rigid-body algorithm"));
    // Telegin's 6-DOF arm has its inverse dynamics cheapest by Telegin's
    // formalism (131 against Newton–Euler's 142 weighted operations, with base
    // parameters), its gravity by Newton–Euler and its forward dynamics by
    // Vereshchagin's method: the default mixes formalisms.
    assert!(default
        .source
        .contains("`inverse_dynamics`: Telegin's direction-cosine formalism"));
    assert!(default.source.contains("`gravity`: recursive Newton–Euler"));
    assert!(default
        .source
        .contains("`forward_dynamics`: Vereshchagin's separate-bodies method"));
    assert_eq!(
        ops(&lagrange, "coriolis_matrix"),
        ops(&default, "coriolis_matrix")
    );
    assert!(ops(&lagrange, "forward_dynamics").div > 0);
}
