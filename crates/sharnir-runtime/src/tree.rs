//! The numeric kinematic tree: the data every algorithm of the crate reads.

use crate::error::TreeError;

/// The kind of a body's inboard joint, which decides how its coordinate moves
/// the body relative to the joint frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation by `q` radians about the joint axis (right-hand rule); `τ` is a
    /// torque in N·m.
    Revolute,
    /// Translation by `q` metres along the joint axis; `τ` is a force in N.
    Prismatic,
}

/// One moving body together with its inboard joint.
///
/// A body's frame is its joint frame moved by the joint coordinate, so for a
/// point with body coordinates `p_body`:
/// - revolute: `p_parent = translation + rotation · Rot(axis, q) · p_body`;
/// - prismatic: `p_parent = translation + rotation · (q · axis + p_body)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Index of the parent body in [`Tree::bodies`], always smaller than this
    /// body's own index; `None` when the parent is the ground.
    pub parent: Option<usize>,
    /// The inboard joint's kind.
    pub joint: JointKind,
    /// Unit joint axis in the joint frame (which, for both joint kinds, equals
    /// its coordinates in the body frame). Precondition: unit length.
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
/// come before children; body `i`'s joint has coordinate `i`.
///
/// Joint-space arguments and results (`q`, `qd`, `qdd`, `tau`) have one entry
/// per body, in body order. Every algorithm checks the lengths of its
/// arguments and the parent numbering first and reports a [`TreeError`]
/// instead of panicking; the geometric preconditions documented on [`Body`]
/// are not checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The moving bodies, parents before children.
    pub bodies: Vec<Body>,
    /// Gravitational acceleration in the ground frame, m/s² (e.g.
    /// `[0.0, 0.0, -9.81]`).
    pub gravity: [f64; 3],
}

impl Tree {
    /// Number of bodies, which is also the number of joint coordinates.
    pub fn dof(&self) -> usize {
        self.bodies.len()
    }

    /// Checks that every parent index precedes its child and that each named
    /// joint-space argument has one entry per body: the conditions under
    /// which the recursions cannot index out of bounds.
    pub(crate) fn check(&self, arguments: &[(&'static str, &[f64])]) -> Result<(), TreeError> {
        for (body, b) in self.bodies.iter().enumerate() {
            if let Some(parent) = b.parent {
                if parent >= body {
                    return Err(TreeError::ParentOrder { body, parent });
                }
            }
        }
        for &(argument, values) in arguments {
            if values.len() != self.dof() {
                return Err(TreeError::WrongLength {
                    argument,
                    expected: self.dof(),
                    found: values.len(),
                });
            }
        }
        Ok(())
    }
}
