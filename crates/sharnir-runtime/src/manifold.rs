//! Moving a configuration by a velocity-space increment, `q ⊕ δ`: how the
//! loop assembly and projection take Newton steps when some coordinates
//! are not their own rates (spherical and free joints, whose orientation is
//! a unit quaternion with four components and three velocities).
//!
//! The step follows the joints' own motion. A coordinate that is its own
//! rate (revolute, prismatic, a free joint's position) moves by its rate
//! at `δ`, `q + Q(q) δ` (for a free joint's position `R δᵥ`, the body-axis
//! velocity turned into ground axes). A quaternion `ρ` turns by the
//! exponential map of the body-axis rotation `ω` that `δ` gives it:
//! `ρ ⊗ exp(ω/2)`, unit by construction and exact however large the step.
//! `ω` is read back from the model's own `coordinate_rates`
//! (`ρ̇ = ½ ρ ⊗ (ω, 0)`, so `ω = 2 vec(ρ* ⊗ ρ̇)`), so nothing beyond what
//! every generated module provides is needed. Coordinates whose velocity
//! component of `δ` is zero, such as the ones a loop assembly holds, do not
//! move.

use crate::{Model, Real};

/// `q ⊕ δ`: the configuration `q` moved by the velocity-coordinate
/// increment `δ` (quaternions by the exponential map of their body-axis
/// rotation, kept unit; every other coordinate by its rate).
///
/// To first order in `δ` this is `q + coordinate_rates(q, δ)`, so a Newton
/// step computed with `J = ∂Ψ/∂q` in velocity coordinates converges as on a
/// flat space; unlike that sum it leaves every quaternion on the unit
/// sphere.
pub fn integrate<M, const NQ: usize, const NV: usize>(
    model: &M,
    q: &[M::Real; NQ],
    delta: &[M::Real; NV],
) -> [M::Real; NQ]
where
    M: Model<NQ, NV>,
{
    let rates = model.coordinate_rates(q, delta);
    let mut moved: [M::Real; NQ] = core::array::from_fn(|k| q[k] + rates[k]);
    for &start in M::QUATERNIONS {
        let (Some(rho), Some(rate)) = (q.get(start..start + 4), rates.get(start..start + 4)) else {
            continue;
        };
        let turned = turn(
            [rho[0], rho[1], rho[2], rho[3]],
            [rate[0], rate[1], rate[2], rate[3]],
        );
        moved[start..start + 4].copy_from_slice(&turned);
    }
    moved
}

/// `ρ ⊗ exp(ω/2)` with `ω = 2 vec(ρ* ⊗ ρ̇)`, normalised (`x, y, z, w`,
/// scalar last).
fn turn<R: Real>(rho: [R; 4], rate: [R; 4]) -> [R; 4] {
    let two = R::from_f64(2.0);
    let (v, w) = ([rho[0], rho[1], rho[2]], rho[3]);
    let (rv, rw) = ([rate[0], rate[1], rate[2]], rate[3]);
    // vec(ρ* ⊗ ρ̇) = w ρ̇ᵥ − ρ̇_w ρᵥ − ρᵥ × ρ̇ᵥ.
    let cross = [
        v[1] * rv[2] - v[2] * rv[1],
        v[2] * rv[0] - v[0] * rv[2],
        v[0] * rv[1] - v[1] * rv[0],
    ];
    let omega: [R; 3] = core::array::from_fn(|i| two * (w * rv[i] - rw * v[i] - cross[i]));
    let angle = (omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]).sqrt();
    let half = angle / two;
    // exp(ω/2) = (sin(|ω|/2) ω/|ω|, cos(|ω|/2)); sin(x)/x by its series
    // where |ω| is too small to divide by.
    let (sine, cosine) = half.sin_cos();
    let scale = if half > R::from_f64(1e-4) {
        sine / angle
    } else {
        let squared = half * half;
        (R::ONE - squared / R::from_f64(6.0)) / two
    };
    let e: [R; 4] = [scale * omega[0], scale * omega[1], scale * omega[2], cosine];
    // ρ ⊗ e.
    let product = [
        w * e[0] + e[3] * v[0] + (v[1] * e[2] - v[2] * e[1]),
        w * e[1] + e[3] * v[1] + (v[2] * e[0] - v[0] * e[2]),
        w * e[2] + e[3] * v[2] + (v[0] * e[1] - v[1] * e[0]),
        w * e[3] - (v[0] * e[0] + v[1] * e[1] + v[2] * e[2]),
    ];
    let norm = product.iter().fold(R::ZERO, |s, &c| s + c * c).sqrt();
    if norm > R::ZERO {
        product.map(|c| c / norm)
    } else {
        product
    }
}

#[cfg(test)]
mod tests {
    use super::turn;

    fn multiply(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
            a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
        ]
    }

    #[test]
    fn a_turn_is_the_exponential_of_the_body_axis_rotation() {
        let norm = (0.1_f64 * 0.1 + 0.2 * 0.2 + 0.3 * 0.3 + 0.9 * 0.9).sqrt();
        let rho = [0.1, 0.2, 0.3, 0.9].map(|c| c / norm);
        for omega in [[0.4, -1.3, 0.7], [1e-7, 0.0, -2e-7], [0.0, 0.0, 3.0]] {
            let rate = multiply(rho, [omega[0], omega[1], omega[2], 0.0]).map(|c| 0.5 * c);
            let angle = (omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]).sqrt();
            let (s, c) = (0.5 * angle).sin_cos();
            let e = [
                s * omega[0] / angle,
                s * omega[1] / angle,
                s * omega[2] / angle,
                c,
            ];
            let expected = multiply(rho, e);
            let got = turn(rho, rate);
            for (g, x) in got.iter().zip(expected) {
                assert!((g - x).abs() < 1e-15, "{got:?} against {expected:?}");
            }
        }
    }
}
