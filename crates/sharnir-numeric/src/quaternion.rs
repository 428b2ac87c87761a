//! Unit quaternions, stored scalar last `[x, y, z, w]` as in Pinocchio's
//! configuration vectors, and the exponential maps that move spherical and
//! free joints along their configuration manifolds.

use crate::linalg::{self, Mat3, Vec3};

/// A quaternion `[x, y, z, w]`: vector part first, scalar last.
pub(crate) type Quaternion = [f64; 4];

/// The vector part `(x, y, z)`.
fn vector([x, y, z, _]: Quaternion) -> Vec3 {
    [x, y, z]
}

/// The rotation matrix of a unit quaternion (the norm is not divided out:
/// callers keep their quaternions unit).
pub(crate) fn rotation([x, y, z, w]: Quaternion) -> Mat3 {
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// The Hamilton product `a ⊗ b`: rotation `b` followed, in the outer frame,
/// by rotation `a` (`R(a ⊗ b) = R(a) R(b)`).
pub(crate) fn product(a: Quaternion, b: Quaternion) -> Quaternion {
    let (av, aw) = (vector(a), a[3]);
    let (bv, bw) = (vector(b), b[3]);
    let [x, y, z] = linalg::add(
        linalg::add(linalg::scale(aw, bv), linalg::scale(bw, av)),
        linalg::cross(av, bv),
    );
    [x, y, z, aw * bw - linalg::dot(av, bv)]
}

/// `q̇ = ½ q ⊗ (ω, 0)`: the rate of the quaternion of a body turning with
/// angular velocity `omega` given in body coordinates.
pub(crate) fn rate(q: Quaternion, [wx, wy, wz]: Vec3) -> Quaternion {
    product(q, [wx, wy, wz, 0.0]).map(|c| 0.5 * c)
}

/// The exponential map `exp(φ) = (sin(|φ|/2) φ/|φ|, cos(|φ|/2))`: the unit
/// quaternion of the rotation by `|φ|` about `φ`.
pub(crate) fn exp(phi: Vec3) -> Quaternion {
    let angle = linalg::dot(phi, phi).sqrt();
    // sin(θ/2)/θ, by its Taylor series where the quotient would be 0/0; the
    // first omitted term, θ⁴/3840, is below 1e-19 there.
    let k = if angle < 1e-4 {
        0.5 - angle * angle / 48.0
    } else {
        (0.5 * angle).sin() / angle
    };
    let [x, y, z] = linalg::scale(k, phi);
    [x, y, z, (0.5 * angle).cos()]
}

/// `q / |q|`: removes the norm drift that floating-point products leave.
pub(crate) fn normalised(q: Quaternion) -> Quaternion {
    let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / norm)
}

/// `V(φ) u`, with `V(φ) = 1 + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×²`
/// (θ = |φ|) the left Jacobian of SO(3): the displacement, in the starting
/// body frame, of a body moving with constant body-frame twist whose
/// rotation vector is `φ` and whose linear displacement is `u`. It is the
/// translation part of the SE(3) exponential.
pub(crate) fn left_jacobian_apply(phi: Vec3, u: Vec3) -> Vec3 {
    let angle_squared = linalg::dot(phi, phi);
    let angle = angle_squared.sqrt();
    // (1 − cos θ)/θ² = ½ (sin(θ/2)/(θ/2))², free of cancellation.
    let a = if angle < 1e-4 {
        0.5 - angle_squared / 24.0
    } else {
        let half = 0.5 * angle;
        0.5 * (half.sin() / half).powi(2)
    };
    // (θ − sin θ)/θ³ cancels for small θ: there its Taylor series, whose
    // first omitted term θ⁸/11! is below 3e-16 for θ < 0.1.
    let b = if angle < 0.1 {
        let t = angle_squared;
        1.0 / 6.0 - t / 120.0 + t * t / 5040.0 - t * t * t / 362_880.0
    } else {
        (angle - angle.sin()) / (angle_squared * angle)
    };
    let phi_u = linalg::cross(phi, u);
    linalg::add(
        linalg::add(u, linalg::scale(a, phi_u)),
        linalg::scale(b, linalg::cross(phi, phi_u)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_matrices_close(a: &Mat3, b: &Mat3, tolerance: f64) {
        for (ra, rb) in a.iter().zip(b) {
            for (x, y) in ra.iter().zip(rb) {
                assert!((x - y).abs() < tolerance, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn exponential_is_the_rodrigues_rotation() {
        for phi in [
            [0.3, -1.2, 0.5],
            [2.0, 1.0, -2.5],
            [1e-6, 0.0, -2e-6],
            [0.0; 3],
        ] {
            let angle = linalg::dot(phi, phi).sqrt();
            let axis = if angle > 0.0 {
                linalg::scale(1.0 / angle, phi)
            } else {
                [1.0, 0.0, 0.0]
            };
            assert_matrices_close(
                &rotation(exp(phi)),
                &linalg::rotation_about(axis, angle),
                1e-15,
            );
        }
    }

    #[test]
    fn product_composes_rotations() {
        let a = exp([0.4, -0.2, 0.9]);
        let b = exp([-1.1, 0.6, 0.3]);
        assert_matrices_close(
            &rotation(product(a, b)),
            &linalg::mul(&rotation(a), &rotation(b)),
            1e-15,
        );
    }

    #[test]
    fn left_jacobian_integrates_a_constant_twist() {
        // ∫₀¹ exp(s[φ]×) u ds by composite Simpson's rule on 2000 panels
        // (error ≈ 1e-15 for these O(1) rates), on both sides of the
        // switch between the series and the closed form.
        let u = [0.7, -0.4, 1.3];
        for phi in [[0.5, -1.5, 2.0], [0.05, 0.03, -0.04], [1e-5, 2e-5, 0.0]] {
            let angle = linalg::dot(phi, phi).sqrt();
            let axis = linalg::scale(1.0 / angle, phi);
            let panels = 2000;
            let integrand = |s: f64| linalg::mul_vec(&linalg::rotation_about(axis, s * angle), u);
            let mut sum = linalg::add(integrand(0.0), integrand(1.0));
            for k in 1..panels {
                let weight = if k % 2 == 1 { 4.0 } else { 2.0 };
                sum = linalg::add(
                    sum,
                    linalg::scale(weight, integrand(k as f64 / panels as f64)),
                );
            }
            let simpson = linalg::scale(1.0 / (3.0 * panels as f64), sum);
            let closed = left_jacobian_apply(phi, u);
            for (c, s) in closed.iter().zip(simpson) {
                assert!(
                    (c - s).abs() < 1e-13,
                    "φ = {phi:?}: {closed:?} vs {simpson:?}"
                );
            }
        }
    }
}
