//! Why a set of joints does not form a spanning tree rooted at the ground.

use std::fmt;

/// Reasons [`spanning_tree`](super::spanning_tree) rejects a mechanism graph.
///
/// Each variant names the offending bodies or arcs by their original indices, so that
/// the front end can point the user at the exact joints of the input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// The graph has no vertices at all, so there is no ground to root the tree at.
    NoGround,
    /// An arc names a body index that is not below `body_count`.
    UnknownBody {
        /// Original index of the arc.
        arc: usize,
        /// The out-of-range body index it names.
        body: usize,
    },
    /// An arc joins a body to itself, which no physical joint can do.
    SelfLoop {
        /// Original index of the arc.
        arc: usize,
    },
    /// Some bodies are not connected to the ground; their motion would be undetermined
    /// by the rest of the system.
    Disconnected {
        /// Original indices of the unreachable bodies, sorted ascending.
        bodies: Vec<usize>,
    },
    /// The joints contain a closed kinematic loop. Loops need cut joints and
    /// constraint equations, which are not supported yet, so one loop is reported.
    Loop {
        /// Original indices of the arcs of one closed loop, in the order they are
        /// traversed going around it (consecutive arcs share a body, and so do the
        /// last and the first).
        arcs: Vec<usize>,
    },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoGround => write!(f, "the mechanism has no bodies, not even the ground"),
            Self::UnknownBody { arc, body } => {
                write!(f, "joint {arc} refers to body {body}, which does not exist")
            }
            Self::SelfLoop { arc } => write!(f, "joint {arc} connects a body to itself"),
            Self::Disconnected { bodies } => {
                write!(f, "bodies {bodies:?} are not connected to the ground")
            }
            Self::Loop { arcs } => write!(
                f,
                "joints {arcs:?} form a closed kinematic loop, which is not supported yet"
            ),
        }
    }
}

impl std::error::Error for GraphError {}
