//! The spec's bodies and joints as the mechanism graph of `sharnir-graph`:
//! body 0 is the ground, body `i + 1` the spec's `i`-th body, and arc `a`
//! the spec's `a`-th joint, from its parent to its child. Validation (which
//! marks the cut joints) and the derivations (which walk the tree) number
//! the graph here, so they cannot disagree.

use crate::model::{Body, Joint};
use sharnir_graph::Arc;
use std::collections::HashMap;

/// The graph index of the body called `name` (`ground` is 0), if any.
pub fn body_index(bodies: &[Body], name: &str) -> Option<usize> {
    if name == "ground" {
        Some(0)
    } else {
        bodies.iter().position(|b| b.name == name).map(|i| i + 1)
    }
}

/// The arc of every joint, parent to child. A name that is not a body maps
/// to the ground: validation refuses such joints before the graph is built.
pub fn joint_arcs(bodies: &[Body], joints: &[Joint]) -> Vec<Arc> {
    let index: HashMap<&str, usize> = std::iter::once("ground")
        .chain(bodies.iter().map(|b| b.name.as_str()))
        .enumerate()
        .map(|(i, name)| (name, i))
        .collect();
    let body = |name: &str| index.get(name).copied().unwrap_or(0);
    joints
        .iter()
        .map(|j| Arc::new(body(&j.parent), body(&j.child)))
        .collect()
}
