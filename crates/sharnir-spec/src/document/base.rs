//! `[base]`: the ground frame's own motion, prescribed as laws of time (a
//! shaking table, a ship, a vehicle).
//!
//! ```toml
//! [base]
//! xyz = [0, 0, "a*cos(w*t)"]
//! rpy = ["roll0*sin(w*t)", 0, 0]
//! ```
//!
//! or, for the orientation, `rotations = [["z", "psi0*t"], ["x", "0.1*sin(t)"]]`
//! (successive rotations about the moving axes, as an `origin`'s).

use super::fields::{Expressions, Fields};
use crate::error::Problem;
use crate::expr::Expr;
use crate::model::ElementaryRotation;
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
    /// Its orientation as successive rotations about the moving axes (only
    /// `X`, `Y`, `Z`), their angles laws of `t`; empty with `rpy`.
    pub rotations: Vec<ElementaryRotation>,
    /// The span of the table, where problems of the whole are reported.
    pub span: Span,
}

/// Reads `[base]`.
pub(crate) fn read(node: &Node, exprs: Expressions) -> Result<BaseTable, Problem> {
    let fields = Fields::of(node, "[base]", &["xyz", "rpy", "rotations"])?;
    let laws = |key: &str| {
        fields
            .optional(key)
            .map(|node| exprs.exprs::<3>(node, &format!("`base.{key}`")))
            .transpose()
    };
    let rpy = laws("rpy")?;
    let rotations = match fields.optional("rotations") {
        Some(node) if rpy.is_some() => {
            return Err(Problem::new(
                node.span,
                "[base] has both `rpy` and `rotations`",
                "a second orientation",
                "give the orientation once: `rpy` or `rotations`",
            ))
        }
        Some(node) => super::joint::rotations(node, exprs)?,
        None => Vec::new(),
    };
    Ok(BaseTable {
        xyz: laws("xyz")?,
        rpy,
        rotations,
        span: fields.span(),
    })
}
