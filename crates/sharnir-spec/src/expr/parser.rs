//! Recursive-descent parser for the expression grammar:
//!
//! ```text
//! sum      := product (('+' | '-') product)*
//! product  := unary (('*' | '/') unary)*
//! unary    := '-' unary | power
//! power    := atom ['^' exponent]
//! exponent := ['-'] integer | '(' ['-'] integer ')'
//! atom     := number | 'pi' | name | function '(' sum ')' | '(' sum ')'
//! ```
//!
//! `^` binds tighter than unary minus, so `-x^2` is `-(x^2)`. Trees are at
//! most [`MAX_DEPTH`] deep, so every later recursive walk is bounded.

use super::lexer::{tokenize, Token, TokenKind};
use super::{Expr, ExprKind, Function, Placement};
use crate::error::Problem;
use crate::source::Span;

/// Deepest expression tree accepted; deeper ones (hundreds of chained
/// terms) are rejected so that no recursive walk can exhaust the stack.
pub(crate) const MAX_DEPTH: usize = 200;

/// Parses `text` (the contents of a TOML string placed as `placement` says).
pub(crate) fn parse_expression(text: &str, placement: Placement) -> Result<Expr, Problem> {
    let tokens = tokenize(text, &placement)?;
    let mut parser = Parser {
        text,
        tokens,
        position: 0,
        placement,
        nesting: 0,
    };
    if parser.peek().kind == TokenKind::End {
        return Err(Problem::new(
            placement.span(0, text.len()),
            "empty expression",
            "expected an expression",
            "write a number or an expression such as `m1 + m2`",
        ));
    }
    let (expr, _) = parser.sum()?;
    let next = parser.peek().clone();
    match next.kind {
        TokenKind::End => Ok(expr),
        TokenKind::Close => Err(parser.problem(
            &next,
            "unmatched `)`",
            "no `(` opens this",
            "remove it or add the missing `(`",
        )),
        _ => Err(parser.problem(
            &next,
            format!("expected an operator, found `{}`", next.text(text)),
            "expected `+ - * / ^` or the end of the expression",
            "write `*` for multiplication: `2 * pi`, not `2 pi`",
        )),
    }
}

/// A parsed sub-expression and the depth of its tree.
type Parsed = (Expr, usize);

struct Parser<'t> {
    text: &'t str,
    tokens: Vec<Token>,
    position: usize,
    placement: Placement,
    /// Open parentheses, calls and unary minus signs being parsed.
    nesting: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        const END: Token = Token {
            kind: TokenKind::End,
            start: 0,
            len: 0,
        };
        self.tokens
            .get(self.position)
            .or(self.tokens.last())
            .unwrap_or(&END)
    }

    fn advance(&mut self) -> Token {
        let token = self.peek().clone();
        if token.kind != TokenKind::End {
            self.position += 1;
        }
        token
    }

    fn span_of(&self, token: &Token) -> Span {
        self.placement.span(token.start, token.len)
    }

    fn problem(
        &self,
        token: &Token,
        message: impl Into<String>,
        label: &str,
        help: &str,
    ) -> Problem {
        Problem::new(self.span_of(token), message, label, help)
    }

    /// Builds a node, refusing trees deeper than [`MAX_DEPTH`].
    fn node(&self, kind: ExprKind, span: Span, children_depth: usize) -> Result<Parsed, Problem> {
        let depth = children_depth + 1;
        if depth > MAX_DEPTH {
            return Err(Problem::new(
                span,
                format!("expression is too deeply nested (more than {MAX_DEPTH} levels)"),
                "too deep",
                "split it into derived parameters in [parameters]",
            ));
        }
        Ok((Expr { kind, span }, depth))
    }

    /// Enters a nested construct, refusing nesting deeper than [`MAX_DEPTH`].
    fn enter(&mut self, token: &Token) -> Result<(), Problem> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(self.problem(
                token,
                format!("expression is too deeply nested (more than {MAX_DEPTH} levels)"),
                "too deep",
                "split it into derived parameters in [parameters]",
            ));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<Parsed, Problem> {
        let (mut left, mut depth) = self.product()?;
        loop {
            let build: fn(Box<Expr>, Box<Expr>) -> ExprKind = match self.peek().kind {
                TokenKind::Plus => ExprKind::Add,
                TokenKind::Minus => ExprKind::Sub,
                _ => return Ok((left, depth)),
            };
            self.advance();
            let (right, right_depth) = self.product()?;
            let span = left.span.to(right.span);
            (left, depth) = self.node(
                build(Box::new(left), Box::new(right)),
                span,
                depth.max(right_depth),
            )?;
        }
    }

    fn product(&mut self) -> Result<Parsed, Problem> {
        let (mut left, mut depth) = self.unary()?;
        loop {
            let build: fn(Box<Expr>, Box<Expr>) -> ExprKind = match self.peek().kind {
                TokenKind::Star => ExprKind::Mul,
                TokenKind::Slash => ExprKind::Div,
                _ => return Ok((left, depth)),
            };
            self.advance();
            let (right, right_depth) = self.unary()?;
            let span = left.span.to(right.span);
            (left, depth) = self.node(
                build(Box::new(left), Box::new(right)),
                span,
                depth.max(right_depth),
            )?;
        }
    }

    fn unary(&mut self) -> Result<Parsed, Problem> {
        if self.peek().kind != TokenKind::Minus {
            return self.power();
        }
        let minus = self.advance();
        self.enter(&minus)?;
        let (operand, depth) = self.unary()?;
        self.nesting -= 1;
        let span = self.span_of(&minus).to(operand.span);
        self.node(ExprKind::Neg(Box::new(operand)), span, depth)
    }

    fn power(&mut self) -> Result<Parsed, Problem> {
        let (base, depth) = self.atom()?;
        if self.peek().kind != TokenKind::Caret {
            return Ok((base, depth));
        }
        self.advance();
        let (exponent, end) = self.exponent()?;
        if self.peek().kind == TokenKind::Caret {
            let caret = self.peek().clone();
            return Err(self.problem(
                &caret,
                "chained `^` is ambiguous",
                "second `^`",
                "add parentheses: `(x^2)^3`",
            ));
        }
        let span = base.span.to(end);
        self.node(ExprKind::Pow(Box::new(base), exponent), span, depth)
    }

    /// An integer exponent, optionally negative and parenthesised; returns it
    /// with the span of its last character.
    fn exponent(&mut self) -> Result<(i32, Span), Problem> {
        let parenthesised = self.peek().kind == TokenKind::Open;
        if parenthesised {
            self.advance();
        }
        let negative = self.peek().kind == TokenKind::Minus;
        if negative {
            self.advance();
        }
        let token = self.advance();
        let TokenKind::Number { integer: true, .. } = token.kind else {
            return Err(self.problem(
                &token,
                format!(
                    "exponent must be an integer, found `{}`",
                    token.text(self.text)
                ),
                "not an integer",
                "exponents are integers such as `2` or `-1`; write sqrt( ) for square roots",
            ));
        };
        let digits = token.text(self.text);
        let magnitude: i32 = digits.parse().map_err(|_| {
            self.problem(
                &token,
                format!("exponent `{digits}` is too large"),
                "too large",
                "use an exponent below 2^31",
            )
        })?;
        let exponent = if negative { -magnitude } else { magnitude };
        let mut end = self.span_of(&token);
        if parenthesised {
            let close = self.advance();
            if close.kind != TokenKind::Close {
                return Err(self.problem(
                    &close,
                    "expected `)` after the exponent",
                    "expected `)`",
                    "write `x^(-1)`",
                ));
            }
            end = self.span_of(&close);
        }
        Ok((exponent, end))
    }

    fn atom(&mut self) -> Result<Parsed, Problem> {
        let token = self.advance();
        let span = self.span_of(&token);
        match token.kind {
            TokenKind::Number { value, .. } => self.node(ExprKind::Number(value), span, 0),
            TokenKind::Ident => self.name(&token),
            TokenKind::Open => {
                self.enter(&token)?;
                let (inner, depth) = self.sum()?;
                self.close(&token)?;
                self.nesting -= 1;
                Ok((
                    Expr {
                        kind: inner.kind,
                        span: span.to(self.previous_span()),
                    },
                    depth,
                ))
            }
            TokenKind::End => Err(self.problem(
                &token,
                "expression ends too early",
                "expected a number, a parameter or `(`",
                "complete the expression",
            )),
            _ => Err(self.problem(
                &token,
                format!(
                    "expected a number, a parameter or `(`, found `{}`",
                    token.text(self.text)
                ),
                "expected an operand",
                "check for a doubled or missing operator",
            )),
        }
    }

    /// `pi`, a function call or a parameter reference.
    fn name(&mut self, token: &Token) -> Result<Parsed, Problem> {
        let name = token.text(self.text);
        let span = self.span_of(token);
        let called = self.peek().kind == TokenKind::Open;
        match (Function::ALL.into_iter().find(|f| f.name() == name), called) {
            (Some(function), true) => {
                let open = self.advance();
                self.enter(&open)?;
                let (argument, depth) = self.sum()?;
                self.close(&open)?;
                self.nesting -= 1;
                let span = span.to(self.previous_span());
                self.node(ExprKind::Call(function, Box::new(argument)), span, depth)
            }
            (Some(_), false) => Err(self.problem(
                token,
                format!("expected `(` after `{name}`"),
                "a function needs an argument in parentheses",
                &format!("write `{name}(x)`"),
            )),
            (None, true) => Err(self.problem(
                token,
                format!("unknown function `{name}`"),
                "not a function",
                "the functions are sin( ), cos( ) and sqrt( ); for a product write `*`",
            )),
            (None, false) if name == "pi" => self.node(ExprKind::Pi, span, 0),
            (None, false) => self.node(ExprKind::Parameter(name.to_owned()), span, 0),
        }
    }

    fn close(&mut self, open: &Token) -> Result<(), Problem> {
        if self.peek().kind == TokenKind::Close {
            self.advance();
            return Ok(());
        }
        Err(self.problem(
            open,
            "unclosed `(`",
            "this `(` is never closed",
            "add the missing `)`",
        ))
    }

    fn previous_span(&self) -> Span {
        let previous = self
            .position
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i));
        previous.map(|t| self.span_of(t)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Expr, Problem> {
        parse_expression(text, Placement::At(0))
    }

    /// A compact rendering of the tree, to compare shapes.
    fn shape(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Number(x) => format!("{x}"),
            ExprKind::Pi => "pi".into(),
            ExprKind::Parameter(p) => p.clone(),
            ExprKind::Neg(a) => format!("(-{})", shape(a)),
            ExprKind::Add(a, b) => format!("({} + {})", shape(a), shape(b)),
            ExprKind::Sub(a, b) => format!("({} - {})", shape(a), shape(b)),
            ExprKind::Mul(a, b) => format!("({} * {})", shape(a), shape(b)),
            ExprKind::Div(a, b) => format!("({} / {})", shape(a), shape(b)),
            ExprKind::Pow(a, n) => format!("({}^{n})", shape(a)),
            ExprKind::Call(f, a) => format!("{}({})", f.name(), shape(a)),
        }
    }

    fn shape_of(text: &str) -> String {
        parse(text)
            .map(|e| shape(&e))
            .unwrap_or_else(|p| format!("error: {}", p.message))
    }

    fn failure(text: &str) -> (usize, String) {
        match parse(text) {
            Ok(e) => (usize::MAX, shape(&e)),
            Err(p) => (p.span.offset, p.message),
        }
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(shape_of("a + b * c"), "(a + (b * c))");
        assert_eq!(shape_of("a - b - c"), "((a - b) - c)");
        assert_eq!(shape_of("a / b / c"), "((a / b) / c)");
        assert_eq!(shape_of("-x^2"), "(-(x^2))");
        assert_eq!(shape_of("x^-1"), "(x^-1)");
        assert_eq!(shape_of("x^(-2)"), "(x^-2)");
        assert_eq!(shape_of("-(a + b) * 2"), "((-(a + b)) * 2)");
        assert_eq!(shape_of("2 * -a"), "(2 * (-a))");
        assert_eq!(
            shape_of("sqrt(L1^2 + L2^2) / 2"),
            "(sqrt(((L1^2) + (L2^2))) / 2)"
        );
        assert_eq!(shape_of("pi/2"), "(pi / 2)");
        assert_eq!(shape_of("(x^2)^3"), "((x^2)^3)");
    }

    #[test]
    fn spans_are_the_characters_of_each_node() {
        let e = parse("m + mx").unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(e.span, Span::new(0, 6));
        assert_eq!(
            e.parameters(),
            vec![("m", Span::new(0, 1)), ("mx", Span::new(4, 2))]
        );
        let e = parse_expression(" (a)", Placement::At(10)).unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(e.span, Span::new(11, 3));
        let e = parse_expression("a + b", Placement::Within(Span::new(3, 9)))
            .unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(
            e.parameters(),
            vec![("a", Span::new(3, 9)), ("b", Span::new(3, 9))]
        );
    }

    #[test]
    fn malformed_expressions_point_at_the_offending_character() {
        assert_eq!(failure("m +"), (3, "expression ends too early".into()));
        assert_eq!(
            failure("2 ** x"),
            (3, "expected a number, a parameter or `(`, found `*`".into())
        );
        assert_eq!(
            failure("2 x"),
            (2, "expected an operator, found `x`".into())
        );
        assert_eq!(failure("(a + b"), (0, "unclosed `(`".into()));
        assert_eq!(failure("a + b)"), (5, "unmatched `)`".into()));
        assert_eq!(
            failure("x^0.5"),
            (2, "exponent must be an integer, found `0.5`".into())
        );
        assert_eq!(
            failure("x^n"),
            (2, "exponent must be an integer, found `n`".into())
        );
        assert_eq!(failure("x^2^3"), (3, "chained `^` is ambiguous".into()));
        assert_eq!(
            failure("x^99999999999"),
            (2, "exponent `99999999999` is too large".into())
        );
        assert_eq!(
            failure("x^(-1"),
            (5, "expected `)` after the exponent".into())
        );
        assert_eq!(failure("tan(x)"), (0, "unknown function `tan`".into()));
        assert_eq!(failure("1 + sin x"), (4, "expected `(` after `sin`".into()));
        assert_eq!(failure("  "), (0, "empty expression".into()));
        assert_eq!(
            failure("+x"),
            (0, "expected a number, a parameter or `(`, found `+`".into())
        );
    }

    #[test]
    fn depth_is_limited_in_both_directions() {
        let nested = format!(
            "{}x{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert!(failure(&nested).1.contains("too deeply nested"));
        let negated = format!("{}x", "-".repeat(MAX_DEPTH + 1));
        assert!(failure(&negated).1.contains("too deeply nested"));
        let chain = vec!["x"; MAX_DEPTH + 2].join(" + ");
        assert!(failure(&chain).1.contains("too deeply nested"));
        let fine = vec!["x"; MAX_DEPTH - 1].join(" + ");
        assert_eq!(failure(&fine).0, usize::MAX);
    }
}
