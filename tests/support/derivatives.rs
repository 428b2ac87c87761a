//! Derivatives of the numeric oracle's dynamics by central finite
//! differences, in Pinocchio's convention: a configuration is perturbed
//! along the manifold, `q ⊕ ±h eⱼ` by the oracle's own `integrate` (a
//! spherical joint turned on the right, in the body frame; a free joint's
//! position moved along its body axes), velocities and forces plainly.
//!
//! Written apart from the symbolic derivatives on purpose: nothing here
//! reads `sharnir-mech` or `sharnir-cas`.

use crate::oracle::Oracle;

/// The step of the central differences: with the dynamics of order one,
/// the truncation error `h²/6 f'''` and the rounding `ε |f| / h` are both
/// about 1e-10 of the entries.
pub const STEP: f64 = 1e-5;

/// The oracle's derivatives at one state, each `NV × NV` row-major (row:
/// output, column: velocity coordinate or joint force).
pub struct Derivatives {
    /// `∂τ/∂q` of the inverse dynamics at `(q, q̇, q̈)`.
    pub inverse_by_position: Vec<f64>,
    /// `∂τ/∂q̇`.
    pub inverse_by_velocity: Vec<f64>,
    /// `∂g/∂q` of the gravity forces.
    pub gravity_by_position: Vec<f64>,
    /// `∂q̈/∂q` of the forward dynamics at `(q, q̇, τ)`.
    pub forward_by_position: Vec<f64>,
    /// `∂q̈/∂q̇`.
    pub forward_by_velocity: Vec<f64>,
    /// `∂q̈/∂τ`.
    pub forward_by_force: Vec<f64>,
}

impl Derivatives {
    /// Every derivative at `(q, qd)` with accelerations `qdd` (inverse
    /// dynamics) and joint forces `tau` (forward dynamics).
    pub fn at(oracle: &Oracle, q: &[f64], qd: &[f64], qdd: &[f64], tau: &[f64]) -> Derivatives {
        let zero = vec![0.0; qd.len()];
        Derivatives {
            inverse_by_position: by_position(oracle, q, |q| oracle.inverse_dynamics(q, qd, qdd)),
            inverse_by_velocity: by_vector(qd, |qd| oracle.inverse_dynamics(q, qd, qdd)),
            gravity_by_position: by_position(oracle, q, |q| oracle.bias(q, &zero)),
            forward_by_position: by_position(oracle, q, |q| oracle.forward_dynamics(q, qd, tau)),
            forward_by_velocity: by_vector(qd, |qd| oracle.forward_dynamics(q, qd, tau)),
            forward_by_force: by_vector(tau, |tau| oracle.forward_dynamics(q, qd, tau)),
        }
    }
}

/// `∂f/∂q` in velocity coordinates, row-major.
pub fn by_position(oracle: &Oracle, q: &[f64], f: impl Fn(&[f64]) -> Vec<f64>) -> Vec<f64> {
    let nv = oracle.dof();
    let columns: Vec<Vec<f64>> = (0..nv)
        .map(|j| {
            let mut unit = vec![0.0; nv];
            unit[j] = 1.0;
            let ahead = f(&oracle.integrate(q, &unit, STEP));
            let behind = f(&oracle.integrate(q, &unit, -STEP));
            central(&ahead, &behind)
        })
        .collect();
    row_major(&columns)
}

/// `∂f/∂x` for a plain vector `x`, row-major.
pub fn by_vector(x: &[f64], f: impl Fn(&[f64]) -> Vec<f64>) -> Vec<f64> {
    let columns: Vec<Vec<f64>> = (0..x.len())
        .map(|j| {
            let mut moved = x.to_vec();
            moved[j] = x[j] + STEP;
            let ahead = f(&moved);
            moved[j] = x[j] - STEP;
            let behind = f(&moved);
            central(&ahead, &behind)
        })
        .collect();
    row_major(&columns)
}

fn central(ahead: &[f64], behind: &[f64]) -> Vec<f64> {
    ahead
        .iter()
        .zip(behind)
        .map(|(a, b)| (a - b) / (2.0 * STEP))
        .collect()
}

/// The columns as one row-major matrix.
fn row_major(columns: &[Vec<f64>]) -> Vec<f64> {
    let rows = columns.first().map_or(0, Vec::len);
    (0..rows)
        .flat_map(|i| columns.iter().map(move |c| c[i]))
        .collect()
}
