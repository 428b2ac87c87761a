//! `[base]`: the ground frame's own motion, prescribed as laws of time (a
//! shaking table, a ship, a vehicle).
//!
//! ```toml
//! [base]
//! xyz = [0, 0, "a*cos(w*t)"]
//! rpy = ["roll0*sin(w*t)", 0, 0]
//! ```

use super::fields::{Expressions, Fields};
use crate::error::Problem;
use crate::expr::Expr;
use crate::source::Span;
use crate::toml_tree::Node;

/// The `[base]` table as written.
#[derive(Clone, Debug)]
pub(crate) struct BaseTable {
    /// The base frame's origin in the ground frame, m, as laws of `t`.
    pub xyz: Option<[Expr; 3]>,
    /// Its orientation, `R = Rz(yaw) Ry(pitch) Rx(roll)` (as `origin.rpy`),
    /// rad, as laws of `t`.
    pub rpy: Option<[Expr; 3]>,
    /// The span of the table, where problems of the whole are reported.
    pub span: Span,
}

/// Reads `[base]`.
pub(crate) fn read(node: &Node, exprs: Expressions) -> Result<BaseTable, Problem> {
    let fields = Fields::of(node, "[base]", &["xyz", "rpy"])?;
    let laws = |key: &str| {
        fields
            .optional(key)
            .map(|node| exprs.exprs::<3>(node, &format!("`base.{key}`")))
            .transpose()
    };
    Ok(BaseTable {
        xyz: laws("xyz")?,
        rpy: laws("rpy")?,
        span: fields.span(),
    })
}
