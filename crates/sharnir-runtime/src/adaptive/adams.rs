//! Variable-order, variable-step Adams–Bashforth–Moulton in PECE mode with
//! local extrapolation: the family of MATLAB's `ode113` (Shampine and
//! Gordon), for smooth problems at tight tolerances where each evaluation
//! of `f` is expensive.
//!
//! Each step predicts with the Adams–Bashforth formula through the last `k`
//! rates (order `k`), evaluates, corrects with the Adams–Moulton formula
//! through those rates and the new one (order `k + 1`), and evaluates again:
//! two evaluations per step. The formulas' weights are the integrals of the
//! Lagrange polynomials through the actual (unequally spaced) past times,
//! computed each step by Gauss–Legendre quadrature, so step-size changes
//! need no restart. The difference between corrector and predictor
//! estimates the local error of order `k`; the order (1 to 12) moves by one
//! to whichever of `k − 1`, `k`, `k + 1` allows the longest next step.

use super::control::{self, AdaptiveTrack};
use super::step::StepSize;
use crate::stepper::trajectory;
use crate::{IntegrationError, OdeSystem, Stepper, Tolerances};
use std::collections::VecDeque;

/// The highest order of the predictor.
const MAX_ORDER: usize = 12;
const SAFETY: f64 = 0.9;
/// Gauss–Legendre nodes and weights on `[0, 1]` (7 points: exact for the
/// polynomials of degree 13 the formulas integrate).
const GAUSS: [(f64, f64); 7] = [
    (0.025_446_043_828_620_757, 0.064_742_483_084_434_85),
    (0.129_234_407_200_302_8, 0.139_852_695_744_638_33),
    (0.297_077_424_311_301_4, 0.190_915_025_252_559_47),
    (0.5, 0.208_979_591_836_734_7),
    (0.702_922_575_688_698_6, 0.190_915_025_252_559_47),
    (0.870_765_592_799_697_2, 0.139_852_695_744_638_33),
    (0.974_553_956_171_379_3, 0.064_742_483_084_434_85),
];

/// `∫₀^θ Lⱼ(s) ds` for the Lagrange basis on `nodes` (in units of the step,
/// relative to the start of the step), for every `j`. The nodes are
/// distinct, none in `(0, θ]` but the end of the step `1`, which the
/// quadrature points (inside `(0, θ)`) never reach.
fn lagrange_integrals(nodes: &[f64], theta: f64) -> Vec<f64> {
    let mut weights = vec![0.0; nodes.len()];
    if theta == 0.0 {
        return weights;
    }
    // Lⱼ(s) = P(s) / ((s − xⱼ) Π_{m≠j} (xⱼ − xₘ)) with P(s) = Π (s − xₘ).
    let denominators: Vec<f64> = nodes
        .iter()
        .enumerate()
        .map(|(j, &xj)| {
            nodes
                .iter()
                .enumerate()
                .filter(|&(m, _)| m != j)
                .map(|(_, &xm)| xj - xm)
                .product()
        })
        .collect();
    for &(x, w) in &GAUSS {
        let s = x * theta;
        let product: f64 = nodes.iter().map(|&xm| s - xm).product();
        for ((weight, &xj), &d) in weights.iter_mut().zip(nodes).zip(&denominators) {
            *weight += w * theta * product / ((s - xj) * d);
        }
    }
    weights
}

/// Adams–Bashforth–Moulton (PECE, orders 1 to 12) in the middle of an
/// integration.
#[derive(Clone, Debug)]
pub struct Adams {
    tolerances: Tolerances,
    size: StepSize,
    track: AdaptiveTrack,
    /// The order of the next predictor.
    order: usize,
    /// Past times and rates, newest first (the newest is `f(t, y)`).
    history: VecDeque<(f64, Vec<f64>)>,
    /// The last step: its start, size, start state, and the corrector's
    /// nodes (in steps from its start) and rates, for the dense output.
    last: Option<LastStep>,
    predicted: Vec<f64>,
    corrected: Vec<f64>,
}

#[derive(Clone, Debug)]
struct LastStep {
    h: f64,
    y0: Vec<f64>,
    nodes: Vec<f64>,
    rates: Vec<Vec<f64>>,
}

impl Adams {
    /// The integrator at the start of an integration: `track` at the
    /// initial time, `rate` the rate there.
    fn starting(track: AdaptiveTrack, rate: Vec<f64>, tolerances: Tolerances) -> Self {
        let (t0, n) = (track.t, track.y.len());
        Adams {
            tolerances,
            size: StepSize::new(t0),
            track,
            order: 1,
            history: VecDeque::from([(t0, rate)]),
            last: None,
            predicted: vec![0.0; n],
            corrected: vec![0.0; n],
        }
    }

    super::constructors!();

    /// The past nodes `(tⱼ − t)/h` of the last `k` rates, newest first.
    fn nodes(&self, k: usize, h: f64) -> Vec<f64> {
        self.history
            .iter()
            .take(k)
            .map(|(tj, _)| (tj - self.track.t) / h)
            .collect()
    }

    /// `y + h Σ wⱼ fⱼ` over the last `k` rates (and `extra`, the rate at the
    /// end of the step, first, when given) into `out`.
    fn combine(&self, h: f64, k: usize, extra: Option<&[f64]>, out: &mut [f64]) {
        let mut nodes = self.nodes(k, h);
        if extra.is_some() {
            nodes.insert(0, 1.0);
        }
        let weights = lagrange_integrals(&nodes, 1.0);
        out.copy_from_slice(&self.track.y);
        let rates = extra
            .into_iter()
            .chain(self.history.iter().take(k).map(|(_, f)| f.as_slice()));
        for (w, f) in weights.iter().zip(rates) {
            for (o, fi) in out.iter_mut().zip(f) {
                *o += h * w * fi;
            }
        }
    }

    /// The scaled root-mean-square norm of `a − b`.
    fn error_norm(&self, a: &[f64], b: &[f64]) -> f64 {
        let n = a.len();
        let sum: f64 = (0..n)
            .map(|i| {
                let scale = control::scale(self.tolerances, self.track.y[i], a[i]);
                ((a[i] - b[i]) / scale).powi(2)
            })
            .sum();
        (sum / n as f64).sqrt()
    }

    /// The step an error estimate of order `k` allows after a step `h`.
    fn allowed(error: f64, k: usize, h: f64) -> f64 {
        let factor = SAFETY * (1.0 / error.max(1e-10)).powf(1.0 / (k as f64 + 1.0));
        h * factor.clamp(0.2, 5.0)
    }
}

impl<S: OdeSystem> Stepper<S> for Adams {
    fn step(&mut self, system: &mut S, t_end: f64) -> Result<(), IntegrationError> {
        let rate = &self.history[0].1;
        let begun = self
            .size
            .begin(system, &mut self.track, rate, t_end, self.tolerances, 2)?;
        let Some((mut h, h_max)) = begun else {
            return Ok(());
        };
        let n = self.track.y.len();
        let mut rate_end = vec![0.0; n];
        let mut rate_corrected = vec![0.0; n];
        loop {
            let (h_try, t_new) = self.size.attempt(&self.track, t_end, h, h_max)?;
            let k = self.order.min(self.history.len());
            let mut predicted = std::mem::take(&mut self.predicted);
            let mut corrected = std::mem::take(&mut self.corrected);
            self.combine(h_try, k, None, &mut predicted);
            let mut finite = control::evaluate(
                system,
                t_new,
                &predicted,
                &mut rate_end,
                &mut self.track.stats,
            )?;
            if finite {
                self.combine(h_try, k, Some(&rate_end), &mut corrected);
                finite = corrected.iter().all(|c| c.is_finite());
            }
            let error = if finite {
                self.error_norm(&corrected, &predicted)
            } else {
                f64::INFINITY
            };
            if error > 1.0 {
                self.predicted = predicted;
                self.corrected = corrected;
                self.track.stats.rejected += 1;
                h = if error.is_finite() {
                    Self::allowed(error, k, h_try).min(0.9 * h_try)
                } else {
                    0.25 * h_try
                };
                // A rejected step keeps at most the order that failed.
                self.order = k;
                continue;
            }
            // The order whose estimate allows the longest next step.
            let mut best = (Self::allowed(error, k, h_try), k);
            for candidate in [k.saturating_sub(1), k + 1] {
                if candidate == 0 || candidate > MAX_ORDER || candidate > self.history.len() {
                    continue;
                }
                let mut alternative = vec![0.0; n];
                self.combine(h_try, candidate, None, &mut alternative);
                let estimate = self.error_norm(&corrected, &alternative);
                let allowed = Self::allowed(estimate, candidate, h_try);
                if allowed > 1.1 * best.0 {
                    best = (allowed, candidate);
                }
            }
            let mut nodes = self.nodes(k, h_try);
            nodes.insert(0, 1.0);
            let mut rates = vec![rate_end.clone()];
            rates.extend(self.history.iter().take(k).map(|(_, f)| f.clone()));
            self.last = Some(LastStep {
                h: h_try,
                y0: self.track.y.clone(),
                nodes,
                rates,
            });
            self.track.y.copy_from_slice(&corrected);
            self.predicted = predicted;
            self.corrected = corrected;
            self.size
                .finish(system, &mut self.track, t_new, &mut rate_corrected, false)?;
            self.history.push_front((self.track.t, rate_corrected));
            self.history.truncate(MAX_ORDER + 1);
            self.order = best.1;
            self.size.next = Some(best.0.min(h_max).min(2.0 * h_try));
            return Ok(());
        }
    }
}

trajectory!([] f64, Adams);

impl Adams {
    /// The corrector's polynomial integrated from the start of the last step
    /// to `t`.
    fn dense_value(&self, t: f64, out: &mut [f64]) {
        let Some(last) = &self.last else {
            out.copy_from_slice(&self.track.y);
            return;
        };
        let theta = (t - self.track.t_previous) / last.h;
        let weights = lagrange_integrals(&last.nodes, theta);
        out.copy_from_slice(&last.y0);
        for (w, f) in weights.iter().zip(&last.rates) {
            for (o, fi) in out.iter_mut().zip(f) {
                *o += last.h * w * fi;
            }
        }
    }
}
