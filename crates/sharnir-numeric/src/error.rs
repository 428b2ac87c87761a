//! The one error type of the crate.

use std::fmt;

use crate::joint_kind::JointKind;

/// Why an algorithm refused its inputs.
///
/// Every variant is a programming error of the caller (or, for
/// [`TreeError::SingularJoint`] and [`TreeError::SingularMassMatrix`], a
/// physically degenerate model); they are
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
        /// [`crate::Tree::nv`] otherwise (for a [`crate::CoupledTree`], its
        /// own `nq` and `nv` of the independent coordinates).
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
    /// A [`crate::Coupling`] names a follower or leader body that the tree
    /// does not have.
    CouplingBodyOutOfRange {
        /// The coupling's position in the list given to
        /// [`crate::CoupledTree::new`].
        coupling: usize,
        /// The body index it names.
        body: usize,
        /// How many bodies the tree has.
        bodies: usize,
    },
    /// A [`crate::Coupling`] joins a joint that is not revolute or prismatic:
    /// a coupling relates one scalar coordinate to another, which a
    /// multi-coordinate joint does not have.
    CoupledJointKind {
        /// The coupling's position in the list.
        coupling: usize,
        /// The follower or leader body whose joint does not qualify.
        body: usize,
        /// That body's joint kind.
        joint: JointKind,
    },
    /// A [`crate::Coupling`] has a multiplier or offset that is NaN or
    /// infinite, which would silently turn every result into NaN.
    CouplingNotFinite {
        /// The coupling's position in the list.
        coupling: usize,
    },
    /// Two couplings drive the same follower, so its coordinate would have
    /// two possibly contradictory definitions.
    FollowedTwice {
        /// The follower body.
        body: usize,
        /// The first coupling that drives it.
        first: usize,
        /// The second coupling that drives it.
        second: usize,
    },
    /// A coupling's leader is itself driven by another coupling. Chains are
    /// refused rather than resolved so that every follower depends on an
    /// independent coordinate directly; compose the two couplings instead.
    LeaderIsFollower {
        /// The coupling whose leader is a follower.
        coupling: usize,
        /// That leader body.
        leader: usize,
    },
    /// The mass matrix of a [`crate::CoupledTree`] in its independent
    /// coordinates is not positive definite (e.g. massless bodies), so its
    /// forward dynamics is undefined.
    SingularMassMatrix {
        /// The independent velocity coordinate at which the Cholesky
        /// factorisation met a pivot that is not positive.
        coordinate: usize,
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
            TreeError::CouplingBodyOutOfRange {
                coupling,
                body,
                bodies,
            } => write!(
                f,
                "coupling {coupling} names body {body}, but the tree has {bodies} bodies"
            ),
            TreeError::CoupledJointKind {
                coupling,
                body,
                joint,
            } => write!(
                f,
                "coupling {coupling} joins body {body}, whose joint is {joint:?}: \
                 only revolute and prismatic joints can be coupled"
            ),
            TreeError::CouplingNotFinite { coupling } => write!(
                f,
                "coupling {coupling} has a multiplier or offset that is not finite"
            ),
            TreeError::FollowedTwice {
                body,
                first,
                second,
            } => write!(
                f,
                "body {body} is the follower of both coupling {first} and coupling {second}"
            ),
            TreeError::LeaderIsFollower { coupling, leader } => write!(
                f,
                "the leader of coupling {coupling}, body {leader}, is itself a follower: \
                 couple to its own leader instead"
            ),
            TreeError::SingularMassMatrix { coordinate } => write!(
                f,
                "the mass matrix in independent coordinates is not positive definite \
                 (pivot {coordinate})"
            ),
        }
    }
}

impl std::error::Error for TreeError {}
