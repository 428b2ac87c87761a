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
/// share, if two or more do; the first such factor on a tie.
fn most_common_factor(items: &[(Vec<Term>, bool)]) -> Option<Term> {
    let mut best: Option<(usize, &Term)> = None;
    for (i, (list, _)) in items.iter().enumerate() {
        if list.len() < 2 {
            continue;
        }
        for candidate in list {
            if matches!(candidate, Term::Const(_)) {
                continue;
            }
            let count = 1 + items[i + 1..]
                .iter()
                .filter(|(other, _)| other.len() >= 2 && other.contains(candidate))
                .count();
            let better = match best {
                Some((c, _)) => count > c,
                None => count >= 2,
            };
            if better {
                best = Some((count, candidate));
            }
        }
    }
    best.map(|(_, f)| f.clone())
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
