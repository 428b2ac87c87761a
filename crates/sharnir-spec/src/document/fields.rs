//! Typed access to TOML values: the checks every key of the format shares
//! (allowed keys, required keys, value types, expressions, vectors, axes).

use crate::error::Problem;
use crate::expr::{parse_expression, Expr, Placement};
use crate::source::Span;
use crate::suggest::did_you_mean;
use crate::toml_tree::{Node, Table, Value};

/// A table whose keys have been checked against the allowed ones.
pub(crate) struct Fields<'a> {
    table: &'a Table,
    span: Span,
    what: &'a str,
}

impl<'a> Fields<'a> {
    /// Checks `node` is a table with only `allowed` keys; `what` names it in
    /// messages (`[[body]]`, `origin`, …).
    pub fn of(node: &'a Node, what: &'a str, allowed: &[&str]) -> Result<Fields<'a>, Problem> {
        let Value::Table(table) = &node.value else {
            return Err(wrong_type(node, what, "a table"));
        };
        Fields::new(table, node.span, what, allowed)
    }

    /// Like [`Fields::of`] for a table already unwrapped (the document root).
    pub fn new(
        table: &'a Table,
        span: Span,
        what: &'a str,
        allowed: &[&str],
    ) -> Result<Fields<'a>, Problem> {
        if let Some(entry) = table
            .entries
            .iter()
            .find(|e| !allowed.contains(&e.key.as_str()))
        {
            return Err(Problem::new(
                entry.key_span,
                format!(
                    "unknown key `{}` in {what}{}",
                    entry.key,
                    did_you_mean(&entry.key, allowed.iter().copied())
                ),
                "unknown key",
                format!("the keys of {what} are: {}", allowed.join(", ")),
            ));
        }
        Ok(Fields { table, span, what })
    }

    /// The span of the table itself, where missing keys are reported.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The value of an optional key.
    pub fn optional(&self, key: &str) -> Option<&'a Node> {
        self.table.get(key).map(|e| &e.value)
    }

    /// The value of a required key, or an error at the table.
    pub fn required(&self, key: &str) -> Result<&'a Node, Problem> {
        self.optional(key).ok_or_else(|| {
            Problem::new(
                self.span,
                format!("missing key `{key}` in {}", self.what),
                format!("this table needs `{key}`"),
                format!(
                    "add `{key} = ...` to this {}; see docs/spec-format.md",
                    self.what
                ),
            )
        })
    }

    /// Every entry in document order.
    pub fn entries(&self) -> impl Iterator<Item = &'a crate::toml_tree::Entry> {
        self.table.entries.iter()
    }
}

/// "`what` must be `expected`, found …" at the node.
pub(crate) fn wrong_type(node: &Node, what: &str, expected: &str) -> Problem {
    Problem::new(
        node.span,
        format!(
            "{what} must be {expected}, found {}",
            node.value.description()
        ),
        format!("expected {expected}"),
        "see docs/spec-format.md for the type of each key",
    )
}

/// A boolean value.
pub(crate) fn boolean(node: &Node, what: &str) -> Result<bool, Problem> {
    match &node.value {
        Value::Boolean(b) => Ok(*b),
        _ => Err(wrong_type(node, what, "a boolean (true or false)")),
    }
}

/// A string value.
pub(crate) fn string<'a>(node: &'a Node, what: &str) -> Result<&'a str, Problem> {
    match &node.value {
        Value::String(s) => Ok(s),
        _ => Err(wrong_type(node, what, "a string")),
    }
}

/// An array value with exactly `N` elements.
pub(crate) fn array<'a, const N: usize>(
    node: &'a Node,
    what: &str,
) -> Result<&'a [Node; N], Problem> {
    let Value::Array(items) = &node.value else {
        return Err(wrong_type(node, what, &format!("an array of {N}")));
    };
    items.as_slice().try_into().map_err(|_| {
        Problem::new(
            node.span,
            format!("{what} must have {N} elements, found {}", items.len()),
            format!("expected {N} elements"),
            "see docs/spec-format.md for the shape of each key",
        )
    })
}

/// A plain number (integer or float), as written.
pub(crate) fn number(node: &Node, what: &str) -> Result<f64, Problem> {
    match node.value {
        Value::Integer(i) => Ok(i as f64),
        Value::Float(x) => Ok(x),
        _ => Err(wrong_type(node, what, "a number")),
    }
}

/// Reads expressions out of values, knowing the file text so that every
/// sub-expression gets the span of its own characters.
#[derive(Clone, Copy)]
pub(crate) struct Expressions<'t> {
    pub text: &'t str,
}

impl Expressions<'_> {
    /// A number or an expression string.
    pub fn expr(&self, node: &Node, what: &str) -> Result<Expr, Problem> {
        match &node.value {
            Value::Integer(i) => Ok(Expr::number(*i as f64, node.span)),
            Value::Float(x) => Ok(Expr::number(*x, node.span)),
            Value::String(s) => parse_expression(s, self.placement(node.span, s)),
            _ => Err(wrong_type(node, what, "a number or an expression string")),
        }
    }

    /// `N` numbers or expression strings.
    pub fn exprs<const N: usize>(&self, node: &Node, what: &str) -> Result<[Expr; N], Problem> {
        let items = array::<N>(node, what)?;
        let exprs = items
            .iter()
            .map(|item| self.expr(item, &format!("each element of {what}")))
            .collect::<Result<Vec<_>, _>>()?;
        exprs
            .try_into()
            .map_err(|_| wrong_type(node, what, &format!("an array of {N}")))
    }

    /// Where the characters of the string value `decoded`, written at `span`,
    /// are in the file: verbatim after the opening quotes when the string has
    /// no escapes, otherwise only the whole value can be pointed at.
    fn placement(&self, span: Span, decoded: &str) -> Placement {
        let raw = self.text.get(span.offset..span.end()).unwrap_or_default();
        let delimiter = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
            3
        } else {
            1
        };
        let inner = raw
            .get(delimiter..raw.len().saturating_sub(delimiter))
            .unwrap_or_default();
        let newline = if delimiter == 3 {
            [("\r\n", 2), ("\n", 1)]
                .into_iter()
                .find(|(nl, _)| inner.starts_with(nl))
                .map_or(0, |(_, n)| n)
        } else {
            0
        };
        if inner.get(newline..) == Some(decoded) {
            Placement::At(span.offset + delimiter + newline)
        } else {
            Placement::Within(span)
        }
    }
}

/// Zero vectors in the parent frame, spanned at `span`: the default of
/// optional vectors.
pub(crate) fn zeros(span: Span) -> [Expr; 3] {
    std::array::from_fn(|_| Expr::number(0.0, span))
}

/// A numeric direction, normalised: joint axes and axis–angle axes.
pub(crate) fn unit_axis(node: &Node, what: &str) -> Result<[f64; 3], Problem> {
    let items = array::<3>(node, what)?;
    let mut axis = [0.0; 3];
    for (component, item) in axis.iter_mut().zip(items) {
        *component = match item.value {
            Value::Integer(_) | Value::Float(_) => number(item, what)?,
            _ => {
                return Err(Problem::new(
                    item.span,
                    format!("{what} components must be numbers, found {}", item.value.description()),
                    "expected a number",
                    "axes are plain numbers such as [0, 0, 1]; use the joint's origin rotation for symbolic directions",
                ))
            }
        };
    }
    if axis.iter().any(|a| !a.is_finite()) {
        return Err(Problem::new(
            node.span,
            format!("{what} is not finite"),
            "not finite",
            "give a direction with finite components, e.g. [0, 0, 1]",
        ));
    }
    let largest = axis.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
    if largest == 0.0 {
        return Err(Problem::new(
            node.span,
            format!("{what} is zero"),
            "zero vector",
            "give a non-zero direction, e.g. [0, 0, 1]; it is normalised",
        ));
    }
    let scaled = axis.map(|a| a / largest);
    let length = scaled.iter().map(|a| a * a).sum::<f64>().sqrt();
    Ok(scaled.map(|a| a / length))
}
