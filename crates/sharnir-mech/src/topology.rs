//! The spec's bodies and joints as a graph: the spanning tree the
//! derivations walk, and the spec errors for graphs that are not trees
//! rooted at the ground (disconnected bodies, closed loops, joints pointing
//! towards the ground).

use crate::graph::{self, GraphError};
use sharnir_spec::{Span, Spec, SpecError};
use std::collections::HashMap;

/// Checks the graph and numbers it, translating graph errors to spec errors.
pub(crate) fn spanning_tree(spec: &Spec) -> Result<graph::SpanningTree, SpecError> {
    let index: HashMap<&str, usize> = spec
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i + 1))
        .collect();
    let mut arcs = Vec::with_capacity(spec.joints.len());
    for joint in &spec.joints {
        let end = |name: &str, span| {
            if name == "ground" {
                Ok(0)
            } else {
                index.get(name).copied().ok_or_else(|| {
                    spec.error_at(
                        span,
                        format!("unknown body `{name}`"),
                        "not a body",
                        "declare it with [[body]]",
                    )
                })
            }
        };
        arcs.push(graph::Arc {
            from: end(&joint.parent, joint.parent_span)?,
            to: end(&joint.child, joint.child_span)?,
        });
    }
    let tree =
        graph::spanning_tree(spec.bodies.len() + 1, &arcs).map_err(|e| graph_error(spec, e))?;
    if let Some(&cut) = tree.cut_arcs().first() {
        return Err(loop_error(spec, tree.fundamental_loop(cut).unwrap_or(&[])));
    }
    for k in 1..=tree.bodies() {
        if tree.arc_reversed(k) {
            let joint = &spec.joints[tree.inboard_arc(k)];
            return Err(spec.error_at(
                joint.parent_span,
                format!(
                    "joint `{}` points towards ground: `{}` is nearer to ground than `{}`",
                    joint.name, joint.child, joint.parent
                ),
                "this parent is the outboard body",
                "swap `parent` and `child` so that every joint points away from ground",
            ));
        }
    }
    Ok(tree)
}

fn graph_error(spec: &Spec, error: GraphError) -> SpecError {
    match error {
        GraphError::Disconnected { bodies } => {
            let body = |b: usize| b.checked_sub(1).and_then(|i| spec.bodies.get(i));
            let names: Vec<&str> = bodies
                .iter()
                .filter_map(|&b| body(b))
                .map(|b| b.name.as_str())
                .collect();
            let span = bodies
                .first()
                .and_then(|&b| body(b))
                .map(|b| b.span)
                .unwrap_or_default();
            spec.error_at(
                span,
                format!("not connected to ground: {}", names.join(", ")),
                "this body has no path of joints to ground",
                "add a joint that connects it to ground or to a connected body",
            )
        }
        GraphError::SelfLoop { arc } => {
            let joint = spec.joints.get(arc);
            spec.error_at(
                joint.map(|j| j.span).unwrap_or_default(),
                format!(
                    "joint `{}` connects a body to itself",
                    joint.map_or("?", |j| j.name.as_str())
                ),
                "parent and child are the same body",
                "a joint must connect two different bodies",
            )
        }
        other @ (GraphError::NoGround | GraphError::UnknownBody { .. }) => spec.error_at(
            Span::default(),
            other.to_string(),
            "",
            "this is a bug in sharnir: the spec was validated; please report it",
        ),
    }
}

/// The error for a closed kinematic loop, naming its joints in order around
/// the loop; the first one is the joint that would be cut.
fn loop_error(spec: &Spec, arcs: &[usize]) -> SpecError {
    let names: Vec<&str> = arcs
        .iter()
        .filter_map(|&a| spec.joints.get(a))
        .map(|j| j.name.as_str())
        .collect();
    let span = arcs
        .first()
        .and_then(|&a| spec.joints.get(a))
        .map(|j| j.span)
        .unwrap_or_default();
    spec.error_at(
        span,
        format!("kinematic loop through joints {}", names.join(" → ")),
        "this joint closes the loop",
        "closed loops (cut joints) are not supported yet: remove one joint of the loop",
    )
}
