//! Expressions written for people, as mathematics: the coefficients of the
//! base parameters' regrouping formulas in module headers and in
//! `sharnir base-parameters` (`0.4318²`, `d3·cos(alpha)`).
//!
//! Runtime parameters are written by their spec names, numbers to twelve
//! significant digits. Terms of a sum and
//! factors of a product are sorted by their text, so that the text does not
//! depend on the pool's node numbers (which the order of derivations sets).

use sharnir_cas::{Coeff, Id, Node, Pool, Symbol};

/// A coefficient as a sign and a magnitude; `None` for a magnitude of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    /// Whether it is written with a minus sign.
    pub negative: bool,
    /// Its magnitude, parenthesised if a sum; `None` when it is one.
    pub magnitude: Option<String>,
}

/// `id` as a signed coefficient of a product.
pub fn coefficient(pool: &Pool, id: Id) -> Signed {
    match pool.node(id) {
        Node::Num(c) => {
            let magnitude = number(c.to_f64().abs());
            Signed {
                negative: c.to_f64() < 0.0,
                magnitude: (magnitude != "1").then_some(magnitude),
            }
        }
        Node::Add(terms, c0) if terms.len() == 1 && c0.is_zero() => {
            let (t, c) = terms[0];
            let inner = factor(pool, t);
            let magnitude = if c.is_one() || c.is_minus_one() {
                inner
            } else {
                format!("{}·{inner}", number(c.to_f64().abs()))
            };
            Signed {
                negative: c.to_f64() < 0.0,
                magnitude: Some(magnitude),
            }
        }
        _ => Signed {
            negative: false,
            magnitude: Some(factor(pool, id)),
        },
    }
}

/// `id` written out.
pub fn expression(pool: &Pool, id: Id) -> String {
    match pool.node(id) {
        Node::Num(c) => signed_number(*c),
        Node::Pi => "π".to_owned(),
        Node::Symbol(Symbol::Parameter(name)) => name.clone(),
        Node::Symbol(symbol) => symbol.to_string(),
        Node::Add(terms, c0) => {
            let mut parts: Vec<(bool, String)> = terms
                .iter()
                .map(|&(t, c)| {
                    let inner = factor(pool, t);
                    let text = match inner.strip_prefix("1/") {
                        _ if c.is_one() || c.is_minus_one() => inner.clone(),
                        // `3/x`, not `3·1/x`.
                        Some(divisor) => format!("{}/{divisor}", number(c.to_f64().abs())),
                        None => format!("{}·{inner}", number(c.to_f64().abs())),
                    };
                    (c.to_f64() < 0.0, text)
                })
                .collect();
            parts.sort_by(|a, b| a.1.cmp(&b.1));
            if !c0.is_zero() {
                parts.push((c0.to_f64() < 0.0, number(c0.to_f64().abs())));
            }
            let mut text = String::new();
            for (k, (negative, part)) in parts.iter().enumerate() {
                text.push_str(match (k, negative) {
                    (0, false) => "",
                    (0, true) => "−",
                    (_, false) => " + ",
                    (_, true) => " − ",
                });
                text.push_str(part);
            }
            text
        }
        Node::Mul(factors) => {
            let power = |(b, e): (Id, i32)| {
                let base = factor(pool, b);
                match e {
                    1 => base,
                    2 => format!("{base}²"),
                    3 => format!("{base}³"),
                    _ => format!("{base}^{e}"),
                }
            };
            let mut over: Vec<String> = factors
                .iter()
                .filter(|f| f.1 > 0)
                .map(|&f| power(f))
                .collect();
            let mut under: Vec<String> = factors
                .iter()
                .filter(|f| f.1 < 0)
                .map(|&(b, e)| power((b, -e)))
                .collect();
            over.sort();
            under.sort();
            let over = if over.is_empty() {
                "1".to_owned()
            } else {
                over.join("·")
            };
            match under.len() {
                0 => over,
                1 => format!("{over}/{}", under[0]),
                _ => format!("{over}/({})", under.join("·")),
            }
        }
        Node::Sin(u) => format!("sin({})", expression(pool, *u)),
        Node::Cos(u) => format!("cos({})", expression(pool, *u)),
        Node::Sqrt(u) => format!("√({})", expression(pool, *u)),
    }
}

/// `id` as a factor of a product: parenthesised if a sum or negative.
fn factor(pool: &Pool, id: Id) -> String {
    let text = expression(pool, id);
    let bare = match pool.node(id) {
        Node::Add(..) => false,
        Node::Num(c) => c.to_f64() >= 0.0,
        _ => true,
    };
    if bare {
        text
    } else {
        format!("({text})")
    }
}

fn signed_number(c: Coeff) -> String {
    let x = c.to_f64();
    if x < 0.0 {
        format!("−{}", number(-x))
    } else {
        number(x)
    }
}

/// A non-negative number to [`DIGITS`] significant digits, as the shortest
/// decimal that reads back to that rounding (`0.5` rather than
/// `0.4999999999999999`, which the spec's decimal rotations leave), in
/// scientific notation when very small or large.
fn number(x: f64) -> String {
    let rounded: f64 = format!("{x:.*e}", DIGITS - 1).parse().unwrap_or(x);
    if rounded != 0.0 && !(1e-6..1e12).contains(&rounded) {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
}

/// Significant digits of a printed number: the formulas are for reading;
/// the exact coefficients are in the expressions (and `sharnir
/// base-parameters --json`).
const DIGITS: usize = 12;
