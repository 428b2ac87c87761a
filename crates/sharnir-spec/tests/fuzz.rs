//! Fuzzing the parser on the stable toolchain: arbitrary bytes, and
//! TOML-shaped files assembled from the format's own lines, must parse or
//! fail with a located error, never panic. `cargo test` runs a bounded
//! number of cases; `PROPTEST_CASES=N` runs N (docs/robustness.md).
//! (The whole gen path is fuzzed in `sharnir-codegen/tests/fuzz_gen.rs`.)

mod common;

use common::source;
use proptest::prelude::*;
use sharnir_spec::parse;

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Parses `text`; an error must carry `arm.spec:line:col` in its message
/// and in its rendered report.
fn parses_or_fails_located(text: &str) -> Result<(), String> {
    let Err(e) = parse(source(text)) else {
        return Ok(());
    };
    let location = format!("arm.spec:{}:{}", e.line(), e.column());
    let report = format!("{:?}", miette::Report::from(e.clone()));
    if e.to_string().starts_with(&location) && report.contains(&location) {
        Ok(())
    } else {
        Err(format!("unlocated error: {e}\n{report}"))
    }
}

/// Lines of the format, some broken, from which files are assembled.
const LINES: &[&str] = &[
    "[mechanism]",
    "name = \"arm\"",
    "name = \"Arm\"",
    "gravity = [0, 0, \"-g\"]",
    "gravity = [0, 0]",
    "single_precision = true",
    "independent = [\"q1\"]",
    "[parameters]",
    "g = 9.81",
    "g = nan",
    "m = \"g * 2\"",
    "m = \"m\"",
    "L = 1e308",
    "L = \"1e-320\"",
    "[[body]]",
    "name = \"b\"",
    "name = \"ground\"",
    "mass = \"m\"",
    "mass = 1e-320",
    "mass = -1",
    "com = [\"L\", 0, 0]",
    "inertia = [1, 1, 1]",
    "inertia = [1, 1, 3]",
    "inertia = { xx = 1, yy = 1, zz = 1, xy = 2 }",
    "[[joint]]",
    "name = \"j\"",
    "type = \"revolute\"",
    "type = \"spherical\"",
    "type = \"free\"",
    "type = \"fixed\"",
    "parent = \"ground\"",
    "parent = \"b\"",
    "child = \"b\"",
    "axis = [0, 0, 1]",
    "axis = [0, 0, 0]",
    "axis2 = [1, 0, 0]",
    "cut = true",
    "origin = { xyz = [\"L\", 0, 0], rpy = [0, 0, \"pi/2\"] }",
    "origin = { matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }",
    "origin = { axis_angle = { axis = [0, 0, 0], angle = 1 } }",
    "child_origin = { xyz = [1e300, 0, 0] }",
    "limits = { lower = 1, upper = -1 }",
    "limits = { lower = -1, stiffness = 10, decay = 100 }",
    "limits = {}",
    "damping = -1",
    "friction_speed = 0",
    "mimic = { joint = \"j\", multiplier = 2 }",
    "gear = { joint = \"j\", backlash = 0.1, stiffness = 1, decay = 1 }",
    "clearance = { radius = 0.001, stiffness = 1, decay = 1 }",
    "[initial]",
    "q = { j = 1 }",
    "rpy = { j = [0, 0, 1] }",
    "[forces]",
    "j = \"-j - j_dot + sin(t)\"",
    "j = \"zz\"",
    "x = [[[[[[1]]]]]]",
    "\"quoted key\" = 1",
    "a.b = 1",
    "",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1000), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        let text = String::from_utf8_lossy(&bytes);
        let outcome = parses_or_fails_located(&text);
        prop_assert!(outcome.is_ok(), "{:?}", outcome);
    }

    #[test]
    fn toml_shaped_files_never_panic(lines in prop::collection::vec(0..LINES.len(), 0..60)) {
        let text: String = lines.iter().map(|&i| format!("{}\n", LINES[i])).collect();
        let outcome = parses_or_fails_located(&text);
        prop_assert!(outcome.is_ok(), "{:?}\n{text}", outcome);
    }
}

/// Found by the gen-path fuzzing: `child_origin` escaped the magnitude and
/// rotation checks that `origin` has, so a huge or subnormal offset reached
/// the emitter (an `inf` constant) and a non-rotation matrix was accepted.
#[test]
fn child_origin_is_checked_like_origin() {
    let origin = "origin = { xyz = [\"L\", 0, 0], rpy = [0, 0, \"pi/2\"] }";
    for (child_origin, column, message) in [
        ("{ xyz = [1e300, 0, 0] }", 25, "this value is 1.000e300"),
        ("{ xyz = [0, 1e-320, 0] }", 28, "this value is 1.000e-320"),
        (
            "{ matrix = [[1, 1, 0], [0, 1, 0], [0, 0, 1]] }",
            29,
            "`child_origin.matrix` of joint `q2` is not a rotation",
        ),
    ] {
        let text = common::edited(origin, &format!("{origin}\nchild_origin = {child_origin}"));
        common::rejects(&text, 37, column, message);
    }
}
