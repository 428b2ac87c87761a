//! The computer-algebra core of sharnir: a hash-consed expression DAG.
//!
//! Equations of motion are built here as expressions over typed symbols
//! ([`Symbol`]: parameters, coordinates, velocities, accelerations, …). The pool keeps every
//! expression in a canonical form as it is built, so the simplifications that
//! matter most for generated dynamics code — dropping multiplications by 0
//! and 1, collecting like terms, exact trigonometry at multiples of π/2,
//! `sin² + cos² = 1` — happen by construction, and every common
//! subexpression is one shared node.
//!
//! - [`coeff`]: exact rational / float coefficients;
//! - [`pool`]: nodes, ids and the canonicalising constructors;
//! - [`derivative`]: the derivative along a motion, `Σ ∂e/∂sᵢ ṡᵢ`, one
//!   memoised walk of the DAG ([`Derivative`]; partial derivatives are its
//!   special case);
//! - [`symbol`]: the inputs expressions read, typed, with the names they
//!   display as;
//! - `rewrite`: differentiation and substitution (methods on [`Pool`]);
//! - `eval`: numeric evaluation (methods on [`Pool`]);
//! - [`hoist`]: parameter grouping, constant subexpressions hoisted into
//!   symbols defined once;
//! - [`program`]: the straight-line IR (`program/ir.rs`), lowering to it
//!   (`program/lower.rs`) and operation counts; `absorb` first lets sums
//!   give up terms their users already have, `share` takes the partial sums
//!   and products that several expressions have in common apart, then the
//!   passes on lowered programs (`program/passes/`): `factor` takes common
//!   factors out of the products of a sum (Horner's rule), `signs` stores a
//!   local whose terms are all subtracted negated when its users can absorb
//!   the sign, and `fuse` rewrites a lowered program with fused
//!   multiply–adds;
//! - [`parallel`]: the one way generation uses both cores, a map over a
//!   list whose results come back in order;
//! - [`trig`]: contraction of expanded angle sums (`c₁c₂ − s₁s₂` back to
//!   `cos(q₁ + q₂)`), which chain kinematics produce and the canonical form
//!   cannot undo.

mod absorb;
pub mod coeff;
pub mod derivative;
mod eval;
pub mod hoist;
pub mod parallel;
pub mod pool;
pub mod program;
mod rewrite;
mod share;
pub mod symbol;
#[cfg(test)]
mod test_values;
pub mod trig;

pub use coeff::Coeff;
pub use derivative::{Derivative, Summation};
pub use eval::{Children, UnboundSymbol};
pub use hoist::{hoist_constants, Hoisted};
pub use pool::{Id, Node, Pool};
pub use program::{Local, OpCount, Program, Term};
pub use symbol::Symbol;
pub use trig::contract_angle_sums;
