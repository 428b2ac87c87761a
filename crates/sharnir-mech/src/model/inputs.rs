//! The inputs of derived expressions.
//!
//! Every symbol in a derived expression is an [`Input`]: `sharnir-cas`'s
//! typed [`Symbol`](sharnir_cas::Symbol), which the derivations intern with
//! [`Pool::input`](sharnir_cas::Pool::input) and the emitter matches on, so
//! that no name is formatted here and parsed back there. Its names (`p.m1`,
//! `q[0]`, …) live with it in `sharnir-cas`, for messages and tests.

/// An input of a generated function: a parameter, a coordinate, a velocity,
/// an acceleration, a joint force, a parameter group, time or a multiplier
/// (and, for symbols that are no input, `Named`, which the emitter refuses).
pub use sharnir_cas::Symbol as Input;
