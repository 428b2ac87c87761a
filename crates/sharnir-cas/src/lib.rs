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
//! A pendulum's gravity torque `m g l sin q` and its stiffness, built,
//! simplified, differentiated, lowered to straight-line code, counted and
//! evaluated:
//!
//! ```
//! use sharnir_cas::{Pool, Program, Symbol};
//!
//! let mut pool = Pool::new();
//! let q = pool.input(Symbol::Position(0));
//! let [m, g, l] = ["p.m", "p.g", "p.l"].map(|name| pool.symbol(name));
//! let (s, c) = (pool.sin(q), pool.cos(q));
//! let torque = pool.mul_all(&[m, g, l, s]);
//!
//! // The canonical form simplifies as it builds: sin² q + cos² q is 1, and
//! // the torque times it is the torque's own node, not a copy.
//! let (s2, c2) = (pool.powi(s, 2), pool.powi(c, 2));
//! let one = pool.add(s2, c2);
//! assert_eq!(one, pool.one());
//! assert_eq!(pool.mul(torque, one), torque);
//!
//! // ∂τ/∂q = m g l cos q; lowered together, m g l is computed once.
//! let stiffness = pool.diff(torque, q);
//! let program = Program::lower(&pool, &[torque, stiffness]);
//! let ops = program.op_count();
//! assert_eq!((ops.mul, ops.sin, ops.cos), (4, 1, 1));
//!
//! let values = program
//!     .eval(&|symbol: &Symbol| match symbol {
//!         Symbol::Parameter(name) if name == "m" => Some(2.0),
//!         Symbol::Parameter(name) if name == "g" => Some(9.81),
//!         Symbol::Parameter(name) if name == "l" => Some(0.5),
//!         Symbol::Position(0) => Some(0.3),
//!         _ => None,
//!     })
//!     .unwrap_or_default();
//! assert_eq!(values.len(), 2, "every input is bound");
//! assert!((values[0] - 9.81 * 0.3_f64.sin()).abs() < 1e-12);
//! assert!((values[1] - 9.81 * 0.3_f64.cos()).abs() < 1e-12);
//! ```
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
pub use program::{LanePairs, Local, OpCount, Program, Term};
pub use symbol::Symbol;
pub use trig::contract_angle_sums;
