//! Spec joints as chains of primitive joints.
//!
//! The derivations know four primitive joints (revolute, prismatic,
//! spherical, free). Every other joint type of the format is a chain of them
//! through massless auxiliary bodies, which changes no dynamics and lets
//! every formalism handle every type:
//!
//! | spec type | primitive chain (coordinates in this order) |
//! |---|---|
//! | cylindrical | prismatic along `axis`, revolute about `axis` |
//! | universal | revolute about `axis`, revolute about `axis2` |
//! | planar | prismatic along x, prismatic along y, revolute about z |
//! | fixed | none: the child is lumped into its parent |
//!
//! Bodies are visited in regular order, so a parent is always assembled (and
//! has received its fixed children's inertia) before its children.
//!
//! A tree body's frame is its joint frame after the joint's motion. When the
//! joint has a `child_origin` (the joint frame placed in the child body, as
//! loops need), the spec body's own frame sits at `child_origin⁻¹` in it:
//! the body's mass properties are re-expressed in the joint frame, and its
//! children and the poses it reports are placed through that offset.

use crate::graph::SpanningTree;
use crate::model::lowering::ExprLowering;
use crate::model::lumping::lump;
use crate::model::vec3::{Vec3, Vec3Ops};
use crate::model::{AttachedFrame, Coupling, JointKind, Placement, TreeBody};
use sharnir_cas::{Coeff, Id};
use sharnir_spec::{JointKind as SpecJointKind, Spec, SpecError};

/// The primitive joints a spec joint type is made of, with their axes.
fn primitives(
    kind: SpecJointKind,
    axis: [f64; 3],
    axis2: Option<[f64; 3]>,
) -> Vec<(JointKind, [f64; 3])> {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    match kind {
        SpecJointKind::Revolute => vec![(JointKind::Revolute, axis)],
        SpecJointKind::Prismatic => vec![(JointKind::Prismatic, axis)],
        SpecJointKind::Cylindrical => {
            vec![(JointKind::Prismatic, axis), (JointKind::Revolute, axis)]
        }
        SpecJointKind::Universal => vec![
            (JointKind::Revolute, axis),
            (JointKind::Revolute, axis2.unwrap_or(y)),
        ],
        SpecJointKind::Planar => vec![
            (JointKind::Prismatic, x),
            (JointKind::Prismatic, y),
            (JointKind::Revolute, z),
        ],
        SpecJointKind::Spherical => vec![(JointKind::Spherical, z)],
        SpecJointKind::Free => vec![(JointKind::Free, z)],
        SpecJointKind::Fixed => Vec::new(),
    }
}

/// The tree bodies of `spec`, in regular order, and where every spec body's
/// frame is (indexed by regular number, 0 the ground), for the cut joints.
pub(crate) fn assemble(
    spec: &Spec,
    tree: &SpanningTree,
    lowering: &mut ExprLowering,
) -> Result<(Vec<TreeBody>, Vec<AttachedFrame>), SpecError> {
    let offsets = spec.first_coordinates();
    let ground = AttachedFrame::ground(&mut lowering.pool);
    // frames[k]: where spec body number k (regular numbering) is attached.
    let mut frames: Vec<AttachedFrame> = vec![ground; tree.bodies() + 1];
    let mut bodies: Vec<TreeBody> = Vec::with_capacity(tree.bodies());
    for k in 1..=tree.bodies() {
        let arc = tree.inboard_arc(k);
        let (Some(joint), Some(body)) = (
            spec.joints.get(arc),
            tree.body_of_number(k)
                .checked_sub(1)
                .and_then(|b| spec.bodies.get(b)),
        ) else {
            continue;
        };
        let parent_frame = frames[tree.parent_number(k)];
        let origin_rotation = lowering.rotation(spec, &joint.origin.rotation)?;
        let origin_translation = lowering.vec3(spec, &joint.origin.translation)?;
        // The joint frame, in the frame of the tree body the parent hangs on.
        let joint_frame = parent_frame.then(
            &mut lowering.pool,
            &Placement {
                rotation: origin_rotation,
                translation: origin_translation,
            },
        );
        let Placement {
            rotation,
            translation,
        } = joint_frame.placement;
        // The moving base's chain is massless; every other body has mass.
        let massless = spec.moving_base.contains(&body.name);
        let positive = |lowering: &mut ExprLowering, e, what| {
            if massless {
                lowering.expr(spec, e)
            } else {
                lowering.positive(spec, e, what)
            }
        };
        let mass = positive(lowering, &body.mass, "the mass")?;
        let com = lowering.vec3(spec, &body.com)?;
        let i = &body.inertia;
        let (xx, yy, zz) = (
            positive(lowering, &i.xx, "the moment of inertia xx")?,
            positive(lowering, &i.yy, "the moment of inertia yy")?,
            positive(lowering, &i.zz, "the moment of inertia zz")?,
        );
        let (xy, xz, yz) = (
            lowering.expr(spec, &i.xy)?,
            lowering.expr(spec, &i.xz)?,
            lowering.expr(spec, &i.yz)?,
        );
        let inertia = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]];
        // The spec body's frame in the joint frame after the motion.
        let body_frame = match &joint.child_origin {
            Some(child_origin) => {
                let r = lowering.rotation(spec, &child_origin.rotation)?;
                let t = lowering.vec3(spec, &child_origin.translation)?;
                Some(Placement::inverse_of(&mut lowering.pool, &r, t))
            }
            None => None,
        };
        let pool = &mut lowering.pool;
        let chain = primitives(joint.kind, joint.axis, joint.axis2);
        if chain.is_empty() {
            let frame = match &body_frame {
                Some(offset) => joint_frame.then(pool, offset),
                None => joint_frame,
            };
            if let Some(host) = frame.host.and_then(|h| bodies.get_mut(h)) {
                lump(pool, host, &frame.placement, mass, com, inertia);
            }
            frames[k] = frame;
            continue;
        }
        let (com, inertia) = match &body_frame {
            Some(offset) => offset.carry_mass_properties(pool, com, &inertia),
            None => (com, inertia),
        };
        let zero3 = pool.zero3();
        let zero = pool.zero();
        let identity = pool.identity3();
        let (coupling, leader) = match &joint.mimic {
            Some(mimic) => {
                let multiplier = lowering.expr(spec, &mimic.multiplier)?;
                let offset = lowering.expr(spec, &mimic.offset)?;
                let leader = spec
                    .joints
                    .iter()
                    .position(|j| j.name == mimic.joint)
                    .ok_or_else(|| {
                        spec.error_at(
                            mimic.joint_span,
                            format!("unknown leader joint `{}`", mimic.joint),
                            "no [[joint]] has this name",
                            "name the joint whose coordinate drives this one",
                        )
                    })?;
                let coupling = Coupling {
                    leader: mimic.joint.clone(),
                    multiplier,
                    offset,
                };
                (Some(coupling), leader)
            }
            None => (None, arc),
        };
        let armature = joint
            .armature
            .iter()
            .map(|a| lowering.expr(spec, a))
            .collect::<Result<Vec<_>, _>>()?;
        let pool = &mut lowering.pool;
        let (mut position, mut velocity) = offsets[leader];
        let last = chain.len() - 1;
        let mut within = 0;
        for (step, (kind, axis)) in chain.into_iter().enumerate() {
            // One value for every coordinate of the joint, or one per
            // coordinate in the chain's order.
            let own_armature: Vec<Id> = match armature.as_slice() {
                [] => Vec::new(),
                [all] => vec![*all; kind.nv()],
                each => (within..within + kind.nv())
                    .map(|i| each.get(i).copied().unwrap_or(zero))
                    .collect(),
            };
            within += kind.nv();
            let axis: Vec3 = axis.map(|a| pool.num(Coeff::from_decimal_f64(a)));
            let first = step == 0;
            let real = step == last;
            bodies.push(TreeBody {
                name: if real {
                    body.name.clone()
                } else {
                    format!("{}.{}", body.name, step + 1)
                },
                joint: joint.name.clone(),
                parent: if first {
                    parent_frame.host
                } else {
                    Some(bodies.len() - 1)
                },
                position,
                velocity,
                coupling: coupling.clone(),
                kind,
                axis,
                rotation: if first { rotation } else { identity },
                translation: if first { translation } else { zero3 },
                mass: if real { mass } else { zero },
                com: if real { com } else { zero3 },
                inertia: if real { inertia } else { [zero3; 3] },
                auxiliary: !real,
                body_frame: if real { body_frame } else { None },
                armature: own_armature,
            });
            position += kind.nq();
            velocity += kind.nv();
        }
        let own = AttachedFrame::of_body(pool, bodies.len() - 1);
        frames[k] = match &body_frame {
            Some(offset) => own.then(pool, offset),
            None => own,
        };
    }
    Ok((bodies, frames))
}
