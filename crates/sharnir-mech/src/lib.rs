//! Mechanism graph and derivations: from a validated spec to symbolic
//! equations of motion.
//!
//! - [`graph`]: bodies and joints as a graph, spanning tree, regular
//!   numbering, incidence and path matrices, cut joints;
//! - [`mechanism`]: the spec assembled into a regularly numbered tree of
//!   symbolic bodies;
//! - [`rnea`]: the recursive Newton–Euler inverse dynamics;
//! - [`joint_space`]: mass matrix, bias and gravity read off the inverse
//!   dynamics;
//! - [`inputs`]: the names of the symbols derived expressions read.

pub mod graph;
pub mod inputs;
pub mod joint_space;
pub mod mechanism;
pub mod rnea;
mod rotation;
mod vec3;

pub use inputs::Input;
pub use mechanism::{JointKind, Mechanism, ParameterMode, RuntimeParameter, TreeBody};
