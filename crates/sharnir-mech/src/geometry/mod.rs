//! The geometry layer: where the bodies are and how they move, read off the
//! model.
//!
//! Files here read the model ([`crate::model`]) and each other, never a
//! formalism: every formalism shares these placements, poses and rates, so
//! they are derived once, the same way, for all of them.
//!
//! - [`kinematics`]: joint placements, motion subspaces, body poses and
//!   twists, coordinate rates (quaternion kinematics);
//! - [`jacobian`]: geometric Jacobians of the body frames;
//! - [`loop_closure`]: the cut joints' constraints `Ψ`, Jacobian `J` and
//!   `J̇ q̇`; [`mobility`]: the degrees of freedom they leave;
//!   [`assembly`]: whether the initial configuration can be assembled;
//! - [`release`]: where a released body starts in its variant module;
//! - [`closing`]: `Mechanism::from_spec`, the model's tree with its loops
//!   closed.

pub mod assembly;
pub mod closing;
pub mod jacobian;
pub mod kinematics;
pub mod loop_closure;
pub mod mobility;
pub mod release;
