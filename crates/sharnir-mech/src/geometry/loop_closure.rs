//! Loop-closure constraints of the cut joints: `Ψ(q) = 0`, their Jacobian
//! `J` (so that `Ψ̇ = J q̇`) and `J̇ q̇` (so that `J q̈ + J̇ q̇ = 0`).
//!
//! A cut joint's two sides are frames `P` (fixed in its parent body) and
//! `C` (fixed in its child body). With `R = R_Pᵀ R_C` the orientation of `C`
//! seen from `P` and `d = R_Pᵀ (r_C − r_P)` the position of `C`'s origin in
//! `P`'s axes, each row forbids one relative motion the joint type does not
//! allow (`a` the axis, `b₁`, `b₂` two unit vectors across it with
//! `b₁ × b₂ = a`, all in the joint frame):
//!
//! | row | `Ψ` | reaction (on the child, `P` axes) |
//! |---|---|---|
//! | force along `e` | `e · d` | force along `e` |
//! | moment about `b` (keeps `a` aligned) | `(b × a) · (R a)` | moment about `b` |
//! | moment about `eᵢ` (keeps the orientation) | `½ (R − Rᵀ)` read as a vector, component `i` | moment about `eᵢ` |
//! | universal moment | `a · (R a₂) − a · a₂` | moment about `R a₂ × a` |
//!
//! | type | rows |
//! |---|---|
//! | revolute | forces along x, y, z; moments about `b₁`, `b₂` |
//! | prismatic | forces along `b₁`, `b₂`; moments about x, y, z |
//! | cylindrical | forces along `b₁`, `b₂`; moments about `b₁`, `b₂` |
//! | universal | forces along x, y, z; the universal moment |
//! | spherical | forces along x, y, z |
//! | planar | force along z; moments about x, y |
//! | fixed | forces along x, y, z; moments about x, y, z |
//!
//! Every row's rate is `Ψ̇ = f · Δv + m · Δω` on the constraint manifold,
//! with `(f, m)` the row's reaction directions and `(Δv, Δω)` the motion of
//! the child side relative to the parent body at the child side's origin, in
//! `P` axes. So `Jᵀ λ` is the joint force of the wrench `Σ λᵢ (fᵢ, mᵢ)`
//! acting on the child at that point (and its opposite on the parent): the
//! multipliers are the cut joint's reaction force and moment.
//!
//! Both sides are placed relative to the loop's root, the innermost body
//! both hang from (the ground for a linkage on the ground, a floating base
//! for a loop carried by it): `R` and `d` do not depend on how the root
//! moves, so neither do `Ψ`, `J` and `J̇ q̇`, and the rows of a planar loop
//! on a tumbling base still vanish identically.
//!
//! `J` and `J̇ q̇` are exact derivatives: `Ψ̇ = Σ ∂Ψ/∂qᵢ q̇ᵢ(q, v)` with the
//! coordinate rates of [`crate::geometry::kinematics::coordinate_rates`] (quaternions
//! included), `J = ∂Ψ̇/∂v`, and `J̇ v = Σ ∂Ψ̇/∂qᵢ q̇ᵢ` at constant `v`. Rows
//! that vanish identically (a planar loop written with spatial joints), or
//! are constants no larger than [`ROUNDOFF`], are dropped.

use crate::geometry::kinematics::{coordinate_rates, placement, poses, Pose};
use crate::model::body::{AttachedFrame, Placement, TreeBody};
use crate::model::cut_joints::CutJoint;
use crate::model::inputs::Input;
use crate::model::loops::{ConstraintRow, LoopClosure};
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::Mechanism;
use sharnir_cas::{Coeff, Derivative, Id, Pool};
use sharnir_spec::JointKind;
use std::fmt;

/// A constant row at most this large (m, or a sine for the rotational
/// rows) is the roundoff of a loop that closes exactly, dropped like a row
/// that vanishes identically.
pub const ROUNDOFF: f64 = 1e-12;

/// A loop that no motion of the tree can close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnclosableLoop {
    /// The cut joint's name.
    pub joint: String,
    /// The row that is a nonzero constant.
    pub row: String,
}

impl fmt::Display for UnclosableLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the loop of cut joint `{}` can never close: constraint `{}` is a nonzero \
             constant (check `origin` and `child_origin`, and the joint axes)",
            self.joint, self.row
        )
    }
}

/// One row before it is evaluated: what it forbids.
#[derive(Clone, Copy)]
enum Row {
    /// `e · d`.
    Force([f64; 3]),
    /// `(b × a) · (R a)`.
    Alignment { axis: [f64; 3], across: [f64; 3] },
    /// Component `i` of the vector of `½ (R − Rᵀ)`.
    Orientation(usize),
    /// `a · (R a₂) − a · a₂`.
    Universal { axis: [f64; 3], axis2: [f64; 3] },
}

/// Derives `Ψ`, `J` and `J̇ q̇` of every cut joint of `mechanism`.
///
/// # Errors
/// [`UnclosableLoop`] when a row is a nonzero constant.
pub fn loop_closure(mechanism: &mut Mechanism) -> Result<LoopClosure, UnclosableLoop> {
    let tree_poses = poses(mechanism);
    let rates = coordinate_rates(mechanism);
    let (nq, nv) = (mechanism.nq(), mechanism.dof());
    let Mechanism {
        pool,
        cut_joints,
        bodies,
        ..
    } = mechanism;
    let mut rows = Vec::new();
    let mut constraints = Vec::new();
    let mut parent_rotations = Vec::with_capacity(cut_joints.len());
    for (index, joint) in cut_joints.iter().enumerate() {
        let root = loop_root(bodies, joint.parent_side.host, joint.child_side.host);
        let parent = pose_in(pool, bodies, &tree_poses, root, &joint.parent_side);
        let child = pose_in(pool, bodies, &tree_poses, root, &joint.child_side);
        let relative = pool.mat_t_mat(&parent.rotation, &child.rotation);
        let gap = negate_add(pool, child.position, parent.position);
        let offset = pool.mat_t_vec(&parent.rotation, gap);
        parent_rotations.push(Pose::of_attached(pool, &tree_poses, &joint.parent_side).rotation);
        for (suffix, row) in rows_of(joint) {
            let (value, force, moment) = row.evaluate(pool, &relative, offset);
            let name = format!("{}.{suffix}", joint.name);
            let constant = pool.as_num(value).map(|c| c.to_f64());
            if pool.is_zero(value) || constant.is_some_and(|c| c.abs() <= ROUNDOFF) {
                continue;
            }
            if constant.is_some() {
                return Err(UnclosableLoop {
                    joint: joint.name.clone(),
                    row: name,
                });
            }
            rows.push(ConstraintRow {
                name,
                cut_joint: index,
                force,
                moment,
            });
            constraints.push(value);
        }
    }
    let positions: Vec<Id> = (0..nq).map(|i| pool.input(Input::Position(i))).collect();
    let velocities: Vec<Id> = (0..nv).map(|i| pool.input(Input::Velocity(i))).collect();
    let rate_of_change = pool.along_motion(&constraints, &positions, &rates);
    let jacobian = rate_of_change
        .iter()
        .map(|&row| velocities.iter().map(|&v| pool.diff(row, v)).collect())
        .collect();
    let bias = pool.along_motion(&rate_of_change, &positions, &rates);
    let bias_by_one_walk = Derivative::new(positions.iter().copied().zip(rates.iter().copied()))
        .of_all(pool, &rate_of_change);
    Ok(LoopClosure {
        rows,
        constraints,
        jacobian,
        bias,
        bias_by_one_walk,
        parent_rotations,
    })
}

/// The innermost tree body that both `a` and `b` hang from (either may be
/// it), `None` for the ground.
fn loop_root(bodies: &[TreeBody], a: Option<usize>, b: Option<usize>) -> Option<usize> {
    let chain = |mut body: Option<usize>| {
        let mut chain = Vec::new();
        while let Some(index) = body {
            chain.push(index);
            body = bodies.get(index).and_then(|b| b.parent);
        }
        chain
    };
    let above_a = chain(a);
    chain(b).into_iter().find(|index| above_a.contains(index))
}

/// The pose of `frame` in the frame of tree body `root`, an ancestor of its
/// host (or the host itself); in the ground frame (`tree_poses`) when
/// `root` is `None`. The chain is composed from the root outwards, as
/// [`poses`] composes it from the ground, so that its angle sums come out
/// the same.
fn pose_in(
    pool: &mut Pool,
    bodies: &[TreeBody],
    tree_poses: &[Pose],
    root: Option<usize>,
    frame: &AttachedFrame,
) -> Pose {
    if root.is_none() {
        return Pose::of_attached(pool, tree_poses, frame);
    }
    let mut chain = Vec::new();
    let mut host = frame.host;
    while let Some(index) = host.filter(|&h| Some(h) != root) {
        chain.push(index);
        host = bodies.get(index).and_then(|b| b.parent);
    }
    let mut pose: Option<Pose> = None;
    for body in chain.iter().rev().filter_map(|&index| bodies.get(index)) {
        let (rotation, translation) = placement(pool, body);
        let step = Placement {
            rotation,
            translation,
        };
        pose = Some(match pose {
            Some(inner) => inner.then(pool, &step),
            None => Pose {
                rotation,
                position: translation,
            },
        });
    }
    match pose {
        Some(host_pose) => host_pose.then(pool, &frame.placement),
        None => Pose {
            rotation: frame.placement.rotation,
            position: frame.placement.translation,
        },
    }
}

/// `a − b`.
fn negate_add(pool: &mut Pool, a: Vec3, b: Vec3) -> Vec3 {
    let minus_b = pool.scale3c(Coeff::MINUS_ONE, b);
    pool.add3(a, minus_b)
}

/// The rows of a cut joint with their name suffixes.
fn rows_of(joint: &CutJoint) -> Vec<(String, Row)> {
    const X: [f64; 3] = [1.0, 0.0, 0.0];
    const Y: [f64; 3] = [0.0, 1.0, 0.0];
    const Z: [f64; 3] = [0.0, 0.0, 1.0];
    let a = joint.axis;
    let (b1, b2) = across(a);
    let forces = |directions: &[([f64; 3], &str)]| -> Vec<(String, Row)> {
        directions
            .iter()
            .map(|&(e, name)| (format!("f{}", axis_name(e, name)), Row::Force(e)))
            .collect()
    };
    let alignments = |axis: [f64; 3]| -> Vec<(String, Row)> {
        let (b1, b2) = across(axis);
        [(b1, "1"), (b2, "2")]
            .into_iter()
            .map(|(b, name)| {
                (
                    format!("m{}", axis_name(b, name)),
                    Row::Alignment { axis, across: b },
                )
            })
            .collect()
    };
    let orientation = || {
        ["mx", "my", "mz"]
            .into_iter()
            .enumerate()
            .map(|(i, name)| (name.to_owned(), Row::Orientation(i)))
            .collect::<Vec<_>>()
    };
    let position = forces(&[(X, "x"), (Y, "y"), (Z, "z")]);
    let sideways = forces(&[(b1, "1"), (b2, "2")]);
    match joint.kind {
        JointKind::Revolute => [position, alignments(a)].concat(),
        JointKind::Prismatic => [sideways, orientation()].concat(),
        JointKind::Cylindrical => [sideways, alignments(a)].concat(),
        JointKind::Universal => {
            let axis2 = joint.axis2.unwrap_or(Y);
            let moment = Row::Universal { axis: a, axis2 };
            [position, vec![("m".to_owned(), moment)]].concat()
        }
        JointKind::Spherical => position,
        JointKind::Planar => [forces(&[(Z, "z")]), alignments(Z)].concat(),
        JointKind::Fixed => [position, orientation()].concat(),
        JointKind::Free => Vec::new(),
    }
}

/// `x`, `y` or `z` for a coordinate axis, `fallback` for any other direction.
fn axis_name(e: [f64; 3], fallback: &str) -> String {
    match e {
        [1.0, 0.0, 0.0] => "x".to_owned(),
        [0.0, 1.0, 0.0] => "y".to_owned(),
        [0.0, 0.0, 1.0] => "z".to_owned(),
        _ => fallback.to_owned(),
    }
}

/// Two unit vectors `b₁`, `b₂` across the unit vector `a`, with
/// `b₁ × b₂ = a`: the other two coordinate axes in cyclic order when `a` is
/// a positive coordinate axis, else `b₁` the coordinate axis least aligned
/// with `a` made perpendicular to it.
fn across(a: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    const UNITS: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    if let Some(i) = UNITS.iter().position(|&u| u == a) {
        return (UNITS[(i + 1) % 3], UNITS[(i + 2) % 3]);
    }
    let least = (0..3)
        .min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs()))
        .unwrap_or(0);
    let e = UNITS[least];
    let along = a[least];
    let raw = [0, 1, 2].map(|k| e[k] - along * a[k]);
    let norm = raw.iter().map(|x| x * x).sum::<f64>().sqrt();
    let b1 = raw.map(|x| x / norm);
    let b2 = [
        a[1] * b1[2] - a[2] * b1[1],
        a[2] * b1[0] - a[0] * b1[2],
        a[0] * b1[1] - a[1] * b1[0],
    ];
    (b1, b2)
}

impl Row {
    /// The row's `Ψ` from the relative orientation `r` and offset `d`, and
    /// its reaction force and moment directions.
    fn evaluate(&self, pool: &mut Pool, r: &Mat3, d: Vec3) -> (Id, Vec3, Vec3) {
        let zero = pool.zero3();
        match *self {
            Row::Force(e) => {
                let e = constant(pool, e);
                (pool.dot3(e, d), e, zero)
            }
            Row::Alignment { axis, across } => {
                let a = constant(pool, axis);
                let b = constant(pool, across);
                let normal = pool.cross3(b, a);
                let turned = pool.mat_vec(r, a);
                (pool.dot3(normal, turned), zero, b)
            }
            Row::Orientation(i) => {
                let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                let difference = pool.sub(r[k][j], r[j][k]);
                let value = pool.scale(Coeff::ratio(1, 2), difference);
                let mut e = [0.0; 3];
                e[i] = 1.0;
                (value, zero, constant(pool, e))
            }
            Row::Universal { axis, axis2 } => {
                let a = constant(pool, axis);
                let a2 = constant(pool, axis2);
                let turned = pool.mat_vec(r, a2);
                let projection = pool.dot3(a, turned);
                let rest = pool.dot3(a, a2);
                let value = pool.sub(projection, rest);
                (value, zero, pool.cross3(turned, a))
            }
        }
    }
}

/// A constant vector in the pool.
fn constant(pool: &mut Pool, v: [f64; 3]) -> Vec3 {
    v.map(|x| pool.num(Coeff::from_decimal_f64(x)))
}

#[cfg(test)]
mod tests {
    use super::across;

    #[test]
    fn directions_across_an_axis_are_a_right_handed_frame() {
        for a in [
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.6, 0.8],
            [-1.0, 0.0, 0.0],
        ] {
            let (b1, b2) = across(a);
            let cross = [
                b1[1] * b2[2] - b1[2] * b2[1],
                b1[2] * b2[0] - b1[0] * b2[2],
                b1[0] * b2[1] - b1[1] * b2[0],
            ];
            for k in 0..3 {
                assert!((cross[k] - a[k]).abs() < 1e-15, "{a:?}: {b1:?} × {b2:?}");
            }
        }
        assert_eq!(across([0.0, 0.0, 1.0]), ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]));
    }
}
