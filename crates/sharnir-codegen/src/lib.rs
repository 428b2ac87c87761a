//! Rust emission: derived expressions in, one self-contained module out.
//!
//! - [`printer`]: lowered terms → Rust expressions with minimal parentheses;
//! - [`mod@plan`]: the planning stage — derive every candidate, choose,
//!   lower; the plan of a module as data;
//! - [`module`]: rendering a plan — constants, `Params`, functions and
//!   operation counts — and `header`, the `//!` header of every variant;
//! - [`mod@generate`]: plan and render in one call;
//! - [`method`]: which formalism derives the dynamics outputs (`--method`);
//! - `constrained`: the constrained dynamics of loop modules (small dense
//!   solves emitted once per module);
//! - `contacts`: the contact law written around the program of
//!   `limit_forces` (stops, clearances, gear meshes);
//! - `detachments`: the joints that let go and their variant modules;
//! - `vocabulary`: the words planning and rendering share (`Shape`,
//!   `Argument`, the facts of a mechanism, `GeneratedModule`).

mod body;
mod constrained;
mod constrained_derivatives;
mod contacts;
mod derived;
mod detachments;
mod dispatch;
mod double_trig;
pub mod error;
mod function;
pub mod generate;
mod header;
pub mod linearization;
mod lines;
mod math;
pub mod method;
pub mod module;
pub mod plan;
mod preamble;
pub mod printer;
mod result;
mod single_trig;
mod syntax;
#[cfg(test)]
mod test_terms;
mod text;
mod tokens;
mod vocabulary;

pub use error::EmitError;
pub use generate::{generate, generate_with};
pub use method::{Method, UnknownMethod};
pub use plan::{plan, Plan, PlanOptions, PlannedFunction, Twins, Variant};
pub use vocabulary::{Argument, GeneratedModule, LoopFacts, Shape};
