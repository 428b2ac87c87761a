//! The mechanism graph: spanning tree, regular numbering, cut joints.
//!
//! Bodies are vertices (index 0 is the ground, the body whose motion is prescribed) and
//! joints are arcs. Every arc has an orientation: it leaves its parent-side body `i⁺(a)`
//! (`Arc::from`) and enters its child-side body `i⁻(a)` (`Arc::to`), exactly as in
//! Wittenburg's graph-theoretic description of multibody systems. The rest of the
//! compiler only ever walks trees in *regular numbering* (parents before children, the
//! inboard arc of body `k` has number `k`), because then every recursion over the tree
//! is a plain loop over increasing or decreasing indices. [`spanning_tree`] finds such a
//! numbering for user input and keeps the mapping back to the user's indices; joints
//! left out of the tree are cut joints, each listed with the closed loop it makes.
//!
//! Conventions used throughout:
//! * original indices are 0-based: bodies `0..body_count` (0 = ground), arcs `0..arcs.len()`;
//! * regular numbers are 1-based for moving bodies and arcs (`1..=n`), 0 is the ground;
//!
//! The textbook's incidence matrix `S`, ground row `S₀` and path matrix `T` are built
//! by the tests only (`incidence.rs`, `matrix.rs`): `T·S = E` and the triangular `T`
//! are the independent check that a numbering is regular and that a tree's paths are
//! right, and nothing in the compiler needs the matrices themselves. They are stored
//! 0-based, so column `a - 1` of `S` is arc `a` and entry `(a - 1, i - 1)` of `T` is
//! `T(a, i)`.

mod arc;
mod error;
#[cfg(test)]
mod incidence;
#[cfg(test)]
mod matrix;
mod spanning;

#[cfg(test)]
mod tests;

pub use arc::Arc;
pub use error::GraphError;
pub use spanning::{spanning_tree, spanning_tree_cutting, SpanningTree};
