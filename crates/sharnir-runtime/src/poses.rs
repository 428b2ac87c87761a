//! Where a model's bodies are: what an animation of a run draws, and what
//! a controller reads for a tool's pose.

use crate::{BodyPose, Model};

/// A model that reports the pose of every body: implemented by
/// [`body_poses!`](crate::body_poses) for a module with `body_poses`
/// (every module unless its spec's `outputs` leave it out).
pub trait BodyPoses<const NQ: usize, const NV: usize>: Model<NQ, NV> {
    /// The bodies' names (the module's `BODY_NAMES`): every body after its
    /// parent.
    const BODY_NAMES: &'static [&'static str];

    /// Every body's pose at `q`, in the order of
    /// [`BodyPoses::BODY_NAMES`], written into `poses` (as many as fit).
    fn body_poses(&self, q: &[Self::Real; NQ], poses: &mut [BodyPose<Self::Real>]);
}

/// Implements [`BodyPoses`] for a type made by [`model!`](crate::model)
/// from a module with `body_poses`:
///
/// ```
/// sharnir_runtime::model!(Pendulum = sharnir_generated::triple_pendulum);
/// sharnir_runtime::body_poses!(Pendulum = sharnir_generated::triple_pendulum);
///
/// use sharnir_runtime::{BodyPose, BodyPoses, Model};
/// let pendulum = Pendulum::default();
/// let mut poses = [BodyPose::default(); 3];
/// pendulum.body_poses(&pendulum.initial_positions(), &mut poses);
/// assert_eq!(Pendulum::BODY_NAMES.len(), 3);
/// ```
#[macro_export]
macro_rules! body_poses {
    ($name:ident = $($module:ident)::+) => {
        impl $crate::BodyPoses<{ $($module)::+::NQ }, { $($module)::+::NV }> for $name {
            const BODY_NAMES: &'static [&'static str] = &$($module)::+::BODY_NAMES;

            fn body_poses(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                poses: &mut [$crate::BodyPose<Self::Real>],
            ) {
                let all = $($module)::+::body_poses_with(&self.derived, q);
                for (slot, pose) in poses.iter_mut().zip(all) {
                    *slot = $crate::BodyPose {
                        rotation: pose.rotation,
                        position: pose.position,
                    };
                }
            }
        }
    };
}
