//! A term's one-line text, written straight from the term.
//!
//! Most statements of a module are short `let`s, which [`crate::print::lines`]
//! prints on one line itself. Printing them as tokens first
//! ([`Printer::expr`]) and walking the tokens back into text cost about a
//! sixth of rendering Talos's module (callgrind): every identifier and
//! literal a token, every walk a copy of the token trees. [`Printer::text`] writes the same text
//! directly, with the same parentheses (the same precedence rules) and the
//! spacing `prettyplease` gives; the tests hold it to the token path on
//! printed terms. A statement it cannot write short enough goes the token
//! way, as before.

use crate::print::printer::{literal_sign_taken, Precedence, Printer};
use proc_macro2::Literal;
use sharnir_cas::Term;
use sharnir_mech::Input;
use std::fmt::Write;

impl Printer<'_> {
    /// `term` as one line of at most `limit` bytes, exactly as
    /// [`crate::print::lines`] prints the tokens of [`Printer::expr`]; `None` if it
    /// is longer, holds π (printed as a path and a cast, left to the
    /// tokens), or reads something [`Printer::expr`] reports as an error.
    pub(crate) fn text(&self, term: &Term, limit: usize) -> Option<String> {
        let mut out = String::new();
        self.write_text(term, &mut out, limit)?;
        Some(out)
    }

    /// Appends `term` to `out`; its precedence, or `None` as for
    /// [`Printer::text`].
    fn write_text(&self, term: &Term, out: &mut String, limit: usize) -> Option<Precedence> {
        let precedence = match term {
            Term::Const(c) if *c < 0.0 => {
                out.push('-');
                out.push_str(&literal(-*c)?);
                Precedence::Unary
            }
            Term::Const(c) => {
                out.push_str(&literal(*c)?);
                Precedence::Atom
            }
            Term::Pi => return None,
            Term::Input(symbol) => {
                write_input(symbol, out)?;
                Precedence::Atom
            }
            Term::Local(i) => {
                match self.slots.get(*i).copied().flatten() {
                    Some(slot) => write!(out, "live[{slot}]").ok()?,
                    None => out.push_str(self.locals.get(*i)?),
                }
                Precedence::Atom
            }
            Term::Neg(a) => match a.as_ref() {
                Term::Mul(x, y) | Term::Div(x, y) => {
                    let op = if matches!(a.as_ref(), Term::Mul(..)) {
                        " * "
                    } else {
                        " / "
                    };
                    self.text_operand(
                        &Term::Neg(x.clone()),
                        Precedence::Product,
                        false,
                        out,
                        limit,
                    )?;
                    out.push_str(op);
                    self.text_operand(y, Precedence::Product, true, out, limit)?;
                    Precedence::Product
                }
                _ => {
                    out.push('-');
                    self.text_operand(a, Precedence::Unary, false, out, limit)?;
                    Precedence::Unary
                }
            },
            Term::Add(a, b) => match literal_sign_taken(b) {
                Some(b) => self.text_binary(a, &b, " - ", Precedence::Sum, out, limit)?,
                None => self.text_binary(a, b, " + ", Precedence::Sum, out, limit)?,
            },
            Term::Sub(a, b) => match literal_sign_taken(b) {
                Some(b) => self.text_binary(a, &b, " + ", Precedence::Sum, out, limit)?,
                None => self.text_binary(a, b, " - ", Precedence::Sum, out, limit)?,
            },
            Term::Mul(a, b) => self.text_binary(a, b, " * ", Precedence::Product, out, limit)?,
            Term::Div(a, b) => self.text_binary(a, b, " / ", Precedence::Product, out, limit)?,
            Term::Sin(a) => self.text_call("sin", &[a], out, limit)?,
            Term::Cos(a) => self.text_call("cos", &[a], out, limit)?,
            Term::Sqrt(a) => self.text_call("sqrt", &[a], out, limit)?,
            Term::Fma(a, b, c) => self.text_call("fma", &[a, b, c], out, limit)?,
        };
        (out.len() <= limit).then_some(precedence)
    }

    fn text_binary(
        &self,
        a: &Term,
        b: &Term,
        op: &str,
        level: Precedence,
        out: &mut String,
        limit: usize,
    ) -> Option<Precedence> {
        self.text_operand(a, level, false, out, limit)?;
        out.push_str(op);
        self.text_operand(b, level, true, out, limit)?;
        Some(level)
    }

    fn text_call(
        &self,
        function: &str,
        arguments: &[&Term],
        out: &mut String,
        limit: usize,
    ) -> Option<Precedence> {
        out.push_str(function);
        out.push('(');
        for (k, argument) in arguments.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            self.write_text(argument, out, limit)?;
        }
        out.push(')');
        Some(Precedence::Atom)
    }

    /// `term` as an operand at `level`: in parentheses if it binds less
    /// tightly, or as tightly when `strict` (the right operand of a
    /// left-associative operator: `a - (b + c)`).
    fn text_operand(
        &self,
        term: &Term,
        level: Precedence,
        strict: bool,
        out: &mut String,
        limit: usize,
    ) -> Option<()> {
        let start = out.len();
        let own = self.write_text(term, out, limit)?;
        if own < level || (strict && own == level) {
            out.insert(start, '(');
            out.push(')');
        }
        (out.len() <= limit).then_some(())
    }
}

/// A finite constant as its literal's text (`Printer::expr`'s own
/// function, so the digits cannot differ); `None` for one that is not.
fn literal(value: f64) -> Option<String> {
    value
        .is_finite()
        .then(|| Literal::f64_unsuffixed(value).to_string())
}

/// An input as `Printer::expr` reads it; `None` for a named symbol, which
/// it reports as an error.
fn write_input(symbol: &Input, out: &mut String) -> Option<()> {
    match symbol {
        Input::Parameter(name) => write!(out, "p.{name}").ok(),
        Input::Position(i) => write!(out, "q[{i}]").ok(),
        Input::Velocity(i) => write!(out, "qd[{i}]").ok(),
        Input::Acceleration(i) => write!(out, "qdd[{i}]").ok(),
        Input::Force(i) => write!(out, "tau[{i}]").ok(),
        Input::Multiplier(i) => write!(out, "lambda[{i}]").ok(),
        Input::BaseParameter(i) => write!(out, "beta[{i}]").ok(),
        Input::Time => {
            out.push('t');
            Some(())
        }
        Input::Derived(k) => write!(out, "d.k{k}").ok(),
        Input::Named(_) => None,
    }
}
