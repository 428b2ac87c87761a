//! Numeric evaluation, used to validate values and to report parameter
//! values; never part of the derivation itself.

use super::{Expr, ExprKind, Function};
use crate::error::Problem;
use crate::model::{Parameter, ParameterValue};
use crate::source::Span;
use crate::suggest::did_you_mean;
use std::collections::{BTreeMap, HashMap};

/// The value of `expr` with parameters looked up in `values`. Fails at the
/// innermost sub-expression that is not finite (or names an unknown
/// parameter), saying why.
pub(crate) fn evaluate(expr: &Expr, values: &BTreeMap<String, f64>) -> Result<f64, Problem> {
    let value = match &expr.kind {
        ExprKind::Number(x) => *x,
        ExprKind::Pi => std::f64::consts::PI,
        ExprKind::Parameter(name) => *values
            .get(name)
            .ok_or_else(|| unknown_parameter(name, expr.span, values.keys().map(String::as_str)))?,
        ExprKind::Neg(a) => -evaluate(a, values)?,
        ExprKind::Add(a, b) => evaluate(a, values)? + evaluate(b, values)?,
        ExprKind::Sub(a, b) => evaluate(a, values)? - evaluate(b, values)?,
        ExprKind::Mul(a, b) => evaluate(a, values)? * evaluate(b, values)?,
        ExprKind::Div(a, b) => {
            let (numerator, denominator) = (evaluate(a, values)?, evaluate(b, values)?);
            if denominator == 0.0 {
                return Err(not_finite(expr, "division by zero", values));
            }
            numerator / denominator
        }
        ExprKind::Pow(a, n) => {
            let base = evaluate(a, values)?;
            if base == 0.0 && *n < 0 {
                return Err(not_finite(expr, "zero to a negative power", values));
            }
            base.powi(*n)
        }
        ExprKind::Call(f, a) => {
            let x = evaluate(a, values)?;
            match f {
                Function::Sin => x.sin(),
                Function::Cos => x.cos(),
                Function::Sqrt if x < 0.0 => {
                    return Err(not_finite(expr, "square root of a negative number", values));
                }
                Function::Sqrt => x.sqrt(),
            }
        }
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(not_finite(
            expr,
            "the value overflows or is not a number",
            values,
        ))
    }
}

/// A reference to a name that is not a parameter, with a hint from the
/// names that are.
fn unknown_parameter<'n>(
    name: &str,
    at: Span,
    known: impl IntoIterator<Item = &'n str>,
) -> Problem {
    Problem::new(
        at,
        format!("unknown parameter `{name}`{}", did_you_mean(name, known)),
        "not declared in [parameters]",
        format!("declare it in [parameters], e.g. `{name} = 1.0`"),
    )
}

fn not_finite(expr: &Expr, reason: &str, values: &BTreeMap<String, f64>) -> Problem {
    let mut used: Vec<String> = Vec::new();
    for (name, _) in expr.parameters() {
        let binding = format!("{name} = {}", values.get(name).copied().unwrap_or(f64::NAN));
        if !used.contains(&binding) {
            used.push(binding);
        }
    }
    let help = if used.is_empty() {
        "every value must be a finite number".to_owned()
    } else {
        format!(
            "evaluated with {}; check these parameter values",
            used.join(", ")
        )
    };
    Problem::new(
        expr.span,
        format!("value is not finite: {reason}"),
        reason,
        help,
    )
}

/// Every parameter's value, derived ones after the parameters they use,
/// together with the first problem met (an unknown name, a cycle, a value
/// that is not finite). Evaluation stops at that problem.
pub(crate) fn evaluate_parameters(
    parameters: &[Parameter],
) -> (BTreeMap<String, f64>, Option<Problem>) {
    let mut values = BTreeMap::new();
    let order = match dependency_order(parameters) {
        Ok(order) => order,
        Err(problem) => return (values, Some(problem)),
    };
    // How deep each parameter's tree is once the derived parameters it uses
    // are written out, as `sharnir-mech` inlines them.
    let mut depths: HashMap<&str, usize> = HashMap::new();
    for parameter in order.into_iter().filter_map(|i| parameters.get(i)) {
        let value = match &parameter.value {
            ParameterValue::Number(x) => *x,
            ParameterValue::Derived(expr) => {
                let depth = inlined_depth(expr, &depths);
                if depth > MAX_INLINED_DEPTH {
                    return (values, Some(too_deep(parameter, expr)));
                }
                depths.insert(&parameter.name, depth);
                match evaluate(expr, &values) {
                    Ok(x) => x,
                    Err(problem) => return (values, Some(problem)),
                }
            }
        };
        values.insert(parameter.name.clone(), value);
    }
    (values, None)
}

/// The deepest a derived parameter's expression may be once the derived
/// parameters it uses are substituted (as `sharnir-mech` does): the limit of
/// an expression written out, so that every recursive walk of the lowered
/// expressions stays as shallow as one of the parser allows.
const MAX_INLINED_DEPTH: usize = super::parser::MAX_DEPTH;

/// The depth of `expr` with every parameter replaced by its definition,
/// whose depth `depths` holds (numbers count as leaves). Recursive only
/// over `expr` itself, which the parser bounds.
fn inlined_depth(expr: &Expr, depths: &HashMap<&str, usize>) -> usize {
    match &expr.kind {
        ExprKind::Number(_) | ExprKind::Pi => 1,
        ExprKind::Parameter(name) => depths.get(name.as_str()).copied().unwrap_or(1),
        ExprKind::Neg(a) | ExprKind::Pow(a, _) | ExprKind::Call(_, a) => {
            1 + inlined_depth(a, depths)
        }
        ExprKind::Add(a, b) | ExprKind::Sub(a, b) | ExprKind::Mul(a, b) | ExprKind::Div(a, b) => {
            1 + inlined_depth(a, depths).max(inlined_depth(b, depths))
        }
    }
}

/// A derived parameter nested too deeply through the parameters it uses.
fn too_deep(parameter: &Parameter, expr: &Expr) -> Problem {
    Problem::new(
        expr.span,
        format!(
            "derived parameter `{}` is nested too deeply once the derived parameters it uses \
             are written out (more than {MAX_INLINED_DEPTH} levels)",
            parameter.name
        ),
        "too deeply nested",
        "each derived parameter adds the depth of its definition to the ones that use it: \
         give some parameter in the chain a number, or write the expression more flatly",
    )
}

/// Parameter indices ordered so that every derived parameter comes after the
/// parameters its definition uses; fails on unknown names and on cycles.
/// Iterative, so long chains of derived parameters cannot overflow the stack.
fn dependency_order(parameters: &[Parameter]) -> Result<Vec<usize>, Problem> {
    let index: HashMap<&str, usize> = parameters
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    let dependencies = |i: usize| -> Result<Vec<(usize, Span)>, Problem> {
        let Some(Parameter {
            value: ParameterValue::Derived(expr),
            ..
        }) = parameters.get(i)
        else {
            return Ok(Vec::new());
        };
        expr.parameters()
            .into_iter()
            .map(|(name, span)| {
                index
                    .get(name)
                    .map(|&j| (j, span))
                    .ok_or_else(|| unknown_parameter(name, span, index.keys().copied()))
            })
            .collect()
    };
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    let mut state = vec![State::New; parameters.len()];
    let mut order = Vec::with_capacity(parameters.len());
    for root in 0..parameters.len() {
        if state.get(root) != Some(&State::New) {
            continue;
        }
        let mut stack = vec![(root, dependencies(root)?, 0_usize)];
        state[root] = State::Visiting;
        while let Some((node, edges, next)) = stack.last_mut() {
            let Some(&(j, reference)) = edges.get(*next) else {
                state[*node] = State::Done;
                order.push(*node);
                stack.pop();
                continue;
            };
            *next += 1;
            match state.get(j) {
                Some(State::New) => {
                    state[j] = State::Visiting;
                    stack.push((j, dependencies(j)?, 0));
                }
                Some(State::Visiting) => {
                    let start = stack.iter().position(|(n, ..)| *n == j).unwrap_or(0);
                    let cycle = stack
                        .iter()
                        .skip(start)
                        .map(|(n, ..)| *n)
                        .chain(std::iter::once(j));
                    let names: Vec<&str> = cycle
                        .filter_map(|n| parameters.get(n))
                        .map(|p| p.name.as_str())
                        .collect();
                    let name = names.first().copied().unwrap_or_default();
                    return Err(Problem::new(
                        reference,
                        format!(
                            "parameter `{name}` is defined in terms of itself: {}",
                            names.join(" → ")
                        ),
                        format!("`{name}` is used here"),
                        "break the cycle: give one of these parameters a number",
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{parse_expression, Placement};

    fn value(text: &str, values: &[(&str, f64)]) -> Result<f64, String> {
        let values: BTreeMap<String, f64> =
            values.iter().map(|&(n, v)| (n.to_owned(), v)).collect();
        let expr = parse_expression(text, Placement::At(0)).map_err(|p| p.message)?;
        evaluate(&expr, &values).map_err(|p| format!("{} at {}", p.message, p.span.offset))
    }

    #[test]
    fn arithmetic_follows_the_grammar() {
        let close = |text: &str, want: f64| {
            let got = value(text, &[("x", 3.0), ("L", 0.5)]).unwrap_or(f64::NAN);
            assert!(
                (got - want).abs() <= 1e-15 * want.abs().max(1.0),
                "{text}: {got} vs {want}"
            );
        };
        close("-x^2", -9.0);
        close("x^-2", 1.0 / 9.0);
        close("2 * pi * L", std::f64::consts::PI);
        close("sqrt(x^2 + 16)", 5.0);
        close("sin(pi/6) + cos(pi/3)", 1.0);
        close("x - 1 - 1", 1.0);
        close("12 / x / 2", 2.0);
    }

    #[test]
    fn failures_name_the_innermost_culprit() {
        assert_eq!(
            value("1 + x / (L - 0.5)", &[("x", 1.0), ("L", 0.5)]),
            Err("value is not finite: division by zero at 4".into())
        );
        assert_eq!(
            value("2 * sqrt(-x)", &[("x", 1.0)]),
            Err("value is not finite: square root of a negative number at 4".into())
        );
        assert_eq!(
            value("(x - 1)^-2", &[("x", 1.0)]),
            Err("value is not finite: zero to a negative power at 0".into())
        );
        assert_eq!(
            value("1e200 * 1e200", &[]),
            Err("value is not finite: the value overflows or is not a number at 0".into())
        );
        assert_eq!(
            value("y + 1", &[("y0", 1.0)]),
            Err("unknown parameter `y` (did you mean `y0`?) at 0".into())
        );
    }
}
