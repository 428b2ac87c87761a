//! Detachable joints (`detach`): what they parse into, how bad ones are
//! reported, and the spec of the mechanism after the release. The key is
//! appended to the last joint of `common::BASE` (`q2`, prismatic, from
//! link 1 to link 2), so it is on line 37.

mod common;

use common::{rejects, spec, BASE};
use sharnir_spec::{JointKind, Release, ReleasedStart};

/// `BASE` with `lines` appended to its last joint (`q2`).
fn with(lines: &str) -> String {
    format!("{BASE}{lines}\n")
}

#[test]
fn a_detach_table_gives_a_time_or_a_reaction_threshold() {
    let at = spec(&with("detach = { time = \"2 * L\" }"));
    let detach = at.joints[1].detach.as_ref().expect("detach");
    assert!(matches!(detach.release, Release::At(_)));
    assert_eq!(
        at.evaluate(match &detach.release {
            Release::At(t) => t,
            Release::Reaction { threshold, .. } => threshold,
        })
        .expect("evaluates"),
        1.0
    );
    let pull = spec(&with("detach = { reaction = \"fx\", below = -40 }"));
    assert!(matches!(
        pull.joints[1].detach.as_ref().map(|d| &d.release),
        Some(Release::Reaction {
            component: 0,
            rising: false,
            ..
        })
    ));
    let twist = spec(&with("detach = { reaction = \"mz\", above = 3 }"));
    assert!(matches!(
        twist.joints[1].detach.as_ref().map(|d| &d.release),
        Some(Release::Reaction {
            component: 5,
            rising: true,
            ..
        })
    ));
}

#[test]
fn a_bad_detach_table_is_located() {
    rejects(
        &with("detach = { }"),
        37,
        10,
        "exactly one of `time` and `reaction`",
    );
    rejects(
        &with("detach = { time = 1, reaction = \"fx\", above = 1 }"),
        37,
        10,
        "exactly one of `time` and `reaction`",
    );
    rejects(
        &with("detach = { reaction = \"fq\", above = 1 }"),
        37,
        23,
        "not a component of a joint's reaction",
    );
    rejects(
        &with("detach = { reaction = \"fx\" }"),
        37,
        10,
        "exactly one of `above` and `below`",
    );
    rejects(
        &with("detach = { time = 1, below = 0 }"),
        37,
        30,
        "takes no threshold",
    );
    rejects(
        &with("detach = { time = -1 }"),
        37,
        19,
        "release time of joint `q2` is negative",
    );
}

#[test]
fn only_a_joint_that_can_let_go_may_detach() {
    let fixed = BASE.replacen("type = \"prismatic\"", "type = \"fixed\"", 1);
    let fixed = fixed.replacen("axis = [1, 0, 0]\n", "", 1);
    let e = rejects(
        &format!("{fixed}detach = {{ time = 1 }}\n"),
        36,
        10,
        "is fixed",
    );
    let report = format!("{:?}", miette::Report::from(e));
    assert!(report.contains("weld it with this"), "{report}");
    let free = BASE.replacen("type = \"prismatic\"", "type = \"free\"", 1);
    let free = free.replacen("axis = [1, 0, 0]\n", "", 1);
    rejects(
        &format!("{free}detach = {{ time = 1 }}\n"),
        36,
        10,
        "is free",
    );
    rejects(
        &with("mimic = { joint = \"q1\" }\ndetach = { time = 1 }"),
        38,
        10,
        "follows another joint",
    );
    let leader = BASE.replacen(
        "axis = [0, 0, 1]\n",
        "axis = [0, 0, 1]\ndetach = { time = 1 }\n",
        1,
    );
    rejects(
        &format!("{leader}mimic = {{ joint = \"q1\" }}\n"),
        29,
        10,
        "drives joint `q2`",
    );
}

#[test]
fn a_released_tree_joint_leaves_its_child_on_a_free_joint_in_its_place() {
    let parent = spec(&with(
        "detach = { time = 1 }\n\n[initial]\nq = { q1 = 0.3, q2 = 0.1 }\nv = { q1 = 2, q2 = 4 }",
    ));
    assert_eq!(parent.variant_name("q2"), "arm_without_q2");
    let start = ReleasedStart {
        positions: [1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8],
        velocities: [4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    };
    let variant = parent.release("q2", &start).expect("releases");
    assert_eq!(variant.name, "arm_without_q2");
    assert_eq!(variant.released, ["q2"]);
    let free = &variant.joints[1];
    assert_eq!(free.kind, JointKind::Free);
    assert_eq!(
        (free.parent.as_str(), free.child.as_str()),
        ("ground", "link2")
    );
    assert!(free.detach.is_none());
    assert_eq!(
        free.position_names(),
        ["link2_x", "link2_y", "link2_z", "link2_qx", "link2_qy", "link2_qz", "link2_qw"]
    );
    // The coordinates before the released joint's keep their values; the
    // free joint's are the start given.
    assert_eq!(
        variant.initial_positions,
        [0.3, 1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8]
    );
    assert_eq!(
        variant.initial_velocities,
        [2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    );
    assert!(variant.detachable_joints().next().is_none());
    assert!(
        parent.release("q1", &ReleasedStart::AT_GROUND).is_err(),
        "q1 is not detachable"
    );
}

#[test]
fn variants_are_named_by_the_set_of_released_joints() {
    let both = BASE.replacen(
        "axis = [0, 0, 1]\n",
        "axis = [0, 0, 1]\ndetach = { time = 2 }\n",
        1,
    );
    let parent = spec(&format!("{both}detach = {{ time = 1 }}\n"));
    let one = parent
        .release("q2", &ReleasedStart::AT_GROUND)
        .expect("releases q2");
    let other = parent
        .release("q1", &ReleasedStart::AT_GROUND)
        .expect("releases q1");
    assert_eq!(one.variant_name("q1"), "arm_without_q1_and_q2");
    assert_eq!(other.variant_name("q2"), "arm_without_q1_and_q2");
    let last = one
        .release("q1", &ReleasedStart::AT_GROUND)
        .expect("releases q1 after q2");
    assert_eq!(last.name, "arm_without_q1_and_q2");
    assert_eq!(
        last.joints
            .iter()
            .filter(|j| j.kind == JointKind::Free)
            .count(),
        2
    );
}

#[test]
fn a_joint_of_a_mechanism_with_loops_may_release_on_its_reaction() {
    // A pin from the ground to link 2 closes a loop, and the tree search
    // cuts q2.
    let closing = "\n[[joint]]\nname = \"pin\"\ntype = \"revolute\"\nparent = \"ground\"\n\
                   child = \"link2\"\naxis = [0, 0, 1]\norigin = { xyz = [\"L\", \"L\", 0] }\n";
    let tree_joint = BASE.replacen(
        "axis = [0, 0, 1]\n",
        "axis = [0, 0, 1]\ndetach = { reaction = \"fx\", above = 1 }\n",
        1,
    );
    let parsed = spec(&format!("{tree_joint}{closing}"));
    assert!(parsed.joints[1].cut && parsed.joints[0].detach.is_some());
    let cut = spec(&format!(
        "{BASE}detach = {{ reaction = \"mz\", below = 0 }}\n{closing}"
    ));
    assert!(cut.joints[1].cut && cut.joints[1].detach.is_some());
}
