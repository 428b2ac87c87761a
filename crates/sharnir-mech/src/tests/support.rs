//! What the unit tests of several formalisms share: every bundled spec,
//! and seeded random positions to evaluate their expressions at.

use crate::model::Mechanism;
use std::path::PathBuf;

/// A small deterministic generator (no dependency for a unit test).
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Every spec of `specs/`, parsed, with its path, in path order.
pub(crate) fn specs() -> Vec<(String, sharnir_spec::Spec)> {
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
pub(crate) fn positions(mechanism: &Mechanism, rng: &mut Lcg) -> Vec<f64> {
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
