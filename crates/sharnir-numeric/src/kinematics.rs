//! The outward kinematic passes shared by the algorithms: poses, joint
//! transforms and body velocities.

use crate::error::TreeError;
use crate::linalg;
use crate::spatial::{Motion, Transform};
use crate::tree::Tree;

/// A body's pose in the ground frame: the rotation body → ground (row-major)
/// and the body origin in ground coordinates, as drawing code and external
/// kinematics checks want it.
pub type Pose = ([[f64; 3]; 3], [f64; 3]);

/// A body's velocity in the ground frame: its angular velocity and the
/// velocity of its origin, both in ground coordinates (rad/s, m/s).
pub type BodyVelocity = ([f64; 3], [f64; 3]);

impl Tree {
    /// Each body's pose in the ground frame at configuration `q`: the
    /// rotation body → ground and the body origin in ground coordinates.
    ///
    /// Exists for drawing, for potential energy and for checking placements
    /// against other kinematics code.
    pub fn body_poses(&self, q: &[f64]) -> Result<Vec<Pose>, TreeError> {
        self.check(q, &[])?;
        Ok(self.poses_unchecked(q))
    }

    /// Each body's angular velocity and origin velocity in ground
    /// coordinates at configuration `q` and velocity `v`.
    ///
    /// Exists for quantities defined in the ground frame, such as the linear
    /// and angular momentum of a free-floating system, and for checking
    /// velocities against finite differences of [`Tree::body_poses`].
    pub fn body_velocities(&self, q: &[f64], v: &[f64]) -> Result<Vec<BodyVelocity>, TreeError> {
        self.check(q, &[("v", v)])?;
        let velocities = self.velocities(&self.joint_transforms(q), v);
        Ok(self
            .poses_unchecked(q)
            .iter()
            .zip(velocities)
            .map(|((rotation, _), velocity)| {
                (
                    linalg::mul_vec(rotation, velocity.angular),
                    linalg::mul_vec(rotation, velocity.linear),
                )
            })
            .collect())
    }

    /// [`Tree::body_poses`] after the caller's [`Tree::check`].
    pub(crate) fn poses_unchecked(&self, q: &[f64]) -> Vec<Pose> {
        let mut poses: Vec<Pose> = Vec::with_capacity(self.bodies.len());
        for (body, qi) in self.bodies.iter().zip(self.q_chunks(q)) {
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
            .zip(self.q_chunks(q))
            .map(|(body, qi)| body.joint_transform(qi))
            .collect()
    }

    /// Every body's spatial velocity in body coordinates,
    /// `vᵢ = Xᵢ v_parent + Sᵢ q̇ᵢ` (after [`Tree::check`]).
    pub(crate) fn velocities(&self, transforms: &[Transform], qd: &[f64]) -> Vec<Motion> {
        let mut velocities: Vec<Motion> = Vec::with_capacity(self.bodies.len());
        let bodies = self.bodies.iter().zip(transforms).zip(self.v_chunks(qd));
        for ((body, transform), qdi) in bodies {
            // `check` guarantees p < this body's index, so `velocities[p]` exists.
            let parent = body.parent.map_or(Motion::ZERO, |p| velocities[p]);
            velocities.push(transform.apply_motion(parent) + body.motion_subspace().motion(qdi));
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
