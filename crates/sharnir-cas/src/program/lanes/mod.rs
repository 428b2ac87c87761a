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
use align::{arithmetic, key, Alignment, Keep, Neutral};
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
        let mut loosely: HashMap<String, Vec<usize>> = HashMap::with_capacity(locals.len());
        let neutral = Neutral::of(locals, rename);
        for (i, local) in locals.iter().enumerate() {
            index.entry(exact(&local.value)).or_insert(i);
            by_constants
                .entry(key(&local.value, Keep::Constants))
                .or_default()
                .push(i);
            by_shape
                .entry(neutral.shapes[i].clone())
                .or_default()
                .push(i);
            loosely
                .entry(key(&local.value, Keep::Loose(&neutral)))
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
                    neutral: &neutral,
                };
                let candidates = [
                    by_constants.get(&key(&renamed, Keep::Constants)),
                    by_shape.get(&key(&renamed, Keep::Shape)),
                    loosely.get(&key(&renamed, Keep::Loose(&neutral))),
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
        settle(locals, rename, &neutral, &mut roles);
        let alignment = Alignment {
            rename,
            locals,
            roles: &roles,
            neutral: &neutral,
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
fn settle(
    locals: &[Local],
    rename: &HashMap<Symbol, Symbol>,
    neutral: &Neutral,
    roles: &mut [Role],
) {
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
                    neutral,
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
mod tests;
