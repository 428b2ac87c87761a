//! Whether a statement of the second branch computes what one of the
//! first branch computes, up to what IEEE arithmetic carries exactly: the
//! order of a sum's or a product's two operands (`x + y = y + x`) and signs
//! (`−(x · y) = (−x) · y`, `x − y = x + (−y)`, `−(x + y) = (−x) + (−y)`,
//! the last but for the sign of an exact zero), and, to within rounding,
//! the order in which a sum adds its items. A mirrored branch computes
//! some of its values with the other sign and its sums in another order; a
//! lane statement computes them in the first branch's order and with the
//! first branch's signs, so [`Alignment::second`] writes the second
//! branch's statement in that form.

use super::Role;
use crate::program::chain_items;
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
    /// The locals that read neither branch.
    pub(super) neutral: &'a Neutral,
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
        self.aligned(first, partner, negated, false)
    }

    /// [`Alignment::second`]; `in_sum` where `first` is an operand of a
    /// sum being aligned operand by operand, whose fallback (the sum's
    /// items matched in any order) covers this one's.
    fn aligned(&self, first: &Term, partner: &Term, negated: bool, in_sum: bool) -> Option<Term> {
        let (partner, negated) = without_negations(partner, negated);
        match first {
            Term::Neg(a) => Some(Term::Neg(Box::new(
                self.aligned(a, partner, !negated, in_sum)?,
            ))),
            Term::Add(..) | Term::Sub(..) => {
                self.sum_by_operands(first, partner, negated).or_else(|| {
                    (!in_sum)
                        .then(|| self.sum_by_items(first, partner, negated))
                        .flatten()
                })
            }
            Term::Mul(a, b) | Term::Div(a, b) => {
                let (x, y) = match (first, partner) {
                    (Term::Mul(..), Term::Mul(x, y)) | (Term::Div(..), Term::Div(x, y)) => (x, y),
                    _ => return None,
                };
                // The sign goes on either factor, or a sign on both
                // cancels.
                let operands = |p: &Term, q: &Term| {
                    [
                        (negated, false),
                        (false, negated),
                        (!negated, true),
                        (true, !negated),
                    ]
                    .into_iter()
                    .find_map(|(p_negated, q_negated)| {
                        Some((
                            self.aligned(a, p, p_negated, false)?,
                            self.aligned(b, q, q_negated, false)?,
                        ))
                    })
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
                    // A lane statement's second lane has its sign, or
                    // the other (one multiplication by `(1, −1)`).
                    Role::First(j, sign) if j == k && self.lane_computed(*r) => {
                        Some(signed(Term::Local(*j), *sign != negated))
                    }
                    Role::First(j, _) if j == k => Some(signed(Term::Local(*j), negated)),
                    Role::Shared | Role::Partner if r == k => {
                        Some(signed(Term::Local(*k), negated))
                    }
                    // Two values computed alike from the base, one for
                    // each branch: packed as a pair.
                    Role::Shared
                        if self.roles.get(*k) == Some(&Role::Shared)
                            && self.neutral.alike(*r, *k) =>
                    {
                        Some(signed(Term::Local(*k), negated))
                    }
                    _ => None,
                }
            }
            Term::Sin(_) | Term::Cos(_) | Term::Sqrt(_) | Term::Fma(..) => None,
        }
    }

    /// A sum aligned operand by operand: `a ± b` against `x ± y` or
    /// `y ± x`, exactly.
    fn sum_by_operands(&self, first: &Term, partner: &Term, negated: bool) -> Option<Term> {
        let (Term::Add(a, b) | Term::Sub(a, b)) = first else {
            return None;
        };
        let (x, y, y_negated) = match partner {
            Term::Add(x, y) => (x, y, false),
            Term::Sub(x, y) => (x, y, true),
            _ => return None,
        };
        // a ± b = s (x ± y): a takes one of x and ±y, b the other.
        let b_negated = matches!(first, Term::Sub(..));
        let operands = |p: &Term, p_negated: bool, q: &Term, q_negated: bool| {
            Some((
                self.aligned(a, p, negated ^ p_negated, true)?,
                self.aligned(b, q, negated ^ q_negated ^ b_negated, true)?,
            ))
        };
        let (a, b) =
            operands(x, false, y, y_negated).or_else(|| operands(y, y_negated, x, false))?;
        Some(with_operands(first, a, b))
    }

    /// A sum aligned item by item: the items of `first`'s chain of `+`,
    /// `−` and negations each matched with one of `partner`'s, in any
    /// order, and added in `first`'s order. A mirrored branch's sums often
    /// add the same items in another order (their signs differ, and the
    /// lowering puts the positive items first); the second lane then adds
    /// them in the first lane's order, which rounds alike (to within an
    /// ulp of the items) but not bit for bit.
    fn sum_by_items(&self, first: &Term, partner: &Term, negated: bool) -> Option<Term> {
        let items = chain_items(first);
        let partner_items = chain_items(partner);
        if items.len() != partner_items.len() || items.len() < 3 {
            return None;
        }
        let mut taken = vec![false; partner_items.len()];
        let mut seconds = Vec::with_capacity(items.len());
        for (item, item_negated) in items {
            let (j, second) =
                partner_items
                    .iter()
                    .enumerate()
                    .find_map(|(j, (p, p_negated))| {
                        if taken[j] {
                            return None;
                        }
                        let sign = negated ^ item_negated ^ p_negated;
                        self.aligned(item, p, sign, false).map(|second| (j, second))
                    })?;
            taken[j] = true;
            seconds.push(second);
        }
        Some(with_items(first, &mut seconds.into_iter()))
    }

    /// Whether local `i` is the first of a lane statement: paired, and
    /// arithmetic.
    pub(super) fn lane_computed(&self, i: usize) -> bool {
        matches!(self.roles.get(i), Some(Role::First(..)))
            && self.locals.get(i).is_some_and(|l| arithmetic(&l.value))
    }
}

/// How many inputs and locals `second` (a second lane's expression)
/// reads negated: each costs an operation.
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

/// `sum` (a chain of `+`, `−` and negations) with its items, in the order
/// [`chain_items`] lists them, replaced by `items`.
fn with_items(sum: &Term, items: &mut impl Iterator<Item = Term>) -> Term {
    match sum {
        Term::Add(a, b) => Term::Add(
            Box::new(with_items(a, items)),
            Box::new(with_items(b, items)),
        ),
        Term::Sub(a, b) => Term::Sub(
            Box::new(with_items(a, items)),
            Box::new(with_items(b, items)),
        ),
        Term::Neg(a) => Term::Neg(Box::new(with_items(a, items))),
        item => items.next().unwrap_or_else(|| item.clone()),
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

/// What a [`key`] keeps of an expression beyond its operations and
/// inputs.
#[derive(Clone, Copy)]
pub(super) enum Keep<'a> {
    /// Constants (as magnitudes), parameters and locals.
    Constants,
    /// Locals; constants and parameters as placeholders.
    Shape,
    /// As [`Keep::Shape`], but a local that reads neither branch is
    /// written as its own shape: a value each branch computes alike from
    /// the base (a hip's velocity, the hips at other places).
    Loose(&'a Neutral),
}

/// The locals that read neither branch, with every local's shape key.
pub(super) struct Neutral {
    /// Every local's [`key`] with [`Keep::Shape`].
    pub(super) shapes: Vec<String>,
    /// Whether the local reads no input of either branch, not even
    /// through the locals it reads.
    pub(super) neutral: Vec<bool>,
}

impl Neutral {
    /// The neutral locals of `locals` under `rename`.
    pub(super) fn of(locals: &[Local], rename: &HashMap<Symbol, Symbol>) -> Neutral {
        let branch: std::collections::HashSet<&Symbol> =
            rename.keys().chain(rename.values()).collect();
        let mut neutral: Vec<bool> = Vec::with_capacity(locals.len());
        for local in locals {
            let mut reads_branch = false;
            local.value.each_leaf(&mut |leaf| {
                reads_branch |= match leaf {
                    Term::Input(symbol) => branch.contains(symbol),
                    Term::Local(r) => !neutral.get(*r).copied().unwrap_or(false),
                    _ => false,
                };
            });
            neutral.push(!reads_branch);
        }
        Neutral {
            shapes: locals.iter().map(|l| key(&l.value, Keep::Shape)).collect(),
            neutral,
        }
    }

    /// Whether two locals, each reading neither branch, compute alike.
    fn alike(&self, a: usize, b: usize) -> bool {
        let neutral = |i: usize| self.neutral.get(i).copied().unwrap_or(false);
        neutral(a) && neutral(b) && self.shapes.get(a) == self.shapes.get(b)
    }
}

/// `term`'s text without what [`Alignment::second`] may change: signs,
/// the order of a sum's or a product's operands, the order of a sum's
/// items, and what `keep` leaves out. Two expressions that may align have
/// the same key.
pub(super) fn key(term: &Term, keep: Keep<'_>) -> String {
    let mut text = String::new();
    write_key(term, keep, &mut text);
    text
}

fn write_key(term: &Term, keep: Keep<'_>, text: &mut String) {
    let unary = |name: &str, a: &Term, text: &mut String| {
        text.push_str(name);
        text.push('(');
        write_key(a, keep, text);
        text.push(')');
    };
    let constants = matches!(keep, Keep::Constants);
    match term {
        Term::Const(c) if constants => text.push_str(&format!("{:?}", c.abs())),
        Term::Const(_) => text.push('#'),
        Term::Pi => text.push_str("pi"),
        Term::Input(symbol) if parameter(symbol) && !constants => text.push_str("#p"),
        Term::Input(symbol) => text.push_str(&symbol.to_string()),
        Term::Local(i) => match keep {
            Keep::Loose(neutral) if neutral.neutral.get(*i).copied().unwrap_or(false) => {
                text.push_str("s(");
                text.push_str(neutral.shapes.get(*i).map_or("", String::as_str));
                text.push(')');
            }
            _ => text.push_str(&format!("l{i}")),
        },
        Term::Neg(a) => write_key(a, keep, text),
        Term::Add(..) | Term::Sub(..) => {
            // The items of the sum in any order (`sum_by_items`).
            let mut items: Vec<String> = chain_items(term)
                .into_iter()
                .map(|(item, _)| key(item, keep))
                .collect();
            items.sort();
            text.push('(');
            text.push_str(&items.join("+"));
            text.push(')');
        }
        Term::Sin(a) => unary("sin", a, text),
        Term::Cos(a) => unary("cos", a, text),
        Term::Sqrt(a) => unary("sqrt", a, text),
        Term::Mul(a, b) => {
            let (a, b) = (key(a, keep), key(b, keep));
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            text.push('(');
            text.push_str(&a);
            text.push('*');
            text.push_str(&b);
            text.push(')');
        }
        Term::Div(a, b) => {
            text.push('(');
            write_key(a, keep, text);
            text.push('/');
            write_key(b, keep, text);
            text.push(')');
        }
        Term::Fma(a, b, c) => {
            text.push_str("fma(");
            for x in [a, b, c] {
                write_key(x, keep, text);
                text.push(',');
            }
            text.push(')');
        }
    }
}
