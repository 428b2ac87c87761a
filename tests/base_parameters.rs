//! The base parameters of every bundled spec against what they must be: as
//! many as the rank of the standard regressor sampled at random states (a
//! singular value decomposition by `faer`, apart from the pivoted selection
//! the compiler makes), and the counts published for the PUMA 560.
//!
//! `Y_b β = τ` and the regrouping formulas are checked on every shipped
//! module by `shipped_programs.rs` and on random mechanisms by
//! `random_mechanisms.rs`.

use faer::Mat;
use sharnir_codegen::{base_parameter_facts, BaseParameterFacts};
use sharnir_mech::formalisms::regressor::standard_regressor;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_tests::oracle::{bundled_specs, load_spec, Oracle, States};

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
    let spec = load_spec(stem);
    let oracle = Oracle::for_parsed_spec(&spec);
    let values = spec.parameter_values();
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("bundled spec is valid");
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
        // standard regressor's (by the SVD); the base parameters are at
        // least as many, more where they are not all identifiable apart.
        assert_eq!(
            facts.rank, rank,
            "{stem}: the compiler's rank {}, the SVD's {rank}",
            facts.rank
        );
        assert!(nbp >= rank, "{stem}: {nbp} base parameters, rank {rank}");
        counts.push((stem, nbp, rank));
    }
    // Every robot arm is minimal: nothing kept inexactly.
    for robot in [
        "puma560",
        "puma560_symbolic",
        "ur5",
        "panda",
        "solo12",
        "telegin6",
    ] {
        let (_, nbp, rank) = counts
            .iter()
            .find(|(stem, _, _)| stem == robot)
            .unwrap_or_else(|| panic!("{robot} is bundled"));
        assert_eq!(nbp, rank, "{robot}");
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
