//! Rust emission: derived expressions in, one self-contained module out.
//!
//! The files stand in layers, each naming only files of its own layer or
//! those below it, so planning never reads rendering and nothing reads
//! back up:
//!
//! 1. the words every stage shares: `vocabulary` (`Shape`, `Argument`,
//!    `FunctionSpec`, the facts of a mechanism a module prints,
//!    `GeneratedModule`), [`error`] and [`method`] (which formalism derives
//!    the dynamics outputs, `--method`);
//! 2. [`mod@plan`], the planning stage: derive every candidate, choose,
//!    lower; the plan of a module as data;
//! 3. `print/`, which reads no plan: `printer` (lowered terms → Rust
//!    expressions with minimal parentheses, and the `OpCount` literal),
//!    `text` (a short statement's line straight from its term), `syntax`
//!    (the printer's statements as `syn` trees without `syn`'s parser),
//!    `lines` (a function's statements formatted apart from it, and
//!    `format_items`), `layout` (a blank line between items, operation
//!    counts on one line), `tokens` (which names emitted code reads);
//! 4. `support/`, which reads only `error`: the support code every
//!    module carries at its end (square root, sines and cosines, `fma`, the
//!    AVX copies' processor detection) as Rust files compiled in tests,
//!    and `item`, which cuts their items out by name;
//! 5. `render/`, a plan into a module, each file one part of it:
//!    `preamble` (constants, types, lints), `derived` (`Params::derived`),
//!    `function` (one function and its `_with` twin), `body` (its
//!    statements), `result` (its result by `Shape`), `dispatch` (the AVX
//!    copies of long functions), `contacts` (the contact law around
//!    `limit_forces`), `detachments` (the joints that let go and their
//!    variant modules), `constrained`, `constrained_derivatives` and
//!    `constrained_motion` (the solves of loop modules), [`linearization`]
//!    (`A`, `B`), `math` (which helpers a module carries), `motion` (the prescribed
//!    coordinates' constants, and the free motion of a module without
//!    `[motion]`), `header` (the `//!` header of every variant), and
//!    `module`, which assembles them (`Plan::render`);
//! 6. [`mod@generate`]: plan and render in one call.
//!
//! `test_terms` gives the property tests terms of every shape.

pub mod error;
pub mod generate;
pub mod method;
pub mod plan;
mod print;
mod render;
mod support;
#[cfg(test)]
mod test_terms;
mod vocabulary;

pub use error::EmitError;
pub use generate::{generate, generate_with};
pub use method::{Method, UnknownMethod};
pub use plan::{base_parameter_facts, plan, Plan, PlanOptions, PlannedFunction, Twins, Variant};
pub use render::linearization;
pub use vocabulary::{Argument, BaseParameterFacts, GeneratedModule, LoopFacts, Shape};
