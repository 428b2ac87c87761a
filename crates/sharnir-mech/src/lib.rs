//! Mechanism graph and derivations: from a validated spec to symbolic
//! equations of motion.
//!
//! Three layers, each reading only itself and the layers before it:
//!
//! 1. [`model`]: the spec assembled into a regularly numbered tree of
//!    symbolic bodies ([`Mechanism`]), with its cut joints, joint forces,
//!    detachments and the typed inputs its expressions read;
//! 2. [`geometry`]: placements, poses, twists, coordinate rates, Jacobians,
//!    and the loop-closure constraints with the mobility they leave (this
//!    layer also closes the loops of [`Mechanism::from_spec`]);
//! 3. [`formalisms`]: the equations of motion — recursive Newton–Euler,
//!    composite rigid body, Vereshchagin's separate-bodies method, the
//!    Lagrange formalism of Sukhov and Chekina (2024, vol. 16, no. 1,
//!    pp. 161–174), Telegin's direction-cosine formalism (Telegin 2021, DOI
//!    10.14529/ctcr210405) — and what only dynamics needs: base inertial
//!    parameters, energies, the Coriolis matrix, reactions.
//!
//! [`graph`] re-exports the mechanism graph: bodies and joints, spanning
//! tree, regular numbering, cut joints and their loops.

pub mod formalisms;
pub mod geometry;
pub mod model;
// Under `src/tests/`, with the other test-only files.
#[cfg(test)]
#[path = "tests/support.rs"]
mod test_support;

pub use model::{Input, JointKind, Mechanism, ParameterMode};
/// The mechanism graph (its own crate, shared with the spec's validation).
pub use sharnir_graph as graph;
