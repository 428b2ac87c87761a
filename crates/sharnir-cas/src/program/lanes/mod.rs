//! Two isomorphic branches of one program computed side by side: the
//! statements of one branch paired with the statements that compute the
//! same thing for the other, so that the emitter can evaluate each pair in
//! the two lanes of one vector register.
//!
//! A legged robot's legs are the same chain with other coordinates: the
//! statements of the first leg, with its coordinates renamed to the
//! second's, are the second leg's statements, up to constants and, for a
//! mirrored leg, signs and the order of operands (`align`).
//! [`Program::pair_lanes`] finds such pairs by that renaming alone (no
//! knowledge of the mechanism beyond the coordinate map), orders the
//! program so that every pair is two adjacent locals, and leaves every
//! value and every operation as it was: the reordered program computes the
//! same numbers bit for bit. What the second lane computes is written out
//! per pair ([`LanePairs::seconds`]): the first statement's operations over
//! the second branch's values, equal to its partner's value (or its
//! negation) exactly where only the order of operands and signs differ
//! (IEEE arithmetic carries them exactly, but for the sign of an exact
//! zero), and to within rounding where a sum adds its items in another
//! order.

mod align;

use super::ir::{Local, Program, Term};
use crate::symbol::Symbol;
use align::{arithmetic, key, Alignment};
use std::collections::{BTreeSet, HashMap};

/// The fewest pairs worth a lane statement's packing and unpacking: below
/// it [`Program::pair_lanes`] finds nothing.
const FEWEST_PAIRS: usize = 8;

/// A program whose branch statements come in adjacent pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct LanePairs {
    /// The program, reordered: the same locals and outputs (each output
    /// that was an expression is now a local of its own, `o{k}`), in an
    /// order where every pair is two adjacent locals.
    pub program: Program,
    /// The first local of every pair, in order; its partner is the next
    /// local.
    pub firsts: Vec<usize>,
    /// What the second lane of each pair computes (by [`LanePairs::firsts`]):
    /// the first local's operations, in its order, over the second
    /// branch's values. Its leaves are constants, inputs and locals, some
    /// negated; a leaf that is a pair's partner stands for that pair's
    /// second lane.
    pub seconds: Vec<Term>,
    /// Whether each pair's partner is its second lane negated (a mirrored
    /// branch's value of the other sign), by [`LanePairs::firsts`].
    pub negated: Vec<bool>,
}

/// What [`Program::pair_lanes`] knows of one local.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// It reads nothing of the renamed coordinates: both lanes share it.
    Shared,
    /// It is the first of a pair; the partner is the local given, the
    /// second lane's value negated where the flag is set (always unset for
    /// a sine, a cosine or a root, which pair as they are).
    First(usize, bool),
    /// It is some first local's partner: a value of the second branch,
    /// which the renaming leaves as it is.
    Partner,
    /// It reads renamed coordinates but has no partner.
    Alone,
}

impl Program {
    /// The program with its isomorphic statements in adjacent pairs, where
    /// `rename` maps the first branch's inputs (coordinates, velocities, …)
    /// to the second's. An arithmetic local pairs with a local that
    /// computes the same operations over the second branch's values, up to
    /// its constants (a mirrored branch, or one of other dimensions), the
    /// order of the operands of its sums and products and signs
    /// (`align`): [`LanePairs::seconds`] says what the second lane
    /// computes. Sines, cosines, square roots and fused multiply–adds pair
    /// where the partner is the expression renamed, and stay single
    /// statements. `None` where fewer than eight pairs (`FEWEST_PAIRS`)
    /// are found, or where pairing would make a local wait for itself
    /// (the second branch reading the first's values).
    pub fn pair_lanes(&self, rename: &HashMap<Symbol, Symbol>) -> Option<LanePairs> {
        let program = self.with_outputs_as_locals();
        let locals = &program.locals;
        let exact = |term: &Term| format!("{term:?}");
        let mut index: HashMap<String, usize> = HashMap::with_capacity(locals.len());
        let mut by_constants: HashMap<String, Vec<usize>> = HashMap::with_capacity(locals.len());
        let mut by_shape: HashMap<String, Vec<usize>> = HashMap::with_capacity(locals.len());
        for (i, local) in locals.iter().enumerate() {
            index.entry(exact(&local.value)).or_insert(i);
            by_constants
                .entry(key(&local.value, true))
                .or_default()
                .push(i);
            by_shape
                .entry(key(&local.value, false))
                .or_default()
                .push(i);
        }
        let mut roles = vec![Role::Shared; locals.len()];
        for (i, local) in locals.iter().enumerate() {
            if roles[i] == Role::Partner {
                continue;
            }
            let Some(renamed) = renamed_term(&local.value, rename, &roles) else {
                roles[i] = Role::Alone;
                continue;
            };
            if renamed == local.value {
                continue;
            }
            let free = |j: &usize| *j != i && roles[*j] == Role::Shared;
            let partner = if arithmetic(&local.value) {
                // Candidates with the same constants (up to sign) first.
                let alignment = Alignment {
                    rename,
                    locals,
                    roles: &roles,
                };
                let candidates = [
                    by_constants.get(&key(&renamed, true)),
                    by_shape.get(&key(&renamed, false)),
                ];
                candidates
                    .into_iter()
                    .flatten()
                    .flatten()
                    .copied()
                    .filter(free)
                    .find_map(|j| {
                        // The sign whose second lane packs the fewest
                        // values negated.
                        [false, true]
                            .into_iter()
                            .filter_map(|negated| {
                                let second =
                                    alignment.second(&local.value, &locals[j].value, negated)?;
                                Some((align::negated_leaves(&second), negated))
                            })
                            .min()
                            .map(|(_, negated)| (j, negated))
                    })
            } else {
                index
                    .get(&exact(&renamed))
                    .copied()
                    .filter(free)
                    .map(|j| (j, false))
            };
            match partner {
                Some((j, negated)) => {
                    roles[i] = Role::First(j, negated);
                    roles[j] = Role::Partner;
                }
                None => roles[i] = Role::Alone,
            }
        }
        settle(locals, rename, &mut roles);
        let alignment = Alignment {
            rename,
            locals,
            roles: &roles,
        };
        let lane_computed = |i: usize| alignment.lane_computed(i);
        if (0..locals.len()).filter(|&i| lane_computed(i)).count() < FEWEST_PAIRS {
            return None;
        }
        let order = adjacent_order(locals, &roles, &lane_computed)?;
        let reordered = reorder(&program, &order);
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        let mut negated = Vec::new();
        for (new, &old) in order.iter().enumerate() {
            if let (true, Role::First(partner, flag)) = (lane_computed(old), roles[old]) {
                let second = alignment.second(&locals[old].value, &locals[partner].value, flag)?;
                firsts.push(new);
                seconds.push(renumbered(&second, &new_index));
                negated.push(flag);
            }
        }
        Some(LanePairs {
            program: reordered,
            firsts,
            seconds,
            negated,
        })
    }

    /// The same program with every output that is an expression computed
    /// into a local of its own (`o{k}`), so that outputs pair as locals do.
    fn with_outputs_as_locals(&self) -> Program {
        let mut program = self.clone();
        for (k, output) in program.outputs.iter_mut().enumerate() {
            if matches!(
                output,
                Term::Local(_) | Term::Input(_) | Term::Const(_) | Term::Pi
            ) {
                continue;
            }
            let value = std::mem::replace(output, Term::Local(program.locals.len()));
            program.locals.push(Local {
                name: format!("o{k}"),
                value,
            });
        }
        program
    }
}

/// `term` with the inputs renamed and the first locals replaced by their
/// partners; the rest (shared locals, and partners, which are the second
/// branch's and so their own renaming) stay. `None` where it reads a local
/// that has no partner but reads renamed inputs (so no local can be its
/// partner).
fn renamed_term(term: &Term, rename: &HashMap<Symbol, Symbol>, roles: &[Role]) -> Option<Term> {
    let unary = |a: &Term| renamed_term(a, rename, roles).map(Box::new);
    Some(match term {
        Term::Input(symbol) => Term::Input(rename.get(symbol).unwrap_or(symbol).clone()),
        Term::Local(i) => match roles.get(*i)? {
            Role::Shared | Role::Partner => Term::Local(*i),
            Role::First(j, _) => Term::Local(*j),
            Role::Alone => return None,
        },
        Term::Const(_) | Term::Pi => term.clone(),
        Term::Neg(a) => Term::Neg(unary(a)?),
        Term::Sin(a) => Term::Sin(unary(a)?),
        Term::Cos(a) => Term::Cos(unary(a)?),
        Term::Sqrt(a) => Term::Sqrt(unary(a)?),
        Term::Add(a, b) => Term::Add(unary(a)?, unary(b)?),
        Term::Sub(a, b) => Term::Sub(unary(a)?, unary(b)?),
        Term::Mul(a, b) => Term::Mul(unary(a)?, unary(b)?),
        Term::Div(a, b) => Term::Div(unary(a)?, unary(b)?),
        Term::Fma(a, b, c) => Term::Fma(unary(a)?, unary(b)?, unary(c)?),
    })
}

/// Undoes every pair that no longer holds under the final roles (a local
/// taken for shared before the local it reads was paired, a pair whose
/// alignment needed a pair since undone), and the pairs that read them,
/// until every pair holds.
fn settle(locals: &[Local], rename: &HashMap<Symbol, Symbol>, roles: &mut [Role]) {
    loop {
        let mut changed = false;
        for i in 0..locals.len() {
            let Role::First(j, negated) = roles[i] else {
                continue;
            };
            let holds = if arithmetic(&locals[i].value) {
                let alignment = Alignment {
                    rename,
                    locals,
                    roles,
                };
                alignment
                    .second(&locals[i].value, &locals[j].value, negated)
                    .is_some()
            } else {
                renamed_term(&locals[i].value, rename, roles).as_ref() == Some(&locals[j].value)
            };
            if !holds {
                roles[i] = Role::Alone;
                roles[j] = Role::Shared;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// An order of the locals (old indices) in which every local comes after
/// what it reads and every lane-computed first local is followed at once
/// by its partner, otherwise as close to the old order as that allows (the
/// earliest ready statement first); `None` where no such order exists.
fn adjacent_order(
    locals: &[Local],
    roles: &[Role],
    lane_computed: &impl Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    let n = locals.len();
    // One node per statement: a lane-computed pair is one node, named by
    // its first local.
    let mut node_of: Vec<usize> = (0..n).collect();
    for (i, role) in roles.iter().enumerate() {
        if let Role::First(j, _) = role {
            if lane_computed(i) {
                node_of[*j] = i;
            }
        }
    }
    let mut waiting = vec![0usize; n];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, local) in locals.iter().enumerate() {
        let node = node_of[i];
        let reads: BTreeSet<usize> = local
            .value
            .locals_read()
            .into_iter()
            .map(|k| node_of[k])
            .filter(|&read| read != node)
            .collect();
        for read in reads {
            if !readers[read].contains(&node) {
                readers[read].push(node);
                waiting[node] += 1;
            }
        }
    }
    let mut ready: BTreeSet<usize> = (0..n)
        .filter(|&i| node_of[i] == i && waiting[i] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(node) = ready.pop_first() {
        order.push(node);
        if let Role::First(j, _) = roles[node] {
            if lane_computed(node) {
                order.push(j);
            }
        }
        for &reader in &readers[node] {
            waiting[reader] -= 1;
            if waiting[reader] == 0 {
                ready.insert(reader);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// `program` with its locals in `order` (old indices) and every reference
/// renumbered.
fn reorder(program: &Program, order: &[usize]) -> Program {
    let mut new_index = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let renumber = |term: &Term| renumbered(term, &new_index);
    Program {
        locals: order
            .iter()
            .map(|&old| Local {
                name: program.locals[old].name.clone(),
                value: renumber(&program.locals[old].value),
            })
            .collect(),
        outputs: program.outputs.iter().map(renumber).collect(),
    }
}

/// `term` reading local `new_index[k]` where it read `k`.
fn renumbered(term: &Term, new_index: &[usize]) -> Term {
    let unary = |a: &Term| Box::new(renumbered(a, new_index));
    match term {
        Term::Local(k) => Term::Local(new_index[*k]),
        Term::Const(_) | Term::Pi | Term::Input(_) => term.clone(),
        Term::Neg(a) => Term::Neg(unary(a)),
        Term::Sin(a) => Term::Sin(unary(a)),
        Term::Cos(a) => Term::Cos(unary(a)),
        Term::Sqrt(a) => Term::Sqrt(unary(a)),
        Term::Add(a, b) => Term::Add(unary(a), unary(b)),
        Term::Sub(a, b) => Term::Sub(unary(a), unary(b)),
        Term::Mul(a, b) => Term::Mul(unary(a), unary(b)),
        Term::Div(a, b) => Term::Div(unary(a), unary(b)),
        Term::Fma(a, b, c) => Term::Fma(unary(a), unary(b), unary(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str) -> Term {
        Term::Input(Symbol::parse(name))
    }

    fn local(i: usize) -> Box<Term> {
        Box::new(Term::Local(i))
    }

    /// Two legs of `n` statements each, the second with its coordinates
    /// `q[2]`, `q[3]` for the first's `q[0]`, `q[1]` and its constants of
    /// the other sign (a mirrored leg), each reading a shared `p.k`;
    /// `tweak` turns the second leg's subtraction of that number into a
    /// product. Outputs: each leg's last value, their sum, and each leg's
    /// last value negated.
    fn legs(n: usize, tweak: Option<usize>) -> Program {
        let mut locals = vec![Local {
            name: "shared".into(),
            value: Term::Mul(Box::new(input("p.k")), Box::new(input("p.k"))),
        }];
        let mut last = [None, None];
        for step in 0..n {
            for leg in [0, 1] {
                let (a, b) = if leg == 0 {
                    (input("q[0]"), input("q[1]"))
                } else {
                    (input("q[2]"), input("q[3]"))
                };
                let constant = if leg == 1 { -0.5 } else { 0.5 };
                let previous = last[leg].map_or(a.clone(), Term::Local);
                let sum = Box::new(Term::Add(
                    Box::new(Term::Mul(Box::new(previous), Box::new(b))),
                    Box::new(Term::Mul(local(0), Box::new(a))),
                ));
                let value = if leg == 1 && tweak == Some(step) {
                    Term::Mul(sum, Box::new(Term::Const(constant)))
                } else {
                    Term::Sub(sum, Box::new(Term::Const(constant)))
                };
                locals.push(Local {
                    name: format!("t{}", locals.len()),
                    value,
                });
                last[leg] = Some(locals.len() - 1);
            }
        }
        let (a, b) = (last[0].expect("legs"), last[1].expect("legs"));
        Program {
            locals,
            outputs: vec![
                Term::Local(a),
                Term::Neg(local(b)),
                Term::Add(local(a), local(b)),
                Term::Neg(local(a)),
            ],
        }
    }

    fn rename() -> HashMap<Symbol, Symbol> {
        [("q[0]", "q[2]"), ("q[1]", "q[3]")]
            .into_iter()
            .map(|(a, b)| (Symbol::parse(a), Symbol::parse(b)))
            .collect()
    }

    fn env(symbol: &Symbol) -> Option<f64> {
        Some(match symbol.to_string().as_str() {
            "p.k" => 0.3,
            "q[0]" => 0.7,
            "q[1]" => -1.1,
            "q[2]" => 1.9,
            "q[3]" => 0.4,
            _ => return None,
        })
    }

    /// The program's outputs.
    fn values(program: &Program) -> Vec<f64> {
        program.eval(&env).expect("every input has a value")
    }

    /// Checks that every pair's second lane, computed from the program's
    /// locals (a pair's partner read as that pair's second lane), is its
    /// partner's value, negated where the pair says so: bit for bit where
    /// `exact`, else to within 1e-14 of the value (sums added in another
    /// order).
    fn assert_second_lanes_compute_the_partners(lanes: &LanePairs, exact: bool) {
        let mut values: Vec<f64> = Vec::new();
        for local in &lanes.program.locals {
            let value = local
                .value
                .eval(&values, &env)
                .expect("every input has a value");
            values.push(value);
        }
        let mut lane_values = values.clone();
        for (&k, &negated) in lanes.firsts.iter().zip(&lanes.negated) {
            if negated {
                lane_values[k + 1] = -values[k + 1];
            }
        }
        for (&k, second) in lanes.firsts.iter().zip(&lanes.seconds) {
            let lane = second
                .eval(&lane_values, &env)
                .expect("every leaf has a value");
            let want = lane_values[k + 1];
            if exact {
                assert_eq!(lane, want, "pair {k}: {second:?}");
            } else {
                assert!(
                    (lane - want).abs() <= 1e-14 * want.abs().max(1.0),
                    "pair {k}: {lane} against {want}: {second:?}"
                );
            }
        }
    }

    /// Two legs as in [`legs`], the second mirrored: each of its values
    /// the first's negated, computed as `c − (p₂ · x − q · s)`, its sums
    /// in the other order, the shared value on the left of its products.
    fn mirrored_legs(n: usize, reordered: bool) -> Program {
        let mut locals = vec![Local {
            name: "shared".into(),
            value: Term::Mul(Box::new(input("p.k")), Box::new(input("p.k"))),
        }];
        let mut last = [None, None];
        for _ in 0..n {
            let previous = last[0].map_or(input("q[0]"), Term::Local);
            locals.push(Local {
                name: format!("t{}", locals.len()),
                value: Term::Sub(
                    Box::new(Term::Add(
                        Box::new(Term::Mul(Box::new(previous), Box::new(input("q[1]")))),
                        Box::new(Term::Mul(local(0), Box::new(input("q[0]")))),
                    )),
                    Box::new(Term::Const(0.5)),
                ),
            });
            last[0] = Some(locals.len() - 1);
            // −(x q₃ + s q₂ − 0.5) = 0.5 − (s q₂ − y q₃) with y = −x, or
            // (reordered) (0.5 + q₃ y) − s q₂.
            let previous = last[1].map_or(Term::Neg(Box::new(input("q[2]"))), Term::Local);
            let product = Term::Mul(local(0), Box::new(input("q[2]")));
            let rate = Term::Mul(Box::new(input("q[3]")), Box::new(previous));
            let value = if reordered {
                Term::Sub(
                    Box::new(Term::Add(Box::new(Term::Const(0.5)), Box::new(rate))),
                    Box::new(product),
                )
            } else {
                Term::Sub(
                    Box::new(Term::Const(0.5)),
                    Box::new(Term::Sub(Box::new(product), Box::new(rate))),
                )
            };
            locals.push(Local {
                name: format!("t{}", locals.len()),
                value,
            });
            last[1] = Some(locals.len() - 1);
        }
        let (a, b) = (last[0].expect("legs"), last[1].expect("legs"));
        Program {
            locals,
            outputs: vec![Term::Local(a), Term::Local(b)],
        }
    }

    #[test]
    fn a_mirrored_leg_whose_sums_add_in_another_order_pairs_within_rounding() {
        let program = mirrored_legs(10, true);
        let lanes = program.pair_lanes(&rename()).expect("pairs");
        assert_eq!(lanes.firsts.len(), 10);
        assert_second_lanes_compute_the_partners(&lanes, false);
        // Each second lane adds its items in the first lane's order.
        for (k, second) in lanes.firsts.iter().zip(&lanes.seconds) {
            let first = &lanes.program.locals[*k].value;
            assert!(
                matches!((first, second), (Term::Sub(a, _), Term::Sub(b, _))
                    if matches!((&**a, &**b), (Term::Add(..), Term::Add(..)))),
                "{first:?} / {second:?}"
            );
        }
    }

    #[test]
    fn a_mirrored_leg_pairs_with_its_signs_and_operand_orders() {
        let program = mirrored_legs(10, false);
        let lanes = program.pair_lanes(&rename()).expect("pairs");
        assert_eq!(lanes.firsts.len(), 10);
        // The partners are the second lanes negated, all but the first,
        // which reads `-q[2]` packed as it is.
        assert_eq!(lanes.negated.iter().filter(|&&n| n).count(), 10);
        assert_second_lanes_compute_the_partners(&lanes, true);
        let (before, after) = (values(&program), values(&lanes.program));
        assert_eq!(before, after);
        // A second lane reads the first's operations in the first's order.
        let first = &lanes.program.locals[lanes.firsts[1]].value;
        assert!(matches!(
            (first, &lanes.seconds[1]),
            (Term::Sub(a, _), Term::Sub(b, _)) if matches!((&**a, &**b), (Term::Add(..), Term::Add(..)))
        ));
    }

    #[test]
    fn the_legs_pair_statement_for_statement_and_compute_the_same_bits() {
        let program = legs(10, None);
        let lanes = program.pair_lanes(&rename()).expect("pairs");
        // Ten statements per leg, and the output `-t` of each leg.
        assert_eq!(lanes.firsts.len(), 11);
        let locals = &lanes.program.locals;
        for &k in &lanes.firsts {
            assert_ne!(locals[k].value, locals[k + 1].value);
        }
        // The statements of the mirrored leg pair with their constants of
        // the other sign.
        assert!(lanes.firsts.iter().any(|&k| {
            matches!(
                (&locals[k].value, &locals[k + 1].value),
                (Term::Sub(_, a), Term::Sub(_, b))
                    if **a == Term::Const(0.5) && **b == Term::Const(-0.5)
            )
        }));
        let (before, after) = (values(&program), values(&lanes.program));
        assert_eq!(before.len(), after.len());
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        assert_second_lanes_compute_the_partners(&lanes, true);
        // Every local after the locals it reads.
        for (k, local) in locals.iter().enumerate() {
            for r in local.value.locals_read() {
                assert!(r < k, "local {k} reads {r}");
            }
        }
    }

    #[test]
    fn a_statement_that_differs_ends_the_pairs_that_read_it() {
        let lanes = legs(14, Some(9)).pair_lanes(&rename()).expect("pairs");
        // Statements 0 to 8 of each leg pair, their constants of other
        // signs; 9 differs in its operation, and 10 to 13 and the outputs
        // read it.
        assert_eq!(lanes.firsts.len(), 9);
        let (before, after) = (values(&legs(14, Some(9))), values(&lanes.program));
        assert_eq!(before, after);
        assert!(legs(10, Some(2)).pair_lanes(&rename()).is_none());
    }

    #[test]
    fn nothing_pairs_without_a_renaming() {
        assert!(legs(10, None).pair_lanes(&HashMap::new()).is_none());
    }
}
