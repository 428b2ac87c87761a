//! Test support: independent numeric oracles and reimplementations of
//! published formulas, shared by the end-to-end tests.

pub mod oracle;
pub mod pinocchio;
pub mod random_spec;
pub mod telegin;
