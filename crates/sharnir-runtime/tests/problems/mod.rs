//! The classic test problems both adaptive-integrator test files use.
#![allow(dead_code)]

use sharnir_runtime::{OdeSystem, RhsError, Tolerances};

/// `x'' = −x`, from `x = 1` at rest: `x = cos t`.
pub struct Oscillator;

impl OdeSystem for Oscillator {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = -y[0];
        Ok(())
    }
}

pub fn tolerance(t: f64) -> Tolerances {
    Tolerances { rtol: t, atol: t }
}

/// The restricted three-body problem of HNW I, (0.1): a periodic orbit.
pub struct Arenstorf;

pub const MU: f64 = 0.012277471;
pub const PERIOD: f64 = 17.065_216_560_157_962_558_891_720_624_9;

impl OdeSystem for Arenstorf {
    fn dimension(&self) -> usize {
        4
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let mu1 = 1.0 - MU;
        let d1 = ((y[0] + MU).powi(2) + y[1].powi(2)).powf(1.5);
        let d2 = ((y[0] - mu1).powi(2) + y[1].powi(2)).powf(1.5);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = y[0] + 2.0 * y[3] - mu1 * (y[0] + MU) / d1 - MU * (y[0] - mu1) / d2;
        dy[3] = y[1] - 2.0 * y[2] - mu1 * y[1] / d1 - MU * y[1] / d2;
        Ok(())
    }
}

/// Robertson's chemical kinetics, the classic stiff test.
pub struct Robertson;

impl OdeSystem for Robertson {
    fn dimension(&self) -> usize {
        3
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        dy[2] = 3e7 * y[1] * y[1];
        dy[1] = -dy[0] - dy[2];
        Ok(())
    }
    fn jacobian(&mut self, _t: f64, y: &[f64], j: &mut [f64]) -> Result<bool, RhsError> {
        j.copy_from_slice(&[
            -0.04,
            1e4 * y[2],
            1e4 * y[1],
            0.04,
            -1e4 * y[2] - 6e7 * y[1],
            -1e4 * y[1],
            0.0,
            6e7 * y[1],
            0.0,
        ]);
        Ok(true)
    }
}

/// Van der Pol's oscillator `y'' − μ(1 − y²) y' + y = 0` with μ = 1000
/// (MATLAB's `vdp1000`, period about 1614): stiff on its slow branches.
pub struct VanDerPol;

impl OdeSystem for VanDerPol {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = 1000.0 * (1.0 - y[0] * y[0]) * y[1] - y[0];
        Ok(())
    }
}
