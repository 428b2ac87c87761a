//! Which names emitted code reads: the emitter writes a `let` or a helper
//! only where the code uses it, so that the generated modules need no
//! blanket `allow` of unused variables or dead code.

use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};

/// Which of a few names a piece of emitted code uses, found in one walk
/// of its tokens: each walk clones the whole token tree, and a big
/// function's body is hundreds of thousands of tokens.
pub(crate) struct Usage<'a> {
    names: &'a [&'a str],
    /// Read as a variable: anywhere but as a field (`x.name`) or a path
    /// segment (`a::name`).
    read: Vec<bool>,
    /// Called as a plain function, `name(…)`: read and followed by a
    /// parenthesised group.
    called: Vec<bool>,
}

impl<'a> Usage<'a> {
    /// Nothing used yet of `names`.
    pub(crate) fn new(names: &'a [&'a str]) -> Usage<'a> {
        Usage {
            names,
            read: vec![false; names.len()],
            called: vec![false; names.len()],
        }
    }

    /// How `tokens` uses each of `names`.
    pub(crate) fn of(tokens: &TokenStream, names: &'a [&'a str]) -> Usage<'a> {
        let mut usage = Usage::new(names);
        usage.add(tokens);
        usage
    }

    /// Whether `name` (one of the names asked about) is read as a variable.
    pub(crate) fn reads(&self, name: &str) -> bool {
        self.position(name).is_some_and(|k| self.read[k])
    }

    /// Whether `name` (one of the names asked about) is called as a plain
    /// function.
    pub(crate) fn calls(&self, name: &str) -> bool {
        self.position(name).is_some_and(|k| self.called[k])
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| *n == name)
    }

    /// Notes one identifier: `before` is the punctuation character right
    /// before it (`.` for a field, `:` for a path segment), `call` whether
    /// a parenthesised group follows it.
    pub(crate) fn note(&mut self, ident: &Ident, before: Option<char>, call: bool) {
        if matches!(before, Some('.' | ':')) {
            return;
        }
        if let Some(k) = self.names.iter().position(|n| ident == n) {
            self.mark(k, call);
        }
    }

    /// Notes name `k` read, and called if `call`.
    fn mark(&mut self, k: usize, call: bool) {
        self.read[k] = true;
        self.called[k] |= call;
    }

    /// Notes every identifier of `text`, one statement of the printer's
    /// shapes on one line as [`crate::print::lines`] prints it, as [`Usage::add`]
    /// notes them from the statement's tokens: literals skipped whole, an
    /// identifier after `.` or `:` a field or path segment, one right
    /// before `(` a call.
    pub(crate) fn note_text(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            if b.is_ascii_digit() {
                while bytes.get(i).is_some_and(|&b| word(b) || b == b'.') {
                    i += 1;
                }
            } else if word(b) {
                let start = i;
                while bytes.get(i).is_some_and(|&b| word(b)) {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|k| char::from(bytes[k]));
                if matches!(before, Some('.' | ':')) {
                    continue;
                }
                let name = &text[start..i];
                if let Some(k) = self.names.iter().position(|n| *n == name) {
                    self.mark(k, bytes.get(i) == Some(&b'('));
                }
            } else {
                i += 1;
            }
        }
    }

    /// Notes every identifier of `tokens`, nested groups included.
    pub(crate) fn add(&mut self, tokens: &TokenStream) {
        let mut before: Option<char> = None;
        let mut trees = tokens.clone().into_iter().peekable();
        while let Some(tree) = trees.next() {
            match &tree {
                TokenTree::Ident(ident) => {
                    let call = matches!(
                        trees.peek(),
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                    );
                    self.note(ident, before, call);
                }
                TokenTree::Group(group) => self.add(&group.stream()),
                _ => {}
            }
            before = match tree {
                TokenTree::Punct(p) => Some(p.as_char()),
                _ => None,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn variables_not_fields_or_paths_and_plain_calls() {
        let code = quote!(let a = p.q * qd[1] + core::f64::consts::PI + f(t) + libm::g(x););
        let names = ["p", "qd", "t", "q", "PI", "tau", "f", "g"];
        let usage = Usage::of(&code, &names);
        assert!(usage.reads("p") && usage.reads("qd") && usage.reads("t"));
        assert!(!usage.reads("q") && !usage.reads("PI") && !usage.reads("tau"));
        assert!(
            usage.calls("f") && !usage.calls("t"),
            "f(…) is a call, t an argument"
        );
        assert!(
            !usage.calls("g") && !usage.reads("g"),
            "a path's last segment"
        );
    }
}
