//! Structural rewrites of whole expressions: differentiation (through
//! [`Derivative`]) and substitution.
//!
//! Both walk the DAG once with a memo table, so shared subexpressions are
//! visited once and the result shares structure the same way the input does.

use crate::coeff::Coeff;
use crate::derivative::Derivative;
use crate::pool::{Id, Node, Pool};
use std::collections::HashMap;

impl Pool {
    /// `∂e/∂x` for a symbol `x`; shared subterms are differentiated once.
    /// The partial derivative is the [`Derivative`] along the motion in
    /// which `x` alone moves, at rate one.
    pub fn diff(&mut self, e: Id, x: Id) -> Id {
        let one = self.one();
        Derivative::new([(x, one)]).of(self, e)
    }

    /// Differentiates several expressions with one memo table, so that work
    /// shared between them (a Jacobian's rows) is done once.
    pub fn diff_all(&mut self, es: &[Id], x: Id) -> Vec<Id> {
        let one = self.one();
        Derivative::new([(x, one)]).of_all(self, es)
    }

    /// Replaces every occurrence of the keys of `map` (usually symbols) by
    /// their values and rebuilds canonically, so folding parameter values
    /// into a model simplifies it as it goes.
    pub fn substitute(&mut self, roots: &[Id], map: &HashMap<Id, Id>) -> Vec<Id> {
        let mut memo: HashMap<Id, Id> = map.clone();
        roots
            .iter()
            .map(|&r| self.substitute_memo(r, &mut memo))
            .collect()
    }

    fn substitute_memo(&mut self, e: Id, memo: &mut HashMap<Id, Id>) -> Id {
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        let r = match self.node(e).clone() {
            Node::Num(_) | Node::Pi | Node::Symbol(_) => e,
            Node::Add(terms, c0) => {
                let parts: Vec<(Id, Coeff)> = terms
                    .iter()
                    .map(|&(t, c)| (self.substitute_memo(t, memo), c))
                    .collect();
                self.linear(&parts, c0)
            }
            Node::Mul(factors) => {
                let parts: Vec<(Id, i32)> = factors
                    .iter()
                    .map(|&(b, p)| (self.substitute_memo(b, memo), p))
                    .collect();
                self.product(&parts)
            }
            Node::Sin(u) => {
                let u = self.substitute_memo(u, memo);
                self.sin(u)
            }
            Node::Cos(u) => {
                let u = self.substitute_memo(u, memo);
                self.cos(u)
            }
            Node::Sqrt(u) => {
                let u = self.substitute_memo(u, memo);
                self.sqrt(u)
            }
        };
        memo.insert(e, r);
        r
    }
}
