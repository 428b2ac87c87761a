//! `mimic = { joint, multiplier, offset }`: a follower joint has no
//! coordinate of its own. What it parses into, how it changes the
//! coordinate names, and how bad couplings are reported. The key is
//! appended to the last joint of `common::BASE` (`q2`, prismatic, on line
//! 37) unless a test says otherwise.

mod common;

use common::{rejects, spec, BASE};
use sharnir_spec::ExprKind;

/// `BASE` with `lines` appended to its last joint (`q2`).
fn with(lines: &str) -> String {
    format!("{BASE}{lines}\n")
}

/// `BASE` with a third body on a revolute joint `q3` carrying `lines`.
fn with_third(lines: &str) -> String {
    format!(
        "{BASE}\n[[body]]\nname = \"link3\"\nmass = 0.5\ninertia = [0.01, 0.01, 0.01]\n\n\
         [[joint]]\nname = \"q3\"\ntype = \"revolute\"\nparent = \"link2\"\nchild = \"link3\"\n\
         axis = [0, 0, 1]\n{lines}\n"
    )
}

fn number(kind: &ExprKind) -> Option<f64> {
    match kind {
        ExprKind::Number(x) => Some(*x),
        _ => None,
    }
}

#[test]
fn a_follower_has_no_coordinates() {
    let s = spec(&with_third(
        "mimic = { joint = \"q1\", multiplier = -0.5, offset = \"L\" }",
    ));
    let follower = &s.joints[2];
    let mimic = follower.mimic.as_ref().expect("mimic");
    assert_eq!(mimic.joint, "q1");
    assert_eq!(number(&mimic.multiplier.kind), Some(-0.5));
    assert!(matches!(&mimic.offset.kind, ExprKind::Parameter(p) if p == "L"));
    assert_eq!((follower.nq(), follower.nv()), (0, 0));
    assert!(follower.position_names().is_empty() && follower.velocity_names().is_empty());
    let names: Vec<String> = s.joints.iter().flat_map(|j| j.velocity_names()).collect();
    assert_eq!(names, ["q1", "q2"]);
}

#[test]
fn multiplier_and_offset_default_to_one_and_zero() {
    let s = spec(&with_third("mimic = { joint = \"q1\" }"));
    let mimic = s.joints[2].mimic.as_ref().expect("mimic");
    assert_eq!(number(&mimic.multiplier.kind), Some(1.0));
    assert_eq!(number(&mimic.offset.kind), Some(0.0));
    assert!(s.joints[0].mimic.is_none());
}

#[test]
fn a_prismatic_joint_may_follow_a_revolute_one() {
    let s = spec(&with("mimic = { joint = \"q1\", multiplier = 0.01 }"));
    assert_eq!(s.joints[1].nv(), 0);
}

#[test]
fn the_leader_must_exist_and_not_be_the_follower() {
    rejects(
        &with("mimic = { joint = \"q0\" }"),
        37,
        19,
        "joint `q2` mimics an unknown joint `q0`",
    );
    rejects(
        &with("mimic = { joint = \"q2\" }"),
        37,
        19,
        "joint `q2` mimics itself",
    );
}

#[test]
fn leaders_are_not_followers() {
    let text = format!(
        "{}\n",
        with_third("mimic = { joint = \"q2\" }").replacen(
            "origin = { xyz",
            "mimic = { joint = \"q1\" }\norigin = { xyz",
            1
        )
    );
    rejects(
        &text,
        50,
        19,
        "joint `q3` mimics `q2`, which itself mimics `q1`",
    );
}

#[test]
fn only_single_coordinate_joints_couple() {
    rejects(
        &with_third("mimic = { joint = \"q1\" }")
            .replacen(
                "name = \"q3\"\ntype = \"revolute\"",
                "name = \"q3\"\ntype = \"spherical\"",
                1,
            )
            .replacen("axis = [0, 0, 1]\nmimic", "mimic", 1),
        48,
        9,
        "joint `q3` is spherical and cannot mimic another joint",
    );
}

#[test]
fn unknown_keys_and_bad_values_are_reported() {
    rejects(
        &with("mimic = { joint = \"q1\", ratio = 2 }"),
        37,
        25,
        "unknown key `ratio` in `mimic`",
    );
    rejects(
        &with("mimic = { joint = \"q1\", multiplier = \"k\" }"),
        37,
        39,
        "unknown parameter `k`",
    );
    rejects(
        &with("mimic = { multiplier = 2 }"),
        37,
        9,
        "missing key `joint` in `mimic`",
    );
}
