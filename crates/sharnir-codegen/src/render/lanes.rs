//! Lane statements: two isomorphic branches of a function (a legged
//! robot's legs that are the same chain with other coordinates) computed
//! together, each pair of statements that compute the same expression for
//! the two branches written once over a `Pair` (`support/double/pairs.rs`),
//! whose lanes are SSE2's on x86-64.
//!
//! [`pair_branches`] finds the pairs (`sharnir_cas::Program::pair_lanes`,
//! under each renaming of one branch's coordinates to another's that the
//! plan offers, [`crate::vocabulary::Facts::branch_renamings`]) and keeps
//! the renaming that pairs the most statements. [`LaneView`] prints them:
//! `let vt5 = pair(q[0], q[6]) * pair(p.g, p.g) - …;` and, where scalar
//! code reads a result, `let (t5, t9) = pair_lanes(vt5);` (and `let t9 =
//! -t9;` where the second lane is the partner's value of the other sign,
//! a mirrored branch's). The first lane computes the first statement's
//! operations in order, the second the same operations over the second
//! branch's values ([`sharnir_cas::LanePairs::seconds`]), which give the
//! partner's value: exactly, or to within rounding where the partner adds
//! a sum's items in another order.

use crate::error::EmitError;
use crate::print::printer::{LaneLeaves, Printer};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use sharnir_cas::{LanePairs, Program, Term};
use sharnir_mech::Input;
use std::collections::{HashMap, HashSet};

/// The fewest operations the lane statements must save per shuffle they
/// cost, in tenths: a value packed into a `Pair` (two scalars, or one
/// twice; constants cost nothing) and a second lane read back. Measured on
/// `solo12_fixed` and the floating `solo12` (AMD EPYC, each function with
/// and without lanes, results bit for bit the same): 2.6 to 18 operations
/// per shuffle ran 1.05 to 2 times faster (the inverse and forward
/// dynamics and their derivatives, the mass matrix of the floating base,
/// `M⁻¹`, the bias, the Coriolis matrix, the body Jacobians), 1.4 to 2.4
/// no faster (gravity, energy, poses).
const SAVED_PER_SHUFFLE_TENTHS: u32 = 25;

/// `program` with its branches paired under the renaming (of
/// `renamings`) whose lane statements save the most operations; `None`
/// where none pairs enough or where the lanes would not pay
/// ([`SAVED_PER_SHUFFLE_TENTHS`]).
pub(crate) fn pair_branches(
    program: &Program,
    renamings: &[HashMap<Input, Input>],
) -> Option<LanePairs> {
    let (pairs, saved) = renamings
        .iter()
        .filter_map(|rename| {
            let pairs = program.pair_lanes(rename)?;
            let saved: u32 = pairs
                .firsts
                .iter()
                .map(|&k| {
                    let ops = pairs.program.locals[k].value.op_count();
                    ops.mul + ops.add + ops.div
                })
                .sum();
            Some((pairs, saved))
        })
        .max_by_key(|(_, saved)| *saved)?;
    let shuffles = LaneView::new(&pairs).shuffles();
    (10 * saved >= SAVED_PER_SHUFFLE_TENTHS * shuffles).then_some(pairs)
}

/// What printing a body with lane statements needs of them.
pub(crate) struct LaneView<'l> {
    /// Whether each local is the first of a lane statement.
    first: Vec<bool>,
    /// Whether scalar code (a scalar statement, an output, a lane
    /// statement's packed leaf) reads the local.
    scalar: Vec<bool>,
    /// Whether the local is a lane statement's partner, which that
    /// statement defines.
    partner: Vec<bool>,
    /// Whether the local, a lane statement's first, has a partner that is
    /// its second lane negated.
    negated: Vec<bool>,
    /// The second lane's expression of each lane statement, by its first
    /// local.
    seconds: HashMap<usize, &'l Term>,
    /// The pairs' program.
    program: &'l Program,
}

impl<'l> LaneView<'l> {
    /// The view of `lanes`, whose program is the one printed.
    pub(crate) fn new(lanes: &'l LanePairs) -> LaneView<'l> {
        let program = &lanes.program;
        let n = program.locals.len();
        let mut first = vec![false; n];
        let mut partner = vec![false; n];
        let mut negated = vec![false; n];
        let mut seconds = HashMap::with_capacity(lanes.firsts.len());
        let pairs = lanes.firsts.iter().zip(&lanes.seconds);
        for ((&k, second), &flag) in pairs.zip(&lanes.negated) {
            first[k] = true;
            partner[k + 1] = true;
            negated[k] = flag;
            seconds.insert(k, second);
        }
        let mut view = LaneView {
            first,
            scalar: vec![false; n],
            partner,
            negated,
            seconds,
            program,
        };
        for (i, local) in program.locals.iter().enumerate() {
            if view.partner[i] {
                continue;
            }
            if view.is_lane(i) {
                for (first, second) in view.packed(i) {
                    for leaf in [first, second] {
                        if let Term::Local(r) = without_negation(leaf) {
                            view.scalar[*r] = true;
                        }
                    }
                }
                continue;
            }
            for r in local.value.locals_read() {
                view.scalar[r] = true;
            }
        }
        for r in program.outputs.iter().flat_map(Term::locals_read) {
            view.scalar[r] = true;
        }
        view
    }

    /// The leaves lane statement `k` packs from scalars: each leaf of its
    /// first local's expression but the lane statements it reads, with the
    /// second lane's leaf at the same place.
    fn packed(&self, k: usize) -> Vec<(&'l Term, &'l Term)> {
        let mut leaves = Vec::new();
        if let (Some(local), Some(second)) = (self.program.locals.get(k), self.seconds.get(&k)) {
            leaf_pairs(&local.value, second, &mut |first, second| {
                if !matches!(first, Term::Local(r) if self.is_lane(*r)) {
                    leaves.push((first, second));
                }
            });
        }
        leaves
    }

    /// The shuffles the lane statements cost: each distinct pair of values
    /// they pack that are not both constants, and each second lane read
    /// back (the first lane of a register is its scalar).
    fn shuffles(&self) -> u32 {
        let mut packed: HashSet<String> = HashSet::new();
        let mut read_back = 0;
        for k in 0..self.first.len() {
            if !self.is_lane(k) {
                continue;
            }
            if self.scalar.get(k + 1).copied().unwrap_or(false) {
                read_back += 1;
            }
            for (first, second) in self.packed(k) {
                if !matches!((first, second), (Term::Const(_), Term::Const(_))) {
                    packed.insert(format!("{first:?} {second:?}"));
                }
            }
        }
        u32::try_from(packed.len() + read_back).unwrap_or(u32::MAX)
    }

    /// Whether local `i` is the first of a lane statement.
    pub(crate) fn is_lane(&self, i: usize) -> bool {
        self.first.get(i) == Some(&true)
    }

    /// Whether local `i` is a lane statement's partner.
    pub(crate) fn is_partner(&self, i: usize) -> bool {
        self.partner.get(i).copied().unwrap_or(false)
    }

    /// The scalar locals the lane statement of first local `k` reads where
    /// they come from `live` (a part of a split function reading an
    /// earlier part's values): both lanes of a lane statement, and the
    /// locals it packs.
    pub(crate) fn reads(&self, k: usize) -> Vec<usize> {
        let mut reads = Vec::new();
        if let (Some(local), Some(second)) = (self.program.locals.get(k), self.seconds.get(&k)) {
            leaf_pairs(&local.value, second, &mut |first, second| {
                if let Term::Local(r) = first {
                    reads.push(*r);
                    if self.is_lane(*r) {
                        reads.push(*r + 1);
                        return;
                    }
                }
                if let Term::Local(o) = without_negation(second) {
                    reads.push(*o);
                }
            });
        }
        reads
    }

    /// Marks local `i` as read by scalar code: a part of a split function
    /// reads it from `live`, where the part that computes it stores it.
    pub(crate) fn read_back(&mut self, i: usize) {
        if let Some(read) = self.scalar.get_mut(i) {
            *read = true;
        }
    }

    /// The lane statement of first local `k` (partner `k + 1`) of
    /// `program`, whose locals are named `names` (those of earlier parts
    /// of a split function kept in `live` at `slots`): the `Pair` and,
    /// where scalar code reads them, its lanes (the partner negated where
    /// the second lane is its value of the other sign).
    pub(crate) fn statement(
        &self,
        program: &Program,
        names: &[String],
        slots: &[Option<usize>],
        k: usize,
    ) -> Result<Vec<TokenStream>, EmitError> {
        let (Some(local), Some(partner), Some(second)) = (
            program.locals.get(k),
            names.get(k + 1),
            self.seconds.get(&k),
        ) else {
            return Err(EmitError::Internal(format!(
                "lane statement {k} has no partner local"
            )));
        };
        let mut seconds = HashMap::new();
        leaf_pairs(&local.value, second, &mut |first, second| {
            seconds.insert(std::ptr::from_ref(first), second);
        });
        let leaves = LaneLeaves {
            lane_statements: &self.first,
            seconds: &seconds,
            negated: &self.negated,
        };
        let printer = Printer {
            locals: names,
            slots,
            lanes: Some(&leaves),
        };
        let value = printer.expr(&local.value)?;
        let lane = Ident::new(&format!("v{}", local.name), Span::call_site());
        let binding = |read: bool, name: &str| {
            if read {
                let ident = Ident::new(name, Span::call_site());
                quote!(#ident)
            } else {
                quote!(_)
            }
        };
        let (first, second) = (self.scalar[k], self.scalar[k + 1]);
        let mut lines = vec![quote!(let #lane = #value;)];
        if first || second {
            let (a, b) = (binding(first, &local.name), binding(second, partner));
            lines.push(quote!(let (#a, #b) = pair_lanes(#lane);));
        }
        if second && self.negated[k] {
            let b = binding(true, partner);
            lines.push(quote!(let #b = -#b;));
        }
        Ok(lines)
    }
}

/// `term` without one negation at its top: a leaf a second lane packs
/// negated.
fn without_negation(term: &Term) -> &Term {
    match term {
        Term::Neg(a) => a,
        _ => term,
    }
}

/// Calls `found` with each leaf of `first` and the subexpression of
/// `second` (a second lane's expression, of `first`'s operations: the
/// leaf, perhaps negated) at its place.
fn leaf_pairs<'t>(first: &'t Term, second: &'t Term, found: &mut impl FnMut(&'t Term, &'t Term)) {
    match (first, second) {
        (Term::Neg(a), Term::Neg(b)) => leaf_pairs(a, b, found),
        (Term::Add(a, b), Term::Add(c, d))
        | (Term::Sub(a, b), Term::Sub(c, d))
        | (Term::Mul(a, b), Term::Mul(c, d))
        | (Term::Div(a, b), Term::Div(c, d)) => {
            leaf_pairs(a, c, found);
            leaf_pairs(b, d, found);
        }
        _ => found(first, second),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use sharnir_cas::{Local, Term};

    fn input(name: &str) -> Box<Term> {
        Box::new(Term::Input(Input::parse(name)))
    }

    /// Two legs (`q[0]`, `qd[0]` and `q[1]`, `qd[1]`) of `steps`
    /// statements each, `x ← x · q̇ + sin q · g − c` from `x = q`, `c` 0.5
    /// in the first and −0.5 in the second (mirrored), and each leg's last
    /// value as an output; `g` is shared.
    pub(crate) fn legs(steps: usize) -> Program {
        let mut locals = Vec::new();
        for leg in 0..2 {
            locals.push(Local {
                name: format!("s{leg}"),
                value: Term::Sin(input(&format!("q[{leg}]"))),
            });
        }
        let mut last: [Term; 2] = [0, 1].map(|leg| Term::Input(Input::Position(leg)));
        for _ in 0..steps {
            for (leg, previous) in last.iter_mut().enumerate() {
                let value = Term::Sub(
                    Box::new(Term::Add(
                        Box::new(Term::Mul(
                            Box::new(previous.clone()),
                            input(&format!("qd[{leg}]")),
                        )),
                        Box::new(Term::Mul(Box::new(Term::Local(leg)), input("p.g"))),
                    )),
                    Box::new(Term::Const(if leg == 0 { 0.5 } else { -0.5 })),
                );
                locals.push(Local {
                    name: format!("t{}", locals.len()),
                    value,
                });
                *previous = Term::Local(locals.len() - 1);
            }
        }
        Program {
            locals,
            outputs: last.to_vec(),
        }
    }

    pub(crate) fn rename() -> Vec<HashMap<Input, Input>> {
        vec![[
            (Input::Position(0), Input::Position(1)),
            (Input::Velocity(0), Input::Velocity(1)),
        ]
        .into_iter()
        .collect()]
    }

    #[test]
    fn two_legs_are_written_as_lane_statements_read_back_once() {
        let program = legs(12);
        let lanes = pair_branches(&program, &rename()).expect("the legs pair");
        assert_eq!(lanes.firsts.len(), 12);
        let view = LaneView::new(&lanes);
        let program = &lanes.program;
        let names: Vec<String> = program.locals.iter().map(|l| l.name.clone()).collect();
        let mut statements = Vec::new();
        for &k in &lanes.firsts {
            assert!(view.is_lane(k) && view.is_partner(k + 1));
            statements.extend(view.statement(program, &names, &[], k).expect("prints"));
        }
        let text = statements
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        // The first statement reads both legs' coordinates and rates, the
        // shared parameter twice and the sines as a pair.
        assert!(
            text.contains("pair (q [0] , q [1]) * pair (qd [0] , qd [1])"),
            "{text}"
        );
        assert!(
            text.contains("pair (s0 , s1) * pair (p . g , p . g)"),
            "{text}"
        );
        // The mirrored constant, and no sign taken out of it.
        assert!(text.contains("- pair (0.5 , - 0.5)"), "{text}");
        // Only the last statement, the outputs', is read back.
        assert_eq!(text.matches("pair_lanes (").count(), 1, "{text}");
    }

    #[test]
    fn lanes_that_cost_more_shuffles_than_they_save_are_not_written() {
        // Each statement one product of two inputs of its own, and an
        // output: one operation saved for two values packed and a lane
        // read back.
        let term = |leg: usize, k: usize| {
            Term::Mul(
                input(&format!("q[{}]", 12 * leg + k)),
                input(&format!("qd[{}]", 12 * leg + k)),
            )
        };
        let locals: Vec<Local> = (0..12)
            .flat_map(|k| [0, 1].map(|leg| (leg, k)))
            .map(|(leg, k)| Local {
                name: format!("t{leg}_{k}"),
                value: term(leg, k),
            })
            .collect();
        let program = Program {
            outputs: (0..locals.len()).map(Term::Local).collect(),
            locals,
        };
        let own: HashMap<Input, Input> = (0..12)
            .flat_map(|k| {
                [
                    (Input::Position(k), Input::Position(12 + k)),
                    (Input::Velocity(k), Input::Velocity(12 + k)),
                ]
            })
            .collect();
        assert!(program.pair_lanes(&own).is_some());
        assert!(pair_branches(&program, &[own]).is_none());
    }
}
