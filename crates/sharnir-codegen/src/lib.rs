//! Rust emission.
