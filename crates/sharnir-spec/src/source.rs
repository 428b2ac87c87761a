//! The text being parsed and positions in it.
//!
//! Every name and expression of a [`Spec`](crate::Spec) keeps the byte range
//! it came from, so that errors found anywhere in the pipeline (here or in the
//! mechanism graph) can point back at the user's text.

/// A spec file's text together with the name the user knows it by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The path as the user wrote it; it starts every error message.
    pub name: String,
    /// The whole file.
    pub text: String,
}

impl Source {
    /// A 64-bit FNV-1a digest of the text with line ends normalised to
    /// `\n`: what a generated module's header records, so a reader can
    /// tell which version of the spec a module came from (a checkout with
    /// CRLF line ends gives the same digest).
    pub fn digest(&self) -> u64 {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0100_0000_01b3;
        self.text
            .bytes()
            .filter(|&b| b != b'\r')
            .fold(OFFSET, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(PRIME)
            })
    }
}

/// A byte range in [`Source::text`], so that diagnostics can underline the
/// exact characters a problem comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first character.
    pub offset: usize,
    /// Length in bytes (zero for a position between characters).
    pub len: usize,
}

impl Span {
    /// A span from its byte offset and length.
    pub fn new(offset: usize, len: usize) -> Span {
        Span { offset, len }
    }

    /// The span covering `self`, `other` and everything between them.
    pub fn to(self, other: Span) -> Span {
        let start = self.offset.min(other.offset);
        let end = self.end().max(other.end());
        Span {
            offset: start,
            len: end - start,
        }
    }

    /// One past the last byte.
    pub fn end(self) -> usize {
        self.offset.saturating_add(self.len)
    }

    /// The span shrunk into `text` and widened to character boundaries, so
    /// that a span from elsewhere (or a stale one) can never make slicing or
    /// rendering panic.
    pub(crate) fn clamped(self, text: &str) -> Span {
        let mut start = self.offset.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = self.end().clamp(start, text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        Span {
            offset: start,
            len: end - start,
        }
    }
}

impl Source {
    /// The 1-based line and column (in characters) of a byte offset, the
    /// form editors and terminals understand.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        line_column(&self.text, offset)
    }
}

/// [`Source::line_column`] for a bare text, for messages that mention
/// another line ("first declared on line 10").
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = Span::new(offset, 0).clamped(text).offset;
    let before = text.get(..offset).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before.get(line_start..).unwrap_or_default().chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            name: "t.spec".into(),
            text: text.into(),
        }
    }

    #[test]
    fn line_and_column_count_characters() {
        let s = source("ab\nπx = 1\n");
        assert_eq!(s.line_column(0), (1, 1));
        assert_eq!(s.line_column(3), (2, 1));
        // `x` follows the two-byte `π`: byte 5, character column 2.
        assert_eq!(s.line_column(5), (2, 2));
        assert_eq!(s.line_column(1000), (3, 1));
    }

    #[test]
    fn clamping_respects_character_boundaries() {
        let text = "aπb";
        assert_eq!(Span::new(2, 0).clamped(text), Span::new(1, 2));
        assert_eq!(Span::new(1, 2).clamped(text), Span::new(1, 2));
        assert_eq!(Span::new(0, 2).clamped(text), Span::new(0, 3));
        assert_eq!(Span::new(9, 4).clamped(text), Span::new(4, 0));
    }

    #[test]
    fn joined_spans_cover_both() {
        assert_eq!(Span::new(4, 2).to(Span::new(10, 3)), Span::new(4, 9));
        assert_eq!(Span::new(10, 3).to(Span::new(4, 2)), Span::new(4, 9));
    }

    #[test]
    fn the_digest_is_fnv_1a_and_ignores_carriage_returns() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(source("").digest(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(source("a").digest(), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(source("a\r\nb").digest(), source("a\nb").digest());
        assert_ne!(source("ab").digest(), source("ba").digest());
    }
}
