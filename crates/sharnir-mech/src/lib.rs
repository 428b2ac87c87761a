//! Mechanism graph and derivations: from a validated spec to symbolic
//! equations of motion.
//!
//! - [`graph`]: bodies and joints as a graph, spanning tree, regular
//!   numbering, cut joints and their loops;
//! - [`mechanism`]: the spec assembled into a regularly numbered tree of
//!   symbolic bodies;
//! - [`rnea`]: the recursive Newton–Euler inverse dynamics, with the
//!   inertias regrouped into base parameters by [`base_parameters`];
//! - [`joint_space`]: mass matrix, bias and gravity read off the inverse
//!   dynamics;
//! - [`crba`]: the mass matrix by the composite-rigid-body algorithm;
//! - [`vereshchagin`]: forward dynamics by Vereshchagin's separate-bodies
//!   (articulated-body) method;
//! - [`lagrange`]: the joint-coordinate (Lagrange) formalism of Sukhov and Chekina (2024, vol. 16, no. 1, pp. 161–174),
//!   `M = Σ BᵀMB` and `bias = Bᵀ(M Ḃ q̇ − g)`, with an `L D Lᵀ` forward dynamics;
//! - [`telegin`]: inverse dynamics of serial chains by Telegin's direction-cosine
//!   formalism (subsystem static moments, Statements 1 and 2) of Telegin (2021, DOI
//!   10.14529/ctcr210405);
//! - [`kinematics`]: body placements, poses and twists, shared by every
//!   formalism;
//! - [`energy`]: kinetic and potential energy;
//! - [`coriolis`]: the Coriolis matrix with `Ṁ − 2C` skew-symmetric;
//! - [`jacobian`]: geometric Jacobians of the body frames;
//! - [`cut_joints`], [`loop_closure`]: the joints that close loops, and
//!   their constraints `Ψ`, Jacobian `J` and `J̇ q̇`; [`mobility`]: the
//!   degrees of freedom they leave;
//! - [`inputs`]: the typed symbols derived expressions read.

pub mod base_parameters;
pub mod coriolis;
pub mod crba;
pub mod cut_joints;
pub mod detachment;
pub mod energy;
pub mod inputs;
pub mod jacobian;
pub mod joint_forces;
pub mod joint_space;
mod joints;
pub mod kinematics;
pub mod lagrange;
pub mod loop_closure;
mod lowering;
mod lumping;
pub mod mechanism;
pub mod mobility;
pub mod reactions;
pub mod rnea;
mod rotation;
mod spd;
pub mod telegin;
mod topology;
mod vec3;
pub mod vereshchagin;

pub use inputs::Input;
pub use mechanism::{
    AttachedFrame, Coupling, JointKind, Mechanism, ParameterMode, Placement, RuntimeParameter,
    TreeBody,
};
/// The mechanism graph (its own crate, shared with the spec's validation).
pub use sharnir_graph as graph;
