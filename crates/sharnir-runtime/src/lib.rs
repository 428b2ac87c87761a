//! Generic numeric rigid-body algorithms over a kinematic tree, written in
//! Featherstone's spatial-vector style.
//!
//! The symbolic side of sharnir derives equations of motion and emits
//! straight-line code; this crate computes the same quantities numerically,
//! with its own algorithms and no shared code, so that it can serve as the
//! independent oracle of the end-to-end tests and as the baseline of the
//! benchmarks.
//!
//! - [`Tree`], [`Body`], [`JointKind`]: the numeric model (`tree`);
//! - [`Tree::inverse_dynamics`], [`Tree::bias`]: recursive Newton–Euler
//!   (`rnea`);
//! - [`Tree::mass_matrix`]: composite-rigid-body algorithm (`crba`);
//! - [`Tree::forward_dynamics`]: articulated-body algorithm (`aba`);
//! - [`Tree::energy`], [`Tree::body_poses`], [`Pose`]: energy and kinematics
//!   (`energy`, `kinematics`);
//! - [`TreeError`]: why an input was refused (`error`).
//!
//! Inside, `spatial` holds the 6D motion/force algebra, Plücker transforms
//! and spatial inertias, built on the 3D helpers of `linalg`.
//!
//! Every public function takes joint-space slices with one entry per body and
//! returns `Result<_, TreeError>`: a wrong length or a badly numbered tree is
//! reported, never a panic.

mod aba;
mod crba;
mod energy;
mod error;
mod kinematics;
mod linalg;
mod rnea;
mod spatial;
mod tree;

pub use error::TreeError;
pub use kinematics::Pose;
pub use tree::{Body, JointKind, Tree};
