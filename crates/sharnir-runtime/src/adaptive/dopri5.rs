//! Dormand–Prince 5(4): the explicit Runge–Kutta pair of MATLAB's `ode45`,
//! with the step-size control and the dense output of order 4 of Hairer's
//! `dopri5` (HNW I, II.5–II.6).

use super::control::{self, AdaptiveTrack, Controller};
use super::step::{self, ExplicitPair, StepSize};
use crate::{IntegrationError, OdeSystem, Tolerances};

const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const A71: f64 = 35.0 / 384.0;
const A73: f64 = 500.0 / 1113.0;
const A74: f64 = 125.0 / 192.0;
const A75: f64 = -2187.0 / 6784.0;
const A76: f64 = 11.0 / 84.0;
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;
const D1: f64 = -12715105075.0 / 11282082432.0;
const D3: f64 = 87487479700.0 / 32700410799.0;
const D4: f64 = -10690763975.0 / 1880347072.0;
const D5: f64 = 701980252875.0 / 199316789632.0;
const D6: f64 = -1453857185.0 / 822651844.0;
const D7: f64 = 69997945.0 / 29380423.0;

/// Stages 2 to 6 as `(c, [(a, stage)])`, stage 0 being `f(t, y)`.
const STAGES: [(f64, &[(f64, usize)]); 5] = [
    (C2, &[(A21, 0)]),
    (C3, &[(A31, 0), (A32, 1)]),
    (C4, &[(A41, 0), (A42, 1), (A43, 2)]),
    (C5, &[(A51, 0), (A52, 1), (A53, 2), (A54, 3)]),
    (1.0, &[(A61, 0), (A62, 1), (A63, 2), (A64, 3), (A65, 4)]),
];

/// The weights of the solution of order 5 (stages numbered as in
/// [`STAGES`]; `b₂ = 0`). They are also the tableau's seventh row, so the
/// seventh evaluation, at `y₁`, is the next step's first ("first same as
/// last").
const WEIGHTS: [(f64, usize); 5] = [(A71, 0), (A73, 2), (A74, 3), (A75, 4), (A76, 5)];

/// Dormand–Prince 5(4) in the middle of an integration.
#[derive(Clone, Debug)]
pub struct Dopri5 {
    tolerances: Tolerances,
    size: StepSize,
    controller: Controller,
    track: AdaptiveTrack,
    /// The size of the last accepted step, for the dense output.
    h_last: f64,
    /// `f(t, y)`, the first stage of the next step.
    rate: Vec<f64>,
    k: [Vec<f64>; 5],
    stage: Vec<f64>,
    y_new: Vec<f64>,
    rate_new: Vec<f64>,
    /// Coefficients of the continuous extension of the last step.
    dense: [Vec<f64>; 5],
}

impl Dopri5 {
    /// The integrator at the start of an integration: `track` at the
    /// initial time, `rate` the rate there.
    fn starting(track: AdaptiveTrack, rate: Vec<f64>, tolerances: Tolerances) -> Self {
        let zeros = vec![0.0; track.y.len()];
        Dopri5 {
            tolerances,
            size: StepSize::new(track.t),
            controller: Controller::dopri5(),
            h_last: 0.0,
            dense: [
                track.y.clone(),
                zeros.clone(),
                zeros.clone(),
                zeros.clone(),
                zeros.clone(),
            ],
            track,
            rate,
            k: core::array::from_fn(|_| zeros.clone()),
            stage: zeros.clone(),
            y_new: zeros.clone(),
            rate_new: zeros,
        }
    }

    super::constructors!();

    /// `stage = y + h Σ aⱼ kⱼ` over the given stages.
    fn combine(&mut self, h: f64, terms: &[(f64, usize)]) {
        for i in 0..self.track.y.len() {
            let mut sum = 0.0;
            for &(a, j) in terms {
                sum += a * if j == 0 {
                    self.rate[i]
                } else {
                    self.k[j - 1][i]
                };
            }
            self.stage[i] = self.track.y[i] + h * sum;
        }
    }

    /// The scaled error norm of a step of size `h` (infinite when a stage
    /// overflowed), its end state in `y_new` and its rate in `rate_new`.
    fn estimate<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError> {
        let t = self.track.t;
        for (s, (c, terms)) in STAGES.iter().enumerate() {
            self.combine(h, terms);
            let mut k = std::mem::take(&mut self.k[s]);
            let finite = control::evaluate(
                system,
                t + c * h,
                &self.stage,
                &mut k,
                &mut self.track.stats,
            )?;
            self.k[s] = k;
            if !finite {
                return Ok(f64::INFINITY);
            }
        }
        self.combine(h, &WEIGHTS);
        self.y_new.copy_from_slice(&self.stage);
        // Finite stages can still sum to an overflow, which the scaled error
        // (infinity over infinity) would not notice.
        if !self.y_new.iter().all(|c| c.is_finite()) {
            return Ok(f64::INFINITY);
        }
        let finite = control::evaluate(
            system,
            t + h,
            &self.y_new,
            &mut self.rate_new,
            &mut self.track.stats,
        )?;
        if !finite {
            return Ok(f64::INFINITY);
        }
        let n = self.track.y.len();
        let mut sum = 0.0;
        for i in 0..n {
            let k = &self.k;
            let e = h
                * (E1 * self.rate[i]
                    + E3 * k[1][i]
                    + E4 * k[2][i]
                    + E5 * k[3][i]
                    + E6 * k[4][i]
                    + E7 * self.rate_new[i]);
            let sk = control::scale(self.tolerances, self.track.y[i], self.y_new[i]);
            sum += (e / sk).powi(2);
        }
        Ok((sum / n as f64).sqrt())
    }

    /// The continuous extension of the accepted step of size `h` from
    /// `y` to `y_new` (HNW's `CONTD5` coefficients).
    fn prepare_dense_output(&mut self, h: f64) {
        for i in 0..self.track.y.len() {
            let difference = self.y_new[i] - self.track.y[i];
            let bspl = h * self.rate[i] - difference;
            let k = &self.k;
            self.dense[0][i] = self.track.y[i];
            self.dense[1][i] = difference;
            self.dense[2][i] = bspl;
            self.dense[3][i] = difference - h * self.rate_new[i] - bspl;
            self.dense[4][i] = h
                * (D1 * self.rate[i]
                    + D3 * k[1][i]
                    + D4 * k[2][i]
                    + D5 * k[3][i]
                    + D6 * k[4][i]
                    + D7 * self.rate_new[i]);
        }
    }
}

impl ExplicitPair for Dopri5 {
    const ORDER: i32 = 5;

    fn attempt<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError> {
        let error = self.estimate(system, h)?;
        if error <= 1.0 {
            self.prepare_dense_output(h);
        }
        Ok(error)
    }

    fn take(&mut self, h: f64) {
        self.h_last = h;
        std::mem::swap(&mut self.track.y, &mut self.y_new);
        std::mem::swap(&mut self.rate, &mut self.rate_new);
    }

    fn extension(&self, i: usize, s: f64, s1: f64) -> f64 {
        let d = &self.dense;
        d[0][i] + s * (d[1][i] + s1 * (d[2][i] + s * (d[3][i] + s1 * d[4][i])))
    }
}

step::explicit_pair!(Dopri5, rate);

#[cfg(test)]
mod tests {
    use super::*;

    /// The tableau's consistency and quadrature conditions (a typo in a
    /// fraction breaks one of them), and the error weights `b − b̂` summing
    /// to zero, as the difference of two consistent methods must.
    #[test]
    fn the_tableau_satisfies_its_order_conditions() {
        let mut nodes = [0.0; 6];
        for (s, (c, terms)) in STAGES.iter().enumerate() {
            let sum: f64 = terms.iter().map(|&(a, _)| a).sum();
            assert!((sum - c).abs() < 1e-15, "row {}", s + 2);
            nodes[s + 1] = *c;
        }
        for k in 0..5 {
            let quadrature: f64 = WEIGHTS.iter().map(|&(b, j)| b * nodes[j].powi(k)).sum();
            assert!(
                (quadrature - 1.0 / f64::from(k + 1)).abs() < 1e-15,
                "k = {k}"
            );
        }
        let errors = E1 + E3 + E4 + E5 + E6 + E7;
        assert!(errors.abs() < 1e-16, "{errors}");
    }
}
