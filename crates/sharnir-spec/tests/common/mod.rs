//! The spec the tests mutate, and helpers to parse it.
#![allow(dead_code)]

use sharnir_spec::{parse, Source, Spec, SpecError};

/// A valid two-body arm; the line numbers in the tests refer to it.
pub const BASE: &str = r#"[mechanism]
name = "arm"
description = "test arm"
gravity = [0, 0, "-g"]

[parameters]
g = 9.81
m = 2.0
L = 0.5
I = "m * L^2 / 12"

[[body]]
name = "link1"
mass = "m"
com = ["L / 2", 0, 0]
inertia = [0.01, "I", "I"]

[[body]]
name = "link2"
mass = 1.0
inertia = { xx = 0.01, yy = 0.1, zz = 0.1 }

[[joint]]
name = "q1"
type = "revolute"
parent = "ground"
child = "link1"
axis = [0, 0, 1]

[[joint]]
name = "q2"
type = "prismatic"
parent = "link1"
child = "link2"
axis = [1, 0, 0]
origin = { xyz = ["L", 0, 0], rpy = [0, 0, "pi/2"] }
"#;

pub fn source(text: &str) -> Source {
    Source {
        name: "arm.spec".into(),
        text: text.into(),
    }
}

pub fn spec(text: &str) -> Spec {
    parse(source(text)).unwrap_or_else(|e| panic!("{:?}", miette::Report::from(e)))
}

/// `BASE` with `from` replaced by `to`, checking `from` is there.
pub fn edited(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "`{from}` is not in the base spec");
    BASE.replacen(from, to, 1)
}

pub fn error(text: &str) -> SpecError {
    match parse(source(text)) {
        Ok(spec) => panic!("accepted: {spec:?}"),
        Err(e) => e,
    }
}

/// Asserts the error's position, that its message contains `message`, and
/// that it has a label and a hint.
pub fn rejects(text: &str, line: usize, column: usize, message: &str) -> SpecError {
    let e = error(text);
    let report = format!("{:?}", miette::Report::from(e.clone()));
    assert_eq!(
        (e.line(), e.column()),
        (line, column),
        "position of: {report}"
    );
    assert!(
        e.message().contains(message),
        "`{message}` not in: {report}"
    );
    assert!(
        e.to_string()
            .starts_with(&format!("arm.spec:{line}:{column}: ")),
        "{e}"
    );
    assert!(!e.hint().is_empty(), "no hint: {report}");
    assert!(!e.label().is_empty(), "no label: {report}");
    e
}
