//! `detach = { time = .. }` or `detach = { reaction = "fz", above = .. }`:
//! when a joint lets go.

use super::fields::{string, Expressions, Fields};
use crate::error::Problem;
use crate::model::{Detach, Release};
use crate::suggest::did_you_mean;
use crate::toml_tree::Node;

/// Reads one `detach` table: exactly one of `time` and `reaction`, and with
/// `reaction` exactly one of `above` and `below`.
pub(super) fn read(node: &Node, exprs: Expressions) -> Result<Detach, Problem> {
    let fields = Fields::of(node, "`detach`", &["time", "reaction", "above", "below"])?;
    let release = match (fields.optional("time"), fields.optional("reaction")) {
        (Some(time), None) => {
            if let Some(extra) = fields.optional("above").or(fields.optional("below")) {
                return Err(Problem::new(
                    extra.span,
                    "`detach` at a time takes no threshold",
                    "only a reaction has a threshold",
                    "give either `time = t` or `reaction = \"fz\", above = F`",
                ));
            }
            Release::At(exprs.expr(time, "`detach.time`")?)
        }
        (None, Some(reaction)) => {
            let name = string(reaction, "`detach.reaction`")?;
            let component = Release::COMPONENTS
                .iter()
                .position(|c| *c == name)
                .ok_or_else(|| {
                    Problem::new(
                        reaction.span,
                        format!(
                            "`{name}` is not a component of a joint's reaction{}",
                            did_you_mean(name, Release::COMPONENTS)
                        ),
                        "unknown component",
                        "the components are fx, fy, fz (the force) and mx, my, mz (the moment), \
                         in the joint frame on the child's side",
                    )
                })?;
            let (threshold, rising) =
                match (fields.optional("above"), fields.optional("below")) {
                    (Some(above), None) => (exprs.expr(above, "`detach.above`")?, true),
                    (None, Some(below)) => (exprs.expr(below, "`detach.below`")?, false),
                    _ => return Err(Problem::new(
                        node.span,
                        "`detach` on a reaction needs exactly one of `above` and `below`",
                        "no single threshold",
                        "`above = F` releases as the component rises through F, `below = F` as it \
                         falls through F (a latch that opens when its normal force changes sign: \
                         `below = 0`)",
                    )),
                };
            Release::Reaction {
                component,
                threshold,
                rising,
            }
        }
        _ => {
            return Err(Problem::new(
                node.span,
                "`detach` needs exactly one of `time` and `reaction`",
                "no single condition",
                "release at a time: `detach = { time = 2.0 }`; on the joint's reaction: \
                 `detach = { reaction = \"fz\", below = 0 }`",
            ))
        }
    };
    Ok(Detach {
        release,
        span: node.span,
    })
}
