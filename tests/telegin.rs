//! Generated inverse dynamics of Telegin's six-degree-of-freedom manipulator
//! (`specs/telegin6.spec`) against the paper's hand-derived closed forms
//! (Listing 2 of Telegin 2021, reimplemented in `sharnir_tests::telegin`),
//! for both the runtime-parameter module and the folded one.
//!
//! This is the end-to-end check against a published answer: the closed forms
//! share no code and no method with the symbolic recursive Newton–Euler
//! derivation, so agreement means the spec, the derivation and the emitted
//! code are all right.
//!
//! Tolerances:
//! * generated vs closed form: 1e-12 relative to `max(1, ‖τ_expected‖∞)`
//!   (`oracle::relative_error`). Both sides are exact formulas evaluated in
//!   double precision in different orders (an independent Newton–Euler
//!   evaluation of the spec meets the closed forms to about 1e-15), so 1e-12
//!   leaves room for rounding and none for a wrong or missing term (every
//!   term is a product of parameters of order 1e-3 or more with unit-order
//!   states).
//! * Listing 2's state vs the pinned torques: 1e-8 absolute, the rounding of
//!   the eight decimals they are pinned to.

use sharnir_generated::{telegin6, telegin6_folded};
use sharnir_tests::oracle::{relative_error, Sampling, States};
use sharnir_tests::telegin::{
    closed_form, closed_form_unequal_links, TeleginParams, LISTING2_Q, LISTING2_QD, LISTING2_QDD,
};

const TOLERANCE: f64 = 1e-12;

/// Which coordinates slide (q4), so random states sample them on a shorter range.
const SAMPLING: [Sampling; 6] = [
    Sampling::Angle,
    Sampling::Angle,
    Sampling::Angle,
    Sampling::Slide,
    Sampling::Angle,
    Sampling::Angle,
];

/// Random states per comparison.
const STATES: usize = 100;

/// [M1, M2, M3, F4, M5, M6] at Listing 2's state and parameters, to 8 decimals
/// (N·m, except F4 in N).
const LISTING2_TORQUES: [f64; 6] = [
    -8.010_518_60,
    78.611_761_38,
    20.498_690_43,
    -48.583_425_30,
    -14.593_327_14,
    -2.952_807_30,
];

/// The spec's parameters as the closed forms take them, field by field: a
/// field missing on either side is a compile error, not a silent default.
fn telegin_params(p: &telegin6::Params) -> TeleginParams {
    TeleginParams {
        m01: p.m01,
        m02: p.m02,
        m03: p.m03,
        m04: p.m04,
        m05: p.m05,
        m06: p.m06,
        icx1: p.icx1,
        icy1: p.icy1,
        icx2: p.icx2,
        icy2: p.icy2,
        icx3: p.icx3,
        icy3: p.icy3,
        icx4: p.icx4,
        icy4: p.icy4,
        icx5: p.icx5,
        icy5: p.icy5,
        icx6: p.icx6,
        icy6: p.icy6,
        a1: p.a1,
        a2: p.a2,
        b3: p.b3,
        b4: p.b4,
        b5: p.b5,
        b6: p.b6,
        l1: p.l1,
        l2: p.l2,
        g: p.g,
    }
}

/// Every parameter moved off Listing 2's value, with l1 ≠ l2 so that only the
/// corrected closed form applies.
fn unequal_link_params() -> telegin6::Params {
    telegin6::Params {
        m01: 12.0,
        m02: 7.0,
        m03: 4.5,
        m04: 2.5,
        m05: 1.5,
        m06: 0.8,
        icx1: 0.7,
        icy1: 1.1,
        icx2: 0.35,
        icy2: 0.9,
        icx3: 0.5,
        icy3: 0.25,
        icx4: 0.45,
        icy4: 0.15,
        icx5: 0.3,
        icy5: 0.12,
        icx6: 0.2,
        icy6: 0.08,
        a1: 0.25,
        a2: 0.35,
        b3: 0.3,
        b4: 0.15,
        b5: 0.12,
        b6: 0.09,
        l1: 0.6,
        l2: 0.8,
        g: 9.806_65,
    }
}

/// Fails with the state and both torque vectors when `got` is not `want`
/// within [`TOLERANCE`].
#[track_caller]
fn assert_agrees(
    what: &str,
    got: &[f64; 6],
    want: &[f64; 6],
    state: (&[f64; 6], &[f64; 6], &[f64; 6]),
) {
    let err = relative_error(got, want);
    let (q, qd, qdd) = state;
    assert!(
        err < TOLERANCE,
        "{what}: off by {err:e} at q={q:?} qd={qd:?} qdd={qdd:?}\n got {got:?}\nwant {want:?}"
    );
}

#[test]
fn spec_defaults_are_listing2_values() {
    assert_eq!(
        telegin_params(&telegin6::Params::default()),
        TeleginParams::default()
    );
}

#[test]
fn coordinates_are_in_the_papers_order() {
    assert_eq!(
        telegin6::COORDINATE_NAMES,
        ["q1", "q2", "q3", "q4", "q5", "q6"]
    );
    assert_eq!(
        telegin6_folded::COORDINATE_NAMES,
        telegin6::COORDINATE_NAMES
    );
}

#[test]
fn listing2_state_matches_closed_form_and_pinned_torques() {
    let p = telegin6::Params::default();
    let state = (&LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
    let want = closed_form(
        &telegin_params(&p),
        &LISTING2_Q,
        &LISTING2_QD,
        &LISTING2_QDD,
    );
    let got = telegin6::inverse_dynamics(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
    assert_agrees("runtime-parameter module", &got, &want, state);
    let folded = telegin6_folded::inverse_dynamics(
        &telegin6_folded::Params::default(),
        &LISTING2_Q,
        &LISTING2_QD,
        &LISTING2_QDD,
    );
    assert_agrees("folded module", &folded, &want, state);
    for (name, tau) in [("runtime", &got), ("folded", &folded)] {
        for (i, (x, pinned)) in tau.iter().zip(LISTING2_TORQUES).enumerate() {
            assert!(
                (x - pinned).abs() < 1e-8,
                "{name} module, coordinate q{}: {x} instead of {pinned}\n runtime {got:?}\n  folded {folded:?}",
                i + 1
            );
        }
    }
}

#[test]
fn random_states_match_closed_form() {
    let p = telegin6::Params::default();
    let folded_p = telegin6_folded::Params::default();
    let tp = telegin_params(&p);
    let mut states = States::seeded(0x7E1E_6000);
    for _ in 0..STATES {
        let (q, qd, qdd) = states.next::<6, 6>(&SAMPLING);
        let want = closed_form(&tp, &q, &qd, &qdd);
        let got = telegin6::inverse_dynamics(&p, &q, &qd, &qdd);
        assert_agrees("runtime-parameter module", &got, &want, (&q, &qd, &qdd));
        let folded = telegin6_folded::inverse_dynamics(&folded_p, &q, &qd, &qdd);
        assert_agrees("folded module", &folded, &want, (&q, &qd, &qdd));
    }
}

/// Non-default parameters reach the generated code (every field differs from
/// Listing 2), and the result is exact for l1 ≠ l2, where the paper's own
/// closed form is not: the last assertion shows this comparison can tell the
/// two apart.
#[test]
fn unequal_links_match_corrected_closed_form() {
    let p = unequal_link_params();
    let tp = telegin_params(&p);
    let mut states = States::seeded(0x7E1E_6001);
    let listing2 = (LISTING2_Q, LISTING2_QD, LISTING2_QDD);
    for (q, qd, qdd) in
        std::iter::once(listing2).chain((0..STATES).map(|_| states.next::<6, 6>(&SAMPLING)))
    {
        let want = closed_form_unequal_links(&tp, &q, &qd, &qdd);
        let got = telegin6::inverse_dynamics(&p, &q, &qd, &qdd);
        assert_agrees(
            "runtime-parameter module, l1 != l2",
            &got,
            &want,
            (&q, &qd, &qdd),
        );
    }
    let got = telegin6::inverse_dynamics(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
    let paper = closed_form(&tp, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
    let err = relative_error(&got, &paper);
    assert!(
        err > 1e-3,
        "the L1 = L2 closed form should not fit l1 != l2, but differs by only {err:e}"
    );
}
