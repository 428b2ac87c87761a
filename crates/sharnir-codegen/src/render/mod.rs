//! Rendering: a plan into the text of a module, each file one part of it
//! (see the crate's map); `module` assembles them (`Plan::render`).

pub(crate) mod body;
pub(crate) mod constrained;
pub(crate) mod constrained_derivatives;
pub(crate) mod constrained_motion;
pub(crate) mod contacts;
pub(crate) mod derived;
pub(crate) mod detachments;
pub(crate) mod dispatch;
pub(crate) mod function;
pub(crate) mod header;
pub(crate) mod lanes;
pub mod linearization;
pub(crate) mod math;
pub(crate) mod module;
pub(crate) mod motion;
pub(crate) mod preamble;
pub(crate) mod result;
