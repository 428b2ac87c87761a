//! A spec's text with new mass properties and drive parameters: every other
//! character (comments, layout, the other keys) as it was.
//!
//! The values are found by their spans in the TOML (`toml::Spanned`) and
//! replaced there; a key the spec leaves out (a `com` at the origin, a drive
//! parameter `--drives all` declares) gets a line of its own after the
//! body's `mass` or the joint's `child`, indented as that line. A warning
//! is a `# WARNING: …` line above the table's header.

use serde::Deserialize;
use std::fmt::Write as _;
use std::ops::Range;
use toml::Spanned;

/// A spec body's new values.
pub(super) struct BodyValues {
    /// The body's name.
    pub(super) name: String,
    /// Mass, kg.
    pub(super) mass: f64,
    /// Centre of mass, body frame.
    pub(super) com: [f64; 3],
    /// Inertia about the centre of mass, body axes.
    pub(super) inertia: [[f64; 3]; 3],
    /// What is wrong with the body, if anything.
    pub(super) warning: Option<String>,
}

/// A joint's new drive parameters (those it has).
pub(super) struct JointValues {
    /// The joint's name.
    pub(super) name: String,
    /// One armature for every coordinate, or one per coordinate.
    pub(super) armature: Option<Vec<f64>>,
    /// Viscous damping.
    pub(super) damping: Option<f64>,
    /// Dry friction.
    pub(super) friction: Option<f64>,
    /// What is wrong with the joint's drive parameters, if anything.
    pub(super) warning: Option<String>,
}

/// The keys `--write-spec` rewrites, with their spans.
#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    body: Vec<BodyKeys>,
    #[serde(default)]
    joint: Vec<JointKeys>,
}

#[derive(Deserialize)]
struct BodyKeys {
    name: Spanned<String>,
    mass: Spanned<toml::Value>,
    com: Option<Spanned<toml::Value>>,
    inertia: Spanned<toml::Value>,
}

#[derive(Deserialize)]
struct JointKeys {
    name: Spanned<String>,
    child: Spanned<toml::Value>,
    armature: Option<Spanned<toml::Value>>,
    damping: Option<Spanned<toml::Value>>,
    friction: Option<Spanned<toml::Value>>,
}

/// One change of the text: `remove` bytes at `offset` replaced by `insert`.
struct Edit {
    offset: usize,
    remove: usize,
    insert: String,
}

impl Edit {
    fn replace(span: Range<usize>, insert: String) -> Edit {
        Edit {
            offset: span.start,
            remove: span.end - span.start,
            insert,
        }
    }

    fn insert(offset: usize, insert: String) -> Edit {
        Edit {
            offset,
            remove: 0,
            insert,
        }
    }
}

/// `text` with `header` (comment lines) first and the values of `bodies`
/// and `joints` in place; an error names a body or joint the text does not
/// have, or text that is not TOML.
pub(super) fn rewrite(
    text: &str,
    header: &str,
    bodies: &[BodyValues],
    joints: &[JointValues],
) -> Result<String, String> {
    let document: Document =
        toml::from_str(text).map_err(|e| format!("the spec's TOML cannot be read: {e}"))?;
    let mut edits = vec![Edit::insert(0, header.to_owned())];
    for values in bodies {
        let keys = document
            .body
            .iter()
            .find(|b| *b.name.get_ref() == values.name)
            .ok_or_else(|| format!("no [[body]] named `{}`", values.name))?;
        edits.extend(body_edits(text, keys, values));
    }
    for values in joints {
        let keys = document
            .joint
            .iter()
            .find(|j| *j.name.get_ref() == values.name)
            .ok_or_else(|| format!("no [[joint]] named `{}`", values.name))?;
        edits.extend(joint_edits(text, keys, values));
    }
    edits.sort_by_key(|e| e.offset);
    let mut out = String::with_capacity(text.len() + 1024);
    let mut cursor = 0;
    for edit in edits {
        let kept = text
            .get(cursor..edit.offset)
            .ok_or_else(|| format!("overlapping changes at byte {}", edit.offset))?;
        out.push_str(kept);
        out.push_str(&edit.insert);
        cursor = edit.offset + edit.remove;
    }
    out.push_str(text.get(cursor..).unwrap_or_default());
    Ok(out)
}

fn body_edits(text: &str, keys: &BodyKeys, values: &BodyValues) -> Vec<Edit> {
    let mut edits = Vec::new();
    if let Some(warning) = &values.warning {
        let at = header_line(text, keys.name.span().start, "[[body]]");
        edits.push(Edit::insert(at, comment(warning)));
    }
    edits.push(Edit::replace(keys.mass.span(), number(values.mass)));
    let com = format!("[{}]", values.com.map(number).join(", "));
    match &keys.com {
        Some(span) => edits.push(Edit::replace(span.span(), com)),
        None => edits.push(line_after(text, keys.mass.span().end, "com", &com)),
    }
    edits.push(Edit::replace(
        keys.inertia.span(),
        inertia(keys.inertia.get_ref(), &values.inertia),
    ));
    edits
}

fn joint_edits(text: &str, keys: &JointKeys, values: &JointValues) -> Vec<Edit> {
    let mut edits = Vec::new();
    if let Some(warning) = &values.warning {
        let at = header_line(text, keys.name.span().start, "[[joint]]");
        edits.push(Edit::insert(at, comment(warning)));
    }
    let mut missing = Vec::new();
    if let Some(armature) = &values.armature {
        let array = matches!(
            keys.armature.as_ref().map(Spanned::get_ref),
            Some(toml::Value::Array(_))
        );
        let written = match armature.as_slice() {
            [one] if !array => number(*one),
            each => format!(
                "[{}]",
                each.iter()
                    .map(|a| number(*a))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        match &keys.armature {
            Some(old) => edits.push(Edit::replace(old.span(), written)),
            None => missing.push(("armature", written)),
        }
    }
    for (key, old, value) in [
        ("damping", &keys.damping, values.damping),
        ("friction", &keys.friction, values.friction),
    ] {
        let Some(value) = value else { continue };
        match old {
            Some(old) => edits.push(Edit::replace(old.span(), number(value))),
            None => missing.push((key, number(value))),
        }
    }
    if !missing.is_empty() {
        let end = keys.child.span().end;
        let indent = indentation(text, end);
        let (at, newline) = after_line(text, end);
        let mut lines = String::from(newline);
        for (key, value) in missing {
            let _ = writeln!(lines, "{indent}{key} = {value}");
        }
        edits.push(Edit::insert(at, lines));
    }
    edits
}

/// `inertia` written in the form `old` has: a table stays a table, three
/// values stay three when the products are zero, otherwise six.
fn inertia(old: &toml::Value, i: &[[f64; 3]; 3]) -> String {
    let diagonal = [i[0][0], i[1][1], i[2][2]].map(number);
    let products = [i[0][1], i[0][2], i[1][2]];
    match old {
        toml::Value::Table(_) => {
            let mut entries: Vec<String> = ["xx", "yy", "zz"]
                .iter()
                .zip(&diagonal)
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            for (key, value) in ["xy", "xz", "yz"].iter().zip(products) {
                if value != 0.0 {
                    entries.push(format!("{key} = {}", number(value)));
                }
            }
            format!("{{ {} }}", entries.join(", "))
        }
        toml::Value::Array(items) if items.len() == 3 && products.iter().all(|p| *p == 0.0) => {
            format!("[{}]", diagonal.join(", "))
        }
        _ => format!(
            "[{}, {}]",
            diagonal.join(", "),
            products.map(number).join(", ")
        ),
    }
}

/// `x` to 12 significant digits, as short as that allows: a plain decimal
/// between 1e-4 and 1e9, an exponent otherwise (both TOML numbers).
pub(super) fn number(x: f64) -> String {
    let rounded: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    let magnitude = rounded.abs();
    if rounded == 0.0 {
        "0.0".to_owned()
    } else if (1e-4..1e9).contains(&magnitude) {
        let text = format!("{rounded}");
        if text.contains('.') {
            text
        } else {
            format!("{text}.0")
        }
    } else {
        format!("{rounded:e}")
    }
}

/// `# WARNING: …` lines.
fn comment(warning: &str) -> String {
    warning
        .lines()
        .map(|line| format!("# WARNING: {line}\n"))
        .collect()
}

/// The start of the line of the last `header` (`[[body]]`) before `offset`,
/// or of `offset`'s own line where there is none.
fn header_line(text: &str, offset: usize, header: &str) -> usize {
    let before = text.get(..offset).unwrap_or_default();
    let mut start = 0;
    let mut found = None;
    for line in before.split_inclusive('\n') {
        if line.trim_start().starts_with(header) {
            found = Some(start);
        }
        start += line.len();
    }
    found.unwrap_or_else(|| before.rfind('\n').map_or(0, |i| i + 1))
}

/// The leading white space of the line holding `offset`.
fn indentation(text: &str, offset: usize) -> &str {
    let before = text.get(..offset).unwrap_or_default();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(start..).unwrap_or_default();
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.get(..width).unwrap_or_default()
}

/// The start of the line after the one holding `offset`, and the newline
/// to write first where that line is the file's last and has none.
fn after_line(text: &str, offset: usize) -> (usize, &'static str) {
    match text.get(offset..).and_then(|rest| rest.find('\n')) {
        Some(i) => (offset + i + 1, ""),
        None => (text.len(), "\n"),
    }
}

/// `key = value` on a line of its own after the line holding `offset`.
fn line_after(text: &str, offset: usize, key: &str, value: &str) -> Edit {
    let indent = indentation(text, offset);
    let (at, newline) = after_line(text, offset);
    Edit::insert(at, format!("{newline}{indent}{key} = {value}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"# An arm.
[mechanism]
name = "arm"

[parameters]
m1 = 3.0   # kg

[[body]]
name = "l1"
mass = "m1"   # the motor's mass too
inertia = { xx = 0.03, yy = 0.04, zz = 0.02 }

[[body]]
name = "l2"
mass = 2.0
com = [0.3, 0, 0]
inertia = [0.01, 0.05, 0.05]

[[joint]]
name = "yaw"
type = "revolute"
parent = "ground"
child = "l1"
damping = 0.8

[[joint]]
name = "pitch"
type = "revolute"
parent = "l1"
child = "l2"
armature = [0.25]
"#;

    fn body(name: &str, mass: f64, warning: Option<&str>) -> BodyValues {
        BodyValues {
            name: name.to_owned(),
            mass,
            com: [0.1, 0.0, -0.25],
            inertia: crate::consistency::symmetric([0.5, 0.25, 0.125, 0.0, 0.0, 1e-3]),
            warning: warning.map(str::to_owned),
        }
    }

    #[test]
    fn numbers_have_twelve_significant_digits() {
        assert_eq!(number(1.0), "1.0");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(std::f64::consts::PI), "3.14159265359");
        assert_eq!(number(-2.5e-7), "-2.5e-7");
        assert_eq!(number(1.234_567_890_123_4e12), "1.23456789012e12");
        assert_eq!(number(0.0), "0.0");
        for x in [number(-2.5e-7), number(1e20), number(0.001)] {
            assert!(
                toml::from_str::<toml::Table>(&format!("x = {x}")).is_ok(),
                "{x}"
            );
        }
    }

    /// Values replaced where they are, missing keys added, every other line
    /// kept, the warning above the body's header.
    #[test]
    fn values_are_replaced_in_place() {
        let bodies = [
            body("l1", 3.5, None),
            body("l2", -1.0, Some("body `l2`: mass -1 is not positive")),
        ];
        let joints = [
            JointValues {
                name: "yaw".to_owned(),
                armature: Some(vec![0.5]),
                damping: Some(0.75),
                friction: Some(0.0),
                warning: None,
            },
            JointValues {
                name: "pitch".to_owned(),
                armature: Some(vec![0.3]),
                damping: None,
                friction: None,
                warning: None,
            },
        ];
        let out = rewrite(SPEC, "# identified\n", &bodies, &joints).expect("rewrites");
        assert!(out.starts_with("# identified\n# An arm.\n"), "{out}");
        assert!(out.contains("m1 = 3.0   # kg"), "{out}");
        assert!(out.contains("mass = 3.5   # the motor's mass too\ncom = [0.1, 0.0, -0.25]\n"));
        assert!(out.contains("inertia = { xx = 0.5, yy = 0.25, zz = 0.125, yz = 0.001 }"));
        assert!(out.contains(
            "# WARNING: body `l2`: mass -1 is not positive\n[[body]]\nname = \"l2\"\nmass = -1.0\n"
        ));
        assert!(
            out.contains("inertia = [0.5, 0.25, 0.125, 0.0, 0.0, 0.001]"),
            "{out}"
        );
        assert!(
            out.contains("child = \"l1\"\narmature = 0.5\nfriction = 0.0\ndamping = 0.75\n"),
            "{out}"
        );
        assert!(out.contains("armature = [0.3]\n"), "{out}");
        let table: toml::Table = toml::from_str(&out).expect("TOML");
        assert_eq!(table["body"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn an_unknown_body_is_an_error() {
        let error = rewrite(SPEC, "", &[body("l9", 1.0, None)], &[]);
        assert!(error.is_err_and(|e| e.contains("l9")));
    }
}
