//! The isomorphic branches of a mechanism's spanning tree: subtrees that
//! hang from one body (or from the ground) and are the same chain of joint
//! types, such as a quadruped's legs or a humanoid's two arms, offered to
//! the renderer as renamings of one branch's coordinates to another's
//! ([`branch_renamings`]), under which it pairs the statements the two
//! compute alike (`crate::render::lanes`).
//!
//! Only the shape is compared here; whether two branches really compute
//! alike (their geometry and masses equal, not mirrored) is for the
//! pairing to find out, statement by statement.

use sharnir_mech::{Input, JointKind, Mechanism};
use std::collections::HashMap;

/// The most renamings offered: every way to pair up the branches of each
/// group, combined, capped so that the pairing stays cheap.
const MOST_RENAMINGS: usize = 9;

/// The shape of a branch: each body's joint type and number of children,
/// depth first.
type Shape = Vec<(JointKind, usize)>;

/// Renamings of the first branch's inputs (positions, velocities,
/// accelerations, joint forces) to the second's, one per way of pairing
/// the mechanism's isomorphic branches; empty where it has none.
pub(crate) fn branch_renamings(mechanism: &Mechanism) -> Vec<HashMap<Input, Input>> {
    let bodies = &mechanism.bodies;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()];
    let mut roots = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        match body.parent {
            Some(parent) if parent < bodies.len() => children[parent].push(i),
            Some(_) => {}
            None => roots.push(i),
        }
    }
    let subtree = |root: usize| {
        let mut order = Vec::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        order
    };
    let shape = |order: &[usize]| -> Option<Shape> {
        order
            .iter()
            .map(|&i| {
                let body = &bodies[i];
                body.coupling
                    .is_none()
                    .then_some((body.kind, children[i].len()))
            })
            .collect()
    };
    // Groups of sibling subtrees of one shape, parents before their
    // descendants; a group inside a branch of an earlier one is left out
    // (its coordinates are renamed with that branch's).
    let mut taken = vec![false; bodies.len()];
    let mut groups: Vec<Vec<Vec<usize>>> = Vec::new();
    let parents = std::iter::once(roots.clone()).chain(children.iter().cloned());
    for siblings in parents {
        if siblings.iter().any(|&i| taken[i]) {
            continue;
        }
        let mut by_shape: Vec<(Shape, Vec<Vec<usize>>)> = Vec::new();
        for &child in &siblings {
            let order = subtree(child);
            let Some(key) = shape(&order) else {
                continue;
            };
            match by_shape.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(order),
                None => by_shape.push((key, vec![order])),
            }
        }
        for (_, members) in by_shape.into_iter().filter(|(_, m)| m.len() > 1) {
            for &i in members.iter().flatten() {
                taken[i] = true;
            }
            groups.push(members);
        }
    }
    let mut renamings = vec![HashMap::new()];
    for members in &groups {
        let matchings = matchings(members.len());
        let mut combined = Vec::new();
        for base in &renamings {
            for matching in &matchings {
                let mut rename: HashMap<Input, Input> = base.clone();
                for &(a, b) in matching {
                    rename_branch(mechanism, &members[a], &members[b], &mut rename);
                }
                combined.push(rename);
            }
        }
        combined.truncate(MOST_RENAMINGS);
        renamings = combined;
    }
    renamings.retain(|rename| !rename.is_empty());
    renamings
}

/// The ways to pair up `n` branches: every perfect matching of up to four
/// (one branch left over where `n` is odd), consecutive pairs beyond.
fn matchings(n: usize) -> Vec<Vec<(usize, usize)>> {
    match n {
        2 => vec![vec![(0, 1)]],
        3 => vec![vec![(0, 1)], vec![(0, 2)], vec![(1, 2)]],
        4 => vec![
            vec![(0, 1), (2, 3)],
            vec![(0, 2), (1, 3)],
            vec![(0, 3), (1, 2)],
        ],
        _ => vec![(0..n / 2).map(|k| (2 * k, 2 * k + 1)).collect()],
    }
}

/// Adds to `rename` the inputs of branch `from` (its bodies in depth-first
/// order) renamed to those of branch `to`, body for body.
fn rename_branch(
    mechanism: &Mechanism,
    from: &[usize],
    to: &[usize],
    rename: &mut HashMap<Input, Input>,
) {
    for (&a, &b) in from.iter().zip(to) {
        let (a, b) = (&mechanism.bodies[a], &mechanism.bodies[b]);
        for k in 0..a.kind.nq() {
            rename.insert(
                Input::Position(a.position + k),
                Input::Position(b.position + k),
            );
        }
        for k in 0..a.kind.nv() {
            let (i, j) = (a.velocity + k, b.velocity + k);
            rename.insert(Input::Velocity(i), Input::Velocity(j));
            rename.insert(Input::Acceleration(i), Input::Acceleration(j));
            rename.insert(Input::Force(i), Input::Force(j));
        }
    }
}
