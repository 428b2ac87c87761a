//! `[motion]`: coordinates prescribed as laws of time. What parses, where a
//! prescribed coordinate starts, and how bad laws are reported at the
//! offending key or name.

mod common;

use common::{rejects, spec, BASE};

/// `BASE` (revolute `q1`, prismatic `q2`) with `table` appended; returns the
/// text and the line number of the table's first line.
fn with(table: &str) -> (String, usize) {
    let line = BASE.lines().count() + 2;
    (format!("{BASE}\n{table}\n"), line)
}

#[test]
fn laws_name_coordinates_and_set_where_they_start() {
    let (text, _) = with("[motion]\nq1 = \"0.5 + 2*t\"\nq2 = \"L*sin(3*t + pi/2)\"");
    let s = spec(&text);
    assert_eq!(s.motion.len(), 2);
    assert_eq!(s.motion[0].coordinate, "q1");
    // q2(0) = L, q̇2(0) = 3 L cos(π/2) = 0; q1(0) = 0.5, q̇1 = 2.
    assert_eq!(s.initial_positions, [0.5, 0.5]);
    assert!((s.initial_velocities[0] - 2.0).abs() < 1e-15);
    assert!(s.initial_velocities[1].abs() < 1e-15);
    let (text, _) = with("");
    assert!(spec(&text).motion.is_empty());
}

#[test]
fn bad_laws_are_located() {
    let (text, line) = with("[motion]\nq3 = \"t\"");
    rejects(&text, line + 1, 1, "unknown coordinate `q3` in [motion]");

    let (text, line) = with("[motion]\nq1 = \"q2*t\"");
    rejects(&text, line + 1, 7, "unknown name `q2` in the law of `q1`");

    let (text, line) = with("[motion]\nq1 = \"t\"\nq1 = \"2*t\"");
    rejects(&text, line + 2, 1, "duplicate key");

    let (text, line) = with("[motion]\nq1 = \"sqrt(t)\"");
    rejects(
        &text,
        line + 1,
        7,
        "the law of `q1` is not twice differentiable at t = 0",
    );

    let (text, line) = with("[initial]\nq = { q1 = 0.3 }\n\n[motion]\nq1 = \"t\"");
    rejects(&text, line + 1, 7, "`q1` is prescribed by [motion]");

    let text = BASE.replacen("g = 9.81", "g = 9.81\nt = 2.0", 1) + "\n[motion]\nq1 = \"t\"\n";
    rejects(&text, 8, 1, "parameter `t` has the name of time");

    let ball = BASE.replacen(
        "type = \"prismatic\"\nparent = \"link1\"\nchild = \"link2\"\naxis = [1, 0, 0]",
        "type = \"spherical\"\nparent = \"link1\"\nchild = \"link2\"",
        1,
    );
    let text = format!("{ball}\n[motion]\nq2_wx = \"t\"\n");
    rejects(
        &text,
        ball.lines().count() + 3,
        1,
        "`q2_wx` is a velocity of spherical joint `q2`",
    );
}

#[test]
fn a_mechanism_with_loops_prescribes_independent_coordinates() {
    // link2 hangs on the ground by q3 too: q2 is cut and closes a loop.
    let closed = |independent: &str, law: &str| {
        format!(
            "{}\n[[joint]]\nname = \"q3\"\ntype = \"revolute\"\nparent = \"ground\"\n\
             child = \"link2\"\naxis = [0, 0, 1]\norigin = {{ xyz = [1, 0, 0] }}\n\n\
             [motion]\n{law} = \"t\"\n",
            BASE.replacen(
                "gravity = [0, 0, \"-g\"]",
                &format!("gravity = [0, 0, \"-g\"]\n{independent}"),
                1
            )
        )
    };
    let text = closed("independent = [\"q1\"]", "q1");
    assert_eq!(spec(&text).motion.len(), 1);
    let text = closed("", "q1");
    rejects(
        &text,
        text.lines().count(),
        1,
        "whose `independent` coordinates are not named",
    );
    let text = closed("independent = [\"q1\"]", "q3");
    rejects(
        &text,
        text.lines().count(),
        1,
        "`q3` is prescribed but not independent",
    );
}

#[test]
fn a_moving_base_is_a_chain_of_prescribed_joints() {
    let (text, _) = with("[base]\nxyz = [0, 0, \"0.1*sin(2*t)\"]\nrpy = [\"0.2*t\", 0, 0]");
    let s = spec(&text);
    let names: Vec<String> = s.joints.iter().flat_map(|j| j.velocity_names()).collect();
    assert_eq!(names, ["base_z", "base_roll", "q1", "q2"]);
    assert_eq!(s.moving_base, ["base_z", "base_roll"]);
    assert_eq!(
        s.joints[2].parent, "base_roll",
        "the ground's joints hang on the base"
    );
    let motion: Vec<&str> = s.motion.iter().map(|m| m.coordinate.as_str()).collect();
    assert_eq!(motion, ["base_z", "base_roll"]);
    // z(0) = 0 with ż(0) = 0.2; roll(0) = 0 with a rate of 0.2.
    assert_eq!(&s.initial_positions[..2], [0.0, 0.0]);
    assert_eq!(&s.initial_velocities[..2], [0.2, 0.2]);
}

#[test]
fn bad_bases_are_located() {
    let (text, line) = with("[base]\nxyz = [0, 0, \"a*t\"]");
    rejects(
        &text,
        line + 1,
        15,
        "unknown name `a` in the law of `base_z`",
    );

    let (text, line) = with("[base]\nrpy = [\"sqrt(t)\", 0, 0]");
    rejects(
        &text,
        line + 1,
        9,
        "the law of `base_roll` is not twice differentiable at t = 0",
    );

    let (text, line) = with("[base]\nxyz = [1, 2]");
    rejects(&text, line + 1, 7, "`base.xyz`");

    let renamed = BASE.replacen("name = \"q2\"", "name = \"base_x\"", 1);
    let text = format!("{renamed}\n[base]\nxyz = [\"t\", 0, 0]\n");
    rejects(
        &text,
        renamed.lines().count() + 2,
        1,
        "[base] names its coordinate `base_x`, which the spec already uses",
    );
}

#[test]
fn a_moving_base_turns_by_rotations_about_its_moving_axes() {
    let (text, _) = with("[base]\nrotations = [[\"z\", \"0.5*t\"], [\"x\", 0.1], [\"z\", 0]]");
    let s = spec(&text);
    let names: Vec<String> = s.joints.iter().flat_map(|j| j.velocity_names()).collect();
    assert_eq!(names, ["base_rotation1", "base_rotation2", "q1", "q2"]);
    assert_eq!(s.joints[1].axis, [1.0, 0.0, 0.0]);
    assert_eq!(&s.initial_positions[..2], [0.0, 0.1]);
    assert_eq!(&s.initial_velocities[..2], [0.5, 0.0]);

    let (text, line) = with("[base]\nrpy = [0, 0, \"t\"]\nrotations = [[\"z\", \"t\"]]");
    rejects(&text, line + 2, 13, "[base] has both `rpy` and `rotations`");
}
