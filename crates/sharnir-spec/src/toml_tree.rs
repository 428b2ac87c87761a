//! TOML read into a tree that keeps every value's and key's span, in
//! document order.
//!
//! The `toml` crate reports spans through `toml::Spanned`, which works for
//! every value and key except tables the document never writes out
//! (intermediate tables of dotted keys or headers such as `[a.b]`). Those are
//! not part of the `.spec` dialect; when only they stop the spanned read, the
//! error says so instead of repeating serde's internal message.

use crate::error::Problem;
use crate::source::Span;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::Spanned;

/// A TOML value and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    pub span: Span,
}

/// The TOML value kinds the format uses (dates are rejected while reading).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    Array(Vec<Node>),
    Table(Table),
}

/// A table's entries in document order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Table {
    pub entries: Vec<Entry>,
}

/// One `key = value` of a table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

impl Value {
    /// The kind of value, with an article, for "expected …, found …".
    pub fn description(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

impl Table {
    /// The entry for `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

/// Reads a whole document; TOML errors are located at the span `toml`
/// reports (or at the start of the file when it reports none).
pub(crate) fn read_document(text: &str) -> Result<Table, Problem> {
    match toml::from_str::<Table>(text) {
        Ok(table) => Ok(table),
        Err(error) => {
            let span = error.span().map_or(Span::default(), |r| {
                Span::new(r.start, r.end.saturating_sub(r.start))
            });
            if toml::from_str::<toml::Table>(text).is_ok() {
                return Err(Problem::new(
                    span,
                    "dotted keys, dotted table headers and dates are not part of the .spec format",
                    "not supported here",
                    "write nested values as inline tables, e.g. `origin = { xyz = [1, 0, 0] }`, \
                     and declare every table header without dots",
                ));
            }
            Err(Problem::new(
                span,
                format!(
                    "TOML syntax error: {}",
                    error
                        .message()
                        .trim()
                        .lines()
                        .collect::<Vec<_>>()
                        .join(": ")
                ),
                "here",
                "the file must be valid TOML; see docs/spec-format.md for the layout",
            ))
        }
    }
}

fn span_of<T>(spanned: &Spanned<T>) -> Span {
    let r = spanned.span();
    Span::new(r.start, r.end.saturating_sub(r.start))
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let span = span_of(&spanned);
        Ok(Node {
            value: spanned.into_inner(),
            span,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Table {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Table, D::Error> {
        deserializer
            .deserialize_map(ValueVisitor)
            .and_then(|value| match value {
                Value::Table(table) => Ok(table),
                other => Err(serde::de::Error::custom(format!(
                    "expected a table, found {}",
                    other.description()
                ))),
            })
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Boolean(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Integer(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Integer)
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let key_span = span_of(&key);
            let value = map.next_value::<Node>()?;
            entries.push(Entry {
                key: key.into_inner(),
                key_span,
                value,
            });
        }
        Ok(Value::Table(Table { entries }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Table {
        read_document(text).unwrap_or_else(|p| panic!("{p:?}"))
    }

    #[test]
    fn keys_and_values_keep_their_spans_in_document_order() {
        let text = "[p]\nb = 1\na = \"x\"\n[[q]]\nc = [1.5, true]\n";
        let table = read(text);
        let keys: Vec<&str> = table.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["p", "q"]);
        let Some(Entry {
            value: Node {
                value: Value::Table(p),
                ..
            },
            ..
        }) = table.get("p")
        else {
            panic!("no table p in {table:?}");
        };
        let inner: Vec<(&str, Span, Span)> = p
            .entries
            .iter()
            .map(|e| (e.key.as_str(), e.key_span, e.value.span))
            .collect();
        assert_eq!(
            inner,
            [
                ("b", Span::new(4, 1), Span::new(8, 1)),
                ("a", Span::new(10, 1), Span::new(14, 3))
            ]
        );
        let Some(Entry {
            value: Node {
                value: Value::Array(q),
                ..
            },
            ..
        }) = table.get("q")
        else {
            panic!("no array q in {table:?}");
        };
        let Some(Node {
            value: Value::Table(element),
            ..
        }) = q.first()
        else {
            panic!("{q:?}")
        };
        let c = element.get("c").map(|e| e.value.clone());
        let expected = Value::Array(vec![
            Node {
                value: Value::Float(1.5),
                span: Span::new(29, 3),
            },
            Node {
                value: Value::Boolean(true),
                span: Span::new(34, 4),
            },
        ]);
        assert_eq!(
            c,
            Some(Node {
                value: expected,
                span: Span::new(28, 11)
            })
        );
    }

    #[test]
    fn syntax_errors_carry_the_toml_span() {
        let problem = read_document("a = 1\nb = \"x\n").err();
        assert_eq!(problem.as_ref().map(|p| p.span.offset), Some(12));
        assert!(problem.is_some_and(|p| p.message.starts_with("TOML syntax error: ")));
    }

    #[test]
    fn implicit_tables_and_dates_get_a_format_message() {
        for text in [
            "[j]\norigin.xyz = [1, 0, 0]\n",
            "[a.b]\nc = 1\n",
            "d = 1979-05-27\n",
        ] {
            let problem = read_document(text).err().map(|p| p.message);
            assert!(
                problem
                    .as_deref()
                    .is_some_and(|m| m.contains("not part of the .spec format")),
                "{text}: {problem:?}"
            );
        }
    }
}
