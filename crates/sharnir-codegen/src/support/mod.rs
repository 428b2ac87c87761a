//! The support code every module carries at its end — the square root, the
//! sines and cosines, the fused multiply–add, the processor detection of
//! the AVX copies — kept as Rust source files ([`Source`]) and written into
//! the modules verbatim, comments and all.
//!
//! Each file is a module of this crate, compiled in tests only (with its
//! own tests beside it), so that rustfmt formats it, clippy lints it and
//! rustc checks it as the generated crate does; its leading `//!`
//! documentation, `mod` and `use` declarations and `type Real` are the
//! scaffolding of that compilation, never written into a module. Its items
//! are cut out by name ([`item`]): an item is the text from a line at the
//! file's top level after a blank line (its documentation and attributes
//! first) to the next such line, which rustfmt's layout makes exact and
//! the tests check. What a module needs, and so which items it gets, the
//! renderer decides (`render/math.rs`, `render/dispatch.rs`).

use crate::error::EmitError;
use std::sync::OnceLock;

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod double;
#[cfg(test)]
#[allow(clippy::approx_constant)]
mod single;

/// A piece of a support file with the name [`item`] finds it by (`None`
/// for scaffolding).
type Named = (Option<String>, &'static str);

/// A file of support code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `double/mod.rs`: the `f64` modules' `sqrt`, `sin_cos`, `sin`,
    /// `cos`, `fma`, `sin_cos_pair` and `sin_cos_quad` (with its AVX2
    /// routine).
    Double,
    /// `single/mod.rs`: the single-precision twins' `sin_cos`,
    /// `sin_cos_pair`, `sin_cos_quad`, `sin`, `cos` and `fma`.
    Single,
    /// `double/dispatch.rs`: `avx_copies`, `set_avx_copies`, the `avx`
    /// module, `BuildLanes` and the lanes traits of the AVX copies.
    Dispatch,
    /// `double/pairs.rs`: `Pair`, `pair`, `pair_lanes` and the arithmetic
    /// of the lane statements that compute two branches together.
    Pairs,
}

impl Source {
    /// The file's text.
    fn text(self) -> &'static str {
        match self {
            Source::Double => include_str!("double/mod.rs"),
            Source::Single => include_str!("single/mod.rs"),
            Source::Dispatch => include_str!("double/dispatch.rs"),
            Source::Pairs => include_str!("double/pairs.rs"),
        }
    }

    /// The file's items with their names, read once.
    fn items(self) -> &'static [Named] {
        static ITEMS: [OnceLock<Vec<Named>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        ITEMS[self as usize].get_or_init(|| {
            chunks(self.text())
                .into_iter()
                .map(|chunk| (name(chunk), chunk))
                .collect()
        })
    }
}

/// The text of the items of `source` named `name` — a function, a module,
/// a trait, a struct, or `Trait for Type` for an implementation — in the
/// file's order, a blank line between them (a routine written once per
/// `cfg` has each), ending with a newline.
pub(crate) fn item(source: Source, name: &str) -> Result<String, EmitError> {
    let found: Vec<&str> = source
        .items()
        .iter()
        .filter(|(n, _)| n.as_deref() == Some(name))
        .map(|&(_, text)| text)
        .collect();
    if found.is_empty() {
        return Err(EmitError::Internal(format!(
            "the support code {source:?} has no item `{name}`"
        )));
    }
    Ok(format!("{}\n", found.join("\n\n")))
}

/// The top-level pieces of `text`: split before every line that follows a
/// blank line and starts in the first column.
fn chunks(text: &str) -> Vec<&str> {
    let mut starts = vec![0];
    starts.extend(text.match_indices("\n\n").filter_map(|(at, _)| {
        let next = at + 2;
        text[next..]
            .starts_with(|c: char| !c.is_whitespace())
            .then_some(next)
    }));
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| text[w[0]..w[1]].trim_matches('\n'))
        .collect()
}

/// The name [`item`] finds a piece by; `None` for the scaffolding (the
/// `//!` documentation, `mod` and `use` declarations, `type Real`).
fn name(chunk: &str) -> Option<String> {
    if chunk.starts_with("//!") {
        return None;
    }
    let last = |path: &syn::Path| path.segments.last().map(|s| s.ident.to_string());
    match syn::parse_str::<syn::Item>(chunk).ok()? {
        syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
        syn::Item::Mod(m) if m.content.is_some() => Some(m.ident.to_string()),
        syn::Item::Trait(t) => Some(t.ident.to_string()),
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Impl(i) => {
            let trait_name = last(&i.trait_?.1)?;
            let syn::Type::Path(ty) = *i.self_ty else {
                return None;
            };
            Some(format!("{trait_name} for {}", last(&ty.path)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCES: [Source; 4] = [
        Source::Double,
        Source::Single,
        Source::Dispatch,
        Source::Pairs,
    ];

    /// Every piece of every file is one item with a name, or scaffolding:
    /// a split in the wrong place (a blank line inside an item at the first
    /// column) would leave a piece that parses as neither.
    #[test]
    fn every_piece_is_one_named_item_or_scaffolding() {
        for source in SOURCES {
            for (name, chunk) in source.items() {
                if name.is_some() {
                    assert!(!chunk.ends_with('\n') && !chunk.starts_with('\n'));
                    continue;
                }
                let scaffolding = chunk.starts_with("//!")
                    || syn::parse_file(chunk).is_ok_and(|file| {
                        file.items.iter().all(|item| {
                            matches!(item, syn::Item::Use(_) | syn::Item::Type(_))
                                || matches!(item, syn::Item::Mod(m) if m.content.is_none())
                        })
                    });
                assert!(scaffolding, "{source:?}: a piece that is no item:\n{chunk}");
            }
        }
    }

    #[test]
    fn an_item_comes_with_its_documentation_and_every_cfg() {
        let pair = item(Source::Double, "sin_cos_pair").expect("written");
        assert!(
            pair.starts_with("/// Sines and cosines of two angles"),
            "{pair}"
        );
        assert_eq!(pair.matches("pub fn sin_cos_pair(").count(), 2);
        assert!(pair.contains("#[cfg(not(target_arch = \"x86_64\"))]"));
        // Comments inside an item are kept.
        assert!(pair.contains("// SAFETY: SSE2 is part of every x86-64 target"));
        assert!(!pair.contains("sin_cos_pair_by_libm(a: Real"));
        let avx = item(Source::Dispatch, "avx").expect("written");
        assert_eq!(avx.matches("mod avx {").count(), 2);
        let lanes = item(Source::Dispatch, "QuadLanes for Avx2").expect("written");
        assert!(
            lanes.starts_with("#[cfg(all(target_arch = \"x86_64\""),
            "{lanes}"
        );
        assert!(lanes.ends_with("}\n"));
        assert!(item(Source::Single, "sin_cos_pair_by_libm").is_err());
        assert!(item(Source::Double, "Real").is_err());
    }
}
