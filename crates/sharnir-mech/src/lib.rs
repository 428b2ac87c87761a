//! Mechanism graph and derivations.

pub mod graph;
