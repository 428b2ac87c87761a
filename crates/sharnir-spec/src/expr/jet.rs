//! A law of time evaluated with its first two derivatives (a second-order
//! jet, forward mode): what `[motion]` validation checks for twice
//! differentiability at the start and what the initial state of a
//! prescribed coordinate is taken from.
//!
//! The derivation differentiates the laws symbolically in `sharnir-mech`;
//! this numeric path is separate from it on purpose.

use super::{Expr, ExprKind, Function};
use crate::error::Problem;
use std::collections::BTreeMap;

/// `(f, ḟ, f̈)` at one instant.
pub(crate) type Jet = [f64; 3];

/// The law `expr` of `time` (the name of time) and parameters at `t`:
/// its value, rate and acceleration. Fails at the innermost
/// sub-expression whose value or derivatives are not finite there, with
/// `what` (e.g. "the law of `crank`") in the message.
pub(crate) fn jet(
    expr: &Expr,
    values: &BTreeMap<String, f64>,
    time: &str,
    t: f64,
    what: &str,
) -> Result<Jet, Problem> {
    let fail = |at: &Expr, reason: &str| {
        Problem::new(
            at.span,
            format!("{what} is not twice differentiable at t = {t}: {reason}"),
            reason.to_owned(),
            "a prescribed coordinate needs a finite position, rate and acceleration; \
             shift the law (e.g. `sqrt(t + t0)`) or change the parameters",
        )
    };
    let [a0, a1, a2] = match &expr.kind {
        ExprKind::Number(x) => [*x, 0.0, 0.0],
        ExprKind::Pi => [std::f64::consts::PI, 0.0, 0.0],
        ExprKind::Parameter(name) if name == time => [t, 1.0, 0.0],
        ExprKind::Parameter(name) => match values.get(name) {
            Some(&x) => [x, 0.0, 0.0],
            None => return Err(fail(expr, "unknown parameter")),
        },
        ExprKind::Neg(a) => jet(a, values, time, t, what)?.map(|x| -x),
        ExprKind::Add(a, b) | ExprKind::Sub(a, b) => {
            let (a, b) = (
                jet(a, values, time, t, what)?,
                jet(b, values, time, t, what)?,
            );
            let sign = if matches!(expr.kind, ExprKind::Add(..)) {
                1.0
            } else {
                -1.0
            };
            [0, 1, 2].map(|k| a[k] + sign * b[k])
        }
        ExprKind::Mul(a, b) => product(
            jet(a, values, time, t, what)?,
            jet(b, values, time, t, what)?,
        ),
        ExprKind::Div(a, b) => {
            let (a, b) = (
                jet(a, values, time, t, what)?,
                jet(b, values, time, t, what)?,
            );
            if b[0] == 0.0 {
                return Err(fail(expr, "division by zero"));
            }
            let r = 1.0 / b[0];
            product(
                a,
                [r, -b[1] * r * r, (2.0 * b[1] * b[1] * r - b[2]) * r * r],
            )
        }
        ExprKind::Pow(a, n) => {
            let a = jet(a, values, time, t, what)?;
            if a[0] == 0.0 && *n < 0 {
                return Err(fail(expr, "zero to a negative power"));
            }
            let n = f64::from(*n);
            let power = |k: f64| if k == 0.0 { 1.0 } else { a[0].powf(k) };
            let first = if n == 0.0 { 0.0 } else { n * power(n - 1.0) };
            let second = if n == 0.0 || n == 1.0 {
                0.0
            } else {
                n * (n - 1.0) * power(n - 2.0)
            };
            chain(a, power(n), first, second)
        }
        ExprKind::Call(f, a) => {
            let a = jet(a, values, time, t, what)?;
            let (s, c) = a[0].sin_cos();
            match f {
                Function::Sin => chain(a, s, c, -s),
                Function::Cos => chain(a, c, -s, -c),
                Function::Sqrt if a[0] <= 0.0 && (a[0] < 0.0 || a[1] != 0.0 || a[2] != 0.0) => {
                    return Err(fail(expr, "square root at or below zero"));
                }
                Function::Sqrt if a[0] == 0.0 => [0.0; 3],
                Function::Sqrt => {
                    let root = a[0].sqrt();
                    chain(a, root, 0.5 / root, -0.25 / (root * a[0]))
                }
            }
        }
    };
    if [a0, a1, a2].iter().all(|x| x.is_finite()) {
        Ok([a0, a1, a2])
    } else {
        Err(fail(expr, "the value or a derivative is not finite"))
    }
}

/// The jet of a product.
fn product(a: Jet, b: Jet) -> Jet {
    [
        a[0] * b[0],
        a[1] * b[0] + a[0] * b[1],
        a[2] * b[0] + 2.0 * a[1] * b[1] + a[0] * b[2],
    ]
}

/// The jet of `g(a)` from `g`, `g′` and `g″` at `a`'s value.
fn chain(a: Jet, g: f64, first: f64, second: f64) -> Jet {
    [g, first * a[1], second * a[1] * a[1] + first * a[2]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse_expression;

    fn at(text: &str, t: f64) -> Result<Jet, Problem> {
        let expr = parse_expression(text, crate::expr::Placement::At(0))
            .expect("the test's expression parses");
        let values = BTreeMap::from([("w".to_owned(), 2.0), ("a".to_owned(), 0.5)]);
        jet(&expr, &values, "t", t, "the law")
    }

    /// Every rule against finite differences of the value.
    #[test]
    fn derivatives_match_finite_differences() {
        let laws = [
            "a*sin(w*t) + t^3",
            "cos(w*t)^2 / (1 + t^2)",
            "sqrt(1 + a*t^2) - t/(2 + sin(t))",
            "-(t - a)^-2 + pi*t",
        ];
        for law in laws {
            for t in [0.0, 0.3, 1.7] {
                let value = |t: f64| at(law, t).map(|j| j[0]).unwrap_or(f64::NAN);
                let h = 1e-4;
                let [_, rate, acceleration] = at(law, t).unwrap_or([f64::NAN; 3]);
                let fd_rate = (value(t + h) - value(t - h)) / (2.0 * h);
                let fd_acceleration = (value(t + h) - 2.0 * value(t) + value(t - h)) / (h * h);
                // Central differences' truncation and rounding errors.
                let close =
                    |a: f64, b: f64, tolerance: f64| (a - b).abs() < tolerance * a.abs().max(1.0);
                assert!(
                    close(rate, fd_rate, 1e-6),
                    "{law} at {t}: {rate} vs {fd_rate}"
                );
                assert!(
                    close(acceleration, fd_acceleration, 1e-4),
                    "{law} at {t}: {acceleration} vs {fd_acceleration}"
                );
            }
        }
    }

    #[test]
    fn a_kink_at_the_start_is_refused() {
        for law in ["sqrt(t)", "t^-1", "1/(t - 0)"] {
            let problem = at(law, 0.0).err().map(|p| p.message);
            assert!(
                problem
                    .as_deref()
                    .is_some_and(|m| m.contains("not twice differentiable at t = 0")),
                "{law}: {problem:?}"
            );
        }
        assert_eq!(at("sqrt(t^2)", 1.0).map(|j| j[1]).ok(), Some(1.0));
    }
}
