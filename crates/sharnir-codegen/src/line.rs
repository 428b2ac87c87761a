//! Short statements printed on one line without `syn` and `prettyplease`.
//!
//! A big module is hundreds of thousands of `let` statements, and parsing
//! their tokens into a syntax tree only for `prettyplease` to print them
//! back was most of the time spent writing it. A statement of the few
//! shapes the printer emits (`let t = …;`, `let (s, c) = sin_cos(…);`,
//! `live[k] = t;`) whose one-line form is short enough that `prettyplease`
//! keeps it on one line is printed here, with `prettyplease`'s spacing;
//! the function is formatted with a marker statement in its place
//! ([`marker`]), which [`splice`] then replaces. Anything else — a token
//! this printer does not know, a line that might be broken — is left to
//! `prettyplease`. The generated modules are byte-identical either way
//! (`cargo xtask gen --all` in CI checks it on every bundled module).

use crate::tokens::Usage;
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use quote::quote;

/// The longest statement printed here. `prettyplease` breaks a line only
/// past its margin (89 columns), and a function body's statements are
/// indented by 4: 80 leaves room for both.
const LONGEST: usize = 80;

/// The prefix of a marker statement's name.
const MARKER: &str = "__sharnir_line_";

/// `tokens` (one statement) on one line, if it is short and of a known
/// shape; the identifiers it reads are noted in `usage` as it goes (the
/// caller notes them again from the tokens when this gives up).
pub(crate) fn one_line(tokens: &TokenStream, usage: &mut Usage) -> Option<String> {
    let mut line = String::new();
    let mut last = Last::Start;
    print(tokens, &mut line, &mut last, usage, true)?;
    (line.len() <= LONGEST && line.ends_with(';')).then_some(line)
}

/// The statement that stands for line `k` of a function's one-line
/// statements until [`splice`] puts the line back.
pub(crate) fn marker(k: usize) -> TokenStream {
    let name = Ident::new(&format!("{MARKER}{k}"), Span::call_site());
    quote!(#name;)
}

/// `formatted` with every marker statement replaced by its line of
/// `lines`, at the marker's indentation.
pub(crate) fn splice(formatted: &str, lines: &[String]) -> String {
    let mut out = String::with_capacity(formatted.len() + 40 * lines.len());
    for text in formatted.split_inclusive('\n') {
        let trimmed = text.trim_start();
        let line = trimmed
            .strip_prefix(MARKER)
            .and_then(|rest| rest.trim_end().strip_suffix(';'))
            .and_then(|k| k.parse::<usize>().ok())
            .and_then(|k| lines.get(k));
        match line {
            Some(line) => {
                out.push_str(&text[..text.len() - trimmed.len()]);
                out.push_str(line);
                out.push('\n');
            }
            None => out.push_str(text),
        }
    }
    out
}

/// What was printed last, for the space before the next token.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Nothing yet, or an opening bracket.
    Start,
    /// An identifier, a literal or a closing bracket: a value ends there.
    Operand,
    /// A keyword (`let`, `mut`, `as`), which a space follows.
    Keyword,
    /// A binary operator, `=` or `,` with its space after it.
    Spaced,
    /// A prefix minus, or a `.` or `::`: nothing between it and what follows.
    Tight,
}

/// Prints `tokens` into `line`; `None` for anything outside the shapes the
/// printer emits. `top` is true outside every bracket, the only place a
/// `;` may be (last).
fn print(
    tokens: &TokenStream,
    line: &mut String,
    last: &mut Last,
    usage: &mut Usage,
    top: bool,
) -> Option<()> {
    let mut trees = tokens.clone().into_iter().peekable();
    let mut before: Option<char> = None;
    while let Some(tree) = trees.next() {
        if line.len() > LONGEST {
            return None;
        }
        let mut punct = None;
        match &tree {
            TokenTree::Ident(ident) => {
                let call = matches!(
                    trees.peek(),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                );
                usage.note(ident, before, call);
                let text = ident.to_string();
                if matches!(*last, Last::Operand | Last::Keyword) {
                    line.push(' ');
                }
                line.push_str(&text);
                *last = if matches!(text.as_str(), "let" | "mut" | "as") {
                    Last::Keyword
                } else {
                    Last::Operand
                };
            }
            TokenTree::Literal(literal) => {
                if matches!(*last, Last::Operand | Last::Keyword) {
                    line.push(' ');
                }
                line.push_str(&literal.to_string());
                *last = Last::Operand;
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Bracket => ('[', ']'),
                    _ => return None,
                };
                // A call or an index follows its name directly.
                if *last == Last::Keyword {
                    line.push(' ');
                }
                line.push(open);
                *last = Last::Start;
                print(&group.stream(), line, last, usage, false)?;
                line.push(close);
                *last = Last::Operand;
            }
            TokenTree::Punct(p) => {
                let c = p.as_char();
                punct = Some(c);
                match c {
                    '+' | '*' | '/' | '=' => spaced(line, last, c)?,
                    '-' if *last == Last::Operand => spaced(line, last, c)?,
                    '-' => {
                        line.push('-');
                        *last = Last::Tight;
                    }
                    ',' => {
                        line.push_str(", ");
                        *last = Last::Spaced;
                    }
                    '.' => {
                        line.push('.');
                        *last = Last::Tight;
                    }
                    ':' => {
                        line.push(':');
                        *last = Last::Tight;
                    }
                    ';' if top && trees.peek().is_none() => line.push(';'),
                    _ => return None,
                }
                // Only `::` is two characters; every other operator this
                // printer knows stands alone.
                if p.spacing() == proc_macro2::Spacing::Joint && c != ':' {
                    return None;
                }
            }
        }
        before = punct;
    }
    Some(())
}

/// A binary operator (or `=`) with a space on each side, after an operand.
fn spaced(line: &mut String, last: &mut Last, c: char) -> Option<()> {
    if *last != Last::Operand {
        return None;
    }
    line.push(' ');
    line.push(c);
    line.push(' ');
    *last = Last::Spaced;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(tokens: TokenStream) -> Option<String> {
        one_line(&tokens, &mut Usage::new(&[]))
    }

    #[test]
    fn the_printers_shapes_with_prettyplease_spacing() {
        assert_eq!(
            line(quote!(let t5 = -0.5 * (q[1] + p.m1) - -t2 / t3;)).as_deref(),
            Some("let t5 = -0.5 * (q[1] + p.m1) - -t2 / t3;")
        );
        assert_eq!(
            line(quote!(let (s_q1, c_q1) = sin_cos(q[1]);)).as_deref(),
            Some("let (s_q1, c_q1) = sin_cos(q[1]);")
        );
        assert_eq!(
            line(quote!(live[3] = t7 * (core::f64::consts::PI as Real);)).as_deref(),
            Some("live[3] = t7 * (core::f64::consts::PI as Real);")
        );
        assert_eq!(
            line(quote!(let t1 = fma(d.k0, -(t0 + 1.0), t2);)).as_deref(),
            Some("let t1 = fma(d.k0, -(t0 + 1.0), t2);")
        );
    }

    #[test]
    fn what_it_does_not_know_or_might_be_broken_is_left_to_prettyplease() {
        assert_eq!(
            line(quote!(let mut live = [0.0; 12];)),
            None,
            "`;` in brackets"
        );
        assert_eq!(line(quote!(f(d, &mut live);)), None, "`&`");
        assert_eq!(line(quote!(let t0 = a + b)), None, "no `;`");
        let long = (0..30)
            .map(|k| format!("t{k}"))
            .collect::<Vec<_>>()
            .join(" + ");
        let long: TokenStream = format!("let x = {long};").parse().expect("parses");
        assert_eq!(line(long), None, "past the margin");
    }

    #[test]
    fn it_notes_what_it_reads() {
        let names = ["q", "p", "sin_cos", "d"];
        let mut usage = Usage::new(&names);
        let tokens = quote!(let (s, c) = sin_cos(q[0] * p.d););
        assert!(one_line(&tokens, &mut usage).is_some());
        assert!(usage.reads("q") && usage.reads("p") && usage.calls("sin_cos"));
        assert!(!usage.reads("d"), "a field, not the variable");
    }

    #[test]
    fn markers_are_replaced_by_their_lines_at_their_indentation() {
        let lines = ["let a = 1.0;".to_owned(), "let b = a;".to_owned()];
        let formatted = "fn f() {\n    __sharnir_line_1;\n        __sharnir_line_0;\n    g();\n}\n";
        assert_eq!(
            splice(formatted, &lines),
            "fn f() {\n    let b = a;\n        let a = 1.0;\n    g();\n}\n"
        );
        assert_eq!(marker(7).to_string(), "__sharnir_line_7 ;");
    }
}
