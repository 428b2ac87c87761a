//! `[base]` against the document: its laws read parameters and `t` and are
//! twice differentiable at the start, and the names its chain takes
//! (`base_x`, …, `base_roll`: bodies, joints and coordinates) are free.

use super::motion::no_parameter_named_time;
use crate::base::components;
use crate::document::Document;
use crate::error::Problem;
use std::collections::BTreeMap;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let Some(base) = &document.base else {
        return Ok(());
    };
    no_parameter_named_time(document, "[base]")?;
    let (positions, velocities) = document.coordinate_names();
    for (name, _, _, law) in components(base) {
        let taken = document.bodies.iter().any(|b| b.name == name)
            || document.joints.iter().any(|j| j.name == name)
            || positions.iter().chain(&velocities).any(|c| *c == name);
        if taken {
            return Err(Problem::new(
                base.span,
                format!("[base] names its coordinate `{name}`, which the spec already uses"),
                "the moving base's joints",
                format!("rename the spec's `{name}`: a moving base's coordinates are base_x … base_roll"),
            ));
        }
        super::motion::law(document, &name, law, values)?;
    }
    Ok(())
}
