//! Splits an expression string into tokens with their byte ranges.

use super::Placement;
use crate::error::Problem;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TokenKind {
    /// A decimal number; `integer` tells whether it was written with digits
    /// only (the only form allowed as an exponent).
    Number {
        value: f64,
        integer: bool,
    },
    Ident,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Open,
    Close,
    End,
}

/// A token and where it is in the expression text.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub len: usize,
}

impl Token {
    /// The token's characters, for messages.
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.start + self.len)
            .unwrap_or_default()
    }
}

/// The tokens of `text`, always ending with [`TokenKind::End`].
pub(super) fn tokenize(text: &str, placement: &Placement) -> Result<Vec<Token>, Problem> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        let single = match c {
            '+' => Some(TokenKind::Plus),
            '-' => Some(TokenKind::Minus),
            '*' => Some(TokenKind::Star),
            '/' => Some(TokenKind::Slash),
            '^' => Some(TokenKind::Caret),
            '(' => Some(TokenKind::Open),
            ')' => Some(TokenKind::Close),
            _ => None,
        };
        if let Some(kind) = single {
            chars.next();
            tokens.push(Token {
                kind,
                start,
                len: 1,
            });
        } else if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() || c == '.' {
            let len = number_length(text.get(start..).unwrap_or_default());
            let literal = text.get(start..start + len).unwrap_or_default();
            tokens.push(number_token(literal, start, placement)?);
            while chars.peek().is_some_and(|&(i, _)| i < start + len) {
                chars.next();
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut len = 0;
            while let Some(&(_, c)) = chars
                .peek()
                .filter(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            {
                len += c.len_utf8();
                chars.next();
            }
            tokens.push(Token {
                kind: TokenKind::Ident,
                start,
                len,
            });
        } else {
            return Err(Problem::new(
                placement.span(start, c.len_utf8()),
                format!("unexpected character `{c}` in expression"),
                "not part of an expression",
                "expressions are made of numbers, parameter names, `pi`, `+ - * / ^`, parentheses \
                 and sin( ), cos( ), sqrt( )",
            ));
        }
    }
    tokens.push(Token {
        kind: TokenKind::End,
        start: text.len(),
        len: 0,
    });
    Ok(tokens)
}

/// Length of the decimal number at the start of `text`:
/// `digits [. digits] [e [+-] digits]`, where either side of the point may be
/// empty but not both.
fn number_length(text: &str) -> usize {
    let bytes = text.as_bytes();
    let digits_from = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut end = digits_from(0);
    if bytes.get(end) == Some(&b'.') {
        end = digits_from(end + 1);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        let exponent_end = digits_from(end + 1 + sign);
        if exponent_end > end + 1 + sign {
            end = exponent_end;
        }
    }
    end
}

fn number_token(literal: &str, start: usize, placement: &Placement) -> Result<Token, Problem> {
    let span = placement.span(start, literal.len());
    let value: f64 = literal.parse().map_err(|_| {
        Problem::new(
            span,
            format!("malformed number `{literal}`"),
            "not a number",
            "write numbers like `2`, `0.5` or `1e-3`",
        )
    })?;
    if !value.is_finite() {
        return Err(Problem::new(
            span,
            format!("number `{literal}` is too large"),
            "overflows a 64-bit float",
            "use a number below 1.7e308",
        ));
    }
    let integer = literal.bytes().all(|b| b.is_ascii_digit());
    Ok(Token {
        kind: TokenKind::Number { value, integer },
        start,
        len: literal.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        tokenize(text, &Placement::At(0))
            .map(|t| t.into_iter().map(|t| t.kind).collect())
            .unwrap_or_default()
    }

    #[test]
    fn numbers_in_all_written_forms() {
        let number = |value, integer| TokenKind::Number { value, integer };
        assert_eq!(kinds("12"), vec![number(12.0, true), TokenKind::End]);
        assert_eq!(kinds("0.5"), vec![number(0.5, false), TokenKind::End]);
        assert_eq!(kinds(".25"), vec![number(0.25, false), TokenKind::End]);
        assert_eq!(kinds("1e-3"), vec![number(1e-3, false), TokenKind::End]);
        assert_eq!(kinds("2E+2"), vec![number(200.0, false), TokenKind::End]);
    }

    #[test]
    fn an_exponent_marker_without_digits_is_not_part_of_the_number() {
        assert_eq!(
            kinds("2e"),
            vec![
                TokenKind::Number {
                    value: 2.0,
                    integer: true
                },
                TokenKind::Ident,
                TokenKind::End
            ]
        );
    }

    #[test]
    fn token_ranges_are_byte_ranges() {
        let tokens = tokenize("a1 +\tsin(x)", &Placement::At(0)).unwrap_or_default();
        let ranges: Vec<(usize, usize)> = tokens.iter().map(|t| (t.start, t.len)).collect();
        assert_eq!(
            ranges,
            vec![(0, 2), (3, 1), (5, 3), (8, 1), (9, 1), (10, 1), (11, 0)]
        );
    }

    #[test]
    fn stray_characters_are_reported_where_they_are() {
        let problem = tokenize("m # 2", &Placement::At(100)).err();
        assert_eq!(
            problem.map(|p| (p.span.offset, p.message)),
            Some((102, "unexpected character `#` in expression".into()))
        );
        let problem = tokenize("1e999", &Placement::At(0)).err();
        assert_eq!(
            problem.map(|p| p.message),
            Some("number `1e999` is too large".into())
        );
        let problem = tokenize(".", &Placement::At(0)).err();
        assert_eq!(
            problem.map(|p| p.message),
            Some("malformed number `.`".into())
        );
    }
}
