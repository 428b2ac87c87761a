//! Fused multiply–add: rewriting the sums of a lowered program so that each
//! product is added in the same instruction that computes it.
//!
//! Dynamics code is mostly sums of products, and a floating-point unit with
//! a fused multiply–add computes `a·b + c` in one instruction with one
//! rounding. The pass works on [`Term`]s, after lowering, so it cannot
//! change which values are shared (locals stay locals) and the plain
//! program stays exactly what it was.
//!
//! Every maximal chain of `+`, `−` and unary `−` is flattened into signed
//! items and rebuilt as `P − N`:
//!
//! - `P` holds the added items and the subtracted products and negations
//!   whose negation is free (a constant factor of a product is negated in
//!   place, a negated factor loses its sign), and a subtracted constant
//!   with its sign changed when no other item than products is added (it
//!   starts the sum the products are fused into); `N` the other subtracted
//!   items;
//! - each side starts from its items that are not products, summed in their
//!   order, and takes its products in by `acc = fma(x, y, acc)`; a side
//!   with no such item starts from its first product, multiplied;
//! - `P − N` is one subtraction, `−N` one negation when `P` is empty.
//!
//! So `a·b + c·d + e` costs 2 fma (against 2 mul + 2 add), `a − b·c − d·e`
//! costs 1 mul + 1 fma + 1 add (against 2 mul + 2 add), and a side's first
//! product is the only product left unfused. A subtracted product whose
//! negation is not free is never fused: `fma(−x, y, acc)` would cost a
//! negation, and summing the subtracted products apart costs none. The
//! rebuilt chain never has more operations than the original.

use crate::program::{chain_items, Term};

/// `term` with every sum fused, recursively (the operands of products,
/// quotients and functions included).
pub(crate) fn fuse(term: &Term) -> Term {
    match term {
        Term::Add(..) | Term::Sub(..) | Term::Neg(_) => fuse_sum(term),
        Term::Const(_) | Term::Pi | Term::Input(_) | Term::Local(_) => term.clone(),
        Term::Mul(a, b) => Term::Mul(boxed(fuse(a)), boxed(fuse(b))),
        Term::Div(a, b) => Term::Div(boxed(fuse(a)), boxed(fuse(b))),
        Term::Sin(a) => Term::Sin(boxed(fuse(a))),
        Term::Cos(a) => Term::Cos(boxed(fuse(a))),
        Term::Sqrt(a) => Term::Sqrt(boxed(fuse(a))),
        Term::Fma(a, b, c) => Term::Fma(boxed(fuse(a)), boxed(fuse(b)), boxed(fuse(c))),
    }
}

/// A chain of additions, subtractions and negations, rebuilt as `P − N`
/// (see the module documentation).
fn fuse_sum(term: &Term) -> Term {
    let items = chain_items(term)
        .into_iter()
        .map(|(t, negative)| (fuse(t), negative));
    let mut added = Vec::new();
    let mut subtracted = Vec::new();
    for (item, negative) in items {
        if !negative {
            added.push(item);
        } else if let (Term::Mul(..) | Term::Neg(_), Some(negated)) =
            (&item, item.negated_for_free())
        {
            added.push(negated);
        } else {
            subtracted.push(item);
        }
    }
    if added.iter().all(|t| matches!(t, Term::Mul(..))) {
        if let Some(i) = subtracted.iter().position(|t| matches!(t, Term::Const(_))) {
            if let Some(negated) = subtracted.remove(i).negated_for_free() {
                added.push(negated);
            }
        }
    }
    match (fused_sum(added), fused_sum(subtracted)) {
        (Some(p), Some(n)) => Term::Sub(boxed(p), boxed(n)),
        (Some(p), None) => p,
        (None, Some(n)) => Term::Neg(boxed(n)),
        (None, None) => Term::Const(0.0),
    }
}

/// The sum of `items` (all added) with its products fused: the other items
/// first, in order, then `acc = fma(x, y, acc)` for every product `x·y`;
/// `None` for no items.
fn fused_sum(items: Vec<Term>) -> Option<Term> {
    let (products, others): (Vec<Term>, Vec<Term>) =
        items.into_iter().partition(|t| matches!(t, Term::Mul(..)));
    let mut acc = others
        .into_iter()
        .reduce(|acc, t| Term::Add(boxed(acc), boxed(t)));
    for product in products {
        let Term::Mul(x, y) = product else {
            continue;
        };
        acc = Some(match acc {
            None => Term::Mul(x, y),
            Some(acc) => Term::Fma(x, y, boxed(acc)),
        });
    }
    acc
}

fn boxed(t: Term) -> Box<Term> {
    Box::new(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coeff::Coeff;
    use crate::pool::Pool;
    use crate::program::{OpCount, Program};
    use crate::symbol::Symbol;

    fn x(name: &str) -> Term {
        Term::Input(Symbol::parse(name))
    }

    fn mul(a: Term, b: Term) -> Term {
        Term::Mul(boxed(a), boxed(b))
    }

    fn add(a: Term, b: Term) -> Term {
        Term::Add(boxed(a), boxed(b))
    }

    fn sub(a: Term, b: Term) -> Term {
        Term::Sub(boxed(a), boxed(b))
    }

    fn fma(a: Term, b: Term, c: Term) -> Term {
        Term::Fma(boxed(a), boxed(b), boxed(c))
    }

    fn ops(term: &Term) -> OpCount {
        Program {
            locals: Vec::new(),
            outputs: vec![term.clone()],
        }
        .op_count()
    }

    fn counts(o: OpCount) -> (u32, u32, u32) {
        (o.mul, o.add, o.fma)
    }

    #[test]
    fn products_are_fused_into_the_other_items() {
        // a·b + c·d + e → fma(c, d, fma(a, b, e)): 2 fma, no mul, no add.
        let e = add(add(mul(x("a"), x("b")), mul(x("c"), x("d"))), x("e"));
        let fused = fuse(&e);
        assert_eq!(
            fused,
            fma(x("c"), x("d"), fma(x("a"), x("b"), x("e"))),
            "{fused:?}"
        );
        assert_eq!(counts(ops(&e)), (2, 2, 0));
        assert_eq!(counts(ops(&fused)), (0, 0, 2));
    }

    #[test]
    fn a_sum_of_products_only_multiplies_its_first_product() {
        // a·b + c·d → fma(c, d, a·b): 1 mul, 1 fma.
        let e = add(mul(x("a"), x("b")), mul(x("c"), x("d")));
        let fused = fuse(&e);
        assert_eq!(fused, fma(x("c"), x("d"), mul(x("a"), x("b"))));
        assert_eq!(counts(ops(&fused)), (1, 0, 1));
    }

    #[test]
    fn subtracted_products_are_summed_apart() {
        // a − b·c − d·e → a − fma(d, e, b·c): 1 mul, 1 add, 1 fma.
        let e = sub(sub(x("a"), mul(x("b"), x("c"))), mul(x("d"), x("e")));
        let fused = fuse(&e);
        assert_eq!(fused, sub(x("a"), fma(x("d"), x("e"), mul(x("b"), x("c")))));
        assert_eq!(counts(ops(&e)), (2, 2, 0));
        assert_eq!(counts(ops(&fused)), (1, 1, 1));
        // a − b·c alone stays as it is: fma(−b, c, a) would cost a negation.
        let e = sub(x("a"), mul(x("b"), x("c")));
        assert_eq!(fuse(&e), e);
    }

    #[test]
    fn constant_factors_are_negated_in_place() {
        // a − 0.5·b → fma(−0.5, b, a): 1 fma.
        let e = sub(x("a"), mul(Term::Const(0.5), x("b")));
        let fused = fuse(&e);
        assert_eq!(fused, fma(Term::Const(-0.5), x("b"), x("a")));
        assert_eq!(counts(ops(&fused)), (0, 0, 1));
        // a·b − 3 → fma(a, b, −3): the constant changes sign.
        let e = sub(mul(x("a"), x("b")), Term::Const(3.0));
        assert_eq!(fuse(&e), fma(x("a"), x("b"), Term::Const(-3.0)));
        // −(2·a) → −2·a: the negation disappears.
        let e = Term::Neg(boxed(mul(Term::Const(2.0), x("a"))));
        assert_eq!(fuse(&e), mul(Term::Const(-2.0), x("a")));
        assert_eq!(counts(ops(&fuse(&e))), (1, 0, 0));
    }

    #[test]
    fn chains_without_products_and_other_terms_are_unchanged() {
        let e = sub(add(x("a"), x("b")), x("c"));
        assert_eq!(fuse(&e), e);
        let e = Term::Div(boxed(x("a")), boxed(add(x("b"), x("c"))));
        assert_eq!(fuse(&e), e);
        let e = Term::Neg(boxed(x("a")));
        assert_eq!(fuse(&e), e);
        // A quotient is not a product: a/b + c stays.
        let e = add(Term::Div(boxed(x("a")), boxed(x("b"))), x("c"));
        assert_eq!(fuse(&e), e);
    }

    #[test]
    fn sums_inside_operands_are_fused() {
        // sin(a·b + c) · (d·e + f)
        let e = mul(
            Term::Sin(boxed(add(mul(x("a"), x("b")), x("c")))),
            add(mul(x("d"), x("e")), x("f")),
        );
        let fused = fuse(&e);
        assert_eq!(
            fused,
            mul(
                Term::Sin(boxed(fma(x("a"), x("b"), x("c")))),
                fma(x("d"), x("e"), x("f")),
            )
        );
        assert_eq!(counts(ops(&fused)), (1, 0, 2));
    }

    /// A pseudo-random value in [-2, 2) from a seed, for the numeric checks.
    fn value(seed: u64) -> f64 {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    }

    /// Expressions shaped like dynamics: shared sums, products with
    /// coefficients of both signs, powers, a quotient and trigonometry.
    fn dynamics_like(p: &mut Pool) -> Vec<crate::pool::Id> {
        let names = ["q0", "q1", "qd0", "qd1", "m", "l"];
        let s: Vec<_> = names.iter().map(|n| p.symbol(n)).collect();
        let (c0, s1) = (p.cos(s[0]), p.sin(s[1]));
        let w = p.add(s[2], s[3]);
        let w2 = p.powi(w, 2);
        let ml = p.mul(s[4], s[5]);
        let a = p.mul_all(&[ml, w2, s1]);
        let b = p.mul_all(&[s[4], c0, s[2]]);
        let c = p.mul(s[5], s1);
        let e1 = p.linear(
            &[
                (a, Coeff::ratio(1, 2)),
                (b, Coeff::int(-3)),
                (c, Coeff::int(1)),
            ],
            Coeff::int(-2),
        );
        let d = p.div(s[4], w);
        let e2 = p.linear(
            &[
                (a, Coeff::int(-1)),
                (d, Coeff::int(1)),
                (ml, Coeff::int(-1)),
            ],
            Coeff::int(0),
        );
        let e3 = p.mul(e1, e2);
        let e4 = p.linear(
            &[(e3, Coeff::int(1)), (w, Coeff::int(-1)), (b, Coeff::int(2))],
            Coeff::int(0),
        );
        vec![e1, e2, e3, e4]
    }

    #[test]
    fn fused_programs_compute_the_same_values_with_fewer_operations() {
        let mut p = Pool::new();
        let roots = dynamics_like(&mut p);
        let plain = Program::lower(&p, &roots);
        let fused = plain.fuse_multiply_add();
        let (before, after) = (plain.op_count(), fused.op_count());
        assert_eq!(before.fma, 0);
        assert!(after.fma > 0, "{after}");
        assert!(
            after.mul + after.add + after.fma < before.mul + before.add,
            "{before} → {after}"
        );
        assert_eq!(
            (after.div, after.sqrt, after.sin, after.cos),
            (before.div, before.sqrt, before.sin, before.cos)
        );
        assert_eq!(fused.locals.len(), plain.locals.len());
        for trial in 0..200u64 {
            let env = |symbol: &Symbol| {
                let name = symbol.to_string();
                let k = ["q0", "q1", "qd0", "qd1", "m", "l"]
                    .iter()
                    .position(|n| *n == name)?;
                Some(value(trial * 8 + k as u64))
            };
            let want = p.eval(&roots, &env).expect("bound");
            let got_plain = plain.eval(&env).expect("bound");
            let got_fused = fused.eval(&env).expect("bound");
            for ((w, a), b) in want.iter().zip(&got_plain).zip(&got_fused) {
                let scale = w.abs().max(1.0);
                assert!((a - w).abs() <= 1e-12 * scale, "plain {a} vs {w}");
                assert!((b - w).abs() <= 1e-12 * scale, "fused {b} vs {w}");
            }
        }
    }

    #[test]
    fn fused_evaluation_rounds_once() {
        // x² − (1 + 2⁻²⁹) at x = 1 + 2⁻³⁰: x·x rounds to 1 + 2⁻²⁹, so the
        // plain program gives 0; the fused one keeps the exact 2⁻⁶⁰.
        let mut p = Pool::new();
        let x = p.symbol("x");
        let x2 = p.powi(x, 2);
        let e = p.linear(
            &[(x2, Coeff::int(1))],
            -Coeff::ratio(536_870_913, 536_870_912),
        );
        let plain = Program::lower(&p, &[e]);
        let fused = plain.fuse_multiply_add();
        assert_eq!(counts(fused.op_count()), (0, 0, 1), "{fused:?}");
        let env = |_: &Symbol| Some(1.0 + 2f64.powi(-30));
        assert_eq!(plain.eval(&env).expect("bound"), vec![0.0]);
        assert_eq!(fused.eval(&env).expect("bound"), vec![2f64.powi(-60)]);
    }

    /// A random term over `x0`…`x3` and constants, with every kind of chain.
    fn random_term(seed: &mut u64, depth: u32) -> Term {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let pick = (*seed >> 33) % if depth == 0 { 2 } else { 8 };
        let k = (*seed >> 40) % 4;
        let sub = |seed: &mut u64| boxed(random_term(seed, depth - 1));
        match pick {
            0 => x(&format!("x{k}")),
            1 => Term::Const(0.25 * (k + 1) as f64),
            2 | 3 => Term::Mul(sub(seed), sub(seed)),
            4 => Term::Add(sub(seed), sub(seed)),
            5 => Term::Sub(sub(seed), sub(seed)),
            6 => Term::Neg(sub(seed)),
            _ => Term::Div(sub(seed), boxed(add(Term::Const(3.0), x("x0")))),
        }
    }

    #[test]
    fn every_fma_replaces_one_multiplication_and_at_least_one_addition() {
        let mut seed = 7;
        let mut fused_any = 0;
        for trial in 0..2000u64 {
            let term = random_term(&mut seed, 5);
            let fused = fuse(&term);
            let (before, after) = (ops(&term), ops(&fused));
            assert_eq!(after.mul + after.fma, before.mul, "{term:?}");
            assert!(after.add + after.fma <= before.add, "{term:?}");
            assert_eq!(after.div, before.div);
            fused_any += after.fma;
            let env = |symbol: &Symbol| match symbol.to_string().as_str() {
                "x0" => Some(value(trial * 4)),
                "x1" => Some(value(trial * 4 + 1)),
                "x2" => Some(value(trial * 4 + 2)),
                _ => Some(value(trial * 4 + 3)),
            };
            let eval = |t: &Term| {
                Program {
                    locals: Vec::new(),
                    outputs: vec![t.clone()],
                }
                .eval(&env)
                .expect("bound")[0]
            };
            let (want, got) = (eval(&term), eval(&fused));
            if want.is_finite() {
                let scale = want.abs().max(1.0);
                assert!(
                    (want - got).abs() <= 1e-9 * scale,
                    "{want} vs {got}: {term:?}"
                );
            }
        }
        assert!(fused_any > 1000, "only {fused_any} fused operations");
    }

    #[test]
    fn fusion_is_deterministic_and_idempotent() {
        let lower = || {
            let mut p = Pool::new();
            let roots = dynamics_like(&mut p);
            Program::lower(&p, &roots).fuse_multiply_add()
        };
        let once = lower();
        assert_eq!(once, lower());
        assert_eq!(once.fuse_multiply_add(), once);
    }
}
