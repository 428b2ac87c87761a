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
    /// The lowered programs of the candidates that read no group of
    /// parameters, by their roots: such a function is lowered from these
    /// same roots in the end, and takes its program from here instead of
    /// lowering it again. (A candidate with groups reads them under scratch
    /// names here, so its program is not the module's.)
    programs: HashMap<Vec<Id>, Program>,
}

impl Costs {
    /// The weight of `outputs` lowered. Costing the same outputs again
    /// only looks it up: hoisting them again would add no node to the pool
    /// (it is hash-consed and the groups' names are numbered from zero each
    /// time), so skipping it leaves every later node numbered the same.
    pub(crate) fn of(&mut self, pool: &mut Pool, outputs: &[Id]) -> u64 {
        // Alone, a candidate is never hopeless.
        self.in_turn(pool, &[outputs])
            .first()
            .map_or(0, |cost| cost.weight())
    }

    /// Keeps `program`, lowered from `roots` (`outputs` with their groups
    /// hoisted), if it is the module's own: if no group was hoisted.
    fn remember(&mut self, roots: Vec<Id>, outputs: &[Id], program: Program) {
        if roots == outputs {
            self.programs.insert(roots, program);
        }
    }

    /// Drops the programs of the candidates a choice did not take (all of
    /// `candidates` but `chosen`): only the chosen one is lowered again.
    pub(crate) fn forget_all_but(&mut self, chosen: &[Id], candidates: &[&[Id]]) {
        for candidate in candidates {
            if *candidate != chosen {
                self.programs.remove(*candidate);
            }
        }
    }

    /// The program lowered from exactly `roots` while costing, if any:
    /// lowering is deterministic, so it is the program lowering them again
    /// would give.
    pub(crate) fn take_program(&mut self, roots: &[Id]) -> Option<Program> {
        self.programs.remove(roots)
    }
    /// The costs of `candidates` in turn, each against the cheapest one
    /// lowered before it: exactly what costing each in order gives (from
    /// memory if costed before, not lowered if hopeless against the best
    /// so far, see [`HOPELESS`]), the pool included (hoisting is all it adds, in the same
    /// order), but with two lowerings at a time where the later one will
    /// most likely be needed too: lowering is most of generation's time,
    /// and a choice's candidates do not depend on each other.
    pub(crate) fn in_turn(&mut self, pool: &mut Pool, candidates: &[&[Id]]) -> Vec<Cost> {
        // Every candidate not costed yet, hoisted and weighed as written.
        // Hoisting one again adds no node (see `Costs::of`), so a candidate
        // whose twin is costed below in this batch changes nothing.
        let prepared: Vec<Prepared> = candidates
            .iter()
            .map(|outputs| match self.lowered.get(*outputs) {
                Some(&weight) => Prepared::Costed(weight),
                None => {
                    let per_call = per_call(pool, outputs);
                    let naive = naive_weight(pool, &per_call);
                    Prepared::Hoisted { per_call, naive }
                }
            })
            .collect();
        let mut ahead: HashMap<usize, u64> = HashMap::new();
        let mut best: Option<u64> = None;
        let mut costs = Vec::with_capacity(candidates.len());
        for (i, outputs) in candidates.iter().enumerate() {
            let cost = match (&prepared[i], self.lowered.get(*outputs)) {
                (Prepared::Costed(weight), _) | (_, Some(weight)) => Cost::Lowered(*weight),
                (Prepared::Hoisted { naive, .. }, None)
                    if best.is_some_and(|b| *naive > HOPELESS.saturating_mul(b)) =>
                {
                    Cost::Hopeless(*naive)
                }
                (Prepared::Hoisted { per_call, naive }, None) => {
                    let weight = match ahead.remove(&i) {
                        Some(weight) => weight,
                        None => {
                            // The next candidate that will most likely be
                            // lowered too goes beside this one.
                            let beside = (i + 1..candidates.len()).find_map(|k| {
                                let Prepared::Hoisted {
                                    per_call,
                                    naive: other,
                                } = &prepared[k]
                                else {
                                    return None;
                                };
                                (candidates[k] != *outputs && likely_needed(*other, *naive, best))
                                    .then_some((k, per_call.as_slice()))
                            });
                            let mut roots = vec![per_call.as_slice()];
                            roots.extend(beside.map(|(_, p)| p));
                            let programs = Program::lower_each(pool, &roots);
                            let weights: Vec<u64> =
                                programs.iter().map(|p| p.op_count().weight()).collect();
                            let owners = std::iter::once(i).chain(beside.map(|(k, _)| k));
                            for ((roots, program), k) in roots.iter().zip(programs).zip(owners) {
                                self.remember(roots.to_vec(), candidates[k], program);
                            }
                            if let (Some((k, _)), Some(&w)) = (beside, weights.get(1)) {
                                ahead.insert(k, w);
                            }
                            weights.first().copied().unwrap_or_default()
                        }
                    };
                    self.lowered.insert(outputs.to_vec(), weight);
                    Cost::Lowered(weight)
                }
            };
            if let Cost::Lowered(weight) = cost {
                if best.is_none_or(|b| weight < b) {
                    best = Some(weight);
                }
            }
            costs.push(cost);
        }
        costs
    }
}

/// A candidate of [`Costs::in_turn`] before its turn.
enum Prepared {
    /// Costed before: its weight.
    Costed(u64),
    /// Its outputs with the groups of parameters hoisted out, and their
    /// weight as written.
    Hoisted { per_call: Vec<Id>, naive: u64 },
}

/// Whether a candidate weighing `naive` as written will most likely be
/// lowered after one weighing `first` as written, with `best` the cheapest
/// lowered so far: lowering keeps at least 0.45 of the written weight (see
/// [`HOPELESS`]), so `first` will cost at least that much, and the later
/// one is hopeless only against less than a third of its own weight.
fn likely_needed(naive: u64, first: u64, best: Option<u64>) -> bool {
    let first_at_least = first.saturating_mul(45) / 100;
    let bound = best.map_or(first_at_least, |b| b.min(first_at_least));
    naive <= HOPELESS.saturating_mul(bound)
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

    /// `q[0]·q[1]` (one multiplication) and `Σ_k sin(k·q[0])` (sixty as
    /// written), with `q[0]` and `q[1]`.
    fn cheap_and_dear(pool: &mut Pool) -> ([Id; 2], Id, Id) {
        let [a, b] = ["q[0]", "q[1]"].map(|s| pool.symbol(s));
        let cheap = pool.mul(a, b);
        let sines: Vec<Id> = (1..=6)
            .map(|k| {
                let scaled = pool.scale(Coeff::int(k), a);
                pool.sin(scaled)
            })
            .collect();
        ([a, b], cheap, pool.sum(&sines))
    }

    /// Candidates over `q[0]`, `q[1]` and a parameter: a cheap one, a
    /// hopeless one, a twin of the first and two close to each other.
    fn candidates(pool: &mut Pool) -> Vec<Vec<Id>> {
        let ([a, b], cheap, dear) = cheap_and_dear(pool);
        let m = pool.input(Input::Parameter("m".to_owned()));
        let ma = pool.mul(m, a);
        let mb = pool.mul(m, b);
        let close = pool.add(ma, mb);
        let sum = pool.add(a, b);
        let factored = pool.mul(m, sum);
        vec![
            vec![dear],
            vec![cheap, close],
            vec![dear, cheap],
            vec![cheap, close],
            vec![factored],
            vec![close],
        ]
    }

    #[test]
    fn costing_in_turn_is_costing_one_by_one() {
        let (mut one_pool, mut turn_pool) = (Pool::new(), Pool::new());
        let one_list = candidates(&mut one_pool);
        let turn_list = candidates(&mut turn_pool);
        // The rule, one candidate at a time: remembered, else hoisted, then
        // hopeless against the best so far, else lowered and remembered.
        let mut remembered: HashMap<Vec<Id>, u64> = HashMap::new();
        let mut best = None;
        let mut expected = Vec::new();
        for outputs in &one_list {
            let cost = match remembered.get(outputs) {
                Some(&w) => Cost::Lowered(w),
                None => {
                    let hoisted = per_call(&mut one_pool, outputs);
                    let naive = naive_weight(&one_pool, &hoisted);
                    if best.is_some_and(|b: u64| naive > HOPELESS * b) {
                        Cost::Hopeless(naive)
                    } else {
                        let w = Program::lower(&one_pool, &hoisted).op_count().weight();
                        remembered.insert(outputs.clone(), w);
                        Cost::Lowered(w)
                    }
                }
            };
            if let Cost::Lowered(w) = cost {
                best = Some(best.map_or(w, |b: u64| b.min(w)));
            }
            expected.push(cost);
        }
        let slices: Vec<&[Id]> = turn_list.iter().map(Vec::as_slice).collect();
        let got = Costs::default().in_turn(&mut turn_pool, &slices);
        assert_eq!(got, expected);
        assert!(expected.iter().any(|c| matches!(c, Cost::Hopeless(_))));
        assert_eq!(
            turn_pool.len(),
            one_pool.len(),
            "the same nodes, in the same order"
        );
    }

    #[test]
    fn a_costed_program_without_groups_is_the_one_lowering_gives_and_a_loser_is_forgotten() {
        let mut pool = Pool::new();
        let list = candidates(&mut pool);
        let slices: Vec<&[Id]> = list.iter().map(Vec::as_slice).collect();
        let mut costs = Costs::default();
        costs.in_turn(&mut pool, &slices);
        // [cheap, close] reads no group of parameters: kept, and the same
        // program.
        let kept = costs.take_program(&list[1]).expect("costed without groups");
        assert_eq!(kept, Program::lower(&pool, &list[1]));
        assert!(costs.take_program(&list[1]).is_none(), "taken once");
        // m²·q[0] reads the group m², under a scratch name: not kept.
        let m = pool.input(Input::Parameter("m".to_owned()));
        let a = pool.symbol("q[0]");
        let m2 = pool.mul(m, m);
        let grouped = pool.mul(m2, a);
        costs.of(&mut pool, &[grouped]);
        assert!(costs.take_program(&[grouped]).is_none());
        costs.in_turn(&mut pool, &slices[5..]);
        costs.forget_all_but(&list[0], &[&list[5], &list[0]]);
        assert!(costs.take_program(&list[5]).is_none());
        assert!(
            costs.take_program(&list[0]).is_some(),
            "the chosen one stays"
        );
    }

    #[test]
    fn a_hopeless_candidate_is_not_lowered_and_a_costed_one_is_remembered() {
        let mut pool = Pool::new();
        let (_, cheap, dear) = cheap_and_dear(&mut pool);
        let mut costs = Costs::default();
        let best = costs.of(&mut pool, &[cheap]);
        assert_eq!(best, 1);
        let [_, dear_cost] = costs.in_turn(&mut pool, &[&[cheap], &[dear]])[..] else {
            panic!("two costs");
        };
        assert!(matches!(dear_cost, Cost::Hopeless(w) if w > HOPELESS * best));
        // Remembered even against a better candidate (q[0] alone costs 0).
        let ([a, _], _, _) = cheap_and_dear(&mut pool);
        assert_eq!(
            costs.in_turn(&mut pool, &[&[a], &[cheap]]),
            [Cost::Lowered(0), Cost::Lowered(1)]
        );
        let nodes = pool.len();
        assert_eq!(costs.of(&mut pool, &[cheap]), 1);
        assert_eq!(pool.len(), nodes, "a remembered cost adds no node");
    }
}
