//! Test support.

pub mod telegin;
