//! Checks that need the whole document but not the mechanism graph:
//! names, references between tables, and numeric values.

mod forces;
mod inertia;
mod initial;
mod names;
mod references;
mod values;

use crate::document::Document;
use crate::error::Problem;

/// Validates `document` (read from `text`), returning the first problem.
pub(crate) fn check(document: &Document, text: &str) -> Result<(), Problem> {
    names::check(document, text)?;
    references::check(document)?;
    values::check(document)?;
    forces::check(document)?;
    let (values, _) = crate::expr::evaluate_parameters(&document.parameters);
    initial::check(document, &values)
}

/// The initial positions and velocities of a validated document, in
/// coordinate order (see [`crate::Spec::initial_positions`]).
pub(crate) fn initial_state(document: &Document) -> (Vec<f64>, Vec<f64>) {
    let (values, _) = crate::expr::evaluate_parameters(&document.parameters);
    initial::state(document, &values)
}
