//! The printer's statements as `syn` syntax trees, read from their tokens
//! without `syn`'s general parser.
//!
//! A long statement ([`crate::print::lines`]) is formatted by `prettyplease`,
//! which prints a syntax tree. Building that tree with `syn`'s parser was
//! four fifths of formatting: the parser is written for all of Rust, and
//! tries many shapes at every token. The printer emits few shapes (see
//! [`crate::print::printer`]): `let name = expression;` and `place = expression;`,
//! where an expression is made of names, literals, `-`, the four binary
//! operators, parentheses, calls, indexing and named fields. [`statement`]
//! reads exactly those, by precedence climbing, and gives up (`None`) on
//! anything else, which then goes to `syn`'s parser.
//!
//! The tree must be the one `syn` would build, since `prettyplease` breaks
//! lines by the tree's structure; the tests compare the two formatted
//! texts on the printer's statements.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{
    BinOp, Expr, ExprBinary, ExprCall, ExprField, ExprIndex, ExprLit, ExprParen, ExprPath,
    ExprUnary, Local, LocalInit, Member, Pat, PatIdent, Stmt, UnOp,
};

/// `tokens` as the statement `syn` would parse, if it is one of the shapes
/// the printer emits; `None` otherwise.
pub(crate) fn statement(tokens: &TokenStream) -> Option<Stmt> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let (last, trees) = trees.split_last()?;
    if !is_punct(last, ';') {
        return None;
    }
    let mut reader = Reader { trees, at: 0 };
    let statement = if reader.keyword("let") {
        let TokenTree::Ident(name) = reader.next()? else {
            return None;
        };
        if name == "mut" || !reader.punct('=') {
            return None;
        }
        let value = reader.expression()?;
        Stmt::Local(Local {
            attrs: Vec::new(),
            let_token: Default::default(),
            pat: Pat::Ident(PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: name.clone(),
                subpat: None,
            }),
            init: Some(LocalInit {
                eq_token: Default::default(),
                expr: Box::new(value),
                diverge: None,
            }),
            semi_token: Default::default(),
        })
    } else {
        let place = reader.postfix()?;
        if !reader.punct('=') {
            return None;
        }
        let value = reader.expression()?;
        let assign = Expr::Assign(syn::ExprAssign {
            attrs: Vec::new(),
            left: Box::new(place),
            eq_token: Default::default(),
            right: Box::new(value),
        });
        Stmt::Expr(assign, Some(Default::default()))
    };
    reader.done().then_some(statement)
}

/// How tightly a binary operator binds; a level's right operand is read
/// at the next level, which makes the operators left-associative.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Level {
    Sum,
    Product,
    Operand,
}

/// A cursor over the token trees of one bracket level.
struct Reader<'a> {
    trees: &'a [TokenTree],
    at: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Option<&'a TokenTree> {
        let tree = self.trees.get(self.at)?;
        self.at += 1;
        Some(tree)
    }

    fn done(&self) -> bool {
        self.at == self.trees.len()
    }

    /// Takes the identifier `word` if it comes next.
    fn keyword(&mut self, word: &str) -> bool {
        let found = matches!(self.trees.get(self.at), Some(TokenTree::Ident(i)) if i == word);
        self.at += usize::from(found);
        found
    }

    /// Takes the lone punctuation `c` if it comes next.
    fn punct(&mut self, c: char) -> bool {
        let found = self.trees.get(self.at).is_some_and(|t| is_punct(t, c));
        self.at += usize::from(found);
        found
    }

    fn expression(&mut self) -> Option<Expr> {
        self.binary(Level::Sum)
    }

    /// Operands joined by the operators of `level` and tighter.
    fn binary(&mut self, level: Level) -> Option<Expr> {
        if level == Level::Operand {
            return self.unary();
        }
        let tighter = if level == Level::Sum {
            Level::Product
        } else {
            Level::Operand
        };
        let mut left = self.binary(tighter)?;
        loop {
            let op = match (self.trees.get(self.at), level) {
                (Some(t), Level::Sum) if is_punct(t, '+') => BinOp::Add(Default::default()),
                (Some(t), Level::Sum) if is_punct(t, '-') => BinOp::Sub(Default::default()),
                (Some(t), Level::Product) if is_punct(t, '*') => BinOp::Mul(Default::default()),
                (Some(t), Level::Product) if is_punct(t, '/') => BinOp::Div(Default::default()),
                _ => return Some(left),
            };
            self.at += 1;
            let right = self.binary(tighter)?;
            left = Expr::Binary(ExprBinary {
                attrs: Vec::new(),
                left: Box::new(left),
                op,
                right: Box::new(right),
            });
        }
    }

    /// A negation, or a [`Self::postfix`] expression.
    fn unary(&mut self) -> Option<Expr> {
        if self.punct('-') {
            let operand = self.unary()?;
            return Some(Expr::Unary(ExprUnary {
                attrs: Vec::new(),
                op: UnOp::Neg(Default::default()),
                expr: Box::new(operand),
            }));
        }
        self.postfix()
    }

    /// A name, literal or parenthesised expression, then any calls,
    /// indexing and named fields.
    fn postfix(&mut self) -> Option<Expr> {
        let mut expression = match self.next()? {
            TokenTree::Ident(name) => Expr::Path(ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: name.clone().into(),
            }),
            TokenTree::Literal(literal) => {
                let lit = syn::Lit::new(literal.clone());
                if !matches!(lit, syn::Lit::Float(_) | syn::Lit::Int(_))
                    || literal.to_string().starts_with('-')
                {
                    return None;
                }
                Expr::Lit(ExprLit {
                    attrs: Vec::new(),
                    lit,
                })
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis => {
                Expr::Paren(ExprParen {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    expr: Box::new(whole(&inside(group))?),
                })
            }
            _ => return None,
        };
        loop {
            match self.trees.get(self.at) {
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => {
                    self.at += 1;
                    expression = Expr::Index(ExprIndex {
                        attrs: Vec::new(),
                        expr: Box::new(expression),
                        bracket_token: Default::default(),
                        index: Box::new(whole(&inside(group))?),
                    });
                }
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
                    self.at += 1;
                    expression = Expr::Call(ExprCall {
                        attrs: Vec::new(),
                        func: Box::new(expression),
                        paren_token: Default::default(),
                        args: arguments(&inside(group))?,
                    });
                }
                Some(t) if is_punct(t, '.') => {
                    let Some(TokenTree::Ident(field)) = self.trees.get(self.at + 1) else {
                        return None;
                    };
                    self.at += 2;
                    expression = Expr::Field(ExprField {
                        attrs: Vec::new(),
                        base: Box::new(expression),
                        dot_token: Default::default(),
                        member: Member::Named(field.clone()),
                    });
                }
                _ => return Some(expression),
            }
        }
    }
}

/// The token trees inside a bracket.
fn inside(group: &Group) -> Vec<TokenTree> {
    group.stream().into_iter().collect()
}

/// `trees` as one expression, all of them read.
fn whole(trees: &[TokenTree]) -> Option<Expr> {
    let mut reader = Reader { trees, at: 0 };
    let expression = reader.expression()?;
    reader.done().then_some(expression)
}

/// A call's arguments: expressions separated by commas, without a
/// trailing one (the printer writes none).
fn arguments(trees: &[TokenTree]) -> Option<Punctuated<Expr, syn::Token![,]>> {
    if trees.is_empty() {
        return Some(Punctuated::new());
    }
    trees.split(|t| is_punct(t, ',')).map(whole).collect()
}

/// Whether `tree` is the punctuation `c` standing alone (`-` of `-=` or
/// `->` is not).
fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c && p.spacing() == Spacing::Alone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::printer::Printer;
    use proptest::prelude::*;
    use quote::quote;

    /// `statements` formatted from the trees read here, and from `syn`'s.
    fn both(statements: &[TokenStream]) -> (String, String) {
        let format = |stmts: Vec<Stmt>| {
            let mut function: syn::ItemFn = syn::parse_quote!(
                fn f() {}
            );
            function.block.stmts = stmts;
            prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: vec![syn::Item::Fn(function)],
            })
        };
        // π, printed as a path and a cast, is the one shape left to `syn`.
        let here = statements
            .iter()
            .map(|s| match statement(s) {
                Some(tree) => tree,
                None if s.to_string().contains("PI as Real") => {
                    syn::parse2::<Stmt>(s.clone()).expect("syn parses it")
                }
                None => panic!("not read: {s}"),
            })
            .collect();
        let by_syn = statements
            .iter()
            .map(|s| syn::parse2::<Stmt>(s.clone()).expect("syn parses it"))
            .collect();
        (format(here), format(by_syn))
    }

    #[test]
    fn the_printers_shapes_read_as_syn_reads_them() {
        let statements = [
            quote!(let t5 = -0.5 * (q[1] + p.m1) - -t2 / t3;),
            quote!(let t1 = fma(d.k0, -(t0 + 1.0), t2) * sin(q[0]) / (t1 * t2);),
            quote!(live[3] = t7 - (t8 - t9) / (t1 / t2);),
            quote!(out[2][11] = live[40] * 0.9362933635841992 + 0.28962947762551555 * live[41] + qd[2] - 0.19866933079506122 * live[42];),
            quote!(let t27 = 0.9362933635841992 * t6 + 0.28962947762551555 * t15 + qd[2] - 0.19866933079506122 * t7 + 0.9362933635841992 * t6 * t7 * t8 * t9 * t10 * t11 * t12 * t13;),
            quote!(let t0 = --t1;),
        ];
        let (here, by_syn) = both(&statements);
        assert_eq!(here, by_syn);
        assert!(
            here.contains("\n        + "),
            "a statement is broken: {here}"
        );
    }

    #[test]
    fn anything_else_is_left_to_syn() {
        for tokens in [
            quote!(let mut live = [0.0; 12];),
            quote!(let (s, c) = sin_cos(q[0]);),
            quote!(let t = a * (core::f64::consts::PI as Real);),
            quote!(let t = a + b),
            quote!(let t = a + b;;),
            quote!(let t = f(a, b,);),
            quote!(t -= a;),
            quote!(out.0 = a;),
            quote!(let t = "a";),
            quote!(let t = a +;),
        ] {
            assert!(statement(&tokens).is_none(), "{tokens}");
        }
    }

    proptest! {
        #[test]
        fn printed_terms_format_as_syn_formats_them(terms in prop::collection::vec(crate::test_terms::term(), 1..8)) {
            let locals: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
            let slots: Vec<Option<usize>> = (0..40).map(|i| (i % 3 == 0).then_some(i)).collect();
            let printer = Printer { locals: &locals, slots: &slots, lanes: None };
            let statements: Vec<TokenStream> = terms
                .iter()
                .enumerate()
                .map(|(k, term)| {
                    let value = printer.expr(term).expect("prints");
                    let name = quote::format_ident!("x{k}");
                    if k % 2 == 0 { quote!(let #name = #value;) } else { quote!(out[#k] = #value;) }
                })
                .collect();
            let (here, by_syn) = both(&statements);
            prop_assert_eq!(here, by_syn);
        }
    }
}
