//! The base parameters of every bundled spec against what they must be: as
//! many as the rank of the standard regressor sampled at random states (a
//! singular value decomposition by `faer`, apart from the pivoted selection
//! the compiler makes), and the counts published for the PUMA 560.
//!
//! `Y_b β = τ` and the regrouping formulas are checked on every shipped
//! module by `shipped_programs.rs` and on random mechanisms by
//! `random_mechanisms.rs`; here too on the arms with a drive (armature,
//! damping, dry friction) on every joint, where `τ` is the force the drives
//! supply, `inverse_dynamics − friction_forces`.

use faer::Mat;
use sharnir_codegen::{base_parameter_facts, BaseParameterFacts};
use sharnir_codegen::{plan, PlanOptions};
use sharnir_mech::formalisms::regressor::standard_regressor;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_spec::{Expr, Spec};
use sharnir_tests::base_parameters;
use sharnir_tests::inputs::environment;
use sharnir_tests::oracle::{bundled_specs, load_spec, relative_error, Oracle, States};

/// A singular value of the sampled standard regressor (columns scaled to
/// unit norm, zero columns left out) counts towards the rank when above
/// this fraction of the largest: rounding leaves dependent directions near
/// 1e-15, and the independent ones of the bundled robots stay above 1e-6.
const RANK_TOLERANCE: f64 = 1e-9;

/// Room for the largest bundled mechanism's coordinates.
const MAX_COORDINATES: usize = 64;

/// The numeric rank of the standard regressor of `stem`'s runtime module,
/// sampled at random states (three rows per column), and its base
/// parameters.
fn rank_and_base(stem: &str) -> (usize, BaseParameterFacts) {
    rank_and_base_of(&load_spec(stem))
}

/// [`rank_and_base`] of a parsed spec.
fn rank_and_base_of(spec: &Spec) -> (usize, BaseParameterFacts) {
    let oracle = Oracle::for_parsed_spec(spec);
    let values = spec.parameter_values();
    let mut mechanism =
        Mechanism::from_spec(spec, ParameterMode::Runtime).expect("bundled spec is valid");
    let facts = base_parameter_facts(&mut mechanism).expect("base parameters derive");
    let regressor = standard_regressor(&mut mechanism).concat();
    let nv = oracle.dof();
    let nq = oracle.sampling.len();
    let width = regressor.len() / nv.max(1);
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut states = States::seeded(11);
    while rows.len() < 3 * width {
        let (q, qd, qdd) = states.next::<MAX_COORDINATES, MAX_COORDINATES>(&oracle.sampling);
        let env = |symbol: &Input| match symbol {
            Input::Parameter(name) => values.get(name).copied(),
            Input::Position(i) => q[..nq].get(*i).copied(),
            Input::Velocity(i) => qd[..nv].get(*i).copied(),
            Input::Acceleration(i) => qdd[..nv].get(*i).copied(),
            _ => None,
        };
        let entries = mechanism.pool.eval(&regressor, &env).expect("Y evaluates");
        rows.extend(entries.chunks(width).map(<[f64]>::to_vec));
    }
    let norms: Vec<f64> = (0..width)
        .map(|j| rows.iter().map(|r| r[j] * r[j]).sum::<f64>().sqrt())
        .collect();
    let largest = norms.iter().copied().fold(0.0, f64::max);
    let kept: Vec<usize> = (0..width).filter(|&j| norms[j] > 1e-12 * largest).collect();
    let matrix = Mat::<f64>::from_fn(rows.len(), kept.len(), |i, k| {
        rows[i][kept[k]] / norms[kept[k]]
    });
    let singular = matrix.singular_values().expect("the SVD converges");
    let top = singular.first().copied().unwrap_or(0.0);
    let rank = singular
        .iter()
        .filter(|&&s| s > RANK_TOLERANCE * top)
        .count();
    (rank, facts)
}

#[test]
fn base_parameters_are_as_many_as_the_rank_of_the_standard_regressor() {
    let mut counts = Vec::new();
    for stem in bundled_specs() {
        let (rank, facts) = rank_and_base(&stem);
        let nbp = facts.names.len();
        // The compiler's own rank (of `Y_b ∂β/∂π`, by its QR) is the
        // standard regressor's (by the SVD), and every bundled mechanism is
        // minimal: nothing kept inexactly, no two base parameters one
        // combination of the standard ones (the delta's and the joint
        // zoo's skewed axes, the gripper's rotated fingers).
        assert_eq!(
            facts.rank, rank,
            "{stem}: the compiler's rank {}, the SVD's {rank}",
            facts.rank
        );
        assert_eq!(nbp, rank, "{stem}: {nbp} base parameters, rank {rank}");
        assert!(facts.inexact.is_empty(), "{stem}: {:?}", facts.inexact);
        counts.push((stem, nbp));
    }
    for (robot, expected) in [("delta", 45), ("joint_zoo", 57), ("panda_gripper", 63)] {
        let nbp = counts
            .iter()
            .find(|(stem, _)| stem == robot)
            .map(|&(_, nbp)| nbp);
        assert_eq!(nbp, Some(expected), "{robot}");
    }
}

/// Khalil and Dombre's count for the PUMA 560 in the standard DH model,
/// gravity along z₀ (the first axis), without motor inertias: 36, the
/// numeric rank too (above); the same in the runtime module, where the
/// lengths are parameters.
#[test]
fn puma560_has_khalils_36_base_parameters() {
    for stem in ["puma560", "puma560_symbolic"] {
        let (rank, facts) = rank_and_base(stem);
        assert_eq!((facts.names.len(), rank), (36, 36), "{stem}");
    }
}

/// The arms with a drive on every joint (`Spec::with_every_drive`, then
/// armature, damping and friction set to values that differ joint by
/// joint): the base parameters are as many as the standard regressor's
/// rank, the first joint's armature (its axis fixed in the ground) is
/// folded into the first link's `zz_r`, and at random states
/// `Y π = inverse_dynamics − friction_forces` with the oracle's bodies and
/// the spec's drives (to 1e-10) and the base parameters' identities hold
/// (`base_parameters::check`, to 1e-12).
#[test]
fn arms_with_a_drive_on_every_joint() {
    let mut counts = Vec::new();
    for stem in ["puma560", "ur5", "panda"] {
        let mut spec = load_spec(stem).with_every_drive();
        for (k, joint) in spec.joints.iter_mut().enumerate() {
            let value = |x: f64| Expr::number(x, joint.span);
            if !joint.armature.is_empty() {
                let scale = 1.0 + k as f64 / 10.0;
                joint.armature = vec![value(0.2 * scale)];
                joint.damping = Some(value(0.5 * scale));
                joint.friction = Some(value(0.8 * scale));
                joint.friction_speed = Some(value(0.05));
            }
        }
        let (rank, facts) = rank_and_base_of(&spec);
        let nbp = facts.names.len();
        assert_eq!((nbp, facts.rank), (rank, rank), "{stem}");
        let zz = facts
            .names
            .iter()
            .position(|n| n.ends_with(".zz_r"))
            .unwrap_or_else(|| panic!("{stem}: no zz_r"));
        let first = spec.joints.iter().find(|j| !j.armature.is_empty());
        let first = first
            .map(|j| format!("{}.armature", j.name))
            .unwrap_or_default();
        assert!(
            facts.formulas[zz].contains(&first) && !facts.names.contains(&first),
            "{stem}: {} = {}",
            facts.names[zz],
            facts.formulas[zz]
        );
        counts.push((stem, nbp));
        let oracle = Oracle::for_parsed_spec(&spec);
        let values = spec.parameter_values();
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("the spec is valid");
        let planned = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
        let names: Vec<&str> = planned.body_names().iter().map(String::as_str).collect();
        let mut standard = oracle.standard_parameters(&names);
        standard.extend(oracle.drives.parameters(planned.drive_parameters()));
        let (nq, nv) = (oracle.sampling.len(), oracle.dof());
        let mut states = States::seeded(23);
        for _ in 0..3 {
            let (q, qd, qdd) = states.next::<MAX_COORDINATES, MAX_COORDINATES>(&oracle.sampling);
            let (q, qd, qdd) = (&q[..nq], &qd[..nv], &qdd[..nv]);
            let env = environment(&values, q, qd, qdd, &[]);
            let regressor = planned
                .evaluate("standard_regressor", &env)
                .expect("Y evaluates");
            let motor: Vec<f64> = oracle
                .inverse_dynamics(q, qd, qdd)
                .iter()
                .zip(oracle.drives.friction_forces(qd))
                .map(|(t, f)| t - f)
                .collect();
            let product: Vec<f64> = regressor
                .chunks(standard.len())
                .map(|row| row.iter().zip(&standard).map(|(y, p)| y * p).sum())
                .collect();
            let error = relative_error(&product, &motor);
            assert!(error < 1e-10, "{stem}: Y π is off by {error:e}");
            base_parameters::check(&planned, &env, &standard, 5)
                .unwrap_or_else(|problem| panic!("{stem}: {problem}"));
        }
    }
    eprintln!("base parameters with drives: {counts:?}");
}

/// The compiled `base_inverse_dynamics` of the PUMA 560 with every
/// inertial parameter symbolic (Khalil's customised Newton–Euler): at
/// `β = base_parameters(p)` it is `inverse_dynamics` (to 1e-12 of the
/// largest joint force); at a `β` that no body has (every base parameter
/// moved), `regressor · β`, so that an identified `β` is used as it is;
/// and it costs fewer multiplications than `regressor · β` does.
#[test]
fn puma560_inverse_dynamics_in_the_base_parameters() {
    use sharnir_generated::puma560_symbolic as puma;
    let p = puma::Params::default();
    let beta = puma::base_parameters(&p);
    let oracle = Oracle::for_parsed_spec(&load_spec("puma560_symbolic"));
    let mut states = States::seeded(31);
    for k in 0..8 {
        let (q, qd, qdd) = states.next::<{ puma::NQ }, { puma::NV }>(&oracle.sampling);
        let tau = puma::inverse_dynamics(&p, &q, &qd, &qdd);
        let in_base = puma::base_inverse_dynamics(&p, &beta, &q, &qd, &qdd);
        let error = relative_error(&in_base, &tau);
        assert!(error < 1e-12, "state {k}: off by {error:e}");
        let moved: [f64; puma::NBP] =
            std::array::from_fn(|j| beta[j] * (1.0 + 0.1 * j as f64) + 0.01 * k as f64);
        let regressor = puma::regressor(&p, &q, &qd, &qdd);
        let product: Vec<f64> = regressor
            .iter()
            .map(|row| row.iter().zip(&moved).map(|(y, b)| y * b).sum())
            .collect();
        let in_base = puma::base_inverse_dynamics(&p, &moved, &q, &qd, &qdd);
        let error = relative_error(&in_base, &product);
        assert!(error < 1e-12, "state {k}, moved β: off by {error:e}");
    }
    let by_regressor = puma::OPS_REGRESSOR.mul as usize + puma::NV * puma::NBP;
    assert!(
        (puma::OPS_BASE_INVERSE_DYNAMICS.mul as usize) < by_regressor,
        "{:?} against {by_regressor} multiplications",
        puma::OPS_BASE_INVERSE_DYNAMICS
    );
}
