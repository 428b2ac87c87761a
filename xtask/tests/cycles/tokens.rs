//! Rust source as the tokens the import check reads: identifiers, string
//! literals (a `#[path]` names a file in one) and punctuation with `::` as
//! one token, each with its line. Comments, characters and lifetimes are
//! left out, so a path in a doc comment or a string imports nothing.

/// What a token is, as far as module paths and `mod` items are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A word: an identifier, a keyword or a number.
    Word,
    /// The contents of a string literal, escapes as written.
    Text,
    /// `::` or one character of punctuation.
    Punct,
}

/// One token and the line it starts on, for the report.
#[derive(Clone, Debug)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// Its text (a string literal's without its quotes).
    pub text: String,
    /// Its line, from 1.
    pub line: usize,
}

impl Token {
    /// Whether this is the punctuation `text`.
    pub fn is_punct(&self, text: &str) -> bool {
        self.kind == Kind::Punct && self.text == text
    }

    /// Whether this is the word `text`.
    pub fn is_word(&self, text: &str) -> bool {
        self.kind == Kind::Word && self.text == text
    }
}

/// Reads a source file's text into tokens; text that is not valid Rust
/// still gives tokens, never an error.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut scanner = Scanner {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        tokens: Vec::new(),
    };
    scanner.run();
    scanner.tokens
}

struct Scanner {
    chars: Vec<char>,
    at: usize,
    line: usize,
    tokens: Vec<Token>,
}

impl Scanner {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.tokens.push(Token { kind, text, line });
    }

    /// Moves on one character, counting lines.
    fn advance(&mut self) {
        if self.peek(0) == Some('\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '/' if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.advance();
                    }
                }
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                '"' => self.string(0),
                '\'' => self.character_or_lifetime(),
                ':' if self.peek(1) == Some(':') => {
                    self.push(Kind::Punct, "::".into(), self.line);
                    self.at += 2;
                }
                c if c.is_alphanumeric() || c == '_' => self.word(),
                c if c.is_whitespace() => self.advance(),
                c => {
                    self.push(Kind::Punct, c.into(), self.line);
                    self.at += 1;
                }
            }
        }
    }

    /// `/* … */`, nested as Rust nests them.
    fn block_comment(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            if c == '/' && self.peek(1) == Some('*') {
                depth += 1;
                self.at += 2;
            } else if c == '*' && self.peek(1) == Some('/') {
                self.at += 2;
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else {
                self.advance();
            }
        }
    }

    /// A word, or the prefix of a raw, byte or C string, a byte character
    /// or a raw identifier.
    fn word(&mut self) {
        let start = self.at;
        let line = self.line;
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
        let word: String = self.chars[start..self.at].iter().collect();
        let hashes = (0..).take_while(|&n| self.peek(n) == Some('#')).count();
        match (word.as_str(), self.peek(hashes)) {
            ("r" | "br" | "cr", Some('"')) => {
                self.at += hashes;
                self.string(hashes);
            }
            ("b" | "c", Some('"')) if hashes == 0 => self.string(0),
            ("b", Some('\'')) if hashes == 0 => self.character_or_lifetime(),
            ("r", _) if hashes == 1 => {
                self.at += 1;
                self.word();
            }
            _ => self.push(Kind::Word, word, line),
        }
    }

    /// A string literal from its opening quote: escaped, or raw with
    /// `hashes` hashes after its closing quote.
    fn string(&mut self, hashes: usize) {
        let line = self.line;
        self.at += 1;
        let start = self.at;
        while let Some(c) = self.peek(0) {
            if hashes == 0 && c == '\\' {
                self.advance();
                self.advance();
            } else if c == '"' && (1..=hashes).all(|n| self.peek(n) == Some('#')) {
                let text = self.chars[start..self.at].iter().collect();
                self.at += 1 + hashes;
                self.push(Kind::Text, text, line);
                return;
            } else {
                self.advance();
            }
        }
    }

    /// A character literal (`'a'`, `'\''`, `'\u{1F600}'`) is skipped; a
    /// lifetime or label leaves its name to be read as a word.
    fn character_or_lifetime(&mut self) {
        if self.peek(1) == Some('\\') {
            self.at += 3;
            while self.peek(0).is_some_and(|c| c != '\'') {
                self.advance();
            }
            self.at += 1;
        } else if self.peek(2) == Some('\'') {
            self.at += 3;
        } else {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        tokenize(text)
            .into_iter()
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn comments_strings_and_characters_hold_no_words() {
        let text = "a // crate::x\n/* super::y /* nested */ */ b \"crate::z\" r#\"q\"# 'c' '\\'' d";
        assert_eq!(words(text), ["a", "b", "d"]);
    }

    #[test]
    fn lifetimes_and_raw_identifiers_are_words() {
        assert_eq!(
            words("fn f<'a>(r#type: &'a u8)"),
            ["fn", "f", "a", "type", "a", "u8"]
        );
    }

    #[test]
    fn lines_are_counted_inside_strings_and_comments() {
        let tokens = tokenize("\"a\nb\" /*\n*/ x");
        assert_eq!(tokens.last().map(|t| t.line), Some(3));
    }
}
