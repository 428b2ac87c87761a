//! Rewrites of lowered programs: each takes [`Term`](super::Term)s or a
//! whole [`Program`](super::Program) and returns an equivalent one.
//!
//! - `factor`: Horner's rule on the products of every sum;
//! - `signs`: negated sums stored with the opposite sign where the users
//!   absorb it;
//! - `fuse`: fused multiply–adds, for the `_fma` twins;
//! - `peephole`: the last clean-up (literal products folded, signs taken
//!   into sums, alias locals forwarded, unused locals dropped, locals
//!   renumbered), so that the counts are those of the printed code.

pub(crate) mod factor;
pub(crate) mod fuse;
pub(crate) mod peephole;
pub(crate) mod signs;
