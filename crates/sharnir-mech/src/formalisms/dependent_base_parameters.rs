//! Base parameters that are combinations of others as functions of the
//! standard parameters, merged into them, so that there are as many base
//! parameters as the standard regressor has rank.
//!
//! Khalil and Kleinfinger's rules regroup a body's inertia entry by entry
//! about its joint's axis. When that axis is not a coordinate axis of the
//! body, two regrouped entries can be one combination of the standard
//! parameters (`platform.1.xx_r = platform.xx` and `platform.1.zz_r =
//! platform.xx`): their columns are independent, but no inertia can set
//! them apart, so `Y_b` has a column more than the rank. A base parameter
//! `β_d = Σ c_j β_j` for every `π` leaves
//! `Y_b β = Σ_j (Y_j + c_j Y_d) β_j`: it is dropped, its column added to
//! theirs with those weights, and its carriers shared among them.
//!
//! The dependencies are found by the column classification of
//! [`crate::formalisms::column_selection`] applied to the formulas'
//! coefficients, evaluated at the spec's runtime parameters and at
//! perturbed ones side by side: a dependency found there has coefficients
//! that do not change with the geometry.

use crate::formalisms::column_selection::{classify, reproduces, Column};
use crate::formalisms::regressor_sampling::{perturbed_values, spec_values, PERTURBED_GEOMETRIES};
use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::{Coeff, Id, UnboundSymbol};
use std::collections::HashMap;

/// Merges every base parameter that is a combination of earlier ones into
/// them: `formulas[j]` is parameter `j`'s formula over `standard` standard
/// parameters, `columns[j]` its column of `Y_b` and `carriers[j]` its
/// weighted carriers, which a merged parameter's are added to. Returns,
/// per parameter, whether it was merged (and is to be dropped).
pub(crate) fn merge<T: Copy>(
    mechanism: &mut Mechanism,
    formulas: &[Vec<(usize, Id)>],
    standard: usize,
    columns: &mut [Vec<Id>],
    carriers: &mut [Vec<(T, Coeff)>],
) -> Result<Vec<bool>, UnboundSymbol> {
    let coefficients = formula_coefficients(mechanism, formulas, standard)?;
    let classes = classify(&coefficients);
    let mut merged = vec![false; formulas.len()];
    for (d, class) in classes.iter().enumerate() {
        let terms: Vec<(usize, Coeff)> = match class {
            Column::Independent => continue,
            Column::Zero => Vec::new(),
            Column::Combination(terms) => terms.clone(),
            Column::Inexact(terms) => {
                if !reproduces(&coefficients[d], &coefficients, terms) {
                    continue;
                }
                terms
                    .iter()
                    .filter(|(_, c)| *c != 0.0)
                    .map(|&(j, c)| (j, Coeff::inexact(c)))
                    .collect()
            }
        };
        merged[d] = true;
        let (column, shared) = (columns[d].clone(), carriers[d].clone());
        let pool = &mut mechanism.pool;
        for (j, c) in terms {
            for (entry, &extra) in columns[j].iter_mut().zip(&column) {
                let weighted = pool.scale(c, extra);
                *entry = pool.add(*entry, weighted);
            }
            carriers[j].extend(shared.iter().map(|&(carrier, w)| (carrier, w * c)));
        }
    }
    Ok(merged)
}

/// Each formula as one vector: its coefficient of every standard parameter
/// at the spec's runtime parameters, then at each perturbed geometry.
fn formula_coefficients(
    mechanism: &Mechanism,
    formulas: &[Vec<(usize, Id)>],
    standard: usize,
) -> Result<Vec<Vec<f64>>, UnboundSymbol> {
    let mut geometries = vec![spec_values(mechanism)];
    geometries.extend((1..=PERTURBED_GEOMETRIES).map(|draw| perturbed_values(mechanism, draw)));
    let mut vectors = vec![Vec::with_capacity(standard * geometries.len()); formulas.len()];
    for values in &geometries {
        let env = |symbol: &Input| match symbol {
            Input::Parameter(name) => values.get(name.as_str()).copied(),
            _ => None,
        };
        for (vector, formula) in vectors.iter_mut().zip(formulas) {
            let ids: Vec<Id> = formula.iter().map(|&(_, c)| c).collect();
            let at: HashMap<usize, f64> = formula
                .iter()
                .map(|&(k, _)| k)
                .zip(mechanism.pool.eval(&ids, &env)?)
                .collect();
            vector.extend((0..standard).map(|k| at.get(&k).copied().unwrap_or(0.0)));
        }
    }
    Ok(vectors)
}
