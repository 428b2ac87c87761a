//! The optional joint keys `limits`, `damping` and `friction`: what they
//! parse into and how bad values are reported. The keys are appended to the
//! last joint of `common::BASE`, so they are on line 37.

mod common;

use common::{rejects, spec, BASE};
use sharnir_spec::{Expr, ExprKind};

/// `BASE` with `lines` appended to its last joint (`q2`).
fn with(lines: &str) -> String {
    format!("{BASE}{lines}\n")
}

fn text_of<'a>(text: &'a str, expr: &Expr) -> &'a str {
    text.get(expr.span.offset..expr.span.end())
        .unwrap_or("<out of range>")
}

#[test]
fn absent_by_default() {
    let s = spec(BASE);
    for joint in &s.joints {
        assert!(joint.limits.is_none() && joint.damping.is_none() && joint.friction.is_none());
    }
}

#[test]
fn limits_damping_and_friction_are_parsed_with_spans() {
    let text = with(
        "limits = { lower = \"-L\", upper = \"L\", effort = 40, velocity = 2.5 }\n\
         damping = 0.1\nfriction = \"m / 100\"",
    );
    let s = spec(&text);
    let joint = &s.joints[1];
    let limits = joint.limits.as_ref().expect("limits");
    assert_eq!(limits.lower.as_ref().map(|e| text_of(&text, e)), Some("-L"));
    assert_eq!(limits.upper.as_ref().map(|e| text_of(&text, e)), Some("L"));
    assert!(
        matches!(limits.effort.as_ref().map(|e| &e.kind), Some(ExprKind::Number(x)) if *x == 40.0)
    );
    assert!(
        matches!(limits.velocity.as_ref().map(|e| &e.kind), Some(ExprKind::Number(x)) if *x == 2.5)
    );
    assert_eq!(
        text.get(limits.span.offset..limits.span.end()),
        Some("{ lower = \"-L\", upper = \"L\", effort = 40, velocity = 2.5 }")
    );
    assert!(
        matches!(joint.damping.as_ref().map(|e| &e.kind), Some(ExprKind::Number(x)) if *x == 0.1)
    );
    assert_eq!(
        joint.friction.as_ref().map(|e| text_of(&text, e)),
        Some("m / 100")
    );
    assert!(s.joints[0].limits.is_none(), "q1 has none");
}

#[test]
fn every_limit_is_optional_and_equal_bounds_pass() {
    let s = spec(&with("limits = { lower = 0, upper = 0 }"));
    let limits = s.joints[1].limits.as_ref().expect("limits");
    assert!(limits.effort.is_none() && limits.velocity.is_none());
    let s = spec(&with(
        "limits = { effort = 0, velocity = 0 }\ndamping = 0\nfriction = 0",
    ));
    assert!(s.joints[1]
        .limits
        .as_ref()
        .is_some_and(|l| l.lower.is_none()));
}

#[test]
fn lower_must_not_exceed_upper() {
    rejects(
        &with("limits = { lower = 1, upper = 0 }"),
        37,
        31,
        "upper limit of joint `q2` is below its lower limit: 0 < 1",
    );
    rejects(
        &with("limits = { lower = \"L\", upper = \"L / 2\" }"),
        37,
        34,
        "upper limit of joint `q2` is below its lower limit: 0.25 < 0.5",
    );
}

#[test]
fn magnitudes_must_not_be_negative() {
    rejects(
        &with("limits = { effort = -1 }"),
        37,
        21,
        "effort limit of joint `q2` is negative: -1",
    );
    rejects(
        &with("limits = { velocity = \"-m\" }"),
        37,
        24,
        "velocity limit of joint `q2` is negative: -2",
    );
    rejects(
        &with("damping = -0.1"),
        37,
        11,
        "damping of joint `q2` is negative: -0.1",
    );
    rejects(
        &with("friction = \"-1e-3\""),
        37,
        13,
        "friction of joint `q2` is negative: -0.001",
    );
}

#[test]
fn expressions_are_checked_like_any_other() {
    rejects(
        &with("friction = \"mx\""),
        37,
        13,
        "unknown parameter `mx` (did you mean `m`?)",
    );
    rejects(
        &with("limits = { upper = \"1 / (L - L)\" }"),
        37,
        21,
        "division by zero",
    );
}

#[test]
fn structure_of_limits() {
    rejects(&with("limits = {}"), 37, 10, "`limits` is empty");
    rejects(
        &with("limits = { lowr = 1 }"),
        37,
        12,
        "unknown key `lowr` in `limits` (did you mean `lower`?)",
    );
    rejects(
        &with("limits = 3"),
        37,
        10,
        "`limits` must be a table, found an integer",
    );
    rejects(
        &with("damping = true"),
        37,
        11,
        "`damping` must be a number or an expression string, found a boolean",
    );
}
