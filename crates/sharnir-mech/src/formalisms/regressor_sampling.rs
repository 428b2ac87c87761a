//! The candidate columns and formulas of the base parameters
//! ([`crate::formalisms::base_regressor`]) sampled: at random states, and at
//! the spec's runtime parameters or perturbed ones, deterministically (a
//! fixed seed), so that generation gives the same base parameters on every
//! machine.

use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::{Id, UnboundSymbol};
use std::collections::HashMap;

/// Random states the candidate columns are sampled at, beyond two rows per
/// candidate column.
const EXTRA_STATES: usize = 3;

/// The seed of the sampled states: fixed, so that generation is
/// deterministic.
const SEED: u64 = 0x5eed_ba5e_0f1d;

/// The runtime parameters' values in the spec.
pub(crate) fn spec_values(mechanism: &Mechanism) -> HashMap<&str, f64> {
    mechanism
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.default))
        .collect()
}

/// The runtime parameters' values in the spec, each moved by up to a
/// quarter of itself (zeros stay zero), differently for each `draw`: a
/// geometry near the spec's, where a dependency between columns or
/// formulas that geometry does not make holds with other coefficients.
pub(crate) fn perturbed_values(mechanism: &Mechanism, draw: u64) -> HashMap<&str, f64> {
    let mut random = SplitMix(SEED ^ draw.wrapping_mul(0x9e37_79b9));
    mechanism
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.default * random.uniform(0.75, 1.25)))
        .collect()
}

/// How many perturbed geometries a dependency with coefficients that are
/// not small rationals must hold at to be folded.
pub(crate) const PERTURBED_GEOMETRIES: u64 = 2;

/// The candidate columns at random states and the parameter values
/// `parameters`, as columns of samples (every state's rows stacked): the
/// same states whatever the values.
pub(crate) fn sample(
    mechanism: &Mechanism,
    columns: &[Vec<Id>],
    parameters: &HashMap<&str, f64>,
) -> Result<Vec<Vec<f64>>, UnboundSymbol> {
    let nv = mechanism.dof().max(1);
    let states = (2 * columns.len()).div_ceil(nv) + EXTRA_STATES;
    let roots: Vec<Id> = columns.iter().flatten().copied().collect();
    let mut random = SplitMix(SEED);
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); columns.len()];
    for _ in 0..states {
        let q = random_positions(&mut random, mechanism.nq(), &mechanism.quaternions);
        let qd: Vec<f64> = (0..nv).map(|_| random.uniform(-2.0, 2.0)).collect();
        let qdd: Vec<f64> = (0..nv).map(|_| random.uniform(-2.0, 2.0)).collect();
        let env = |symbol: &Input| match symbol {
            Input::Parameter(name) => parameters.get(name.as_str()).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => qd.get(*i).copied(),
            Input::Acceleration(i) => qdd.get(*i).copied(),
            _ => None,
        };
        let values = mechanism.pool.eval(&roots, &env)?;
        let mut values = values.into_iter();
        for (column, samples) in columns.iter().zip(&mut samples) {
            samples.extend(values.by_ref().take(column.len()));
        }
    }
    Ok(samples)
}

/// Random joint positions, unit quaternions where `quaternions` starts one.
fn random_positions(random: &mut SplitMix, nq: usize, quaternions: &[usize]) -> Vec<f64> {
    let mut q: Vec<f64> = (0..nq).map(|_| random.uniform(-3.0, 3.0)).collect();
    for &start in quaternions {
        if let Some(quaternion) = q.get_mut(start..start + 4) {
            let norm = quaternion.iter().map(|x| x * x).sum::<f64>().sqrt();
            let norm = if norm > 1e-3 { norm } else { 1.0 };
            for x in quaternion.iter_mut() {
                *x /= norm;
            }
        }
    }
    q
}

/// Steele, Lea and Flood's SplitMix64: a small deterministic generator,
/// the same samples on every machine.
struct SplitMix(u64);

impl SplitMix {
    /// Uniform in `[low, high)`.
    fn uniform(&mut self, low: f64, high: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
        low + (high - low) * unit
    }
}
