//! Diagnostics located in the URDF file.
//!
//! A URDF problem is reported exactly like a spec problem (`file:line:col`,
//! the offending characters underlined, a hint), so the error wraps
//! [`SpecError`], whose rendering is generic over the text it points into.

use sharnir_spec::{Source, Span, SpecError};

/// A problem in a URDF file, at `file.urdf:line:col`, with a hint on how to
/// fix it. Rendered by miette like the spec parser's errors.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic)]
#[error(transparent)]
#[diagnostic(transparent)]
pub struct UrdfError(SpecError);

impl UrdfError {
    /// A diagnostic at `span` (bytes) of the URDF text.
    pub(crate) fn at(
        source: &Source,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> UrdfError {
        UrdfError(SpecError::new(source, span, message, label, help))
    }

    /// What is wrong, without the location prefix.
    pub fn message(&self) -> &str {
        self.0.message()
    }

    /// How to fix it.
    pub fn hint(&self) -> &str {
        self.0.hint()
    }

    /// 1-based line of the problem in the URDF.
    pub fn line(&self) -> usize {
        self.0.line()
    }

    /// 1-based column, in characters, of the problem in the URDF.
    pub fn column(&self) -> usize {
        self.0.column()
    }
}

/// A located problem before the source is attached, so that the reading and
/// checking code does not need to carry the source around.
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

    pub fn into_error(self, source: &Source) -> UrdfError {
        UrdfError::at(source, self.span, self.message, self.label, self.help)
    }
}
