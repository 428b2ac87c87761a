//! Rust emission: derived expressions in, one self-contained module out.
//!
//! - [`printer`]: lowered terms → Rust expressions with minimal parentheses;
//! - [`module`]: the module file — constants, `Params`, functions, header
//!   and operation counts;
//! - [`mod@generate`]: the standard set of functions for a mechanism;
//! - [`method`]: which formalism derives the dynamics outputs (`--method`);
//! - `constrained`: the constrained dynamics of loop modules (small dense
//!   solves emitted once per module);
//! - `contacts`: the joints' own forces (stops, clearances, gear meshes,
//!   damping, friction) with the contact law written around their programs;
//! - `detachments`: the joints that let go, their variant modules and the
//!   reactions their release conditions watch.

mod constrained;
mod contacts;
mod derived;
mod detachments;
pub mod generate;
mod math;
pub mod method;
pub mod module;
pub mod printer;
mod single_trig;
mod tokens;

pub use generate::{generate, generate_with};
pub use method::{Method, UnknownMethod};
pub use module::{
    emit_module, fused_multiply_add, single_precision, Argument, EmitError, FunctionSpec,
    GeneratedModule, LoopFacts, Shape,
};
