//! `[base]` against the document: its laws read parameters and `t` and are
//! twice differentiable at the start, and the names its chain takes
//! (`base_x`, …, `base_roll`: bodies, joints and coordinates) are free.

use crate::base::components;
use crate::document::Document;
use crate::error::Problem;
use crate::expr::jet;
use crate::model::AppliedForce;
use std::collections::BTreeMap;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let Some(base) = &document.base else {
        return Ok(());
    };
    let time = AppliedForce::TIME;
    if let Some(parameter) = document.parameters.iter().find(|p| p.name == time) {
        return Err(Problem::new(
            parameter.span,
            "parameter `t` has the name of time, which [base] reads",
            "ambiguous in [base]",
            "rename the parameter",
        ));
    }
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
        for (parameter, span) in law.parameters() {
            if parameter != time && !document.parameters.iter().any(|p| p.name == parameter) {
                return Err(Problem::new(
                    span,
                    format!("unknown name `{parameter}` in the law of `{name}`"),
                    "not a parameter or time",
                    "the base's laws read parameters and time `t` only",
                ));
            }
        }
        jet(law, values, time, 0.0, &format!("the law of `{name}`"))?;
    }
    Ok(())
}
