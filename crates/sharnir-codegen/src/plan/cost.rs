//! The one cost model that decides between formalisms and forms: the
//! weighted operation count per call ([`sharnir_cas::OpCount::weight`]) of
//! the lowered program, with groups of runtime parameters hoisted first as
//! the emitter does (`Params::derived` computes them once, not per call).
//!
//! Costing lowers a whole program, the most expensive step of generation,
//! so `Costs` remembers what it has costed and does not lower a
//! candidate that is hopeless against the best one so far.

use sharnir_cas::{hoist_constants, Id, Node, Pool, Program};
use sharnir_mech::Input;
use std::collections::HashMap;

/// A candidate is not lowered when the operations of its expression DAG,
/// counted as written (`naive_weight`), exceed this many times the cost
/// of the best candidate so far. Over the 1 622 programs costed for the
/// bundled specs, the lowering's passes (partial results shared, common
/// factors taken out, signs folded) left between 0.45 and 1.09 times the
/// operations as written, so such a candidate could not have won; it
/// saves lowering the joint-coordinate formalism's O(n³) outputs of long
/// chains.
pub const HOPELESS: u64 = 3;

/// What a candidate was found to cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// The weight of its lowered program.
    Lowered(u64),
    /// Not lowered: the weight of its expression DAG as written, more than
    /// [`HOPELESS`] times the cost of a candidate lowered before it.
    Hopeless(u64),
}

impl Cost {
    /// The weight, lowered or as written.
    pub fn weight(self) -> u64 {
        match self {
            Cost::Lowered(w) | Cost::Hopeless(w) => w,
        }
    }
}

/// The cost model with its memory of the programs already costed.
#[derive(Default)]
pub(crate) struct Costs {
    lowered: HashMap<Vec<Id>, u64>,
}

impl Costs {
    /// The weight of `outputs` lowered. Costing the same outputs again
    /// only looks it up: hoisting them again would add no node to the pool
    /// (it is hash-consed and the groups' names are numbered from zero each
    /// time), so skipping it leaves every later node numbered the same.
    pub(crate) fn of(&mut self, pool: &mut Pool, outputs: &[Id]) -> u64 {
        self.against(pool, outputs, None).weight()
    }

    /// The cost of `outputs` as a candidate against the best one so far
    /// (`None` for the first): lowered, unless hopeless against `best`
    /// (see [`HOPELESS`]).
    pub(crate) fn against(&mut self, pool: &mut Pool, outputs: &[Id], best: Option<u64>) -> Cost {
        if let Some(&weight) = self.lowered.get(outputs) {
            return Cost::Lowered(weight);
        }
        let per_call = per_call(pool, outputs);
        if let Some(best) = best {
            let naive = naive_weight(pool, &per_call);
            if naive > HOPELESS.saturating_mul(best) {
                return Cost::Hopeless(naive);
            }
        }
        let weight = Program::lower(pool, &per_call).op_count().weight();
        self.lowered.insert(outputs.to_vec(), weight);
        Cost::Lowered(weight)
    }
}

/// `outputs` with the groups of runtime parameters hoisted out, as the
/// emitter reads them per call.
fn per_call(pool: &mut Pool, outputs: &[Id]) -> Vec<Id> {
    let is_parameter = |symbol: &Input| matches!(symbol, Input::Parameter(_));
    // Scratch symbols, never emitted: the groups only need to be apart
    // from every input.
    let name = |k: usize| Input::Named(format!("cost.k{k}"));
    hoist_constants(pool, outputs, &is_parameter, &name).roots
}

/// The weighted operations of the DAG under `roots` as written: every
/// distinct node once, a sum of k terms k − 1 additions (one more for a
/// constant) and a multiplication per coefficient other than ±1, a product
/// of k factors k − 1 multiplications and one per extra power (a division
/// for negative exponents), a sine, cosine or square root ten. Linear in
/// the DAG, and close to what lowering makes of it (see [`HOPELESS`]).
pub(crate) fn naive_weight(pool: &Pool, roots: &[Id]) -> u64 {
    let size = roots.iter().max().map_or(0, |m| m.index() + 1);
    let mut seen = vec![false; size];
    let mut stack = roots.to_vec();
    let mut weight = 0u64;
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        weight = weight.saturating_add(node_weight(pool.node(id)));
        stack.extend(pool.children(id));
    }
    weight
}

/// The weighted operations of one node as written.
fn node_weight(node: &Node) -> u64 {
    let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    match node {
        Node::Num(_) | Node::Pi | Node::Symbol(_) => 0,
        Node::Add(terms, constant) => {
            let scaled = terms
                .iter()
                .filter(|(_, c)| !(c.is_one() || c.is_minus_one()))
                .count();
            let constant = u64::from(!constant.is_zero());
            count(terms.len()).saturating_sub(1) + constant + count(scaled)
        }
        Node::Mul(factors) => {
            let powers: u64 = factors
                .iter()
                .map(|(_, e)| u64::from(e.unsigned_abs().saturating_sub(1)))
                .sum();
            let divisions = count(factors.iter().filter(|(_, e)| *e < 0).count());
            count(factors.len()).saturating_sub(1) + powers + 3 * divisions
        }
        Node::Sin(_) | Node::Cos(_) | Node::Sqrt(_) => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_cas::Coeff;

    #[test]
    fn the_naive_weight_counts_every_distinct_node_once() {
        let mut pool = Pool::new();
        let [a, b, c] = ["q[0]", "q[1]", "q[2]"].map(|s| pool.symbol(s));
        let ab = pool.mul(a, b);
        // 2ab + c + 1: two additions, one coefficient; ab one multiplication.
        let sum = pool.linear(&[(ab, Coeff::int(2)), (c, Coeff::int(1))], Coeff::int(1));
        assert_eq!(naive_weight(&pool, &[sum]), 4);
        // ab shared by a second root is counted once; sin(ab) is ten.
        let sine = pool.sin(ab);
        assert_eq!(naive_weight(&pool, &[sum, sine]), 14);
        // a³/b: two multiplications for the power, one division (four).
        let quotient = pool.product(&[(a, 3), (b, -1)]);
        assert_eq!(naive_weight(&pool, &[quotient]), 1 + 2 + 3);
    }

    #[test]
    fn a_hopeless_candidate_is_not_lowered_and_a_costed_one_is_remembered() {
        let mut pool = Pool::new();
        let [a, b] = ["q[0]", "q[1]"].map(|s| pool.symbol(s));
        let cheap = pool.mul(a, b);
        let sines: Vec<Id> = (1..=6)
            .map(|k| {
                let scaled = pool.scale(Coeff::int(k), a);
                pool.sin(scaled)
            })
            .collect();
        let dear = pool.sum(&sines);
        let mut costs = Costs::default();
        let best = costs.of(&mut pool, &[cheap]);
        assert_eq!(best, 1);
        assert!(
            matches!(costs.against(&mut pool, &[dear], Some(best)), Cost::Hopeless(w) if w > HOPELESS * best)
        );
        assert_eq!(
            costs.against(&mut pool, &[cheap], Some(0)),
            Cost::Lowered(1)
        );
        let nodes = pool.len();
        assert_eq!(costs.of(&mut pool, &[cheap]), 1);
        assert_eq!(pool.len(), nodes, "a remembered cost adds no node");
    }
}
