//! A numeric oracle for the loop-closure constraints `Ψ(q)` of the cut
//! joints, written apart from `sharnir-mech`'s symbolic derivation
//! (`loop_closure.rs`).
//!
//! The tree bodies' poses come from the numeric tree of [`Oracle`] (built
//! from the spec alone, `crate::spec_tree`); every other piece of geometry
//! is evaluated here from the spec itself, with the spec-only evaluator and
//! rotation code of `crate::geometry`:
//!
//! - a tree body's pose in the oracle is its own frame: its joint frame
//!   after the joint's motion, then `child_origin⁻¹` when the joint has a
//!   `child_origin` (the joint frame placed in the child body);
//! - a body welded by a `fixed` tree joint has no tree body: its frame is
//!   its parent's frame, then `origin`, then `child_origin⁻¹`;
//! - a cut joint's two frames are `P` = parent body · `origin` and `C` =
//!   child body · `child_origin` (the identity when absent).
//!
//! [`LoopOracle::independent_body_poses`] places every spec body a second
//! way, by forward kinematics straight from the spec (origins, joint
//! motions, child origins), without the numeric tree; the tests compare the
//! two.
//!
//! With `R = R_Pᵀ R_C` and `d = R_Pᵀ (r_C − r_P)`, the rows are those of
//! the table of `crates/sharnir-mech/src/geometry/loop_closure.rs`, with its names,
//! its order and its choice of the directions `b₁`, `b₂` across an axis:
//!
//! | type | rows |
//! |---|---|
//! | revolute | `e·d` for x, y, z; `(b × a)·(R a)` for `b₁`, `b₂` |
//! | prismatic | `b·d` for `b₁`, `b₂`; `½ (R − Rᵀ)` as a vector, x, y, z |
//! | cylindrical | `b·d` for `b₁`, `b₂`; `(b × a)·(R a)` for `b₁`, `b₂` |
//! | universal | `e·d` for x, y, z; `a·(R a₂) − a·a₂` |
//! | spherical | `e·d` for x, y, z |
//! | planar | `z·d`; `(b × z)·(R z)` for `b = x, y` |
//! | fixed | `e·d` for x, y, z; `½ (R − Rᵀ)` as a vector, x, y, z |
//!
//! Every row is named `<joint>.<component>`: `fx`, `fy`, `fz` (`mx`, …) for a
//! direction along a coordinate axis, `f1`, `f2` (`m1`, `m2`) for `b₁`, `b₂`
//! otherwise, `m` for the universal joint's row. The oracle keeps every row;
//! the symbolic side drops the rows that vanish identically, so a test picks
//! rows by name ([`LoopOracle::constraints`]) and checks that the others are
//! zero.

use crate::geometry::{
    cross, dot, evaluate, joint_motion, mat_mul, mat_vec, placement, scale, sub, transpose, Frame,
    Vec3,
};
use crate::oracle::Oracle;
use sharnir_spec::{JointKind, Spec};
use std::collections::BTreeMap;

/// Two unit vectors `b₁`, `b₂` across the unit vector `a` with
/// `b₁ × b₂ = a`, chosen as `loop_closure.rs` chooses them: the next two
/// coordinate axes in cyclic order when `a` is a positive coordinate axis;
/// otherwise `b₁` is the coordinate axis least aligned with `a` (the first
/// of equals) with its component along `a` removed, normalised, and
/// `b₂ = a × b₁`.
pub fn across(a: Vec3) -> (Vec3, Vec3) {
    let units = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for i in 0..3 {
        if a == units[i] {
            return (units[(i + 1) % 3], units[(i + 2) % 3]);
        }
    }
    let mut least = 0;
    for i in 1..3 {
        if a[i].abs() < a[least].abs() {
            least = i;
        }
    }
    let e = units[least];
    let raw = sub(e, scale(a[least], a));
    let norm = dot(raw, raw).sqrt();
    let b1 = scale(1.0 / norm, raw);
    (b1, cross(a, b1))
}

/// `x`, `y` or `z` when `e` is that positive coordinate axis, else
/// `fallback`.
fn component_name(e: Vec3, fallback: &str) -> String {
    let names = ["x", "y", "z"];
    let units = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    units
        .iter()
        .position(|&u| u == e)
        .map_or(fallback, |i| names[i])
        .to_owned()
}

/// One constraint row at one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `<cut joint>.<component>`.
    pub name: String,
    /// `Ψ` of the row.
    pub value: f64,
}

/// How a spec body's frame is found from the tree.
#[derive(Clone, Debug)]
enum Attachment {
    /// The pose of a tree body: an index into `Oracle::body_poses`, which
    /// already places the spec body's own frame.
    Tree { pose: usize },
    /// Welded by a fixed tree joint: the parent spec body's frame (`None`
    /// for ground), then `origin · child_origin⁻¹`.
    Welded {
        parent: Option<usize>,
        offset: Frame,
    },
}

/// A tree joint for the independent forward kinematics.
#[derive(Clone, Debug)]
struct TreeJoint {
    kind: JointKind,
    axis: Vec3,
    axis2: Option<Vec3>,
    parent: Option<usize>,
    child: usize,
    origin: Frame,
    /// `child_origin⁻¹`.
    offset: Frame,
    /// Where its position coordinates are in `q`: its own, or its leader's
    /// with the follower's multiplier and offset.
    position: usize,
    coupling: Option<(f64, f64)>,
}

/// A cut joint: its type, axes and two frames in their hosts.
#[derive(Clone, Debug)]
struct Cut {
    name: String,
    kind: JointKind,
    axis: Vec3,
    axis2: Option<Vec3>,
    parent: Option<usize>,
    origin: Frame,
    child: Option<usize>,
    child_origin: Frame,
}

/// The numeric loop-closure constraints of one spec.
pub struct LoopOracle {
    oracle: Oracle,
    names: Vec<String>,
    attachments: Vec<Attachment>,
    tree_joints: Vec<TreeJoint>,
    cuts: Vec<Cut>,
}

impl LoopOracle {
    /// The oracle of a parsed and validated spec (its cut joints marked).
    pub fn new(spec: &Spec) -> LoopOracle {
        let oracle = Oracle::for_parsed_spec(spec);
        let values = spec.parameter_values();
        let names: Vec<String> = spec.bodies.iter().map(|b| b.name.clone()).collect();
        let body = |name: &str| -> Option<usize> {
            if name == "ground" {
                None
            } else {
                Some(
                    names
                        .iter()
                        .position(|n| n == name)
                        .unwrap_or_else(|| panic!("unknown body `{name}`")),
                )
            }
        };
        let tree_names = oracle.body_names();
        let mut attachments: Vec<Option<Attachment>> = vec![None; names.len()];
        let mut positions = BTreeMap::new();
        let mut offset = 0;
        for joint in &spec.joints {
            positions.insert(joint.name.clone(), offset);
            offset += joint.nq();
        }
        let mut tree_joints = Vec::new();
        let mut cuts = Vec::new();
        for joint in &spec.joints {
            let origin = placement(&joint.origin, &values);
            let child_origin = joint
                .child_origin
                .as_ref()
                .map_or(Frame::IDENTITY, |o| placement(o, &values));
            if joint.cut {
                cuts.push(Cut {
                    name: joint.name.clone(),
                    kind: joint.kind,
                    axis: joint.axis,
                    axis2: joint.axis2,
                    parent: body(&joint.parent),
                    origin,
                    child: body(&joint.child),
                    child_origin,
                });
                continue;
            }
            let child = body(&joint.child).unwrap_or_else(|| panic!("a tree joint into ground"));
            let offset = child_origin.inverse();
            attachments[child] = Some(if joint.kind == JointKind::Fixed {
                Attachment::Welded {
                    parent: body(&joint.parent),
                    offset: origin.then(&offset),
                }
            } else {
                let pose = tree_names
                    .iter()
                    .position(|n| *n == joint.child)
                    .unwrap_or_else(|| panic!("body `{}` is not in the tree", joint.child));
                Attachment::Tree { pose }
            });
            let (position, coupling) = match &joint.mimic {
                Some(mimic) => (
                    positions[&mimic.joint],
                    Some((
                        evaluate(&mimic.multiplier, &values),
                        evaluate(&mimic.offset, &values),
                    )),
                ),
                None => (positions[&joint.name], None),
            };
            tree_joints.push(TreeJoint {
                kind: joint.kind,
                axis: joint.axis,
                axis2: joint.axis2,
                parent: body(&joint.parent),
                child,
                origin,
                offset,
                position,
                coupling,
            });
        }
        let attachments = attachments
            .into_iter()
            .zip(&names)
            .map(|(a, name)| a.unwrap_or_else(|| panic!("body `{name}` has no tree joint")))
            .collect();
        LoopOracle {
            oracle,
            names,
            attachments,
            tree_joints,
            cuts,
        }
    }

    /// The numeric tree oracle underneath.
    pub fn oracle(&self) -> &Oracle {
        &self.oracle
    }

    /// The spec bodies' names, in spec order.
    pub fn body_names(&self) -> &[String] {
        &self.names
    }

    /// The names of the cut joints, in spec order.
    pub fn cut_joints(&self) -> Vec<&str> {
        self.cuts.iter().map(|c| c.name.as_str()).collect()
    }

    /// The ground pose of every spec body's own frame (spec order), from
    /// the numeric tree's poses.
    pub fn body_poses(&self, q: &[f64]) -> Vec<Frame> {
        let tree: Vec<Frame> = self
            .oracle
            .body_poses(q)
            .into_iter()
            .map(|(rotation, translation)| Frame {
                rotation,
                translation,
            })
            .collect();
        let mut poses: Vec<Option<Frame>> = vec![None; self.names.len()];
        // Welded bodies need their parents first: sweep until all are placed
        // (a chain of n fixed joints takes n sweeps).
        for _ in 0..=self.names.len() {
            for (b, attachment) in self.attachments.iter().enumerate() {
                if poses[b].is_some() {
                    continue;
                }
                poses[b] = match attachment {
                    Attachment::Tree { pose } => Some(tree[*pose]),
                    Attachment::Welded { parent, offset } => match parent {
                        None => Some(*offset),
                        Some(p) => poses[*p].map(|parent| parent.then(offset)),
                    },
                };
            }
        }
        poses
            .into_iter()
            .map(|p| p.unwrap_or_else(|| panic!("a welded body whose parent is never placed")))
            .collect()
    }

    /// The ground pose of every spec body's own frame (spec order) by this
    /// file's forward kinematics from the spec alone: parent frame, then
    /// `origin`, the joint's motion and `child_origin⁻¹`.
    pub fn independent_body_poses(&self, q: &[f64]) -> Vec<Frame> {
        let mut poses: Vec<Option<Frame>> = vec![None; self.names.len()];
        for _ in 0..=self.names.len() {
            for joint in &self.tree_joints {
                if poses[joint.child].is_some() {
                    continue;
                }
                let parent = match joint.parent {
                    None => Frame::IDENTITY,
                    Some(p) => match poses[p] {
                        Some(pose) => pose,
                        None => continue,
                    },
                };
                let n = joint.kind.nq();
                let coordinates: Vec<f64> = match joint.coupling {
                    Some((k, offset)) => vec![k * q[joint.position] + offset],
                    None => q[joint.position..joint.position + n].to_vec(),
                };
                let motion = joint_motion(joint.kind, joint.axis, joint.axis2, &coordinates);
                poses[joint.child] =
                    Some(parent.then(&joint.origin).then(&motion).then(&joint.offset));
            }
        }
        poses
            .into_iter()
            .map(|p| p.unwrap_or_else(|| panic!("a body the tree never reaches")))
            .collect()
    }

    /// The ground poses of the two frames of every cut joint (spec order):
    /// `(P, C)`.
    pub fn cut_frames(&self, q: &[f64]) -> Vec<(Frame, Frame)> {
        let poses = self.body_poses(q);
        let host = |b: Option<usize>| b.map_or(Frame::IDENTITY, |b| poses[b]);
        self.cuts
            .iter()
            .map(|c| {
                (
                    host(c.parent).then(&c.origin),
                    host(c.child).then(&c.child_origin),
                )
            })
            .collect()
    }

    /// Every row of every cut joint at `q` (spec order, then the table's
    /// row order), the identically vanishing ones included.
    pub fn rows(&self, q: &[f64]) -> Vec<Row> {
        let frames = self.cut_frames(q);
        let mut rows = Vec::new();
        for (cut, (p, c)) in self.cuts.iter().zip(frames) {
            let rp_t = transpose(&p.rotation);
            let r = mat_mul(&rp_t, &c.rotation);
            let d = mat_vec(&rp_t, sub(c.translation, p.translation));
            let mut push = |suffix: String, value: f64| {
                rows.push(Row {
                    name: format!("{}.{suffix}", cut.name),
                    value,
                });
            };
            let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
            let a = cut.axis;
            let (b1, b2) = across(a);
            let forces = |directions: &[(Vec3, &str)], push: &mut dyn FnMut(String, f64)| {
                for &(e, fallback) in directions {
                    push(format!("f{}", component_name(e, fallback)), dot(e, d));
                }
            };
            let alignments = |axis: Vec3, push: &mut dyn FnMut(String, f64)| {
                let (b1, b2) = across(axis);
                for (b, fallback) in [(b1, "1"), (b2, "2")] {
                    push(
                        format!("m{}", component_name(b, fallback)),
                        dot(cross(b, axis), mat_vec(&r, axis)),
                    );
                }
            };
            let orientation = |push: &mut dyn FnMut(String, f64)| {
                push("mx".to_owned(), 0.5 * (r[2][1] - r[1][2]));
                push("my".to_owned(), 0.5 * (r[0][2] - r[2][0]));
                push("mz".to_owned(), 0.5 * (r[1][0] - r[0][1]));
            };
            let position = [(x, "x"), (y, "y"), (z, "z")];
            let sideways = [(b1, "1"), (b2, "2")];
            match cut.kind {
                JointKind::Revolute => {
                    forces(&position, &mut push);
                    alignments(a, &mut push);
                }
                JointKind::Prismatic => {
                    forces(&sideways, &mut push);
                    orientation(&mut push);
                }
                JointKind::Cylindrical => {
                    forces(&sideways, &mut push);
                    alignments(a, &mut push);
                }
                JointKind::Universal => {
                    forces(&position, &mut push);
                    let a2 = cut.axis2.unwrap_or(y);
                    push("m".to_owned(), dot(a, mat_vec(&r, a2)) - dot(a, a2));
                }
                JointKind::Spherical => forces(&position, &mut push),
                JointKind::Planar => {
                    forces(&[(z, "z")], &mut push);
                    alignments(z, &mut push);
                }
                JointKind::Fixed => {
                    forces(&position, &mut push);
                    orientation(&mut push);
                }
                JointKind::Free => {}
            }
        }
        rows
    }

    /// The rows named `names`, in that order; panics on a name the oracle
    /// does not know.
    pub fn constraints(&self, q: &[f64], names: &[&str]) -> Vec<f64> {
        let rows = self.rows(q);
        names
            .iter()
            .map(|name| {
                rows.iter()
                    .find(|r| r.name == *name)
                    .unwrap_or_else(|| {
                        let known: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
                        panic!("no constraint row `{name}` (the oracle has {known:?})")
                    })
                    .value
            })
            .collect()
    }

    /// The rows not named in `names`: those the symbolic side dropped as
    /// identically zero.
    pub fn dropped_rows(&self, q: &[f64], names: &[&str]) -> Vec<Row> {
        self.rows(q)
            .into_iter()
            .filter(|r| !names.contains(&r.name.as_str()))
            .collect()
    }
}
