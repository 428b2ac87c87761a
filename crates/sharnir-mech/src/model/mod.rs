//! The model layer: what a mechanism is, assembled from a validated spec.
//!
//! Everything here reads only the spec, the algebra core and other files of
//! this layer: the geometry and the formalisms are built on it, never the
//! other way round. Inside the layer the arrows point one way too:
//! [`body`] (the parts) and `lowering` (spec expressions into the pool)
//! at the bottom, the steps that make parts (`joints`, `lumping`,
//! [`cut_joints`], [`joint_forces`], [`detachment`]) above them, and
//! [`mechanism`], which collects them, on top.
//!
//! - [`body`]: tree bodies, primitive joints, frames fixed in bodies,
//!   couplings of followers;
//! - [`mechanism`]: the [`Mechanism`] and its assembly as a spanning tree
//!   (the loops are closed by [`crate::geometry::closing`]);
//! - `lowering`: spec expressions → pool, under a [`ParameterMode`];
//! - `joints`: every spec joint type as a chain of primitive joints;
//!   `lumping`: bodies welded by fixed joints joined to their parents;
//!   `topology`: the spanning tree of the spec's graph;
//! - [`cut_joints`]: the joints that close loops, as two frames and a type;
//!   [`loops`]: the loop equations and mobility a mechanism keeps (derived
//!   by the geometry layer);
//! - [`joint_forces`]: contacts, damping and friction of the joints;
//!   [`drives`]: the drive parameters (armature, damping, friction) of the
//!   regressors;
//!   [`detachment`]: the joints that let go; [`motion`]: the prescribed
//!   coordinates and their laws;
//! - [`inputs`]: the names of the symbols derived expressions read;
//! - `vec3`, `rotation`: 3-vectors, 3×3 matrices and rotation matrices of
//!   pool expressions — the vocabulary the bodies are written in, so they
//!   sit here, below everything that reads a body.

pub mod body;
pub mod cut_joints;
pub mod detachment;
pub mod drives;
pub mod inputs;
pub mod joint_forces;
mod joints;
pub mod loops;
mod lowering;
mod lumping;
pub mod mechanism;
pub mod motion;
pub(crate) mod rotation;
mod topology;
pub(crate) mod vec3;

pub use body::{AttachedFrame, Coupling, JointKind, Placement, RuntimeParameter, TreeBody};
pub use inputs::Input;
pub use lowering::ParameterMode;
pub use mechanism::Mechanism;
