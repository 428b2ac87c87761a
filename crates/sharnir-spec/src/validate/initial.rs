//! `[initial]` against the mechanism: every name is a coordinate (or, for
//! `rpy`, a spherical or free joint), every value finite, every quaternion
//! unit; and the numeric initial state the generated module starts from.

use crate::document::{Document, InitialTable};
use crate::error::Problem;
use crate::expr::evaluate;
use crate::model::{Joint, JointKind};
use crate::suggest::did_you_mean;
use std::collections::BTreeMap;

/// How far from 1 a quaternion given by components may be.
const UNIT_TOLERANCE: f64 = 1e-9;

pub(super) fn check(document: &Document, values: &BTreeMap<String, f64>) -> Result<(), Problem> {
    let table = &document.initial;
    let (positions, velocities) = document.coordinate_names();
    for (entries, names, key) in [
        (&table.positions, &positions, "q"),
        (&table.velocities, &velocities, "v"),
    ] {
        for entry in entries {
            if !names.contains(&entry.name) {
                return Err(unknown_coordinate(
                    document,
                    &entry.name,
                    entry.span,
                    names,
                    key,
                ));
            }
            evaluate(&entry.value, values)?;
        }
    }
    for orientation in &table.orientations {
        let Some(joint) = document.joints.iter().find(|j| j.name == orientation.joint) else {
            return Err(Problem::new(
                orientation.span,
                format!(
                    "unknown joint `{}` in `initial.rpy`{}",
                    orientation.joint,
                    did_you_mean(
                        &orientation.joint,
                        document.joints.iter().map(|j| j.name.as_str())
                    )
                ),
                "not a joint",
                "`initial.rpy` takes the names of spherical and free joints",
            ));
        };
        if !matches!(joint.kind, JointKind::Spherical | JointKind::Free) || joint.coordinateless() {
            return Err(Problem::new(
                orientation.span,
                format!(
                    "joint `{}` is {}: only spherical and free joints have an orientation to set",
                    joint.name,
                    joint.kind.name()
                ),
                "no quaternion",
                "set its coordinates in `initial.q` instead",
            ));
        }
        let components = quaternion_names(joint);
        if let Some(entry) = table
            .positions
            .iter()
            .find(|e| components.contains(&e.name))
        {
            return Err(Problem::new(
                entry.span,
                format!(
                    "joint `{}`'s orientation is set twice: by `initial.rpy` and by `{}`",
                    joint.name, entry.name
                ),
                "also set by rpy",
                "give either the roll–pitch–yaw angles or the quaternion components",
            ));
        }
        for angle in &orientation.rpy {
            evaluate(angle, values)?;
        }
    }
    let (q, _) = state(document, values);
    let mut offset = 0;
    for joint in &document.joints {
        if let Some(start) = quaternion_offset(joint) {
            let quaternion = &q[offset + start..offset + start + 4];
            let norm = quaternion.iter().map(|c| c * c).sum::<f64>().sqrt();
            if (norm - 1.0).abs() > UNIT_TOLERANCE {
                let span = table
                    .positions
                    .iter()
                    .find(|e| quaternion_names(joint).contains(&e.name))
                    .map_or(joint.span, |e| e.span);
                return Err(Problem::new(
                    span,
                    format!(
                        "the initial quaternion of joint `{}` has length {norm}, not 1",
                        joint.name
                    ),
                    "not a unit quaternion",
                    "give all four components of a unit quaternion (scalar last), or use `initial.rpy`",
                ));
            }
        }
        offset += joint.nq();
    }
    Ok(())
}

fn unknown_coordinate(
    document: &Document,
    name: &str,
    span: crate::source::Span,
    names: &[String],
    key: &str,
) -> Problem {
    let coordinateless = document
        .joints
        .iter()
        .find(|j| j.coordinateless() && j.spells_coordinate(name));
    let help = match coordinateless {
        Some(joint) if joint.cut => format!(
            "`{name}` is the coordinate of `{}`, a cut joint, which closes a loop and has no \
             coordinates: set the tree joints of its loop",
            joint.name
        ),
        Some(joint) => format!(
            "`{name}` follows joint `{}` (mimic) and has no coordinate of its own: set the leader",
            joint.mimic.as_ref().map_or("", |m| m.joint.as_str())
        ),
        None if names.is_empty() => "the mechanism has no coordinates".to_owned(),
        None => format!(
            "the coordinates of `initial.{key}` are: {}",
            names.join(", ")
        ),
    };
    Problem::new(
        span,
        format!(
            "unknown coordinate `{name}` in `initial.{key}`{}",
            did_you_mean(name, names.iter().map(String::as_str))
        ),
        "not a coordinate",
        help,
    )
}

/// Index within a joint's positions of its quaternion's first component.
fn quaternion_offset(joint: &Joint) -> Option<usize> {
    if joint.coordinateless() {
        return None;
    }
    match joint.kind {
        JointKind::Spherical => Some(0),
        JointKind::Free => Some(3),
        _ => None,
    }
}

fn quaternion_names(joint: &Joint) -> Vec<String> {
    match quaternion_offset(joint) {
        Some(start) => joint.position_names()[start..start + 4].to_vec(),
        None => Vec::new(),
    }
}

/// The initial positions and velocities in coordinate order: zeros and
/// identity quaternions, then the table's values. Values that do not
/// evaluate (only possible before [`check`] passed) are left at their
/// defaults.
pub(crate) fn state(document: &Document, values: &BTreeMap<String, f64>) -> (Vec<f64>, Vec<f64>) {
    let table: &InitialTable = &document.initial;
    let mut q = Vec::new();
    let mut v = Vec::new();
    for joint in &document.joints {
        let start = q.len();
        q.resize(start + joint.nq(), 0.0);
        v.resize(v.len() + joint.nv(), 0.0);
        if let Some(offset) = quaternion_offset(joint) {
            q[start + offset + 3] = 1.0;
            if let Some(orientation) = table.orientations.iter().find(|o| o.joint == joint.name) {
                let angles = orientation
                    .rpy
                    .each_ref()
                    .map(|a| evaluate(a, values).unwrap_or(0.0));
                q[start + offset..start + offset + 4]
                    .copy_from_slice(&crate::rotation::rpy_quaternion(angles));
            }
        }
    }
    let (positions, velocities) = document.coordinate_names();
    for (entries, names, state) in [
        (&table.positions, &positions, &mut q),
        (&table.velocities, &velocities, &mut v),
    ] {
        for entry in entries {
            if let (Some(i), Ok(value)) = (
                names.iter().position(|n| *n == entry.name),
                evaluate(&entry.value, values),
            ) {
                state[i] = value;
            }
        }
    }
    (q, v)
}
