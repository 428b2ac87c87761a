//! The one-call path from a mechanism to its module: plan, then render the
//! module itself (not its twins), for callers that want the text.

use crate::error::EmitError;
use crate::method::Method;
use crate::plan::{plan, PlanOptions, Variant};
use crate::vocabulary::GeneratedModule;
use sharnir_mech::Mechanism;

/// Derives and emits every function of the module for `mechanism`, each
/// dynamics output by the formalism whose emitted code is cheapest (see
/// [`mod@crate::plan`]); every formalism is verified against the others by the
/// test suite. Folded modules get the suffix `_folded` so both variants can
/// live side by side.
pub fn generate(mechanism: &mut Mechanism) -> Result<GeneratedModule, EmitError> {
    plan(mechanism, &PlanOptions::default())?.render(Variant::PLAIN)
}

/// [`generate`] with the dynamics outputs derived by `method` (see
/// [`crate::method`] for which outputs each method produces).
pub fn generate_with(
    mechanism: &mut Mechanism,
    method: Method,
) -> Result<GeneratedModule, EmitError> {
    let options = PlanOptions {
        method: Some(method),
        ..PlanOptions::default()
    };
    plan(mechanism, &options)?.render(Variant::PLAIN)
}
