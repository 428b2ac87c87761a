//! The `.spec` mechanism description: parsing, validation and diagnostics.
//!
//! A spec is a TOML file (format reference: `docs/spec-format.md`) naming
//! parameters, bodies and joints. [`parse`] turns it into a typed [`Spec`]
//! whose every name and expression keeps its source [`Span`], after checking
//! everything that does not need the mechanism graph. Problems come back as
//! a [`SpecError`]: a miette diagnostic whose message starts with
//! `file:line:col`, with the offending characters labelled and a hint.
//!
//! The crate knows no algebra: expressions are a small AST ([`Expr`]) that
//! `sharnir-mech` lowers into its expression pool.

mod base;
mod document;
mod drives;
mod error;
mod expr;
mod expressions;
pub mod graph;
mod model;
mod release;
mod rotation;
mod source;
mod suggest;
mod toml_tree;
mod unused;
mod validate;

pub use document::outputs::OUTPUT_NAMES;
pub use error::SpecError;
pub use expr::{Expr, ExprKind, Function};
pub use model::{
    AppliedForce, Body, Clearance, ContactLaw, Detach, ElementaryRotation, Gear, Independent,
    Inertia, Joint, JointKind, Limits, Mimic, Origin, Parameter, ParameterValue, PrescribedMotion,
    Release, Shape, Spec, Visual, CONTACT_REACH, DEFAULT_FRICTION_SPEED,
};
pub use release::ReleasedStart;
pub use rotation::rotation_quaternion;
pub use source::{Source, Span};

/// Parses and validates a spec: structure, expression syntax, names,
/// references between tables, numeric values, and the mechanism graph
/// (every body connected to the ground; the cut joints that close loops
/// marked). The first problem found is returned.
pub fn parse(source: Source) -> Result<Spec, SpecError> {
    let checked = document::read(&source.text).and_then(|mut document| {
        validate::check(&mut document, &source.text)?;
        base::expand(&mut document);
        Ok(document)
    });
    match checked {
        Ok(document) => {
            let initial = validate::initial_state(&document);
            Ok(document.into_spec(source, initial))
        }
        Err(problem) => Err(problem.into_error(&source)),
    }
}
