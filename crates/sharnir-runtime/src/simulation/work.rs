//! The work `W(t) = ∫ q̇ · (τ_model + τ_control + τ_drive) dt` the
//! mechanism's own forces (`[forces]`, stops, damping, friction), the
//! control and the drives of prescribed coordinates do over a run, so that the energy balance `T + V − W = E(0)` can be checked on any
//! run, not only a conservative one.
//!
//! Each accepted step is cut at the output times (and event times) inside
//! it, and the power is integrated over every piece by the three-point
//! Gauss–Legendre rule on the step's continuous extension (exact for
//! polynomials of degree five), so the work at every sample is as accurate
//! as the trajectory itself.

use super::mechanical::MechanicalSystem;
use crate::{Model, Trajectory};

/// The nodes and weights of the three-point Gauss–Legendre rule on `[0, 1]`.
const NODES: [f64; 3] = [
    0.5 - 0.387_298_334_620_741_7,
    0.5,
    0.5 + 0.387_298_334_620_741_7,
];
const WEIGHTS: [f64; 3] = [5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0];

/// The work at the times a step was cut at: `(t, W(t))`, increasing in `t`,
/// the first at the step's start.
#[derive(Clone, Debug)]
pub(super) struct StepWork {
    knots: Vec<(f64, f64)>,
}

impl StepWork {
    /// No work yet at `t0`.
    pub(super) fn at_start(t0: f64) -> StepWork {
        StepWork {
            knots: vec![(t0, 0.0)],
        }
    }

    /// The step `trajectory` has just taken, after this one, cut at `times`
    /// (those inside the step count); `None` where the power cannot be
    /// evaluated (a state of the wrong length) or is not finite.
    pub(super) fn next<M, S, T, const NQ: usize, const NV: usize>(
        &self,
        system: &mut S,
        trajectory: &T,
        times: &[f64],
        scratch: &mut [f64],
    ) -> Option<StepWork>
    where
        M: Model<NQ, NV, Real = f64>,
        S: MechanicalSystem<M, NQ, NV>,
        T: Trajectory + ?Sized,
    {
        let (start, end) = (trajectory.t_previous(), trajectory.t());
        let mut cuts: Vec<f64> = times
            .iter()
            .copied()
            .filter(|&t| t > start && t < end)
            .collect();
        cuts.sort_by(f64::total_cmp);
        cuts.dedup();
        cuts.push(end);
        let mut knots = vec![(start, self.at(start))];
        let (mut from, mut work) = (start, self.at(start));
        for to in cuts {
            let length = to - from;
            for (tau, weight) in NODES.into_iter().zip(WEIGHTS) {
                let t = from + tau * length;
                trajectory.interpolate(t, scratch);
                let power = system.power(t, scratch)?;
                if !power.is_finite() {
                    return None;
                }
                work += weight * length * power;
            }
            knots.push((to, work));
            from = to;
        }
        Some(StepWork { knots })
    }

    /// `W(t)`: exact at the step's cuts, linear between them, the last
    /// value after them.
    pub(super) fn at(&self, t: f64) -> f64 {
        let index = self.knots.partition_point(|&(knot, _)| knot <= t);
        match (
            index.checked_sub(1).and_then(|i| self.knots.get(i)),
            self.knots.get(index),
        ) {
            (Some(&(t0, w0)), Some(&(t1, w1))) if t1 > t0 => w0 + (w1 - w0) * (t - t0) / (t1 - t0),
            (Some(&(_, w)), _) => w,
            (None, Some(&(_, w))) => w,
            (None, None) => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{NODES, WEIGHTS};

    #[test]
    fn the_rule_integrates_polynomials_of_degree_five() {
        let (start, length) = (2.0_f64, 0.5_f64);
        let sum: f64 = NODES
            .iter()
            .zip(WEIGHTS)
            .map(|(tau, w)| w * length * (start + tau * length).powi(5))
            .sum();
        let exact = ((start + length).powi(6) - start.powi(6)) / 6.0;
        assert!((sum - exact).abs() < 1e-13 * exact);
    }
}
