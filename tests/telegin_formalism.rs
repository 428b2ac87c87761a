//! draft harness

use sharnir_cas::{Id, Program};
use sharnir_mech::{rnea, telegin, Input, Mechanism, ParameterMode};
use sharnir_tests::oracle::{load_spec, relative_error, Oracle, States};
use std::collections::BTreeMap;

const SPECS: [&str; 6] = [
    "telegin6",
    "telegin3_cartesian",
    "telegin3_cylindrical",
    "triple_pendulum",
    "chain10",
    "puma560",
];

fn evaluate(
    mechanism: &Mechanism,
    roots: &[Id],
    parameters: &BTreeMap<String, f64>,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
) -> Vec<f64> {
    let env = |name: &str| match Input::parse(name)? {
        Input::Parameter(p) => parameters.get(&p).copied(),
        Input::Position(i) => q.get(i).copied(),
        Input::Velocity(i) => qd.get(i).copied(),
        Input::Acceleration(i) => qdd.get(i).copied(),
        _ => None,
    };
    mechanism
        .pool
        .eval(roots, &env)
        .expect("every symbol bound")
}

#[test]
fn report() {
    for stem in SPECS {
        let spec = load_spec(stem);
        let parameters = spec.parameter_values();
        let oracle = Oracle::for_parsed_spec(&spec);
        for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
            let mut m = Mechanism::from_spec(&spec, mode).expect("valid");
            let ne = rnea::inverse_dynamics(&mut m);
            let tg = telegin::inverse_dynamics(&mut m).expect("chain");
            let n = m.dof();
            let mut states = States::seeded(7);
            let mut worst = 0.0_f64;
            for _ in 0..20 {
                let (q, qd, qdd) = oracle.sample::<16, 16>(&mut states);
                let (q, qd, qdd) = (&q[..n], &qd[..n], &qdd[..n]);
                let want = oracle.inverse_dynamics(q, qd, qdd);
                let got = evaluate(&m, &tg, &parameters, q, qd, qdd);
                worst = worst.max(relative_error(&got, &want));
            }
            let ops_ne = Program::lower(&m.pool, &ne).op_count();
            let ops_tg = Program::lower(&m.pool, &tg).op_count();
            println!("{stem:22} {mode:?}: err {worst:.1e}\n   NE {ops_ne}\n   TG {ops_tg}");
        }
    }
}

fn show(t: &sharnir_cas::Term) -> String {
    use sharnir_cas::Term::*;
    match t {
        Const(c) => format!("{c}"),
        Pi => "pi".into(),
        Input(s) => s.clone(),
        Local(i) => format!("t{i}"),
        Neg(a) => format!("-({})", show(a)),
        Add(a, b) => format!("({} + {})", show(a), show(b)),
        Sub(a, b) => format!("({} - {})", show(a), show(b)),
        Mul(a, b) => format!("{}*{}", show(a), show(b)),
        Div(a, b) => format!("{}/{}", show(a), show(b)),
        Sin(a) => format!("sin({})", show(a)),
        Cos(a) => format!("cos({})", show(a)),
        Sqrt(a) => format!("sqrt({})", show(a)),
    }
}

#[test]
fn dump() {
    let stem = std::env::var("DUMP").unwrap_or_default();
    if stem.is_empty() {
        return;
    }
    let spec = load_spec(&stem);
    let mut m = Mechanism::from_spec(&spec, ParameterMode::Folded).expect("valid");
    let tg = if std::env::var("NE").is_ok() {
        rnea::inverse_dynamics(&mut m)
    } else {
        telegin::inverse_dynamics(&mut m).expect("chain")
    };
    let p = Program::lower(&m.pool, &tg);
    for (i, l) in p.locals.iter().enumerate() {
        println!("t{i} = {}", show(&l.value));
    }
    for o in &p.outputs {
        println!("OUT {}", show(o));
    }
    println!("{}", p.op_count());
}

fn tree(pool: &sharnir_cas::Pool, id: Id, depth: usize) -> String {
    use sharnir_cas::Node;
    if depth == 0 {
        return format!("#{}", id.index());
    }
    match pool.node(id) {
        Node::Num(c) => format!("{}", c.to_f64()),
        Node::Pi => "pi".into(),
        Node::Symbol(s) => s.clone(),
        Node::Add(t, c0) => {
            let parts: Vec<String> = t.iter().map(|(x, c)| format!("{}·{}", c.to_f64(), tree(pool, *x, depth - 1))).collect();
            format!("#{}[{} + {}]", id.index(), parts.join(" + "), c0.to_f64())
        }
        Node::Mul(f) => {
            let parts: Vec<String> = f.iter().map(|(x, e)| format!("{}^{}", tree(pool, *x, depth - 1), e)).collect();
            format!("#{}({})", id.index(), parts.join(" * "))
        }
        Node::Sin(u) => format!("sin({})", tree(pool, *u, depth - 1)),
        Node::Cos(u) => format!("cos({})", tree(pool, *u, depth - 1)),
        Node::Sqrt(u) => format!("sqrt({})", tree(pool, *u, depth - 1)),
    }
}

#[test]
fn nodes() {
    let Ok(stem) = std::env::var("NODES") else { return };
    let spec = load_spec(&stem);
    let mut m = Mechanism::from_spec(&spec, ParameterMode::Folded).expect("valid");
    let tg = telegin::inverse_dynamics(&mut m).expect("chain");
    for t in tg {
        println!("{}", tree(&m.pool, t, 3));
    }
}
