//! Whether a statement of the second branch computes what one of the
//! first branch computes, up to what IEEE arithmetic carries exactly: the
//! order of a sum's or a product's two operands (`x + y = y + x`) and signs
//! (`−(x · y) = (−x) · y`, `x − y = x + (−y)`, `−(x + y) = (−x) + (−y)`,
//! the last but for the sign of an exact zero). A mirrored branch computes
//! some of its values with the other sign and its sums in another order; a
//! lane statement computes them in the first branch's order and with the
//! first branch's signs, so [`Alignment::second`] writes the second
//! branch's statement in that form.

use super::Role;
use crate::program::ir::{Local, Term};
use crate::symbol::Symbol;
use std::collections::HashMap;

/// What aligning a first-branch expression with a second-branch one knows.
pub(super) struct Alignment<'a> {
    /// The first branch's inputs with the second branch's.
    pub(super) rename: &'a HashMap<Symbol, Symbol>,
    /// The program's locals.
    pub(super) locals: &'a [Local],
    /// What each local is to the pairing so far.
    pub(super) roles: &'a [Role],
}

impl Alignment<'_> {
    /// The expression the second lane computes where the first computes
    /// `first`: `first`'s operations in `first`'s order, over the second
    /// branch's values, equal to `partner` (negated where `negated`).
    /// `None` where no such expression exists. Its leaves: constants;
    /// inputs and scalar locals, perhaps negated (packed with that sign);
    /// and a lane statement's partner `j`, which stands for the second lane
    /// of that statement's `Pair` (its partner's value, negated where the
    /// pair says so, [`Role::First`]).
    pub(super) fn second(&self, first: &Term, partner: &Term, negated: bool) -> Option<Term> {
        let (partner, negated) = without_negations(partner, negated);
        match first {
            Term::Neg(a) => Some(Term::Neg(Box::new(self.second(a, partner, !negated)?))),
            Term::Add(a, b) | Term::Sub(a, b) => {
                let (x, y, y_negated) = match partner {
                    Term::Add(x, y) => (x, y, false),
                    Term::Sub(x, y) => (x, y, true),
                    _ => return None,
                };
                // a ± b = s (x ± y): a takes one of x and ±y, b the other.
                let b_negated = matches!(first, Term::Sub(..));
                let operands = |p: &Term, p_negated: bool, q: &Term, q_negated: bool| {
                    Some((
                        self.second(a, p, negated ^ p_negated)?,
                        self.second(b, q, negated ^ q_negated ^ b_negated)?,
                    ))
                };
                let (a, b) = operands(x, false, y, y_negated)
                    .or_else(|| operands(y, y_negated, x, false))?;
                Some(with_operands(first, a, b))
            }
            Term::Mul(a, b) | Term::Div(a, b) => {
                let (x, y) = match (first, partner) {
                    (Term::Mul(..), Term::Mul(x, y)) | (Term::Div(..), Term::Div(x, y)) => (x, y),
                    _ => return None,
                };
                // The sign goes on either factor.
                let operands = |p: &Term, q: &Term| {
                    [(negated, false), (false, negated)].into_iter().find_map(
                        |(p_negated, q_negated)| {
                            Some((self.second(a, p, p_negated)?, self.second(b, q, q_negated)?))
                        },
                    )
                };
                let commutes = matches!(first, Term::Mul(..));
                let (a, b) =
                    operands(x, y).or_else(|| commutes.then(|| operands(y, x)).flatten())?;
                Some(with_operands(first, a, b))
            }
            Term::Const(_) => match partner {
                Term::Const(c) => Some(Term::Const(if negated { -c } else { *c })),
                _ => None,
            },
            Term::Pi => (*partner == Term::Pi).then(|| signed(Term::Pi, negated)),
            Term::Input(symbol) => {
                let Term::Input(other) = partner else {
                    return None;
                };
                // A coordinate renamed; a parameter for another (the other
                // branch's inertia, as constants may differ); any other
                // input the same.
                let same = match self.rename.get(symbol) {
                    Some(renamed) => other == renamed,
                    None if parameter(symbol) => parameter(other),
                    None => other == symbol,
                };
                same.then(|| signed(partner.clone(), negated))
            }
            Term::Local(r) => {
                let Term::Local(k) = partner else {
                    return None;
                };
                match self.roles.get(*r)? {
                    // A lane statement's second lane has its sign.
                    Role::First(j, sign) if j == k && self.lane_computed(*r) => {
                        (*sign == negated).then_some(Term::Local(*j))
                    }
                    Role::First(j, _) if j == k => Some(signed(Term::Local(*j), negated)),
                    Role::Shared | Role::Partner if r == k => {
                        Some(signed(Term::Local(*k), negated))
                    }
                    _ => None,
                }
            }
            Term::Sin(_) | Term::Cos(_) | Term::Sqrt(_) | Term::Fma(..) => None,
        }
    }

    /// Whether local `i` is the first of a lane statement: paired, and
    /// arithmetic.
    pub(super) fn lane_computed(&self, i: usize) -> bool {
        matches!(self.roles.get(i), Some(Role::First(..)))
            && self.locals.get(i).is_some_and(|l| arithmetic(&l.value))
    }
}

/// How many inputs and locals `second` (a second lane's expression)
/// packs negated: each costs an operation where it is packed.
pub(super) fn negated_leaves(second: &Term) -> usize {
    match second {
        Term::Neg(a) if matches!(**a, Term::Input(_) | Term::Local(_)) => 1,
        Term::Neg(a) => negated_leaves(a),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
            negated_leaves(a) + negated_leaves(b)
        }
        _ => 0,
    }
}

/// Whether `symbol` is a parameter (of `Params`, its groups, the base
/// parameters): a number that two branches may have of different values.
fn parameter(symbol: &Symbol) -> bool {
    matches!(
        symbol,
        Symbol::Parameter(_) | Symbol::Derived(_) | Symbol::BaseParameter(_)
    )
}

/// `term` without the negations at its top, and whether an odd number of
/// them (and `negated`) negate it.
fn without_negations(mut term: &Term, mut negated: bool) -> (&Term, bool) {
    while let Term::Neg(a) = term {
        term = a;
        negated = !negated;
    }
    (term, negated)
}

/// `leaf`, negated where `negated`.
fn signed(leaf: Term, negated: bool) -> Term {
    if negated {
        Term::Neg(Box::new(leaf))
    } else {
        leaf
    }
}

/// `term`'s operation over the operands `a` and `b`.
fn with_operands(term: &Term, a: Term, b: Term) -> Term {
    let (a, b) = (Box::new(a), Box::new(b));
    match term {
        Term::Add(..) => Term::Add(a, b),
        Term::Sub(..) => Term::Sub(a, b),
        Term::Mul(..) => Term::Mul(a, b),
        _ => Term::Div(a, b),
    }
}

/// Whether `term` is arithmetic only (`+ − · /` and negation over inputs,
/// constants and locals): what two lanes compute together.
pub(super) fn arithmetic(term: &Term) -> bool {
    match term {
        Term::Const(_) | Term::Input(_) | Term::Local(_) => true,
        Term::Neg(a) => arithmetic(a),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
            arithmetic(a) && arithmetic(b)
        }
        Term::Pi | Term::Sin(_) | Term::Cos(_) | Term::Sqrt(_) | Term::Fma(..) => false,
    }
}

/// `term`'s text without what [`Alignment::second`] may change: signs,
/// the order of a sum's or a product's operands, and (unless `constants`)
/// the constants and parameters, each constant written as its magnitude
/// where kept. Two
/// expressions that may align have the same key.
pub(super) fn key(term: &Term, constants: bool) -> String {
    let mut text = String::new();
    write_key(term, constants, &mut text);
    text
}

fn write_key(term: &Term, constants: bool, text: &mut String) {
    let unary = |name: &str, a: &Term, text: &mut String| {
        text.push_str(name);
        text.push('(');
        write_key(a, constants, text);
        text.push(')');
    };
    match term {
        Term::Const(c) if constants => text.push_str(&format!("{:?}", c.abs())),
        Term::Const(_) => text.push('#'),
        Term::Pi => text.push_str("pi"),
        Term::Input(symbol) if parameter(symbol) && !constants => text.push_str("#p"),
        Term::Input(symbol) => text.push_str(&symbol.to_string()),
        Term::Local(i) => text.push_str(&format!("l{i}")),
        Term::Neg(a) => write_key(a, constants, text),
        Term::Sin(a) => unary("sin", a, text),
        Term::Cos(a) => unary("cos", a, text),
        Term::Sqrt(a) => unary("sqrt", a, text),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) => {
            let (a, b) = (key(a, constants), key(b, constants));
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            let op = if matches!(term, Term::Mul(..)) {
                '*'
            } else {
                '+'
            };
            text.push('(');
            text.push_str(&a);
            text.push(op);
            text.push_str(&b);
            text.push(')');
        }
        Term::Div(a, b) => {
            text.push('(');
            write_key(a, constants, text);
            text.push('/');
            write_key(b, constants, text);
            text.push(')');
        }
        Term::Fma(a, b, c) => {
            text.push_str("fma(");
            for x in [a, b, c] {
                write_key(x, constants, text);
                text.push(',');
            }
            text.push(')');
        }
    }
}
