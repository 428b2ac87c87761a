//! The one step of building a [`Mechanism`] that needs geometry: closing
//! its loops.
//!
//! The model layer assembles the spanning tree
//! (`Mechanism::tree_from_spec`); a cut joint's constraints are read off
//! the tree's poses, which the geometry layer computes from that model.
//! [`Mechanism::from_spec`] is therefore defined here, one layer up, so
//! that no file of the model reads the geometry.

use crate::geometry::assembly::assemble_initial;
use crate::geometry::loop_closure::loop_closure;
use crate::geometry::mobility::mobility;
use crate::model::loops::ClosedLoops;
use crate::model::{Mechanism, ParameterMode};
use sharnir_spec::{Span, Spec, SpecError};

/// Derives the loop equations of `mechanism` and checks that its loops can
/// close and leave it free to move, reporting at the cut joint otherwise.
fn closed_loops(spec: &Spec, mechanism: &mut Mechanism) -> Result<ClosedLoops, SpecError> {
    let span_of = |mechanism: &Mechanism, name: &str| {
        mechanism
            .cut_joints
            .iter()
            .find(|c| c.name == name)
            .map_or(Span::default(), |c| c.span)
    };
    let closure = loop_closure(mechanism).map_err(|e| {
        spec.error_at(
            span_of(mechanism, &e.joint),
            e.to_string(),
            "this joint's two placements never meet",
            "check `origin`, `child_origin` and the axes of the joints around the loop",
        )
    })?;
    let mobility = mobility(mechanism, &closure).map_err(|e| {
        spec.error_at(
            Span::default(),
            format!("the loop constraints read {e}"),
            "",
            "this is a bug in sharnir; please report it",
        )
    })?;
    if mobility.degrees_of_freedom() == 0 {
        let first = mechanism
            .cut_joints
            .first()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        return Err(spec.error_at(
            span_of(mechanism, &first),
            format!(
                "the loops lock the mechanism: {} independent constraints hold its {} \
                 coordinates at the initial configuration, so nothing can move",
                mobility.rank, mobility.coordinates
            ),
            "this joint closes a loop",
            "remove a joint from a loop or give a joint more freedom; if [initial] is a \
             singular configuration, start from a general one",
        ));
    }
    if mobility.residual > 1e-9 {
        let held = if mechanism.independent.is_empty() {
            &mobility.partition
        } else {
            &mechanism.independent
        };
        if let Err(stuck) = assemble_initial(mechanism, &closure, held) {
            let row = closure.rows.get(stuck.row);
            let cut = row
                .and_then(|r| mechanism.cut_joints.get(r.cut_joint))
                .map(|c| c.name.clone())
                .unwrap_or_default();
            let held_names: Vec<String> = held
                .iter()
                .filter_map(|&i| mechanism.coordinates.get(i))
                .map(|name| format!("`{name}`"))
                .collect();
            return Err(spec.error_at(
                span_of(mechanism, &cut),
                format!(
                    "[initial] cannot be assembled: the loop this joint closes stays open, its \
                     constraint `{}` at {:.3e} after Newton's method, with {} held",
                    row.map_or("", |r| r.name.as_str()),
                    stuck.residual,
                    if held_names.is_empty() {
                        "no coordinate".to_owned()
                    } else {
                        held_names.join(", ")
                    }
                ),
                "this joint's loop does not close",
                "check the lengths around the loop (`origin`, `child_origin`) and the held \
                 coordinates' [initial] values (the spec's `independent`): a simulation \
                 assembles [initial] holding them",
            ));
        }
    }
    Ok(ClosedLoops { closure, mobility })
}

impl Mechanism {
    /// Builds the tree for `spec`, or reports why the graph is not a tree
    /// rooted at ground; when it has cut joints, derives their loop
    /// equations and reports a loop that cannot close or that locks the
    /// mechanism, and chooses the independent coordinates the spec leaves
    /// unnamed.
    pub fn from_spec(spec: &Spec, mode: ParameterMode) -> Result<Mechanism, SpecError> {
        let mut mechanism = Mechanism::tree_from_spec(spec, mode)?;
        if mechanism.has_loops() {
            let loops = closed_loops(spec, &mut mechanism)?;
            if mechanism.independent.is_empty() {
                mechanism.independent = loops.mobility.partition.clone();
                mechanism.independent_chosen = true;
            }
            mechanism.loops = Some(loops);
        }
        Ok(mechanism)
    }
}
