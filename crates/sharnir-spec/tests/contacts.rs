//! Stops (`limits` with a contact law), clearances and gear meshes: what
//! they parse into and how bad ones are reported. The keys are appended to
//! the last joint of `common::BASE` (`q2`, prismatic), so they are on line
//! 37.

mod common;

use common::{rejects, spec, BASE};
use sharnir_spec::ExprKind;

/// `BASE` with `lines` appended to its last joint (`q2`).
fn with(lines: &str) -> String {
    format!("{BASE}{lines}\n")
}

/// `BASE` with `q2` a planar joint (no axis; its keys then on line 36).
fn planar(lines: &str) -> String {
    let base = BASE.replacen("type = \"prismatic\"", "type = \"planar\"", 1);
    format!("{}{lines}\n", base.replacen("axis = [1, 0, 0]\n", "", 1))
}

#[test]
fn a_contact_law_makes_the_bounds_stops() {
    let s = spec(&with(
        "limits = { lower = 0, upper = \"L\", stiffness = 50, decay = 400 }",
    ));
    let limits = s.joints[1].limits.as_ref().expect("limits");
    let law = limits.stops.as_ref().expect("stops");
    assert!(matches!(law.dissipation.kind, ExprKind::Number(x) if x == 0.0));
    assert!(matches!(law.decay.kind, ExprKind::Number(x) if x == 400.0));
    let stored = spec(&with("limits = { lower = 0, upper = \"L\" }"));
    assert!(stored.joints[1]
        .limits
        .as_ref()
        .is_some_and(|l| l.stops.is_none()));
}

#[test]
fn a_contact_law_needs_a_bound_stiffness_and_decay() {
    rejects(
        &with("limits = { effort = 3, stiffness = 5, decay = 4 }"),
        37,
        10,
        "gives a contact law but no bound",
    );
    rejects(
        &with("limits = { lower = 0, stiffness = 5 }"),
        37,
        10,
        "without `decay`",
    );
    rejects(
        &with("limits = { lower = 0, stiffness = -5, decay = 4 }"),
        37,
        35,
        "contact stiffness of joint `q2` must be positive",
    );
    rejects(
        &with("limits = { lower = 0, stiffness = 5, decay = 4, dissipation = -1 }"),
        37,
        63,
        "contact dissipation of joint `q2` is negative",
    );
    rejects(
        &with("friction = 1\nfriction_speed = 0"),
        38,
        18,
        "friction speed of joint `q2` must be positive",
    );
}

#[test]
fn stops_need_a_joint_with_one_coordinate() {
    rejects(
        &planar("limits = { lower = 0, stiffness = 5, decay = 4 }"),
        36,
        10,
        "stops act on the coordinate of a revolute or prismatic joint",
    );
}

#[test]
fn a_clearance_needs_a_planar_joint_and_a_contact_inside_it() {
    rejects(
        &with("clearance = { radius = 0.001, stiffness = 10, decay = 40000 }"),
        37,
        13,
        "a clearance needs a planar joint",
    );
    let s = spec(&planar(
        "clearance = { radius = 0.001, stiffness = 10, decay = 40000 }",
    ));
    assert!(s.joints[1].clearance.is_some());
    rejects(
        &planar("clearance = { radius = 0.001, stiffness = 10, decay = 1000 }"),
        36,
        55,
        "reaches the hole's centre",
    );
}

#[test]
fn a_gear_mesh_needs_a_driver_with_a_coordinate() {
    let mesh = |joint: &str| {
        with(&format!(
            "gear = {{ joint = \"{joint}\", backlash = 0.01, stiffness = 1, decay = 1000 }}"
        ))
    };
    let s = spec(&mesh("q1"));
    let gear = s.joints[1].gear.as_ref().expect("gear");
    assert_eq!(gear.joint, "q1");
    assert!(matches!(gear.ratio.kind, ExprKind::Number(x) if x == 1.0));
    rejects(&mesh("q9"), 37, 18, "meshes with an unknown joint `q9`");
    rejects(&mesh("q2"), 37, 18, "meshes with `q2`, itself");
    rejects(
        &with("gear = { joint = \"q1\", backlash = -0.01, stiffness = 1, decay = 1000 }"),
        37,
        35,
        "gear backlash of joint `q2` is negative",
    );
}
