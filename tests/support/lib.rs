//! Test support: independent numeric oracles and reimplementations of
//! published formulas, shared by the end-to-end tests.

pub mod base_parameters;
pub mod chains;
pub mod derivatives;
pub mod drives;
pub mod geometry;
pub mod implicit;
pub mod inputs;
pub mod loop_oracle;
pub mod momentum;
pub mod oracle;
pub mod pinocchio;
pub mod processor;
pub mod random_loop_spec;
pub mod random_spec;
pub mod spec_tree;
pub mod telegin;
