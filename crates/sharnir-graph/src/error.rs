//! Why a set of joints has no spanning tree rooted at the ground.

use std::fmt;

/// Reasons [`spanning_tree`](super::spanning_tree) rejects a mechanism graph.
///
/// Each variant names the offending bodies or arcs by their original indices, so that
/// the front end can point the user at the exact joints of the input file. Closed loops
/// are not an error at this level: they become cut joints of the tree.
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
    /// The graph is connected, but without the arcs marked as cut it is not: `arc`
    /// closes no loop of what remains (a bridge), or more arcs are marked than the
    /// graph has independent loops.
    CutBridge {
        /// Original index of the first marked arc whose removal cuts `bodies` off.
        arc: usize,
        /// Original indices of the bodies the marked arcs cut off, ascending.
        bodies: Vec<usize>,
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
            Self::CutBridge { arc, bodies } => write!(
                f,
                "cutting joint {arc} disconnects bodies {bodies:?} from the ground"
            ),
        }
    }
}

impl std::error::Error for GraphError {}
