//! Joint models and the outward kinematic passes shared by the algorithms.

use crate::error::TreeError;
use crate::linalg::{self, Mat3, Vec3};
use crate::spatial::{Motion, RigidInertia, Transform};
use crate::tree::{Body, JointKind, Tree};

/// A body's pose in the ground frame: the rotation body → ground (row-major)
/// and the body origin in ground coordinates, as drawing code and external
/// kinematics checks want it.
pub type Pose = ([[f64; 3]; 3], [f64; 3]);

impl Body {
    /// The body frame in the parent frame at coordinate `q`: the rotation
    /// body → parent and the body origin in parent coordinates.
    fn placement(&self, q: f64) -> (Mat3, Vec3) {
        match self.joint {
            JointKind::Revolute => (
                linalg::mul(&self.rotation, &linalg::rotation_about(self.axis, q)),
                self.translation,
            ),
            JointKind::Prismatic => (
                self.rotation,
                linalg::add(
                    self.translation,
                    linalg::mul_vec(&self.rotation, linalg::scale(q, self.axis)),
                ),
            ),
        }
    }

    /// The Plücker transform from the parent frame to the body frame at
    /// coordinate `q`.
    pub(crate) fn joint_transform(&self, q: f64) -> Transform {
        let (rotation, origin) = self.placement(q);
        Transform {
            rotation: linalg::transpose(&rotation),
            origin,
        }
    }

    /// The joint's motion subspace `S` in body coordinates: the body's
    /// velocity relative to its parent per unit coordinate rate. It is
    /// constant because the axis is fixed in both the joint and body frames
    /// and passes through the body origin.
    pub(crate) fn motion_subspace(&self) -> Motion {
        match self.joint {
            JointKind::Revolute => Motion {
                angular: self.axis,
                linear: [0.0; 3],
            },
            JointKind::Prismatic => Motion {
                angular: [0.0; 3],
                linear: self.axis,
            },
        }
    }

    /// The body's spatial inertia about its frame origin, in body coordinates.
    pub(crate) fn spatial_inertia(&self) -> RigidInertia {
        RigidInertia::from_centre_of_mass(self.mass, self.com, &self.inertia)
    }
}

impl Tree {
    /// Each body's pose in the ground frame at configuration `q`: the
    /// rotation body → ground and the body origin in ground coordinates.
    ///
    /// Exists for drawing, for potential energy and for checking placements
    /// against other kinematics code.
    pub fn body_poses(&self, q: &[f64]) -> Result<Vec<Pose>, TreeError> {
        self.check(&[("q", q)])?;
        Ok(self.poses_unchecked(q))
    }

    /// [`Tree::body_poses`] after the caller's [`Tree::check`].
    pub(crate) fn poses_unchecked(&self, q: &[f64]) -> Vec<Pose> {
        let mut poses: Vec<Pose> = Vec::with_capacity(self.dof());
        for (body, &qi) in self.bodies.iter().zip(q) {
            let (rotation, origin) = body.placement(qi);
            let pose = match body.parent {
                // `check` guarantees p < this body's index, so `poses[p]` exists.
                Some(p) => {
                    let (parent_rotation, parent_origin) = &poses[p];
                    (
                        linalg::mul(parent_rotation, &rotation),
                        linalg::add(*parent_origin, linalg::mul_vec(parent_rotation, origin)),
                    )
                }
                None => (rotation, origin),
            };
            poses.push(pose);
        }
        poses
    }

    /// Every body's parent → body transform at configuration `q` (after
    /// [`Tree::check`]).
    pub(crate) fn joint_transforms(&self, q: &[f64]) -> Vec<Transform> {
        self.bodies
            .iter()
            .zip(q)
            .map(|(body, &qi)| body.joint_transform(qi))
            .collect()
    }

    /// Every body's spatial velocity in body coordinates,
    /// `vᵢ = Xᵢ v_parent + Sᵢ q̇ᵢ` (after [`Tree::check`]).
    pub(crate) fn velocities(&self, transforms: &[Transform], qd: &[f64]) -> Vec<Motion> {
        let mut velocities: Vec<Motion> = Vec::with_capacity(self.dof());
        for ((body, transform), &qdi) in self.bodies.iter().zip(transforms).zip(qd) {
            // `check` guarantees p < this body's index, so `velocities[p]` exists.
            let parent = body.parent.map_or(Motion::ZERO, |p| velocities[p]);
            velocities.push(transform.apply_motion(parent) + body.motion_subspace().scaled(qdi));
        }
        velocities
    }

    /// The spatial acceleration of the ground that stands in for gravity:
    /// accelerating every body up by `−g` is equivalent to pulling it down by
    /// `g`, and costs no per-body work.
    pub(crate) fn ground_acceleration(&self) -> Motion {
        Motion {
            angular: [0.0; 3],
            linear: linalg::scale(-1.0, self.gravity),
        }
    }
}
