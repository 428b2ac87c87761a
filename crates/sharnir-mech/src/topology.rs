//! The spec's bodies and joints as a graph: the spanning tree the
//! derivations walk.
//!
//! Validation (`sharnir-spec`) has already checked the graph and marked the
//! cut joints, with the same tree search; here the tree is built again
//! without the cut joints, which leaves exactly one tree.

use crate::graph::{self, SpanningTree};
use sharnir_spec::{Span, Spec, SpecError};
use std::collections::HashMap;

/// The regularly numbered spanning tree of a validated spec.
pub(crate) fn spanning_tree(spec: &Spec) -> Result<SpanningTree, SpecError> {
    let index: HashMap<&str, usize> = std::iter::once("ground")
        .chain(spec.bodies.iter().map(|b| b.name.as_str()))
        .enumerate()
        .map(|(i, name)| (name, i))
        .collect();
    let body = |name: &str| index.get(name).copied().unwrap_or(0);
    let arcs: Vec<graph::Arc> = spec
        .joints
        .iter()
        .map(|j| graph::Arc::new(body(&j.parent), body(&j.child)))
        .collect();
    let cut: Vec<usize> = (0..spec.joints.len())
        .filter(|&a| spec.joints[a].cut)
        .collect();
    let bug = |what: String| {
        spec.error_at(
            Span::default(),
            what,
            "",
            "this is a bug in sharnir: the spec's graph was validated; please report it",
        )
    };
    let tree =
        graph::spanning_tree_cutting(index.len(), &arcs, &cut).map_err(|e| bug(e.to_string()))?;
    if tree.cut_arcs() != cut || (1..=tree.bodies()).any(|k| tree.arc_reversed(k)) {
        return Err(bug(
            "the spanning tree differs from the validated one".into()
        ));
    }
    Ok(tree)
}
