//! `[forces]`: joint forces given as expressions of time, the coordinates
//! and their rates, compiled into the module's `applied_forces`.
//!
//! ```toml
//! [forces]
//! theta1 = "-k*theta1 - c*theta1_dot"
//! theta2 = "tau0*sin(w*t)"
//! ```

use super::fields::{wrong_type, Expressions};
use crate::error::Problem;
use crate::model::AppliedForce;
use crate::toml_tree::{Node, Value};

/// Reads `[forces]`: each key a velocity coordinate, each value an
/// expression.
pub(crate) fn read(node: &Node, exprs: Expressions) -> Result<Vec<AppliedForce>, Problem> {
    let Value::Table(table) = &node.value else {
        return Err(wrong_type(node, "[forces]", "a table"));
    };
    table
        .entries
        .iter()
        .map(|entry| {
            Ok(AppliedForce {
                coordinate: entry.key.clone(),
                span: entry.key_span,
                value: exprs.expr(&entry.value, &format!("force `{}`", entry.key))?,
            })
        })
        .collect()
}
