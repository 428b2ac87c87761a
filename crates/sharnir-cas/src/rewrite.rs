//! Structural rewrites of whole expressions: differentiation and substitution.
//!
//! Both walk the DAG once with a memo table, so shared subexpressions are
//! visited once and the result shares structure the same way the input does.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use std::collections::HashMap;

impl Pool {
    /// `∂e/∂x` for a symbol `x`; shared subterms are differentiated once.
    pub fn diff(&mut self, e: Id, x: Id) -> Id {
        let mut memo = HashMap::new();
        self.diff_memo(e, x, &mut memo)
    }

    /// Differentiates several expressions with one memo table, so that work
    /// shared between them (a Jacobian's rows) is done once.
    pub fn diff_all(&mut self, es: &[Id], x: Id) -> Vec<Id> {
        let mut memo = HashMap::new();
        es.iter()
            .map(|&e| self.diff_memo(e, x, &mut memo))
            .collect()
    }

    fn diff_memo(&mut self, e: Id, x: Id, memo: &mut HashMap<Id, Id>) -> Id {
        if let Some(&d) = memo.get(&e) {
            return d;
        }
        let d = match self.node(e).clone() {
            Node::Num(_) | Node::Pi => self.zero(),
            Node::Symbol(_) => {
                if e == x {
                    self.one()
                } else {
                    self.zero()
                }
            }
            Node::Add(terms, _) => {
                let parts: Vec<(Id, Coeff)> = terms
                    .iter()
                    .map(|&(t, c)| (self.diff_memo(t, x, memo), c))
                    .collect();
                self.linear(&parts, Coeff::ZERO)
            }
            Node::Mul(factors) => {
                let mut parts = Vec::with_capacity(factors.len());
                for (i, &(base, exp)) in factors.iter().enumerate() {
                    let db = self.diff_memo(base, x, memo);
                    if self.is_zero(db) {
                        continue;
                    }
                    let mut rest: Vec<(Id, i32)> = factors.to_vec();
                    rest[i].1 = exp - 1;
                    rest.push((db, 1));
                    let term = self.product(&rest);
                    parts.push((term, Coeff::int(i64::from(exp))));
                }
                self.linear(&parts, Coeff::ZERO)
            }
            Node::Sin(u) => {
                let du = self.diff_memo(u, x, memo);
                let c = self.cos(u);
                self.mul(c, du)
            }
            Node::Cos(u) => {
                let du = self.diff_memo(u, x, memo);
                let s = self.sin(u);
                let ms = self.neg(s);
                self.mul(ms, du)
            }
            Node::Sqrt(u) => {
                let du = self.diff_memo(u, x, memo);
                let half = self.num(Coeff::ratio(1, 2));
                self.product(&[(half, 1), (du, 1), (e, -1)])
            }
        };
        memo.insert(e, d);
        d
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
