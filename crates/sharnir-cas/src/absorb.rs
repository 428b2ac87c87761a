//! Sums that give up terms their users already have.
//!
//! The derivations build sums of sums: a joint force is a scaled sum of a
//! body's terms plus the next joint's, a velocity is rotated and then added
//! to. Where an inner sum repeats terms that its user also has, the canonical
//! form keeps both (`1.3·a + x − 0.5·(b − 9.5·a)`), and each repeat costs an
//! addition. [`absorb_common_terms`] rewrites the term lists so that
//!
//! - a term of a sum `L` that every user of `L` can express with terms of
//!   its own moves into the users (`6.05·a + x − 0.5·b`), when the users
//!   are all sums and `L` is not an output, so that nothing else sees `L`
//!   change;
//! - a term that is itself a sum made only of its user's terms is spread
//!   over them (with `L = a − 0.5·b`, `1.5·b − 2·a + 3·L` becomes `a`);
//!   `L` stays as it is for its other users.
//!
//! "Expressing with terms of its own" allows one level of sums: with
//! `A = −0.5·(u + v)` and `w` terms of a user, `−0.5·u − 0.5·v − 0.5·w` is
//! `A − 0.5·w`. Every rewrite keeps the value of every output and saves an
//! addition.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::FxHashMap as HashMap;

/// A sum of more terms than this neither gives terms to its users nor takes
/// any from its own terms, and a sum with a user this long keeps its terms;
/// `share.rs` leaves hosts of more shared items out of its pairing. Both
/// passes look terms up in lists, quadratic in a sum's length, and the long
/// sums are the flat ones of long chains (a link's position sums every
/// inboard link's offset; the energy sums over every body): the lowering
/// writes each as the previous one plus its own terms
/// (`program/lower.rs`). The bound is where the passes stop paying for
/// their time: at 160 every module of Talos and of the 40-link spatial
/// chain is what it is without a bound, and the 160-link chain's linear
/// outputs generate in 2.6 s (28 s with a bound of 400); at 80 Talos's
/// Coriolis matrix needs 0.9 % more operations and the 40-link chain's
/// energy half again as many additions. No bundled spec has a sum of more
/// than 69 terms or a host of more than 49 shared items.
pub(crate) const LONG_SUM: usize = 160;

/// Terms `cᵢ·tᵢ` of a sum.
type Terms = Vec<(Id, Coeff)>;

/// The new term lists of the sums that change (by original id); the values
/// of `roots` stay the same for every input.
pub(crate) fn absorb_common_terms(
    pool: &Pool,
    roots: &[Id],
    reachable: &[bool],
) -> HashMap<Id, Terms> {
    let mut sums = Sums::new(pool, roots, reachable);
    for (i, _) in reachable.iter().enumerate().filter(|(_, &seen)| seen) {
        let id = Id::from_index(i);
        if sums
            .terms
            .get(&id)
            .is_some_and(|terms| terms.len() <= LONG_SUM)
        {
            sums.spread_covered_terms(id);
            sums.move_terms_into_users(id);
        }
    }
    sums.terms
        .into_iter()
        .filter(|(id, terms)| match pool.node(*id) {
            Node::Add(original, _) => original[..] != terms[..],
            _ => false,
        })
        .collect()
}

/// The term lists of every reachable sum, as rewritten so far, and who
/// uses each node.
struct Sums {
    terms: HashMap<Id, Terms>,
    /// Constant parts, which never move.
    constants: HashMap<Id, Coeff>,
    /// The sums that have each node as a term.
    users: HashMap<Id, Vec<Id>>,
    /// Nodes that something other than a sum uses: an output, a product,
    /// a function.
    used_elsewhere: Vec<bool>,
}

impl Sums {
    fn new(pool: &Pool, roots: &[Id], reachable: &[bool]) -> Sums {
        let mut sums = Sums {
            terms: HashMap::default(),
            constants: HashMap::default(),
            users: HashMap::default(),
            used_elsewhere: vec![false; reachable.len()],
        };
        for &r in roots {
            sums.used_elsewhere[r.index()] = true;
        }
        for (i, _) in reachable.iter().enumerate().filter(|(_, &seen)| seen) {
            let id = Id::from_index(i);
            match pool.node(id) {
                Node::Add(terms, c0) => {
                    for &(t, _) in terms.iter() {
                        sums.users.entry(t).or_default().push(id);
                    }
                    sums.terms.insert(id, terms.to_vec());
                    sums.constants.insert(id, *c0);
                }
                _ => {
                    for child in pool.children(id) {
                        sums.used_elsewhere[child.index()] = true;
                    }
                }
            }
        }
        sums
    }

    fn coefficient(&self, host: Id, t: Id) -> Option<Coeff> {
        let terms = self.terms.get(&host)?;
        terms.iter().find(|&&(h, _)| h == t).map(|&(_, c)| c)
    }

    /// `host += c·t`, dropping the term if its coefficient cancels.
    fn add(&mut self, host: Id, t: Id, c: Coeff) {
        let Some(terms) = self.terms.get_mut(&host) else {
            return;
        };
        match terms.iter().position(|&(h, _)| h == t) {
            Some(i) => {
                terms[i].1 = terms[i].1 + c;
                if terms[i].1.is_zero() {
                    terms.remove(i);
                    self.forget_user(t, host);
                }
            }
            None if !c.is_zero() => {
                terms.push((t, c));
                self.users.entry(t).or_default().push(host);
            }
            None => {}
        }
    }

    fn remove(&mut self, host: Id, t: Id) {
        if let Some(terms) = self.terms.get_mut(&host) {
            terms.retain(|&(h, _)| h != t);
        }
        self.forget_user(t, host);
    }

    fn forget_user(&mut self, t: Id, host: Id) {
        if let Some(users) = self.users.get_mut(&t) {
            users.retain(|&u| u != host);
        }
    }

    /// The terms `terms` written, as far as they can be, with the terms of
    /// `host` other than `except`: the sums of `host` whose terms they
    /// contain in proportion, the terms `host` has, and (with `nested`) the
    /// terms that are sums `host` can write completely. Returns the
    /// combination of `host`'s terms and the terms left over.
    fn express(&self, terms: &[(Id, Coeff)], host: Id, except: Id, nested: bool) -> (Terms, Terms) {
        let Some(host_terms) = self.terms.get(&host) else {
            return (Vec::new(), terms.to_vec());
        };
        let mut rest = terms.to_vec();
        let mut parts = Vec::new();
        for &(h, _) in host_terms {
            if h == except {
                continue;
            }
            let Some(inner) = self.terms.get(&h) else {
                continue;
            };
            if inner.len() < 2 || !self.constants.get(&h).is_some_and(|c| c.is_zero()) {
                continue;
            }
            if let Some(k) = proportion(&rest, inner) {
                rest.retain(|&(x, _)| !inner.iter().any(|&(y, _)| x == y));
                parts.push((h, k));
            }
        }
        let mut left = Vec::new();
        for (x, c) in rest {
            if x != except && self.coefficient(host, x).is_some() {
                parts.push((x, c));
            } else if let Some(whole) = nested
                .then(|| self.written_completely(x, host, except))
                .flatten()
            {
                parts.extend(whole.into_iter().map(|(h, k)| (h, c * k)));
            } else {
                left.push((x, c));
            }
        }
        (parts, left)
    }

    /// The sum `t` (without a constant part) written completely with the
    /// terms of `host` other than `except` and `t`, if it can be.
    fn written_completely(&self, t: Id, host: Id, except: Id) -> Option<Vec<(Id, Coeff)>> {
        if !self.constants.get(&t)?.is_zero() {
            return None;
        }
        let terms = self.terms.get(&t)?;
        let (parts, left) = self.express(terms, host, t, false);
        let uses_except = parts.iter().any(|&(h, _)| h == except);
        (left.is_empty() && !uses_except).then_some(parts)
    }

    /// Spreads every term of `host` that is a sum of `host`'s other terms
    /// over them.
    fn spread_covered_terms(&mut self, host: Id) {
        let candidates: Vec<Id> = self.terms[&host].iter().map(|&(t, _)| t).collect();
        for t in candidates {
            let Some(scale) = self.coefficient(host, t) else {
                continue;
            };
            let Some(parts) = self.written_completely(t, host, t) else {
                continue;
            };
            self.remove(host, t);
            for (h, k) in parts {
                self.add(host, h, scale * k);
            }
        }
    }

    /// Moves the terms of the sum `inner` that every user of `inner` can
    /// write with terms of its own into the users, when the users agree on
    /// which terms those are.
    fn move_terms_into_users(&mut self, inner: Id) {
        if self.used_elsewhere[inner.index()] {
            return;
        }
        let users = self.users.get(&inner).cloned().unwrap_or_default();
        let long = |user: &Id| self.terms.get(user).is_some_and(|t| t.len() > LONG_SUM);
        if users.iter().any(long) {
            return;
        }
        let terms = self.terms[&inner].clone();
        let mut plans = Vec::with_capacity(users.len());
        let mut moved: Option<Vec<Id>> = None;
        for &user in &users {
            let Some(scale) = self.coefficient(user, inner) else {
                return;
            };
            let (parts, left) = self.express(&terms, user, inner, true);
            let kept: Vec<Id> = left.iter().map(|&(x, _)| x).collect();
            if moved.as_ref().is_some_and(|m| *m != kept) || kept.len() == terms.len() {
                return;
            }
            moved = Some(kept);
            plans.push((user, scale, parts));
        }
        let Some(kept) = moved else {
            return;
        };
        if kept.is_empty() && !self.constants[&inner].is_zero() {
            return;
        }
        for &(t, _) in &terms {
            if !kept.contains(&t) {
                self.remove(inner, t);
            }
        }
        for (user, scale, parts) in plans {
            for (h, k) in parts {
                self.add(user, h, scale * k);
            }
        }
        if !self.constants[&inner].is_zero() {
            return;
        }
        match self.terms[&inner].as_slice() {
            [] => {
                for user in users {
                    self.remove(user, inner);
                }
            }
            &[(t, c)] => {
                for user in users {
                    if let Some(scale) = self.coefficient(user, inner) {
                        self.remove(user, inner);
                        self.add(user, t, scale * c);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `k` with `terms ⊇ k·inner` term by term, if there is one.
fn proportion(terms: &[(Id, Coeff)], inner: &[(Id, Coeff)]) -> Option<Coeff> {
    let coefficient = |x: Id| terms.iter().find(|&&(t, _)| t == x).map(|&(_, c)| c);
    let (first, c) = *inner.first()?;
    let k = coefficient(first)? * c.recip();
    inner
        .iter()
        .all(|&(x, cx)| coefficient(x) == Some(k * cx))
        .then_some(k)
}

#[cfg(test)]
mod tests {
    use crate::coeff::Coeff;
    use crate::pool::Pool;
    use crate::program::Program;

    use crate::test_values::env;

    #[test]
    fn a_term_made_of_its_users_terms_is_spread_over_them() {
        let mut p = Pool::new();
        let [a, b, u] = ["a", "b", "u"].map(|n| p.symbol(n));
        // L = a − 0.5b is an output too; 1.5b − 2a + 3L + u is a + u:
        // one addition, against L's one plus three.
        let l = p.linear(&[(a, Coeff::ONE), (b, Coeff::ratio(-1, 2))], Coeff::ZERO);
        let host = p.linear(
            &[
                (b, Coeff::ratio(3, 2)),
                (a, Coeff::int(-2)),
                (l, Coeff::int(3)),
                (u, Coeff::ONE),
            ],
            Coeff::ZERO,
        );
        let roots = [l, host];
        let program = Program::lower(&p, &roots);
        let ops = program.op_count();
        assert_eq!((ops.mul, ops.add), (1, 2));
        let got = program.eval(&env).expect("bound");
        let want = p.eval(&roots, &env).expect("bound");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-14, "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn terms_that_every_user_has_move_into_the_users() {
        let mut p = Pool::new();
        let [u, v, w, x] = ["u", "v", "w", "x"].map(|n| p.symbol(n));
        // A = −0.5·(u + v) is an output. S = −0.5u − 0.5v − 0.5w + x has one
        // user, H = 2A + w + 3S: S's first three terms are A − 0.5w, terms H
        // has, so H = 5A − 0.5w + 3x: three multiplications (0.5 for A,
        // 5, and 3 with 0.5 grouped or not) and three additions at most,
        // against S's four terms and H's own.
        let half = Coeff::ratio(-1, 2);
        let a = p.linear(&[(u, half), (v, half)], Coeff::ZERO);
        let s = p.linear(
            &[(u, half), (v, half), (w, half), (x, Coeff::ONE)],
            Coeff::ZERO,
        );
        let h = p.linear(
            &[(a, Coeff::int(2)), (w, Coeff::ONE), (s, Coeff::int(3))],
            Coeff::ZERO,
        );
        let roots = [a, h];
        let program = Program::lower(&p, &roots);
        let ops = program.op_count();
        assert_eq!((ops.mul, ops.add), (4, 3));
        let got = program.eval(&env).expect("bound");
        let want = p.eval(&roots, &env).expect("bound");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-14, "{got:?} vs {want:?}");
        }
    }
}
