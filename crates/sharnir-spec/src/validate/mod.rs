//! Checks that need the whole document but not the mechanism graph:
//! names, references between tables, and numeric values.

mod inertia;
mod names;
mod references;
mod values;

use crate::document::Document;
use crate::error::Problem;

/// Validates `document` (read from `text`), returning the first problem.
pub(crate) fn check(document: &Document, text: &str) -> Result<(), Problem> {
    names::check(document, text)?;
    references::check(document)?;
    values::check(document)
}
