//! The CRBA's `M` against the one read off Newton–Euler, on every bundled
//! spec with folded parameters, evaluated by `Pool::eval` at seeded states.
//! (The end-to-end comparison with the numeric oracle and random
//! mechanisms is `tests/crba.rs`.)

use super::{mass_matrix, mass_matrix_regrouped};
use crate::formalisms::joint_space::joint_space;
use crate::formalisms::rnea::{inverse_dynamics, PointAcceleration};
use crate::model::inputs::Input;
use crate::model::{Mechanism, ParameterMode};
use sharnir_cas::Id;
use std::path::PathBuf;

/// A small deterministic generator (no dependency for a unit test).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn specs() -> Vec<(String, sharnir_spec::Spec)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("specs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spec"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("spec readable");
            let name = path.display().to_string();
            let source = sharnir_spec::Source {
                name: name.clone(),
                text,
            };
            let spec = sharnir_spec::parse(source).expect("bundled spec is valid");
            (name, spec)
        })
        .collect()
}

/// Random positions (unit quaternions where the mechanism has them).
fn positions(mechanism: &Mechanism, rng: &mut Lcg) -> Vec<f64> {
    let mut q: Vec<f64> = (0..mechanism.nq()).map(|_| 3.0 * rng.next()).collect();
    for &start in &mechanism.quaternions {
        let norm = q[start..start + 4]
            .iter()
            .map(|x| x * x)
            .sum::<f64>()
            .sqrt();
        for x in &mut q[start..start + 4] {
            *x /= norm;
        }
    }
    q
}

fn evaluate(mechanism: &Mechanism, roots: &[Id], q: &[f64]) -> Vec<f64> {
    let env = |symbol: &Input| match symbol {
        Input::Position(i) => q.get(*i).copied(),
        _ => None,
    };
    mechanism
        .pool
        .eval(roots, &env)
        .expect("M reads positions only")
}

#[test]
fn crba_matches_newton_euler_on_every_bundled_spec() {
    let mut rng = Lcg(0x00C0_FFEE);
    for (name, spec) in specs() {
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec builds");
        let tau = inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
        let reference = joint_space(&mut mechanism.pool, &tau).mass_matrix.concat();
        let own = mass_matrix(&mut mechanism).concat();
        let base = mass_matrix_regrouped(&mut mechanism).concat();
        for (a, b) in reference.iter().zip(&own) {
            // Branch-induced zeros are exact in the CRBA too (it may find
            // more: the base block of a free body, `m 1`, is diagonal).
            assert!(
                !mechanism.pool.is_zero(*a) || mechanism.pool.is_zero(*b),
                "{name}: a zero of Newton–Euler's M is not zero in the CRBA's"
            );
        }
        for _ in 0..5 {
            let q = positions(&mechanism, &mut rng);
            let want = evaluate(&mechanism, &reference, &q);
            let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            for (what, got) in [("own", &own), ("regrouped", &base)] {
                let got = evaluate(&mechanism, got, &q);
                let err = got
                    .iter()
                    .zip(&want)
                    .fold(0.0_f64, |m, (g, w)| m.max((g - w).abs()));
                assert!(
                    err <= 1e-12 * scale,
                    "{name} ({what}): CRBA off by {err:e} at q = {q:?}"
                );
            }
        }
    }
}
