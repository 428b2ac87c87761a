//! Expressions of the spec: a small spanned AST, its parser and a numeric
//! evaluator.
//!
//! The AST deliberately has no algebra: `sharnir-mech` lowers it into the
//! symbolic pool, and the evaluator here exists only to validate values
//! (masses, inertias, rotations) and to report parameter values.

mod eval;
mod jet;
mod lexer;
mod parser;

use crate::source::Span;

pub(crate) use eval::{evaluate, evaluate_parameters};
pub(crate) use jet::{jet, Jet};
pub(crate) use parser::parse_expression;

/// An expression from the spec with the span of its own characters, so that
/// a problem in any sub-expression is reported exactly where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it is written in the source.
    pub span: Span,
}

/// The forms an expression can take: exactly the grammar of the format, so
/// consumers can match exhaustively.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A decimal number (or a plain TOML number).
    Number(f64),
    /// The constant π.
    Pi,
    /// A reference to a parameter by name.
    Parameter(String),
    /// `-a`.
    Neg(Box<Expr>),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`.
    Sub(Box<Expr>, Box<Expr>),
    /// `a * b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a / b`.
    Div(Box<Expr>, Box<Expr>),
    /// `a ^ n` with an integer exponent.
    Pow(Box<Expr>, i32),
    /// `f(a)`.
    Call(Function, Box<Expr>),
}

/// The functions an expression may call; the emitted code has a `libm`
/// counterpart for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// Sine of an angle in radians.
    Sin,
    /// Cosine of an angle in radians.
    Cos,
    /// Non-negative square root.
    Sqrt,
}

impl Function {
    /// Every function, for lookups and hints.
    pub const ALL: [Function; 3] = [Function::Sin, Function::Cos, Function::Sqrt];

    /// The name used in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Function::Sin => "sin",
            Function::Cos => "cos",
            Function::Sqrt => "sqrt",
        }
    }
}

/// Where an expression's text sits in the file, to turn byte offsets inside
/// the string into spans of the file: what the lexer and the parser both
/// place their spans by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// The expression's characters start at this byte offset of the file and
    /// appear there verbatim.
    At(usize),
    /// The string had escapes, so its characters do not map one-to-one onto
    /// the file: every span is the whole string value.
    Within(Span),
}

impl Placement {
    /// The file span of the expression bytes `start..start + len`.
    pub fn span(&self, start: usize, len: usize) -> Span {
        match *self {
            Placement::At(base) => Span::new(base.saturating_add(start), len),
            Placement::Within(span) => span,
        }
    }
}

impl Expr {
    /// A number at `span`, the form a plain TOML number takes.
    pub fn number(value: f64, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Number(value),
            span,
        }
    }

    /// Every parameter reference, in the order written, so that validation
    /// can check names and dependencies without walking the tree itself.
    pub fn parameters(&self) -> Vec<(&str, Span)> {
        let mut found = Vec::new();
        self.collect_parameters(&mut found);
        found
    }

    fn collect_parameters<'a>(&'a self, found: &mut Vec<(&'a str, Span)>) {
        match &self.kind {
            ExprKind::Number(_) | ExprKind::Pi => {}
            ExprKind::Parameter(name) => found.push((name, self.span)),
            ExprKind::Neg(a) | ExprKind::Pow(a, _) | ExprKind::Call(_, a) => {
                a.collect_parameters(found);
            }
            ExprKind::Add(a, b)
            | ExprKind::Sub(a, b)
            | ExprKind::Mul(a, b)
            | ExprKind::Div(a, b) => {
                a.collect_parameters(found);
                b.collect_parameters(found);
            }
        }
    }
}
