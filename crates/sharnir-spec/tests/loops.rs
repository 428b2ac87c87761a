//! Closed loops in a spec: which joints become cut joints, what they do to
//! the coordinates, and how bad loop specs are reported. `BASE` (two links
//! on `q1` and `q2`) gets a third joint `q3` from the ground to `link2`,
//! which closes a loop.

mod common;

use common::{rejects, spec, BASE};

/// `BASE` with a loop-closing revolute joint from the ground to `link2`
/// (appended from line 39) carrying `lines`.
fn closed(lines: &str) -> String {
    format!(
        "{BASE}\n[[joint]]\nname = \"q3\"\ntype = \"revolute\"\nparent = \"ground\"\n\
         child = \"link2\"\naxis = [0, 0, 1]\norigin = {{ xyz = [1, 0, 0] }}\n{lines}\n"
    )
}

#[test]
fn the_deepest_joint_of_the_loop_is_cut_and_loses_its_coordinates() {
    // link1 and link2 both hang on the ground (q1, q3); q2 closes the loop.
    let s = spec(&closed(""));
    let cut: Vec<&str> = s
        .joints
        .iter()
        .filter(|j| j.cut)
        .map(|j| j.name.as_str())
        .collect();
    assert_eq!(cut, ["q2"]);
    let names: Vec<String> = s.joints.iter().flat_map(|j| j.velocity_names()).collect();
    assert_eq!(names, ["q1", "q3"]);
    assert_eq!(s.initial_positions.len(), 2);
}

#[test]
fn a_marked_joint_is_cut_instead() {
    let s = spec(&closed("cut = true"));
    let cut: Vec<&str> = s
        .joints
        .iter()
        .filter(|j| j.cut)
        .map(|j| j.name.as_str())
        .collect();
    assert_eq!(cut, ["q3"]);
    assert!(s.joints[2].cut_mark.is_some());
}

#[test]
fn a_marked_bridge_is_refused_at_the_mark() {
    rejects(
        &format!("{BASE}cut = true\n"),
        37,
        7,
        "cutting joint `q2` disconnects link2 from the ground",
    );
}

#[test]
fn a_cut_joint_names_no_coordinate() {
    rejects(
        &closed("\n[initial]\nq = { q2 = 0.1 }"),
        47,
        7,
        "unknown coordinate `q2`",
    );
    rejects(
        &closed("").replace("description = \"test arm\"", "independent = [\"q2\"]"),
        3,
        16,
        "a cut joint, which has no coordinates",
    );
}

#[test]
fn independent_coordinates_are_checked() {
    let s = spec(&closed("").replace("description = \"test arm\"", "independent = [\"q1\"]"));
    assert_eq!(s.independent[0].name, "q1");
    rejects(
        &BASE.replace("description = \"test arm\"", "independent = [\"q1\"]"),
        3,
        16,
        "the mechanism has no loops",
    );
    rejects(
        &closed("").replace(
            "description = \"test arm\"",
            "independent = [\"q1\", \"q1\"]",
        ),
        3,
        22,
        "named twice",
    );
}

#[test]
fn a_free_cut_joint_is_refused() {
    let text = closed("cut = true")
        .replace(
            "name = \"q3\"\ntype = \"revolute\"",
            "name = \"q3\"\ntype = \"free\"",
        )
        .replace(
            "child = \"link2\"\naxis = [0, 0, 1]\norigin = { xyz = [1, 0, 0] }",
            "child = \"link2\"",
        );
    rejects(&text, 43, 7, "is free and closes a loop");
}
