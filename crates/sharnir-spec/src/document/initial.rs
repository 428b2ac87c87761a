//! `[initial]`: the state a simulation starts from, by coordinate name.
//!
//! ```toml
//! [initial]
//! q = { theta1 = -1.0, theta2 = "pi/4" }
//! v = { theta1 = 0.5 }
//! rpy = { base = [0.1, 0.0, 0.3] }
//! ```

use super::fields::{wrong_type, Expressions, Fields};
use crate::error::Problem;
use crate::expr::Expr;
use crate::source::Span;
use crate::toml_tree::{Node, Value};

/// The `[initial]` table as written, checked against the mechanism later.
#[derive(Clone, Debug, Default)]
pub(crate) struct InitialTable {
    /// `q = { name = value }`: position coordinates.
    pub positions: Vec<InitialEntry>,
    /// `v = { name = value }`: velocity coordinates.
    pub velocities: Vec<InitialEntry>,
    /// `rpy = { joint = [r, p, y] }`: orientations of spherical and free
    /// joints.
    pub orientations: Vec<InitialOrientation>,
}

/// One `name = value` of `q` or `v`.
#[derive(Clone, Debug)]
pub(crate) struct InitialEntry {
    pub name: String,
    /// The span of the key.
    pub span: Span,
    pub value: Expr,
}

/// One `joint = [roll, pitch, yaw]` of `rpy`.
#[derive(Clone, Debug)]
pub(crate) struct InitialOrientation {
    pub joint: String,
    /// The span of the key.
    pub span: Span,
    pub rpy: [Expr; 3],
}

/// Reads `[initial]`.
pub(crate) fn read(node: &Node, exprs: Expressions) -> Result<InitialTable, Problem> {
    let fields = Fields::of(node, "[initial]", &["q", "v", "rpy"])?;
    let values = |key: &str| -> Result<Vec<InitialEntry>, Problem> {
        let Some(node) = fields.optional(key) else {
            return Ok(Vec::new());
        };
        let Value::Table(table) = &node.value else {
            return Err(wrong_type(
                node,
                &format!("`initial.{key}`"),
                "a table of coordinate names and values",
            ));
        };
        table
            .entries
            .iter()
            .map(|entry| {
                let what = format!("`initial.{key}.{}`", entry.key);
                Ok(InitialEntry {
                    name: entry.key.clone(),
                    span: entry.key_span,
                    value: exprs.expr(&entry.value, &what)?,
                })
            })
            .collect()
    };
    let positions = values("q")?;
    let velocities = values("v")?;
    let orientations = match fields.optional("rpy") {
        None => Vec::new(),
        Some(node) => {
            let Value::Table(table) = &node.value else {
                return Err(wrong_type(
                    node,
                    "`initial.rpy`",
                    "a table of joint names and [roll, pitch, yaw]",
                ));
            };
            table
                .entries
                .iter()
                .map(|entry| {
                    let what = format!("`initial.rpy.{}`", entry.key);
                    Ok(InitialOrientation {
                        joint: entry.key.clone(),
                        span: entry.key_span,
                        rpy: exprs.exprs(&entry.value, &what)?,
                    })
                })
                .collect::<Result<_, Problem>>()?
        }
    };
    Ok(InitialTable {
        positions,
        velocities,
        orientations,
    })
}
