//! `[forces]` against the mechanism: every key is a velocity coordinate and
//! every name in an expression is a parameter, `t`, a position coordinate or
//! a velocity coordinate with `_dot` — and none of those means two things.

use crate::document::Document;
use crate::error::Problem;
use crate::expr::{Expr, ExprKind};
use crate::model::AppliedForce;
use crate::suggest::did_you_mean;

const TIME: &str = AppliedForce::TIME;
const RATE_SUFFIX: &str = AppliedForce::RATE_SUFFIX;

pub(super) fn check(document: &Document) -> Result<(), Problem> {
    if document.forces.is_empty() {
        return Ok(());
    }
    let (positions, velocities) = document.coordinate_names();
    let rates: Vec<String> = velocities
        .iter()
        .map(|v| format!("{v}{RATE_SUFFIX}"))
        .collect();
    for parameter in &document.parameters {
        let clash = if parameter.name == TIME {
            Some("time `t`".to_owned())
        } else if positions.contains(&parameter.name) {
            Some(format!("the position coordinate `{}`", parameter.name))
        } else if rates.contains(&parameter.name) {
            Some(format!("the rate `{}`", parameter.name))
        } else {
            None
        };
        if let Some(clash) = clash {
            return Err(Problem::new(
                parameter.span,
                format!(
                    "parameter `{}` has the name of {clash}, which [forces] reads",
                    parameter.name
                ),
                "ambiguous in [forces]",
                "rename the parameter",
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for force in &document.forces {
        if !velocities.contains(&force.coordinate) {
            return Err(Problem::new(
                force.span,
                format!(
                    "unknown coordinate `{}` in [forces]{}",
                    force.coordinate,
                    did_you_mean(&force.coordinate, velocities.iter().map(String::as_str))
                ),
                "not a velocity coordinate",
                format!(
                    "[forces] takes the velocity coordinates: {}",
                    velocities.join(", ")
                ),
            ));
        }
        if seen.contains(&force.coordinate.as_str()) {
            return Err(Problem::new(
                force.span,
                format!("force `{}` is given twice", force.coordinate),
                "again",
                "give one expression per coordinate",
            ));
        }
        seen.push(&force.coordinate);
        names(&force.value, &mut |name, at| {
            let known = name == TIME
                || positions.iter().any(|p| p == name)
                || rates.iter().any(|r| r == name)
                || document.parameters.iter().any(|p| p.name == name);
            if known {
                return Ok(());
            }
            let candidates = document
                .parameters
                .iter()
                .map(|p| p.name.as_str())
                .chain(positions.iter().map(String::as_str))
                .chain(rates.iter().map(String::as_str))
                .chain([TIME]);
            Err(Problem::new(
                at.span,
                format!(
                    "unknown name `{name}` in force `{}`{}",
                    force.coordinate,
                    did_you_mean(name, candidates)
                ),
                "not a parameter, coordinate, rate or time",
                "force expressions read parameters, `t`, position coordinates by name and \
                 velocities as `<velocity coordinate>_dot`",
            ))
        })?;
    }
    Ok(())
}

/// Calls `visit` with every name an expression reads.
fn names(
    expr: &Expr,
    visit: &mut impl FnMut(&str, &Expr) -> Result<(), Problem>,
) -> Result<(), Problem> {
    match &expr.kind {
        ExprKind::Number(_) | ExprKind::Pi => Ok(()),
        ExprKind::Parameter(name) => visit(name, expr),
        ExprKind::Neg(a) | ExprKind::Pow(a, _) | ExprKind::Call(_, a) => names(a, visit),
        ExprKind::Add(a, b) | ExprKind::Sub(a, b) | ExprKind::Mul(a, b) | ExprKind::Div(a, b) => {
            names(a, visit)?;
            names(b, visit)
        }
    }
}
