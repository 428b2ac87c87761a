//! Which names emitted code reads: the emitter writes a `let` or a helper
//! only where the code uses it, so that the generated modules need no
//! blanket `allow` of unused variables or dead code.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Calls `visit(name, before, call)` for every identifier in `tokens`,
/// nested groups included: `before` is the punctuation character right
/// before it (`.` for a field, `:` for a path segment), `call` whether a
/// parenthesised group follows it.
pub(crate) fn walk(tokens: &TokenStream, visit: &mut dyn FnMut(&str, Option<char>, bool)) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) => {
                let before = i
                    .checked_sub(1)
                    .and_then(|j| trees.get(j))
                    .and_then(|t| match t {
                        TokenTree::Punct(p) => Some(p.as_char()),
                        _ => None,
                    });
                let call = matches!(
                    trees.get(i + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                );
                visit(&ident.to_string(), before, call);
            }
            TokenTree::Group(group) => walk(&group.stream(), visit),
            _ => {}
        }
    }
}

/// Whether `tokens` reads the variable `name`: the identifier anywhere but
/// as a field (`x.name`) or a path segment (`a::name`).
pub(crate) fn reads(tokens: &TokenStream, name: &str) -> bool {
    let mut found = false;
    walk(tokens, &mut |ident, before, _| {
        if ident == name && !matches!(before, Some('.' | ':')) {
            found = true;
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn variables_not_fields_or_paths() {
        let code = quote!(let a = p.q * qd[1] + core::f64::consts::PI + f(t););
        assert!(reads(&code, "p") && reads(&code, "qd") && reads(&code, "t"));
        assert!(!reads(&code, "q") && !reads(&code, "PI") && !reads(&code, "tau"));
    }
}
