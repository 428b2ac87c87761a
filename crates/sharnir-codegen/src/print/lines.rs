//! A function's statements as text, formatted apart from the function.
//!
//! A big module is hundreds of thousands of `let` statements. Formatting a
//! function whole means one `syn` syntax tree of all of them, built from
//! their tokens only for `prettyplease` to print them back: most of the
//! time and the peak memory of writing a big module. So each run of
//! statements (a function's body, a part's) goes into the function as one
//! marker statement ([`marker`]) and its statements are formatted here
//! ([`Lines`]), and [`splice`] puts the text in place of the markers once
//! the (now small) function is formatted ([`format_items`]):
//!
//! - a short `let` arrives as its line already ([`Line::Text`], written
//!   straight from its term by `Printer::text`, `text.rs`);
//! - a statement of the few shapes the printer emits (`let t = …;`,
//!   `let (s, c) = sin_cos(…);`, `live[k] = t;`) whose one-line form is
//!   short enough that `prettyplease` keeps it on one line is printed here
//!   directly, with `prettyplease`'s spacing;
//! - any other is formatted by `prettyplease` in a batch of statements, as
//!   the body of a scratch function: a statement of a block is formatted
//!   the same whatever the statements around it, at the same indentation.
//!   Its syntax tree is read from its tokens by [`crate::print::syntax`] where it
//!   can, by `syn`'s parser otherwise.
//!
//! The generated modules are byte-identical to formatting each function
//! whole (`cargo xtask gen --all` in CI checks it on every bundled module).

use crate::error::EmitError;
use crate::print::tokens::Usage;
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use quote::quote;
use std::ops::Range;

/// The longest statement printed on one line here. `prettyplease` breaks
/// a line only past its margin (89 columns), and a function body's
/// statements are indented by 4: 80 leaves room for both.
pub(crate) const LONGEST: usize = 80;

/// How many statements are formatted together: enough that the scratch
/// function costs nothing, few enough that their syntax tree stays small.
const BATCH: usize = 256;

/// The prefix of a marker statement's name.
const MARKER: &str = "__sharnir_lines_";

/// The indentation of a function body's statements, which a batch's
/// statements are formatted at too.
const BODY_INDENT: &str = "    ";

/// One statement for [`Lines::run`]: its line when the printer wrote it
/// already ([`crate::print::printer::Printer::text`]: at most [`LONGEST`] bytes,
/// exactly what [`one_line`] makes of its tokens), its tokens otherwise.
pub(crate) enum Line {
    Text(String),
    Tokens(TokenStream),
}

/// `tokens`, a list of items (the inner attributes of a module first, if
/// any), formatted as Rust source.
pub(crate) fn format_items(tokens: TokenStream) -> Result<String, EmitError> {
    let file: syn::File = syn::parse2(tokens)
        .map_err(|e| EmitError::Internal(format!("generated tokens do not parse: {e}")))?;
    Ok(prettyplease::unparse(&file))
}

#[cfg(test)]
impl Line {
    /// The statement's tokens (a line parsed back), for tests that read
    /// statements as tokens.
    pub(crate) fn to_tokens(&self) -> TokenStream {
        match self {
            Line::Text(text) => text.parse().expect("a printed line parses"),
            Line::Tokens(tokens) => tokens.clone(),
        }
    }
}

/// The statements of one function (its parts included), as text.
#[derive(Default)]
pub(crate) struct Lines {
    /// Statement `k`'s text: its first line without the indentation, and
    /// any further lines with the indentation they have at [`BODY_INDENT`].
    blocks: Vec<String>,
    /// The statements each marker stands for, by marker number.
    runs: Vec<Range<usize>>,
    /// The statements left to `prettyplease`, with their numbers, until
    /// a batch is full.
    pending: Vec<(usize, TokenStream)>,
}

impl Lines {
    /// The marker that stands for `statements` in the function (nothing
    /// when there are none), and the statements kept here as text; what
    /// they read is noted in `usage`.
    pub(crate) fn run(
        &mut self,
        statements: Vec<Line>,
        usage: &mut Usage,
    ) -> Result<TokenStream, EmitError> {
        if statements.is_empty() {
            return Ok(TokenStream::new());
        }
        let start = self.blocks.len();
        for statement in statements {
            match statement {
                Line::Text(text) => {
                    usage.note_text(&text);
                    self.blocks.push(text);
                }
                Line::Tokens(tokens) => self.add(tokens, usage)?,
            }
        }
        self.runs.push(start..self.blocks.len());
        Ok(marker(self.runs.len() - 1))
    }

    /// Keeps `statement` as text, or pending for `prettyplease`.
    fn add(&mut self, statement: TokenStream, usage: &mut Usage) -> Result<(), EmitError> {
        let k = self.blocks.len();
        match one_line(&statement, usage) {
            Some(line) => self.blocks.push(line),
            None => {
                usage.add(&statement);
                self.blocks.push(String::new());
                self.pending.push((k, statement));
                if self.pending.len() >= BATCH {
                    self.format_pending()?;
                }
            }
        }
        Ok(())
    }

    /// Each marker's statements as one text, by marker number: statement
    /// after statement, each first line without indentation.
    pub(crate) fn finish(mut self) -> Result<Vec<String>, EmitError> {
        self.format_pending()?;
        Ok(self
            .runs
            .iter()
            .map(|run| self.blocks[run.clone()].join("\n"))
            .collect())
    }

    /// Formats the pending statements as the body of a scratch function
    /// and cuts its text back into statements: each ends with the first
    /// line that ends with `;` (no statement of the printer has one inside
    /// an expression that `prettyplease` would break).
    fn format_pending(&mut self) -> Result<(), EmitError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let statements = pending
            .iter()
            .map(|(_, statement)| {
                crate::print::syntax::statement(statement).map_or_else(
                    || {
                        syn::parse2(statement.clone()).map_err(|e| {
                            EmitError::Internal(format!("generated tokens do not parse: {e}"))
                        })
                    },
                    Ok,
                )
            })
            .collect::<Result<_, _>>()?;
        let mut scratch: syn::ItemFn = syn::parse_quote!(
            fn scratch() {}
        );
        scratch.block.stmts = statements;
        let text = prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: vec![syn::Item::Fn(scratch)],
        });
        let mut texts: Vec<String> = Vec::with_capacity(pending.len());
        let mut complete = true;
        for line in text.lines().filter(|l| l.starts_with(' ')) {
            match texts.last_mut() {
                Some(block) if !complete => {
                    block.push('\n');
                    block.push_str(line);
                }
                _ => texts.push(line.strip_prefix(BODY_INDENT).unwrap_or(line).to_owned()),
            }
            complete = line.ends_with(';');
        }
        if texts.len() != pending.len() {
            return Err(EmitError::Internal(format!(
                "{} statements formatted as {} blocks",
                pending.len(),
                texts.len()
            )));
        }
        for ((k, _), text) in pending.into_iter().zip(texts) {
            self.blocks[k] = text;
        }
        Ok(())
    }
}

/// `tokens` (one statement) on one line, if it is short and of a known
/// shape; the identifiers it reads are noted in `usage` as it goes (the
/// caller notes them again from the tokens when this gives up).
fn one_line(tokens: &TokenStream, usage: &mut Usage) -> Option<String> {
    let mut line = String::new();
    let mut last = Last::Start;
    print(tokens, &mut line, &mut last, usage, true)?;
    (line.len() <= LONGEST && line.ends_with(';')).then_some(line)
}

/// The statement that stands for run `k` of a function's [`Lines`] until
/// [`splice`] puts its text back.
fn marker(k: usize) -> TokenStream {
    let name = Ident::new(&format!("{MARKER}{k}"), Span::call_site());
    quote!(#name;)
}

/// `formatted` with every marker statement replaced by its statements of
/// `blocks` ([`Lines::finish`]), at the marker's indentation.
pub(crate) fn splice(formatted: &str, blocks: &[String]) -> String {
    let size = blocks.iter().map(String::len).sum::<usize>();
    let mut out = String::with_capacity(formatted.len() + size);
    for text in formatted.split_inclusive('\n') {
        let trimmed = text.trim_start();
        let block = trimmed
            .strip_prefix(MARKER)
            .and_then(|rest| rest.trim_end().strip_suffix(';'))
            .and_then(|k| k.parse::<usize>().ok())
            .and_then(|k| blocks.get(k));
        let Some(block) = block else {
            out.push_str(text);
            continue;
        };
        let indent = &text[..text.len() - trimmed.len()];
        for line in block.split('\n') {
            // A statement's first line has no indentation, its further
            // lines the indentation they have at the body's: both move
            // with the marker's.
            let line = line.strip_prefix(BODY_INDENT).unwrap_or(line);
            out.push_str(indent);
            out.push_str(line);
            out.push('\n');
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
        assert_eq!(line(long_sum(30)), None, "past the margin");
    }

    /// `let x = t0 + t1 + …;` with `n` terms.
    fn long_sum(n: usize) -> TokenStream {
        let sum = (0..n)
            .map(|k| format!("t{k}"))
            .collect::<Vec<_>>()
            .join(" + ");
        format!("let x = {sum};").parse().expect("parses")
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

    proptest::proptest! {
        /// A `let` the printer writes as text is the line its tokens make,
        /// with the same names noted, and a term short enough on one line
        /// (without π) is written as text, so the fast way is the usual one.
        #[test]
        fn printed_text_is_the_line_of_the_printed_tokens(term in crate::test_terms::term()) {
            let locals: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
            let slots: Vec<Option<usize>> = (0..40).map(|i| (i % 3 == 0).then_some(i)).collect();
            let printer = crate::print::printer::Printer { locals: &locals, slots: &slots, lanes: None };
            let names = ["q", "qd", "t", "p", "d", "live", "sin", "cos", "sqrt", "fma", "m1", "t3"];
            let (mut from_tokens, mut from_text) = (Usage::new(&names), Usage::new(&names));
            let value = printer.expr(&term).expect("prints");
            let by_tokens = one_line(&quote!(let x = #value;), &mut from_tokens);
            let by_text = printer
                .text(&term, LONGEST - "let x = ;".len())
                .map(|value| format!("let x = {value};"));
            match (&by_text, &by_tokens) {
                (Some(text), Some(line)) => {
                    proptest::prop_assert_eq!(text, line);
                    from_text.note_text(text);
                    for name in names {
                        proptest::prop_assert_eq!(from_text.reads(name), from_tokens.reads(name), "reads {}", name);
                        proptest::prop_assert_eq!(from_text.calls(name), from_tokens.calls(name), "calls {}", name);
                    }
                }
                (Some(text), None) => proptest::prop_assert!(false, "text {text} but no line"),
                (None, Some(line)) => proptest::prop_assert!(line.contains("PI"), "no text for {line}"),
                (None, None) => {}
            }
        }
    }

    #[test]
    fn statements_formatted_apart_are_the_function_formatted_whole() {
        let first = vec![
            quote!(let a = 1.0;),
            long_sum(40),
            // Broken with its closing parenthesis at the body's indentation.
            quote!(let b = fma(t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7, t8 + t9 + t10 + t11 + t12, t13 + t14 + t15) - t16;),
        ];
        let second = vec![
            quote!(let mut live = [0.0; 3];),
            quote!(live[0] = a;),
            long_sum(3),
            long_sum(30),
        ];
        let whole = format_items(quote! {
            fn f() { #(#first)* g(); }
            fn h() { #(#second)* let c = b; }
        })
        .expect("formats");
        let mut lines = Lines::default();
        let mut usage = Usage::new(&[]);
        let as_lines = |statements: Vec<TokenStream>| -> Vec<Line> {
            statements.into_iter().map(Line::Tokens).collect()
        };
        let mut second = as_lines(second);
        // A line written by the printer goes in as it is.
        second.push(Line::Text("let c = b;".to_owned()));
        let first = lines.run(as_lines(first), &mut usage).expect("formats");
        let second = lines.run(second, &mut usage).expect("formats");
        assert!(lines
            .run(Vec::new(), &mut usage)
            .expect("formats")
            .is_empty());
        let blocks = lines.finish().expect("formats");
        assert_eq!(blocks.len(), 2, "one text per marker");
        assert!(blocks[0].contains("\n    ) - t16;"), "{}", blocks[0]);
        let apart = format_items(quote! {
            fn f() { #first g(); }
            fn h() { #second }
        })
        .expect("formats");
        assert_eq!(splice(&apart, &blocks), whole);
    }

    #[test]
    fn markers_are_replaced_by_their_statements_at_their_indentation() {
        let blocks = [
            "let a = 1.0;".to_owned(),
            "let b = a\n        + a;\nlet c = b;".to_owned(),
        ];
        let formatted =
            "fn f() {\n    __sharnir_lines_1;\n        __sharnir_lines_0;\n    g();\n}\n";
        assert_eq!(
            splice(formatted, &blocks),
            "fn f() {\n    let b = a\n        + a;\n    let c = b;\n        let a = 1.0;\n    g();\n}\n"
        );
        assert_eq!(marker(7).to_string(), "__sharnir_lines_7 ;");
    }
}
