//! `fused_multiply_add` in `[mechanism]`: off unless asked for, a boolean,
//! independent of `single_precision`, and a misspelling is reported with a
//! suggestion like every other key.

mod common;

use common::{edited, rejects, spec, BASE};

/// `BASE` with `line` added after the module name (line 2), so the added
/// key is on line 3.
fn with(line: &str) -> String {
    edited("name = \"arm\"", &format!("name = \"arm\"\n{line}"))
}

#[test]
fn fused_multiply_add_is_off_unless_asked_for() {
    assert!(!spec(BASE).fused_multiply_add);
    let asked = spec(&with("fused_multiply_add = true"));
    assert!(asked.fused_multiply_add);
    assert!(!asked.single_precision);
    assert!(!spec(&with("fused_multiply_add = false")).fused_multiply_add);
}

#[test]
fn fused_multiply_add_and_single_precision_are_independent() {
    let both = spec(&with("fused_multiply_add = true\nsingle_precision = true"));
    assert!(both.fused_multiply_add && both.single_precision);
    let f32_only = spec(&with("single_precision = true"));
    assert!(!f32_only.fused_multiply_add && f32_only.single_precision);
}

#[test]
fn fused_multiply_add_must_be_a_boolean() {
    rejects(
        &with("fused_multiply_add = 1"),
        3,
        22,
        "`fused_multiply_add` must be a boolean",
    );
}

#[test]
fn a_misspelt_key_is_rejected_with_a_suggestion() {
    let e = rejects(&with("fused_multiply_ad = true"), 3, 1, "fused_multiply_ad");
    assert!(e.hint().contains("fused_multiply_add"), "{}", e.hint());
}
