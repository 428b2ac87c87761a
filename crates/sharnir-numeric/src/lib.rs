//! Generic numeric rigid-body algorithms over a kinematic tree, written in
//! Featherstone's spatial-vector style.
//!
//! The symbolic side of sharnir derives equations of motion and emits
//! straight-line code; this crate computes the same quantities numerically,
//! with its own algorithms and no shared code, so that it can serve as the
//! independent oracle of the end-to-end tests and as the baseline of the
//! benchmarks.
//!
//! - [`Tree`], [`Body`], [`JointKind`]: the numeric model and the layout of
//!   joint-space vectors (`tree`); revolute, prismatic, spherical and free
//!   joints, with Pinocchio's conventions for the last two (`joint`);
//! - [`Tree::inverse_dynamics`], [`Tree::bias`]: recursive Newton–Euler
//!   (`rnea`);
//! - [`Tree::mass_matrix`]: composite-rigid-body algorithm (`crba`);
//! - [`Tree::forward_dynamics`]: articulated-body algorithm (`aba`, with
//!   `cholesky` for the multi-degree-of-freedom joint blocks);
//! - [`Tree::energy`], [`Tree::body_poses`], [`Tree::body_velocities`],
//!   [`Pose`], [`BodyVelocity`]: energy and kinematics (`energy`,
//!   `kinematics`);
//! - [`Tree::coordinate_rates`], [`Tree::integrate`]: motion along the
//!   configuration manifold, where quaternions live (`configuration`,
//!   `quaternion`);
//! - [`CoupledTree`], [`Coupling`]: URDF mimic joints and other couplings
//!   `q_follower = multiplier · q_leader + offset`, with the dynamics,
//!   energy and poses in the independent coordinates (`coupled`, which
//!   solves its forward dynamics with a dense Cholesky factorisation);
//! - [`TreeError`]: why an input was refused (`error`).
//!
//! Inside, `spatial` holds the 6D motion/force algebra, Plücker transforms
//! and spatial inertias, built on the 3D helpers of `linalg`; `joint_array`
//! holds the per-joint blocks (at most six entries) on the stack.
//!
//! Every public function takes joint-space slices laid out as [`Tree`]
//! describes (`q` of length [`Tree::nq`], velocity-like vectors of length
//! [`Tree::nv`]) and returns `Result<_, TreeError>`: a wrong length or a
//! badly numbered tree is reported, never a panic.

mod aba;
mod cholesky;
mod configuration;
mod coupled;
mod crba;
mod energy;
mod error;
mod joint;
mod joint_array;
mod joint_kind;
mod kinematics;
mod linalg;
mod quaternion;
mod rnea;
mod spatial;
mod tree;

pub use coupled::{CoupledTree, Coupling};
pub use error::TreeError;
pub use joint_kind::JointKind;
pub use kinematics::{BodyVelocity, Pose};
pub use tree::{Body, Tree};
