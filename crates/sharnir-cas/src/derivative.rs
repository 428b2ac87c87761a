//! Differentiation along a motion: `ė = Σᵢ ∂e/∂sᵢ · ṡᵢ` for the symbols
//! `sᵢ` that move, each with its rate `ṡᵢ` (any expression).
//!
//! This is the one derivative every formalism takes: the time derivative of
//! an expression in the coordinates (`ṡ` the coordinate rates, with the
//! velocities held: the Coriolis matrix, the Lagrange bias, the loops'
//! `J̇ q̇`), Telegin's `q → q̇ → q̈` (positions and velocities both moving),
//! and the partial derivative `∂e/∂x` itself (`x` moving at rate one,
//! [`Pool::diff`]).
//!
//! It is the chain rule applied forward through the DAG in one walk: every
//! node's rate is built from its children's, and a [`Derivative`] remembers
//! every rate it has built, so a subexpression shared by many expressions
//! (or reached again by differentiating a rate a second time) is
//! differentiated once. The walk visits the children of a node in their
//! stored order and builds each product term as soon as its factor's rate
//! is known; the order nodes are created in, and so the ids and the emitted
//! text, depend on that, so it is part of the contract.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::FxHashMap as HashMap;

/// The rates of the moving symbols and the rates built so far.
///
/// Keep one `Derivative` for as long as the same motion is meant: its memo
/// is what makes differentiating many expressions (or the same one twice,
/// for a second derivative) cost one walk of their shared DAG.
#[derive(Clone, Debug, Default)]
pub struct Derivative {
    /// `s ↦ ṡ` for every moving symbol; every other symbol is constant.
    rates: HashMap<Id, Id>,
    /// `e ↦ ė` for every node already differentiated.
    memo: HashMap<Id, Id>,
}

impl Derivative {
    /// Differentiation along the motion in which each symbol of `rates`
    /// (`(s, ṡ)` pairs; `s` should be a symbol node) changes at its rate and
    /// everything else is constant. A symbol given twice moves at the last
    /// rate given.
    pub fn new(rates: impl IntoIterator<Item = (Id, Id)>) -> Derivative {
        Derivative {
            rates: rates.into_iter().collect(),
            memo: HashMap::default(),
        }
    }

    /// `ė = Σᵢ ∂e/∂sᵢ · ṡᵢ`, exact, in the pool's canonical form.
    ///
    /// The rates may themselves contain moving symbols: differentiating
    /// `ė` again then gives the second derivative (Telegin's `q̈` terms).
    pub fn of(&mut self, pool: &mut Pool, e: Id) -> Id {
        if let Some(&d) = self.memo.get(&e) {
            return d;
        }
        let d = match pool.node(e).clone() {
            Node::Num(_) | Node::Pi => pool.zero(),
            Node::Symbol(_) => match self.rates.get(&e) {
                Some(&rate) => rate,
                None => pool.zero(),
            },
            Node::Add(terms, _) => {
                let parts: Vec<(Id, Coeff)> =
                    terms.iter().map(|&(t, c)| (self.of(pool, t), c)).collect();
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Mul(factors) => {
                let mut parts = Vec::with_capacity(factors.len());
                for (i, &(base, exponent)) in factors.iter().enumerate() {
                    let rate = self.of(pool, base);
                    if pool.is_zero(rate) {
                        continue;
                    }
                    let mut rest: Vec<(Id, i32)> = factors.to_vec();
                    if let Some(factor) = rest.get_mut(i) {
                        factor.1 = exponent - 1;
                    }
                    rest.push((rate, 1));
                    parts.push((pool.product(&rest), Coeff::int(i64::from(exponent))));
                }
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Sin(u) => {
                let rate = self.of(pool, u);
                let c = pool.cos(u);
                pool.mul(c, rate)
            }
            Node::Cos(u) => {
                let rate = self.of(pool, u);
                let s = pool.sin(u);
                let minus_s = pool.neg(s);
                pool.mul(minus_s, rate)
            }
            Node::Sqrt(u) => {
                let rate = self.of(pool, u);
                let half = pool.num(Coeff::ratio(1, 2));
                pool.product(&[(half, 1), (rate, 1), (e, -1)])
            }
        };
        self.memo.insert(e, d);
        d
    }

    /// [`Derivative::of`] for each of `es`, in order, sharing the memo.
    pub fn of_all(&mut self, pool: &mut Pool, es: &[Id]) -> Vec<Id> {
        es.iter().map(|&e| self.of(pool, e)).collect()
    }
}

/// How [`Pool::along_motion_by`] sums the moving symbols' contributions:
/// the values are equal, the expressions differ, and which lowers to
/// cheaper code depends on the mechanism, so a caller may derive both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Summation {
    /// Each symbol's partial derivative apart, times its rate
    /// ([`Pool::along_motion`]).
    PerSymbol,
    /// One [`Derivative`] walk with every symbol moving.
    OneWalk,
}

impl Pool {
    /// [`Pool::along_motion`] or one [`Derivative`] walk, as `summation`
    /// says.
    pub fn along_motion_by(
        &mut self,
        es: &[Id],
        positions: &[Id],
        rates: &[Id],
        summation: Summation,
    ) -> Vec<Id> {
        match summation {
            Summation::PerSymbol => self.along_motion(es, positions, rates),
            Summation::OneWalk => {
                Derivative::new(positions.iter().copied().zip(rates.iter().copied()))
                    .of_all(self, es)
            }
        }
    }

    /// `Σᵢ ∂e/∂sᵢ · ṡᵢ` for every `e` of `es`, with `positions` the moving
    /// symbols `sᵢ` and `rates` their rates `ṡᵢ` (paired in order): the
    /// rate of change along the motion with everything else held.
    ///
    /// Summed per symbol: each partial `∂e/∂sᵢ` is one [`Derivative`] walk
    /// (memoised across `es`), then scaled by `ṡᵢ`. This gives the same
    /// value as one [`Derivative`] with every symbol moving, but a
    /// different expression: a product of a sum of rates by a shared factor
    /// comes out distributed, one term per rate, which lowers to cheaper
    /// code for the Coriolis matrix, the Lagrange bias and the loops'
    /// `J̇ q̇` (their rates are long expressions in `q` and `v`). Telegin's
    /// formalism, whose rates are single symbols, takes the single walk.
    pub fn along_motion(&mut self, es: &[Id], positions: &[Id], rates: &[Id]) -> Vec<Id> {
        let zero = self.zero();
        let mut total = vec![zero; es.len()];
        for (&s, &rate) in positions.iter().zip(rates) {
            let partials = self.diff_all(es, s);
            for (sum, partial) in total.iter_mut().zip(partials) {
                let term = self.mul(partial, rate);
                *sum = self.add(*sum, term);
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Symbol;

    fn env<'a>(values: &'a [(&'a str, f64)]) -> impl Fn(&Symbol) -> Option<f64> + 'a {
        move |symbol| {
            let name = symbol.to_string();
            values.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
        }
    }

    /// `ė` of a DAG with sums, products, powers, quotients, sines, cosines
    /// and a square root, both ways, against a central finite difference of `e` along
    /// the motion `s(t) = s₀ + t ṡ` (rates constant).
    #[test]
    fn rate_along_motion_matches_finite_differences() {
        let mut p = Pool::new();
        let (a, b, k) = (p.symbol("a"), p.symbol("b"), p.symbol("k"));
        let sa = p.sin(a);
        let cb = p.cos(b);
        let ab = p.add(a, b);
        let c_ab = p.cos(ab);
        let kk = p.product(&[(k, 2), (a, -1)]);
        let r2 = p.product(&[(a, 2)]);
        let under = p.add(r2, cb);
        let two = p.num(Coeff::int(2));
        let under = p.add(under, two);
        let root = p.sqrt(under);
        let prod = p.product(&[(sa, 1), (c_ab, 1), (root, 1)]);
        let e = p.add(prod, kk);
        let (ra, rb) = (p.symbol("ra"), p.symbol("rb"));
        let d = p.along_motion(&[e], &[a, b], &[ra, rb])[0];
        let forward = Derivative::new([(a, ra), (b, rb)]).of(&mut p, e);
        let point = |t: f64| {
            let (a0, b0, k0, ra0, rb0) = (0.7, -0.4, 1.3, 0.9, -1.7);
            [
                ("a", a0 + t * ra0),
                ("b", b0 + t * rb0),
                ("k", k0),
                ("ra", ra0),
                ("rb", rb0),
            ]
        };
        let h = 1e-6;
        let ahead = p.eval(&[e], &env(&point(h))).unwrap()[0];
        let behind = p.eval(&[e], &env(&point(-h))).unwrap()[0];
        let numeric = (ahead - behind) / (2.0 * h);
        // Summed per symbol and in one walk: two expressions, one value.
        for exact in p.eval(&[d, forward], &env(&point(0.0))).unwrap() {
            assert!(
                (exact - numeric).abs() < 1e-7 * (1.0 + numeric.abs()),
                "{exact} vs {numeric}"
            );
        }
    }

    /// The rate is the chain rule `Σᵢ ∂e/∂sᵢ ṡᵢ` with the partials of
    /// [`Pool::diff`], and a symbol that does not move contributes nothing.
    #[test]
    fn rate_along_motion_is_the_chain_rule() {
        let mut p = Pool::new();
        let (x, y, z) = (p.symbol("x"), p.symbol("y"), p.symbol("z"));
        let sx = p.sin(x);
        let xy = p.mul(x, y);
        let cz = p.cos(z);
        let t = p.mul(xy, cz);
        let e = p.add(sx, t);
        let (rx, ry) = (p.symbol("rx"), p.symbol("ry"));
        let d = p.along_motion(&[e], &[x, y], &[rx, ry])[0];
        let dx = p.diff(e, x);
        let dy = p.diff(e, y);
        let tx = p.mul(dx, rx);
        let ty = p.mul(dy, ry);
        let chain = p.add(tx, ty);
        let values = [
            ("x", 0.3),
            ("y", -1.1),
            ("z", 2.0),
            ("rx", 0.5),
            ("ry", 1.5),
        ];
        let got = p.eval(&[d, chain], &env(&values)).unwrap();
        assert!((got[0] - got[1]).abs() < 1e-12, "{got:?}");
        let dz = p.diff(e, z);
        assert!(!p.is_zero(dz));
        let zero = p.zero();
        let still = p.along_motion(&[e], &[z], &[zero]);
        assert!(p.is_zero(still[0]), "a symbol at rest contributes nothing");
    }

    /// Differentiating a rate again with the rates moving too gives the
    /// second derivative: `d²/dt² sin q = cos q · q̈ − sin q · q̇²`.
    #[test]
    fn a_rate_differentiated_again_is_the_second_derivative() {
        let mut p = Pool::new();
        let (q, qd, qdd) = (p.symbol("q"), p.symbol("qd"), p.symbol("qdd"));
        let e = p.sin(q);
        let mut derivative = Derivative::new([(q, qd), (qd, qdd)]);
        let first = derivative.of(&mut p, e);
        let second = derivative.of(&mut p, first);
        let values = [("q", 0.4), ("qd", -2.0), ("qdd", 3.0)];
        let got = p.eval(&[second], &env(&values)).unwrap()[0];
        let want = 0.4_f64.cos() * 3.0 - 0.4_f64.sin() * 4.0;
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert_eq!(derivative.of(&mut p, e), first, "remembered");
    }
}
