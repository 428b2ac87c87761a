//! Printing: lowered terms into formatted Rust text. Reads no plan, so
//! planning and rendering both stand on it.
//!
//! - `printer`: terms → Rust expressions with minimal parentheses, and the
//!   `OpCount` literal;
//! - `text`: a short statement's line straight from its term;
//! - `syntax`: the printer's statements as `syn` trees without `syn`'s
//!   parser;
//! - `lines`: a function's statements formatted apart from it, and
//!   `format_items`;
//! - `layout`: the module's last touch (a blank line between items,
//!   operation counts on one line);
//! - `tokens`: which names emitted code reads.

pub(crate) mod layout;
pub(crate) mod lines;
pub(crate) mod printer;
pub(crate) mod syntax;
pub(crate) mod text;
pub(crate) mod tokens;
