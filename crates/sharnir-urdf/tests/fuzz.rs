//! Fuzzing the URDF reader on the stable toolchain: arbitrary bytes and
//! random edits of a real URDF (tests/fixtures/double_pendulum.urdf) must
//! convert or fail with a located error, never panic or overflow the
//! stack, with every combination of options. `cargo test` runs a bounded
//! number of cases; `PROPTEST_CASES=N` runs N (docs/robustness.md).
//! (Grammar-shaped URDFs go through the whole gen path in
//! `sharnir-codegen/tests/fuzz_gen.rs`.)

use proptest::prelude::*;
use sharnir_spec::Source;
use sharnir_urdf::{convert, Options};

const ROBOT: &str = include_str!("../../../tests/fixtures/double_pendulum.urdf");

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Converts `text` with the options numbered `flags`; an error must start
/// with `robot.urdf:line:col`.
fn converts_or_fails_located(text: &str, flags: u8) -> Result<(), String> {
    let options = Options {
        name: None,
        floating: flags & 1 != 0,
        fix_inertia: flags & 2 != 0,
        stops: flags & 4 != 0,
        keep_angles: flags & 8 != 0,
        folded_twin: flags & 16 != 0,
    };
    let source = Source {
        name: "robot.urdf".into(),
        text: text.to_owned(),
    };
    match convert(&source, &options) {
        Ok(_) => Ok(()),
        Err(e) => {
            let location = format!("robot.urdf:{}:{}", e.line(), e.column());
            if e.to_string().starts_with(&location) {
                Ok(())
            } else {
                Err(format!("unlocated error: {e}"))
            }
        }
    }
}

/// Characters likely to break XML, numbers and names.
const ALPHABET: &[char] = &[
    '<', '>', '/', '"', '\'', '=', ' ', '\n', '&', ';', '!', '-', '?', '.', '0', '1', '9', 'e',
    'E', 'x', 'a', 'n', 'i', 'f', '[', ']', 'é',
];

/// Fragments that matter to the reader.
const FRAGMENTS: &[&str] = &[
    "<link name=\"x\"/>",
    "<joint name=\"j\" type=\"revolute\"><parent link=\"x\"/><child link=\"y\"/></joint>",
    "<mimic joint=\"joint1\"/>",
    "<inertial><mass value=\"1e-320\"/></inertial>",
    "<origin xyz=\"1e308 1e308 0\" rpy=\"nan 0 0\"/>",
    "<axis xyz=\"0 0 0\"/>",
    "<limit lower=\"1\" upper=\"-1\"/>",
    "<!-- <a> -->",
    "<![CDATA[<]]>",
    "<?xml version=\"1.0\"?>",
    "<!DOCTYPE robot>",
    "&amp;",
    "&#0;",
    "type=\"floating\"",
    "type=\"planar\"",
    "value=\"1e400\"",
    "</robot>",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1024), flags in 0..32_u8) {
        let text = String::from_utf8_lossy(&bytes);
        let outcome = converts_or_fails_located(&text, flags);
        prop_assert!(outcome.is_ok(), "{:?}", outcome);
    }

    #[test]
    fn edited_robots_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..ALPHABET.len(), 0..FRAGMENTS.len(), 0..4_usize), 1..8),
        flags in 0..32_u8,
    ) {
        let mut text: Vec<char> = ROBOT.chars().collect();
        for (at, symbol, fragment, action) in edits {
            let i = at.index(text.len() + 1);
            match action {
                0 => text.insert(i, ALPHABET[symbol]),
                1 if i < text.len() => { text.remove(i); }
                2 => { text.splice(i..i, FRAGMENTS[fragment].chars()); }
                _ if i < text.len() => text[i] = ALPHABET[symbol],
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        let outcome = converts_or_fails_located(&text, flags);
        prop_assert!(outcome.is_ok(), "{:?}\n{text}", outcome);
    }
}

/// The XML nesting limit, through `convert`: deep documents are refused at
/// the tag that goes too deep instead of overflowing the stack.
#[test]
fn deeply_nested_xml_is_refused_where_too_deep() {
    for depth in [101, 20_000] {
        let text = format!(
            "<robot name=\"r\">{}{}<link name=\"l\"/></robot>",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        );
        let error = convert(
            &Source {
                name: "robot.urdf".into(),
                text,
            },
            &Options::default(),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            error.starts_with("robot.urdf:1:314: XML nested too deeply"),
            "{error}"
        );
    }
}
