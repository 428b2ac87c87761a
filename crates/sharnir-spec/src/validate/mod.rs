//! Checks that need the whole document: names, references between tables,
//! numeric values, and the mechanism graph's cut joints (which decide the
//! coordinates that `[initial]`, `[forces]`, `[motion]` and `independent`
//! name).

mod base;
mod contacts;
mod detach;
mod forces;
mod independent;
mod inertia;
mod initial;
mod motion;
mod names;
mod references;
mod topology;
mod values;

use crate::document::Document;
use crate::error::Problem;

/// Validates `document` (read from `text`) and marks its cut joints,
/// returning the first problem.
pub(crate) fn check(document: &mut Document, text: &str) -> Result<(), Problem> {
    names::check(document, text)?;
    references::check(document)?;
    values::check(document)?;
    topology::mark_cut_joints(document)?;
    independent::check(document)?;
    forces::check(document)?;
    let (values, _) = crate::expr::evaluate_parameters(&document.parameters);
    contacts::check(document, &values)?;
    detach::check(document, &values)?;
    motion::check(document, &values)?;
    base::check(document, &values)?;
    initial::check(document, &values)
}

/// The initial positions and velocities of a validated document, in
/// coordinate order (see [`crate::Spec::initial_positions`]).
pub(crate) fn initial_state(document: &Document) -> (Vec<f64>, Vec<f64>) {
    let (values, _) = crate::expr::evaluate_parameters(&document.parameters);
    let (mut q, mut v) = initial::state(document, &values);
    let (positions, velocities) = document.coordinate_names();
    for law in &document.motion {
        if let Ok([position, rate, _]) = motion::start(&law.coordinate, &law.law, &values) {
            if let Some(i) = positions.iter().position(|n| *n == law.coordinate) {
                q[i] = position;
            }
            if let Some(i) = velocities.iter().position(|n| *n == law.coordinate) {
                v[i] = rate;
            }
        }
    }
    (q, v)
}
