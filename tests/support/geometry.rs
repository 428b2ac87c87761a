//! Rigid placements and the spec's geometry evaluated to numbers: frames,
//! 3-vector and 3×3 helpers, rotations (axis–angle, quaternions, roll–pitch–
//! yaw), the spec's expressions and `origin` placements, and each joint
//! type's motion.
//!
//! Written from `docs/spec-format.md` alone, so that the numeric oracles
//! ([`crate::spec_tree`], [`crate::loop_oracle`]) read the spec without any
//! of `sharnir-mech`'s or `sharnir-cas`'s code.

use sharnir_spec::{ElementaryRotation, Expr, ExprKind, Function, JointKind, Origin};
use std::collections::BTreeMap;

/// A 3-vector.
pub type Vec3 = [f64; 3];
/// A 3×3 matrix, row-major.
pub type Mat3 = [[f64; 3]; 3];

/// A rigid placement: `p_outer = translation + rotation · p_inner`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Orientation of the inner frame in the outer one.
    pub rotation: Mat3,
    /// Origin of the inner frame in the outer one.
    pub translation: Vec3,
}

impl Frame {
    /// The identity placement.
    pub const IDENTITY: Frame = Frame {
        rotation: IDENTITY,
        translation: [0.0; 3],
    };

    /// A pure rotation.
    pub fn rotation(rotation: Mat3) -> Frame {
        Frame {
            rotation,
            translation: [0.0; 3],
        }
    }

    /// A pure translation.
    pub fn translation(translation: Vec3) -> Frame {
        Frame {
            rotation: IDENTITY,
            translation,
        }
    }

    /// `self · inner`: the frame placed at `inner` in this one.
    pub fn then(&self, inner: &Frame) -> Frame {
        Frame {
            rotation: mat_mul(&self.rotation, &inner.rotation),
            translation: add(self.translation, mat_vec(&self.rotation, inner.translation)),
        }
    }

    /// `self⁻¹ = (Rᵀ, −Rᵀ t)`.
    pub fn inverse(&self) -> Frame {
        let rt = transpose(&self.rotation);
        Frame {
            rotation: rt,
            translation: scale(-1.0, mat_vec(&rt, self.translation)),
        }
    }
}

/// The identity matrix.
pub const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// `a + b`.
pub fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
pub fn scale(s: f64, a: Vec3) -> Vec3 {
    a.map(|x| s * x)
}

/// `a · b`.
pub fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `m v`.
pub fn mat_vec(m: &Mat3, v: Vec3) -> Vec3 {
    m.map(|row| dot(row, v))
}

/// `a b`.
pub fn mat_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// `mᵀ`.
pub fn transpose(m: &Mat3) -> Mat3 {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[j][i]))
}

/// The rotation by `angle` about the unit `axis` (Rodrigues:
/// `cos θ 1 + sin θ [a]× + (1 − cos θ) a aᵀ`).
pub fn axis_angle(axis: Vec3, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let k = 1.0 - c;
    [
        [c + k * x * x, k * x * y - s * z, k * x * z + s * y],
        [k * y * x + s * z, c + k * y * y, k * y * z - s * x],
        [k * z * x - s * y, k * z * y + s * x, c + k * z * z],
    ]
}

/// The rotation of the unit quaternion `[x, y, z, w]` (scalar last).
pub fn quaternion_matrix([x, y, z, w]: [f64; 4]) -> Mat3 {
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

/// URDF's roll, pitch, yaw: `Rz(yaw) · Ry(pitch) · Rx(roll)`.
pub fn rpy([roll, pitch, yaw]: [f64; 3]) -> Mat3 {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    mat_mul(
        &mat_mul(&axis_angle(z, yaw), &axis_angle(y, pitch)),
        &axis_angle(x, roll),
    )
}

/// Evaluates a spec expression at the parameter values `values`: this
/// file's own evaluator, not the validator's.
pub fn evaluate(expr: &Expr, values: &BTreeMap<String, f64>) -> f64 {
    let e = |x: &Expr| evaluate(x, values);
    match &expr.kind {
        ExprKind::Number(x) => *x,
        ExprKind::Pi => std::f64::consts::PI,
        ExprKind::Parameter(name) => *values
            .get(name)
            .unwrap_or_else(|| panic!("unknown parameter `{name}`")),
        ExprKind::Neg(a) => -e(a),
        ExprKind::Add(a, b) => e(a) + e(b),
        ExprKind::Sub(a, b) => e(a) - e(b),
        ExprKind::Mul(a, b) => e(a) * e(b),
        ExprKind::Div(a, b) => e(a) / e(b),
        ExprKind::Pow(a, n) => e(a).powi(*n),
        ExprKind::Call(Function::Sin, a) => e(a).sin(),
        ExprKind::Call(Function::Cos, a) => e(a).cos(),
        ExprKind::Call(Function::Sqrt, a) => e(a).sqrt(),
    }
}

/// The product of a placement's rotations, in order (about the moving
/// axes: `R = R₁ · R₂ · …`).
pub fn rotation_of(rotations: &[ElementaryRotation], values: &BTreeMap<String, f64>) -> Mat3 {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    rotations.iter().fold(IDENTITY, |r, factor| {
        let m = match factor {
            ElementaryRotation::X(angle) => axis_angle(x, evaluate(angle, values)),
            ElementaryRotation::Y(angle) => axis_angle(y, evaluate(angle, values)),
            ElementaryRotation::Z(angle) => axis_angle(z, evaluate(angle, values)),
            ElementaryRotation::AxisAngle { axis, angle } => {
                axis_angle(*axis, evaluate(angle, values))
            }
            ElementaryRotation::Matrix(rows) => rows
                .each_ref()
                .map(|row| row.each_ref().map(|entry: &Expr| evaluate(entry, values))),
        };
        mat_mul(&r, &m)
    })
}

/// An `origin` (or `child_origin`) evaluated.
pub fn placement(origin: &Origin, values: &BTreeMap<String, f64>) -> Frame {
    Frame {
        rotation: rotation_of(&origin.rotation, values),
        translation: origin.translation.each_ref().map(|x| evaluate(x, values)),
    }
}

/// The motion of a joint of type `kind`: the body frame (before any
/// `child_origin`) in the joint frame, at the joint's position coordinates
/// `q` (the spec's order, quaternions scalar last).
pub fn joint_motion(kind: JointKind, axis: Vec3, axis2: Option<Vec3>, q: &[f64]) -> Frame {
    let z = [0.0, 0.0, 1.0];
    match kind {
        JointKind::Revolute => Frame::rotation(axis_angle(axis, q[0])),
        JointKind::Prismatic => Frame::translation(scale(q[0], axis)),
        JointKind::Cylindrical => Frame {
            rotation: axis_angle(axis, q[1]),
            translation: scale(q[0], axis),
        },
        JointKind::Universal => Frame::rotation(mat_mul(
            &axis_angle(axis, q[0]),
            &axis_angle(axis2.unwrap_or([0.0, 1.0, 0.0]), q[1]),
        )),
        JointKind::Spherical => Frame::rotation(quaternion_matrix([q[0], q[1], q[2], q[3]])),
        JointKind::Planar => Frame {
            rotation: axis_angle(z, q[2]),
            translation: [q[0], q[1], 0.0],
        },
        JointKind::Free => Frame {
            rotation: quaternion_matrix([q[3], q[4], q[5], q[6]]),
            translation: [q[0], q[1], q[2]],
        },
        JointKind::Fixed => Frame::IDENTITY,
    }
}
