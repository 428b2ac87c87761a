//! What one source file says about modules: the files it declares
//! (`mod name;`, with its `#[path]`), the modules it writes inline
//! (`mod tests { … }`) and every path it names from `crate::` or
//! `super::`, in a `use` or in code, with the line that names it.

use super::tokens::{Kind, Token};

/// A `mod name;` item: a module in a file of its own.
#[derive(Debug)]
pub struct Declaration {
    /// The inline modules around the item (empty at the file's top level).
    pub inside: Vec<String>,
    /// The module's name.
    pub name: String,
    /// The file a `#[path]` attribute names, as written.
    pub path: Option<String>,
}

/// A path from `crate` or `super`: what makes a file depend on another.
#[derive(Debug)]
pub struct Reference {
    /// The inline modules around the path, which `super` steps out of.
    pub inside: Vec<String>,
    /// Its segments from the anchor (`crate`, `super`, …) on, a `use`
    /// group spread into one path per member.
    pub segments: Vec<String>,
    /// Where it stands.
    pub line: usize,
}

/// The module items and paths of one file.
#[derive(Debug, Default)]
pub struct Outline {
    /// Modules in files of their own.
    pub declarations: Vec<Declaration>,
    /// Inline modules, each as its path inside the file.
    pub inline: Vec<Vec<String>>,
    /// Paths from `crate` or `super`.
    pub references: Vec<Reference>,
}

/// Reads the module items and paths of a file's tokens.
pub fn outline(tokens: &[Token]) -> Outline {
    let mut outline = Outline::default();
    // The inline modules open here, each with the brace depth inside it.
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut path_attribute = None;
    let mut at = 0;
    while let Some(token) = tokens.get(at) {
        let inside = || {
            open.iter()
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        if token.is_punct("{") {
            depth += 1;
            path_attribute = None;
        } else if token.is_punct("}") {
            if open.last().is_some_and(|&(_, inner)| inner == depth) {
                open.pop();
            }
            depth = depth.saturating_sub(1);
            path_attribute = None;
        } else if token.is_punct(";") {
            path_attribute = None;
        } else if let Some(file) = path_attribute_at(tokens, at) {
            path_attribute = Some(file);
            at += 5;
            continue;
        } else if let Some((name, after)) = module_item(tokens, at) {
            let end = tokens.get(after);
            if end.is_some_and(|t| t.is_punct(";")) {
                outline.declarations.push(Declaration {
                    inside: inside(),
                    name,
                    path: path_attribute.take(),
                });
            } else if end.is_some_and(|t| t.is_punct("{")) {
                let mut path = inside();
                path.push(name.clone());
                outline.inline.push(path);
                depth += 1;
                open.push((name, depth));
                path_attribute = None;
            }
            at = after + 1;
            continue;
        } else if starts_path(tokens, at) {
            let mut paths = Vec::new();
            let end = path_tree(tokens, at, Vec::new(), &mut paths);
            let inside = inside();
            outline
                .references
                .extend(paths.into_iter().map(|segments| Reference {
                    inside: inside.clone(),
                    segments,
                    line: token.line,
                }));
            at = end;
            continue;
        }
        at += 1;
    }
    outline
}

/// `mod name` at `at`: the name (`$name` in a macro's template, whose
/// expansions are inline modules here) and where the token after it is.
fn module_item(tokens: &[Token], at: usize) -> Option<(String, usize)> {
    if !tokens[at].is_word("mod") {
        return None;
    }
    match (tokens.get(at + 1), tokens.get(at + 2)) {
        (Some(name), _) if name.kind == Kind::Word => Some((name.text.clone(), at + 2)),
        (Some(dollar), Some(name)) if dollar.is_punct("$") && name.kind == Kind::Word => {
            Some((format!("${}", name.text), at + 3))
        }
        _ => None,
    }
}

/// `#[path = "file"]` at `at`: the file it names.
fn path_attribute_at(tokens: &[Token], at: usize) -> Option<String> {
    let window = tokens.get(at..at + 5)?;
    let shape = window[0].is_punct("#")
        && window[1].is_punct("[")
        && window[2].is_word("path")
        && window[3].is_punct("=")
        && window[4].kind == Kind::Text;
    shape.then(|| window[4].text.clone())
}

/// Whether a path from `crate` or `super` starts at `at`: not `$crate`
/// (a macro's), nor a visibility's `pub(in crate::…)`.
fn starts_path(tokens: &[Token], at: usize) -> bool {
    let anchor = tokens[at].is_word("crate") || tokens[at].is_word("super");
    let followed = tokens.get(at + 1).is_some_and(|t| t.is_punct("::"));
    let before = at.checked_sub(1).and_then(|b| tokens.get(b));
    let free = !before.is_some_and(|t| t.is_punct("$") || t.is_punct("::") || t.is_word("in"));
    anchor && followed && free
}

/// Reads the path (or `use` tree) at `at` after the segments `prefix`,
/// adds every path it names to `paths` and returns where it ends. A path
/// ends where its segments do: at generic arguments, a call, `;`, ….
fn path_tree(
    tokens: &[Token],
    mut at: usize,
    mut prefix: Vec<String>,
    paths: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(at) {
            Some(t) if t.is_punct("{") => return group(tokens, at + 1, &prefix, paths),
            Some(t) if t.kind == Kind::Word => {
                if t.text != "self" || prefix.is_empty() {
                    prefix.push(t.text.clone());
                }
                at += 1;
            }
            _ => break,
        }
        match (tokens.get(at), tokens.get(at + 1)) {
            (Some(colons), Some(next)) if colons.is_punct("::") && !next.is_punct("<") => at += 1,
            _ => break,
        }
    }
    paths.push(prefix);
    match tokens.get(at) {
        Some(t) if t.is_word("as") => at + 2,
        _ => at,
    }
}

/// The members of a `use` group from just after its `{`, each a path
/// after `prefix`; returns where the group ends.
fn group(
    tokens: &[Token],
    mut at: usize,
    prefix: &[String],
    paths: &mut Vec<Vec<String>>,
) -> usize {
    while let Some(token) = tokens.get(at) {
        if token.is_punct("}") {
            return at + 1;
        } else if token.kind == Kind::Word || token.is_punct("{") {
            at = path_tree(tokens, at, prefix.to_vec(), paths);
        } else {
            if token.is_punct("*") {
                paths.push(prefix.to_vec());
            }
            at += 1;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        outline(&tokenize(text))
            .references
            .iter()
            .map(|r| format!("{}@{}", r.segments.join("::"), r.inside.join("::")))
            .collect()
    }

    #[test]
    fn use_trees_spread_into_paths() {
        let text = "use crate::a::{b::{C, self}, d as e, *};\nuse super::super::f;";
        assert_eq!(
            paths(text),
            [
                "crate::a::b::C@",
                "crate::a::b@",
                "crate::a::d@",
                "crate::a@",
                "super::super::f@"
            ]
        );
    }

    #[test]
    fn paths_in_code_stop_at_their_last_segment() {
        let text =
            "fn f() { crate::a::g::<T>(crate::b::H { x }); pub(in crate::c) struct S; $crate::d }";
        assert_eq!(paths(text), ["crate::a::g@", "crate::b::H@"]);
    }

    #[test]
    fn inline_modules_hold_their_paths_and_declarations() {
        let text = "mod a { #[path = \"x.rs\"] mod b; use super::c; }\nmod d;\nuse super::e;\n\
                    macro_rules! m { ($n:ident) => { mod $n { use super::f; } } }";
        let found = outline(&tokenize(text));
        assert_eq!(paths(text), ["super::c@a", "super::e@", "super::f@$n"]);
        assert_eq!(
            found.inline,
            [vec!["a".to_string()], vec!["$n".to_string()]]
        );
        let declared: Vec<_> = found
            .declarations
            .iter()
            .map(|d| (d.inside.join("::"), d.name.as_str(), d.path.as_deref()))
            .collect();
        assert_eq!(
            declared,
            [("a".into(), "b", Some("x.rs")), (String::new(), "d", None)]
        );
    }
}
