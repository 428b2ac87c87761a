//! Printing of lowered program terms as Rust expressions.
//!
//! Parentheses are emitted only where precedence requires them, so the
//! generated code reads like the formulas it came from, and the operations
//! in the text are exactly the operations counted in the program: the only
//! liberties taken cost nothing (`a - 0.5 * x` for `a + -0.5 * x`, `-a * b`
//! for `-(a * b)`). Sines, cosines and square roots call the module's own
//! `sin`, `cos` and `sqrt` helpers, which wrap `libm`'s (and which the
//! single-precision twins replace). A fused
//! multiply–add is printed as a call of the module's `fma` helper, which
//! wraps `libm`'s `fma`, the only `no_std` fused multiply–add on stable Rust.

use crate::error::EmitError;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use sharnir_cas::{OpCount, Term};
use sharnir_mech::Input;
use std::collections::HashMap;

/// Binding strength of a printed expression.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Precedence {
    Sum = 1,
    Product = 2,
    Unary = 3,
    Atom = 4,
}

/// Turns terms into tokens, naming locals by their program index.
pub struct Printer<'a> {
    /// Names of the program's locals, by index.
    pub locals: &'a [String],
    /// Locals kept in the `live` array of a function split into parts
    /// (`live[s]` for `Some(s)`), by index; empty when nothing is.
    pub slots: &'a [Option<usize>],
    /// Set for a lane statement's expression: how its leaves are read.
    pub(crate) lanes: Option<&'a LaneLeaves<'a>>,
}

/// How the expression of a lane statement (two branches in the two lanes
/// of a `Pair`, `support/double/pairs.rs`) reads its leaves: a local
/// another lane statement computed by that statement's `Pair`, any other
/// leaf as `pair(first branch's, second branch's)`.
pub(crate) struct LaneLeaves<'a> {
    /// Whether each local, by index, is the first of a lane statement
    /// (read as its `Pair`, `v{name}`); any other local is a scalar, packed
    /// with the second lane's leaf.
    pub(crate) lane_statements: &'a [bool],
    /// The second lane's leaf (perhaps negated) at the place of each leaf
    /// of the printed expression, by that leaf's address (a lane statement
    /// prints its expression as it is, without the sign changes of scalar
    /// statements).
    pub(crate) seconds: &'a HashMap<*const Term, &'a Term>,
    /// Whether a lane statement's partner is its second lane negated, by
    /// its first local.
    pub(crate) negated: &'a [bool],
}

impl Printer<'_> {
    /// The tokens of `term` as a complete expression; an error if it holds
    /// a constant that is not finite (no Rust literal writes it).
    pub fn expr(&self, term: &Term) -> Result<TokenStream, EmitError> {
        Ok(self.print(term)?.0)
    }

    fn print(&self, term: &Term) -> Result<(TokenStream, Precedence), EmitError> {
        if let Some(lanes) = self.lanes {
            if let Some(leaf) = self.lane_leaf(term, lanes)? {
                return Ok((leaf, Precedence::Atom));
            }
        }
        Ok(match term {
            Term::Const(c) if *c < 0.0 => {
                // `-0.5` is a constant expression, negated at compile time.
                let literal = float_literal(-*c)?;
                (quote!(-#literal), Precedence::Unary)
            }
            Term::Const(c) => (float_literal(*c)?, Precedence::Atom),
            Term::Pi => (quote!((core::f64::consts::PI as Real)), Precedence::Atom),
            Term::Input(symbol) => (input(symbol)?, Precedence::Atom),
            Term::Local(i) => match self.slots.get(*i).copied().flatten() {
                Some(slot) => {
                    let slot = Literal::usize_unsuffixed(slot);
                    (quote!(live[#slot]), Precedence::Atom)
                }
                None => {
                    let name = self.locals.get(*i).ok_or_else(|| {
                        EmitError::Internal(format!(
                            "the program reads local {i}, which it never defines"
                        ))
                    })?;
                    let ident = Ident::new(name, Span::call_site());
                    (quote!(#ident), Precedence::Atom)
                }
            },
            Term::Neg(a) => match a.as_ref() {
                // `-(a * b)` is `-a * b` exactly (a sign change commutes
                // with rounding), and reads better; not in a lane
                // statement, whose constants are found where they are.
                Term::Mul(x, y) | Term::Div(x, y) if self.lanes.is_none() => {
                    let op = if matches!(a.as_ref(), Term::Mul(..)) {
                        quote!(*)
                    } else {
                        quote!(/)
                    };
                    let x = self.operand(&Term::Neg(x.clone()), Precedence::Product)?;
                    let y = self.operand_strict(y, Precedence::Product)?;
                    (joined(x, op, y), Precedence::Product)
                }
                _ => {
                    let a = self.operand(a, Precedence::Unary)?;
                    (quote!(-#a), Precedence::Unary)
                }
            },
            // `a + -0.5 * x` is printed `a - 0.5 * x` and `a - -0.5 * x`
            // `a + 0.5 * x`: one addition either way, as counted.
            Term::Add(a, b) => match literal_sign_taken(b).filter(|_| self.lanes.is_none()) {
                Some(b) => self.binary(a, &b, quote!(-), Precedence::Sum)?,
                None => self.binary(a, b, quote!(+), Precedence::Sum)?,
            },
            Term::Sub(a, b) => match literal_sign_taken(b).filter(|_| self.lanes.is_none()) {
                Some(b) => self.binary(a, &b, quote!(+), Precedence::Sum)?,
                None => self.binary(a, b, quote!(-), Precedence::Sum)?,
            },
            Term::Mul(a, b) => self.binary(a, b, quote!(*), Precedence::Product)?,
            Term::Div(a, b) => self.binary(a, b, quote!(/), Precedence::Product)?,
            // The module's own helpers (see `module::math_helpers`), which
            // a single-precision twin replaces by its own.
            Term::Sin(a) => self.call(quote!(sin), a)?,
            Term::Cos(a) => self.call(quote!(cos), a)?,
            Term::Sqrt(a) => self.call(quote!(sqrt), a)?,
            Term::Fma(a, b, c) => {
                let (a, b, c) = (self.expr(a)?, self.expr(b)?, self.expr(c)?);
                (quote!(fma(#a, #b, #c)), Precedence::Atom)
            }
        })
    }

    /// A leaf of a lane statement's expression as a `Pair`; `None` for an
    /// operation, which prints as in a scalar statement (the `Pair`
    /// arithmetic has the same operators); an error for a function call,
    /// which no lane statement computes.
    fn lane_leaf(
        &self,
        term: &Term,
        lanes: &LaneLeaves<'_>,
    ) -> Result<Option<TokenStream>, EmitError> {
        if matches!(
            term,
            Term::Neg(_) | Term::Add(..) | Term::Sub(..) | Term::Mul(..) | Term::Div(..)
        ) {
            return Ok(None);
        }
        if matches!(
            term,
            Term::Sin(_) | Term::Cos(_) | Term::Sqrt(_) | Term::Fma(..)
        ) {
            return Err(EmitError::Internal(
                "a lane statement calls a function; only arithmetic is computed in lanes"
                    .to_owned(),
            ));
        }
        let slot = |i: usize| self.slots.get(i).copied().flatten();
        let second = lanes
            .seconds
            .get(&std::ptr::from_ref(term))
            .copied()
            .ok_or_else(|| {
                EmitError::Internal("a lane statement's leaf has no second lane".to_owned())
            })?;
        if let Term::Local(i) = term {
            if lanes.lane_statements.get(*i) == Some(&true) {
                // Another lane statement, its second lane negated where the
                // second lane's leaf is.
                let flip = matches!(second, Term::Neg(_));
                // An earlier part's lane statement: its two lanes from
                // `live`, the partner negated back to the second lane.
                if let (Some(a), Some(b)) = (slot(*i), slot(*i + 1)) {
                    let (a, b) = (Literal::usize_unsuffixed(a), Literal::usize_unsuffixed(b));
                    let negated = lanes.negated.get(*i).copied().unwrap_or(false);
                    return Ok(Some(if negated != flip {
                        quote!(pair(live[#a], -live[#b]))
                    } else {
                        quote!(pair(live[#a], live[#b]))
                    }));
                }
                let name = self.local_name(*i)?;
                let lane = Ident::new(&format!("v{name}"), Span::call_site());
                return Ok(Some(if flip {
                    quote!((#lane * pair(1.0, -1.0)))
                } else {
                    quote!(#lane)
                }));
            }
        }
        // Packed leaves print as in scalar code (a constant's sign, an
        // input, a local by its name or `live` slot, a leaf negated).
        let scalar = Printer {
            locals: self.locals,
            slots: self.slots,
            lanes: None,
        };
        let first = scalar.expr(term)?;
        let shared = match (term, second) {
            (Term::Const(a), Term::Const(b)) => a.to_bits() == b.to_bits(),
            _ => second == term,
        };
        let second = scalar.expr(second)?;
        Ok(Some(if shared {
            quote!(pair(#first, #first))
        } else {
            quote!(pair(#first, #second))
        }))
    }

    /// The name of local `i`.
    fn local_name(&self, i: usize) -> Result<&str, EmitError> {
        self.locals.get(i).map(String::as_str).ok_or_else(|| {
            EmitError::Internal(format!(
                "a lane statement reads local {i}, which the program never defines"
            ))
        })
    }

    /// Left-associative binary operator: the right operand needs parentheses
    /// at equal precedence (`a - (b + c)`), the left one only below it.
    fn binary(
        &self,
        a: &Term,
        b: &Term,
        op: TokenStream,
        level: Precedence,
    ) -> Result<(TokenStream, Precedence), EmitError> {
        let left = self.operand(a, level)?;
        let right = self.operand_strict(b, level)?;
        Ok((joined(left, op, right), level))
    }

    fn call(
        &self,
        function: TokenStream,
        a: &Term,
    ) -> Result<(TokenStream, Precedence), EmitError> {
        let a = self.expr(a)?;
        Ok((quote!(#function(#a)), Precedence::Atom))
    }

    fn operand(&self, term: &Term, level: Precedence) -> Result<TokenStream, EmitError> {
        let (tokens, own) = self.print(term)?;
        Ok(if own < level {
            quote!((#tokens))
        } else {
            tokens
        })
    }

    fn operand_strict(&self, term: &Term, level: Precedence) -> Result<TokenStream, EmitError> {
        let (tokens, own) = self.print(term)?;
        Ok(if own <= level {
            quote!((#tokens))
        } else {
            tokens
        })
    }
}

/// `left op right`, extending `left` in place: `quote!(#left #op #right)`
/// would copy `left`, and a sum of n terms, printed left to right, would
/// cost n² token copies.
fn joined(mut left: TokenStream, op: TokenStream, right: TokenStream) -> TokenStream {
    left.extend(op);
    left.extend(right);
    left
}

/// `−term` when `term` starts with a negative literal (`-0.5`, `-0.5 * x`,
/// `-0.5 * x / y`), so that a sum can print it with the other sign at no
/// cost; `None` otherwise (a negation is not free, and the program counted
/// it).
pub(crate) fn literal_sign_taken(term: &Term) -> Option<Term> {
    match term {
        Term::Const(c) if *c < 0.0 => Some(Term::Const(-c)),
        Term::Mul(a, b) => literal_sign_taken(a).map(|a| Term::Mul(Box::new(a), b.clone())),
        Term::Div(a, b) => literal_sign_taken(a).map(|a| Term::Div(Box::new(a), b.clone())),
        _ => None,
    }
}

/// A float literal in its shortest round-trip form, always with a decimal
/// point or exponent so it types as a float; an error for infinities and
/// NaN, which no literal writes (a value that overflowed while the
/// derivation multiplied the spec's numbers).
pub fn float_literal(value: f64) -> Result<TokenStream, EmitError> {
    if !value.is_finite() {
        return Err(EmitError::NonFiniteConstant(value));
    }
    let literal = Literal::f64_unsuffixed(value);
    Ok(quote!(#literal))
}

/// `OpCount { … }` for `ops`, with the `fma` field only in fused modules
/// (whose `OpCount` type has it).
pub(crate) fn op_count_literal(ops: OpCount, fma: bool) -> TokenStream {
    let [mul, add, div, sqrt, sin, cos, exp, fused] = [
        ops.mul, ops.add, ops.div, ops.sqrt, ops.sin, ops.cos, ops.exp, ops.fma,
    ]
    .map(Literal::u32_unsuffixed);
    let fma_field = if fma {
        quote!(, fma: #fused)
    } else {
        TokenStream::new()
    };
    quote!(OpCount { mul: #mul, add: #add, div: #div, sqrt: #sqrt, sin: #sin, cos: #cos, exp: #exp #fma_field })
}

/// The Rust expression reading an input; an error for a named symbol,
/// which is no input (the derivation never lets one reach the emitter: a
/// bug, not a user error).
fn input(symbol: &Input) -> Result<TokenStream, EmitError> {
    Ok(match symbol {
        Input::Parameter(name) => {
            let field = Ident::new(name, Span::call_site());
            quote!(p.#field)
        }
        Input::Position(i) => index("q", *i),
        Input::Velocity(i) => index("qd", *i),
        Input::Acceleration(i) => index("qdd", *i),
        Input::Force(i) => index("tau", *i),
        Input::Multiplier(i) => index("lambda", *i),
        Input::BaseParameter(i) => index("beta", *i),
        Input::Time => quote!(t),
        Input::Derived(k) => {
            let field = Ident::new(&format!("k{k}"), Span::call_site());
            quote!(d.#field)
        }
        Input::Named(_) => {
            return Err(EmitError::Internal(format!(
                "the expression reads `{symbol}`, which is no input of a generated function"
            )))
        }
    })
}

fn index(array: &str, i: usize) -> TokenStream {
    let array = Ident::new(array, Span::call_site());
    let i = Literal::usize_unsuffixed(i);
    quote!(#array[#i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(term: &Term) -> String {
        Printer {
            locals: &["t0".to_owned()],
            slots: &[],
            lanes: None,
        }
        .expr(term)
        .map_or_else(|e| e.to_string(), |t| t.to_string())
    }

    fn b(t: Term) -> Box<Term> {
        Box::new(t)
    }

    #[test]
    fn parentheses_only_where_needed() {
        let x = || Term::Input(Input::Position(0));
        let y = || Term::Local(0);
        let sum = Term::Add(b(x()), b(y()));
        assert_eq!(
            show(&Term::Mul(b(sum.clone()), b(y()))),
            "(q [0] + t0) * t0"
        );
        assert_eq!(
            show(&Term::Sub(b(y()), b(sum.clone()))),
            "t0 - (q [0] + t0)"
        );
        assert_eq!(show(&Term::Add(b(sum.clone()), b(y()))), "q [0] + t0 + t0");
        assert_eq!(
            show(&Term::Div(b(y()), b(Term::Mul(b(y()), b(y()))))),
            "t0 / (t0 * t0)"
        );
        assert_eq!(show(&Term::Neg(b(sum))), "- (q [0] + t0)");
    }

    #[test]
    fn inputs_and_functions() {
        assert_eq!(
            show(&Term::Sin(b(Term::Input(Input::Parameter("m1".into()))))),
            "sin (p . m1)"
        );
        assert_eq!(show(&Term::Const(0.5)), "0.5");
        assert_eq!(show(&Term::Const(2.0)), "2.0");
    }

    #[test]
    fn a_symbol_or_local_the_program_lacks_is_an_error_not_an_invented_name() {
        let unknown = show(&Term::Sin(b(Term::Input(Input::parse("velocity_of_q0")))));
        assert!(unknown.contains("no input"), "{unknown}");
        let missing = show(&Term::Add(b(Term::Local(0)), b(Term::Local(7))));
        assert!(missing.contains("never defines"), "{missing}");
    }

    #[test]
    fn constants_that_are_not_finite_are_errors_not_panics() {
        for c in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            let shown = show(&Term::Mul(b(Term::Const(c)), b(Term::Local(0))));
            assert!(shown.contains("overflow f64"), "{shown}");
        }
        assert!(float_literal(f64::NAN).is_err());
    }

    #[test]
    fn fused_multiply_adds_and_negative_constants() {
        let x = || Term::Input(Input::Position(0));
        let y = || Term::Local(0);
        let sum = Term::Add(b(x()), b(y()));
        assert_eq!(
            show(&Term::Fma(b(Term::Const(-0.5)), b(sum.clone()), b(y()))),
            "fma (- 0.5 , q [0] + t0 , t0)"
        );
        assert_eq!(
            show(&Term::Mul(b(Term::Const(-2.0)), b(sum))),
            "- 2.0 * (q [0] + t0)"
        );
        assert_eq!(
            show(&Term::Sub(
                b(Term::Fma(b(x()), b(y()), b(x()))),
                b(Term::Mul(b(y()), b(y())))
            )),
            "fma (q [0] , t0 , q [0]) - t0 * t0"
        );
    }
}
