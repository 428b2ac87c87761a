//! The composite-rigid-body mass matrix (`sharnir_mech::formalisms::crba`), from the
//! bodies' own and from the base inertias, each column's first step carried
//! or taken in the parent (`FirstStep`), against the mass matrix read off
//! Newton–Euler (`joint_space`) and against the numeric CRBA of
//! `sharnir-numeric` (the oracle, which reduces followers by `Gᵀ M G`), on
//! every bundled spec in both parameter modes, on the random trees of
//! `support/random_spec.rs` (every joint type, followers, auxiliary bodies,
//! fixed joints) and on the random closed mechanisms of
//! `support/random_loop_spec.rs` (whose tree's `M` is wanted).
//!
//! Tolerance: 1e-12 relative to `max(1, ‖expected‖∞)` at seeded random
//! positions; every entry the branches make zero in Newton–Euler's matrix
//! must be an exact zero of the CRBA's, and the CRBA's must be symmetric to
//! the bit.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_cas::Id;
use sharnir_mech::formalisms::crba::FirstStep;
use sharnir_mech::formalisms::rnea::{inverse_dynamics, PointAcceleration};
use sharnir_mech::formalisms::{crba, joint_space};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_spec::Spec;
use sharnir_tests::oracle::{load_spec, relative_error, specs_dir, Oracle, Sampling};
use sharnir_tests::random_loop_spec::random_loop_spec;
use sharnir_tests::random_spec::random_spec;
use std::collections::BTreeMap;

const TOLERANCE: f64 = 1e-12;
/// Positions per mechanism and mode.
const STATES: usize = 5;

/// Positions drawn as the oracle says (angles in ±π, slides in ±0.5 m,
/// normalised random quaternions).
fn positions(rng: &mut SmallRng, sampling: &[Sampling]) -> Vec<f64> {
    let mut q = Vec::with_capacity(sampling.len());
    while q.len() < sampling.len() {
        match sampling[q.len()] {
            Sampling::Quaternion => {
                let x = loop {
                    let x = [0; 4].map(|_| rng.gen_range(-1.0_f64..1.0));
                    let norm = x.iter().map(|c| c * c).sum::<f64>().sqrt();
                    if norm > 1e-3 {
                        break x.map(|c| c / norm);
                    }
                };
                q.extend(x);
            }
            Sampling::Slide => q.push(rng.gen_range(-0.5..0.5)),
            Sampling::Angle => q.push(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI)),
        }
    }
    q
}

/// Checks the CRBA of `spec` in `mode`; `Err` says what is off where.
fn check(spec: &Spec, mode: ParameterMode, seed: u64) -> Result<(), String> {
    let oracle = Oracle::for_parsed_spec(spec);
    let values: BTreeMap<String, f64> = spec.parameter_values();
    let mut mechanism = Mechanism::from_spec(spec, mode).map_err(|e| format!("{e:?}"))?;
    let tau = inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
    let read_off = joint_space::joint_space(&mut mechanism.pool, &tau).mass_matrix;
    let mut variants = Vec::new();
    for first_step in [FirstStep::Carried, FirstStep::InParent] {
        let own = crba::mass_matrix(&mut mechanism, first_step);
        let base = crba::mass_matrix_regrouped(&mut mechanism, first_step);
        variants.push((format!("own, {first_step:?}"), own));
        variants.push((format!("base, {first_step:?}"), base));
    }
    let n = mechanism.dof();
    for (what, m) in &variants {
        for i in 0..n {
            for j in 0..n {
                if m[i][j] != m[j][i] {
                    return Err(format!("CRBA ({what}) not symmetric at ({i}, {j})"));
                }
                if mechanism.pool.is_zero(read_off[i][j]) && !mechanism.pool.is_zero(m[i][j]) {
                    return Err(format!(
                        "CRBA ({what}) computes ({i}, {j}), zero in Newton–Euler's M"
                    ));
                }
            }
        }
    }
    let roots: Vec<Id> = std::iter::once(read_off.concat())
        .chain(variants.iter().map(|(_, m)| m.concat()))
        .collect::<Vec<_>>()
        .concat();
    let mut rng = SmallRng::seed_from_u64(0xC3BA ^ seed);
    for _ in 0..STATES {
        let q = positions(&mut rng, &oracle.sampling);
        let env = |symbol: &Input| match symbol {
            Input::Parameter(name) => values.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            _ => None,
        };
        let all = mechanism
            .pool
            .eval(&roots, &env)
            .map_err(|e| e.to_string())?;
        let (newton_euler, rest) = all.split_at(n * n);
        let want = oracle.mass_matrix(&q).concat();
        let err = relative_error(newton_euler, &want);
        if err >= TOLERANCE {
            return Err(format!(
                "Newton–Euler's M off the oracle by {err:e} at q = {q:?}"
            ));
        }
        for ((what, _), got) in variants.iter().zip(rest.chunks(n * n)) {
            for (reference, want) in [
                ("the oracle", &want),
                ("Newton–Euler", &newton_euler.to_vec()),
            ] {
                let err = relative_error(got, want);
                if err >= TOLERANCE || got.iter().any(|x| !x.is_finite()) {
                    return Err(format!(
                        "CRBA ({what}) off {reference} by {err:e} at q = {q:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn crba_agrees_on_every_bundled_spec() {
    let mut stems: Vec<String> = std::fs::read_dir(specs_dir())
        .expect("specs/ is readable")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "spec").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    stems.sort();
    assert!(
        stems.len() >= 20,
        "only {} bundled specs found",
        stems.len()
    );
    for (k, stem) in stems.iter().enumerate() {
        let spec = load_spec(stem);
        for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
            if let Err(problem) = check(&spec, mode, k as u64) {
                panic!("{stem} ({mode:?}): {problem}");
            }
        }
    }
}

fn parse(name: String, text: &str) -> Spec {
    let source = sharnir_spec::Source {
        name,
        text: text.to_owned(),
    };
    sharnir_spec::parse(source).unwrap_or_else(|e| panic!("{e:?}\n--- spec ---\n{text}"))
}

#[test]
fn crba_agrees_on_random_trees() {
    for seed in 0..200 {
        let text = random_spec(seed);
        let spec = parse(format!("random_{seed}.spec"), &text);
        let mode = if seed % 2 == 0 {
            ParameterMode::Runtime
        } else {
            ParameterMode::Folded
        };
        if let Err(problem) = check(&spec, mode, seed) {
            panic!("random mechanism {seed}: {problem}\n--- spec ---\n{text}");
        }
    }
}

#[test]
fn crba_agrees_on_random_loops() {
    for seed in 0..40 {
        let text = random_loop_spec(seed).text;
        let spec = parse(format!("random_loop_{seed}.spec"), &text);
        if let Err(problem) = check(&spec, ParameterMode::Runtime, seed) {
            panic!("random loop mechanism {seed}: {problem}\n--- spec ---\n{text}");
        }
    }
}
