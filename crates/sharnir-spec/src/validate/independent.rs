//! `independent = [...]`: the coordinates that parametrise a mechanism with
//! loops.

use crate::document::Document;
use crate::error::Problem;
use crate::suggest::did_you_mean;

/// Every name is a velocity coordinate of a tree joint, named once, and the
/// mechanism has loops (in a tree every coordinate is independent).
pub(super) fn check(document: &Document) -> Result<(), Problem> {
    let Some(first) = document.independent.first() else {
        return Ok(());
    };
    if !document.joints.iter().any(|j| j.cut) {
        return Err(Problem::new(
            first.span,
            "`independent` names coordinates, but the mechanism has no loops",
            "every coordinate of a tree is independent",
            "remove `independent`, or close a loop with a joint between two bodies",
        ));
    }
    let (_, velocities) = document.coordinate_names();
    for (i, coordinate) in document.independent.iter().enumerate() {
        if !velocities.contains(&coordinate.name) {
            let cut = document
                .joints
                .iter()
                .find(|j| j.cut && j.spells_coordinate(&coordinate.name));
            let message = match cut {
                Some(joint) => format!(
                    "`{}` belongs to `{}`, a cut joint, which has no coordinates",
                    coordinate.name, joint.name
                ),
                None => format!(
                    "unknown coordinate `{}`{}",
                    coordinate.name,
                    did_you_mean(&coordinate.name, velocities.iter().map(String::as_str))
                ),
            };
            return Err(Problem::new(
                coordinate.span,
                message,
                "not a coordinate of the spanning tree",
                format!("the coordinates are: {}", velocities.join(", ")),
            ));
        }
        if document.independent[..i]
            .iter()
            .any(|c| c.name == coordinate.name)
        {
            return Err(Problem::new(
                coordinate.span,
                format!("`{}` is named twice", coordinate.name),
                "already named",
                "name each independent coordinate once",
            ));
        }
    }
    Ok(())
}
