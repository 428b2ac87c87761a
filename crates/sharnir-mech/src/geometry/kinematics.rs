//! Symbolic kinematics of the tree: where each body is and how fast it moves.
//!
//! Every formalism starts from the same two facts about a body: its
//! placement in the parent, which depends on its own coordinate only, and
//! the velocity it inherits from the parent plus what its joint adds. They
//! live here once so that inverse dynamics, forward dynamics and energy all
//! read the same geometry.
//!
//! With `E` the body-to-parent rotation, `o` the body origin in parent
//! coordinates and `a` the joint axis (body coordinates):
//! ```text
//! R = R_p E,   r = r_p + R_p o                       (pose in the ground frame)
//! ω = Eᵀω_p + ω_j,   v = Eᵀ(v_p + ω_p × o) + v_j        (body coordinates)
//! (v_j; ω_j) = S q̇                                     (the joint's relative motion)
//! ```

use crate::model::inputs::Input;
use crate::model::rotation::{quaternion_rotation, rodrigues};
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{AttachedFrame, JointKind, Mechanism, Placement, TreeBody};
use sharnir_cas::{Id, Pool};

/// The symbols of a body's joint coordinates of one kind (`Input::Velocity`,
/// `Input::Acceleration`, `Input::Force`), `nv` of them from its first
/// velocity index. A follower's rate and acceleration are its leader's
/// scaled by the multiplier; a follower has no joint force of its own, so
/// the formalisms that read `Input::Force` refuse couplings.
pub(crate) fn joint_symbols(
    pool: &mut Pool,
    body: &TreeBody,
    input: fn(usize) -> Input,
) -> Vec<Id> {
    (body.velocity..body.velocity + body.kind.nv())
        .map(|i| {
            let symbol = pool.input(input(i));
            match &body.coupling {
                Some(c) => pool.mul(c.multiplier, symbol),
                None => symbol,
            }
        })
        .collect()
}

/// The body's position coordinates: symbols, or for a follower the affine
/// function of its leader's coordinate.
pub(crate) fn position_symbols(pool: &mut Pool, body: &TreeBody) -> Vec<Id> {
    (body.position..body.position + body.kind.nq())
        .map(|i| {
            let symbol = pool.input(Input::Position(i));
            match &body.coupling {
                Some(c) => {
                    let scaled = pool.mul(c.multiplier, symbol);
                    pool.add(scaled, c.offset)
                }
                None => symbol,
            }
        })
        .collect()
}

/// Body-to-parent rotation `E` and body origin `o` in the parent frame, at
/// the body's position coordinates.
pub(crate) fn placement(pool: &mut Pool, body: &TreeBody) -> (Mat3, Vec3) {
    let q = position_symbols(pool, body);
    let zero = pool.zero();
    let at = |i: usize| q.get(i).copied().unwrap_or(zero);
    match body.kind {
        JointKind::Revolute => {
            let joint = rodrigues(pool, body.axis, at(0));
            (pool.mat_mul(&body.rotation, &joint), body.translation)
        }
        JointKind::Prismatic => {
            let slide = pool.scale3(at(0), body.axis);
            let offset = pool.mat_vec(&body.rotation, slide);
            (body.rotation, pool.add3(body.translation, offset))
        }
        JointKind::Spherical => {
            let joint = quaternion_rotation(pool, [at(0), at(1), at(2), at(3)]);
            (pool.mat_mul(&body.rotation, &joint), body.translation)
        }
        JointKind::Free => {
            let joint = quaternion_rotation(pool, [at(3), at(4), at(5), at(6)]);
            let offset = pool.mat_vec(&body.rotation, [at(0), at(1), at(2)]);
            (
                pool.mat_mul(&body.rotation, &joint),
                pool.add3(body.translation, offset),
            )
        }
    }
}

/// The joint's motion subspace in body coordinates: for each velocity
/// coordinate, the (linear, angular) velocity of the body origin relative to
/// the parent that a unit rate produces. Constant for every primitive joint,
/// so the same columns map accelerations to relative accelerations.
pub(crate) fn subspace(pool: &mut Pool, body: &TreeBody) -> Vec<(Vec3, Vec3)> {
    let zero = pool.zero3();
    let (z, o) = (pool.zero(), pool.one());
    let units = [[o, z, z], [z, o, z], [z, z, o]];
    match body.kind {
        JointKind::Revolute => vec![(zero, body.axis)],
        JointKind::Prismatic => vec![(body.axis, zero)],
        JointKind::Spherical => units.iter().map(|&u| (zero, u)).collect(),
        JointKind::Free => units
            .iter()
            .map(|&u| (u, zero))
            .chain(units.iter().map(|&u| (zero, u)))
            .collect(),
    }
}

/// The motion subspace of a one-axis joint in its parent's coordinates,
/// about the parent's origin: `(t × R a; R a)` for a revolute joint about
/// `a` through the joint-frame origin `t`, `(R a; 0)` for a prismatic one
/// (`R` the joint-frame orientation). Unlike the body-coordinate column of
/// [`subspace`] it needs no rotation by the joint's own coordinate, because
/// the joint turns about (or slides along) the very axis it moves, so it is
/// constant too; `None` for multi-axis joints, whose columns in the parent
/// depend on the joint's coordinates.
pub(crate) fn parent_subspace(pool: &mut Pool, body: &TreeBody) -> Option<(Vec3, Vec3)> {
    let axis = pool.mat_vec(&body.rotation, body.axis);
    match body.kind {
        JointKind::Revolute => Some((pool.cross3(body.translation, axis), axis)),
        JointKind::Prismatic => Some((axis, pool.zero3())),
        JointKind::Spherical | JointKind::Free => None,
    }
}

/// `Σ Sᵢ xᵢ`: the relative (linear, angular) motion for joint rates or
/// accelerations `x`.
pub(crate) fn relative_motion(pool: &mut Pool, body: &TreeBody, x: &[Id]) -> (Vec3, Vec3) {
    let columns = subspace(pool, body);
    let (mut linear, mut angular) = (pool.zero3(), pool.zero3());
    for ((l, a), &xi) in columns.into_iter().zip(x) {
        let (dl, da) = (pool.scale3(xi, l), pool.scale3(xi, a));
        linear = pool.add3(linear, dl);
        angular = pool.add3(angular, da);
    }
    (linear, angular)
}

/// Where a body is: its orientation and origin in the ground frame.
#[derive(Clone, Copy, Debug)]
pub struct Pose {
    /// Rotation from body to ground coordinates.
    pub rotation: Mat3,
    /// Body origin in ground coordinates.
    pub position: Vec3,
}

impl Pose {
    /// The pose of the frame placed at `offset` in this one.
    pub fn then(&self, pool: &mut Pool, offset: &Placement) -> Pose {
        let shift = pool.mat_vec(&self.rotation, offset.translation);
        Pose {
            rotation: pool.mat_mul(&self.rotation, &offset.rotation),
            position: pool.add3(self.position, shift),
        }
    }

    /// The pose of a frame attached to a tree body (`tree_poses` in the
    /// mechanism's body order) or to the ground.
    pub fn of_attached(pool: &mut Pool, tree_poses: &[Pose], frame: &AttachedFrame) -> Pose {
        match frame.host.and_then(|h| tree_poses.get(h)) {
            Some(host) => host.then(pool, &frame.placement),
            None => Pose {
                rotation: frame.placement.rotation,
                position: frame.placement.translation,
            },
        }
    }
}

/// How a body moves: angular velocity and body-origin velocity, both in body
/// coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Twist {
    /// Angular velocity ω.
    pub angular: Vec3,
    /// Velocity of the body-frame origin.
    pub linear: Vec3,
}

/// The pose of every body, in the mechanism's (regular) body order.
pub fn poses(mechanism: &mut Mechanism) -> Vec<Pose> {
    let Mechanism { pool, bodies, .. } = mechanism;
    let mut poses: Vec<Pose> = Vec::with_capacity(bodies.len());
    for body in bodies.iter() {
        let (to_parent, origin) = placement(pool, body);
        let pose = match body.parent.and_then(|p| poses.get(p)) {
            Some(parent) => {
                let offset = pool.mat_vec(&parent.rotation, origin);
                Pose {
                    rotation: pool.mat_mul(&parent.rotation, &to_parent),
                    position: pool.add3(parent.position, offset),
                }
            }
            None => Pose {
                rotation: to_parent,
                position: origin,
            },
        };
        poses.push(pose);
    }
    poses
}

/// The pose of every body's own frame (the spec body's frame, where the
/// inboard joint's `child_origin` puts it; the tree frame otherwise), in the
/// mechanism's (regular) body order: what `body_poses` reports.
pub fn body_frame_poses(mechanism: &mut Mechanism) -> Vec<Pose> {
    let tree_poses = poses(mechanism);
    let Mechanism { pool, bodies, .. } = mechanism;
    tree_poses
        .into_iter()
        .zip(bodies.iter())
        .map(|(pose, body)| match &body.body_frame {
            Some(offset) => pose.then(pool, offset),
            None => pose,
        })
        .collect()
}

/// The twist of every body, in the mechanism's (regular) body order.
pub fn twists(mechanism: &mut Mechanism) -> Vec<Twist> {
    let Mechanism { pool, bodies, .. } = mechanism;
    let mut twists: Vec<Twist> = Vec::with_capacity(bodies.len());
    for body in bodies.iter() {
        let (to_parent, origin) = placement(pool, body);
        let (omega_p, v_p) = match body.parent.and_then(|p| twists.get(p)) {
            Some(parent) => (parent.angular, parent.linear),
            None => (pool.zero3(), pool.zero3()),
        };
        let omega_carried = pool.mat_t_vec(&to_parent, omega_p);
        let lever = pool.cross3(omega_p, origin);
        let v_at_origin = pool.add3(v_p, lever);
        let v_carried = pool.mat_t_vec(&to_parent, v_at_origin);
        let rates = joint_symbols(pool, body, Input::Velocity);
        let (v_joint, omega_joint) = relative_motion(pool, body, &rates);
        let twist = Twist {
            angular: pool.add3(omega_carried, omega_joint),
            linear: pool.add3(v_carried, v_joint),
        };
        twists.push(twist);
    }
    twists
}

/// `q̇(q, v)`: the rates of the position coordinates, in `q` order. Equal to
/// the velocities for revolute and prismatic joints; for a quaternion
/// `q = (u, w)` and a body-frame angular velocity ω it is
/// `q̇ = ½ q ⊗ (ω, 0) = (½(w ω + u × ω), −½ u·ω)`, and a free joint's
/// position moves with `ṗ = R(q) v_linear`. An integrator steps `q` with
/// these and renormalises the quaternions.
pub fn coordinate_rates(mechanism: &mut Mechanism) -> Vec<Id> {
    let Mechanism {
        pool,
        bodies,
        positions,
        ..
    } = mechanism;
    let zero = pool.zero();
    let mut rates = vec![zero; positions.len()];
    for body in bodies.iter().filter(|b| b.coupling.is_none()) {
        let q = position_symbols(pool, body);
        let v = joint_symbols(pool, body, Input::Velocity);
        let at = |x: &[Id], i: usize| x.get(i).copied().unwrap_or(zero);
        let body_rates: Vec<Id> = match body.kind {
            JointKind::Revolute | JointKind::Prismatic => v.clone(),
            JointKind::Spherical => quaternion_rate(
                pool,
                [at(&q, 0), at(&q, 1), at(&q, 2), at(&q, 3)],
                [at(&v, 0), at(&v, 1), at(&v, 2)],
            )
            .to_vec(),
            JointKind::Free => {
                let quaternion = [at(&q, 3), at(&q, 4), at(&q, 5), at(&q, 6)];
                let rotation = quaternion_rotation(pool, quaternion);
                let linear = pool.mat_vec(&rotation, [at(&v, 0), at(&v, 1), at(&v, 2)]);
                let spin = quaternion_rate(pool, quaternion, [at(&v, 3), at(&v, 4), at(&v, 5)]);
                linear.into_iter().chain(spin).collect()
            }
        };
        for (i, rate) in body_rates.into_iter().enumerate() {
            if let Some(slot) = rates.get_mut(body.position + i) {
                *slot = rate;
            }
        }
    }
    rates
}

/// `½ q ⊗ (ω, 0)` for `q = [x, y, z, w]` and ω in the rotated (body) frame.
fn quaternion_rate(pool: &mut Pool, q: [Id; 4], omega: Vec3) -> [Id; 4] {
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let scaled = pool.scale3(w, omega);
    let turn = pool.cross3(u, omega);
    let vector = pool.add3(scaled, turn);
    let half = sharnir_cas::Coeff::ratio(1, 2);
    let [a, b, c] = vector.map(|e| pool.scale(half, e));
    let dot = pool.dot3(u, omega);
    [a, b, c, pool.scale(-half, dot)]
}
