//! Factoring of sums of products in a lowered program (Horner's rule).
//!
//! Lowering prints every product of a sum as it is, so `x·a + x·b − x·c`
//! multiplies by `x` three times. [`factor`] takes the factor that the most
//! products of a sum have in common out of them, `x·(a + b − c)`, and
//! repeats inside the new sum and on what is left, which for a polynomial
//! is Horner's rule: `x²·a + x·b + c` becomes `x·(x·a + b) + c`. Each step
//! saves one multiplication per product beyond the first and leaves the
//! additions as they were.
//!
//! It works on [`Term`]s, after lowering, because there every product of a
//! sum is used by that sum alone: a product needed elsewhere is a local,
//! which is one factor here, and taking a factor out of it would compute it
//! twice.

use crate::program::{chain_items, signed_sum, Term};
use rustc_hash::FxHashMap as HashMap;
use std::hash::{Hash, Hasher};

/// `term` with every sum factored, recursively.
pub(crate) fn factor(term: &Term) -> Term {
    match term {
        Term::Add(..) | Term::Sub(..) | Term::Neg(_) => factor_sum(
            chain_items(term)
                .into_iter()
                .map(|(t, negative)| (factor(t), negative))
                .collect(),
        ),
        Term::Const(_) | Term::Pi | Term::Input(_) | Term::Local(_) => term.clone(),
        Term::Mul(a, b) => Term::Mul(boxed(factor(a)), boxed(factor(b))),
        Term::Div(a, b) => Term::Div(boxed(factor(a)), boxed(factor(b))),
        Term::Sin(a) => Term::Sin(boxed(factor(a))),
        Term::Cos(a) => Term::Cos(boxed(factor(a))),
        Term::Sqrt(a) => Term::Sqrt(boxed(factor(a))),
        Term::Fma(a, b, c) => Term::Fma(boxed(factor(a)), boxed(factor(b)), boxed(factor(c))),
    }
}

/// The factors of a product chain, in order (`a·b·c` as `[a, b, c]`); any
/// other term is its own single factor.
fn factors(term: &Term) -> Vec<Term> {
    match term {
        Term::Mul(a, b) => {
            let mut list = factors(a);
            list.extend(factors(b));
            list
        }
        other => vec![other.clone()],
    }
}

fn product(list: Vec<Term>) -> Term {
    list.into_iter()
        .reduce(|acc, t| Term::Mul(boxed(acc), boxed(t)))
        .unwrap_or(Term::Const(1.0))
}

/// A sum of signed items, with the most common factor of its products
/// taken out, repeatedly.
fn factor_sum(items: Vec<(Term, bool)>) -> Term {
    let mut items: Vec<(Vec<Term>, bool)> = items
        .into_iter()
        .map(|(term, negative)| (factors(&term), negative))
        .collect();
    while let Some(common) = most_common_factor(&items) {
        let (mut group, rest): (Vec<_>, Vec<_>) = items
            .into_iter()
            .partition(|(list, _)| list.len() >= 2 && list.contains(&common));
        for (list, _) in &mut group {
            if let Some(i) = list.iter().position(|f| *f == common) {
                list.remove(i);
            }
        }
        let all_negative = group.iter().all(|(_, negative)| *negative);
        let inner = factor_sum(
            group
                .into_iter()
                .map(|(list, negative)| (product(list), negative && !all_negative))
                .collect(),
        );
        items = rest;
        items.push((vec![common, inner], all_negative));
    }
    signed_sum(
        items
            .into_iter()
            .map(|(list, negative)| (product(list), negative))
            .collect(),
    )
}

/// The factor (other than a constant) that the most products of `items`
/// share, if two or more do; the first such factor on a tie (the one whose
/// first occurrence comes first). One pass over the factors, each looked
/// up by its hash: a long sum is factored in time about its size per
/// factor taken out, not its square.
fn most_common_factor(items: &[(Vec<Term>, bool)]) -> Option<Term> {
    // Per distinct factor: its first occurrence, how many products hold
    // it, and the last product counted (a factor twice in one product
    // counts once).
    let mut seen: HashMap<Shape<'_>, usize> = HashMap::default();
    let mut factors: Vec<(&Term, usize, usize)> = Vec::new();
    for (i, (list, _)) in items.iter().enumerate() {
        if list.len() < 2 {
            continue;
        }
        for candidate in list {
            if matches!(candidate, Term::Const(_)) {
                continue;
            }
            let next = factors.len();
            let k = *seen.entry(Shape(candidate)).or_insert(next);
            if k == next {
                factors.push((candidate, 1, i));
            } else if factors[k].2 != i {
                factors[k].1 += 1;
                factors[k].2 = i;
            }
        }
    }
    let mut best: Option<(usize, &Term)> = None;
    for &(factor, count, _) in &factors {
        if count >= 2 && best.is_none_or(|(c, _)| count > c) {
            best = Some((count, factor));
        }
    }
    best.map(|(_, f)| f.clone())
}

/// A term as a key: equal terms (by `==`, so `0.0` and `-0.0` too) hash
/// alike.
struct Shape<'a>(&'a Term);

impl PartialEq for Shape<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Shape<'_> {}

impl Hash for Shape<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_term(self.0, state);
    }
}

fn hash_term<H: Hasher>(term: &Term, state: &mut H) {
    std::mem::discriminant(term).hash(state);
    match term {
        Term::Const(c) => (if *c == 0.0 { 0 } else { c.to_bits() }).hash(state),
        Term::Pi => {}
        Term::Input(symbol) => symbol.hash(state),
        Term::Local(i) => i.hash(state),
        Term::Neg(a) | Term::Sin(a) | Term::Cos(a) | Term::Sqrt(a) => hash_term(a, state),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
            hash_term(a, state);
            hash_term(b, state);
        }
        Term::Fma(a, b, c) => {
            hash_term(a, state);
            hash_term(b, state);
            hash_term(c, state);
        }
    }
}

fn boxed(t: Term) -> Box<Term> {
    Box::new(t)
}

#[cfg(test)]
mod tests {
    use crate::coeff::Coeff;
    use crate::pool::Pool;
    use crate::program::Program;

    use crate::test_values::env;

    fn check(p: &Pool, root: crate::pool::Id, ops: (u32, u32)) {
        let program = Program::lower(p, &[root]);
        let count = program.op_count();
        assert_eq!((count.mul, count.add), ops, "{program:?}");
        let got = program.eval(&env).expect("bound")[0];
        let want = p.eval(&[root], &env).expect("bound")[0];
        assert!((got - want).abs() < 1e-14, "{got} vs {want}");
    }

    #[test]
    fn the_most_common_factor_is_counted_once_per_product_and_the_first_wins_a_tie() {
        use super::most_common_factor;
        use crate::program::Term;
        let [x, y, z] = [0, 1, 2].map(Term::Local);
        let sine = Term::Sin(Box::new(Term::Mul(
            Box::new(Term::Const(0.0)),
            Box::new(x.clone()),
        )));
        let negated_zero = Term::Sin(Box::new(Term::Mul(
            Box::new(Term::Const(-0.0)),
            Box::new(x.clone()),
        )));
        let items = vec![
            (vec![Term::Const(2.0), y.clone(), z.clone()], false),
            (vec![z.clone(), z.clone()], true),
            (vec![y.clone(), sine.clone()], false),
            (vec![x.clone()], false),
            (vec![negated_zero, x.clone()], false),
        ];
        // y and sin(0·x) (equal to sin(−0·x)) are in two products each, z
        // in two (twice in one): y comes first.
        assert_eq!(most_common_factor(&items), Some(y.clone()));
        assert_eq!(most_common_factor(&items[2..]), Some(sine));
        assert_eq!(
            most_common_factor(&items[3..4]),
            None,
            "a lone factor is no product"
        );
    }

    #[test]
    fn a_factor_common_to_products_of_a_sum_is_taken_out() {
        let mut p = Pool::new();
        let [a, b, c, x] = ["a", "b", "c", "x"].map(|n| p.symbol(n));
        // x·a + x·b − x·c = x·(a + b − c): one multiplication, not three.
        let (xa, xb, xc) = (p.mul(x, a), p.mul(x, b), p.mul(x, c));
        let sum = p.linear(
            &[(xa, Coeff::ONE), (xb, Coeff::ONE), (xc, Coeff::MINUS_ONE)],
            Coeff::ZERO,
        );
        check(&p, sum, (1, 2));
    }

    #[test]
    fn polynomials_follow_horners_rule() {
        let mut p = Pool::new();
        let [a, b, c, x] = ["a", "b", "c", "x"].map(|n| p.symbol(n));
        // x²·a + x·b + c = x·(x·a + b) + c: two multiplications, not four.
        let x2a = p.product(&[(x, 2), (a, 1)]);
        let xb = p.mul(x, b);
        let poly = p.sum(&[x2a, xb, c]);
        check(&p, poly, (2, 2));
    }
}
