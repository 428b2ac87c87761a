//! The one error type of the crate.

use std::fmt;

/// Why an algorithm refused its inputs.
///
/// Every variant is a programming error of the caller (or, for
/// [`TreeError::SingularJoint`], a physically degenerate model); they are
/// reported as values so that a library built on this crate can decide how to
/// fail instead of inheriting a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeError {
    /// A joint-space argument does not have one entry per body.
    WrongLength {
        /// The argument's name (`"q"`, `"qd"`, `"qdd"`, `"tau"`).
        argument: &'static str,
        /// The number of bodies of the tree.
        expected: usize,
        /// The argument's length.
        found: usize,
    },
    /// A body's parent index is not smaller than its own, so the tree is not
    /// numbered parents-first (or the index is out of range).
    ParentOrder {
        /// The offending body.
        body: usize,
        /// Its parent index.
        parent: usize,
    },
    /// The articulated inertia of a body about its joint's free direction is
    /// not positive (e.g. a massless body with nothing outboard), so the
    /// forward dynamics is undefined.
    SingularJoint {
        /// The body whose joint cannot be accelerated by a finite force.
        body: usize,
    },
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::WrongLength {
                argument,
                expected,
                found,
            } => write!(
                f,
                "`{argument}` has length {found}, not the tree's number of joints, {expected}"
            ),
            TreeError::ParentOrder { body, parent } => write!(
                f,
                "body {body} has parent {parent}: parents must come before their children"
            ),
            TreeError::SingularJoint { body } => write!(
                f,
                "the articulated inertia of body {body} about its joint is not positive"
            ),
        }
    }
}

impl std::error::Error for TreeError {}
