//! Spec parsing.
