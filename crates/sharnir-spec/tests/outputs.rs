//! `outputs` in `[mechanism]`: the generated module's standard functions,
//! by name (or `all`, `linear`); a misspelt name is reported where it is,
//! with a suggestion and the valid names.

mod common;

use common::{edited, rejects, spec, BASE};

/// `BASE` with `line` added after the module name, on line 3.
fn with(line: &str) -> String {
    edited("name = \"arm\"", &format!("name = \"arm\"\n{line}"))
}

#[test]
fn outputs_are_read_by_name() {
    assert_eq!(spec(BASE).outputs, None);
    let asked = spec(&with(
        r#"outputs = ["inverse_dynamics", "linear", "mass_matrix"]"#,
    ));
    assert_eq!(
        asked.outputs,
        Some(vec![
            "inverse_dynamics".to_owned(),
            "linear".to_owned(),
            "mass_matrix".to_owned()
        ])
    );
    assert_eq!(sharnir_spec::OUTPUT_NAMES.len(), 19);
}

#[test]
fn an_unknown_output_is_located_with_a_suggestion_and_the_valid_names() {
    let e = rejects(
        &with(r#"outputs = ["forward_dynamics", "inverse_dynamcs"]"#),
        3,
        32,
        "unknown output `inverse_dynamcs` (did you mean `inverse_dynamics`?)",
    );
    assert!(
        e.hint()
            .contains("all, linear, inverse_dynamics, mass_matrix"),
        "{}",
        e.hint()
    );
}

#[test]
fn outputs_must_be_a_nonempty_array_of_names() {
    rejects(&with("outputs = []"), 3, 11, "`outputs` is empty");
    rejects(&with(r#"outputs = "all""#), 3, 11, "`outputs` must be");
    rejects(&with("outputs = [1]"), 3, 12, "each output");
}
