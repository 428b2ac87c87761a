//! `parse` never panics: not on truncated files, not on random edits, not on
//! random expressions; and every error it returns renders with a location.

mod common;

use common::{source, BASE};
use proptest::prelude::*;
use sharnir_spec::parse;

/// Parses `text`; on error, checks the message and the rendered report
/// both carry `arm.spec:line:col`.
fn parse_and_render(text: &str) {
    if let Err(e) = parse(source(text)) {
        let location = format!("arm.spec:{}:{}", e.line(), e.column());
        assert!(e.to_string().starts_with(&location), "{e}");
        let report = format!("{:?}", miette::Report::from(e));
        assert!(report.contains(&location), "{report}");
    }
}

#[test]
fn every_truncation_parses_or_fails_cleanly() {
    let cuts: Vec<usize> = (0..=BASE.len())
        .filter(|&i| BASE.is_char_boundary(i))
        .collect();
    for cut in cuts {
        parse_and_render(&BASE[..cut]);
    }
}

/// The message of the error `text` is rejected with, or `"ok"`.
fn outcome(text: &str) -> String {
    parse_and_render(text);
    parse(source(text)).map_or_else(|e| e.message().to_owned(), |_| "ok".to_owned())
}

#[test]
fn pathological_inputs() {
    let deep_array = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_parens = format!("\"{}m{}\"", "(".repeat(10_000), ")".repeat(10_000));
    let long_sum = format!("\"{}\"", vec!["m"; 10_000].join(" + "));
    let cases = [
        (String::new(), "missing table [mechanism]"),
        ("\0".into(), "TOML syntax error"),
        (format!("x = {deep_array}"), "TOML syntax error"),
        (BASE.replacen("\"m\"", &deep_parens, 1), "too deeply nested"),
        (BASE.replacen("\"m\"", &long_sum, 1), "too deeply nested"),
        (
            BASE.replacen("\"m\"", &format!("\"{}m\"", "-".repeat(10_000)), 1),
            "too deeply nested",
        ),
        (
            BASE.replacen("\"m\"", "\"m^2147483648\"", 1),
            "exponent `2147483648` is too large",
        ),
        (
            BASE.replacen("\"m\"", "\"m^-2147483647\"", 1),
            "must be positive, found 0",
        ),
        (BASE.replacen("\"m\"", "9223372036854775807", 1), "ok"),
        (
            BASE.replacen("\"m\"", "\"é + m\"", 1),
            "unexpected character `é`",
        ),
        (
            BASE.replacen("L = 0.5", "L = 1e308", 1),
            "value is not finite",
        ),
        (BASE.replacen("[0, 0, 1]", "[1e-320, 0, 0]", 1), "ok"),
        (
            BASE.replacen("[0, 0, 1]", "[1.7e308, 1.7e308, 1.7e308]", 1),
            "ok",
        ),
    ];
    for (input, expected) in &cases {
        let got = outcome(input);
        assert!(
            got.contains(expected),
            "expected `{expected}`, got `{got}` for {:.80}",
            input
        );
    }
}

#[test]
fn long_chains_of_derived_parameters_evaluate() {
    let mut chain = BASE.replacen("I = \"m * L^2 / 12\"", "I = \"p0 / 12\"", 1);
    let definitions: String = (0..99)
        .map(|i| format!("p{i} = \"p{} + 0\"\n", i + 1))
        .collect();
    chain = chain.replacen(
        "[[body]]",
        &format!("{definitions}p99 = 0.5\n\n[[body]]"),
        1,
    );
    let spec = common::spec(&chain);
    let values = spec.parameter_values();
    assert_eq!(values.get("p0"), Some(&0.5));
    assert!(
        (values["I"] - 0.5 / 12.0).abs() < 1e-15,
        "{:?}",
        values.get("I")
    );
}

/// 20 000 chained derived parameters: ordered without recursion, then
/// refused where the substituted expression gets deeper than an expression
/// may be written (the derivation inlines them, recursively), instead of
/// overflowing the stack there.
#[test]
fn too_long_chains_of_derived_parameters_are_refused_where_too_deep() {
    let mut chain = BASE.replacen("I = \"m * L^2 / 12\"", "I = \"p0 / 12\"", 1);
    let definitions: String = (0..20_000)
        .map(|i| format!("p{i} = \"p{} + 0\"\n", i + 1))
        .collect();
    chain = chain.replacen(
        "[[body]]",
        &format!("{definitions}p20000 = 0.5\n\n[[body]]"),
        1,
    );
    let message = outcome(&chain);
    assert!(message.contains("nested too deeply"), "{message}");
    assert!(message.contains("`p19800`"), "{message}");
}

/// Characters likely to break TOML or expressions.
const ALPHABET: &[char] = &[
    '"', '\'', '[', ']', '{', '}', '=', ',', '#', '\n', ' ', '.', '-', '+', '*', '/', '^', '(',
    ')', '0', '1', 'e', 'x', 'm', 'L', '\\', 'π', '\t',
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), 0..ALPHABET.len(), 0..3_usize), 1..6)) {
        let mut text: Vec<char> = BASE.chars().collect();
        for (at, symbol, action) in edits {
            let i = at.index(text.len() + 1);
            match action {
                0 => text.insert(i, ALPHABET[symbol]),
                1 if i < text.len() => { text.remove(i); }
                _ if i < text.len() => text[i] = ALPHABET[symbol],
                _ => {}
            }
        }
        parse_and_render(&text.into_iter().collect::<String>());
    }

    #[test]
    fn random_expressions_never_panic(expression in "[-+*/^() .0-9eLmgIpisnqrtco,#\"é]{0,40}") {
        let escaped = expression.replace('\\', "\\\\").replace('"', "\\\"");
        parse_and_render(&BASE.replacen("\"L / 2\"", &format!("\"{escaped}\""), 1));
        parse_and_render(&BASE.replacen("\"m * L^2 / 12\"", &format!("\"{escaped}\""), 1));
    }
}

#[test]
fn values_whose_products_overflow_are_refused_where_written() {
    for (from, to, needle) in [
        ("g = 9.81", "g = 1e308", "parameter `g` is 1.000e308"),
        ("m = 2.0", "m = 1e-320", "parameter `m`"),
        (
            "com = [\"L / 2\", 0, 0]",
            "com = [1e160, 0, 0]",
            "this value is 1.000e160",
        ),
        (
            "xyz = [\"L\", 0, 0]",
            "xyz = [1e300, 0, 0]",
            "outside the magnitudes",
        ),
    ] {
        assert!(BASE.contains(from), "{from}");
        let text = BASE.replacen(from, to, 1);
        let message = outcome(&text);
        assert!(message.contains(needle), "{to}: {message}");
        assert!(message.contains("1e-50 to 1e50"), "{message}");
    }
    // Large and small but physical values pass.
    let text = BASE
        .replacen("m = 2.0", "m = 4.2e7", 1)
        .replacen("g = 9.81", "g = 1e-30", 1);
    assert_eq!(outcome(&text), "ok");
}
