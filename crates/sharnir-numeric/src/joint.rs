//! Joint models: how a body's joint coordinates place it in its parent frame
//! and which spatial motions its joint velocity coordinates produce.

use crate::joint_array::JointArray;
use crate::joint_kind::JointKind;
use crate::linalg::{self, Mat3, Vec3};
use crate::quaternion::{self, Quaternion};
use crate::spatial::{Force, Motion, RigidInertia, Transform};
use crate::tree::Body;

/// The first `N` entries of a joint's chunk of a joint-space vector.
///
/// After [`crate::Tree::check`] every chunk has the joint's full width; a
/// shorter one would be padded with zeros rather than cause a panic.
pub(crate) fn coordinates<const N: usize>(chunk: &[f64]) -> [f64; N] {
    std::array::from_fn(|i| chunk.get(i).copied().unwrap_or(0.0))
}

/// The unit quaternion of a spherical joint's chunk of `q`.
pub(crate) fn spherical_quaternion(q: &[f64]) -> Quaternion {
    coordinates(q)
}

/// The position and unit quaternion of a free joint's chunk of `q`.
pub(crate) fn free_position(q: &[f64]) -> (Vec3, Quaternion) {
    let [x, y, z, qx, qy, qz, qw] = coordinates(q);
    ([x, y, z], [qx, qy, qz, qw])
}

/// A joint's motion subspace `S` in body coordinates: one spatial motion per
/// velocity coordinate, the body's velocity relative to its parent per unit
/// rate of that coordinate.
///
/// It is constant for every joint kind of the crate: revolute and prismatic
/// axes are fixed in the body frame and pass through its origin, and the
/// velocities of spherical and free joints are body-frame components. The
/// spherical and free subspaces are selections of coordinates, so `S v` and
/// `Sᵀ f` are computed by selecting rather than by six-column products:
/// these are the inner operations of every recursion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Subspace {
    /// One column: a revolute `[axis; 0]` or prismatic `[0; axis]` joint.
    Column(Motion),
    /// A spherical joint: `S = [1; 0]`, `v = ω`.
    Angular,
    /// A free joint: `S` maps `[v_lin, ω]` to `[ω; v_lin]`.
    Free,
}

/// The columns of a spherical joint's subspace: the unit angular motions.
pub(crate) fn spherical_columns() -> [Motion; 3] {
    std::array::from_fn(Motion::unit)
}

/// The columns of a free joint's subspace: velocity coordinates 0..3 are
/// linear (spatial coordinates 3..6), 3..6 are angular (spatial 0..3).
pub(crate) fn free_columns() -> [Motion; 6] {
    std::array::from_fn(|k| Motion::unit((k + 3) % 6))
}

impl Subspace {
    /// The columns of `S`, one per velocity coordinate.
    pub fn columns(&self) -> JointArray<Motion> {
        match self {
            Subspace::Column(s) => JointArray::from_fn(1, |_| *s),
            Subspace::Angular => spherical_columns().into_iter().collect(),
            Subspace::Free => free_columns().into_iter().collect(),
        }
    }

    /// `S v`: the relative spatial velocity (or acceleration) produced by the
    /// joint rates `v`.
    pub fn motion(&self, v: &[f64]) -> Motion {
        match self {
            Subspace::Column(s) => s.scaled(coordinates::<1>(v)[0]),
            Subspace::Angular => Motion {
                angular: coordinates(v),
                linear: [0.0; 3],
            },
            Subspace::Free => {
                let [vx, vy, vz, wx, wy, wz] = coordinates(v);
                Motion {
                    angular: [wx, wy, wz],
                    linear: [vx, vy, vz],
                }
            }
        }
    }

    /// `Sᵀ f`: the joint forces that balance the spatial force `f`
    /// transmitted across the joint.
    pub fn project(&self, f: Force) -> JointArray<f64> {
        match self {
            Subspace::Column(s) => JointArray::from_fn(1, |_| s.dot(f)),
            Subspace::Angular => f.moment.into_iter().collect(),
            Subspace::Free => f.force.into_iter().chain(f.moment).collect(),
        }
    }
}

impl Body {
    /// The body frame in the parent frame at joint coordinates `q` (this
    /// body's chunk): the rotation body → parent and the body origin in
    /// parent coordinates.
    pub(crate) fn placement(&self, q: &[f64]) -> (Mat3, Vec3) {
        match self.joint {
            JointKind::Revolute => {
                let [angle] = coordinates(q);
                (
                    linalg::mul(&self.rotation, &linalg::rotation_about(self.axis, angle)),
                    self.translation,
                )
            }
            JointKind::Prismatic => {
                let [distance] = coordinates(q);
                (
                    self.rotation,
                    linalg::add(
                        self.translation,
                        linalg::mul_vec(&self.rotation, linalg::scale(distance, self.axis)),
                    ),
                )
            }
            JointKind::Spherical => (
                linalg::mul(
                    &self.rotation,
                    &quaternion::rotation(spherical_quaternion(q)),
                ),
                self.translation,
            ),
            JointKind::Free => {
                let (position, orientation) = free_position(q);
                (
                    linalg::mul(&self.rotation, &quaternion::rotation(orientation)),
                    linalg::add(self.translation, linalg::mul_vec(&self.rotation, position)),
                )
            }
        }
    }

    /// The Plücker transform from the parent frame to the body frame at joint
    /// coordinates `q` (this body's chunk).
    pub(crate) fn joint_transform(&self, q: &[f64]) -> Transform {
        let (rotation, origin) = self.placement(q);
        Transform {
            rotation: linalg::transpose(&rotation),
            origin,
        }
    }

    /// The joint's motion subspace in body coordinates, in Featherstone's
    /// `[ω; v]` ordering: the axis for revolute and prismatic joints, `[1; 0]`
    /// for a spherical joint, and for a free joint the map of
    /// `[v_lin, ω]` to `[ω; v_lin]`.
    pub(crate) fn motion_subspace(&self) -> Subspace {
        match self.joint {
            JointKind::Revolute => Subspace::Column(Motion {
                angular: self.axis,
                linear: [0.0; 3],
            }),
            JointKind::Prismatic => Subspace::Column(Motion {
                angular: [0.0; 3],
                linear: self.axis,
            }),
            JointKind::Spherical => Subspace::Angular,
            JointKind::Free => Subspace::Free,
        }
    }

    /// The body's spatial inertia about its frame origin, in body coordinates.
    pub(crate) fn spatial_inertia(&self) -> RigidInertia {
        RigidInertia::from_centre_of_mass(self.mass, self.com, &self.inertia)
    }
}
