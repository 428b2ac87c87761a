//! References from joints to bodies.

use crate::document::Document;
use crate::error::Problem;
use crate::suggest::did_you_mean;

/// Every joint names existing bodies (or `ground`) and two different ones.
/// Whether they form a tree is the mechanism graph's business.
pub(super) fn check(document: &Document) -> Result<(), Problem> {
    let bodies =
        || std::iter::once("ground").chain(document.bodies.iter().map(|b| b.name.as_str()));
    for joint in &document.joints {
        for (role, name, span) in [
            ("parent", &joint.parent, joint.parent_span),
            ("child", &joint.child, joint.child_span),
        ] {
            if !bodies().any(|b| b == name) {
                return Err(Problem::new(
                    span,
                    format!(
                        "unknown body `{name}` as {role} of joint `{}`{}",
                        joint.name,
                        did_you_mean(name, bodies())
                    ),
                    "no [[body]] has this name",
                    format!(
                        "the bodies are: {}",
                        bodies().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        if joint.parent == joint.child {
            return Err(Problem::new(
                joint.child_span,
                format!(
                    "joint `{}` connects `{}` to itself",
                    joint.name, joint.child
                ),
                "same as the parent",
                "a joint connects two different bodies: fix `parent` or `child`",
            ));
        }
    }
    Ok(())
}
