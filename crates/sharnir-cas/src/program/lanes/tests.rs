//! The pairing's tests: two legs, identical, mirrored or with their sums
//! in another order, evaluated lane by lane.

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

/// Two legs hung at other places of a base: each starts from a value the
/// base computes for its own hip (`0.085·b + k` and `k − 0.085·b`, which
/// read neither leg), then `x ← x · q₁ + s` as in [`legs`].
fn legs_at_two_hips(n: usize) -> Program {
    let k = || Box::new(input("p.k"));
    let base = || Box::new(Term::Local(0));
    let offset = || Box::new(Term::Mul(Box::new(Term::Const(0.085)), base()));
    let mut locals = vec![
        Local {
            name: "base".into(),
            value: Term::Mul(k(), k()),
        },
        Local {
            name: "hip0".into(),
            value: Term::Add(offset(), k()),
        },
        Local {
            name: "hip1".into(),
            value: Term::Sub(k(), offset()),
        },
    ];
    let mut last = [1, 2];
    for _ in 0..n {
        for (leg, (a, b)) in [("q[0]", "q[1]"), ("q[2]", "q[3]")].into_iter().enumerate() {
            locals.push(Local {
                name: format!("t{}", locals.len()),
                value: Term::Add(
                    Box::new(Term::Mul(local(last[leg]), Box::new(input(b)))),
                    Box::new(Term::Mul(base(), Box::new(input(a)))),
                ),
            });
            last[leg] = locals.len() - 1;
        }
    }
    Program {
        outputs: vec![Term::Local(last[0]), Term::Local(last[1])],
        locals,
    }
}

#[test]
fn legs_at_two_hips_pair_through_the_values_the_base_computes_for_each() {
    let program = legs_at_two_hips(10);
    let lanes = program.pair_lanes(&rename()).expect("pairs");
    assert_eq!(lanes.firsts.len(), 10);
    assert_second_lanes_compute_the_partners(&lanes, true);
    assert_eq!(values(&program), values(&lanes.program));
    // The first statement reads its hip's value in one lane, the other
    // hip's in the other.
    let names: Vec<&str> = lanes
        .program
        .locals
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    let first = &lanes.program.locals[lanes.firsts[0]].value;
    let reads =
        |term: &Term| -> Vec<&str> { term.locals_read().into_iter().map(|i| names[i]).collect() };
    assert!(reads(first).contains(&"hip0"), "{first:?}");
    assert!(
        reads(&lanes.seconds[0]).contains(&"hip1"),
        "{:?}",
        lanes.seconds[0]
    );
}
