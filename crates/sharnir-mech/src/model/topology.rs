//! The spec's bodies and joints as a graph: the spanning tree the
//! derivations walk.
//!
//! Validation (`sharnir-spec`) has already checked the graph and marked the
//! cut joints, with the same tree search; here the tree is built again
//! without the cut joints, which leaves exactly one tree.

use crate::graph::{self, SpanningTree};
use sharnir_spec::graph::joint_arcs;
use sharnir_spec::{Span, Spec, SpecError};

/// The regularly numbered spanning tree of a validated spec.
pub(crate) fn spanning_tree(spec: &Spec) -> Result<SpanningTree, SpecError> {
    let arcs = joint_arcs(&spec.bodies, &spec.joints);
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
    let tree = graph::spanning_tree_cutting(spec.bodies.len() + 1, &arcs, &cut)
        .map_err(|e| bug(e.to_string()))?;
    if tree.cut_arcs() != cut || (1..=tree.bodies()).any(|k| tree.arc_reversed(k)) {
        return Err(bug(
            "the spanning tree differs from the validated one".into()
        ));
    }
    Ok(tree)
}
