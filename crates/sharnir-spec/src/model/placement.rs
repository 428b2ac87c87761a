//! Where a frame sits in its parent: a translation and a product of
//! elementary rotations, in the form the user wrote.

use crate::expr::Expr;

/// Placement of a joint frame in its parent frame:
/// `p_parent = translation + R · p_joint`, `R` the product of `rotation`.
#[derive(Clone, Debug)]
pub struct Origin {
    /// Joint-frame origin in the parent frame, m.
    pub translation: [Expr; 3],
    /// Rotations multiplied in order (about the moving axes); empty is the
    /// identity.
    pub rotation: Vec<ElementaryRotation>,
}

/// One factor of a placement rotation, kept in the form the user wrote so
/// that exact angles (`pi/2`) stay exact downstream.
// The matrix variant is large, but rotations are few and the unboxed form
// is the documented API that consumers match on.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum ElementaryRotation {
    /// Rotation about x by the angle, radians.
    X(Expr),
    /// Rotation about y by the angle, radians.
    Y(Expr),
    /// Rotation about z by the angle, radians.
    Z(Expr),
    /// Rotation by `angle` about a unit axis.
    AxisAngle {
        /// Unit axis.
        axis: [f64; 3],
        /// Angle, radians.
        angle: Expr,
    },
    /// A rotation matrix given by rows (validated to be a rotation).
    Matrix([[Expr; 3]; 3]),
}
