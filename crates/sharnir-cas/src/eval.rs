//! Numeric evaluation of expressions, the reference every rewrite and every
//! emitted program is tested against.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use crate::symbol::Symbol;

/// Why an expression could not be evaluated: the symbol the environment
/// has no value for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnboundSymbol(pub Symbol);

impl std::fmt::Display for UnboundSymbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no value for symbol `{}`", self.0)
    }
}

impl std::error::Error for UnboundSymbol {}

impl Pool {
    /// Evaluates `roots` with symbol values from `env`, visiting each needed
    /// node once in creation (hence topological) order.
    pub fn eval(
        &self,
        roots: &[Id],
        env: &dyn Fn(&Symbol) -> Option<f64>,
    ) -> Result<Vec<f64>, UnboundSymbol> {
        let Some(max) = roots.iter().max() else {
            return Ok(Vec::new());
        };
        if max.index() >= self.len() {
            // `Id::OVERFLOW`, or an id of another pool: nothing to read.
            let name = match self.node(*max) {
                Node::Symbol(name) => name.clone(),
                _ => Symbol::Named(Id::OVERFLOW_SYMBOL.to_owned()),
            };
            return Err(UnboundSymbol(name));
        }
        let needed = self.reachable(roots);
        let mut value = vec![0.0_f64; max.index() + 1];
        for i in 0..=max.index() {
            if !needed[i] {
                continue;
            }
            value[i] = match self.node(Id::from_index(i)) {
                Node::Num(c) => c.to_f64(),
                Node::Pi => std::f64::consts::PI,
                Node::Symbol(symbol) => env(symbol).ok_or_else(|| UnboundSymbol(symbol.clone()))?,
                Node::Add(terms, c0) => terms.iter().fold(c0.to_f64(), |acc, &(t, c)| {
                    acc + c.to_f64() * value[t.index()]
                }),
                Node::Mul(factors) => factors
                    .iter()
                    .fold(1.0, |acc, &(b, e)| acc * value[b.index()].powi(e)),
                Node::Sin(u) => value[u.index()].sin(),
                Node::Cos(u) => value[u.index()].cos(),
                Node::Sqrt(u) => value[u.index()].sqrt(),
            };
        }
        Ok(roots.iter().map(|r| value[r.index()]).collect())
    }

    /// Marks every node reachable from `roots` (indexed by `Id::index`).
    pub fn reachable(&self, roots: &[Id]) -> Vec<bool> {
        // Ids this pool never handed out (`Id::OVERFLOW`) have no node to
        // mark: they are left out rather than sizing the table by them.
        let mut stack: Vec<Id> = roots
            .iter()
            .copied()
            .filter(|r| r.index() < self.len())
            .collect();
        let size = stack.iter().max().map_or(0, |m| m.index() + 1);
        let mut seen = vec![false; size];
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id.index()], true) {
                continue;
            }
            stack.extend(self.children(id));
        }
        seen
    }

    /// The direct operands of a node, without allocating: the walks over
    /// the DAG (reachability, use counts, hoisting) call this for every
    /// node they visit.
    pub fn children(&self, id: Id) -> Children<'_> {
        Children(match self.node(id) {
            Node::Num(_) | Node::Pi | Node::Symbol(_) => Operands::One(None),
            Node::Add(terms, _) => Operands::Terms(terms.iter()),
            Node::Mul(factors) => Operands::Factors(factors.iter()),
            Node::Sin(u) | Node::Cos(u) | Node::Sqrt(u) => Operands::One(Some(*u)),
        })
    }
}

/// The operands of one node, in order: see [`Pool::children`].
#[derive(Clone, Debug)]
pub struct Children<'a>(Operands<'a>);

/// Where a node keeps its operands.
#[derive(Clone, Debug)]
enum Operands<'a> {
    Terms(std::slice::Iter<'a, (Id, Coeff)>),
    Factors(std::slice::Iter<'a, (Id, i32)>),
    One(Option<Id>),
}

impl Iterator for Children<'_> {
    type Item = Id;

    fn next(&mut self) -> Option<Id> {
        match &mut self.0 {
            Operands::Terms(terms) => terms.next().map(|&(t, _)| t),
            Operands::Factors(factors) => factors.next().map(|&(b, _)| b),
            Operands::One(operand) => operand.take(),
        }
    }
}
