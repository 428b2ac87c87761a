//! Every module generated from `specs/`, compiled together as one `no_std` crate.
//! Do not edit: `cargo xtask gen --all` rewrites this file.

#![no_std]

pub mod chain10;
pub mod chain10_folded;
pub mod puma560;
pub mod puma560_folded;
pub mod telegin3_cartesian;
pub mod telegin3_cartesian_folded;
pub mod telegin3_cylindrical;
pub mod telegin3_cylindrical_folded;
pub mod telegin6;
pub mod telegin6_folded;
pub mod triple_pendulum;
pub mod triple_pendulum_folded;
