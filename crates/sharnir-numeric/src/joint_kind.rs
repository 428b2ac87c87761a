//! The kinds of joint a numeric tree's bodies hang on, and how many
//! position and velocity coordinates each occupies: what both the tree and
//! its errors name.

/// The kind of a body's inboard joint, which decides how its coordinates move
/// the body relative to the joint frame.
///
/// Conventions are Pinocchio's, so that the oracle can be compared with it
/// entry by entry. Quaternions are stored scalar last, `[qx, qy, qz, qw]`,
/// and are assumed to have unit length: callers normalise them (for example
/// with [`crate::Tree::integrate`]); the algorithms never divide by their norm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation by `q` radians about the joint axis (right-hand rule); `τ` is a
    /// torque in N·m. One position and one velocity coordinate.
    Revolute,
    /// Translation by `q` metres along the joint axis; `τ` is a force in N. One
    /// position and one velocity coordinate.
    Prismatic,
    /// A ball joint: `q` is the unit quaternion of the rotation body → joint
    /// frame (4 entries); the velocity is the angular velocity of the body
    /// relative to its parent in body coordinates (3 entries), and `τ` is the
    /// moment about the body origin in body coordinates, N·m.
    Spherical,
    /// Six degrees of freedom: `q = [x, y, z, qx, qy, qz, qw]` places the
    /// body origin at `(x, y, z)` in the joint frame and orients the body by
    /// the quaternion (7 entries). The velocity `[v_lin, ω]` holds the
    /// velocity of the body origin and the angular velocity relative to the
    /// parent, both in body coordinates (6 entries), so `ṗ = R(quat) v_lin`;
    /// the acceleration is the rate of those body components. `τ = [f; n]`
    /// is the force and the moment about the body origin, body coordinates.
    Free,
}

impl JointKind {
    /// Number of position coordinates the joint occupies in `q`: what a
    /// caller needs to cut a configuration vector into joints.
    pub fn nq(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 4,
            JointKind::Free => 7,
        }
    }

    /// Number of velocity coordinates (degrees of freedom) the joint
    /// occupies in velocities, accelerations, joint forces and the mass
    /// matrix.
    pub fn nv(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 3,
            JointKind::Free => 6,
        }
    }
}
