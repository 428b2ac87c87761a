//! The hash-consed expression DAG.
//!
//! Every expression lives in a [`Pool`] and is named by an [`Id`]. Building the
//! same expression twice returns the same `Id`, so common subexpressions are
//! shared by construction, equality is an integer comparison, and the DAG can
//! be walked in `Id` order because children are always created before parents.
//!
//! Constructors keep a canonical form:
//! - sums are n-ary, `Σ cᵢ·tᵢ + c₀`, with terms sorted by `Id`, like terms
//!   merged, zero coefficients dropped, and no term that is a number; a sum
//!   appears as a term only scaled by a number other than ±1 (`0.3·(a + b)`
//!   stays one shared term; `a − (a + b)` is flattened and cancels);
//! - products are n-ary, `Π bᵢ^eᵢ`, with integer exponents, factors sorted by
//!   `Id`, equal bases merged, no numeric factor (numbers move into the
//!   coefficient of an enclosing one-term sum) and no factor that is a product;
//! - `0·x = 0`, `1·x = x`, `x + 0 = x`, `x⁰ = 1`, numbers fold;
//! - `sin` and `cos` of exact multiples of π/2 are exact, `sin(−x) = −sin(x)`,
//!   `cos(−x) = cos(x)`, and `sin²x + cos²x` is contracted when both squares
//!   appear in one sum with the same coefficient.

use crate::coeff::Coeff;
use crate::symbol::Symbol;
use hashbrown::HashTable;
use std::hash::BuildHasher;
use std::ops::{Add, Mul};
use std::sync::LazyLock;

/// The name of an expression in a [`Pool`]; ordered by creation, so a child's
/// `Id` is always smaller than its parents'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(u32);

impl Id {
    /// What a pool that has run out of ids hands out instead of a new node
    /// (see [`Pool::overflowed`]). No node ever has this id — the pool
    /// refuses to grow to it — so it can never alias a real expression: it
    /// reads as the symbol [`Id::OVERFLOW_SYMBOL`], which no environment
    /// binds, so evaluating anything built on it fails with
    /// [`crate::UnboundSymbol`], and every node built from it is this id
    /// again.
    pub const OVERFLOW: Id = Id(u32::MAX);

    /// The name [`Id::OVERFLOW`] reads as: not a name any spec, parameter
    /// or coordinate can have, so the error that names it says what
    /// happened.
    pub const OVERFLOW_SYMBOL: &'static str = "<expression pool out of ids>";

    /// The position of this node in the pool's creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id at `index` of a pool's creation order. Only called with the
    /// index of an existing node, which [`Pool::intern`] keeps below
    /// `u32::MAX`; an index beyond gives [`Id::OVERFLOW`], never the id of
    /// another node.
    pub(crate) fn from_index(index: usize) -> Id {
        u32::try_from(index).map_or(Id::OVERFLOW, Id)
    }

    /// Whether this is [`Id::OVERFLOW`]: whatever built it ran out of ids.
    pub fn is_overflow(self) -> bool {
        self == Id::OVERFLOW
    }
}

/// The node [`Id::OVERFLOW`] reads as.
static OVERFLOW_NODE: LazyLock<Node> =
    LazyLock::new(|| Node::Symbol(Symbol::Named(Id::OVERFLOW_SYMBOL.to_owned())));

/// One node of the DAG. Read-only for users: build nodes with [`Pool`]'s
/// constructors, which maintain the canonical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A number.
    Num(Coeff),
    /// The constant π, kept symbolic so that `sin(π/2)` is exactly 1.
    Pi,
    /// An input: a parameter, a joint coordinate, a velocity, … (typed, so
    /// that nothing downstream parses a name back).
    Symbol(Symbol),
    /// `Σ cᵢ·tᵢ + c₀`.
    Add(Box<[(Id, Coeff)]>, Coeff),
    /// `Π bᵢ^eᵢ` with nonzero integer exponents.
    Mul(Box<[(Id, i32)]>),
    /// Sine.
    Sin(Id),
    /// Cosine.
    Cos(Id),
    /// Principal square root.
    Sqrt(Id),
}

/// Owner of all expression nodes; see the module documentation.
#[derive(Default, Debug)]
pub struct Pool {
    nodes: Vec<Node>,
    /// Each node's id under the node's hash (kept beside it, so growing
    /// the table rehashes no node): the nodes themselves are stored once,
    /// in `nodes`, and the table compares a candidate against them there.
    index: HashTable<(u64, Id)>,
    /// Set when a node could not be added because ids (`u32`) ran out; see
    /// [`Pool::overflowed`].
    overflowed: bool,
    /// A smaller node limit than the ids', for the tests of running out.
    limit: Option<usize>,
}

impl Pool {
    /// An empty pool.
    pub fn new() -> Pool {
        Pool::default()
    }

    /// An empty pool that runs out of ids after `limit` nodes, to test what
    /// running out does without four billion of them.
    #[cfg(test)]
    pub(crate) fn with_limit(limit: usize) -> Pool {
        Pool {
            limit: Some(limit),
            ..Pool::default()
        }
    }

    /// The node behind an id. [`Id::OVERFLOW`] (and any id this pool never
    /// handed out) reads as the symbol [`Id::OVERFLOW_SYMBOL`], so that a
    /// pool that ran out of ids fails where its expressions are used
    /// (evaluation reports the unbound symbol) instead of panicking here.
    pub fn node(&self, id: Id) -> &Node {
        self.nodes.get(id.index()).unwrap_or(&OVERFLOW_NODE)
    }

    /// Number of distinct nodes built so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True before the first node is built.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of `node` as given, built if new. The canonical constructors
    /// all end here; called directly (by `share.rs`), it keeps a node that
    /// is deliberately outside the canonical form.
    pub(crate) fn intern(&mut self, node: Node) -> Id {
        let hash = rustc_hash::FxBuildHasher.hash_one(&node);
        let nodes = &self.nodes;
        if let Some(&(_, id)) = self
            .index
            .find(hash, |&(h, id)| h == hash && nodes[id.index()] == node)
        {
            return id;
        }
        let index = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i != Id::OVERFLOW.0)
            .filter(|_| self.limit.is_none_or(|limit| self.nodes.len() < limit));
        let Some(index) = index else {
            // No id left: the node is not added, and the pool says so and
            // hands out the sentinel, which no node has, instead of an id
            // that aliases another node.
            self.overflowed = true;
            return Id::OVERFLOW;
        };
        let id = Id(index);
        self.nodes.push(node);
        self.index.insert_unique(hash, (hash, id), |&(h, _)| h);
        id
    }

    /// Whether a node could not be added because the pool holds as many
    /// nodes as a `u32` id can name (about four billion): every expression
    /// built since is meaningless, and whoever built them must report an
    /// error rather than use them.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// A number.
    pub fn num(&mut self, c: Coeff) -> Id {
        self.intern(Node::Num(c))
    }

    /// An exact integer.
    pub fn int(&mut self, n: i64) -> Id {
        self.num(Coeff::int(n))
    }

    /// Exact zero.
    pub fn zero(&mut self) -> Id {
        self.num(Coeff::ZERO)
    }

    /// Exact one.
    pub fn one(&mut self) -> Id {
        self.num(Coeff::ONE)
    }

    /// The constant π.
    pub fn pi(&mut self) -> Id {
        self.intern(Node::Pi)
    }

    /// An input; the same symbol always gives the same id. How the
    /// derivations make their symbols.
    pub fn input(&mut self, symbol: Symbol) -> Id {
        self.intern(Node::Symbol(symbol))
    }

    /// The symbol a name stands for ([`Symbol::parse`]: `"q[0]"` is
    /// [`Symbol::Position`]`(0)`, `"x"` is [`Symbol::Named`]); the same name
    /// always gives the same id. A convenience for tests and tools that
    /// write expressions by name.
    pub fn symbol(&mut self, name: &str) -> Id {
        self.input(Symbol::parse(name))
    }

    /// The numeric value if the node is a number.
    pub fn as_num(&self, id: Id) -> Option<Coeff> {
        match self.node(id) {
            Node::Num(c) => Some(*c),
            _ => None,
        }
    }

    /// True if the node is exactly zero.
    pub fn is_zero(&self, id: Id) -> bool {
        self.as_num(id).is_some_and(Coeff::is_zero)
    }

    /// `a + b`.
    pub fn add(&mut self, a: Id, b: Id) -> Id {
        self.sum(&[a, b])
    }

    /// `a − b`.
    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        let nb = self.neg(b);
        self.sum(&[a, nb])
    }

    /// `−a`.
    pub fn neg(&mut self, a: Id) -> Id {
        self.scale(Coeff::MINUS_ONE, a)
    }

    /// `c·a`, distributing over sums so that sums stay flat.
    pub fn scale(&mut self, c: Coeff, a: Id) -> Id {
        self.linear(&[(a, c)], Coeff::ZERO)
    }

    /// The sum of several expressions.
    pub fn sum(&mut self, items: &[Id]) -> Id {
        let terms: Vec<(Id, Coeff)> = items.iter().map(|&id| (id, Coeff::ONE)).collect();
        self.linear(&terms, Coeff::ZERO)
    }

    /// `Σ cᵢ·xᵢ + c₀` for arbitrary expressions `xᵢ`: the canonical sum builder.
    pub fn linear(&mut self, items: &[(Id, Coeff)], constant: Coeff) -> Id {
        let mut merged: Vec<(Id, Coeff)> = Vec::with_capacity(items.len() * 2);
        let mut c0 = constant;
        for &(id, c) in items {
            if c.is_zero() {
                continue;
            }
            match self.node(id) {
                Node::Num(v) => c0 = c0.add(c.mul(*v)),
                Node::Add(terms, k) if distributes(c, terms, *k) => {
                    c0 = c0.add(c.mul(*k));
                    merged.extend(terms.iter().map(|&(t, tc)| (t, tc.mul(c))));
                }
                _ => merged.push((id, c)),
            }
        }
        merged.sort_by_key(|&(id, _)| id);
        let mut terms: Vec<(Id, Coeff)> = Vec::with_capacity(merged.len());
        for (id, c) in merged {
            match terms.last_mut() {
                Some((last, lc)) if *last == id => *lc = lc.add(c),
                _ => terms.push((id, c)),
            }
        }
        terms.retain(|(_, c)| !c.is_zero());
        let (terms, c0) = self.contract_pythagorean(terms, c0);
        match terms.as_slice() {
            [] => self.num(c0),
            [(id, c)] if c.is_one() && c0.is_zero() => *id,
            _ => self.intern(Node::Add(terms.into_boxed_slice(), c0)),
        }
    }

    /// Replaces `k·sin²x + k·cos²x` by `k` wherever both squares appear.
    fn contract_pythagorean(
        &mut self,
        mut terms: Vec<(Id, Coeff)>,
        mut c0: Coeff,
    ) -> (Vec<(Id, Coeff)>, Coeff) {
        let squares: Vec<(usize, Id, bool)> = terms
            .iter()
            .enumerate()
            .filter_map(|(i, &(t, _))| match self.node(t) {
                Node::Mul(f) if f.len() == 1 && f[0].1 == 2 => match self.node(f[0].0) {
                    Node::Sin(x) => Some((i, *x, true)),
                    Node::Cos(x) => Some((i, *x, false)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut remove = Vec::new();
        for &(i, x, is_sin) in &squares {
            if !is_sin {
                continue;
            }
            let partner = squares
                .iter()
                .find(|&&(j, y, s)| !s && y == x && terms[j].1 == terms[i].1);
            if let Some(&(j, _, _)) = partner {
                c0 = c0.add(terms[i].1);
                remove.push(i);
                remove.push(j);
            }
        }
        if !remove.is_empty() {
            let mut index = 0;
            terms.retain(|_| {
                let keep = !remove.contains(&index);
                index += 1;
                keep
            });
        }
        (terms, c0)
    }

    /// `a·b`.
    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        self.product(&[(a, 1), (b, 1)])
    }

    /// The product of several expressions.
    pub fn mul_all(&mut self, items: &[Id]) -> Id {
        let factors: Vec<(Id, i32)> = items.iter().map(|&id| (id, 1)).collect();
        self.product(&factors)
    }

    /// `a / b`.
    pub fn div(&mut self, a: Id, b: Id) -> Id {
        self.product(&[(a, 1), (b, -1)])
    }

    /// `a^n` for an integer `n`.
    pub fn powi(&mut self, a: Id, n: i32) -> Id {
        self.product(&[(a, n)])
    }

    /// `Π xᵢ^eᵢ` for arbitrary expressions: the canonical product builder.
    pub fn product(&mut self, items: &[(Id, i32)]) -> Id {
        let mut coeff = Coeff::ONE;
        let mut merged: Vec<(Id, i32)> = Vec::with_capacity(items.len() * 2);
        for &(id, e) in items {
            if e == 0 {
                continue;
            }
            self.split_coefficient(id, e, &mut coeff, &mut merged);
        }
        if coeff.is_zero() {
            return self.zero();
        }
        merged.sort_by_key(|&(id, _)| id);
        let mut factors: Vec<(Id, i32)> = Vec::with_capacity(merged.len());
        for (id, e) in merged {
            match factors.last_mut() {
                Some((last, le)) if *last == id => *le = le.saturating_add(e),
                _ => factors.push((id, e)),
            }
        }
        factors.retain(|&(_, e)| e != 0);
        let body = match factors.as_slice() {
            [] => return self.num(coeff),
            [(id, 1)] => *id,
            _ => self.intern(Node::Mul(factors.into_boxed_slice())),
        };
        self.scale(coeff, body)
    }

    /// Pulls numeric coefficients out of `id^e` and pushes its factors.
    fn split_coefficient(&mut self, id: Id, e: i32, coeff: &mut Coeff, out: &mut Vec<(Id, i32)>) {
        match self.node(id).clone() {
            Node::Num(v) => *coeff = coeff.mul(v.powi(e)),
            Node::Mul(fs) => out.extend(fs.iter().map(|&(b, be)| (b, be.saturating_mul(e)))),
            Node::Add(terms, c0) if terms.len() == 1 && c0.is_zero() => {
                let (t, c) = terms[0];
                *coeff = coeff.mul(c.powi(e));
                self.split_coefficient(t, e, coeff, out);
            }
            _ => out.push((id, e)),
        }
    }

    /// Splits an expression into `c · rest` with `rest` free of a numeric factor.
    fn coefficient_and_rest(&mut self, id: Id) -> (Coeff, Id) {
        match self.node(id) {
            Node::Add(terms, c0) if terms.len() == 1 && c0.is_zero() => (terms[0].1, terms[0].0),
            Node::Num(c) => {
                let c = *c;
                let one = self.one();
                (c, one)
            }
            _ => (Coeff::ONE, id),
        }
    }

    /// True if the canonical form of `id` "looks negative" (its leading
    /// coefficient is negative), so `sin` and `cos` can use their parity.
    fn leading_negative(&self, id: Id) -> bool {
        match self.node(id) {
            Node::Num(c) => c.is_negative(),
            Node::Add(terms, c0) => terms
                .first()
                .map_or(c0.is_negative(), |(_, c)| c.is_negative()),
            _ => false,
        }
    }

    /// The exact value of `sin`/`cos` at `k·π/2`, if `x` is such a multiple.
    fn quarter_turns(&mut self, x: Id) -> Option<i128> {
        if self.is_zero(x) {
            return Some(0);
        }
        let (c, rest) = self.coefficient_and_rest(x);
        if *self.node(rest) != Node::Pi {
            return None;
        }
        c.mul(Coeff::int(2)).as_integer().map(|k| k.rem_euclid(4))
    }

    /// `sin(x)`.
    pub fn sin(&mut self, x: Id) -> Id {
        if let Some(k) = self.quarter_turns(x) {
            return self.int([0, 1, 0, -1][k as usize]);
        }
        if let Some(c) = self.as_num(x) {
            return self.num(Coeff::inexact(c.to_f64().sin()));
        }
        if self.leading_negative(x) {
            let nx = self.neg(x);
            let s = self.intern(Node::Sin(nx));
            return self.neg(s);
        }
        self.intern(Node::Sin(x))
    }

    /// `cos(x)`.
    pub fn cos(&mut self, x: Id) -> Id {
        if let Some(k) = self.quarter_turns(x) {
            return self.int([1, 0, -1, 0][k as usize]);
        }
        if let Some(c) = self.as_num(x) {
            return self.num(Coeff::inexact(c.to_f64().cos()));
        }
        if self.leading_negative(x) {
            let nx = self.neg(x);
            return self.intern(Node::Cos(nx));
        }
        self.intern(Node::Cos(x))
    }

    /// `√x`; exact for perfect-square rationals.
    pub fn sqrt(&mut self, x: Id) -> Id {
        if let Some(c) = self.as_num(x) {
            if let Some((n, d)) = c.as_fraction() {
                if let (Some(rn), Some(rd)) = (exact_isqrt(n), exact_isqrt(d)) {
                    return self.num(Coeff::ratio(rn, rd));
                }
            }
            return self.num(Coeff::inexact(c.to_f64().sqrt()));
        }
        self.intern(Node::Sqrt(x))
    }
}

/// Whether `c·(Σ tᵢ + k)` is flattened into the enclosing sum. Unit and
/// minus-unit scalings always are, so that sums cancel (`a + b − (a + b) = 0`),
/// and so is a scaled single term (`2·(3x) = 6x`). A sum scaled by any other
/// number stays one shared term: distributing `0.3·(a + b)` would cost a
/// multiplication per term and break the sharing of `a + b` with its other
/// users — exactly what folding numeric parameters into a model does
/// everywhere.
fn distributes(c: Coeff, terms: &[(Id, Coeff)], k: Coeff) -> bool {
    c.is_one() || (-c).is_one() || (terms.len() == 1 && k.is_zero())
}

fn exact_isqrt(n: i128) -> Option<i128> {
    if n < 0 {
        return None;
    }
    let r = (n as f64).sqrt().round() as i128;
    (r.checked_mul(r) == Some(n)).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_out_of_ids_says_so_instead_of_aliasing() {
        let mut p = Pool::with_limit(3);
        let x = p.symbol("x");
        let y = p.symbol("y");
        let z = p.symbol("z");
        assert!(!p.overflowed());
        assert_eq!([x.index(), y.index(), z.index()], [0, 1, 2]);
        let w = p.symbol("w");
        assert!(p.overflowed(), "the fourth node has no id");
        assert_eq!(p.len(), 3, "nothing was added");
        assert!(w.is_overflow(), "the sentinel, not another node's id");
        assert!(![x, y, z].contains(&w));
        // Everything built on it is the sentinel too, and evaluating it
        // fails loudly, naming what happened.
        let sum = p.add(w, x);
        let sine = p.sin(sum);
        assert!(sum.is_overflow() && sine.is_overflow());
        assert_eq!(
            p.eval(&[sine], &|_| Some(1.0)),
            Err(crate::UnboundSymbol(Symbol::Named(
                Id::OVERFLOW_SYMBOL.to_owned()
            )))
        );
        // Existing nodes still work.
        assert_eq!(p.eval(&[y], &|_| Some(2.0)), Ok(vec![2.0]));
    }

    #[test]
    fn an_index_beyond_the_ids_is_the_sentinel() {
        assert_eq!(Id::from_index(u32::MAX as usize), Id::OVERFLOW);
        assert_eq!(Id::from_index(usize::MAX), Id::OVERFLOW);
        assert_eq!(Id::from_index(7).index(), 7);
        assert!(!Id::from_index(7).is_overflow());
    }

    #[test]
    fn identical_expressions_share_one_node() {
        let mut p = Pool::new();
        let (x, y) = (p.symbol("x"), p.symbol("y"));
        let a = p.mul(x, y);
        let b = p.mul(y, x);
        assert_eq!(a, b);
        let s1 = p.add(a, x);
        let s2 = p.add(x, b);
        assert_eq!(s1, s2);
    }

    #[test]
    fn zeros_and_ones_propagate() {
        let mut p = Pool::new();
        let x = p.symbol("x");
        let (zero, one) = (p.zero(), p.one());
        assert_eq!(p.mul(x, zero), zero);
        assert_eq!(p.mul(x, one), x);
        assert_eq!(p.add(x, zero), x);
        let nx = p.neg(x);
        assert_eq!(p.add(x, nx), zero);
        assert_eq!(p.powi(x, 0), one);
        assert_eq!(p.div(x, x), one);
    }

    #[test]
    fn coefficients_collect_and_scale_through_products() {
        let mut p = Pool::new();
        let (x, y) = (p.symbol("x"), p.symbol("y"));
        let two = p.int(2);
        let three = p.int(3);
        let tx = p.mul(two, x);
        let thy = p.mul(three, y);
        let prod = p.mul(tx, thy);
        let xy = p.mul(x, y);
        let six_xy = p.scale(Coeff::int(6), xy);
        assert_eq!(prod, six_xy);
        let sum = p.sum(&[x, x, x]);
        assert_eq!(sum, p.scale(Coeff::int(3), x));
    }

    #[test]
    fn trig_of_quarter_turns_is_exact() {
        let mut p = Pool::new();
        let pi = p.pi();
        let half_pi = p.scale(Coeff::ratio(1, 2), pi);
        assert_eq!(p.sin(half_pi), p.one());
        let c = p.cos(half_pi);
        assert!(p.is_zero(c));
        let minus_pi = p.neg(pi);
        let s = p.sin(minus_pi);
        assert!(p.is_zero(s));
        let m1 = p.int(-1);
        assert_eq!(p.cos(minus_pi), m1);
    }

    #[test]
    fn trig_parity_and_pythagoras() {
        let mut p = Pool::new();
        let x = p.symbol("x");
        let nx = p.neg(x);
        let s = p.sin(x);
        let sn = p.sin(nx);
        assert_eq!(sn, p.neg(s));
        assert_eq!(p.cos(nx), p.cos(x));
        let c = p.cos(x);
        let s2 = p.powi(s, 2);
        let c2 = p.powi(c, 2);
        let y = p.symbol("y");
        let total = p.sum(&[s2, c2, y]);
        let one = p.one();
        assert_eq!(total, p.add(y, one));
    }

    #[test]
    fn one_minus_cos_plus_cos_is_one() {
        let mut p = Pool::new();
        let x = p.symbol("x");
        let c = p.cos(x);
        let one = p.one();
        let omc = p.sub(one, c);
        let back = p.add(omc, c);
        assert_eq!(back, one);
    }

    #[test]
    fn numeric_scaling_keeps_a_sum_shared() {
        let mut p = Pool::new();
        let (a, b, c) = (p.symbol("a"), p.symbol("b"), p.symbol("c"));
        let ab = p.add(a, b);
        let scaled = p.scale(Coeff::ratio(3, 10), ab);
        assert_eq!(
            p.node(scaled),
            &Node::Add(vec![(ab, Coeff::ratio(3, 10))].into(), Coeff::ZERO)
        );
        let with_c = p.add(scaled, c);
        assert_eq!(
            p.node(with_c),
            &Node::Add(
                vec![(c, Coeff::ONE), (ab, Coeff::ratio(3, 10))].into(),
                Coeff::ZERO
            )
        );
        let minus = p.neg(ab);
        let back = p.add(ab, minus);
        assert!(p.is_zero(back), "a + b − (a + b) must cancel");
        let a3 = p.scale(Coeff::int(3), a);
        assert_eq!(p.scale(Coeff::int(2), a3), p.scale(Coeff::int(6), a));
    }
}
