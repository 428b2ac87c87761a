//! The parts a mechanism is made of: tree bodies with their primitive
//! joints, the frames fixed in them, followers' couplings and runtime
//! parameters.
//!
//! These types sit at the bottom of the model so that the steps that build
//! them (`joints`, `lumping`, `cut_joints`) and the [`Mechanism`] that
//! collects them depend on this file, never on each other in a circle.
//!
//! [`Mechanism`]: crate::model::Mechanism

use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Id, Pool};

/// A primitive joint: every joint type of the format is one of these or a
/// chain of them through massless auxiliary bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about the axis; one coordinate.
    Revolute,
    /// Translation along the axis; one coordinate.
    Prismatic,
    /// Any rotation: a unit quaternion `[x, y, z, w]`, velocity the angular
    /// velocity in the body frame.
    Spherical,
    /// Position `[x, y, z]` in the joint frame and a unit quaternion;
    /// velocity `[linear, angular]`, both in the body frame.
    Free,
}

impl JointKind {
    /// Number of position coordinates.
    pub fn nq(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 4,
            JointKind::Free => 7,
        }
    }

    /// Number of velocity coordinates.
    pub fn nv(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 3,
            JointKind::Free => 6,
        }
    }
}

/// A parameter that the generated module reads from `Params` at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeParameter {
    /// Field name (the spec's parameter name).
    pub name: String,
    /// The spec's value, used by `Params::default()`.
    pub default: f64,
}

/// How a follower joint's coordinate derives from its leader's:
/// `q = multiplier · q_leader + offset` (the spec's `mimic`).
///
/// The follower reads the leader's coordinates (its `position` and
/// `velocity` indices are the leader's), so every formalism that builds on
/// [`crate::geometry::kinematics`] sees the follower move with the true degrees of
/// freedom, and Newton–Euler adds `multiplier` times the follower's joint
/// force to the leader's (virtual work).
#[derive(Clone, Debug)]
pub struct Coupling {
    /// The leader's spec joint, for documentation of the generated module.
    pub leader: String,
    /// Ratio of the follower's motion to the leader's.
    pub multiplier: Id,
    /// Follower coordinate at a zero leader coordinate.
    pub offset: Id,
}

/// One moving body of the spanning tree with its inboard primitive joint.
#[derive(Clone, Debug)]
pub struct TreeBody {
    /// The body's name in the spec; auxiliary bodies are named after the
    /// body they lead to and their place in the chain (`link.1`).
    pub name: String,
    /// The name of the spec joint this primitive joint belongs to.
    pub joint: String,
    /// Index of the parent in [`Mechanism::bodies`](crate::model::Mechanism::bodies); `None` for ground.
    pub parent: Option<usize>,
    /// Index of the joint's first position coordinate in `q` (the leader's
    /// for a follower).
    pub position: usize,
    /// Index of the joint's first velocity coordinate in `qd`, `qdd`, `tau`
    /// (the leader's for a follower).
    pub velocity: usize,
    /// Set for a follower joint, which has no coordinate of its own.
    pub coupling: Option<Coupling>,
    /// Joint type.
    pub kind: JointKind,
    /// Unit joint axis in the joint frame (revolute and prismatic joints).
    pub axis: Vec3,
    /// Joint-frame orientation in the parent frame (`p_parent = translation + rotation · p_joint`).
    pub rotation: Mat3,
    /// Joint-frame origin in the parent frame.
    pub translation: Vec3,
    /// Mass (with every body lumped into it by fixed joints).
    pub mass: Id,
    /// Centre of mass in the body frame.
    pub com: Vec3,
    /// Inertia tensor about the centre of mass, body axes.
    pub inertia: Mat3,
    /// True for the massless bodies between the primitive joints of a
    /// cylindrical, universal or planar joint; they have no spec body.
    pub auxiliary: bool,
    /// Where the spec body's own frame is in this body's frame (the joint
    /// frame after the motion), when the inboard joint has a
    /// `child_origin`; `None` when the two coincide. Mass properties are
    /// already expressed in the joint frame; only the reported poses and
    /// Jacobians of the body read this.
    pub body_frame: Option<Placement>,
    /// The drive's armature on each velocity coordinate of this primitive
    /// joint (rotor inertia reflected to the joint, the spec's `armature`),
    /// empty when the spec joint has none. A follower's acts on its own
    /// motion, `k q̈_leader`.
    pub armature: Vec<Id>,
}

/// A frame fixed in a body: `p_body = translation + rotation · p_frame`.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Orientation of the frame in the body.
    pub rotation: Mat3,
    /// Origin of the frame in the body.
    pub translation: Vec3,
}

impl Placement {
    /// The body's own frame.
    pub fn identity(pool: &mut Pool) -> Placement {
        Placement {
            rotation: pool.identity3(),
            translation: pool.zero3(),
        }
    }

    /// The frame placed at `offset` in this one, in the body.
    pub fn then(&self, pool: &mut Pool, offset: &Placement) -> Placement {
        let shift = pool.mat_vec(&self.rotation, offset.translation);
        Placement {
            rotation: pool.mat_mul(&self.rotation, &offset.rotation),
            translation: pool.add3(self.translation, shift),
        }
    }

    /// The placement of the body in a frame placed at `(rotation,
    /// translation)`: `(Rᵀ, −Rᵀ t)`.
    pub fn inverse_of(pool: &mut Pool, rotation: &Mat3, translation: Vec3) -> Placement {
        let back = pool.mat_t_vec(rotation, translation);
        Placement {
            rotation: [0, 1, 2].map(|i| [0, 1, 2].map(|j| rotation[j][i])),
            translation: pool.scale3c(sharnir_cas::Coeff::MINUS_ONE, back),
        }
    }

    /// A centre of mass and central inertia given in the placed frame,
    /// expressed in the body's frame.
    pub fn carry_mass_properties(
        &self,
        pool: &mut Pool,
        com: Vec3,
        inertia: &Mat3,
    ) -> (Vec3, Mat3) {
        let rotated = pool.mat_vec(&self.rotation, com);
        (
            pool.add3(self.translation, rotated),
            pool.rotate_symmetric(&self.rotation, inertia),
        )
    }
}

/// A frame fixed in a tree body or in the ground: where a spec body's frame
/// is (a body welded by fixed joints, or one placed by a `child_origin`),
/// and the two sides of a cut joint.
#[derive(Clone, Copy, Debug)]
pub struct AttachedFrame {
    /// Index of the tree body (in [`Mechanism::bodies`](crate::model::Mechanism::bodies)) it moves with;
    /// `None` for the ground.
    pub host: Option<usize>,
    /// Where it is in the host's frame.
    pub placement: Placement,
}

impl AttachedFrame {
    /// The ground frame itself.
    pub fn ground(pool: &mut Pool) -> AttachedFrame {
        AttachedFrame {
            host: None,
            placement: Placement::identity(pool),
        }
    }

    /// The frame of tree body `index` itself.
    pub fn of_body(pool: &mut Pool, index: usize) -> AttachedFrame {
        AttachedFrame {
            host: Some(index),
            placement: Placement::identity(pool),
        }
    }

    /// The frame placed at `offset` in this one, in the same host.
    pub fn then(&self, pool: &mut Pool, offset: &Placement) -> AttachedFrame {
        AttachedFrame {
            host: self.host,
            placement: self.placement.then(pool, offset),
        }
    }
}
