//! Linear and angular momentum of a mechanism from its generated body poses
//! and body Jacobians and the bodies' numeric masses and inertias: what a
//! free-floating mechanism with nothing acting from outside keeps.

use crate::oracle::Oracle;

/// One body's state as a generated module reports it: name, rotation (body
/// to ground), origin, and its Jacobian (rows: origin velocity, then
/// angular velocity, both in ground axes).
pub type BodyState<'a, const NV: usize> = (&'a str, [[f64; 3]; 3], [f64; 3], [[f64; NV]; 6]);

/// `(linear, angular)` momentum, the angular one about the ground origin,
/// both in ground axes, of the bodies moving with velocities `v`.
pub fn momentum<const NV: usize>(
    oracle: &Oracle,
    bodies: &[BodyState<'_, NV>],
    v: &[f64; NV],
) -> [f64; 6] {
    let mut total = [0.0; 6];
    for (name, r, position, jacobian) in bodies {
        let body = oracle.tree_body(name);
        let rate = |row: &[f64; NV]| row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        let v_origin: [f64; 3] = core::array::from_fn(|i| rate(&jacobian[i]));
        let omega: [f64; 3] = core::array::from_fn(|i| rate(&jacobian[3 + i]));
        let offset: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| r[i][j] * body.com[j]).sum());
        let com: [f64; 3] = core::array::from_fn(|i| position[i] + offset[i]);
        let v_com: [f64; 3] = core::array::from_fn(|i| v_origin[i] + cross(omega, offset)[i]);
        let linear: [f64; 3] = v_com.map(|x| body.mass * x);
        // R I_c Rᵀ ω
        let body_omega: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| r[j][i] * omega[j]).sum());
        let spin_body: [f64; 3] =
            core::array::from_fn(|i| (0..3).map(|j| body.inertia[i][j] * body_omega[j]).sum());
        let spin: [f64; 3] = core::array::from_fn(|i| (0..3).map(|j| r[i][j] * spin_body[j]).sum());
        let orbital = cross(com, linear);
        for i in 0..3 {
            total[i] += linear[i];
            total[3 + i] += orbital[i] + spin[i];
        }
    }
    total
}

/// `a × b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The Euclidean norm.
pub fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}
