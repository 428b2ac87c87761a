//! The last touch on a module's formatted text, so that it reads as if
//! written by hand: a blank line between top-level items, and each
//! operation count on one line (`prettyplease` breaks a struct literal
//! past its margin into a field per line, nine lines for seven numbers).
//!
//! Both work on `prettyplease`'s output, whose top-level items start at
//! column 0 and whose inner lines are indented, so the text alone says
//! where an item ends. The module stays what `prettyplease` makes of it up
//! to whitespace (a test in `module.rs` holds it to that).

/// `text` with a blank line after every top-level item that ends a line
/// (`}` or `;` at column 0) and is followed by another, and every
/// `OpCount { … }` literal of the form `prettyplease` breaks joined on
/// its first line.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    let mut lines = text.lines().peekable();
    let mut previous_ends_item = false;
    while let Some(line) = lines.next() {
        let starts_item = !line.is_empty()
            && !line.starts_with(char::is_whitespace)
            && !line.starts_with(['}', ')', ']']);
        if previous_ends_item && starts_item {
            out.push('\n');
        }
        let mut joined = line.to_owned();
        if line.ends_with("OpCount {") {
            let mut fields: Vec<(&str, &str)> = Vec::new();
            while let Some(next) = lines.peek().copied() {
                let Some(field) = count_field(next) else {
                    break;
                };
                fields.push((next, field));
                lines.next();
            }
            match lines.peek() {
                Some(close) if !fields.is_empty() && close.trim_start().starts_with('}') => {
                    let close = close.trim_start().trim_start_matches('}');
                    let fields: Vec<&str> = fields.iter().map(|(_, field)| *field).collect();
                    joined = format!("{line} {} }}{close}", fields.join(", "));
                    lines.next();
                }
                _ => {
                    for (original, _) in fields {
                        joined.push('\n');
                        joined.push_str(original);
                    }
                }
            }
        }
        previous_ends_item = !joined.starts_with(char::is_whitespace)
            && !joined.starts_with("//")
            && (joined.ends_with('}') || joined.ends_with(';'));
        out.push_str(&joined);
        out.push('\n');
    }
    out
}

/// `name: number` of a line `    name: number,` (an operation count's
/// field), or `None`.
fn count_field(line: &str) -> Option<&str> {
    let field = line.trim_start().strip_suffix(',')?;
    let (name, value) = field.split_once(": ")?;
    let plain = name.chars().all(|c| c.is_ascii_lowercase())
        && !value.is_empty()
        && value.chars().all(|c| c.is_ascii_digit());
    plain.then_some(field)
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn items_are_set_apart_and_counts_are_one_line() {
        let text = "//! A module.\n\
                    pub const N: usize = 2;\n\
                    /// Its count.\n\
                    pub const OPS_F: OpCount = OpCount {\n    mul: 4,\n    add: 1,\n};\n\
                    pub fn f(x: Real) -> Real {\n    let ops = OpCount {\n        mul: 1,\n    };\n    x\n}\n\
                    #[derive(Clone)]\n\
                    pub struct S;\n";
        let expected = "//! A module.\n\
                        pub const N: usize = 2;\n\n\
                        /// Its count.\n\
                        pub const OPS_F: OpCount = OpCount { mul: 4, add: 1 };\n\n\
                        pub fn f(x: Real) -> Real {\n    let ops = OpCount { mul: 1 };\n    x\n}\n\n\
                        #[derive(Clone)]\n\
                        pub struct S;\n";
        assert_eq!(tidy(text), expected);
        // Idempotent: a tidy text stays as it is.
        assert_eq!(tidy(expected), expected);
    }
}
