//! Sharing of partial sums and partial products between expressions.
//!
//! Hash-consing shares whole subexpressions, but the canonical form keeps
//! sums and products flat, so `a + b + c` and `a + b − d` share nothing and
//! `a + b` is added twice. Before lowering, [`share_partial_results`] finds
//! the pair of terms that the most sums contain (with the same ratio of
//! coefficients, so `2a + 6b` and `a + 3b` match), or the pair of factors
//! that the most products contain, makes that pair a node of its own, and
//! repeats until no pair occurs twice: the greedy pairwise extraction of
//! optimising compilers. Larger shared parts grow pair by pair: `{a, b}`
//! first, then `{(a + b), c}`. Each extraction saves one addition (or
//! multiplication) per host beyond the first; a host whose coefficients are
//! not those of the pair node may need a multiplication to scale it, so
//! [`crate::program::Program::lower`] keeps the plain program when the
//! shared one is not cheaper.
//!
//! In a chain, the force a joint transmits is its child's plus what its own
//! body adds, and the rows of a mass matrix repeat the same partial sums of
//! the outboard bodies; the derivation expands them into flat sums that this
//! pass takes apart again, across every output of one program.
//!
//! The result lives in a new pool outside the canonical form (a sum may
//! hold a sum with unit coefficient, which the canonical constructors would
//! flatten again); only the lowering reads it.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::FxHashMap as HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;

/// `roots` rebuilt in a new pool in which every pair of terms shared by two
/// or more sums, and every pair of factors shared by two or more products,
/// is a node of its own, after the sums gave up the terms their users
/// already have (see `absorb.rs`); the values are the same for every input.
/// `reachable` is what the roots reach (`Pool::reachable`).
/// `None` if the rebuilt pool would be inconsistent (a node before one of
/// its operands), which the children-first order of ids rules out; the
/// caller then keeps the plain lowering.
pub(crate) fn share_partial_results(
    pool: &Pool,
    roots: &[Id],
    reachable: &[bool],
) -> Option<(Pool, Vec<Id>)> {
    let base = reachable.len();
    let absorbed = crate::absorb::absorb_common_terms(pool, roots, reachable);
    let mut sums = Extraction::<Terms>::new(base);
    let mut products = Extraction::<Factors>::new(base);
    let mut set_of: HashMap<Id, usize> = HashMap::default();
    for (i, &seen) in reachable.iter().enumerate() {
        let id = Id::from_index(i);
        if !seen {
            continue;
        }
        match pool.node(id) {
            Node::Add(terms, _) => {
                let terms = absorbed.get(&id).map_or(&terms[..], Vec::as_slice);
                set_of.insert(id, sums.add_set(terms.iter().map(|&(t, c)| (t.index(), c))));
            }
            Node::Mul(factors) => {
                let multiplied = factors.iter().filter(|&&(_, e)| e > 0);
                set_of.insert(
                    id,
                    products.add_set(multiplied.map(|&(b, e)| (b.index(), e))),
                );
            }
            _ => {}
        }
    }
    sums.run();
    products.run();
    let mut rebuild = Rebuild {
        pool,
        out: Pool::new(),
        new_id: vec![None; base],
        sum_pairs: PairNodes::new(&sums),
        product_pairs: PairNodes::new(&products),
    };
    for (i, &seen) in reachable.iter().enumerate() {
        if seen {
            let id = Id::from_index(i);
            let rebuilt = rebuild.node(id, set_of.get(&id).copied())?;
            rebuild.new_id[i] = Some(rebuilt);
        }
    }
    let roots = roots
        .iter()
        .map(|&r| rebuild.new_id.get(r.index()).copied().flatten())
        .collect::<Option<Vec<Id>>>()?;
    (!rebuild.out.overflowed()).then_some((rebuild.out, roots))
}

/// An operand of a flat sum or product during extraction: the index of an
/// original node below the extraction's `base`, an extracted pair above.
type Key = usize;

/// What distinguishes sums from products in the extraction.
trait Family {
    /// The weight of an item: a coefficient of a term, an exponent of a factor.
    type Weight: Copy + Eq + Hash;
    /// What two items must agree on to be the same pair in two hosts.
    type Shape: Copy + Eq + Hash;
    /// The shape of the pair `(x, a), (y, b)` (with `x < y`), and the weight
    /// of the pair in a host that has these weights, for a pair node of
    /// unit scale.
    fn shape(a: Self::Weight, b: Self::Weight) -> (Self::Shape, Self::Weight);
    /// The scale of the pair node, given its unit-scale weights in its
    /// hosts, each with whether the pair is all the host has.
    fn scale(shape: Self::Shape, hosts: &[(Self::Weight, bool)]) -> Self::Weight;
    /// The weight in a host of a pair node of scale `scale`.
    fn relative(weight: Self::Weight, scale: Self::Weight) -> Self::Weight;
    /// The weights of a pair node's own two items.
    fn items(shape: Self::Shape, scale: Self::Weight) -> (Self::Weight, Self::Weight);
    /// What stays in a host of its items `(x, a), (y, b)` once the pair node
    /// has taken its share.
    fn left_over(a: Self::Weight, b: Self::Weight) -> (Option<Self::Weight>, Option<Self::Weight>);
    /// The node of a host or pair with these items, sorted.
    fn node(items: Vec<(Id, Self::Weight)>) -> Node;
}

/// Terms of sums: `a·x + b·y = a·(x + (b/a)·y)`, so pairs match up to a
/// common factor.
struct Terms;

impl Family for Terms {
    type Weight = Coeff;
    type Shape = Coeff;
    fn shape(a: Coeff, b: Coeff) -> (Coeff, Coeff) {
        (quotient(b, a), a)
    }
    /// The pair node `s·x + s·r·y` takes the coefficient magnitude `|s|`
    /// that needs the fewest multiplications: one per host whose
    /// coefficient has another magnitude (a host whose coefficient is `±s`
    /// reads the node as it is), and the node's own, one for `s` unless it
    /// is ±1 and one for `s·r` unless it is ±1 or ±s. The sign of `s` is
    /// the one that leaves the fewest hosts that are nothing but the pair
    /// negated (each would cost a negation), then the most hosts positive.
    fn scale(ratio: Coeff, hosts: &[(Coeff, bool)]) -> Coeff {
        let magnitude = |c: Coeff| if c.is_negative() { -c } else { c };
        let costly = |c: Coeff, s: Coeff| u32::from(!magnitude(c).is_one() && magnitude(c) != s);
        // How many hosts have each magnitude: a pair shared by thousands of
        // sums is scaled in time linear in them.
        let mut of_magnitude: HashMap<Coeff, u32> = HashMap::default();
        let magnitudes: Vec<Coeff> = hosts.iter().map(|&(w, _)| magnitude(w)).collect();
        for &m in &magnitudes {
            *of_magnitude.entry(m).or_default() += 1;
        }
        let all = u32::try_from(hosts.len()).unwrap_or(u32::MAX);
        let cost = |s: Coeff| {
            let others = all.saturating_sub(of_magnitude.get(&s).copied().unwrap_or(0));
            others + u32::from(!s.is_one()) + costly(s * ratio, s)
        };
        let mut best = (cost(Coeff::ONE), Coeff::ONE);
        for &s in &magnitudes {
            if s == best.1 {
                continue;
            }
            let c = cost(s);
            if c < best.0 {
                best = (c, s);
            }
        }
        let sign_cost = |positive: bool| {
            let negated_alone = hosts
                .iter()
                .filter(|&&(w, alone)| alone && w.is_negative() == positive)
                .count();
            let negative = hosts
                .iter()
                .filter(|&&(w, _)| w.is_negative() == positive)
                .count();
            (negated_alone, negative)
        };
        if sign_cost(false) < sign_cost(true) {
            -best.1
        } else {
            best.1
        }
    }
    fn relative(weight: Coeff, scale: Coeff) -> Coeff {
        quotient(weight, scale)
    }
    fn items(ratio: Coeff, scale: Coeff) -> (Coeff, Coeff) {
        (scale, scale * ratio)
    }
    fn left_over(_: Coeff, _: Coeff) -> (Option<Coeff>, Option<Coeff>) {
        (None, None)
    }
    fn node(terms: Vec<(Id, Coeff)>) -> Node {
        Node::Add(terms.into_boxed_slice(), Coeff::ZERO)
    }
}

/// `a / b`, exactly ±1 when `a = ±b` even for inexact coefficients, so a
/// host reads a pair node of its own scale without a multiplication.
fn quotient(a: Coeff, b: Coeff) -> Coeff {
    if a == b {
        Coeff::ONE
    } else if a.is_negation_of(b) {
        Coeff::MINUS_ONE
    } else {
        a.quotient(b)
    }
}

/// Multiplied factors of products: a host with `x^a·y^b` holds the pair
/// node `x·y` to the power `min(a, b)` and keeps the rest of the larger
/// power, so `x²·y²` is `(x·y)²` and `x²·y` is `(x·y)·x`.
struct Factors;

impl Family for Factors {
    type Weight = i32;
    type Shape = ();
    fn shape(a: i32, b: i32) -> ((), i32) {
        ((), a.min(b))
    }
    fn scale(_: (), _: &[(i32, bool)]) -> i32 {
        1
    }
    fn relative(weight: i32, _: i32) -> i32 {
        weight
    }
    fn items(_: (), _: i32) -> (i32, i32) {
        (1, 1)
    }
    fn node(factors: Vec<(Id, i32)>) -> Node {
        Node::Mul(factors.into_boxed_slice())
    }
    fn left_over(a: i32, b: i32) -> (Option<i32>, Option<i32>) {
        let k = a.min(b);
        ((a > k).then_some(a - k), (b > k).then_some(b - k))
    }
}

/// A pair of items that some hosts contain.
struct Pair<S> {
    x: Key,
    y: Key,
    shape: S,
    /// How many hosts contain it now.
    count: u32,
    /// The first host that contained it: most pairs are in one host only,
    /// and keeping it here saves them an allocation.
    first_host: usize,
    /// Every other host that ever contained it, some more than once (some
    /// may have lost it since).
    more_hosts: Vec<usize>,
}

/// The greedy extraction over one family of flat nodes.
struct Extraction<F: Family> {
    base: usize,
    /// The items of every host, as they stand.
    sets: Vec<Vec<(Key, F::Weight)>>,
    pairs: Vec<Pair<F::Shape>>,
    pair_of: HashMap<(Key, Key, F::Shape), usize>,
    /// `(count, earliest pair first)`: the most shared pair on top. Entries
    /// go stale when a count changes; a fresh one is pushed then.
    queue: BinaryHeap<(u32, Reverse<usize>)>,
    /// The pairs made nodes, with their scales, in order: key `base + i`
    /// is `extracted[i]`.
    extracted: Vec<(Key, Key, F::Shape, F::Weight)>,
    /// How many hosts hold each original item. A pair with an item of one
    /// host can never be shared, so only items of two or more hosts (and
    /// the pair nodes, shared by construction) are paired: a long sum of
    /// terms of its own would otherwise add pairs quadratic in its length.
    hosts_of: HashMap<Key, u32>,
    /// The shape of every pair of weights met so far: a ratio of two
    /// coefficients costs two greatest common divisors, and a sum's
    /// coefficients are few distinct numbers met over and over.
    shapes: HashMap<(F::Weight, F::Weight), F::Shape>,
}

impl<F: Family> Extraction<F> {
    fn new(base: usize) -> Self {
        Extraction {
            base,
            sets: Vec::new(),
            pairs: Vec::new(),
            pair_of: HashMap::default(),
            queue: BinaryHeap::new(),
            extracted: Vec::new(),
            hosts_of: HashMap::default(),
            shapes: HashMap::default(),
        }
    }

    /// Registers a host with its items (sorted, distinct keys) and returns
    /// its index. Its pairs are counted by [`Extraction::run`].
    fn add_set(&mut self, items: impl Iterator<Item = (Key, F::Weight)>) -> usize {
        let set = self.sets.len();
        let items: Vec<(Key, F::Weight)> = items.collect();
        for &(key, _) in &items {
            *self.hosts_of.entry(key).or_default() += 1;
        }
        self.sets.push(items);
        set
    }

    /// Whether `key` can be part of a shared pair: a pair node, or an item
    /// of two or more hosts.
    fn shared(&self, key: Key) -> bool {
        key >= self.base || self.hosts_of.get(&key).is_some_and(|&n| n >= 2)
    }

    /// Counts the pairs of shared items of every host, hosts and items in
    /// order (the order that breaks ties between equally shared pairs).
    fn count_pairs(&mut self) {
        for set in 0..self.sets.len() {
            let items: Vec<(Key, F::Weight)> = self.sets[set]
                .iter()
                .copied()
                .filter(|&(key, _)| self.shared(key))
                .collect();
            // Quadratic in a host's length: see `absorb::LONG_SUM`.
            if items.len() > crate::absorb::LONG_SUM {
                continue;
            }
            for (i, &first) in items.iter().enumerate() {
                for &second in &items[i + 1..] {
                    self.touch(first, second, set, true);
                }
            }
        }
    }

    /// Counts the pair of `first` and `second` in or out of host `set`.
    fn touch(
        &mut self,
        first: (Key, F::Weight),
        second: (Key, F::Weight),
        set: usize,
        gained: bool,
    ) {
        let ((x, a), (y, b)) = if first.0 < second.0 {
            (first, second)
        } else {
            (second, first)
        };
        let shape = match self.shapes.get(&(a, b)) {
            Some(&shape) => shape,
            None => {
                let (shape, _) = F::shape(a, b);
                self.shapes.insert((a, b), shape);
                shape
            }
        };
        let next = self.pairs.len();
        let index = *self.pair_of.entry((x, y, shape)).or_insert(next);
        if index == next {
            self.pairs.push(Pair {
                x,
                y,
                shape,
                count: 0,
                first_host: set,
                more_hosts: Vec::new(),
            });
        }
        let pair = &mut self.pairs[index];
        if gained {
            pair.count += 1;
            if index != next {
                pair.more_hosts.push(set);
            }
        } else {
            pair.count = pair.count.saturating_sub(1);
        }
        if pair.count >= 2 {
            self.queue.push((pair.count, Reverse(index)));
        }
    }

    /// Extracts the most shared pair until none is shared.
    fn run(&mut self) {
        self.count_pairs();
        while let Some((count, Reverse(index))) = self.queue.pop() {
            if self.pairs[index].count != count {
                continue;
            }
            let (x, y, shape) = {
                let pair = &self.pairs[index];
                (pair.x, pair.y, pair.shape)
            };
            let pair = &mut self.pairs[index];
            let mut hosts = std::mem::take(&mut pair.more_hosts);
            hosts.push(pair.first_host);
            hosts.sort_unstable();
            hosts.dedup();
            let live: Vec<(usize, F::Weight)> = hosts
                .into_iter()
                .filter_map(|set| Some((set, self.weight_in(set, x, y, shape)?)))
                .collect();
            let weights: Vec<(F::Weight, bool)> = live
                .iter()
                .map(|&(set, w)| (w, self.sets[set].len() == 2))
                .collect();
            let scale = F::scale(shape, &weights);
            let key = self.base + self.extracted.len();
            self.extracted.push((x, y, shape, scale));
            for (set, weight) in live {
                self.replace(set, x, y, key, F::relative(weight, scale));
            }
        }
    }

    /// The unit-scale weight of the pair `x`, `y` in host `set`, if the
    /// host still has both items in this shape.
    fn weight_in(&self, set: usize, x: Key, y: Key, shape: F::Shape) -> Option<F::Weight> {
        let items = &self.sets[set];
        let weight = |k: Key| items.iter().find(|&&(i, _)| i == k).map(|&(_, w)| w);
        let (found, weight) = F::shape(weight(x)?, weight(y)?);
        (found == shape).then_some(weight)
    }

    /// Replaces the items `x` and `y` of host `set` by the pair node `key`
    /// with weight `weight` (and what is left over of them), if the host
    /// still has both.
    fn replace(&mut self, set: usize, x: Key, y: Key, key: Key, weight: F::Weight) {
        let items = std::mem::take(&mut self.sets[set]);
        let (pair, mut rest): (Vec<_>, Vec<_>) =
            items.into_iter().partition(|&(k, _)| k == x || k == y);
        let [first, second] = pair[..] else {
            rest.extend(pair);
            self.sets[set] = rest;
            return;
        };
        self.touch(first, second, set, false);
        for &other in &rest {
            if self.shared(other.0) {
                self.touch(first, other, set, false);
                self.touch(second, other, set, false);
            }
        }
        let (first_left, second_left) = F::left_over(first.1, second.1);
        let mut added = vec![(key, weight)];
        added.extend(first_left.map(|w| (first.0, w)));
        added.extend(second_left.map(|w| (second.0, w)));
        for (i, &item) in added.iter().enumerate() {
            for &other in added[i + 1..].iter().chain(&rest) {
                if self.shared(other.0) {
                    self.touch(item, other, set, true);
                }
            }
        }
        rest.extend(added);
        self.sets[set] = rest;
    }
}

/// Building the new pool, children first; an extracted pair is built just
/// before its first host.
struct Rebuild<'a> {
    pool: &'a Pool,
    out: Pool,
    /// The new id of each original node rebuilt so far.
    new_id: Vec<Option<Id>>,
    sum_pairs: PairNodes<'a, Terms>,
    product_pairs: PairNodes<'a, Factors>,
}

impl Rebuild<'_> {
    /// The rebuilt node `id`, whose host set (for a sum or a product) is
    /// `set`.
    fn node(&mut self, id: Id, set: Option<usize>) -> Option<Id> {
        let old = |i: Id| self.new_id.get(i.index()).copied().flatten();
        let node = match (self.pool.node(id), set) {
            (Node::Add(_, c0), Some(set)) => {
                let mut terms = self.sum_pairs.items(set, &mut self.out, &self.new_id)?;
                terms.sort_by_key(|&(t, _)| t);
                if let ([(t, c)], true) = (terms.as_slice(), c0.is_zero()) {
                    if c.is_one() {
                        return Some(*t);
                    }
                }
                Node::Add(terms.into_boxed_slice(), *c0)
            }
            (Node::Mul(factors), Some(set)) => {
                let divisors: Vec<(Id, i32)> = factors
                    .iter()
                    .filter(|&&(_, e)| e < 0)
                    .map(|&(b, e)| Some((old(b)?, e)))
                    .collect::<Option<_>>()?;
                let mut rebuilt = self.product_pairs.items(set, &mut self.out, &self.new_id)?;
                rebuilt.extend(divisors);
                rebuilt.sort_by_key(|&(b, _)| b);
                if let [(b, 1)] = rebuilt.as_slice() {
                    return Some(*b);
                }
                Node::Mul(rebuilt.into_boxed_slice())
            }
            (Node::Sin(u), _) => Node::Sin(old(*u)?),
            (Node::Cos(u), _) => Node::Cos(old(*u)?),
            (Node::Sqrt(u), _) => Node::Sqrt(old(*u)?),
            (other, _) => other.clone(),
        };
        Some(self.out.intern(node))
    }
}

/// The extracted pairs of one family as nodes of the new pool, each built
/// once, when a host first needs it.
struct PairNodes<'a, F: Family> {
    extraction: &'a Extraction<F>,
    built: Vec<Option<Id>>,
}

impl<'a, F: Family> PairNodes<'a, F> {
    fn new(extraction: &'a Extraction<F>) -> Self {
        PairNodes {
            extraction,
            built: vec![None; extraction.extracted.len()],
        }
    }

    /// The items of host `set`, as ids of the new pool.
    fn items(
        &mut self,
        set: usize,
        out: &mut Pool,
        new_id: &[Option<Id>],
    ) -> Option<Vec<(Id, F::Weight)>> {
        let extraction = self.extraction;
        extraction.sets[set]
            .iter()
            .map(|&(k, w)| Some((self.id(k, out, new_id)?, w)))
            .collect()
    }

    /// The new id of an operand: an original node's, or the pair node's,
    /// built now if it is the first use.
    fn id(&mut self, key: Key, out: &mut Pool, new_id: &[Option<Id>]) -> Option<Id> {
        let Some(pair) = key.checked_sub(self.extraction.base) else {
            return new_id.get(key).copied().flatten();
        };
        if let Some(id) = self.built.get(pair).copied().flatten() {
            return Some(id);
        }
        let &(x, y, shape, scale) = self.extraction.extracted.get(pair)?;
        let (a, b) = F::items(shape, scale);
        let mut items = vec![(self.id(x, out, new_id)?, a), (self.id(y, out, new_id)?, b)];
        items.sort_by_key(|&(i, _)| i);
        let id = out.intern(F::node(items));
        self.built[pair] = Some(id);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;
    use proptest::prelude::*;

    use crate::test_values::env;

    #[test]
    fn a_pair_of_terms_in_several_sums_is_added_once() {
        let mut p = Pool::new();
        let [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map(|n| p.symbol(n));
        // a + b + c, a + b − d and 2a + 2b + e: t = a + b once, then
        // t + c, t − d and 2t + e: one multiplication and four additions,
        // against one and six without sharing.
        let first = p.sum(&[a, b, c]);
        let ab = p.add(a, b);
        let second = p.sub(ab, d);
        let two_ab = p.scale(Coeff::int(2), ab);
        let third = p.add(two_ab, e);
        let roots = [first, second, third];
        let ops = Program::lower(&p, &roots).op_count();
        assert_eq!((ops.mul, ops.add), (1, 4));
        let (shared, shared_roots) =
            share_partial_results(&p, &roots, &p.reachable(&roots)).expect("consistent");
        assert_eq!(
            shared.eval(&shared_roots, &env).expect("bound"),
            p.eval(&roots, &env).expect("bound")
        );
    }

    #[test]
    fn a_sum_used_once_gives_its_common_terms_to_its_user() {
        let mut p = Pool::new();
        let [a, b, c, _, _] = ["a", "b", "c", "d", "e"].map(|n| p.symbol(n));
        // 1.3a + c − 0.5·(b − 9.5a) is 6.05a + c − 0.5b: 2 mul, 2 add
        // against 3 mul, 3 add.
        let inner = p.linear(&[(b, Coeff::ONE), (a, Coeff::ratio(-19, 2))], Coeff::ZERO);
        let host = p.linear(
            &[
                (a, Coeff::ratio(13, 10)),
                (c, Coeff::ONE),
                (inner, Coeff::ratio(-1, 2)),
            ],
            Coeff::ZERO,
        );
        let ops = Program::lower(&p, &[host]).op_count();
        assert_eq!((ops.mul, ops.add), (2, 2));
        let (shared, roots) =
            share_partial_results(&p, &[host], &p.reachable(&[host])).expect("consistent");
        let want = p.eval(&[host], &env).expect("bound")[0];
        let got = shared.eval(&roots, &env).expect("bound")[0];
        assert!((got - want).abs() < 1e-15, "{got} vs {want}");
    }

    #[test]
    fn a_pair_of_factors_in_several_products_is_multiplied_once() {
        let mut p = Pool::new();
        let [a, b, c, d, _] = ["a", "b", "c", "d", "e"].map(|n| p.symbol(n));
        // a·b·c and a·b·d/c: t = a·b once, then t·c and t·d/c.
        let first = p.mul_all(&[a, b, c]);
        let abd = p.mul_all(&[a, b, d]);
        let second = p.div(abd, c);
        let ops = Program::lower(&p, &[first, second]).op_count();
        assert_eq!((ops.mul, ops.div), (3, 1));
    }

    #[test]
    fn a_pair_of_factors_is_shared_by_powers_too() {
        let mut p = Pool::new();
        let [a, b, c, _, _] = ["a", "b", "c", "d", "e"].map(|n| p.symbol(n));
        // a²·b² and a·b·c: t = a·b, then t·t and t·c: three
        // multiplications against five.
        let squares = p.product(&[(a, 2), (b, 2)]);
        let triple = p.mul_all(&[a, b, c]);
        let roots = [squares, triple];
        let program = Program::lower(&p, &roots);
        assert_eq!(program.op_count().mul, 3);
        let got = program.eval(&env).expect("bound");
        let want = p.eval(&roots, &env).expect("bound");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-15, "{got:?} vs {want:?}");
        }
    }

    /// Sums and products of the symbols `a`…`e` with small integer
    /// coefficients and exponents, so that they share many pairs.
    fn expressions() -> impl Strategy<Value = Vec<(bool, Vec<(usize, i64)>)>> {
        let item = (0..5usize, -3..4i64);
        prop::collection::vec((any::<bool>(), prop::collection::vec(item, 1..6)), 1..8)
    }

    proptest! {
        #[test]
        fn sharing_keeps_every_value(list in expressions()) {
            let mut p = Pool::new();
            let symbols = ["a", "b", "c", "d", "e"].map(|n| p.symbol(n));
            let mut roots: Vec<Id> = list
                .iter()
                .map(|(is_sum, items)| {
                    if *is_sum {
                        let terms: Vec<(Id, Coeff)> =
                            items.iter().map(|&(s, c)| (symbols[s], Coeff::int(c))).collect();
                        p.linear(&terms, Coeff::ZERO)
                    } else {
                        let factors: Vec<(Id, i32)> =
                            items.iter().map(|&(s, e)| (symbols[s], e as i32)).collect();
                        p.product(&factors)
                    }
                })
                .collect();
            // Sums used once, scaled, inside sums with terms in common.
            for (_, items) in &list {
                let mut terms: Vec<(Id, Coeff)> =
                    items.iter().map(|&(s, c)| (symbols[s], Coeff::int(c))).collect();
                terms.push((symbols[4], Coeff::int(2)));
                let inner = p.linear(&terms, Coeff::ZERO);
                let host = p.linear(
                    &[(inner, Coeff::ratio(-1, 2)), (symbols[0], Coeff::int(3)), (symbols[4], Coeff::ONE)],
                    Coeff::ZERO,
                );
                // A second user of the same inner sum, with terms of its own.
                let other = p.linear(
                    &[(inner, Coeff::int(2)), (symbols[0], Coeff::MINUS_ONE), (symbols[4], Coeff::int(5))],
                    Coeff::ZERO,
                );
                roots.push(host);
                roots.push(other);
            }
            // Products and scaled sums of those, so that hosts nest.
            for i in 1..roots.len() {
                let product = p.mul(roots[i - 1], roots[i]);
                let scaled = p.scale(Coeff::ratio(3, 2), roots[i]);
                let sum = p.add(product, scaled);
                roots.push(sum);
            }
            let (shared, shared_roots) = share_partial_results(&p, &roots, &p.reachable(&roots)).expect("consistent");
            let want = p.eval(&roots, &env).expect("bound");
            let got = shared.eval(&shared_roots, &env).expect("bound");
            for (g, w) in got.iter().zip(&want) {
                prop_assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "{got:?} vs {want:?}");
            }
            let lowered = Program::lower(&p, &roots).eval(&env).expect("bound");
            for (l, w) in lowered.iter().zip(&want) {
                prop_assert!((l - w).abs() <= 1e-12 * (1.0 + w.abs()), "{lowered:?} vs {want:?}");
            }
        }
    }
}
