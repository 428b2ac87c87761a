//! The numeric tree of a spec, built from the parsed spec alone.
//!
//! The oracle of the end-to-end tests must not share the model it checks,
//! so nothing here comes from `sharnir-mech` or `sharnir-cas`: from the
//! typed [`Spec`] and the rules of `docs/spec-format.md` this file makes
//!
//! - its own spanning tree ([`tree_joints`]: breadth-first from the ground,
//!   the joint pointing away from the ground preferred, then the one written
//!   first, `cut = true` joints left out), checked against the cut joints
//!   validation marked;
//! - its own body order (breadth-first: by depth in the tree, then in spec
//!   joint order; not the symbolic side's regular numbering, so every
//!   comparison maps bodies by name and coordinates by the layout) and
//!   coordinate layout (spec joint order, no coordinates for cut and
//!   follower joints);
//! - its own composite joints: cylindrical, universal and planar joints as
//!   chains of `sharnir-numeric` revolute and prismatic joints through
//!   massless auxiliary bodies; spherical and free joints as the numeric
//!   crate's own, whose quaternion and velocity conventions (Pinocchio's)
//!   are the format's;
//! - its own fixed-joint lumping (mass, centre of mass and inertia combined
//!   in the host body's frame; bodies welded to the ground dropped) and
//!   `child_origin` placements;
//! - its own expression evaluation and rotations ([`crate::geometry`]),
//!   with the parameter values of `sharnir-spec`'s evaluator, which defines
//!   what a derived parameter means.

use crate::geometry::{
    add, evaluate, mat_mul, mat_vec, placement, scale, sub, transpose, Frame, Mat3, Vec3,
};
use sharnir_numeric::{Body, Coupling, JointKind as Primitive, Tree};
use sharnir_spec::{JointKind, Spec};
use std::collections::BTreeMap;

/// Where one numeric tree body's joint coordinates sit in the spec's `q`
/// and `qd`, so that the oracle can translate between the two layouts.
#[derive(Clone, Copy, Debug)]
pub struct Slots {
    /// A massless body between the primitive joints of a composite joint.
    pub auxiliary: bool,
    /// A follower joint: its coordinates are its leader's.
    pub follower: bool,
    /// Its first position coordinate in the spec's `q` (the leader's for a
    /// follower).
    pub position: usize,
    /// Its number of position coordinates.
    pub nq: usize,
    /// Its first velocity coordinate in the spec's `qd` (the leader's for a
    /// follower).
    pub velocity: usize,
    /// Its number of velocity coordinates.
    pub nv: usize,
}

/// How a position coordinate is drawn for random states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// An angle, in ±π.
    Angle,
    /// A translation, in ±0.5 m.
    Slide,
    /// One component of a unit quaternion; four in a row are drawn together.
    Quaternion,
}

/// A spec as a numeric tree at its parameters' values, with what the oracle
/// needs to map the tree's bodies and coordinates to the spec's.
pub struct SpecTree {
    /// The tree: every spec body on a tree joint that moves (with the
    /// bodies welded to it lumped in), plus the auxiliary bodies of
    /// composite joints; parents first.
    pub tree: Tree,
    /// Per tree body, where its coordinates are in the spec's layout.
    pub slots: Vec<Slots>,
    /// Per tree body, the spec body's name, or `<child>.<k>` for the `k`-th
    /// auxiliary body on the way to `child`.
    pub names: Vec<String>,
    /// Per tree body, the spec body's own frame in the tree body's frame:
    /// `child_origin⁻¹` of its joint, the identity without one (and for
    /// auxiliary bodies).
    pub frames: Vec<Frame>,
    /// The follower (`mimic`) joints, as the numeric crate couples them.
    pub couplings: Vec<Coupling>,
    /// How to draw each position coordinate of the spec's `q`.
    pub sampling: Vec<Sampling>,
}

/// Which joints form the spanning tree and which are cut, by the rule of
/// `docs/spec-format.md` ("Closed loops"): breadth-first from the ground,
/// every body hangs on a joint from a body one level nearer the ground,
/// preferring a joint whose parent is that nearer body, then the
/// one written first; joints marked `cut = true` are never in the tree.
/// A tree joint gets the depth of its child (1 for a child of the ground),
/// a cut joint `None`.
///
/// # Panics
/// When a body cannot be reached, or the tree would hang a body on a joint
/// written towards the ground: validation refuses both, so either is a bug.
pub fn tree_joints(spec: &Spec) -> Vec<Option<usize>> {
    let index = |name: &str| -> usize {
        if name == "ground" {
            return 0;
        }
        1 + spec
            .bodies
            .iter()
            .position(|b| b.name == name)
            .unwrap_or_else(|| panic!("unknown body `{name}`"))
    };
    let ends: Vec<(usize, usize)> = spec
        .joints
        .iter()
        .map(|j| (index(&j.parent), index(&j.child)))
        .collect();
    let mut level: Vec<Option<usize>> = vec![None; spec.bodies.len() + 1];
    level[0] = Some(0);
    let mut in_tree = vec![None; spec.joints.len()];
    for depth in 0.. {
        // For each body first reached from this level: (reversed, joint),
        // whose minimum is the preferred joint.
        let mut reached: BTreeMap<usize, (bool, usize)> = BTreeMap::new();
        for (a, &(parent, child)) in ends.iter().enumerate() {
            if spec.joints[a].cut_mark.is_some() {
                continue;
            }
            for (near, far, reversed) in [(parent, child, false), (child, parent, true)] {
                if level[near] == Some(depth) && level[far].is_none() {
                    let best = reached.entry(far).or_insert((reversed, a));
                    *best = (*best).min((reversed, a));
                }
            }
        }
        if reached.is_empty() {
            break;
        }
        for (body, (reversed, a)) in reached {
            assert!(
                !reversed,
                "{}: the tree hangs a body on joint `{}`, written towards the ground",
                spec.name, spec.joints[a].name
            );
            level[body] = Some(depth + 1);
            in_tree[a] = Some(depth + 1);
        }
    }
    if let Some(lost) = level.iter().position(Option::is_none) {
        panic!(
            "{}: body `{}` is not reached",
            spec.name,
            spec.bodies[lost - 1].name
        );
    }
    in_tree
}

/// The primitive joints a spec joint type is made of, in the order they
/// move the child (`docs/spec-format.md`, "Joint types"), each with its
/// axis in the frame after the ones before; `None` for `fixed`.
fn primitives(kind: JointKind, axis: Vec3, axis2: Option<Vec3>) -> Option<Vec<(Primitive, Vec3)>> {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    let second = || axis2.unwrap_or_else(|| panic!("a universal joint without `axis2`"));
    Some(match kind {
        JointKind::Revolute => vec![(Primitive::Revolute, axis)],
        JointKind::Prismatic => vec![(Primitive::Prismatic, axis)],
        JointKind::Cylindrical => vec![(Primitive::Prismatic, axis), (Primitive::Revolute, axis)],
        JointKind::Universal => vec![(Primitive::Revolute, axis), (Primitive::Revolute, second())],
        JointKind::Planar => vec![
            (Primitive::Prismatic, x),
            (Primitive::Prismatic, y),
            (Primitive::Revolute, z),
        ],
        JointKind::Spherical => vec![(Primitive::Spherical, z)],
        JointKind::Free => vec![(Primitive::Free, z)],
        JointKind::Fixed => return None,
    })
}

/// How each position coordinate of a joint type is drawn.
fn sampling_of(kind: JointKind) -> Vec<Sampling> {
    use Sampling::{Angle, Quaternion as Q, Slide};
    match kind {
        JointKind::Revolute => vec![Angle],
        JointKind::Prismatic => vec![Slide],
        JointKind::Cylindrical => vec![Slide, Angle],
        JointKind::Universal => vec![Angle, Angle],
        JointKind::Planar => vec![Slide, Slide, Angle],
        JointKind::Spherical => vec![Q; 4],
        JointKind::Free => vec![Slide, Slide, Slide, Q, Q, Q, Q],
        JointKind::Fixed => Vec::new(),
    }
}

/// Mass properties in some frame: mass, centre of mass, inertia about it.
type MassProperties = (f64, Vec3, Mat3);

/// The mass properties of several bodies, each given in one common frame,
/// as one body: `m = Σ mᵢ`, `c = Σ mᵢ cᵢ / m`, and the inertias moved to
/// `c` by the parallel-axis theorem, `I = Σ Iᵢ + mᵢ (|dᵢ|² 1 − dᵢ dᵢᵀ)`.
fn lump(parts: &[MassProperties]) -> MassProperties {
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    if mass == 0.0 {
        return (0.0, [0.0; 3], [[0.0; 3]; 3]);
    }
    let com = parts
        .iter()
        .fold([0.0; 3], |c, p| add(c, scale(p.0 / mass, p.1)));
    let mut inertia = [[0.0; 3]; 3];
    for (m, c, own) in parts {
        let d = sub(*c, com);
        let d2 = d.iter().map(|x| x * x).sum::<f64>();
        for i in 0..3 {
            for j in 0..3 {
                let shift = if i == j { d2 } else { 0.0 } - d[i] * d[j];
                inertia[i][j] += own[i][j] + m * shift;
            }
        }
    }
    (mass, com, inertia)
}

impl SpecTree {
    /// Builds the numeric tree of a parsed and validated spec.
    ///
    /// # Panics
    /// When the spanning tree found here differs from the cut joints that
    /// validation marked: the two read the same documented rule, so a
    /// difference is a bug on one side.
    pub fn new(spec: &Spec) -> SpecTree {
        let values = spec.parameter_values();
        let eval = |e| evaluate(e, &values);
        let in_tree = tree_joints(spec);
        for (joint, depth) in spec.joints.iter().zip(&in_tree) {
            assert_eq!(
                joint.cut,
                depth.is_none(),
                "{}: joint `{}` is {} by validation but not by the documented rule",
                spec.name,
                joint.name,
                if joint.cut { "cut" } else { "in the tree" },
            );
        }
        // The coordinate layout: spec joint order, nothing for cut joints
        // and followers.
        let mut first = BTreeMap::new();
        let (mut position, mut velocity) = (0, 0);
        let mut sampling = Vec::new();
        for (joint, depth) in spec.joints.iter().zip(&in_tree) {
            first.insert(joint.name.as_str(), (position, velocity));
            if depth.is_some() && joint.mimic.is_none() {
                position += joint.kind.nq();
                velocity += joint.kind.nv();
                sampling.extend(sampling_of(joint.kind));
            }
        }

        let body_index = |name: &str| spec.bodies.iter().position(|b| b.name == name);
        // Per spec body: the tree body carrying it (`None` for the ground or
        // welded to it) and its frame in that body's frame.
        let mut host: Vec<Option<(Option<usize>, Frame)>> = vec![None; spec.bodies.len()];
        let mut bodies: Vec<Body> = Vec::new();
        let mut slots = Vec::new();
        let mut names = Vec::new();
        let mut frames = Vec::new();
        let mut moved_by = BTreeMap::new();
        let mut followers = Vec::new();
        let mut armature: Vec<f64> = Vec::new();
        // Breadth-first: every parent is placed before its children.
        let mut order: Vec<usize> = (0..spec.joints.len())
            .filter(|&j| in_tree[j].is_some())
            .collect();
        order.sort_by_key(|&j| (in_tree[j], j));
        for joint in order.into_iter().map(|j| &spec.joints[j]) {
            let (parent, parent_frame) = match body_index(&joint.parent) {
                None => (None, Frame::IDENTITY),
                Some(p) => host[p].unwrap_or_else(|| {
                    panic!("{}: joint `{}` before its parent", spec.name, joint.name)
                }),
            };
            let joint_frame = parent_frame.then(&placement(&joint.origin, &values));
            let own_frame = joint
                .child_origin
                .as_ref()
                .map_or(Frame::IDENTITY, |o| placement(o, &values).inverse());
            let child = body_index(&joint.child)
                .unwrap_or_else(|| panic!("joint `{}` into the ground", joint.name));
            let Some(chain) = primitives(joint.kind, joint.axis, joint.axis2) else {
                host[child] = Some((parent, joint_frame.then(&own_frame)));
                continue;
            };
            let (position, velocity) = match &joint.mimic {
                Some(mimic) => first[mimic.joint.as_str()],
                None => first[joint.name.as_str()],
            };
            let last = chain.len() - 1;
            let mut outer = parent;
            // `armature`: one value for every coordinate, or one per
            // coordinate in the joint's order (`docs/spec-format.md`).
            let rotor: Vec<f64> = joint.armature.iter().map(eval).collect();
            let mut within = 0;
            for (k, (kind, axis)) in chain.into_iter().enumerate() {
                for i in within..within + kind.nv() {
                    armature.push(match rotor.as_slice() {
                        [] => 0.0,
                        [all] => *all,
                        each => each[i],
                    });
                }
                within += kind.nv();
                let frame = if k == 0 { joint_frame } else { Frame::IDENTITY };
                bodies.push(Body {
                    parent: outer,
                    joint: kind,
                    axis,
                    rotation: frame.rotation,
                    translation: frame.translation,
                    mass: 0.0,
                    com: [0.0; 3],
                    inertia: [[0.0; 3]; 3],
                });
                // Composite joints are chains of one-coordinate joints.
                let step = if last == 0 { 0 } else { k };
                slots.push(Slots {
                    auxiliary: k < last,
                    follower: joint.mimic.is_some(),
                    position: position + step,
                    nq: kind.nq(),
                    velocity: velocity + step,
                    nv: kind.nv(),
                });
                names.push(if k < last {
                    format!("{}.{}", joint.child, k + 1)
                } else {
                    joint.child.clone()
                });
                frames.push(if k < last { Frame::IDENTITY } else { own_frame });
                outer = Some(bodies.len() - 1);
            }
            host[child] = Some((outer, own_frame));
            moved_by.insert(joint.name.as_str(), bodies.len() - 1);
            if let Some(mimic) = &joint.mimic {
                followers.push((bodies.len() - 1, mimic));
            }
        }

        // Every spec body's mass properties, in its host's frame, lumped.
        let mut parts: Vec<Vec<MassProperties>> = vec![Vec::new(); bodies.len()];
        for (body, host) in spec.bodies.iter().zip(&host) {
            let Some((Some(h), frame)) = host else {
                continue;
            };
            let i = &body.inertia;
            let own = [
                [eval(&i.xx), eval(&i.xy), eval(&i.xz)],
                [eval(&i.xy), eval(&i.yy), eval(&i.yz)],
                [eval(&i.xz), eval(&i.yz), eval(&i.zz)],
            ];
            let r = frame.rotation;
            let com = add(
                frame.translation,
                mat_vec(&r, body.com.each_ref().map(eval)),
            );
            parts[*h].push((
                eval(&body.mass),
                com,
                mat_mul(&mat_mul(&r, &own), &transpose(&r)),
            ));
        }
        for (body, parts) in bodies.iter_mut().zip(&parts) {
            (body.mass, body.com, body.inertia) = lump(parts);
        }

        let couplings = followers
            .into_iter()
            .map(|(follower, mimic)| Coupling {
                follower,
                leader: moved_by[mimic.joint.as_str()],
                multiplier: eval(&mimic.multiplier),
                offset: eval(&mimic.offset),
            })
            .collect();
        SpecTree {
            tree: Tree {
                bodies,
                gravity: spec.gravity.each_ref().map(eval),
                armature,
            },
            slots,
            names,
            frames,
            couplings,
            sampling,
        }
    }
}
