//! Cut joints: the joints the spanning tree leaves out, one per independent
//! kinematic loop.
//!
//! A cut joint joins two bodies that both already hang on the tree. It is
//! kept as the two frames it joins — its joint frame fixed in the parent
//! body (`origin`) and fixed in the child body (`child_origin`) — and its
//! type, which says which relative motions of the two frames it allows; the
//! loop-closure constraints (`crate::geometry::loop_closure`) forbid the others.

use crate::graph::SpanningTree;
use crate::model::lowering::ExprLowering;
use crate::model::{AttachedFrame, Placement};
use sharnir_spec::graph::body_index;
use sharnir_spec::{JointKind, Origin, Span, Spec, SpecError};

/// A joint outside the spanning tree, enforced by constraints.
#[derive(Clone, Debug)]
pub struct CutJoint {
    /// The spec joint's name.
    pub name: String,
    /// The joint type: which relative motions it allows.
    pub kind: JointKind,
    /// Unit axis in the joint frame (types with an axis; `[0, 0, 1]` else).
    pub axis: [f64; 3],
    /// The universal joint's second axis, in the frame after the first
    /// rotation.
    pub axis2: Option<[f64; 3]>,
    /// The joint frame as fixed in the parent body.
    pub parent_side: AttachedFrame,
    /// The joint frame as fixed in the child body.
    pub child_side: AttachedFrame,
    /// The spec joints around the loop it closes, starting with itself.
    pub loop_joints: Vec<String>,
    /// Where the spec names it (its `cut = true` when marked), for errors
    /// about its loop.
    pub span: Span,
}

/// The cut joints of `spec` in spec order, given where every spec body's
/// frame is (`frames`, by regular number, 0 the ground).
pub(crate) fn cut_joints(
    spec: &Spec,
    tree: &SpanningTree,
    frames: &[AttachedFrame],
    lowering: &mut ExprLowering,
) -> Result<Vec<CutJoint>, SpecError> {
    let mut cut = Vec::with_capacity(tree.cut_arcs().len());
    for &arc in tree.cut_arcs() {
        let Some(joint) = spec.joints.get(arc) else {
            continue;
        };
        let side = |lowering: &mut ExprLowering, body: &str, origin: Option<&Origin>| {
            let frame = body_index(&spec.bodies, body)
                .and_then(|b| tree.number_of_body(b))
                .and_then(|k| frames.get(k))
                .copied()
                .unwrap_or_else(|| AttachedFrame::ground(&mut lowering.pool));
            match origin {
                Some(origin) => {
                    let rotation = lowering.rotation(spec, &origin.rotation)?;
                    let translation = lowering.vec3(spec, &origin.translation)?;
                    Ok::<_, SpecError>(frame.then(
                        &mut lowering.pool,
                        &Placement {
                            rotation,
                            translation,
                        },
                    ))
                }
                None => Ok(frame),
            }
        };
        let parent_side = side(lowering, &joint.parent, Some(&joint.origin))?;
        let child_side = side(lowering, &joint.child, joint.child_origin.as_ref())?;
        cut.push(CutJoint {
            name: joint.name.clone(),
            kind: joint.kind,
            axis: joint.axis,
            axis2: joint.axis2,
            parent_side,
            child_side,
            span: joint.cut_mark.unwrap_or(joint.span),
            loop_joints: tree
                .fundamental_loop(arc)
                .unwrap_or(&[])
                .iter()
                .filter_map(|&a| spec.joints.get(a))
                .map(|j| j.name.clone())
                .collect(),
        });
    }
    Ok(cut)
}
