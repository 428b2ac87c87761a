//! Property tests: every canonicalising construction, every rewrite and the
//! lowering to straight-line code keep the numeric value of an expression.

use proptest::prelude::*;
use sharnir_cas::{hoist_constants, Coeff, Id, Pool, Program, Symbol};
use std::collections::HashMap;

/// An expression recipe evaluated two ways: naively in f64, and through the pool.
#[derive(Clone, Debug)]
enum Recipe {
    Var(usize),
    Const(i32, i32),
    Add(Box<Recipe>, Box<Recipe>),
    Sub(Box<Recipe>, Box<Recipe>),
    Mul(Box<Recipe>, Box<Recipe>),
    /// a / (b² + 1): never divides by zero.
    SafeDiv(Box<Recipe>, Box<Recipe>),
    Pow(Box<Recipe>, i32),
    Sin(Box<Recipe>),
    Cos(Box<Recipe>),
    /// √(a² + 1): always defined.
    SafeSqrt(Box<Recipe>),
}

const VARS: [&str; 3] = ["x", "y", "z"];

fn recipe() -> impl Strategy<Value = Recipe> {
    let leaf = prop_oneof![
        (0..VARS.len()).prop_map(Recipe::Var),
        (-4..5i32, 1..4i32).prop_map(|(n, d)| Recipe::Const(n, d)),
    ];
    leaf.prop_recursive(5, 40, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Recipe::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Recipe::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Recipe::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Recipe::SafeDiv(Box::new(a), Box::new(b))),
            (inner.clone(), 0..4i32).prop_map(|(a, n)| Recipe::Pow(Box::new(a), n)),
            inner.clone().prop_map(|a| Recipe::Sin(Box::new(a))),
            inner.clone().prop_map(|a| Recipe::Cos(Box::new(a))),
            inner.prop_map(|a| Recipe::SafeSqrt(Box::new(a))),
        ]
    })
}

fn naive(r: &Recipe, at: &[f64; 3]) -> f64 {
    match r {
        Recipe::Var(i) => at[*i],
        Recipe::Const(n, d) => f64::from(*n) / f64::from(*d),
        Recipe::Add(a, b) => naive(a, at) + naive(b, at),
        Recipe::Sub(a, b) => naive(a, at) - naive(b, at),
        Recipe::Mul(a, b) => naive(a, at) * naive(b, at),
        Recipe::SafeDiv(a, b) => naive(a, at) / (naive(b, at).powi(2) + 1.0),
        Recipe::Pow(a, n) => naive(a, at).powi(*n),
        Recipe::Sin(a) => naive(a, at).sin(),
        Recipe::Cos(a) => naive(a, at).cos(),
        Recipe::SafeSqrt(a) => (naive(a, at).powi(2) + 1.0).sqrt(),
    }
}

fn build(p: &mut Pool, r: &Recipe) -> Id {
    match r {
        Recipe::Var(i) => p.symbol(VARS[*i]),
        Recipe::Const(n, d) => p.num(Coeff::ratio(i128::from(*n), i128::from(*d))),
        Recipe::Add(a, b) => {
            let (a, b) = (build(p, a), build(p, b));
            p.add(a, b)
        }
        Recipe::Sub(a, b) => {
            let (a, b) = (build(p, a), build(p, b));
            p.sub(a, b)
        }
        Recipe::Mul(a, b) => {
            let (a, b) = (build(p, a), build(p, b));
            p.mul(a, b)
        }
        Recipe::SafeDiv(a, b) => {
            let (a, b) = (build(p, a), build(p, b));
            let b2 = p.powi(b, 2);
            let one = p.one();
            let den = p.add(b2, one);
            p.div(a, den)
        }
        Recipe::Pow(a, n) => {
            let a = build(p, a);
            p.powi(a, *n)
        }
        Recipe::Sin(a) => {
            let a = build(p, a);
            p.sin(a)
        }
        Recipe::Cos(a) => {
            let a = build(p, a);
            p.cos(a)
        }
        Recipe::SafeSqrt(a) => {
            let a = build(p, a);
            let a2 = p.powi(a, 2);
            let one = p.one();
            let s = p.add(a2, one);
            p.sqrt(s)
        }
    }
}

fn env(at: [f64; 3]) -> impl Fn(&Symbol) -> Option<f64> {
    move |symbol| {
        let name = symbol.to_string();
        VARS.iter().position(|v| *v == name).map(|i| at[i])
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    [-1.5..1.5f64, -1.5..1.5f64, -1.5..1.5f64]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn canonical_construction_keeps_the_value(r in recipe(), at in point()) {
        let mut p = Pool::new();
        let e = build(&mut p, &r);
        let got = p.eval(&[e], &env(at)).unwrap()[0];
        let want = naive(&r, &at);
        prop_assume!(want.is_finite() && want.abs() < 1e6);
        prop_assert!(close(got, want, 1e-9), "pool {got} vs naive {want}");
    }

    #[test]
    fn lowered_program_computes_the_same_value(r in recipe(), s in recipe(), at in point()) {
        let mut p = Pool::new();
        let roots = [build(&mut p, &r), build(&mut p, &s)];
        let want = p.eval(&roots, &env(at)).unwrap();
        let got = Program::lower(&p, &roots).eval(&env(at)).unwrap();
        for (g, w) in got.iter().zip(&want) {
            prop_assume!(w.is_finite() && w.abs() < 1e6);
            prop_assert!(close(*g, *w, 1e-9), "program {g} vs pool {w}");
        }
    }

    #[test]
    fn substitution_equals_evaluation_at_the_substituted_value(r in recipe(), at in point(), k in -3..4i32) {
        let mut p = Pool::new();
        let e = build(&mut p, &r);
        // x ↦ y + k/2
        let (x, y) = (p.symbol("x"), p.symbol("y"));
        let shift = p.num(Coeff::ratio(i128::from(k), 2));
        let replacement = p.add(y, shift);
        let map = HashMap::from([(x, replacement)]);
        let substituted = p.substitute(&[e], &map)[0];
        let got = p.eval(&[substituted], &env(at)).unwrap()[0];
        let moved = [at[1] + f64::from(k) / 2.0, at[1], at[2]];
        let want = naive(&r, &moved);
        prop_assume!(want.is_finite() && want.abs() < 1e6);
        prop_assert!(close(got, want, 1e-9), "substituted {got} vs {want}");
    }

    #[test]
    fn hoisting_constants_keeps_the_value(r in recipe(), s in recipe(), at in point()) {
        // y and z are the "parameters"; x varies.
        let mut p = Pool::new();
        let roots = [build(&mut p, &r), build(&mut p, &s)];
        let want = p.eval(&roots, &env(at)).unwrap();
        let hoisted = hoist_constants(&mut p, &roots, &|symbol| *symbol != Symbol::parse("x"), &|k| Symbol::Named(format!("k{k}")));
        let parameters = env(at);
        let definitions: Vec<Id> = hoisted.definitions.iter().map(|(_, d)| *d).collect();
        // The groups must not read x: evaluating them without it succeeds.
        let without_x = |symbol: &Symbol| if *symbol == Symbol::parse("x") { None } else { parameters(symbol) };
        let values = p.eval(&definitions, &without_x);
        prop_assert!(values.is_ok(), "a hoisted group reads the varying symbol");
        let values = values.unwrap();
        let lookup = |symbol: &Symbol| {
            hoisted.definitions.iter().position(|(s, _)| s == symbol).map(|k| values[k]).or_else(|| parameters(symbol))
        };
        let got = p.eval(&hoisted.roots, &lookup).unwrap();
        for (g, w) in got.iter().zip(&want) {
            prop_assume!(w.is_finite() && w.abs() < 1e6);
            prop_assert!(close(*g, *w, 1e-9), "hoisted {g} vs {w}");
        }
    }

    #[test]
    fn hoisting_without_parameters_is_one_walk(r in recipe(), s in recipe()) {
        // No symbol is a parameter: every node is its own rewrite, and the
        // pool (whose numbering orders the emitted code) gains no node.
        let mut p = Pool::new();
        let roots = [build(&mut p, &r), build(&mut p, &s)];
        let size = p.len();
        let hoisted = hoist_constants(&mut p, &roots, &|_| false, &|k| Symbol::Named(format!("k{k}")));
        prop_assert_eq!(hoisted.roots, roots.to_vec());
        prop_assert!(hoisted.definitions.is_empty());
        prop_assert_eq!(p.len(), size);
    }

    #[test]
    fn derivative_matches_central_differences(r in recipe(), at in point()) {
        let mut p = Pool::new();
        let e = build(&mut p, &r);
        let x = p.symbol("x");
        let d = p.diff(e, x);
        let got = p.eval(&[d], &env(at)).unwrap()[0];
        let h = 1e-5;
        let f = |dx: f64| naive(&r, &[at[0] + dx, at[1], at[2]]);
        let fd = (f(h) - f(-h)) / (2.0 * h);
        let fd2 = (f(h / 2.0) - f(-h / 2.0)) / h;
        prop_assume!(fd.is_finite() && fd.abs() < 1e4);
        // Richardson-style sanity: skip points where the difference quotient itself is unstable.
        prop_assume!((fd - fd2).abs() <= 1e-6 * fd.abs().max(1.0));
        prop_assert!(close(got, fd, 1e-6), "symbolic {got} vs finite difference {fd}");
    }
}

#[test]
fn operation_counts_match_hand_counts() {
    let mut p = Pool::new();
    let (x, y, z) = (p.symbol("x"), p.symbol("y"), p.symbol("z"));
    // 2·x·y − z/y + sin(x)·cos(x) + 3
    let xy = p.mul(x, y);
    let two_xy = p.scale(Coeff::int(2), xy);
    let z_over_y = p.div(z, y);
    let (s, c) = (p.sin(x), p.cos(x));
    let sc = p.mul(s, c);
    let three = p.int(3);
    let neg = p.neg(z_over_y);
    let e = p.sum(&[two_xy, neg, sc, three]);
    let program = Program::lower(&p, &[e]);
    let ops = program.op_count();
    // mul: 2·(x·y) = 2, s·c = 1; div: z/y = 1; add: three + and one −
    assert_eq!(
        (ops.mul, ops.add, ops.div, ops.sin, ops.cos, ops.sqrt),
        (3, 3, 1, 1, 1, 0)
    );

    // x² shares x once: one mul; x³: two; 1/(y²) : one mul, one div
    let x2 = p.powi(x, 2);
    let x3 = p.powi(x, 3);
    let inv_y2 = p.powi(y, -2);
    let ops = Program::lower(&p, &[x2, x3, inv_y2]).op_count();
    assert_eq!((ops.mul, ops.div, ops.add), (1 + 2 + 1, 1, 0));

    // x/d, y/d and z/d² divide by d once: 1/d, then x·r, y·r and z·r·r.
    let d = p.add(x, y);
    let (a, b, c) = (p.div(x, d), p.div(y, d), p.product(&[(z, 1), (d, -2)]));
    let program = Program::lower(&p, &[a, b, c]);
    let ops = program.op_count();
    assert_eq!((ops.mul, ops.div, ops.add), (4, 1, 1));
    let env = |symbol: &Symbol| match symbol.to_string().as_str() {
        "x" => Some(0.3),
        "y" => Some(1.1),
        "z" => Some(-0.7),
        _ => None,
    };
    let got = program.eval(&env).expect("all inputs bound");
    let want = [0.3 / 1.4, 1.1 / 1.4, -0.7 / (1.4 * 1.4)];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-15, "{g} vs {w}");
    }
}

#[test]
fn contained_sums_are_reused() {
    let mut p = Pool::new();
    let (a, b, c, d) = (p.symbol("x"), p.symbol("y"), p.symbol("z"), p.symbol("w"));
    // s = x + y is needed twice (a local); x + y + z, −x − y + w and the
    // products then read it instead of adding x and y again.
    let s = p.add(a, b);
    let s2 = p.mul(s, c);
    let s3 = p.mul(s, d);
    let longer = p.sum(&[a, b, c]);
    let minus = p.neg(s);
    let negated = p.add(minus, d);
    let roots = [s2, s3, longer, negated];
    let program = Program::lower(&p, &roots);
    let ops = program.op_count();
    // x + y once, + z once, w − s once: three additions, two multiplications.
    assert_eq!((ops.add, ops.mul), (3, 2));
    let env = |symbol: &Symbol| match symbol.to_string().as_str() {
        "x" => Some(0.5),
        "y" => Some(-1.25),
        "z" => Some(2.0),
        "w" => Some(0.125),
        _ => None,
    };
    let got = program.eval(&env).expect("all inputs bound");
    let want = p.eval(&roots, &env).expect("all inputs bound");
    assert_eq!(got, want);
}

#[test]
fn outputs_nested_in_other_outputs_are_reused() {
    let mut p = Pool::new();
    let (a, b, c, d) = (p.symbol("x"), p.symbol("y"), p.symbol("z"), p.symbol("w"));
    // The joint forces of a chain: each output is the next one plus a term.
    // x + 2y, x + 2y + z and −x − 2y − z − w are computed as t = x + 2y,
    // u = t + z and −u − w: one multiplication, three additions and the
    // negation, against one multiplication and 2 + 3 + 3 additions apart.
    let two_b = p.scale(sharnir_cas::Coeff::int(2), b);
    let inner = p.add(a, two_b);
    let middle = p.add(inner, c);
    let outer_sum = p.add(middle, d);
    let outer = p.neg(outer_sum);
    let roots = [outer, inner, middle];
    let program = Program::lower(&p, &roots);
    let ops = program.op_count();
    assert_eq!((ops.mul, ops.add), (1, 4));
    let env = |symbol: &Symbol| match symbol.to_string().as_str() {
        "x" => Some(0.5),
        "y" => Some(-1.25),
        "z" => Some(2.0),
        "w" => Some(0.125),
        _ => None,
    };
    let got = program.eval(&env).expect("all inputs bound");
    let want = p.eval(&roots, &env).expect("all inputs bound");
    assert_eq!(got, want);
}

#[test]
fn contained_products_are_reused() {
    let mut p = Pool::new();
    let (a, b, c, d) = (p.symbol("x"), p.symbol("y"), p.symbol("z"), p.symbol("w"));
    // t = x·y is needed twice (a local); x·y·z and x²·y·w/z then read it:
    // x·y once, t·z, t·x·w/z.
    let t = p.mul(a, b);
    let t_twice = p.add(t, c);
    let longer = p.mul_all(&[a, b, c]);
    let square = p.powi(a, 2);
    let inverse = p.powi(c, -1);
    let with_division = p.mul_all(&[square, b, d, inverse]);
    let roots = [t, t_twice, longer, with_division];
    let program = Program::lower(&p, &roots);
    let ops = program.op_count();
    assert_eq!((ops.mul, ops.div, ops.add), (1 + 1 + 2, 1, 1));
    let env = |symbol: &Symbol| match symbol.to_string().as_str() {
        "x" => Some(0.5),
        "y" => Some(-1.25),
        "z" => Some(2.0),
        "w" => Some(0.125),
        _ => None,
    };
    let got = program.eval(&env).expect("all inputs bound");
    let want = p.eval(&roots, &env).expect("all inputs bound");
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-15 * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn shared_subexpressions_are_computed_once() {
    let mut p = Pool::new();
    let (x, y) = (p.symbol("x"), p.symbol("y"));
    let s = p.add(x, y);
    let a = p.mul(s, x);
    let b = p.mul(s, y);
    let program = Program::lower(&p, &[a, b]);
    // (x + y) once, then two multiplications
    assert_eq!(program.op_count().add, 1);
    assert_eq!(program.op_count().mul, 2);
    assert_eq!(program.locals.len(), 1);
}

#[test]
fn common_coefficients_are_factored_out_of_sums() {
    let mut p = Pool::new();
    let (x, y) = (p.symbol("x"), p.symbol("y"));
    // 2x − 2y + 2 costs one multiplication, not three
    let e = p.linear(&[(x, Coeff::int(2)), (y, Coeff::int(-2))], Coeff::int(2));
    let program = Program::lower(&p, &[e]);
    assert_eq!(program.op_count().mul, 1);
    assert_eq!(program.op_count().add, 2);
    let value = program
        .eval(&|s| {
            if *s == Symbol::parse("x") {
                Some(3.0)
            } else {
                Some(5.0)
            }
        })
        .unwrap()[0];
    assert_eq!(value, 2.0 * 3.0 - 2.0 * 5.0 + 2.0);
}

#[test]
fn a_sum_of_subtracted_items_starts_from_a_negated_constant() {
    let mut p = Pool::new();
    let (x, y) = (p.symbol("x"), p.symbol("y"));
    // −0.5x − y is `-0.5 * x - y`: the sign rides on the literal, so one
    // multiplication and one subtraction, no negation; −9.81 alone is free.
    let e = p.linear(
        &[(x, Coeff::ratio(-1, 2)), (y, Coeff::MINUS_ONE)],
        Coeff::ZERO,
    );
    let minus_g = p.num(Coeff::from_decimal_f64(-9.81));
    let program = Program::lower(&p, &[e, minus_g]);
    assert_eq!((program.op_count().mul, program.op_count().add), (1, 1));
    let got = program
        .eval(&|s| {
            if *s == Symbol::parse("x") {
                Some(3.0)
            } else {
                Some(5.0)
            }
        })
        .expect("all inputs bound");
    assert_eq!(got, vec![-0.5 * 3.0 - 5.0, -9.81]);
}
