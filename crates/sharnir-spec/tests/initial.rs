//! `[initial]`: the state a simulation starts from. What it evaluates to
//! (defaults, expressions, roll–pitch–yaw to quaternions) and how bad
//! tables are reported, at the line and column of the offending key.

mod common;

use common::{rejects, spec, BASE};

/// `BASE` with a spherical joint `ball` (coordinates `ball_qx` … `ball_qw`,
/// `ball_wx` … `ball_wz`) and then `table` appended; returns the text and
/// the line number of the table's first line.
fn with_ball(table: &str) -> (String, usize) {
    let text = format!(
        "{BASE}\n[[body]]\nname = \"link3\"\nmass = 0.5\ninertia = [0.01, 0.01, 0.01]\n\n\
         [[joint]]\nname = \"ball\"\ntype = \"spherical\"\nparent = \"link2\"\nchild = \"link3\"\n\n"
    );
    let line = text.lines().count() + 1;
    (format!("{text}{table}\n"), line)
}

#[test]
fn defaults_are_zero_with_identity_quaternions() {
    let (text, _) = with_ball("");
    let s = spec(&text);
    assert_eq!(s.initial_positions, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(s.initial_velocities, [0.0; 5]);
    assert_eq!(s.quaternion_starts(), [2]);
}

#[test]
fn values_are_expressions_of_parameters() {
    let (text, _) =
        with_ball("[initial]\nq = { q1 = \"pi/4\", q2 = \"L/2\" }\nv = { ball_wy = -2 }");
    let s = spec(&text);
    assert!((s.initial_positions[0] - std::f64::consts::FRAC_PI_4).abs() < 1e-15);
    assert_eq!(s.initial_positions[1], 0.25);
    assert_eq!(s.initial_velocities, [0.0, 0.0, 0.0, -2.0, 0.0]);
}

#[test]
fn rpy_becomes_the_quaternion_of_rz_ry_rx() {
    let (text, _) = with_ball("[initial]\nrpy = { ball = [0, 0, \"pi/2\"] }");
    let q = spec(&text).initial_positions;
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let expected = [0.0, 0.0, h, h];
    for (got, want) in q[2..].iter().zip(expected) {
        assert!((got - want).abs() < 1e-15, "{q:?}");
    }
}

#[test]
fn a_unit_quaternion_may_be_given_by_components() {
    let (text, _) = with_ball("[initial]\nq = { ball_qx = 0.6, ball_qw = 0.8 }");
    assert_eq!(spec(&text).initial_positions[2..], [0.6, 0.0, 0.0, 0.8]);
}

#[test]
fn bad_tables_are_located() {
    let (text, line) = with_ball("[initial]\nq = { theta = 1 }");
    let e = rejects(
        &text,
        line + 1,
        7,
        "unknown coordinate `theta` in `initial.q`",
    );
    assert!(format!("{:?}", miette::Report::from(e)).contains("q1, q2, ball_qx"));

    let (text, line) = with_ball("[initial]\nv = { ball_qx = 1 }");
    rejects(
        &text,
        line + 1,
        7,
        "unknown coordinate `ball_qx` in `initial.v`",
    );

    let (text, line) = with_ball("[initial]\nrpy = { q1 = [0, 0, 1] }");
    rejects(&text, line + 1, 9, "only spherical and free joints");

    let (text, line) = with_ball("[initial]\nrpy = { bal = [0, 0, 1] }");
    rejects(&text, line + 1, 9, "did you mean `ball`?");

    let (text, line) = with_ball("[initial]\nq = { ball_qz = 0.1 }\nrpy = { ball = [0, 0, 1] }");
    rejects(&text, line + 1, 7, "set twice");

    let (text, line) = with_ball("[initial]\nq = { ball_qx = 0.5 }");
    rejects(&text, line + 1, 7, "has length 1.118");

    let (text, line) = with_ball("[initial]\nq = { q1 = \"1/0\" }");
    rejects(&text, line + 1, 13, "division by zero");

    let (text, line) = with_ball("[initial]\nx = { q1 = 1 }");
    rejects(&text, line + 1, 1, "unknown key `x` in [initial]");

    let (text, line) = with_ball("[initial]\nq = [1, 2]");
    rejects(&text, line + 1, 5, "`initial.q`");
}
