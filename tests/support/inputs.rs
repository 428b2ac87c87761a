//! One state's symbol values, as the plan's programs and the derivations
//! read them (`Plan::evaluate`, `Pool::eval`).

use sharnir_mech::Input;
use std::collections::BTreeMap;

/// Symbol values: parameters by name, the state's arrays by index. An input
/// a derivation should not read (`qdd` in forward dynamics, `tau` in inverse
/// dynamics) is given as an empty slice, so reading it fails the evaluation;
/// anything else (the emitter's hoisted constant groups) is not an input of
/// the symbolic derivations either.
pub fn environment<'a>(
    values: &'a BTreeMap<String, f64>,
    q: &'a [f64],
    qd: &'a [f64],
    qdd: &'a [f64],
    tau: &'a [f64],
) -> impl Fn(&Input) -> Option<f64> + 'a {
    move |symbol| match symbol {
        Input::Parameter(name) => values.get(name).copied(),
        Input::Position(i) => q.get(*i).copied(),
        Input::Velocity(i) => qd.get(*i).copied(),
        Input::Acceleration(i) => qdd.get(*i).copied(),
        Input::Force(i) => tau.get(*i).copied(),
        _ => None,
    }
}
