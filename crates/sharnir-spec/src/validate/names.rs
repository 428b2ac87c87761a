//! Names: Rust identifiers where the generated code uses them, and no
//! duplicates where later stages look names up.

use crate::document::Document;
use crate::error::Problem;
use crate::model::Joint;
use crate::source::{line_column, Span};
use std::collections::HashMap;

/// Rust's strict and reserved keywords (2021 edition and the `gen` of 2024):
/// none can be a module or a field name.
const KEYWORDS: [&str; 52] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Names the expression grammar gives a meaning of its own.
const RESERVED: [&str; 4] = ["pi", "sin", "cos", "sqrt"];

pub(super) fn check(document: &Document, text: &str) -> Result<(), Problem> {
    module_name(&document.name, document.name_span)?;
    for parameter in &document.parameters {
        parameter_name(&parameter.name, parameter.span)?;
    }
    let ground = document.bodies.iter().find(|b| b.name == "ground");
    if let Some(body) = ground {
        return Err(Problem::new(
            body.span,
            "duplicate body name `ground`",
            "`ground` is the implicit fixed body",
            "every spec has the fixed body `ground` already; give this body another name",
        ));
    }
    unique(
        text,
        "body name",
        document.bodies.iter().map(|b| (b.name.as_str(), b.span)),
        "rename one of the bodies",
    )?;
    unique(
        text,
        "joint name",
        document.joints.iter().map(|j| (j.name.as_str(), j.span)),
        "rename one of the joints",
    )?;
    for names in [Joint::velocity_names, Joint::position_names] {
        let coordinates: Vec<(String, Span)> = document
            .joints
            .iter()
            .flat_map(|j| names(j).into_iter().map(|name| (name, j.coordinate_span)))
            .collect();
        unique(
            text,
            "coordinate",
            coordinates
                .iter()
                .map(|(name, span)| (name.as_str(), *span)),
            "a coordinate is named after its joint unless `coordinate = \"...\"` is given \
             (joints with several coordinates add suffixes such as `_x`); rename one of them",
        )?;
    }
    Ok(())
}

/// The mechanism name becomes a module and a file name: a lower snake case
/// identifier.
fn module_name(name: &str, span: Span) -> Result<(), Problem> {
    let lower = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if name == "lib" {
        return Err(Problem::new(
            span,
            "mechanism name `lib` is reserved",
            "the generated crate's root file is `lib.rs`",
            "choose another name, e.g. `lib_arm`",
        ));
    }
    if is_identifier(name) && lower {
        return keyword(name, span, "mechanism name");
    }
    Err(Problem::new(
        span,
        format!("mechanism name `{name}` is not a lower snake case Rust identifier"),
        "used as the generated module's name",
        format!(
            "use lowercase letters, digits and `_`, not starting with a digit, e.g. `{}`",
            snake_case(name, "m")
        ),
    ))
}

/// Parameter names become fields of the generated `Params`.
fn parameter_name(name: &str, span: Span) -> Result<(), Problem> {
    if RESERVED.contains(&name) {
        return Err(Problem::new(
            span,
            format!("parameter name `{name}` is reserved"),
            "means something in expressions",
            format!("`pi`, `sin`, `cos` and `sqrt` are part of the expression language; rename it, e.g. `{name}_`"),
        ));
    }
    if !is_identifier(name) {
        return Err(Problem::new(
            span,
            format!("parameter name `{name}` is not a Rust identifier"),
            "used as a field of the generated `Params`",
            format!(
                "use ASCII letters, digits and `_`, not starting with a digit, e.g. `{}`",
                snake_case(name, "p")
            ),
        ));
    }
    keyword(name, span, "parameter name")
}

fn keyword(name: &str, span: Span, what: &str) -> Result<(), Problem> {
    if KEYWORDS.contains(&name) {
        return Err(Problem::new(
            span,
            format!("{what} `{name}` is a Rust keyword"),
            "cannot be used in the generated code",
            format!("rename it, e.g. `{name}_`"),
        ));
    }
    Ok(())
}

/// `[A-Za-z_][A-Za-z0-9_]*`, but not `_` alone.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && name != "_"
}

/// A lower snake case identifier close to `name`, for hints; `prefix` goes
/// before a leading digit.
fn snake_case(name: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            out.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) || out == "_" {
        out.insert_str(0, &format!("{prefix}_"));
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Rejects the second occurrence of any name, mentioning the first one's line.
fn unique<'a>(
    text: &str,
    what: &str,
    names: impl Iterator<Item = (&'a str, Span)>,
    help: &str,
) -> Result<(), Problem> {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for (name, span) in names {
        if let Some(first) = seen.get(name) {
            let (line, _) = line_column(text, first.offset);
            return Err(Problem::new(
                span,
                format!("duplicate {what} `{name}`"),
                format!("`{name}` is already declared on line {line}"),
                help,
            ));
        }
        seen.insert(name, span);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("m1"));
        assert!(is_identifier("_x"));
        assert!(is_identifier("Ix1"));
        assert!(!is_identifier("_"));
        assert!(!is_identifier("1m"));
        assert!(!is_identifier("m-1"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("μ"));
    }

    #[test]
    fn snake_case_hints() {
        assert_eq!(snake_case("Telegin6", "m"), "telegin6");
        assert_eq!(snake_case("twoLink arm", "m"), "two_link_arm");
        assert_eq!(snake_case("6dof", "m"), "m_6dof");
        assert_eq!(snake_case("Type", "m"), "type_");
    }
}
