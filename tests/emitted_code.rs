//! The committed modules read as an embedded reviewer would accept them:
//! no local that only renames another, no product of two literals (which
//! would also be counted as a multiplication the machine never does), no
//! `+ -` or `- -`, no `libm` path spelled at a call site of a sine or
//! cosine, and no blanket lint allowance.
//!
//! The text of every file in `generated/src` is checked, so a pass or a
//! printer change that brings one of these back fails here, with the file
//! and line.

use std::path::PathBuf;

fn generated_files() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("generated")
        .join("src");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("generated/src exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let name = p
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (name, text)
        })
        .collect();
    files.sort();
    assert!(files.len() > 10, "generated/src has the bundled modules");
    files
}

/// A local the emitter names (`t12`, `inv3`).
fn is_generated_local(name: &str) -> bool {
    ["t", "inv"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// A value that costs nothing: a name, a field, an indexed input or a
/// literal.
fn is_atom(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.[]".contains(&b))
}

/// A float literal (`0.5`, `-2.0`, `1e-3`).
fn is_float(token: &str) -> bool {
    let token = token.trim_start_matches('-');
    token.starts_with(|c: char| c.is_ascii_digit())
        && token.contains(['.', 'e'])
        && token.replace('_', "").parse::<f64>().is_ok()
}

/// A token that is a float literal as the left operand of a `*`: possibly
/// after an opening parenthesis or bracket (`(0.5 * …`), never closing one
/// (`(a + 0.5) * …` multiplies a sum).
fn is_left_literal(token: &str) -> bool {
    is_float(token.trim_start_matches(['(', '[']))
}

/// A token that is a float literal as the right operand of a `*`:
/// possibly before a closing parenthesis, bracket, comma or semicolon,
/// never opening a group (`* (0.1 * x + y)` multiplies a sum).
fn is_right_literal(token: &str) -> bool {
    is_float(token.trim_end_matches([',', ')', ']', ';']))
}

fn findings(check: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for (name, text) in generated_files() {
        for (i, line) in text.lines().enumerate() {
            if !line.trim_start().starts_with("//") && check(line) {
                found.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn no_alias_locals() {
    let found = findings(|line| {
        let Some(rest) = line.trim().strip_prefix("let ") else {
            return false;
        };
        let Some((name, value)) = rest.split_once(" = ") else {
            return false;
        };
        is_generated_local(name) && value.strip_suffix(';').is_some_and(is_atom)
    });
    assert!(found.is_empty(), "alias locals:\n{}", found.join("\n"));
}

#[test]
fn no_products_of_two_literals() {
    let found = findings(|line| {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        tokens
            .windows(3)
            .any(|w| is_left_literal(w[0]) && w[1] == "*" && is_right_literal(w[2]))
    });
    assert!(found.is_empty(), "literal products:\n{}", found.join("\n"));
}

#[test]
fn no_added_negations() {
    let found = findings(|line| {
        line.contains("+ -") || line.contains("- -") || line.trim_start().starts_with("+ -")
    });
    assert!(found.is_empty(), "`+ -` or `- -`:\n{}", found.join("\n"));
}

#[test]
fn sines_and_cosines_are_called_by_the_modules_helpers() {
    for (name, text) in generated_files() {
        for call in [
            "libm::Libm::<Real>::sin(",
            "libm::Libm::<Real>::cos(",
            "libm::Libm::<Real>::sincos(",
        ] {
            // Once at most: in the helper that wraps it (or, for `sincos`,
            // in a single-precision twin's fallback beyond ±402 rad).
            let n = text.matches(call).count();
            assert!(n <= 1, "{name}: `{call}` {n} times, not only in its helper");
        }
    }
}

/// A single-precision twin computes every sine and cosine by its own
/// `sin_cos` in `f32` arithmetic: no `libm` sine or cosine is left in it
/// but the fallback beyond ±402 rad.
#[test]
fn single_precision_twins_take_every_sine_and_cosine_from_their_own_routine() {
    let twins: Vec<(String, String)> = generated_files()
        .into_iter()
        .filter(|(name, _)| name.ends_with("_f32.rs"))
        .collect();
    assert!(!twins.is_empty(), "telegin6 has an f32 twin");
    for (name, text) in twins {
        assert!(!text.contains("libm::Libm::<Real>::sin("), "{name}");
        assert!(!text.contains("libm::Libm::<Real>::cos("), "{name}");
        assert_eq!(
            text.matches("libm::Libm::<Real>::sincos(").count(),
            1,
            "{name}"
        );
        assert!(
            text.contains("pub fn sin_cos(x: Real) -> (Real, Real) {"),
            "{name}"
        );
    }
}

#[test]
fn no_blanket_lint_allowances() {
    let found = findings(|line| {
        line.contains("clippy::all")
            || line.contains("clippy::pedantic")
            || line.contains("unused_variables")
            || line.contains("unused_parens")
    });
    assert!(
        found.is_empty(),
        "blanket allowances:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_look_for() {
    assert!(is_generated_local("t12") && is_generated_local("inv3"));
    assert!(!is_generated_local("s_q1") && !is_generated_local("p"));
    assert!(is_atom("t10") && is_atom("p.m1") && is_atom("q[3]") && is_atom("0.5"));
    assert!(!is_atom("-t3") && !is_atom("t1 * t2"));
    assert!(is_float("0.0025") && is_float("-2.0") && is_float("1e-3"));
    assert!(is_left_literal("(0.5") && is_right_literal("1e-3,"));
    assert!(!is_left_literal("0.5)") && !is_right_literal("(0.1"));
    assert!(!is_float("t5") && !is_float("q[0]") && !is_float("2"));
}
