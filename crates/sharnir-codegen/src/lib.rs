//! Rust emission: derived expressions in, one self-contained module out.
//!
//! - [`printer`]: lowered terms → Rust expressions with minimal parentheses;
//! - [`module`]: the module file — constants, `Params`, functions, header
//!   and operation counts;
//! - [`generate`]: the standard set of functions for a mechanism.

pub mod generate;
pub mod module;
pub mod printer;

pub use generate::generate;
pub use module::{emit_module, Argument, EmitError, FunctionSpec, GeneratedModule, Shape};
