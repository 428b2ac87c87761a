//! The numeric kinematic tree: the data every algorithm of the crate reads,
//! and how its joint coordinates are laid out in joint-space vectors.

use crate::error::TreeError;
use crate::joint_kind::JointKind;

/// One moving body together with its inboard joint.
///
/// A body's frame is its joint frame moved by the joint coordinates, so for a
/// point with body coordinates `p_body`:
/// - revolute: `p_parent = translation + rotation · Rot(axis, q) · p_body`;
/// - prismatic: `p_parent = translation + rotation · (q · axis + p_body)`;
/// - spherical: `p_parent = translation + rotation · R(quat) · p_body`;
/// - free: `p_parent = translation + rotation · ((x, y, z) + R(quat) · p_body)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Index of the parent body in [`Tree::bodies`], always smaller than this
    /// body's own index; `None` when the parent is the ground.
    pub parent: Option<usize>,
    /// The inboard joint's kind.
    pub joint: JointKind,
    /// Unit joint axis in the joint frame (which, for revolute and prismatic
    /// joints, equals its coordinates in the body frame). Precondition: unit
    /// length. Ignored by spherical and free joints.
    pub axis: [f64; 3],
    /// Orientation of the joint frame in the parent frame, row-major:
    /// `p_parent = translation + rotation · p_joint`. Precondition: a proper
    /// rotation matrix.
    pub rotation: [[f64; 3]; 3],
    /// Origin of the joint frame in the parent frame, in metres.
    pub translation: [f64; 3],
    /// Mass in kg.
    pub mass: f64,
    /// Centre of mass in the body frame, in metres.
    pub com: [f64; 3],
    /// Rotational inertia about the centre of mass in body axes, kg·m²
    /// (symmetric).
    pub inertia: [[f64; 3]; 3],
}

/// A kinematic tree of rigid bodies over the ground, numbered so that parents
/// come before children.
///
/// Joint-space vectors concatenate the bodies' joint coordinates in body
/// order: `q` has [`Tree::nq`] entries (body `k`'s from
/// `q_offsets()[k]`), and the velocity-like vectors (`qd`, `qdd`, `tau`, the
/// rows and columns of the mass matrix) have [`Tree::nv`] entries (body `k`'s
/// from `v_offsets()[k]`). Every algorithm checks the lengths of its
/// arguments and the parent numbering first and reports a [`TreeError`]
/// instead of panicking; the geometric preconditions documented on [`Body`]
/// and [`JointKind`] (unit axes and quaternions, proper rotations) are not
/// checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The moving bodies, parents before children.
    pub bodies: Vec<Body>,
    /// Gravitational acceleration in the ground frame, m/s² (e.g.
    /// `[0.0, 0.0, -9.81]`).
    pub gravity: [f64; 3],
    /// The drives' armature, one per velocity coordinate (kg·m² or kg):
    /// rotor inertia reflected to the joint, Pinocchio's `model.armature`,
    /// which adds `diag(armature)` to `M`. Missing entries (an empty vector
    /// for none) are zero.
    pub armature: Vec<f64>,
}

impl Tree {
    /// Number of degrees of freedom, the same as [`Tree::nv`]: kept under
    /// this name for callers that predate multi-coordinate joints, for whom
    /// it was the length of every joint-space vector.
    pub fn dof(&self) -> usize {
        self.nv()
    }

    /// The armature of velocity coordinate `i` ([`Tree::armature`]).
    pub(crate) fn armature_at(&self, i: usize) -> f64 {
        self.armature.get(i).copied().unwrap_or(0.0)
    }

    /// Number of position coordinates: the length of `q`.
    pub fn nq(&self) -> usize {
        self.bodies.iter().map(|b| b.joint.nq()).sum()
    }

    /// Number of velocity coordinates: the length of velocities,
    /// accelerations and joint forces, and the size of the mass matrix.
    pub fn nv(&self) -> usize {
        self.bodies.iter().map(|b| b.joint.nv()).sum()
    }

    /// Where each body's position coordinates start in `q`, so that callers
    /// can read or set one joint's coordinates without re-deriving the
    /// layout.
    pub fn q_offsets(&self) -> Vec<usize> {
        offsets(self.bodies.iter().map(|b| b.joint.nq()))
    }

    /// Where each body's velocity coordinates start in velocity-like vectors
    /// and in the rows and columns of the mass matrix.
    pub fn v_offsets(&self) -> Vec<usize> {
        offsets(self.bodies.iter().map(|b| b.joint.nv()))
    }

    /// Checks that every parent index precedes its child, that `q` has
    /// [`Tree::nq`] entries and that each named velocity-like argument has
    /// [`Tree::nv`]: the conditions under which the recursions cannot index
    /// out of bounds.
    pub(crate) fn check(
        &self,
        q: &[f64],
        velocity_like: &[(&'static str, &[f64])],
    ) -> Result<(), TreeError> {
        for (body, b) in self.bodies.iter().enumerate() {
            if let Some(parent) = b.parent {
                if parent >= body {
                    return Err(TreeError::ParentOrder { body, parent });
                }
            }
        }
        let lengths = std::iter::once(("q", q, self.nq()))
            .chain(velocity_like.iter().map(|&(name, x)| (name, x, self.nv())));
        for (argument, values, expected) in lengths {
            if values.len() != expected {
                return Err(TreeError::WrongLength {
                    argument,
                    expected,
                    found: values.len(),
                });
            }
        }
        Ok(())
    }

    /// Each body's chunk of the configuration `q`, in body order.
    pub(crate) fn q_chunks<'a>(&'a self, q: &'a [f64]) -> impl Iterator<Item = &'a [f64]> + 'a {
        self.chunks(q, JointKind::nq)
    }

    /// Each body's chunk of a velocity-like vector, in body order.
    pub(crate) fn v_chunks<'a>(&'a self, v: &'a [f64]) -> impl Iterator<Item = &'a [f64]> + 'a {
        self.chunks(v, JointKind::nv)
    }

    /// Cuts `x` into consecutive chunks of `width(joint)` entries, one per
    /// body. A short `x` yields short (or empty) chunks rather than a panic;
    /// after [`Tree::check`] every chunk has its full width.
    fn chunks<'a>(
        &'a self,
        x: &'a [f64],
        width: fn(JointKind) -> usize,
    ) -> impl Iterator<Item = &'a [f64]> + 'a {
        let mut rest = x;
        self.bodies.iter().map(move |body| {
            let (chunk, tail) = rest.split_at(width(body.joint).min(rest.len()));
            rest = tail;
            chunk
        })
    }
}

/// The running sums `0, w₀, w₀ + w₁, …` of the widths, one per width.
fn offsets(widths: impl Iterator<Item = usize>) -> Vec<usize> {
    widths
        .scan(0, |start, width| {
            let offset = *start;
            *start += width;
            Some(offset)
        })
        .collect()
}
