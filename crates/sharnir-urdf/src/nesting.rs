//! How deeply the XML nests, measured before `roxmltree` parses it.
//!
//! `roxmltree` parses nested elements recursively, so a document nested tens
//! of thousands of elements deep overflows the stack. A URDF nests a few
//! levels (`robot` › `link` › `visual` › `geometry` › `mesh`), so a light scan
//! of the tags refuses anything deeper than [`MAX_DEPTH`] at the tag that
//! goes too deep, before the parser sees it.

use crate::error::Problem;
use sharnir_spec::Span;

/// The deepest element nesting accepted (the root element is level 1).
pub(crate) const MAX_DEPTH: usize = 100;

/// Refuses `text` when its elements nest deeper than [`MAX_DEPTH`].
/// Comments, CDATA sections, processing instructions and declarations are
/// skipped; quoted attribute values may contain `>`. Malformed XML is left
/// to the parser, which reports it better.
pub(crate) fn check(text: &str) -> Result<(), Problem> {
    let bytes = text.as_bytes();
    let mut depth = 0_usize;
    let mut i = 0;
    while let Some(found) = find(bytes, i, b"<") {
        let rest = bytes.get(found..).unwrap_or_default();
        let skip_to = |end: &[u8]| find(bytes, found, end).map_or(bytes.len(), |e| e + end.len());
        if rest.starts_with(b"<!--") {
            i = skip_to(b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = skip_to(b"]]>");
        } else if rest.starts_with(b"<?") {
            i = skip_to(b"?>");
        } else if rest.starts_with(b"<!") {
            i = skip_to(b">");
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = skip_to(b">");
        } else {
            let end = tag_end(bytes, found + 1);
            let self_closing = end > 0 && bytes.get(end - 1) == Some(&b'/');
            if !self_closing {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(found));
                }
            }
            i = end + 1;
        }
    }
    Ok(())
}

/// The index of the `>` that ends the tag whose name starts at `from`
/// (outside quoted attribute values), or the end of the text.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut quote = None;
    for (offset, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'>') => return offset,
            _ => {}
        }
    }
    bytes.len()
}

/// The first occurrence of `needle` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn too_deep(at: usize) -> Problem {
    Problem::new(
        Span::new(at, 1),
        format!("XML nested too deeply: more than {MAX_DEPTH} elements inside one another"),
        "too deep",
        "a URDF nests a few levels (robot › link › visual › geometry › mesh); \
         check for unclosed tags or a file that is not a URDF",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str) -> bool {
        check(text).is_ok()
    }

    #[test]
    fn counts_elements_not_comments_or_quoted_brackets() {
        let nested = |n: usize| format!("{}{}", "<a>".repeat(n), "</a>".repeat(n));
        assert!(depth_ok(&nested(MAX_DEPTH)));
        assert!(!depth_ok(&nested(MAX_DEPTH + 1)));
        // Siblings and self-closing tags do not add up.
        assert!(depth_ok(&"<a></a><b/>".repeat(10 * MAX_DEPTH)));
        assert!(depth_ok(&format!(
            "<r>{}</r>",
            "<!-- <a> --><![CDATA[<a>]]><?p <a> ?><x y=\"<a>\" z='>'/>".repeat(MAX_DEPTH)
        )));
    }

    #[test]
    fn the_error_points_at_the_tag_too_deep() {
        let text = "<a>".repeat(MAX_DEPTH + 5);
        let problem = check(&text).err();
        assert_eq!(problem.map(|p| p.span.offset), Some(3 * MAX_DEPTH));
    }
}
