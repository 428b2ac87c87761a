//! Lowering of expression DAGs to straight-line programs, and their
//! operation counts.
//!
//! A [`Program`] is what the emitter prints, statement for statement, so the
//! operation count of a program is the operation count of the emitted Rust
//! function: the report cannot drift from the code. A node becomes a named
//! local when it is used more than once (or is raised to a power, so the power
//! can multiply the local by itself); a node used once is inlined into its
//! user.
//!
//! [`Program::fuse_multiply_add`] rewrites a lowered program for targets with
//! a fused multiply–add instruction (see `passes/fuse.rs`); lowering itself never
//! fuses, so the default programs and their counts do not depend on it.
//!
//! - `ir.rs`: the IR ([`Term`], [`Local`], [`Program`]), op counts and
//!   evaluation;
//! - `lower.rs`: lowering from the pool ([`Program::lower`]), which tries the
//!   plain and the shared lowering (`share.rs`, `absorb.rs`) and runs the
//!   passes on both;
//! - `lanes.rs`: the statements of two isomorphic branches paired for two
//!   vector lanes ([`Program::pair_lanes`]);
//! - `long_sums.rs`: the long flat sums of long chains, which the lowering
//!   writes each as the one before plus its own terms;
//! - `passes/`: rewrites of lowered programs — `factor` (Horner), `signs`
//!   (negations where they are free), `fuse` (fused multiply–add).

mod ir;
mod lanes;
mod long_sums;
mod lower;
mod passes;

pub(crate) use ir::{chain_items, signed_sum};
pub use ir::{Local, OpCount, Program, Term};
pub use lanes::LanePairs;

impl Program {
    /// The same program with every sum's products fused into the sum as
    /// fused multiply–adds wherever that saves operations, for targets whose
    /// floating-point unit has the instruction: `a·b + c·d + e` becomes
    /// `fma(c, d, fma(a, b, e))`. Locals, their names and the outputs stay as
    /// they are; only the expressions change. Subtracted products are fused
    /// only when their negation is free (a constant factor is negated in
    /// place); otherwise they are summed apart and subtracted once, so the
    /// fused program never has more operations than this one. The results
    /// differ from this program's in the last bits (one rounding instead of
    /// two per fused operation, and sums reassociated). See `passes/fuse.rs`.
    pub fn fuse_multiply_add(&self) -> Program {
        self.map_terms(passes::fuse::fuse)
    }
}
