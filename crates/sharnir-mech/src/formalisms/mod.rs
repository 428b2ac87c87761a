//! The formalisms layer: equations of motion derived from the model and its
//! geometry.
//!
//! Each file is one way of deriving dynamics outputs (or a quantity only
//! dynamics needs: inertias regrouped, energies, reactions). Files here read
//! [`crate::model`], [`crate::geometry`] and the shared pieces of this layer
//! ([`base_parameters`], [`joint_space`], `spd`), never the other way round:
//! a new formalism goes here, reads the placements and twists of
//! [`crate::geometry::kinematics`] rather than deriving its own, and is
//! chosen among the others by `sharnir-codegen`.
//!
//! - [`armature`]: the drives' rotor inertia, which every formalism adds;
//! - [`rnea`]: recursive Newton–Euler inverse dynamics;
//!   [`base_parameters`]: inertias regrouped into base parameters;
//! - [`joint_space`]: mass matrix, bias and gravity read off the inverse
//!   dynamics;
//! - [`crba`]: the mass matrix by the composite-rigid-body algorithm;
//! - [`vereshchagin`]: forward dynamics by the separate-bodies method;
//! - [`lagrange`]: the joint-coordinate (Lagrange) formalism;
//! - [`telegin`]: Telegin's direction-cosine formalism for serial chains;
//! - [`mixed`]: the dynamics of free coordinates beside prescribed ones,
//!   and the drives' forces;
//! - [`energy`]: kinetic and potential energy; [`coriolis`]: the Coriolis
//!   matrix;
//! - [`reactions`]: the wrenches cut joints and detachable joints transmit;
//! - [`regressor`]: the standard regressor, `τ = Y π` in the bodies'
//!   inertial parameters; [`base_regressor`]: the base parameters and the
//!   minimal regressor, `τ = Y_b β`, with `dependent_base_parameters`
//!   merging those no inertia sets apart and `regressor_sampling` sampling
//!   its candidates; [`customised_newton_euler`]: the
//!   inverse dynamics written in `β`;
//! - [`derivatives`]: derivatives with respect to the state (in velocity
//!   coordinates, Pinocchio's convention) and the inverse of the mass
//!   matrix;
//! - `spd`: symbolic `L D Lᵀ` solves and inverses.

pub mod armature;
pub mod base_parameters;
pub mod base_regressor;
pub mod column_selection;
pub mod coriolis;
pub mod crba;
pub mod customised_newton_euler;
mod dependent_base_parameters;
pub mod derivatives;
pub mod energy;
pub mod joint_space;
pub mod lagrange;
pub mod mixed;
pub mod notation;
pub mod reactions;
pub mod regressor;
mod regressor_sampling;
pub mod rnea;
mod spd;
pub mod telegin;
pub mod vereshchagin;
