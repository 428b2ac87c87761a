//! Joints that let go: the release conditions as event functions, and the
//! state of a mechanism mapped onto the variant module it continues in.
//!
//! A generated module with detachable joints lists them in `DETACHMENTS`,
//! each naming its variant module (generated ahead of time, so nothing is
//! derived during a simulation). When a tree joint lets go, its child moves
//! on a free joint in the variant, which takes the released joint's place
//! in the coordinates: [`release_state`] keeps every other coordinate and
//! writes the child's pose and body-frame velocity into the free joint's, so
//! every body's position and velocity, and so every momentum, is continuous
//! across the release. A cut joint that lets go leaves the coordinates as
//! they are. `no_std`, no allocation.

use crate::model::{normalize_quaternions, Model};
use crate::real::Real;
use crate::system::RhsError;

/// The most detachable joints a module has (what a spec may declare).
pub const MAX_DETACHABLE: usize = 4;

/// When a detachable joint lets go (a module's `Release`, in the runtime's
/// terms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Release<R> {
    /// At this time (s).
    At(R),
    /// When reaction component `.0` (fx fy fz mx my mz, see
    /// [`Detachable::reactions`]) rises through `.1`.
    Above(usize, R),
    /// When reaction component `.0` falls through `.1`.
    Below(usize, R),
}

/// One detachable joint of a module (its `DETACHMENTS` entry).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detachment<R> {
    /// The joint's name.
    pub joint: &'static str,
    /// The variant module the mechanism continues in.
    pub variant: &'static str,
    /// When the joint lets go.
    pub release: Release<R>,
    /// For a tree joint, the index of its child among the module's bodies;
    /// `None` for a cut joint.
    pub body: Option<usize>,
    /// The joint's coordinates in `q`: first index and count.
    pub positions: (usize, usize),
    /// The joint's coordinates in `q̇`: first index and count.
    pub velocities: (usize, usize),
}

/// Where a body is: `p_ground = position + rotation · p_body`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyPose<R> {
    /// Rotation from body to ground axes, row-major.
    pub rotation: [[R; 3]; 3],
    /// The body frame's origin in ground coordinates.
    pub position: [R; 3],
}

/// How a body moves, in ground axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyVelocity<R> {
    /// The velocity of the body frame's origin.
    pub linear: [R; 3],
    /// The angular velocity.
    pub angular: [R; 3],
}

/// A mechanical state: positions `q` and velocities `q̇`.
pub type State<R, const NQ: usize, const NV: usize> = ([R; NQ], [R; NV]);

/// A model whose joints can let go: what [`release_state`] and the release
/// conditions read. Implemented by [`detachments!`](crate::detachments)
/// for a module with `DETACHMENTS`.
pub trait Detachable<const NQ: usize, const NV: usize>: Model<NQ, NV> {
    /// The number of detachable joints.
    const N_DETACHABLE: usize;

    /// Detachable joint `index` (spec order), or `None` past the last.
    fn detachment(&self, index: usize) -> Option<Detachment<Self::Real>>;

    /// Every detachable joint's reaction at time `t` and state `(q, q̇)`,
    /// with the joint forces `tau` applied besides the model's own: the
    /// force and moment the parent exerts on the child, in the joint frame
    /// on the child's side, written into `reactions`. Solves the dynamics
    /// first (the constrained dynamics of a mechanism with loops, whose
    /// multipliers the reactions read); fails where they have no solution.
    fn reactions(
        &self,
        t: Self::Real,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        tau: &[Self::Real; NV],
        reactions: &mut [[Self::Real; 6]],
    ) -> Result<(), RhsError>;

    /// Body `body`'s pose, or `None` past the last body.
    fn body_pose(&self, q: &[Self::Real; NQ], body: usize) -> Option<BodyPose<Self::Real>>;

    /// Body `body`'s velocity, or `None` past the last body.
    fn body_velocity(
        &self,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        body: usize,
    ) -> Option<BodyVelocity<Self::Real>>;
}

/// Why a state could not be mapped onto a variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReleaseError {
    /// The model has no detachable joint of this index.
    NoSuchJoint(usize),
    /// The variant's sizes are not those of the joint's variant module:
    /// the variant model is of another module.
    WrongVariant {
        /// The module the joint's release continues in.
        expected: &'static str,
    },
}

impl core::fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ReleaseError::NoSuchJoint(index) => write!(f, "no detachable joint {index}"),
            ReleaseError::WrongVariant { expected } => write!(
                f,
                "the variant model is not module `{expected}`, which the joint's release continues in"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ReleaseError {}

/// The state `(q, q̇)` of `parent` mapped onto the variant (`NQ2`, `NV2`)
/// it continues in once detachable joint `index` lets go: the coordinates
/// before and after the released joint's are kept; for a tree joint its
/// place goes to the free joint of its child, whose position and unit
/// quaternion `[x, y, z, w]` are the child's pose and whose velocities are
/// the child's origin velocity and angular velocity in its own axes. The
/// quaternions of `q` are normalised first.
pub fn release_state<P, const NQ: usize, const NV: usize, const NQ2: usize, const NV2: usize>(
    parent: &P,
    index: usize,
    q: &[P::Real; NQ],
    qd: &[P::Real; NV],
) -> Result<State<P::Real, NQ2, NV2>, ReleaseError>
where
    P: Detachable<NQ, NV>,
{
    let mut q2 = [P::Real::ZERO; NQ2];
    let mut v2 = [P::Real::ZERO; NV2];
    release_state_into(parent, index, q, qd, &mut q2, &mut v2)?;
    Ok((q2, v2))
}

/// The sizes `(nq, nv)` of the variant that detachable joint `index` of
/// `parent` continues in, to size the slices of [`release_state_into`]
/// when the variant's type is not at hand (a chain of releases).
pub fn released_sizes<P, const NQ: usize, const NV: usize>(
    parent: &P,
    index: usize,
) -> Result<(usize, usize), ReleaseError>
where
    P: Detachable<NQ, NV>,
{
    let detachment = parent
        .detachment(index)
        .ok_or(ReleaseError::NoSuchJoint(index))?;
    let fits =
        |(start, len): (usize, usize), n: usize| start.checked_add(len).is_some_and(|end| end <= n);
    if !fits(detachment.positions, NQ) || !fits(detachment.velocities, NV) {
        return Err(ReleaseError::WrongVariant {
            expected: detachment.variant,
        });
    }
    Ok(match detachment.body {
        None => (NQ, NV),
        Some(_) => (
            NQ - detachment.positions.1 + 7,
            NV - detachment.velocities.1 + 6,
        ),
    })
}

/// [`release_state`] into slices `q2` and `v2`, which must have the
/// variant's sizes ([`released_sizes`]).
pub fn release_state_into<P, const NQ: usize, const NV: usize>(
    parent: &P,
    index: usize,
    q: &[P::Real; NQ],
    qd: &[P::Real; NV],
    q2: &mut [P::Real],
    v2: &mut [P::Real],
) -> Result<(), ReleaseError>
where
    P: Detachable<NQ, NV>,
{
    let detachment = parent
        .detachment(index)
        .ok_or(ReleaseError::NoSuchJoint(index))?;
    let wrong = ReleaseError::WrongVariant {
        expected: detachment.variant,
    };
    if (q2.len(), v2.len()) != released_sizes(parent, index)? {
        return Err(wrong);
    }
    // The state on its manifold: an event located on the dense output
    // carries quaternions a tolerance away from unit, which a pose would
    // turn into a rotation that is not one.
    let mut q = *q;
    normalize_quaternions(P::QUATERNIONS, &mut q);
    let Some(body) = detachment.body else {
        q2.copy_from_slice(&q);
        v2.copy_from_slice(qd);
        return Ok(());
    };
    let pose = parent.body_pose(&q, body).ok_or(wrong.clone())?;
    let velocity = parent.body_velocity(&q, qd, body).ok_or(wrong.clone())?;
    let (free_q, free_v) = free_joint_state(&pose, &velocity);
    splice(&q, detachment.positions, &free_q, q2);
    splice(qd, detachment.velocities, &free_v, v2);
    Ok(())
}

/// The coordinates of a free joint from the ground that carries a body at
/// `pose` moving with `velocity` (ground axes): its origin and unit
/// quaternion `[x, y, z, w]` (with `w ≥ 0`), and its origin's velocity and
/// angular velocity in the body's own axes. What a released body's free
/// joint starts from, here and in a variant module's initial state.
pub fn free_joint_state<R: Real>(
    pose: &BodyPose<R>,
    velocity: &BodyVelocity<R>,
) -> ([R; 7], [R; 6]) {
    let [x, y, z, w] = rotation_quaternion(&pose.rotation);
    let v = transposed_times(&pose.rotation, &velocity.linear);
    let omega = transposed_times(&pose.rotation, &velocity.angular);
    let p = pose.position;
    (
        [p[0], p[1], p[2], x, y, z, w],
        [v[0], v[1], v[2], omega[0], omega[1], omega[2]],
    )
}

/// Writes `values` with `values[start..start + len]` replaced by `with`
/// into `out`, whose length the caller has checked.
fn splice<R: Real>(values: &[R], (start, len): (usize, usize), with: &[R], out: &mut [R]) {
    let kept = values[..start]
        .iter()
        .chain(with)
        .chain(&values[start + len..]);
    for (slot, &value) in out.iter_mut().zip(kept) {
        *slot = value;
    }
}

/// `Rᵀ x`.
fn transposed_times<R: Real>(rotation: &[[R; 3]; 3], x: &[R; 3]) -> [R; 3] {
    core::array::from_fn(|i| rotation[0][i] * x[0] + rotation[1][i] * x[1] + rotation[2][i] * x[2])
}

/// The unit quaternion `[x, y, z, w]` (with `w ≥ 0`) of a rotation matrix
/// (row-major, body to ground), by Shepperd's method: from the largest of
/// `w` and the diagonal's components, so that no square root is taken of
/// a small difference. What a released body's free joint and an
/// animation's frames store.
pub fn rotation_quaternion<R: Real>(r: &[[R; 3]; 3]) -> [R; 4] {
    let one = R::ONE;
    let quarter = R::from_f64(0.25);
    let trace = r[0][0] + r[1][1] + r[2][2];
    let candidates = [
        trace,
        r[0][0] + r[0][0] - trace,
        r[1][1] + r[1][1] - trace,
        r[2][2] + r[2][2] - trace,
    ];
    let mut largest = 0;
    for (i, &c) in candidates.iter().enumerate() {
        if c > candidates[largest] {
            largest = i;
        }
    }
    // 4 s² = 1 + candidates[largest], with s the largest component.
    let s = (one + candidates[largest]).sqrt() * R::from_f64(0.5);
    let k = quarter / s;
    let (yz, zy) = (r[1][2], r[2][1]);
    let (zx, xz) = (r[2][0], r[0][2]);
    let (xy, yx) = (r[0][1], r[1][0]);
    let [x, y, z, w] = match largest {
        0 => [(zy - yz) * k, (xz - zx) * k, (yx - xy) * k, s],
        1 => [s, (xy + yx) * k, (xz + zx) * k, (zy - yz) * k],
        2 => [(xy + yx) * k, s, (yz + zy) * k, (xz - zx) * k],
        _ => [(xz + zx) * k, (yz + zy) * k, s, (yx - xy) * k],
    };
    if w < R::ZERO {
        [-x, -y, -z, -w]
    } else {
        [x, y, z, w]
    }
}

/// The release conditions of `model` as event functions at `(t, q, q̇)`
/// and joint forces `tau` (what the simulation applies besides the model's
/// own forces; a NaN where the dynamics have no solution): one value per detachable joint, crossing zero as the joint
/// lets go — `t − T` for a time, the reaction component less its threshold
/// otherwise (rising for `Above`, falling for `Below`).
pub fn release_functions<M, const NQ: usize, const NV: usize>(
    model: &M,
    t: M::Real,
    q: &[M::Real; NQ],
    qd: &[M::Real; NV],
    tau: &[M::Real; NV],
    values: &mut [M::Real],
) where
    M: Detachable<NQ, NV>,
{
    let watches_reactions = (0..M::N_DETACHABLE).any(|i| {
        model
            .detachment(i)
            .is_some_and(|d| !matches!(d.release, Release::At(_)))
    });
    let mut reactions = [[M::Real::ZERO; 6]; MAX_DETACHABLE];
    if watches_reactions && model.reactions(t, q, qd, tau, &mut reactions).is_err() {
        // No dynamics, no reaction: a NaN stops the run with its time.
        let nan = M::Real::from_f64(f64::NAN);
        reactions = [[nan; 6]; MAX_DETACHABLE];
    }
    for (i, value) in values.iter_mut().enumerate().take(M::N_DETACHABLE) {
        *value = match model.detachment(i).map(|d| d.release) {
            Some(Release::At(time)) => t - time,
            Some(Release::Above(c, threshold)) | Some(Release::Below(c, threshold)) => {
                reactions
                    .get(i)
                    .and_then(|r| r.get(c))
                    .copied()
                    .unwrap_or(M::Real::ZERO)
                    - threshold
            }
            None => M::Real::ZERO,
        };
    }
}

/// Implements [`Detachable`] for a type made by [`model!`](crate::model)
/// from a module with detachable joints (one with `DETACHMENTS`); add
/// `, loops` for a module with cut joints (made by `model!(…, loops)`),
/// whose reactions need the constrained dynamics:
///
/// ```ignore
/// sharnir_runtime::model!(Array = sharnir_generated::solar_array);
/// sharnir_runtime::detachments!(Array = sharnir_generated::solar_array);
/// ```
#[macro_export]
macro_rules! detachments {
    ($name:ident = $($module:ident)::+) => {
        $crate::detachments!(@impl $name = $($module)::+ ; {
            fn reactions(
                &self,
                t: Self::Real,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
                tau: &[Self::Real; $($module)::+::NV],
                reactions: &mut [[Self::Real; 6]],
            ) -> Result<(), $crate::RhsError> {
                let mut forces = $crate::Model::model_forces(self, t, q, qd);
                for (total, extra) in forces.iter_mut().zip(tau) {
                    *total += *extra;
                }
                let qdd = $crate::Model::forward_dynamics(self, q, qd, &forces);
                let all = $($module)::+::joint_reactions_with(&self.derived, q, qd, &qdd);
                for (slot, value) in reactions.iter_mut().zip(all) {
                    *slot = value;
                }
                Ok(())
            }
        });
    };
    ($name:ident = $($module:ident)::+, loops) => {
        $crate::detachments!(@impl $name = $($module)::+ ; {
            fn reactions(
                &self,
                t: Self::Real,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
                tau: &[Self::Real; $($module)::+::NV],
                reactions: &mut [[Self::Real; 6]],
            ) -> Result<(), $crate::RhsError> {
                let extra = *tau;
                let control = move |_t: Self::Real,
                                    _q: &[Self::Real; $($module)::+::NQ],
                                    _qd: &[Self::Real; $($module)::+::NV]| extra;
                let mut system = $crate::ConstrainedSystem::<
                    _,
                    { $($module)::+::NQ },
                    { $($module)::+::NV },
                    { $($module)::+::NC },
                    _,
                >::with_control(*self, control);
                let solved = system.accelerations(t, q, qd)?;
                let all = $($module)::+::joint_reactions_with(
                    &self.derived,
                    q,
                    qd,
                    &solved.qdd,
                    &solved.multipliers,
                );
                for (slot, value) in reactions.iter_mut().zip(all) {
                    *slot = value;
                }
                Ok(())
            }
        });
    };
    (@impl $name:ident = $($module:ident)::+ ; { $($reactions:tt)* }) => {
        impl $crate::Detachable<{ $($module)::+::NQ }, { $($module)::+::NV }> for $name {
            const N_DETACHABLE: usize = $($module)::+::N_DETACHABLE;

            fn detachment(&self, index: usize) -> Option<$crate::Detachment<Self::Real>> {
                use $($module)::+::Release as R;
                let d = $($module)::+::DETACHMENTS.get(index)?;
                Some($crate::Detachment {
                    joint: d.joint,
                    variant: d.variant,
                    release: match d.release {
                        R::At(t) => $crate::Release::At(t),
                        R::Above(c, x) => $crate::Release::Above(c, x),
                        R::Below(c, x) => $crate::Release::Below(c, x),
                    },
                    body: d.body,
                    positions: d.positions,
                    velocities: d.velocities,
                })
            }

            $($reactions)*

            fn body_pose(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                body: usize,
            ) -> Option<$crate::BodyPose<Self::Real>> {
                let pose = $($module)::+::body_poses_with(&self.derived, q).get(body).copied()?;
                Some($crate::BodyPose {
                    rotation: pose.rotation,
                    position: pose.position,
                })
            }

            fn body_velocity(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
                body: usize,
            ) -> Option<$crate::BodyVelocity<Self::Real>> {
                let jacobian = $($module)::+::body_jacobians_with(&self.derived, q).get(body).copied()?;
                let mut twist = [0.0 as Self::Real; 6];
                for (value, row) in twist.iter_mut().zip(&jacobian) {
                    *value = row.iter().zip(qd).map(|(j, v)| j * v).sum();
                }
                Some($crate::BodyVelocity {
                    linear: [twist[0], twist[1], twist[2]],
                    angular: [twist[3], twist[4], twist[5]],
                })
            }
        }
    };
}
