//! Small dense 3-vector and 3×3-matrix arithmetic.
//!
//! The spatial algebra is built from these blocks; keeping them as plain
//! arrays (row-major matrices) matches the public [`crate::Body`] fields, so
//! user data is used without conversion.

/// A vector of three components.
pub(crate) type Vec3 = [f64; 3];

/// A 3×3 matrix, row-major: `m[row][column]`.
pub(crate) type Mat3 = [[f64; 3]; 3];

/// `a + b`.
pub(crate) fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s · a`.
pub(crate) fn scale(s: f64, a: Vec3) -> Vec3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// The scalar product `a · b`.
pub(crate) fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The vector product `a × b`.
pub(crate) fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `m · v`.
pub(crate) fn mul_vec(m: &Mat3, v: Vec3) -> Vec3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// `mᵀ · v`, without forming the transpose.
pub(crate) fn transpose_mul_vec(m: &Mat3, v: Vec3) -> Vec3 {
    add(add(scale(v[0], m[0]), scale(v[1], m[1])), scale(v[2], m[2]))
}

/// `mᵀ`.
pub(crate) fn transpose(m: &Mat3) -> Mat3 {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// The matrix product `a · b`.
pub(crate) fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let bt = transpose(b);
    a.map(|row| [dot(row, bt[0]), dot(row, bt[1]), dot(row, bt[2])])
}

/// `a + b`, entry-wise.
pub(crate) fn mat_add(a: &Mat3, b: &Mat3) -> Mat3 {
    [add(a[0], b[0]), add(a[1], b[1]), add(a[2], b[2])]
}

/// `s·1 − x yᵀ`: the shape of every parallel-axis correction.
pub(crate) fn diagonal_minus_outer(s: f64, x: Vec3, y: Vec3) -> Mat3 {
    let [a, b, c] = x;
    [
        [s - a * y[0], -a * y[1], -a * y[2]],
        [-b * y[0], s - b * y[1], -b * y[2]],
        [-c * y[0], -c * y[1], s - c * y[2]],
    ]
}

/// The rotation by `angle` about the unit vector `axis` (right-hand rule),
/// by Rodrigues' formula `1 + sin θ [a]× + (1 − cos θ) [a]×²`.
pub(crate) fn rotation_about(axis: Vec3, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    let [x, y, z] = axis;
    [
        [c + t * x * x, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, c + t * z * z],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turn_about_z_takes_x_to_y() {
        let r = rotation_about([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2);
        let image = mul_vec(&r, [1.0, 0.0, 0.0]);
        for (got, want) in image.iter().zip([0.0, 1.0, 0.0]) {
            assert!((got - want).abs() < 1e-15, "{image:?}");
        }
    }

    #[test]
    fn rotation_about_an_oblique_axis_is_orthonormal_and_fixes_the_axis() {
        let n = 14.0_f64.sqrt();
        let axis = [1.0 / n, -2.0 / n, 3.0 / n];
        let r = rotation_about(axis, 0.7);
        let gram = mul(&transpose(&r), &r);
        for (i, row) in gram.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((x - want).abs() < 1e-15, "RᵀR = {gram:?}");
            }
        }
        let image = mul_vec(&r, axis);
        for (got, want) in image.iter().zip(axis) {
            assert!((got - want).abs() < 1e-15, "{image:?}");
        }
    }
}
