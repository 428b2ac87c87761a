//! `outputs` in `[mechanism]`: the standard functions the generated module
//! has (`sharnir gen --outputs` in the spec), checked by name here so that a
//! misspelling is reported at its place in the file like every other key.

use super::fields::{string, wrong_type};
use crate::error::Problem;
use crate::suggest::did_you_mean;
use crate::toml_tree::{Node, Value};

/// The standard functions of a generated module that `outputs` can name,
/// in emission order (the same list as `sharnir-codegen`'s
/// `plan::outputs::Function`, which a test of that crate compares).
pub const OUTPUT_NAMES: [&str; 19] = [
    "inverse_dynamics",
    "mass_matrix",
    "bias",
    "gravity",
    "joint_space",
    "forward_dynamics",
    "coriolis_matrix",
    "energy",
    "body_poses",
    "coordinate_rates",
    "body_jacobians",
    "inverse_dynamics_derivatives",
    "gravity_derivatives",
    "mass_matrix_inverse",
    "forward_dynamics_derivatives",
    "standard_regressor",
    "base_parameters",
    "regressor",
    "base_inverse_dynamics",
];

/// The words `outputs` takes besides the names: every function, or every
/// function whose size grows linearly.
const SETS: [&str; 2] = ["all", "linear"];

/// The names of `outputs = [...]`, each a function or `all` or `linear`.
pub(super) fn read(node: &Node) -> Result<Vec<String>, Problem> {
    let Value::Array(items) = &node.value else {
        return Err(wrong_type(node, "`outputs`", "an array of output names"));
    };
    let valid = || SETS.into_iter().chain(OUTPUT_NAMES);
    let help = || {
        format!(
            "the outputs are: {}",
            valid().collect::<Vec<_>>().join(", ")
        )
    };
    if items.is_empty() {
        return Err(Problem::new(
            node.span,
            "`outputs` is empty",
            "a module needs at least one output",
            format!(
                "name some, or leave `outputs` out for every one; {}",
                help()
            ),
        ));
    }
    items
        .iter()
        .map(|item| {
            let name = string(item, "each output")?;
            if valid().any(|v| v == name) {
                Ok(name.to_owned())
            } else {
                Err(Problem::new(
                    item.span,
                    format!("unknown output `{name}`{}", did_you_mean(name, valid())),
                    "not a function of generated modules",
                    help(),
                ))
            }
        })
        .collect()
}
