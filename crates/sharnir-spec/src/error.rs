//! Diagnostics: one located problem, rendered by miette.
//!
//! The pipeline builds [`Problem`]s, which know where and what but not the
//! file; [`SpecError`] attaches the source so a report handler can show the
//! snippet. The location is also part of the `Display` text, so that any
//! handler (or a plain `{}`) shows `file:line:col`.

use crate::source::{Source, Span};
use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};
use std::fmt;

/// A problem in a spec, located at one span of its source, with a hint on
/// how to fix it.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}: {}", .details.location, .details.message)]
pub struct SpecError {
    /// Boxed so that `Result<_, SpecError>` stays one pointer wide.
    details: Box<Details>,
}

#[derive(Clone, Debug)]
struct Details {
    location: String,
    message: String,
    label: String,
    help: String,
    span: Span,
    line: usize,
    column: usize,
    source_code: NamedSource<String>,
}

impl SpecError {
    /// A diagnostic at `span` of `source`. Out-of-range spans are clamped to
    /// the text, so any span is safe to report.
    pub fn new(
        source: &Source,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> SpecError {
        let span = span.clamped(&source.text);
        let (line, column) = source.line_column(span.offset);
        let details = Details {
            location: format!("{}:{line}:{column}", source.name),
            message: message.into(),
            label: label.into(),
            help: help.into(),
            span,
            line,
            column,
            source_code: NamedSource::new(source.name.clone(), source.text.clone()),
        };
        SpecError {
            details: Box::new(details),
        }
    }

    /// What is wrong, without the location prefix.
    pub fn message(&self) -> &str {
        &self.details.message
    }

    /// The text shown at the underlined span.
    pub fn label(&self) -> &str {
        &self.details.label
    }

    /// How to fix it.
    pub fn hint(&self) -> &str {
        &self.details.help
    }

    /// Where the problem is.
    pub fn span(&self) -> Span {
        self.details.span
    }

    /// 1-based line of the span's start.
    pub fn line(&self) -> usize {
        self.details.line
    }

    /// 1-based column, in characters, of the span's start.
    pub fn column(&self) -> usize {
        self.details.column
    }
}

impl Diagnostic for SpecError {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.details.help.is_empty())
            .then(|| Box::new(&self.details.help) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.details.source_code)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let d = &self.details;
        let label = (!d.label.is_empty()).then(|| d.label.clone());
        let span = LabeledSpan::new_primary_with_span(label, (d.span.offset, d.span.len));
        Some(Box::new(std::iter::once(span)))
    }
}

/// A located problem before the source is attached: what every stage of
/// parsing and validation returns, turned into a [`SpecError`] once at the
/// top.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Problem {
    pub span: Span,
    pub message: String,
    pub label: String,
    pub help: String,
}

impl Problem {
    pub fn new(
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> Problem {
        Problem {
            span,
            message: message.into(),
            label: label.into(),
            help: help.into(),
        }
    }

    pub fn into_error(self, source: &Source) -> SpecError {
        SpecError::new(source, self.span, self.message, self.label, self.help)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SpecError {
        let source = Source {
            name: "dir/arm.spec".into(),
            text: "a = 1\nmass = \"m + mx\"\n".into(),
        };
        SpecError::new(
            &source,
            Span::new(18, 2),
            "unknown parameter `mx`",
            "not declared",
            "declare it",
        )
    }

    #[test]
    fn display_starts_with_the_location() {
        assert_eq!(
            sample().to_string(),
            "dir/arm.spec:2:13: unknown parameter `mx`"
        );
        assert_eq!((sample().line(), sample().column()), (2, 13));
    }

    #[test]
    fn report_shows_location_snippet_and_help() {
        let report = format!("{:?}", miette::Report::from(sample()));
        assert!(report.contains("dir/arm.spec:2:13"), "{report}");
        assert!(report.contains("help"), "{report}");
        assert!(report.contains("not declared"), "{report}");
        assert!(report.contains("mass = \"m + mx\""), "{report}");
    }

    #[test]
    fn spans_outside_the_text_are_clamped() {
        let source = Source {
            name: "x".into(),
            text: "ab".into(),
        };
        let error = SpecError::new(&source, Span::new(10, 5), "m", "", "");
        assert_eq!(error.span(), Span::new(2, 0));
        assert_eq!(error.to_string(), "x:1:3: m");
        let report = format!("{:?}", miette::Report::from(error));
        assert!(report.contains("x:1:3"), "{report}");
    }
}
