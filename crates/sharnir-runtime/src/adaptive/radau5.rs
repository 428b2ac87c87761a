//! Radau IIA of order 5: the implicit three-stage collocation method of
//! Hairer and Wanner's `RADAU5` (*Solving ODEs II*, IV.8), for stiff
//! mechanisms (stiff springs, joint stops) and, with a singular diagonal
//! mass matrix, index-1 differential–algebraic systems `M y' = f(t, y)`.
//!
//! Each step solves the collocation equations by a simplified Newton
//! iteration on the transformed stages: one real and one complex `n × n`
//! LU factorisation per step size, the Jacobian reused while the iteration
//! converges fast. Step sizes follow Gustafsson's predictive controller;
//! the collocation polynomial is the dense output.

// Index loops over several parallel arrays read like the method's formulas.
#![allow(clippy::needless_range_loop)]

use super::control::{self, AdaptiveTrack, UROUND};
use super::linear::{ComplexLu, RealLu};
use super::step::StepSize;
use crate::stepper::trajectory;
use crate::{IntegrationError, OdeSystem, Stepper, Tolerances};

/// The method's constants: nodes, the eigenvalues of the inverse
/// coefficient matrix (one real, `γ`, and a complex pair `α ± iβ`), the
/// transformation `T` to its block-diagonal form and back (`TI = T⁻¹`), and
/// the weights of the embedded error estimate. Checked in the tests:
/// `T · TI = I` and `TI · A⁻¹ · T = diag(γ, [[α, −β], [β, α]])`.
mod tableau {
    pub const SQ6: f64 = 2.449_489_742_783_178;
    pub const C1: f64 = (4.0 - SQ6) / 10.0;
    pub const C2: f64 = (4.0 + SQ6) / 10.0;
    pub const C1M1: f64 = C1 - 1.0;
    pub const C2M1: f64 = C2 - 1.0;
    pub const C1MC2: f64 = C1 - C2;
    pub const DD1: f64 = -(13.0 + 7.0 * SQ6) / 3.0;
    pub const DD2: f64 = (-13.0 + 7.0 * SQ6) / 3.0;
    pub const DD3: f64 = -1.0 / 3.0;
    pub const GAMMA: f64 = 3.637_834_252_744_496;
    pub const ALPHA: f64 = 2.681_082_873_627_752_3;
    pub const BETA: f64 = 3.050_430_199_247_410_5;
    pub const T: [[f64; 3]; 3] = [
        [
            9.123_239_487_089_294e-2,
            -0.141_255_295_020_954_2,
            -3.002_919_410_514_742_4e-2,
        ],
        [
            0.241_717_932_707_107,
            0.204_129_352_293_799_93,
            0.382_942_112_757_261_9,
        ],
        [0.966_048_182_615_093, 1.0, 0.0],
    ];
    pub const TI: [[f64; 3]; 3] = [
        [
            4.325_579_890_063_155,
            0.339_199_251_815_809_87,
            0.541_770_539_935_874_9,
        ],
        [
            -4.178_718_591_551_905,
            -0.327_682_820_761_062_4,
            0.476_623_554_500_550_45,
        ],
        [
            -0.502_872_634_945_786_9,
            2.571_926_949_855_605,
            -0.596_039_204_828_224_9,
        ],
    ];
}

use tableau::*;

/// Most Newton iterations per step.
const NEWTON_ITERATIONS: usize = 7;
/// The Jacobian is recomputed after a step whose Newton contraction rate was
/// above this (HNW's `THET`).
const JACOBIAN_REUSE: f64 = 0.001;
const SAFETY: f64 = 0.9;
/// The step may shrink by at most 5 and grow by at most 8 per step.
const MAX_SHRINK: f64 = 5.0;
const MAX_GROWTH: f64 = 8.0;
/// Consecutive singular iteration matrices before giving up.
const SINGULAR_LIMIT: u32 = 5;

/// Radau IIA (order 5) in the middle of an integration.
///
/// The dense output is the collocation polynomial (a cubic) and is not part
/// of the error control. On very stiff problems the error estimate of the
/// step ends is damped by the stiffness, so steps can grow far longer than
/// a cubic can follow the solution between them (Prothero–Robinson with
/// λ = −10⁶: steps of 2.7, end points right to 10⁻⁸, a midpoint off by
/// 0.03): set [`Radau5::max_step`] when output between steps matters.
#[derive(Clone, Debug)]
pub struct Radau5 {
    /// The tolerances transformed as `RADAU5` does (`rtol' = 0.1·rtol^(2/3)`,
    /// `atol' = rtol'·atol/rtol`): the method's error estimate is of lower
    /// order than its solution.
    rtol: f64,
    atol: f64,
    /// Newton's stopping tolerance.
    newton_tolerance: f64,
    size: StepSize,
    mass: Option<Vec<f64>>,
    n: usize,
    track: AdaptiveTrack,
    /// The last accepted step size.
    h_old: f64,
    /// `f(t, y)`.
    rate: Vec<f64>,
    /// Stage increments `zᵢ = Yᵢ − y` and their transforms `w = TI z`.
    z: [Vec<f64>; 3],
    w: [Vec<f64>; 3],
    scale: Vec<f64>,
    jacobian: Vec<f64>,
    /// The Jacobian was formed at the current `(t, y)`.
    jacobian_current: bool,
    /// The Jacobian must be formed before the next attempt.
    jacobian_stale: bool,
    real_lu: Option<RealLu>,
    complex_lu: Option<ComplexLu>,
    /// The step size the factorisations were made for.
    lu_step: f64,
    theta: f64,
    faccon: f64,
    first: bool,
    rejected_last: bool,
    singular_in_a_row: u32,
    /// Gustafsson's memory: the last accepted step and its error.
    h_accepted: f64,
    error_accepted: f64,
    /// Coefficients of the collocation polynomial of the last step.
    dense: [Vec<f64>; 4],
    work: NewtonWork,
}

impl Radau5 {
    /// The integrator at the start of an integration: `track` at the
    /// initial time, `rate` the rate there.
    fn starting(track: AdaptiveTrack, rate: Vec<f64>, tolerances: Tolerances) -> Self {
        let n = track.y.len();
        let rtol = 0.1 * tolerances.rtol.powf(2.0 / 3.0);
        let atol = rtol * (tolerances.atol / tolerances.rtol);
        let zeros = vec![0.0; n];
        Radau5 {
            rtol,
            atol,
            newton_tolerance: (10.0 * UROUND / rtol).max(0.03_f64.min(rtol.sqrt())),
            size: StepSize::new(track.t),
            mass: None,
            n,
            h_old: 0.0,
            dense: [track.y.clone(), zeros.clone(), zeros.clone(), zeros.clone()],
            track,
            rate,
            z: core::array::from_fn(|_| zeros.clone()),
            w: core::array::from_fn(|_| zeros.clone()),
            scale: zeros,
            jacobian: vec![0.0; n * n],
            jacobian_current: false,
            jacobian_stale: true,
            real_lu: None,
            complex_lu: None,
            lu_step: 0.0,
            theta: 0.0,
            faccon: 1.0,
            first: true,
            rejected_last: false,
            singular_in_a_row: 0,
            h_accepted: 0.0,
            error_accepted: 0.0,
            work: NewtonWork {
                stage: vec![0.0; n],
                f: core::array::from_fn(|_| vec![0.0; n]),
                dw: core::array::from_fn(|_| vec![0.0; n]),
            },
        }
    }

    /// Integrates `M y' = f(t, y)` with the diagonal mass matrix `M`; a zero
    /// entry makes its component algebraic (an index-1 DAE, whose initial
    /// state must satisfy the algebraic equations).
    pub fn with_mass_diagonal(mut self, mass: Vec<f64>) -> Result<Self, IntegrationError> {
        if mass.len() != self.n || !mass.iter().all(|m| m.is_finite()) {
            return Err(IntegrationError::InvalidArgument {
                message: "the mass diagonal must have one finite entry per state component",
            });
        }
        self.mass = Some(mass);
        Ok(self)
    }

    super::constructors!();

    fn mass(&self, i: usize) -> f64 {
        self.mass.as_ref().map_or(1.0, |m| m[i])
    }

    /// `∂f/∂y` at `(t, y)`: the system's own, or forward differences.
    fn form_jacobian<S: OdeSystem>(&mut self, system: &mut S) -> Result<(), IntegrationError> {
        self.track.stats.jacobian_evaluations += 1;
        let t = self.track.t;
        let analytic = system
            .jacobian(t, &self.track.y, &mut self.jacobian)
            .map_err(|error| IntegrationError::Rhs { t, error })?;
        if !analytic {
            let n = self.n;
            let mut shifted = self.track.y.clone();
            let mut column = vec![0.0; n];
            for j in 0..n {
                let saved = shifted[j];
                let delta = (UROUND * 1e-5_f64.max(saved.abs())).sqrt();
                shifted[j] = saved + delta;
                if !control::evaluate(system, t, &shifted, &mut column, &mut self.track.stats)? {
                    return Err(IntegrationError::NonFinite { t });
                }
                for i in 0..n {
                    self.jacobian[i * n + j] = (column[i] - self.rate[i]) / delta;
                }
                shifted[j] = saved;
            }
        }
        if !self.jacobian.iter().all(|x| x.is_finite()) {
            return Err(IntegrationError::NonFinite { t });
        }
        self.jacobian_current = true;
        self.jacobian_stale = false;
        Ok(())
    }

    /// Factorises `γ/h·M − J` and `(α + iβ)/h·M − J`; `false` when either
    /// is singular.
    fn factorise(&mut self, h: f64) -> bool {
        self.track.stats.decompositions += 1;
        let n = self.n;
        let mut real = vec![0.0; n * n];
        let mut complex_re = vec![0.0; n * n];
        let mut complex_im = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                real[i * n + j] = -self.jacobian[i * n + j];
                complex_re[i * n + j] = -self.jacobian[i * n + j];
            }
            let m = self.mass(i);
            real[i * n + i] += GAMMA / h * m;
            complex_re[i * n + i] += ALPHA / h * m;
            complex_im[i * n + i] = BETA / h * m;
        }
        self.real_lu = RealLu::factor(n, &real);
        self.complex_lu = ComplexLu::factor(n, &complex_re, &complex_im);
        self.lu_step = h;
        self.real_lu.is_some() && self.complex_lu.is_some()
    }

    /// Starting values of the stages: zero on the first step, else the last
    /// step's collocation polynomial extrapolated.
    fn start_stages(&mut self, h: f64) {
        for i in 0..self.n {
            let z = if self.first {
                [0.0; 3]
            } else {
                let ratio = h / self.h_old;
                let d = &self.dense;
                [C1 * ratio, C2 * ratio, ratio]
                    .map(|c| c * (d[1][i] + (c - C2M1) * (d[2][i] + (c - C1M1) * d[3][i])))
            };
            for k in 0..3 {
                self.z[k][i] = z[k];
            }
            for k in 0..3 {
                self.w[k][i] = TI[k][0] * z[0] + TI[k][1] * z[1] + TI[k][2] * z[2];
            }
        }
    }

    /// The simplified Newton iteration of the collocation equations, with
    /// the factorisations and work vectors lent out of `self` for its
    /// duration (no copies, no allocation per step).
    fn newton<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<Newton, IntegrationError> {
        let (Some(real_lu), Some(complex_lu)) = (self.real_lu.take(), self.complex_lu.take())
        else {
            return Ok(Newton::Diverged);
        };
        let mut work = std::mem::take(&mut self.work);
        let outcome = self.iterate(system, h, (&real_lu, &complex_lu), &mut work);
        self.work = work;
        self.real_lu = Some(real_lu);
        self.complex_lu = Some(complex_lu);
        outcome
    }

    /// The iteration itself (HNW's loop at label 40 of `RADAU5`).
    fn iterate<S: OdeSystem>(
        &mut self,
        system: &mut S,
        h: f64,
        (real_lu, complex_lu): (&RealLu, &ComplexLu),
        work: &mut NewtonWork,
    ) -> Result<Newton, IntegrationError> {
        let n = self.n;
        self.faccon = self.faccon.max(UROUND).powf(0.8);
        self.theta = JACOBIAN_REUSE.abs();
        let mut previous_norm = 0.0;
        let mut previous_rate = 0.0;
        let NewtonWork { stage, f, dw } = work;
        for iteration in 1..=NEWTON_ITERATIONS {
            for (k, c) in [C1, C2, 1.0].into_iter().enumerate() {
                for i in 0..n {
                    stage[i] = self.track.y[i] + self.z[k][i];
                }
                if !control::evaluate(
                    system,
                    self.track.t + c * h,
                    stage,
                    &mut f[k],
                    &mut self.track.stats,
                )? {
                    return Ok(Newton::Diverged);
                }
            }
            for i in 0..n {
                let m = self.mass(i);
                let tf =
                    [0, 1, 2].map(|k| TI[k][0] * f[0][i] + TI[k][1] * f[1][i] + TI[k][2] * f[2][i]);
                let (w1, w2, w3) = (self.w[0][i], self.w[1][i], self.w[2][i]);
                dw[0][i] = tf[0] - GAMMA / h * m * w1;
                dw[1][i] = tf[1] - (ALPHA * w2 - BETA * w3) / h * m;
                dw[2][i] = tf[2] - (ALPHA * w3 + BETA * w2) / h * m;
            }
            real_lu.solve(&mut dw[0]);
            let [_, second, third] = &mut *dw;
            complex_lu.solve(second, third);
            let norm = ((0..n)
                .map(|i| {
                    let s = self.scale[i];
                    (dw[0][i] / s).powi(2) + (dw[1][i] / s).powi(2) + (dw[2][i] / s).powi(2)
                })
                .sum::<f64>()
                / (3 * n) as f64)
                .sqrt();
            if !norm.is_finite() {
                return Ok(Newton::Diverged);
            }
            if iteration > 1 {
                let rate = norm / previous_norm;
                self.theta = if iteration == 2 {
                    rate
                } else {
                    (rate * previous_rate).sqrt()
                };
                previous_rate = rate;
                if self.theta >= 0.99 {
                    return Ok(Newton::Diverged);
                }
                self.faccon = self.theta / (1.0 - self.theta);
                // Iterations left after this one (signed: HNW's `NIT−1−NEWT`).
                let remaining = NEWTON_ITERATIONS as i32 - 1 - iteration as i32;
                let predicted =
                    self.faccon * norm * self.theta.powi(remaining) / self.newton_tolerance;
                if predicted >= 1.0 {
                    let q = predicted.clamp(1e-4, 20.0);
                    let shrink = 0.8 * q.powf(-1.0 / (4.0 + f64::from(remaining)));
                    return Ok(Newton::TooSlow(shrink));
                }
            }
            previous_norm = norm.max(UROUND);
            for i in 0..n {
                for k in 0..3 {
                    self.w[k][i] += dw[k][i];
                }
                let w = [self.w[0][i], self.w[1][i], self.w[2][i]];
                for k in 0..3 {
                    self.z[k][i] = T[k][0] * w[0] + T[k][1] * w[1] + T[k][2] * w[2];
                }
            }
            if self.faccon * norm <= self.newton_tolerance {
                return Ok(Newton::Converged(iteration));
            }
        }
        Ok(Newton::Diverged)
    }

    /// The embedded error estimate of `RADAU5` (`ESTRAD`), improved by one
    /// more evaluation on the first step and after a rejection.
    fn error<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError> {
        let Some(real_lu) = self.real_lu.take() else {
            return Ok(f64::INFINITY);
        };
        let outcome = self.estimate(system, h, &real_lu);
        self.real_lu = Some(real_lu);
        outcome
    }

    /// [`Radau5::error`] with the real factorisation lent out of `self`.
    fn estimate<S: OdeSystem>(
        &mut self,
        system: &mut S,
        h: f64,
        real_lu: &RealLu,
    ) -> Result<f64, IntegrationError> {
        let n = self.n;
        let hee = [DD1 / h, DD2 / h, DD3 / h];
        let f2: Vec<f64> = (0..n)
            .map(|i| {
                self.mass(i)
                    * (hee[0] * self.z[0][i] + hee[1] * self.z[1][i] + hee[2] * self.z[2][i])
            })
            .collect();
        let mut estimate: Vec<f64> = (0..n).map(|i| f2[i] + self.rate[i]).collect();
        real_lu.solve(&mut estimate);
        let norm = |e: &[f64], scale: &[f64]| {
            ((0..n).map(|i| (e[i] / scale[i]).powi(2)).sum::<f64>() / n as f64)
                .sqrt()
                .max(1e-10)
        };
        let mut error = norm(&estimate, &self.scale);
        if error >= 1.0 && (self.first || self.rejected_last) {
            let shifted: Vec<f64> = (0..n).map(|i| self.track.y[i] + estimate[i]).collect();
            let mut f1 = vec![0.0; n];
            if !control::evaluate(
                system,
                self.track.t,
                &shifted,
                &mut f1,
                &mut self.track.stats,
            )? {
                return Ok(f64::INFINITY);
            }
            for i in 0..n {
                estimate[i] = f1[i] + f2[i];
            }
            real_lu.solve(&mut estimate);
            error = norm(&estimate, &self.scale);
        }
        Ok(if error.is_finite() {
            error
        } else {
            f64::INFINITY
        })
    }

    /// Takes the converged stages as the step: the new state, the
    /// collocation polynomial and the rate at the new point.
    fn accept<S: OdeSystem>(
        &mut self,
        system: &mut S,
        h: f64,
        t_new: f64,
    ) -> Result<(), IntegrationError> {
        for i in 0..self.n {
            let (z1, z2, z3) = (self.z[0][i], self.z[1][i], self.z[2][i]);
            self.track.y[i] += z3;
            let d1 = (z2 - z3) / C2M1;
            let ak = (z1 - z2) / C1MC2;
            let acont3 = (ak - z1 / C1) / C2;
            let d2 = (ak - d1) / C1M1;
            self.dense[0][i] = self.track.y[i];
            self.dense[1][i] = d1;
            self.dense[2][i] = d2;
            self.dense[3][i] = d2 - acont3;
        }
        self.h_old = h;
        self.size
            .finish(system, &mut self.track, t_new, &mut self.rate, false)?;
        self.jacobian_current = false;
        self.first = false;
        Ok(())
    }

    /// After a failed attempt: shrink by `factor` and refactorise, forming
    /// the Jacobian again only if it was not formed at this state.
    fn retry(&mut self, h: f64, factor: f64) -> f64 {
        self.track.stats.rejected += 1;
        self.rejected_last = true;
        self.jacobian_stale = !self.jacobian_current;
        self.real_lu = None;
        h * factor
    }
}

/// The vectors the Newton iteration overwrites on every pass: a stage
/// value, the rates at the three stages and the transformed increments.
#[derive(Clone, Debug, Default)]
struct NewtonWork {
    stage: Vec<f64>,
    f: [Vec<f64>; 3],
    dw: [Vec<f64>; 3],
}

/// How a Newton iteration ended.
enum Newton {
    /// Converged after this many iterations.
    Converged(usize),
    /// Converging, but too slowly to finish: shrink the step by this factor.
    TooSlow(f64),
    /// Diverged, or a stage could not be evaluated.
    Diverged,
}

impl<S: OdeSystem> Stepper<S> for Radau5 {
    fn step(&mut self, system: &mut S, t_end: f64) -> Result<(), IntegrationError> {
        let tolerances = Tolerances {
            rtol: self.rtol,
            atol: self.atol,
        };
        let begun = self
            .size
            .begin(system, &mut self.track, &self.rate, t_end, tolerances, 5)?;
        let Some((mut h, h_max)) = begun else {
            return Ok(());
        };
        loop {
            let (h_try, t_new) = self.size.attempt(&self.track, t_end, h, h_max)?;
            if self.jacobian_stale {
                self.form_jacobian(system)?;
            }
            if self.real_lu.is_none() || self.lu_step != h_try {
                if !self.factorise(h_try) {
                    self.singular_in_a_row += 1;
                    if self.singular_in_a_row >= SINGULAR_LIMIT {
                        return Err(IntegrationError::StepSizeTooSmall {
                            t: self.track.t,
                            h: h_try,
                        });
                    }
                    h = self.retry(h_try, 0.5);
                    continue;
                }
                self.singular_in_a_row = 0;
            }
            for i in 0..self.n {
                self.scale[i] = self.atol + self.rtol * self.track.y[i].abs();
            }
            self.start_stages(h_try);
            let iterations = match self.newton(system, h_try)? {
                Newton::Converged(iterations) => iterations,
                Newton::TooSlow(factor) => {
                    h = self.retry(h_try, factor);
                    continue;
                }
                Newton::Diverged => {
                    h = self.retry(h_try, 0.5);
                    continue;
                }
            };
            let error = self.error(system, h_try)?;
            let fac = SAFETY.min(
                SAFETY * (1 + 2 * NEWTON_ITERATIONS) as f64
                    / (iterations + 2 * NEWTON_ITERATIONS) as f64,
            );
            let mut quot = (error.powf(0.25) / fac).clamp(1.0 / MAX_GROWTH, MAX_SHRINK);
            if error < 1.0 {
                if self.track.stats.steps > 0 {
                    let gustafsson = (self.h_accepted / h_try)
                        * (error * error / self.error_accepted).powf(0.25)
                        / SAFETY;
                    quot = quot.max(gustafsson.clamp(1.0 / MAX_GROWTH, MAX_SHRINK));
                }
                self.h_accepted = h_try;
                self.error_accepted = error.max(1e-2);
                let mut h_new = (h_try / quot).min(h_max);
                if self.rejected_last {
                    h_new = h_new.min(h_try);
                }
                self.rejected_last = false;
                self.accept(system, h_try, t_new)?;
                let ratio = h_new / h_try;
                if self.theta <= JACOBIAN_REUSE && (1.0..=1.2).contains(&ratio) {
                    self.size.next = Some(h_try);
                } else {
                    self.size.next = Some(h_new);
                    self.jacobian_stale = self.theta > JACOBIAN_REUSE;
                }
                return Ok(());
            }
            let factor = if self.first { 0.1 } else { 1.0 / quot };
            h = self.retry(h_try, factor);
        }
    }
}

trajectory!([] f64, Radau5);

impl Radau5 {
    /// The continuous extension of the last step at `t`.
    fn dense_value(&self, t: f64, out: &mut [f64]) {
        if self.h_old <= 0.0 {
            // A wrong-length `out` gets what fits rather than a panic.
            for (o, y) in out.iter_mut().zip(&self.track.y) {
                *o = *y;
            }
            return;
        }
        let s = (t - self.track.t) / self.h_old;
        let d = &self.dense;
        for (i, o) in out.iter_mut().enumerate().take(self.track.y.len()) {
            *o = d[0][i] + s * (d[1][i] + (s - C2M1) * (d[2][i] + (s - C1M1) * d[3][i]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tableau::*;

    #[test]
    fn the_transformation_block_diagonalises_the_inverse_coefficient_matrix() {
        let s6 = 6.0_f64.sqrt();
        assert!((SQ6 - s6).abs() < 1e-15);
        let a = [
            [
                (88.0 - 7.0 * s6) / 360.0,
                (296.0 - 169.0 * s6) / 1800.0,
                (-2.0 + 3.0 * s6) / 225.0,
            ],
            [
                (296.0 + 169.0 * s6) / 1800.0,
                (88.0 + 7.0 * s6) / 360.0,
                (-2.0 - 3.0 * s6) / 225.0,
            ],
            [(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0],
        ];
        // Row sums of A are the nodes.
        for (row, c) in a.iter().zip([C1, C2, 1.0]) {
            assert!((row.iter().sum::<f64>() - c).abs() < 1e-15);
        }
        let mul = |x: &[[f64; 3]; 3], y: &[[f64; 3]; 3]| -> [[f64; 3]; 3] {
            core::array::from_fn(|i| {
                core::array::from_fn(|j| (0..3).map(|k| x[i][k] * y[k][j]).sum())
            })
        };
        let identity = mul(&T, &TI);
        // TI · A⁻¹ · T = D  ⇔  A · T · D = T.
        let d = [[GAMMA, 0.0, 0.0], [0.0, ALPHA, -BETA], [0.0, BETA, ALPHA]];
        let lhs = mul(&mul(&a, &T), &d);
        for i in 0..3 {
            for j in 0..3 {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!(
                    (identity[i][j] - expected).abs() < 1e-14,
                    "T·TI = {identity:?}"
                );
                assert!((lhs[i][j] - T[i][j]).abs() < 1e-13, "A·T·D = {lhs:?}");
            }
        }
    }
}
