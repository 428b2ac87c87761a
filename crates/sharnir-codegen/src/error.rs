//! Why a module could not be planned or emitted, by kind, so that a caller
//! can tell a mechanism outside a formalism from an input that overflows
//! and from a bug in sharnir.

use sharnir_mech::formalisms::telegin::TeleginError;
use sharnir_mech::formalisms::vereshchagin::CoupledJoint;
use std::fmt;

/// Why a module could not be planned or emitted.
#[derive(Debug)]
pub enum EmitError {
    /// Telegin's formalism was asked for (`--method telegin`) on a
    /// mechanism outside it. Without `--method` it is only tried where
    /// `telegin::applies`, so this never hides another failure.
    Telegin(TeleginError),
    /// The separate-bodies method was asked for on a mechanism with coupled
    /// joints.
    SeparateBodies(CoupledJoint),
    /// The derivation needs more expression nodes than the algebra core
    /// can name.
    TooLarge,
    /// A constant of the generated code is not finite: the spec's numbers
    /// overflow `f64` when the derivation multiplies them.
    NonFiniteConstant(f64),
    /// The emitted code would read something no generated function has (an
    /// unknown input, a local never defined) or does not parse: a bug in
    /// sharnir, not in the spec.
    Internal(String),
    /// One of the above, inside one generated function.
    InFunction {
        /// The function's name.
        function: String,
        /// What went wrong there.
        error: Box<EmitError>,
    },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot emit module: ")?;
        self.reason(f)
    }
}

impl EmitError {
    /// The message without the leading "cannot emit module".
    fn reason(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::Telegin(e) => write!(f, "{e}"),
            EmitError::SeparateBodies(e) => write!(f, "{e}"),
            EmitError::TooLarge => write!(
                f,
                "the derivation needs more than 2^32 expression nodes, more than the algebra \
                 core can name; split the mechanism"
            ),
            EmitError::NonFiniteConstant(value) => write!(
                f,
                "a constant of the generated code is {value}: the spec's numbers overflow f64 \
                 when the derivation multiplies them (help: bring the values closer to 1 by \
                 choosing other units, or keep the parameters at run time instead of --fold)"
            ),
            EmitError::Internal(what) => write!(f, "{what} (a bug in sharnir)"),
            EmitError::InFunction { function, error } => {
                write!(f, "in `{function}`: ")?;
                error.reason(f)
            }
        }
    }
}

impl std::error::Error for EmitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EmitError::Telegin(e) => Some(e),
            EmitError::SeparateBodies(e) => Some(e),
            EmitError::InFunction { error, .. } => Some(error.as_ref()),
            _ => None,
        }
    }
}

impl From<TeleginError> for EmitError {
    fn from(e: TeleginError) -> EmitError {
        EmitError::Telegin(e)
    }
}

impl From<CoupledJoint> for EmitError {
    fn from(e: CoupledJoint) -> EmitError {
        EmitError::SeparateBodies(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_function_and_keep_the_help() {
        let e = EmitError::InFunction {
            function: "mass_matrix".to_owned(),
            error: Box::new(EmitError::NonFiniteConstant(f64::INFINITY)),
        };
        let text = e.to_string();
        assert!(text.starts_with("cannot emit module: in `mass_matrix`: a constant"));
        assert!(text.contains("help: bring the values closer to 1"));
        assert!(EmitError::Internal("x".to_owned())
            .to_string()
            .ends_with("x (a bug in sharnir)"));
    }
}
