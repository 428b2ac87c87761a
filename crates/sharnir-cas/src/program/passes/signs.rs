//! Negations moved to where they cost nothing.
//!
//! A local whose every term is subtracted, `t = −a·b − c`, costs a negation
//! that its users could absorb: `u − t` is as cheap as `u + t`. [`settle`]
//! stores such a local negated (`t' = a·b + c`) wherever that makes the
//! program cheaper, and every user reads `−t'`. Negations are pulled out of
//! products (`(−x)·y = −(x·y)`) up to the nearest sum, which takes them as a
//! subtraction; only a negation that reaches a local's value or an output
//! unabsorbed is emitted, onto a constant factor when there is one.

use crate::program::{signed_sum, Local, Program, Term};

/// `program` with the locals whose values are negated sums stored with the
/// opposite sign, one by one, where that lowers the operation count of the
/// local and its users.
pub(crate) fn settle(program: Program) -> Program {
    let slots: Vec<&Term> = program
        .locals
        .iter()
        .map(|local| &local.value)
        .chain(&program.outputs)
        .collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); program.locals.len()];
    for (slot, term) in slots.iter().enumerate() {
        let mut read = Vec::new();
        read.extend(term.locals_read());
        read.sort_unstable();
        read.dedup();
        for i in read {
            if let Some(list) = users.get_mut(i) {
                list.push(slot);
            }
        }
    }
    let weight = |slot: usize, flipped: &[bool]| {
        let own = flipped.get(slot).copied().unwrap_or(false);
        settled_slot(slots[slot], own, flipped).op_count().weight()
    };
    let mut flipped = vec![false; program.locals.len()];
    for i in 0..program.locals.len() {
        if !pull(slots[i], &flipped).1 {
            continue;
        }
        let affected: Vec<usize> = std::iter::once(i).chain(users[i].iter().copied()).collect();
        let before: u64 = affected.iter().map(|&s| weight(s, &flipped)).sum();
        flipped[i] = true;
        let after: u64 = affected.iter().map(|&s| weight(s, &flipped)).sum();
        if after >= before {
            flipped[i] = false;
        }
    }
    let settled = rewrite(&program, &flipped);
    if settled.op_count().weight() < program.op_count().weight() {
        settled
    } else {
        program
    }
}

/// A local's value or an output, its negations pulled up and the one left
/// applied, unless the slot is a local stored negated (`negated_slot`).
fn settled_slot(term: &Term, negated_slot: bool, flipped: &[bool]) -> Term {
    let (value, negated) = pull(term, flipped);
    if negated == negated_slot {
        value
    } else {
        negate(value)
    }
}

/// The program with local `i` holding its negation where `flipped[i]`, and
/// every negation pulled up to the sum that absorbs it.
fn rewrite(program: &Program, flipped: &[bool]) -> Program {
    let locals = program
        .locals
        .iter()
        .zip(flipped)
        .map(|(local, &negated)| Local {
            name: local.name.clone(),
            value: settled_slot(&local.value, negated, flipped),
        })
        .collect();
    let outputs = program
        .outputs
        .iter()
        .map(|output| settled_slot(output, false, flipped))
        .collect();
    Program { locals, outputs }
}

/// `term` as a value and whether it still has to be negated: negations of
/// products and flipped locals come out to the nearest sum, and a sum of
/// subtracted items comes out as the negation of a sum of added ones.
fn pull(term: &Term, flipped: &[bool]) -> (Term, bool) {
    match term {
        Term::Local(i) => (term.clone(), flipped.get(*i).copied().unwrap_or(false)),
        Term::Const(_) | Term::Pi | Term::Input(_) => (term.clone(), false),
        Term::Neg(a) => {
            let (x, negated) = pull(a, flipped);
            (x, !negated)
        }
        Term::Mul(a, b) => {
            let ((x, nx), (y, ny)) = (pull(a, flipped), pull(b, flipped));
            (Term::Mul(Box::new(x), Box::new(y)), nx != ny)
        }
        Term::Div(a, b) => {
            let ((x, nx), (y, ny)) = (pull(a, flipped), pull(b, flipped));
            (Term::Div(Box::new(x), Box::new(y)), nx != ny)
        }
        Term::Add(..) | Term::Sub(..) => {
            let mut items = Vec::new();
            flatten(term, false, flipped, &mut items);
            if items.iter().all(|(_, negative)| *negative) {
                let positive = items.into_iter().map(|(t, _)| (t, false)).collect();
                (signed_sum(positive), true)
            } else {
                (signed_sum(items), false)
            }
        }
        Term::Sin(a) => (Term::Sin(Box::new(settled_slot(a, false, flipped))), false),
        Term::Cos(a) => (Term::Cos(Box::new(settled_slot(a, false, flipped))), false),
        Term::Sqrt(a) => (Term::Sqrt(Box::new(settled_slot(a, false, flipped))), false),
        Term::Fma(a, b, c) => (
            Term::Fma(
                Box::new(settled_slot(a, false, flipped)),
                Box::new(settled_slot(b, false, flipped)),
                Box::new(settled_slot(c, false, flipped)),
            ),
            false,
        ),
    }
}

/// The signed items of a chain of `+` and `−`, each pulled.
fn flatten(term: &Term, negative: bool, flipped: &[bool], items: &mut Vec<(Term, bool)>) {
    match term {
        Term::Add(a, b) => {
            flatten(a, negative, flipped, items);
            flatten(b, negative, flipped, items);
        }
        Term::Sub(a, b) => {
            flatten(a, negative, flipped, items);
            flatten(b, !negative, flipped, items);
        }
        other => {
            let (x, negated) = pull(other, flipped);
            items.push((x, negative != negated));
        }
    }
}

/// `−x`: a sum with every sign changed (see [`signed_sum`]), a product
/// with a constant factor negated in place, or else a negation.
fn negate(x: Term) -> Term {
    if matches!(x, Term::Add(..) | Term::Sub(..)) {
        let mut items = Vec::new();
        flatten(&x, true, &[], &mut items);
        return signed_sum(items);
    }
    x.negated_for_free()
        .unwrap_or_else(|| Term::Neg(Box::new(x)))
}

#[cfg(test)]
mod tests {
    use crate::coeff::Coeff;
    use crate::pool::Pool;
    use crate::program::Program;
    use crate::symbol::Symbol;

    #[test]
    fn a_negated_local_is_stored_positive_when_its_users_absorb_the_sign() {
        let mut p = Pool::new();
        let [a, b, c, u, v, x, y] = ["a", "b", "c", "u", "v", "x", "y"].map(|n| p.symbol(n));
        // t = −a·b − c, read by u + t·x and v + t·y: stored as t' = a·b + c,
        // read as u − t'·x and v − t'·y: three multiplications and three
        // additions, against the negation of t on top.
        let ab = p.mul(a, b);
        let t = p.linear(
            &[(ab, Coeff::MINUS_ONE), (c, Coeff::MINUS_ONE)],
            Coeff::ZERO,
        );
        let (tx, ty) = (p.mul(t, x), p.mul(t, y));
        let roots = [p.add(u, tx), p.add(v, ty)];
        let program = Program::lower(&p, &roots);
        let ops = program.op_count();
        assert_eq!((ops.mul, ops.add), (3, 3), "{program:?}");
        let env = |symbol: &Symbol| {
            let value = match symbol.to_string().as_str() {
                "a" => 0.7,
                "b" => -1.3,
                "c" => 2.1,
                "u" => 0.4,
                "v" => -0.9,
                "x" => 1.7,
                "y" => -0.2,
                _ => return None,
            };
            Some(value)
        };
        let got = program.eval(&env).expect("bound");
        let want = p.eval(&roots, &env).expect("bound");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-14, "{got:?} vs {want:?}");
        }
    }
}
