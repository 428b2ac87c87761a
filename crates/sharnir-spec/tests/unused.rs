//! Parameters that nothing uses are listed, and warned about at the first.

mod common;

use common::{edited, spec, BASE};

fn unused(text: &str) -> Vec<String> {
    spec(text)
        .unused_parameters()
        .into_iter()
        .map(|p| p.name.clone())
        .collect()
}

#[test]
fn every_parameter_of_the_base_spec_is_used() {
    assert!(unused(BASE).is_empty());
    assert_eq!(spec(BASE).unused_parameters_warning(), None);
}

#[test]
fn unused_parameters_are_found_through_derived_ones() {
    // `J` uses `L`, but nothing uses `J`; `K` is used only through `H`.
    let text = edited(
        "I = \"m * L^2 / 12\"",
        "I = \"m * L^2 / 12\"\nJ = \"2 * L\"\nK = 3\nH = \"K + 1\"\nu = 1",
    )
    .replacen("mass = 1.0", "mass = \"H\"", 1);
    assert_eq!(unused(&text), ["J", "u"]);
    let warning = spec(&text).unused_parameters_warning().unwrap_or_default();
    assert!(
        warning.starts_with("arm.spec:11:1: 2 parameters are never used: `J`, `u`"),
        "{warning}"
    );
}

#[test]
fn the_warning_names_a_few_of_many() {
    let many: String = (0..1000).map(|i| format!("u{i} = {i}\n")).collect();
    let text = edited("g = 9.81\n", &format!("g = 9.81\n{many}"));
    let warning = spec(&text).unused_parameters_warning().unwrap_or_default();
    assert!(
        warning
            .contains("1000 parameters are never used: `u0`, `u1`, `u2`, `u3`, `u4`, … (995 more)"),
        "{warning}"
    );
}

#[test]
fn uses_in_joints_and_forces_count() {
    let text = edited(
        "I = \"m * L^2 / 12\"",
        "I = \"m * L^2 / 12\"\nd = 0.1\nk = 2",
    )
    .replacen("axis = [1, 0, 0]", "axis = [1, 0, 0]\ndamping = \"d\"", 1)
        + "\n[forces]\nq1 = \"k * q1\"\n";
    assert!(unused(&text).is_empty(), "{:?}", unused(&text));
}
