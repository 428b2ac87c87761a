//! `[motion]`: coordinates driven along known laws of time, compiled into
//! the module's `prescribed_motion` and `mixed_dynamics`.
//!
//! ```toml
//! [motion]
//! crank = "omega*t"
//! slide = "a*sin(2*pi*f*t)"
//! ```

use super::fields::{wrong_type, Expressions};
use crate::error::Problem;
use crate::model::PrescribedMotion;
use crate::toml_tree::{Node, Value};

/// Reads `[motion]`: each key a velocity coordinate, each value its law.
pub(crate) fn read(node: &Node, exprs: Expressions) -> Result<Vec<PrescribedMotion>, Problem> {
    let Value::Table(table) = &node.value else {
        return Err(wrong_type(node, "[motion]", "a table"));
    };
    table
        .entries
        .iter()
        .map(|entry| {
            Ok(PrescribedMotion {
                coordinate: entry.key.clone(),
                span: entry.key_span,
                law: exprs.expr(&entry.value, &format!("law of `{}`", entry.key))?,
            })
        })
        .collect()
}
