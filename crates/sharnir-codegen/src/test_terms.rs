//! Terms of every shape the printer prints, for the property tests that
//! hold its readers and its text to its tokens (`syntax.rs`, `lines.rs`).

use proptest::prelude::*;
use sharnir_cas::Term;
use sharnir_mech::Input;

/// A term over locals `t0`…`t39`, coordinates, velocities, time, a
/// parameter, derived groups and π, with every operation the printer
/// knows, constants from tiny to huge (whose literals run long).
pub(crate) fn term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        (-1e3..1e3f64).prop_map(Term::Const),
        prop_oneof![
            Just(1e-300),
            Just(-2.5e21),
            Just(0.0),
            Just(-0.0),
            Just(3.0)
        ]
        .prop_map(Term::Const),
        (0..40usize).prop_map(Term::Local),
        (0..6usize).prop_map(|i| Term::Input(Input::Position(i))),
        (0..6usize).prop_map(|i| Term::Input(Input::Velocity(i))),
        Just(Term::Input(Input::Time)),
        Just(Term::Input(Input::Parameter("m1".into()))),
        (0..3usize).prop_map(|k| Term::Input(Input::Derived(k))),
        Just(Term::Pi),
    ];
    leaf.prop_recursive(6, 64, 3, |inner| {
        let pair = (inner.clone(), inner.clone());
        prop_oneof![
            pair.clone()
                .prop_map(|(a, b)| Term::Add(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Term::Sub(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Term::Mul(Box::new(a), Box::new(b))),
            pair.prop_map(|(a, b)| Term::Div(Box::new(a), Box::new(b))),
            inner.clone().prop_map(|a| Term::Neg(Box::new(a))),
            inner.clone().prop_map(|a| Term::Sin(Box::new(a))),
            inner.clone().prop_map(|a| Term::Cos(Box::new(a))),
            inner.clone().prop_map(|a| Term::Sqrt(Box::new(a))),
            (inner.clone(), inner.clone(), inner).prop_map(|(a, b, c)| Term::Fma(
                Box::new(a),
                Box::new(b),
                Box::new(c)
            )),
        ]
    })
}
