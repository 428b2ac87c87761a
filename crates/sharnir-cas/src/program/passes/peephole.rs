//! The last pass on a lowered program: the clean-ups that make the emitted
//! code read as a reviewer would write it, and its operation count the
//! count of that code.
//!
//! The passes before it build terms by rules that are right one at a time
//! but leave traces side by side: Horner's rule takes a constant out of a
//! group that already had one (`0.5 * 0.125 * x`), a negated constant ends
//! up inside a product (`s * -2.0 * x`) or after a `+` (`a + -0.5 * x`), a
//! sum reused whole becomes a local that only renames another
//! (`let t12 = t10;`). [`peephole`] rewrites, in one walk over the locals
//! in order:
//!
//! - products: the constant factors of a product chain (through negations)
//!   multiplied into one leading literal, which disappears when it is ±1
//!   (a product of literals costs nothing at run time, so it is not counted
//!   either);
//! - sums: every negative literal or negation at the head of an item taken
//!   out as a subtraction (`a + -0.5 * x` is `a - 0.5 * x`, `a - -x` is
//!   `a + x`), an item and its negation cancelled (`x - x`, which forwarding
//!   an alias can leave), zeros dropped, the chain rebuilt with its added
//!   items first;
//! - locals: a local whose value is another local, an input or a literal is
//!   forwarded into its users and dropped; then every local that no output
//!   reads any more is dropped, and the `t…` and `inv…` locals are numbered
//!   again densely in their order.
//!
//! Every rewrite is exact for finite values up to the reassociation of
//! constant factors (`(0.5·0.125)·x` for `0.5·(0.125·x)`) and of sums
//! (added items first), and none adds an operation: a
//! term whose rewrite would weigh more (it cannot, but the guard is cheap)
//! keeps its old form. The result depends only on the program.

use crate::program::{chain_items, signed_sum, Local, Program, Term};

/// `program` with literal products folded, signs taken into the sums,
/// aliases forwarded, unused locals dropped and the locals renumbered (see
/// the module documentation).
pub(crate) fn peephole(program: Program) -> Program {
    // What each old local became: a kept local (its index among the kept
    // ones so far) or a term written in place of every read.
    let mut replaced: Vec<Term> = Vec::with_capacity(program.locals.len());
    let mut kept: Vec<Local> = Vec::with_capacity(program.locals.len());
    for local in program.locals {
        let value = cleaned(&substituted(&local.value, &replaced));
        if is_atom(&value) {
            replaced.push(value);
        } else {
            replaced.push(Term::Local(kept.len()));
            kept.push(Local {
                name: local.name,
                value,
            });
        }
    }
    let outputs: Vec<Term> = program
        .outputs
        .iter()
        .map(|output| cleaned(&substituted(output, &replaced)))
        .collect();
    renumbered(without_unused(Program {
        locals: kept,
        outputs,
    }))
}

/// A value that a local only renames: reading it costs nothing, so its
/// users read it directly.
fn is_atom(term: &Term) -> bool {
    matches!(
        term,
        Term::Local(_) | Term::Input(_) | Term::Const(_) | Term::Pi
    )
}

/// `term` with every read of an old local replaced by what it became.
fn substituted(term: &Term, replaced: &[Term]) -> Term {
    let sub = |t: &Term| Box::new(substituted(t, replaced));
    match term {
        Term::Local(i) => replaced.get(*i).cloned().unwrap_or(Term::Local(*i)),
        Term::Const(_) | Term::Pi | Term::Input(_) => term.clone(),
        Term::Neg(a) => Term::Neg(sub(a)),
        Term::Add(a, b) => Term::Add(sub(a), sub(b)),
        Term::Sub(a, b) => Term::Sub(sub(a), sub(b)),
        Term::Mul(a, b) => Term::Mul(sub(a), sub(b)),
        Term::Div(a, b) => Term::Div(sub(a), sub(b)),
        Term::Sin(a) => Term::Sin(sub(a)),
        Term::Cos(a) => Term::Cos(sub(a)),
        Term::Sqrt(a) => Term::Sqrt(sub(a)),
        Term::Fma(a, b, c) => Term::Fma(sub(a), sub(b), sub(c)),
    }
}

/// `term` simplified, or `term` itself should the simplified form weigh
/// more.
fn cleaned(term: &Term) -> Term {
    let simple = simplify(term);
    if simple.op_count().weight() <= term.op_count().weight() {
        simple
    } else {
        term.clone()
    }
}

fn simplify(term: &Term) -> Term {
    let boxed = |t: &Term| Box::new(simplify(t));
    match term {
        Term::Add(..) | Term::Sub(..) | Term::Neg(_) => simplify_sum(term),
        Term::Mul(..) => simplify_product(term),
        Term::Const(_) | Term::Pi | Term::Input(_) | Term::Local(_) => term.clone(),
        Term::Div(a, b) => Term::Div(boxed(a), boxed(b)),
        Term::Sin(a) => Term::Sin(boxed(a)),
        Term::Cos(a) => Term::Cos(boxed(a)),
        Term::Sqrt(a) => Term::Sqrt(boxed(a)),
        Term::Fma(a, b, c) => Term::Fma(boxed(a), boxed(b), boxed(c)),
    }
}

/// A chain of `+`, `−` and unary `−` with its items simplified, the sign
/// at the head of each item taken into the chain, zero literals dropped,
/// and the added items first.
fn simplify_sum(term: &Term) -> Term {
    let mut items: Vec<(Term, bool)> = Vec::new();
    for (item, negative) in chain_items(term) {
        let item = simplify(item);
        // A simplified item is a product or a literal, or a sum (itself a
        // chain, walked again) when it was a product that lost its factors.
        for (inner, inner_negative) in chain_items(&item) {
            let negative = negative != inner_negative;
            match without_leading_sign(inner) {
                Some(positive) => items.push((positive, !negative)),
                None => items.push((inner.clone(), negative)),
            }
        }
    }
    // `x − x` is zero: such pairs appear once aliases are forwarded (two
    // nodes of the pool that lowered to the same local).
    let mut i = 0;
    while i < items.len() {
        let (item, negative) = &items[i];
        let twin = (i + 1..items.len()).find(|&j| items[j].1 != *negative && items[j].0 == *item);
        match twin {
            Some(j) => {
                items.remove(j);
                items.remove(i);
            }
            None => i += 1,
        }
    }
    if items.len() > 1 {
        items.retain(|(t, _)| *t != Term::Const(0.0));
    }
    signed_sum(items)
}

/// `−term` when `term` prints with a leading minus that can be taken off:
/// a negative literal, a negation, or a product or quotient whose leftmost
/// factor is one of these.
fn without_leading_sign(term: &Term) -> Option<Term> {
    match term {
        Term::Const(c) if *c < 0.0 => Some(Term::Const(-c)),
        Term::Neg(a) => Some((**a).clone()),
        Term::Mul(a, b) => without_leading_sign(a).map(|a| Term::Mul(Box::new(a), b.clone())),
        Term::Div(a, b) => without_leading_sign(a).map(|a| Term::Div(Box::new(a), b.clone())),
        _ => None,
    }
}

/// A product chain with its factors simplified, every literal factor and
/// sign multiplied into one leading literal (dropped when it is ±1, a
/// negation left for the enclosing sum to take). A chain with nothing to
/// fold keeps its shape.
fn simplify_product(term: &Term) -> Term {
    let Term::Mul(a, b) = term else {
        return simplify(term);
    };
    let product = Term::Mul(Box::new(simplify(a)), Box::new(simplify(b)));
    let mut parts = Parts {
        constant: 1.0,
        literals: 0,
        negations: 0,
        factors: Vec::new(),
    };
    parts.collect(&product);
    let folded = parts.literals >= 2
        || parts.negations > 0
        || parts.constant == 0.0
        || (parts.literals == 1
            && (is_literal_after_first(&product) || parts.constant.abs() == 1.0));
    if !folded {
        return product;
    }
    let constant = parts.constant;
    if constant == 0.0 || parts.factors.is_empty() {
        return Term::Const(constant);
    }
    let chain = |list: Vec<Term>| {
        list.into_iter()
            .reduce(|acc, t| Term::Mul(Box::new(acc), Box::new(t)))
            .unwrap_or(Term::Const(1.0))
    };
    if constant == 1.0 {
        return chain(parts.factors);
    }
    if constant == -1.0 {
        return Term::Neg(Box::new(chain(parts.factors)));
    }
    let mut list = Vec::with_capacity(parts.factors.len() + 1);
    list.push(Term::Const(constant));
    list.extend(parts.factors);
    chain(list)
}

/// Whether a product chain has a literal anywhere but as its leftmost
/// factor.
fn is_literal_after_first(term: &Term) -> bool {
    fn walk(term: &Term, first: bool) -> bool {
        match term {
            Term::Mul(a, b) => walk(a, first) || walk(b, false),
            Term::Neg(a) => walk(a, first),
            Term::Const(_) => !first,
            _ => false,
        }
    }
    walk(term, true)
}

/// The factors of a simplified product chain taken apart: the literals and
/// the signs multiplied together, the other factors in their order.
struct Parts {
    constant: f64,
    literals: usize,
    negations: usize,
    factors: Vec<Term>,
}

impl Parts {
    fn collect(&mut self, term: &Term) {
        match term {
            Term::Mul(a, b) => {
                self.collect(a);
                self.collect(b);
            }
            Term::Neg(a) => {
                self.constant = -self.constant;
                self.negations += 1;
                self.collect(a);
            }
            Term::Const(c) => {
                self.constant *= c;
                self.literals += 1;
            }
            other => self.factors.push(other.clone()),
        }
    }
}

/// `program` without the locals that neither an output nor a kept local
/// reads.
fn without_unused(program: Program) -> Program {
    let mut used = vec![false; program.locals.len()];
    let mut read = Vec::new();
    for output in &program.outputs {
        read.extend(output.locals_read());
    }
    for &i in &read {
        if let Some(slot) = used.get_mut(i) {
            *slot = true;
        }
    }
    for i in (0..program.locals.len()).rev() {
        if !used[i] {
            continue;
        }
        read.clear();
        read.extend(program.locals[i].value.locals_read());
        for &j in &read {
            if let Some(slot) = used.get_mut(j) {
                *slot = true;
            }
        }
    }
    if used.iter().all(|&u| u) {
        return program;
    }
    let mut locals = Vec::new();
    let mut replaced = Vec::with_capacity(used.len());
    for (local, used) in program.locals.into_iter().zip(&used) {
        replaced.push(Term::Local(locals.len()));
        if *used {
            locals.push(Local {
                name: local.name,
                value: substituted(&local.value, &replaced),
            });
        }
    }
    let outputs = program
        .outputs
        .iter()
        .map(|o| substituted(o, &replaced))
        .collect();
    Program { locals, outputs }
}

/// The `t…` and `inv…` locals named again `t0`, `t1`, … and `inv0`, … in
/// their order, so that the numbers have no gaps; named locals (`s_q1`,
/// `c_q1`) keep their names.
fn renumbered(mut program: Program) -> Program {
    let (mut t, mut inv) = (0usize, 0usize);
    for local in &mut program.locals {
        if numbered(&local.name, "t") {
            local.name = format!("t{t}");
            t += 1;
        } else if numbered(&local.name, "inv") {
            local.name = format!("inv{inv}");
            inv += 1;
        }
    }
    program
}

/// Whether `name` is `prefix` followed by digits only.
fn numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Symbol;

    fn b(t: Term) -> Box<Term> {
        Box::new(t)
    }
    fn x() -> Term {
        Term::Input(Symbol::parse("x"))
    }
    fn y() -> Term {
        Term::Input(Symbol::parse("y"))
    }
    fn c(v: f64) -> Term {
        Term::Const(v)
    }
    fn local(name: &str, value: Term) -> Local {
        Local {
            name: name.into(),
            value,
        }
    }
    use crate::test_values::env;

    /// The pass on `program`, checked to compute the same values.
    fn cleaned_program(program: Program) -> Program {
        let before = program.eval(&env).expect("inputs bound");
        let after = peephole(program.clone());
        let values = after.eval(&env).expect("inputs bound");
        for (u, v) in before.iter().zip(&values) {
            assert!((u - v).abs() <= 1e-15 * u.abs().max(1.0), "{u} vs {v}");
        }
        assert!(after.op_count().weight() <= program.op_count().weight());
        after
    }

    #[test]
    fn literal_products_fold_into_one_leading_literal() {
        // 0.5 · 0.125 · x and y · −2.0 · x
        let program = Program {
            locals: Vec::new(),
            outputs: vec![
                Term::Mul(b(Term::Mul(b(c(0.5)), b(c(0.125)))), b(x())),
                Term::Mul(b(Term::Mul(b(y()), b(c(-2.0)))), b(x())),
                Term::Mul(b(Term::Mul(b(c(2.0)), b(x()))), b(c(0.5))),
            ],
        };
        let out = cleaned_program(program);
        assert_eq!(out.outputs[0], Term::Mul(b(c(0.0625)), b(x())));
        assert_eq!(
            out.outputs[1],
            Term::Mul(b(Term::Mul(b(c(-2.0)), b(y()))), b(x()))
        );
        assert_eq!(out.outputs[2], x());
        assert_eq!(out.op_count().mul, 3);
    }

    #[test]
    fn negative_literals_after_a_plus_become_subtractions() {
        // x + −0.5·y and x − (−y)
        let program = Program {
            locals: Vec::new(),
            outputs: vec![
                Term::Add(b(x()), b(Term::Mul(b(c(-0.5)), b(y())))),
                Term::Sub(b(x()), b(Term::Neg(b(y())))),
            ],
        };
        let out = cleaned_program(program);
        assert_eq!(
            out.outputs[0],
            Term::Sub(b(x()), b(Term::Mul(b(c(0.5)), b(y()))))
        );
        assert_eq!(out.outputs[1], Term::Add(b(x()), b(y())));
        assert_eq!(out.op_count().add, 2);
    }

    #[test]
    fn aliases_are_forwarded_and_locals_renumbered() {
        // t0 = x·y; t1 = t0 (alias); t2 = x + y (unused); s_x = sin x;
        // t4 = t1 − t0 + s_x·t1.
        let program = Program {
            locals: vec![
                local("t0", Term::Mul(b(x()), b(y()))),
                local("t1", Term::Local(0)),
                local("t2", Term::Add(b(x()), b(y()))),
                local("s_x", Term::Sin(b(x()))),
                local(
                    "t4",
                    Term::Add(
                        b(Term::Sub(b(Term::Local(1)), b(Term::Local(0)))),
                        b(Term::Mul(b(Term::Local(3)), b(Term::Local(1)))),
                    ),
                ),
            ],
            outputs: vec![Term::Local(4), Term::Local(0)],
        };
        let out = cleaned_program(program);
        let names: Vec<&str> = out.locals.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["t0", "s_x", "t1"]);
        // t1 − t0 cancelled: only the product is left.
        assert_eq!(
            out.locals[2].value,
            Term::Mul(b(Term::Local(1)), b(Term::Local(0)))
        );
        assert_eq!(out.outputs, vec![Term::Local(2), Term::Local(0)]);
    }

    #[test]
    fn deterministic_and_idempotent() {
        let program = Program {
            locals: vec![local(
                "t0",
                Term::Mul(b(Term::Neg(b(x()))), b(Term::Mul(b(c(3.0)), b(y())))),
            )],
            outputs: vec![Term::Add(b(Term::Local(0)), b(Term::Neg(b(x()))))],
        };
        let once = cleaned_program(program.clone());
        assert_eq!(once, peephole(program));
        assert_eq!(peephole(once.clone()), once);
    }
}
