//! Hoisting of constant subexpressions: parameter grouping.
//!
//! In a model with runtime parameters, products and sums of parameters
//! alone (`m₅·b₅ + m₆·b₆`, `m₂·l₁²`, `1/(m₁ + m₂)`) are the same on every
//! call. [`hoist_constants`] finds them — whole constant subtrees, the
//! constant factors of a product, the constant terms of a sum — and replaces
//! each group by a new symbol defined once, so that generated code computes
//! the groups when the parameters are set and the per-call functions only
//! read them. Telegin's hand derivation does the same with its `m4`, `a`,
//! `Id1`, … constants.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use crate::symbol::Symbol;
use rustc_hash::FxHashMap as HashMap;

/// The rewritten roots and the definitions of the symbols introduced.
#[derive(Clone, Debug)]
pub struct Hoisted {
    /// The roots, reading constant groups through the new symbols.
    pub roots: Vec<Id>,
    /// `(symbol, definition)`: each new symbol and its value as an
    /// expression over the constant symbols only, in creation order.
    pub definitions: Vec<(Symbol, Id)>,
}

/// Replaces the constant groups of `roots` by new symbols. `is_constant`
/// says which symbols are constants (parameters); `name` makes the `k`-th
/// new symbol. Rebuilding goes through the canonical constructors, so the
/// result has the same value as the input for every input.
pub fn hoist_constants(
    pool: &mut Pool,
    roots: &[Id],
    is_constant: &dyn Fn(&Symbol) -> bool,
    name: &dyn Fn(usize) -> Symbol,
) -> Hoisted {
    let mut hoist = Hoist {
        constant: Vec::new(),
        untouched: Vec::new(),
        rewritten: HashMap::default(),
        symbol_of: HashMap::default(),
        definitions: Vec::new(),
        is_constant,
        name,
    };
    hoist.classify(pool, roots);
    let roots = roots.iter().map(|&r| hoist.rewrite(pool, r)).collect();
    Hoisted {
        roots,
        definitions: hoist.definitions,
    }
}

/// The factors `bᵢ^eᵢ` of a product.
type Factors = Vec<(Id, i32)>;
/// The terms `cᵢ·tᵢ` of a sum.
type Terms = Vec<(Id, Coeff)>;

struct Hoist<'a> {
    /// `constant[id]`: the node depends on constant symbols and numbers only.
    constant: Vec<bool>,
    /// `untouched[id]`: neither the node nor any node below it is or holds
    /// a constant group, so it is its own rewrite. In a model without
    /// runtime parameters that is every node, and hoisting is one walk.
    untouched: Vec<bool>,
    rewritten: HashMap<Id, Id>,
    symbol_of: HashMap<Id, Id>,
    definitions: Vec<(Symbol, Id)>,
    is_constant: &'a dyn Fn(&Symbol) -> bool,
    name: &'a dyn Fn(usize) -> Symbol,
}

impl Hoist<'_> {
    /// Classifies the nodes `roots` reach, children first (a child's index
    /// is below its parent's); the rest of the pool (other candidates'
    /// nodes) is not visited.
    fn classify(&mut self, pool: &Pool, roots: &[Id]) {
        let size = roots.iter().max().map_or(0, |m| m.index() + 1);
        self.constant = vec![false; size];
        self.untouched = vec![false; size];
        let mut seen = vec![false; size];
        let mut stack: Vec<(Id, bool)> = roots.iter().map(|&r| (r, false)).collect();
        while let Some((id, children_done)) = stack.pop() {
            let i = id.index();
            if children_done {
                let (constant, untouched) = match pool.node(id) {
                    Node::Num(_) | Node::Pi => (true, true),
                    Node::Symbol(symbol) => ((self.is_constant)(symbol), true),
                    _ => {
                        let constant = pool.children(id).all(|c| self.constant[c.index()]);
                        let untouched = !constant
                            && pool
                                .children(id)
                                .all(|c| !self.constant[c.index()] && self.untouched[c.index()]);
                        (constant, untouched)
                    }
                };
                self.constant[i] = constant;
                self.untouched[i] = untouched;
            } else if !seen[i] {
                seen[i] = true;
                stack.push((id, true));
                stack.extend(
                    pool.children(id)
                        .filter(|c| !seen[c.index()])
                        .map(|c| (c, false)),
                );
            }
        }
    }

    fn is_constant(&self, id: Id) -> bool {
        self.constant.get(id.index()).copied().unwrap_or(false)
    }

    /// The symbol standing for the constant expression `definition`.
    fn symbol(&mut self, pool: &mut Pool, definition: Id) -> Id {
        if let Some(&s) = self.symbol_of.get(&definition) {
            return s;
        }
        let symbol = (self.name)(self.definitions.len());
        let s = pool.input(symbol.clone());
        self.definitions.push((symbol, definition));
        self.symbol_of.insert(definition, s);
        s
    }

    fn rewrite(&mut self, pool: &mut Pool, id: Id) -> Id {
        if self.untouched.get(id.index()).copied().unwrap_or(false) {
            return id;
        }
        if let Some(&r) = self.rewritten.get(&id) {
            return r;
        }
        let node = pool.node(id).clone();
        let r = match node {
            Node::Num(_) | Node::Pi | Node::Symbol(_) => id,
            _ if self.is_constant(id) => self.symbol(pool, id),
            Node::Mul(factors) => {
                let (constant, varying): (Factors, Factors) =
                    factors.iter().partition(|(b, _)| self.is_constant(*b));
                let mut rebuilt: Vec<(Id, i32)> = varying
                    .iter()
                    .map(|&(b, e)| (self.rewrite(pool, b), e))
                    .collect();
                match constant.as_slice() {
                    [] => {}
                    [(b, 1)] if matches!(pool.node(*b), Node::Symbol(_)) => rebuilt.push((*b, 1)),
                    _ => {
                        let group = pool.product(&constant);
                        rebuilt.push((self.symbol(pool, group), 1));
                    }
                }
                pool.product(&rebuilt)
            }
            Node::Add(terms, c0) => {
                let (constant, varying): (Terms, Terms) =
                    terms.iter().partition(|(t, _)| self.is_constant(*t));
                let mut rebuilt: Vec<(Id, Coeff)> = varying
                    .iter()
                    .map(|&(t, c)| (self.rewrite(pool, t), c))
                    .collect();
                let single_symbol = |(t, c): (Id, Coeff)| {
                    matches!(pool.node(t), Node::Symbol(_)) && (c.is_one() || (-c).is_one())
                };
                let mut constant_part = c0;
                match constant.as_slice() {
                    [] => {}
                    [only] if c0.is_zero() && single_symbol(*only) => rebuilt.push(*only),
                    _ => {
                        let group = pool.linear(&constant, c0);
                        rebuilt.push((self.symbol(pool, group), Coeff::ONE));
                        constant_part = Coeff::ZERO;
                    }
                }
                pool.linear(&rebuilt, constant_part)
            }
            Node::Sin(u) => {
                let u = self.rewrite(pool, u);
                pool.sin(u)
            }
            Node::Cos(u) => {
                let u = self.rewrite(pool, u);
                pool.cos(u)
            }
            Node::Sqrt(u) => {
                let u = self.rewrite(pool, u);
                pool.sqrt(u)
            }
        };
        self.rewritten.insert(id, r);
        r
    }
}
