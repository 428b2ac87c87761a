//! Two isomorphic branches of one program computed side by side: the
//! statements of one branch paired with the statements that compute the
//! same thing for the other, so that the emitter can evaluate each pair in
//! the two lanes of one vector register.
//!
//! A legged robot's legs are the same chain with other coordinates: the
//! statements of the first leg, with its coordinates renamed to the
//! second's, are the second leg's statements. [`Program::pair_lanes`]
//! finds such pairs by that renaming alone (no knowledge of the mechanism
//! beyond the coordinate map), orders the program so that every pair is two
//! adjacent locals, and leaves every value and every operation as it was:
//! the reordered program computes the same numbers bit for bit.

use super::ir::{Local, Program, Term};
use crate::symbol::Symbol;
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
    /// local. Both compute the same expression, the partner's with the
    /// coordinates renamed and perhaps other constants.
    pub firsts: Vec<usize>,
    /// The other pairs, each a local of the first branch and its partner
    /// (sines and cosines, square roots: single statements, which the lane
    /// statements read as pairs).
    pub paired: Vec<(usize, usize)>,
}

/// What [`Program::pair_lanes`] knows of one local.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// It reads nothing of the renamed coordinates: both lanes share it.
    Shared,
    /// It is the first of a pair; the partner is the local given.
    First(usize),
    /// It is some first local's partner: a value of the second branch,
    /// which the renaming leaves as it is.
    Partner,
    /// It reads renamed coordinates but has no partner.
    Alone,
}

impl Program {
    /// The program with its isomorphic statements in adjacent pairs, where
    /// `rename` maps the first branch's inputs (coordinates, velocities, …)
    /// to the second's: a local pairs with the local whose expression is
    /// its own with the inputs renamed and the locals it reads replaced by
    /// their partners, or, failing one, with a local of that expression's
    /// shape whose constants differ (the branch mirrored, or of other
    /// dimensions: the lane statement reads each constant as a pair). Sines, cosines, square roots and fused
    /// multiply–adds pair (their partners are known) but stay single
    /// statements; arithmetic pairs are what [`LanePairs::firsts`] lists.
    /// `None` where fewer than eight pairs (`FEWEST_PAIRS`) are found, or where
    /// pairing would make a local wait for itself (the second branch
    /// reading the first's values).
    pub fn pair_lanes(&self, rename: &HashMap<Symbol, Symbol>) -> Option<LanePairs> {
        let program = self.with_outputs_as_locals();
        let locals = &program.locals;
        let key = |term: &Term| format!("{term:?}");
        let mut index: HashMap<String, usize> = HashMap::with_capacity(locals.len());
        let mut by_shape: HashMap<String, Vec<usize>> = HashMap::with_capacity(locals.len());
        for (i, local) in locals.iter().enumerate() {
            index.entry(key(&local.value)).or_insert(i);
            by_shape.entry(shape(&local.value)).or_default().push(i);
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
            // The same expression renamed, or else one of its shape whose
            // constants differ (a mirrored branch's offsets).
            let free = |j: &usize| *j != i && roles[*j] == Role::Shared;
            let partner = index.get(&key(&renamed)).copied().filter(free).or_else(|| {
                by_shape
                    .get(&shape(&renamed))
                    .and_then(|candidates| candidates.iter().copied().find(free))
            });
            match partner {
                Some(j) => {
                    roles[i] = Role::First(j);
                    roles[j] = Role::Partner;
                }
                None => roles[i] = Role::Alone,
            }
        }
        settle(locals, rename, &mut roles);
        let lane_computed =
            |i: usize| matches!(roles[i], Role::First(_)) && arithmetic(&locals[i].value);
        if (0..locals.len()).filter(|&i| lane_computed(i)).count() < FEWEST_PAIRS {
            return None;
        }
        let order = adjacent_order(locals, &roles, &lane_computed)?;
        let reordered = reorder(&program, &order);
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let firsts: Vec<usize> = order
            .iter()
            .enumerate()
            .filter(|&(_, &old)| lane_computed(old))
            .map(|(new, _)| new)
            .collect();
        let paired = order
            .iter()
            .filter_map(|&old| match roles[old] {
                Role::First(partner) if !lane_computed(old) => {
                    Some((new_index[old], new_index[partner]))
                }
                _ => None,
            })
            .collect();
        Some(LanePairs {
            program: reordered,
            firsts,
            paired,
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
            Role::First(j) => Term::Local(*j),
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

/// Undoes every pair whose partner is not its first local's expression
/// renamed (up to its constants) under the final roles (a local taken for shared before the
/// local it reads was paired), and the pairs that read them, until every
/// pair holds.
fn settle(locals: &[Local], rename: &HashMap<Symbol, Symbol>, roles: &mut [Role]) {
    loop {
        let mut changed = false;
        for i in 0..locals.len() {
            let Role::First(j) = roles[i] else {
                continue;
            };
            let renamed = renamed_term(&locals[i].value, rename, roles);
            if renamed.is_none_or(|r| shape(&r) != shape(&locals[j].value)) {
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

/// `term`'s text with every constant left out: two expressions of one
/// shape compute alike but for their constants, which a lane statement
/// reads as a pair.
fn shape(term: &Term) -> String {
    let mut text = String::new();
    write_shape(term, &mut text);
    text
}

fn write_shape(term: &Term, text: &mut String) {
    let unary = |name: &str, a: &Term, text: &mut String| {
        text.push_str(name);
        text.push('(');
        write_shape(a, text);
        text.push(')');
    };
    match term {
        Term::Const(_) => text.push('#'),
        Term::Pi => text.push_str("pi"),
        Term::Input(symbol) => text.push_str(&symbol.to_string()),
        Term::Local(i) => text.push_str(&format!("l{i}")),
        Term::Neg(a) => unary("neg", a, text),
        Term::Sin(a) => unary("sin", a, text),
        Term::Cos(a) => unary("cos", a, text),
        Term::Sqrt(a) => unary("sqrt", a, text),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
            let op = match term {
                Term::Add(..) => "+",
                Term::Sub(..) => "-",
                Term::Mul(..) => "*",
                _ => "/",
            };
            text.push('(');
            write_shape(a, text);
            text.push_str(op);
            write_shape(b, text);
            text.push(')');
        }
        Term::Fma(a, b, c) => {
            text.push_str("fma(");
            for x in [a, b, c] {
                write_shape(x, text);
                text.push(',');
            }
            text.push(')');
        }
    }
}

/// Whether `term` is arithmetic only (`+ − · /` and negation over inputs,
/// constants and locals): what two lanes compute together.
fn arithmetic(term: &Term) -> bool {
    match term {
        Term::Const(_) | Term::Input(_) | Term::Local(_) => true,
        Term::Neg(a) => arithmetic(a),
        Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
            arithmetic(a) && arithmetic(b)
        }
        Term::Pi | Term::Sin(_) | Term::Cos(_) | Term::Sqrt(_) | Term::Fma(..) => false,
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
        if let Role::First(j) = role {
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
        if let Role::First(j) = roles[node] {
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
    /// `tweak` turns the second leg's subtraction of that number into an
    /// addition. Outputs: each leg's last value, their sum, and each leg's
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
                    Term::Add(sum, Box::new(Term::Const(constant)))
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

    fn values(program: &Program) -> Vec<f64> {
        let env = |symbol: &Symbol| {
            Some(match symbol.to_string().as_str() {
                "p.k" => 0.3,
                "q[0]" => 0.7,
                "q[1]" => -1.1,
                "q[2]" => 1.9,
                "q[3]" => 0.4,
                _ => return None,
            })
        };
        program.eval(&env).expect("every input has a value")
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
