//! What a file must be before it is read as URDF: UTF-8 text ([`decode`]),
//! well-formed XML, and plain URDF rather than a xacro template (whose
//! macros and properties only ROS's `xacro` tool expands).

use crate::error::Problem;
use crate::UrdfError;
use roxmltree::{Document, Node};
use sharnir_spec::{Source, Span};

/// Turns the bytes of a file into a [`Source`] named `name` (the path as the
/// user knows it). A file that is not UTF-8 is reported at the first byte
/// that is not (`file:line:col`, the line shown with that byte replaced by
/// `�`), with a hint on converting it.
pub fn decode(name: String, bytes: Vec<u8>) -> Result<Source, UrdfError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Source { name, text }),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let byte = e.as_bytes().get(at).copied().unwrap_or_default();
            let source = Source {
                name,
                text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            // The text before `at` is unchanged by the lossy decoding, and
            // the bad sequence became one U+FFFD (three bytes) right there.
            Err(UrdfError::at(
                &source,
                Span::new(at, '\u{FFFD}'.len_utf8()),
                format!("the file is not UTF-8 text: byte 0x{byte:02X}"),
                "not UTF-8",
                "URDF and spec files are read as UTF-8: convert the file (e.g. `iconv -f latin1 -t \
                 utf-8 robot.urdf > robot.utf8.urdf`); other encodings, even if the XML \
                 declaration names them, are not read",
            ))
        }
    }
}

/// The hint of every xacro problem.
pub(crate) const RUN_XACRO: &str =
    "this is a xacro template, not a URDF: expand it first with ROS's xacro \
     (`xacro robot.urdf.xacro > robot.urdf`) and convert the URDF it prints";

/// Parses the XML, reporting a syntax error where it is (with the xacro
/// hint when the error is an undeclared `xacro:` prefix), and refuses a
/// document with xacro elements (`<xacro:macro>`, `<xacro:property>`, …).
/// A `xmlns:xacro` declaration alone is harmless: many URDFs printed by
/// xacro keep it.
pub(crate) fn parse(text: &str) -> Result<Document<'_>, Problem> {
    let document = Document::parse(text).map_err(|e| {
        let position = e.pos();
        let at = Span::new(offset_of(text, position.row, position.col), 0);
        match &e {
            roxmltree::Error::UnknownNamespace(prefix, _) if prefix == "xacro" => Problem::new(
                at,
                "`xacro:` elements in a URDF: this is a xacro file",
                "xacro",
                RUN_XACRO,
            ),
            _ => Problem::new(
                at,
                format!("XML syntax error: {e}"),
                "here",
                "a URDF is an XML document; fix the XML syntax (unclosed tags, quotes, stray `<` \
                 or `&`)",
            ),
        }
    })?;
    if let Some(element) = document.descendants().find(|n| is_xacro(*n)) {
        let name = element.tag_name().name();
        return Err(Problem::new(
            Span::new(element.range().start, 1 + "xacro:".len() + name.len()),
            format!("`<xacro:{name}>` in a URDF: this is a xacro file"),
            "xacro",
            RUN_XACRO,
        ));
    }
    Ok(document)
}

/// Whether an attribute value is a xacro expression (`${length/2}`,
/// `$(arg mass)`), which only xacro evaluates.
pub(crate) fn is_xacro_expression(text: &str) -> bool {
    text.contains("${") || text.contains("$(")
}

/// An element in xacro's namespace (`http://www.ros.org/wiki/xacro`, also
/// written without `www.`).
fn is_xacro(node: Node) -> bool {
    node.is_element()
        && node
            .tag_name()
            .namespace()
            .is_some_and(|ns| ns.trim_end_matches('/').ends_with("ros.org/wiki/xacro"))
}

/// The byte offset of a 1-based row and column (in characters), as
/// roxmltree reports positions.
pub(crate) fn offset_of(text: &str, row: u32, column: u32) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(row.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    let line = text.get(line_start..).unwrap_or_default();
    line_start
        + line
            .char_indices()
            .nth(column.saturating_sub(1) as usize)
            .map_or(line.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_is_located_at_the_first_bad_byte() {
        let mut bytes = b"<robot name=\"r\">\n  <link name=\"caf".to_vec();
        bytes.push(0xE9);
        bytes.extend_from_slice(b"\"/>\n</robot>\n");
        let error = decode("robot.urdf".into(), bytes).expect_err("not UTF-8");
        assert_eq!(error.message(), "the file is not UTF-8 text: byte 0xE9");
        assert_eq!((error.line(), error.column()), (2, 18));
        assert!(error.hint().contains("iconv"), "{}", error.hint());
        assert!(!error.hint().contains("check the path"));
        assert!(
            error.to_string().starts_with("robot.urdf:2:18: "),
            "{error}"
        );
        let fine = decode("robot.urdf".into(), "<robot/>".into()).expect("UTF-8");
        assert_eq!(fine.text, "<robot/>");
    }

    #[test]
    fn xacro_files_are_told_to_run_xacro() {
        let declared = "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n\
                        <xacro:property name=\"l\" value=\"1\"/>\n</robot>";
        let problem = parse(declared).map(|_| ()).expect_err("xacro");
        assert_eq!(
            problem.message,
            "`<xacro:property>` in a URDF: this is a xacro file"
        );
        assert_eq!(problem.span.offset, declared.find("<xacro:").unwrap_or(0));
        assert!(problem.help.contains("xacro robot.urdf.xacro > robot.urdf"));
        let undeclared = "<robot name=\"r\">\n  <xacro:include filename=\"x\"/>\n</robot>";
        let problem = parse(undeclared).map(|_| ()).expect_err("xacro");
        assert!(problem.message.contains("xacro"), "{}", problem.message);
        assert!(problem.help.contains("expand it first"));
        // The namespace declaration alone, as xacro leaves it, is plain URDF.
        let printed = "<robot name=\"r\" xmlns:xacro=\"http://ros.org/wiki/xacro\"><link name=\"a\"/></robot>";
        assert!(parse(printed).is_ok());
    }
}
