//! Rotations as quaternions: the conversions the spec's initial state and
//! a released body's start need, in the `[x, y, z, w]` order of the
//! generated modules' quaternion coordinates.

/// The unit quaternion `[x, y, z, w]` of `R = Rz(yaw) · Ry(pitch) · Rx(roll)`
/// (the convention of `origin.rpy`).
pub(crate) fn rpy_quaternion([roll, pitch, yaw]: [f64; 3]) -> [f64; 4] {
    let (sr, cr) = (0.5 * roll).sin_cos();
    let (sp, cp) = (0.5 * pitch).sin_cos();
    let (sy, cy) = (0.5 * yaw).sin_cos();
    [
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    ]
}

/// The unit quaternion `[x, y, z, w]` (with `w ≥ 0`) of a rotation matrix
/// (row-major, body to ground), by Shepperd's method: from the largest of
/// `w` and the diagonal's components, so that no square root is taken of a
/// small difference. The compile-time twin of the runtime's
/// `rotation_quaternion`, which is `no_std` and generic in the precision.
pub fn rotation_quaternion(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    let candidates = [
        trace,
        2.0 * r[0][0] - trace,
        2.0 * r[1][1] - trace,
        2.0 * r[2][2] - trace,
    ];
    let largest = (0..4).fold(0, |best, i| {
        if candidates[i] > candidates[best] {
            i
        } else {
            best
        }
    });
    // 4 s² = 1 + candidates[largest], with s the largest component.
    let s = 0.5 * (1.0 + candidates[largest]).sqrt();
    let k = 0.25 / s;
    let [x, y, z, w] = match largest {
        0 => [
            (r[2][1] - r[1][2]) * k,
            (r[0][2] - r[2][0]) * k,
            (r[1][0] - r[0][1]) * k,
            s,
        ],
        1 => [
            s,
            (r[0][1] + r[1][0]) * k,
            (r[0][2] + r[2][0]) * k,
            (r[2][1] - r[1][2]) * k,
        ],
        2 => [
            (r[0][1] + r[1][0]) * k,
            s,
            (r[1][2] + r[2][1]) * k,
            (r[0][2] - r[2][0]) * k,
        ],
        _ => [
            (r[0][2] + r[2][0]) * k,
            (r[1][2] + r[2][1]) * k,
            s,
            (r[1][0] - r[0][1]) * k,
        ],
    };
    if w < 0.0 {
        [-x, -y, -z, -w]
    } else {
        [x, y, z, w]
    }
}

#[cfg(test)]
mod tests {
    use super::{rotation_quaternion, rpy_quaternion};

    /// The rotation matrix of a unit quaternion `[x, y, z, w]`.
    fn matrix([x, y, z, w]: [f64; 4]) -> [[f64; 3]; 3] {
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    }

    #[test]
    fn rpy_quaternion_is_rz_ry_rx() {
        let (r, p, y) = (0.3_f64, -0.7_f64, 1.1_f64);
        let rx = [
            [1.0, 0.0, 0.0],
            [0.0, r.cos(), -r.sin()],
            [0.0, r.sin(), r.cos()],
        ];
        let ry = [
            [p.cos(), 0.0, p.sin()],
            [0.0, 1.0, 0.0],
            [-p.sin(), 0.0, p.cos()],
        ];
        let rz = [
            [y.cos(), -y.sin(), 0.0],
            [y.sin(), y.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let mul = |a: [[f64; 3]; 3], b: [[f64; 3]; 3]| -> [[f64; 3]; 3] {
            core::array::from_fn(|i| {
                core::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum())
            })
        };
        let expected = mul(mul(rz, ry), rx);
        let got = matrix(rpy_quaternion([r, p, y]));
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    (got[i][j] - expected[i][j]).abs() < 1e-15,
                    "{got:?} vs {expected:?}"
                );
            }
        }
    }

    #[test]
    fn rotation_quaternion_inverts_the_matrix_on_every_branch() {
        for q in [
            [0.1, 0.2, 0.3, 0.9],
            [0.9, 0.1, -0.2, 0.37],
            [0.1, -0.95, 0.2, 0.21],
            [0.05, 0.1, -0.99, 0.08],
            [0.3, -0.2, 0.1, -0.9],
        ] {
            let norm = q.iter().map(|c: &f64| c * c).sum::<f64>().sqrt();
            let q = q.map(|c| c / norm);
            let back = rotation_quaternion(&matrix(q));
            // The same rotation, written with w ≥ 0.
            let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
            for k in 0..4 {
                assert!((back[k] - sign * q[k]).abs() < 1e-14, "{q:?} → {back:?}");
            }
        }
    }
}
