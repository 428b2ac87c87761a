//! `[forces]`: applied joint forces as expressions of parameters, time,
//! positions and `<velocity>_dot`. What parses, and how bad tables are
//! reported at the offending key or name.

mod common;

use common::{rejects, spec, BASE};

/// `BASE` (revolute `q1`, prismatic `q2`) with `table` appended; returns the
/// text and the line number of the table's first line.
fn with(table: &str) -> (String, usize) {
    let line = BASE.lines().count() + 2;
    (format!("{BASE}\n{table}\n"), line)
}

#[test]
fn forces_name_velocity_coordinates_and_read_time_and_state() {
    let (text, _) = with("[forces]\nq1 = \"-m*g*q1 - 0.1*q1_dot + sin(t)\"\nq2 = 3");
    let s = spec(&text);
    assert_eq!(s.forces.len(), 2);
    assert_eq!(s.forces[0].coordinate, "q1");
    assert_eq!(s.forces[1].coordinate, "q2");
    let (text, _) = with("");
    assert!(spec(&text).forces.is_empty());
}

#[test]
fn bad_forces_are_located() {
    let (text, line) = with("[forces]\nq3 = 1");
    rejects(&text, line + 1, 1, "unknown coordinate `q3` in [forces]");

    let (text, line) = with("[forces]\nq1 = \"q1_dott\"");
    rejects(
        &text,
        line + 1,
        7,
        "unknown name `q1_dott` in force `q1` (did you mean `q1_dot`?)",
    );

    let (text, line) = with("[forces]\nq1 = \"time\"");
    rejects(&text, line + 1, 7, "unknown name `time`");

    let (text, line) = with("[forces]\nq1 = [1, 2]");
    rejects(&text, line + 1, 6, "force `q1`");

    // A parameter may not share a name that force expressions read.
    let text = BASE.replacen("g = 9.81", "g = 9.81\nt = 2.0", 1) + "\n[forces]\nq1 = \"t\"\n";
    rejects(&text, 8, 1, "parameter `t` has the name of time");
    let text = BASE.replacen("g = 9.81", "g = 9.81\nq2_dot = 2.0", 1) + "\n[forces]\nq1 = 1\n";
    rejects(&text, 8, 1, "has the name of the rate `q2_dot`");
}
