//! The mechanism graph of the document: which joints close loops.
//!
//! Coordinates belong to the joints of the spanning tree only, so the cut
//! joints must be known before anything that names coordinates
//! (`[initial]`, `[forces]`, `independent`) can be checked. The tree is the
//! one `sharnir-graph` finds — breadth-first from the ground, so every body
//! is as few joints from the ground as the loops allow, without the joints
//! marked `cut = true` — and every joint it leaves out becomes a cut joint.

use crate::document::Document;
use crate::error::Problem;
use crate::graph::joint_arcs;
use crate::model::{Joint, JointKind};
use crate::source::Span;
use sharnir_graph::{spanning_tree_cutting, GraphError};

/// Checks that the joints connect every body to the ground and marks the cut
/// joints (`Joint::cut`), or returns the first problem.
pub(super) fn mark_cut_joints(document: &mut Document) -> Result<(), Problem> {
    let arcs = joint_arcs(&document.bodies, &document.joints);
    let marked: Vec<usize> = (0..document.joints.len())
        .filter(|&a| document.joints[a].cut_mark.is_some())
        .collect();
    let tree = spanning_tree_cutting(document.bodies.len() + 1, &arcs, &marked)
        .map_err(|error| graph_problem(document, error))?;
    let has_loops = !tree.cut_arcs().is_empty();
    for k in 1..=tree.bodies() {
        if tree.arc_reversed(k) {
            return Err(reversed(&document.joints[tree.inboard_arc(k)], has_loops));
        }
    }
    for &arc in tree.cut_arcs() {
        document.joints[arc].cut = true;
    }
    for joint in document.joints.iter().filter(|j| j.cut) {
        cut_joint(document, joint)?;
    }
    Ok(())
}

/// The problem for a graph without a spanning tree.
fn graph_problem(document: &Document, error: GraphError) -> Problem {
    let body_span = |b: usize| {
        b.checked_sub(1)
            .and_then(|i| document.bodies.get(i))
            .map_or(Span::default(), |b| b.span)
    };
    let names = |bodies: &[usize]| {
        bodies
            .iter()
            .filter_map(|&b| b.checked_sub(1).and_then(|i| document.bodies.get(i)))
            .map(|b| b.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match error {
        GraphError::Disconnected { bodies } => Problem::new(
            bodies.first().map_or(Span::default(), |&b| body_span(b)),
            format!("not connected to ground: {}", names(&bodies)),
            "this body has no path of joints to ground",
            "add a joint that connects it to ground or to a connected body",
        ),
        GraphError::CutBridge { arc, bodies } => {
            let joint = &document.joints[arc];
            Problem::new(
                joint.cut_mark.unwrap_or(joint.span),
                format!(
                    "cutting joint `{}` disconnects {} from the ground",
                    joint.name,
                    names(&bodies)
                ),
                "this joint closes no loop of what remains",
                "a cut joint must close a kinematic loop: remove `cut = true` here, \
                 or mark at most one joint per loop",
            )
        }
        other => Problem::new(
            Span::default(),
            other.to_string(),
            "",
            "this is a bug in sharnir: the references were validated; please report it",
        ),
    }
}

/// The problem for a tree joint whose parent is the outboard body.
fn reversed(joint: &Joint, has_loops: bool) -> Problem {
    let help = if has_loops {
        "swap `parent` and `child` (and `origin` with `child_origin`) so that the joint \
         points away from ground, or mark another joint of its loop `cut = true`"
    } else {
        "swap `parent` and `child` so that every joint points away from ground"
    };
    Problem::new(
        joint.parent_span,
        format!(
            "joint `{}` points towards ground: `{}` is nearer to ground than `{}`",
            joint.name, joint.child, joint.parent
        ),
        "this parent is the outboard body",
        help,
    )
}

/// A cut joint has no coordinates: it cannot follow or lead another joint,
/// and a free joint constrains nothing.
fn cut_joint(document: &Document, joint: &Joint) -> Result<(), Problem> {
    let span = joint.cut_mark.unwrap_or(joint.span);
    if let Some(mimic) = &joint.mimic {
        return Err(Problem::new(
            mimic.span,
            format!(
                "joint `{}` closes a loop and cannot mimic another joint",
                joint.name
            ),
            "a cut joint has no coordinate to couple",
            "mark another joint of the loop `cut = true`, or remove `mimic`",
        ));
    }
    if let Some(follower) = document
        .joints
        .iter()
        .find(|j| j.mimic.as_ref().is_some_and(|m| m.joint == joint.name))
    {
        return Err(Problem::new(
            span,
            format!(
                "joint `{}` closes a loop, but `{}` mimics it",
                joint.name, follower.name
            ),
            "a cut joint has no coordinate to lead",
            "mark another joint of the loop `cut = true`",
        ));
    }
    if joint.kind == JointKind::Free {
        return Err(Problem::new(
            span,
            format!("joint `{}` is free and closes a loop", joint.name),
            "a free joint constrains nothing",
            "remove the joint: a free joint inside a loop adds no constraint",
        ));
    }
    Ok(())
}
