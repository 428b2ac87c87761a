//! Dormand and Prince's explicit Runge–Kutta pair 8(5,3) with Hairer's
//! step-size control and dense output of order 7 (`dop853`, HNW I, II.10):
//! the method for tight tolerances, where MATLAB users take `ode113`.
//!
//! Each step costs 12 evaluations (the last reused as the first of the next
//! step) and 3 more for the continuous extension.

use super::control::{self, AdaptiveTrack, Controller};
use super::step::{self, ExplicitPair, StepSize};
use crate::{IntegrationError, OdeSystem, Tolerances};

// Coefficients of Hairer's `dop853` (Dormand and Prince's 8(5,3) pair and its
// dense output of order 7), as published with the code; the tests check the
// row sums, the weights and the order of convergence.
const C2: f64 = 0.05260015195876773;
const C3: f64 = 0.0789002279381516;
const C4: f64 = 0.1183503419072274;
const C5: f64 = 0.2816496580927726;
const C6: f64 = 0.3333333333333333;
const C7: f64 = 0.25;
const C8: f64 = 0.3076923076923077;
const C9: f64 = 0.6512820512820513;
const C10: f64 = 0.6;
const C11: f64 = 0.8571428571428571;
const C14: f64 = 0.1;
const C15: f64 = 0.2;
const C16: f64 = 0.7777777777777778;
const B1: f64 = 0.054293734116568765;
const B6: f64 = 4.450312892752409;
const B7: f64 = 1.8915178993145003;
const B8: f64 = -5.801203960010585;
const B9: f64 = 0.3111643669578199;
const B10: f64 = -0.1521609496625161;
const B11: f64 = 0.20136540080403034;
const B12: f64 = 0.04471061572777259;
const BHH1: f64 = 0.2440944881889764;
const BHH2: f64 = 0.7338466882816118;
const BHH3: f64 = 0.022058823529411766;
const ER1: f64 = 0.01312004499419488;
const ER6: f64 = -1.2251564463762044;
const ER7: f64 = -0.4957589496572502;
const ER8: f64 = 1.6643771824549864;
const ER9: f64 = -0.35032884874997366;
const ER10: f64 = 0.3341791187130175;
const ER11: f64 = 0.08192320648511571;
const ER12: f64 = -0.022355307863886294;
const A21: f64 = 0.05260015195876773;
const A31: f64 = 0.0197250569845379;
const A32: f64 = 0.0591751709536137;
const A41: f64 = 0.02958758547680685;
const A43: f64 = 0.08876275643042054;
const A51: f64 = 0.2413651341592667;
const A53: f64 = -0.8845494793282861;
const A54: f64 = 0.924834003261792;
const A61: f64 = 0.037037037037037035;
const A64: f64 = 0.17082860872947386;
const A65: f64 = 0.12546768756682242;
const A71: f64 = 0.037109375;
const A74: f64 = 0.17025221101954405;
const A75: f64 = 0.06021653898045596;
const A76: f64 = -0.017578125;
const A81: f64 = 0.03709200011850479;
const A84: f64 = 0.17038392571223998;
const A85: f64 = 0.10726203044637328;
const A86: f64 = -0.015319437748624402;
const A87: f64 = 0.008273789163814023;
const A91: f64 = 0.6241109587160757;
const A94: f64 = -3.3608926294469414;
const A95: f64 = -0.868219346841726;
const A96: f64 = 27.59209969944671;
const A97: f64 = 20.154067550477894;
const A98: f64 = -43.48988418106996;
const A101: f64 = 0.47766253643826434;
const A104: f64 = -2.4881146199716677;
const A105: f64 = -0.590290826836843;
const A106: f64 = 21.230051448181193;
const A107: f64 = 15.279233632882423;
const A108: f64 = -33.28821096898486;
const A109: f64 = -0.020331201708508627;
const A111: f64 = -0.9371424300859873;
const A114: f64 = 5.186372428844064;
const A115: f64 = 1.0914373489967295;
const A116: f64 = -8.149787010746927;
const A117: f64 = -18.52006565999696;
const A118: f64 = 22.739487099350505;
const A119: f64 = 2.4936055526796523;
const A1110: f64 = -3.0467644718982196;
const A121: f64 = 2.273310147516538;
const A124: f64 = -10.53449546673725;
const A125: f64 = -2.0008720582248625;
const A126: f64 = -17.9589318631188;
const A127: f64 = 27.94888452941996;
const A128: f64 = -2.8589982771350235;
const A129: f64 = -8.87285693353063;
const A1210: f64 = 12.360567175794303;
const A1211: f64 = 0.6433927460157636;
const A141: f64 = 0.056167502283047954;
const A147: f64 = 0.25350021021662483;
const A148: f64 = -0.2462390374708025;
const A149: f64 = -0.12419142326381637;
const A1410: f64 = 0.15329179827876568;
const A1411: f64 = 0.00820105229563469;
const A1412: f64 = 0.007567897660545699;
const A1413: f64 = -0.008298;
const A151: f64 = 0.03183464816350214;
const A156: f64 = 0.028300909672366776;
const A157: f64 = 0.053541988307438566;
const A158: f64 = -0.05492374857139099;
const A1511: f64 = -0.00010834732869724932;
const A1512: f64 = 0.0003825710908356584;
const A1513: f64 = -0.00034046500868740456;
const A1514: f64 = 0.1413124436746325;
const A161: f64 = -0.42889630158379194;
const A166: f64 = -4.697621415361164;
const A167: f64 = 7.683421196062599;
const A168: f64 = 4.06898981839711;
const A169: f64 = 0.3567271874552811;
const A1613: f64 = -0.0013990241651590145;
const A1614: f64 = 2.9475147891527724;
const A1615: f64 = -9.15095847217987;
const D41: f64 = -8.428938276109013;
const D46: f64 = 0.5667149535193777;
const D47: f64 = -3.0689499459498917;
const D48: f64 = 2.38466765651207;
const D49: f64 = 2.117034582445028;
const D410: f64 = -0.871391583777973;
const D411: f64 = 2.2404374302607883;
const D412: f64 = 0.6315787787694688;
const D413: f64 = -0.08899033645133331;
const D414: f64 = 18.148505520854727;
const D415: f64 = -9.194632392478356;
const D416: f64 = -4.436036387594894;
const D51: f64 = 10.427508642579134;
const D56: f64 = 242.28349177525817;
const D57: f64 = 165.20045171727028;
const D58: f64 = -374.5467547226902;
const D59: f64 = -22.113666853125306;
const D510: f64 = 7.733432668472264;
const D511: f64 = -30.674084731089398;
const D512: f64 = -9.332130526430229;
const D513: f64 = 15.697238121770845;
const D514: f64 = -31.139403219565178;
const D515: f64 = -9.35292435884448;
const D516: f64 = 35.81684148639408;
const D61: f64 = 19.985053242002433;
const D66: f64 = -387.0373087493518;
const D67: f64 = -189.17813819516758;
const D68: f64 = 527.8081592054236;
const D69: f64 = -11.57390253995963;
const D610: f64 = 6.8812326946963;
const D611: f64 = -1.0006050966910838;
const D612: f64 = 0.7777137798053443;
const D613: f64 = -2.778205752353508;
const D614: f64 = -60.19669523126412;
const D615: f64 = 84.32040550667716;
const D616: f64 = 11.99229113618279;
const D71: f64 = -25.69393346270375;
const D76: f64 = -154.18974869023643;
const D77: f64 = -231.5293791760455;
const D78: f64 = 357.6391179106141;
const D79: f64 = 93.40532418362432;
const D710: f64 = -37.45832313645163;
const D711: f64 = 104.0996495089623;
const D712: f64 = 29.8402934266605;
const D713: f64 = -43.53345659001114;
const D714: f64 = 96.32455395918828;
const D715: f64 = -39.17726167561544;
const D716: f64 = -149.72683625798564;

/// The stages of a step after the first: `(c, [(a, stage)])`, stages
/// numbered from 1 as in HNW (stage 1 is `f(t, y)`).
const STAGES: [(f64, &[(f64, usize)]); 11] = [
    (C2, &[(A21, 1)]),
    (C3, &[(A31, 1), (A32, 2)]),
    (C4, &[(A41, 1), (A43, 3)]),
    (C5, &[(A51, 1), (A53, 3), (A54, 4)]),
    (C6, &[(A61, 1), (A64, 4), (A65, 5)]),
    (C7, &[(A71, 1), (A74, 4), (A75, 5), (A76, 6)]),
    (C8, &[(A81, 1), (A84, 4), (A85, 5), (A86, 6), (A87, 7)]),
    (
        C9,
        &[(A91, 1), (A94, 4), (A95, 5), (A96, 6), (A97, 7), (A98, 8)],
    ),
    (
        C10,
        &[
            (A101, 1),
            (A104, 4),
            (A105, 5),
            (A106, 6),
            (A107, 7),
            (A108, 8),
            (A109, 9),
        ],
    ),
    (
        C11,
        &[
            (A111, 1),
            (A114, 4),
            (A115, 5),
            (A116, 6),
            (A117, 7),
            (A118, 8),
            (A119, 9),
            (A1110, 10),
        ],
    ),
    (
        1.0,
        &[
            (A121, 1),
            (A124, 4),
            (A125, 5),
            (A126, 6),
            (A127, 7),
            (A128, 8),
            (A129, 9),
            (A1210, 10),
            (A1211, 11),
        ],
    ),
];

/// The weights of the solution of order 8.
const WEIGHTS: [(f64, usize); 8] = [
    (B1, 1),
    (B6, 6),
    (B7, 7),
    (B8, 8),
    (B9, 9),
    (B10, 10),
    (B11, 11),
    (B12, 12),
];

/// The weights of the error estimate of order 5.
const ERROR5: [(f64, usize); 8] = [
    (ER1, 1),
    (ER6, 6),
    (ER7, 7),
    (ER8, 8),
    (ER9, 9),
    (ER10, 10),
    (ER11, 11),
    (ER12, 12),
];

/// The extra stages of the dense output (stage 13 is `f(t + h, y₁)`).
const DENSE_STAGES: [(f64, &[(f64, usize)]); 3] = [
    (
        C14,
        &[
            (A141, 1),
            (A147, 7),
            (A148, 8),
            (A149, 9),
            (A1410, 10),
            (A1411, 11),
            (A1412, 12),
            (A1413, 13),
        ],
    ),
    (
        C15,
        &[
            (A151, 1),
            (A156, 6),
            (A157, 7),
            (A158, 8),
            (A1511, 11),
            (A1512, 12),
            (A1513, 13),
            (A1514, 14),
        ],
    ),
    (
        C16,
        &[
            (A161, 1),
            (A166, 6),
            (A167, 7),
            (A168, 8),
            (A169, 9),
            (A1613, 13),
            (A1614, 14),
            (A1615, 15),
        ],
    ),
];

/// The four rows of dense-output weights (`rcont5` … `rcont8` of HNW).
const DENSE: [[(f64, usize); 12]; 4] = [
    [
        (D41, 1),
        (D46, 6),
        (D47, 7),
        (D48, 8),
        (D49, 9),
        (D410, 10),
        (D411, 11),
        (D412, 12),
        (D413, 13),
        (D414, 14),
        (D415, 15),
        (D416, 16),
    ],
    [
        (D51, 1),
        (D56, 6),
        (D57, 7),
        (D58, 8),
        (D59, 9),
        (D510, 10),
        (D511, 11),
        (D512, 12),
        (D513, 13),
        (D514, 14),
        (D515, 15),
        (D516, 16),
    ],
    [
        (D61, 1),
        (D66, 6),
        (D67, 7),
        (D68, 8),
        (D69, 9),
        (D610, 10),
        (D611, 11),
        (D612, 12),
        (D613, 13),
        (D614, 14),
        (D615, 15),
        (D616, 16),
    ],
    [
        (D71, 1),
        (D76, 6),
        (D77, 7),
        (D78, 8),
        (D79, 9),
        (D710, 10),
        (D711, 11),
        (D712, 12),
        (D713, 13),
        (D714, 14),
        (D715, 15),
        (D716, 16),
    ],
];

/// DOP853 in the middle of an integration.
#[derive(Clone, Debug)]
pub struct Dop853 {
    tolerances: Tolerances,
    size: StepSize,
    controller: Controller,
    track: AdaptiveTrack,
    /// The size of the last accepted step, for the dense output.
    h_last: f64,
    /// Stages 1 to 16 (stage 1 is `f(t, y)`, stage 13 `f(t + h, y₁)`).
    k: Vec<Vec<f64>>,
    stage: Vec<f64>,
    y_new: Vec<f64>,
    /// `y₀`, `y₁ − y₀`, and the six further coefficients of the
    /// continuous extension of the last step.
    dense: [Vec<f64>; 8],
}

impl Dop853 {
    /// The integrator at the start of an integration: `track` at the
    /// initial time, `rate` the rate there.
    fn starting(track: AdaptiveTrack, rate: Vec<f64>, tolerances: Tolerances) -> Self {
        let n = track.y.len();
        let mut k = vec![vec![0.0; n]; 17];
        k[1] = rate;
        let mut dense: [Vec<f64>; 8] = core::array::from_fn(|_| vec![0.0; n]);
        dense[0].copy_from_slice(&track.y);
        Dop853 {
            tolerances,
            size: StepSize::new(track.t),
            controller: Controller::dop853(),
            track,
            h_last: 0.0,
            k,
            stage: vec![0.0; n],
            y_new: vec![0.0; n],
            dense,
        }
    }

    super::constructors!();

    /// `Σ aⱼ kⱼ` of component `i`.
    fn weighted(&self, i: usize, terms: &[(f64, usize)]) -> f64 {
        terms.iter().map(|&(a, j)| a * self.k[j][i]).sum()
    }

    /// Evaluates stage `number` at `t + c h` from `y + h Σ aⱼ kⱼ`; `false`
    /// when it overflowed.
    fn evaluate_stage<S: OdeSystem>(
        &mut self,
        system: &mut S,
        number: usize,
        c: f64,
        h: f64,
        terms: &[(f64, usize)],
    ) -> Result<bool, IntegrationError> {
        for i in 0..self.track.y.len() {
            self.stage[i] = self.track.y[i] + h * self.weighted(i, terms);
        }
        let mut k = std::mem::take(&mut self.k[number]);
        let finite = control::evaluate(
            system,
            self.track.t + c * h,
            &self.stage,
            &mut k,
            &mut self.track.stats,
        );
        self.k[number] = k;
        finite
    }

    /// HNW's error norm of a step of size `h` (infinite when a stage
    /// overflowed), its end state in `y_new`.
    fn estimate<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError> {
        for (s, (c, terms)) in STAGES.iter().enumerate() {
            if !self.evaluate_stage(system, s + 2, *c, h, terms)? {
                return Ok(f64::INFINITY);
            }
        }
        let n = self.track.y.len();
        let (mut err, mut err2) = (0.0, 0.0);
        for i in 0..n {
            let increment = self.weighted(i, &WEIGHTS);
            self.y_new[i] = self.track.y[i] + h * increment;
            let sk = control::scale(self.tolerances, self.track.y[i], self.y_new[i]);
            let e3 = increment - BHH1 * self.k[1][i] - BHH2 * self.k[9][i] - BHH3 * self.k[12][i];
            err2 += (e3 / sk).powi(2);
            err += (self.weighted(i, &ERROR5) / sk).powi(2);
        }
        let mut denominator = err + 0.01 * err2;
        if denominator <= 0.0 {
            denominator = 1.0;
        }
        let error = h.abs() * err * (1.0 / (n as f64 * denominator)).sqrt();
        if !self.y_new.iter().all(|c| c.is_finite()) {
            return Ok(f64::INFINITY);
        }
        Ok(error)
    }

    /// Stage 13 (`f(t + h, y₁)`, kept as the next step's first stage), the
    /// three extra stages and the coefficients of the continuous extension.
    fn prepare_dense_output<S: OdeSystem>(
        &mut self,
        system: &mut S,
        h: f64,
    ) -> Result<bool, IntegrationError> {
        let mut k13 = std::mem::take(&mut self.k[13]);
        let finite = control::evaluate(
            system,
            self.track.t + h,
            &self.y_new,
            &mut k13,
            &mut self.track.stats,
        )?;
        self.k[13] = k13;
        if !finite {
            return Ok(false);
        }
        for (s, (c, terms)) in DENSE_STAGES.iter().enumerate() {
            if !self.evaluate_stage(system, s + 14, *c, h, terms)? {
                return Ok(false);
            }
        }
        for i in 0..self.track.y.len() {
            let difference = self.y_new[i] - self.track.y[i];
            let bspl = h * self.k[1][i] - difference;
            self.dense[0][i] = self.track.y[i];
            self.dense[1][i] = difference;
            self.dense[2][i] = bspl;
            self.dense[3][i] = difference - h * self.k[13][i] - bspl;
            for (row, weights) in DENSE.iter().enumerate() {
                self.dense[4 + row][i] = h * self.weighted(i, weights);
            }
        }
        Ok(true)
    }
}

impl ExplicitPair for Dop853 {
    const ORDER: i32 = 8;

    fn attempt<S: OdeSystem>(&mut self, system: &mut S, h: f64) -> Result<f64, IntegrationError> {
        let error = self.estimate(system, h)?;
        if error <= 1.0 && !self.prepare_dense_output(system, h)? {
            return Ok(f64::INFINITY);
        }
        Ok(error)
    }

    fn take(&mut self, h: f64) {
        self.h_last = h;
        std::mem::swap(&mut self.track.y, &mut self.y_new);
        self.k.swap(1, 13);
    }

    fn extension(&self, i: usize, s: f64, s1: f64) -> f64 {
        let d = &self.dense;
        let inner = d[4][i] + s * (d[5][i] + s1 * (d[6][i] + s * d[7][i]));
        d[0][i] + s * (d[1][i] + s1 * (d[2][i] + s * (d[3][i] + s1 * inner)))
    }
}

step::explicit_pair!(Dop853, k[1]);

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks on the published decimals: each row sums to its node (to the
    /// digits given), the weights integrate `cᵏ` exactly for `k ≤ 7` and
    /// satisfy the order conditions `Σ bᵢ aᵢⱼ cⱼᵏ = 1/((k+1)(k+2))` of the
    /// "tall" trees up to order 8; the order-5 error weights sum to zero and
    /// the order-3 weights to one. The integration tests measure the orders.
    #[test]
    fn the_coefficients_satisfy_the_order_conditions() {
        let mut nodes = [0.0; 17];
        let mut rows: [&[(f64, usize)]; 17] = [&[]; 17];
        let all = STAGES.iter().enumerate().map(|(s, r)| (s + 2, r));
        let dense = DENSE_STAGES.iter().enumerate().map(|(s, r)| (s + 14, r));
        for (number, (c, terms)) in all.chain(dense) {
            let sum: f64 = terms.iter().map(|&(a, _)| a).sum();
            assert!((sum - c).abs() < 1e-14, "row {number}: {sum} ≠ {c}");
            nodes[number] = *c;
            rows[number] = terms;
        }
        nodes[13] = 1.0;
        for k in 0..8 {
            let quadrature: f64 = WEIGHTS.iter().map(|&(b, j)| b * nodes[j].powi(k)).sum();
            let exact = 1.0 / f64::from(k + 1);
            assert!(
                (quadrature - exact).abs() < 1e-14,
                "Σ b c^{k} = {quadrature}"
            );
        }
        for k in 0..7 {
            let tall: f64 = WEIGHTS
                .iter()
                .map(|&(b, i)| {
                    b * rows[i]
                        .iter()
                        .map(|&(a, j)| a * nodes[j].powi(k))
                        .sum::<f64>()
                })
                .sum();
            let exact = 1.0 / f64::from((k + 1) * (k + 2));
            assert!((tall - exact).abs() < 1e-13, "Σ b a c^{k} = {tall}");
        }
        let errors: f64 = ERROR5.iter().map(|&(e, _)| e).sum();
        assert!(errors.abs() < 1e-14, "Σ e = {errors}");
        assert!((BHH1 + BHH2 + BHH3 - 1.0).abs() < 1e-15);
    }
}
