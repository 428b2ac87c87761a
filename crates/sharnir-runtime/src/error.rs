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
    /// A joint-space argument does not have the tree's number of position
    /// coordinates (`q`) or velocity coordinates (every other argument).
    WrongLength {
        /// The argument's name (`"q"`, `"qd"`, `"qdd"`, `"tau"`, `"v"`).
        argument: &'static str,
        /// The length the tree requires: [`crate::Tree::nq`] for `q`,
        /// [`crate::Tree::nv`] otherwise.
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
    /// The articulated inertia of a body about its joint's free directions
    /// (`Sᵀ Iᴬ S`) is not positive definite (e.g. a massless body with
    /// nothing outboard), so the forward dynamics is undefined.
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
                "`{argument}` has length {found}, but the tree's joints need {expected}"
            ),
            TreeError::ParentOrder { body, parent } => write!(
                f,
                "body {body} has parent {parent}: parents must come before their children"
            ),
            TreeError::SingularJoint { body } => write!(
                f,
                "the articulated inertia of body {body} about its joint is not positive definite"
            ),
        }
    }
}

impl std::error::Error for TreeError {}
