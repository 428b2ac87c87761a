//! The straight-line IR that lowering produces and the emitter prints:
//! [`Term`]s over inputs and earlier [`Local`]s, [`Program`]s of locals and
//! outputs, their [`OpCount`]s and their numeric evaluation (the reference
//! every pass is tested against).

use crate::symbol::Symbol;
use std::fmt;

/// Arithmetic operations in one program, as published operation counts
/// report them: subtraction and negation count as additions. A fused
/// multiply–add is counted apart, as one `fma` and neither a multiplication
/// nor an addition, because it is one instruction (one rounding) on the
/// floating-point units that have it; programs that were not fused have none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCount {
    /// Multiplications.
    pub mul: u32,
    /// Additions, subtractions and negations.
    pub add: u32,
    /// Divisions.
    pub div: u32,
    /// Square roots.
    pub sqrt: u32,
    /// Sines.
    pub sin: u32,
    /// Cosines.
    pub cos: u32,
    /// Fused multiply–adds `a·b + c` (only in fused programs, see
    /// [`Program::fuse_multiply_add`]).
    pub fma: u32,
    /// Exponentials (only in the contact laws of joint stops, written
    /// around programs by the emitter; programs themselves have none).
    pub exp: u32,
}

impl OpCount {
    /// One number to compare programs by: operations weighted by their
    /// typical latency on embedded floating-point units. A division costs
    /// four multiplications; a square root, a sine, a cosine or an
    /// exponential ten; a fused multiply–add one.
    pub fn weight(&self) -> u64 {
        u64::from(self.mul)
            + u64::from(self.add)
            + u64::from(self.fma)
            + 4 * u64::from(self.div)
            + 10 * u64::from(self.sqrt + self.sin + self.cos + self.exp)
    }
}

impl std::ops::Add for OpCount {
    type Output = OpCount;
    fn add(self, o: OpCount) -> OpCount {
        OpCount {
            mul: self.mul + o.mul,
            add: self.add + o.add,
            div: self.div + o.div,
            sqrt: self.sqrt + o.sqrt,
            sin: self.sin + o.sin,
            cos: self.cos + o.cos,
            fma: self.fma + o.fma,
            exp: self.exp + o.exp,
        }
    }
}

/// A count repeated `n` times (a loop body's operations).
impl std::ops::Mul<u32> for OpCount {
    type Output = OpCount;
    fn mul(self, n: u32) -> OpCount {
        OpCount {
            mul: self.mul * n,
            add: self.add * n,
            div: self.div * n,
            sqrt: self.sqrt * n,
            sin: self.sin * n,
            cos: self.cos * n,
            fma: self.fma * n,
            exp: self.exp * n,
        }
    }
}

/// `… mul, … add, … div, … sqrt, … sin, … cos`, followed by `, … fma` only
/// when the program has fused operations and `, … exp` only when it has
/// exponentials, so that the text of other counts does not change.
impl fmt::Display for OpCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} mul, {} add, {} div, {} sqrt, {} sin, {} cos",
            self.mul, self.add, self.div, self.sqrt, self.sin, self.cos
        )?;
        if self.fma > 0 {
            write!(f, ", {} fma", self.fma)?;
        }
        if self.exp > 0 {
            write!(f, ", {} exp", self.exp)?;
        }
        Ok(())
    }
}

/// An expression of the emitted program: binary arithmetic over constants,
/// inputs and earlier locals.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A numeric literal. Negative only where that saves an operation: a
    /// sum whose items are all subtracted starts from a negated constant
    /// factor (`-0.5 * x - y`, not `-(0.5 * x) - y`), and a fused program
    /// negates constant factors in place (`fma(-0.5, x, acc)` for
    /// `acc − 0.5·x`). A negative literal is a compile-time constant, so
    /// it costs no operation.
    Const(f64),
    /// π.
    Pi,
    /// An input (parameter, coordinate, velocity, …), typed: the emitter
    /// matches on it.
    Input(Symbol),
    /// An earlier local, by index into [`Program::locals`].
    Local(usize),
    /// `−a`.
    Neg(Box<Term>),
    /// `a + b`.
    Add(Box<Term>, Box<Term>),
    /// `a − b`.
    Sub(Box<Term>, Box<Term>),
    /// `a · b`.
    Mul(Box<Term>, Box<Term>),
    /// `a / b`.
    Div(Box<Term>, Box<Term>),
    /// `sin a`.
    Sin(Box<Term>),
    /// `cos a`.
    Cos(Box<Term>),
    /// `√a`.
    Sqrt(Box<Term>),
    /// `a·b + c` rounded once (fused multiply–add), only in programs made by
    /// [`Program::fuse_multiply_add`].
    Fma(Box<Term>, Box<Term>, Box<Term>),
}

impl Term {
    /// `−self` when it costs nothing: a constant with its sign changed, a
    /// negation unwrapped, or a product or quotient with one such factor
    /// negated in place.
    pub(crate) fn negated_for_free(&self) -> Option<Term> {
        match self {
            Term::Const(c) => Some(Term::Const(-c)),
            Term::Neg(a) => Some((**a).clone()),
            Term::Mul(a, b) => match a.negated_for_free() {
                Some(a) => Some(Term::Mul(Box::new(a), b.clone())),
                None => b
                    .negated_for_free()
                    .map(|b| Term::Mul(a.clone(), Box::new(b))),
            },
            Term::Div(a, b) => match a.negated_for_free() {
                Some(a) => Some(Term::Div(Box::new(a), b.clone())),
                None => b
                    .negated_for_free()
                    .map(|b| Term::Div(a.clone(), Box::new(b))),
            },
            _ => None,
        }
    }

    /// The locals this expression reads, in the order they are read, with
    /// repeats.
    pub fn locals_read(&self) -> Vec<usize> {
        let mut read = Vec::new();
        self.each_local(&mut |i| read.push(i));
        read
    }

    fn each_local(&self, each: &mut impl FnMut(usize)) {
        self.each_leaf(&mut |leaf| {
            if let Term::Local(i) = leaf {
                each(*i);
            }
        });
    }

    /// Calls `each` on every leaf (constant, π, input, local), in the
    /// order they are read, with repeats.
    pub(crate) fn each_leaf<'t>(&'t self, each: &mut impl FnMut(&'t Term)) {
        match self {
            Term::Const(_) | Term::Pi | Term::Input(_) | Term::Local(_) => each(self),
            Term::Neg(a) | Term::Sin(a) | Term::Cos(a) | Term::Sqrt(a) => a.each_leaf(each),
            Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
                a.each_leaf(each);
                b.each_leaf(each);
            }
            Term::Fma(a, b, c) => {
                a.each_leaf(each);
                b.each_leaf(each);
                c.each_leaf(each);
            }
        }
    }

    /// Operation count of this expression alone.
    pub fn op_count(&self) -> OpCount {
        let mut ops = OpCount::default();
        self.count(&mut ops);
        ops
    }

    fn count(&self, ops: &mut OpCount) {
        match self {
            Term::Const(_) | Term::Pi | Term::Input(_) | Term::Local(_) => {}
            Term::Neg(a) => {
                ops.add += 1;
                a.count(ops);
            }
            Term::Add(a, b) | Term::Sub(a, b) => {
                ops.add += 1;
                a.count(ops);
                b.count(ops);
            }
            Term::Mul(a, b) => {
                ops.mul += 1;
                a.count(ops);
                b.count(ops);
            }
            Term::Div(a, b) => {
                ops.div += 1;
                a.count(ops);
                b.count(ops);
            }
            Term::Sin(a) => {
                ops.sin += 1;
                a.count(ops);
            }
            Term::Cos(a) => {
                ops.cos += 1;
                a.count(ops);
            }
            Term::Sqrt(a) => {
                ops.sqrt += 1;
                a.count(ops);
            }
            Term::Fma(a, b, c) => {
                ops.fma += 1;
                a.count(ops);
                b.count(ops);
                c.count(ops);
            }
        }
    }

    /// The value of the term, its locals read from `locals`.
    pub(crate) fn eval(&self, locals: &[f64], env: &dyn Fn(&Symbol) -> Option<f64>) -> Option<f64> {
        Some(match self {
            Term::Const(c) => *c,
            Term::Pi => std::f64::consts::PI,
            Term::Input(symbol) => env(symbol)?,
            Term::Local(i) => *locals.get(*i)?,
            Term::Neg(a) => -a.eval(locals, env)?,
            Term::Add(a, b) => a.eval(locals, env)? + b.eval(locals, env)?,
            Term::Sub(a, b) => a.eval(locals, env)? - b.eval(locals, env)?,
            Term::Mul(a, b) => a.eval(locals, env)? * b.eval(locals, env)?,
            Term::Div(a, b) => a.eval(locals, env)? / b.eval(locals, env)?,
            Term::Sin(a) => a.eval(locals, env)?.sin(),
            Term::Cos(a) => a.eval(locals, env)?.cos(),
            Term::Sqrt(a) => a.eval(locals, env)?.sqrt(),
            Term::Fma(a, b, c) => a
                .eval(locals, env)?
                .mul_add(b.eval(locals, env)?, c.eval(locals, env)?),
        })
    }
}

/// A named intermediate value of a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    /// Identifier for the emitted `let` (`s_q1`, `c_q1`, `t12`, …).
    pub name: String,
    /// Its defining expression.
    pub value: Term,
}

/// A straight-line program computing several outputs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// Locals in evaluation order.
    pub locals: Vec<Local>,
    /// One expression per requested root.
    pub outputs: Vec<Term>,
}

impl Program {
    /// The same program with every local's value and every output
    /// rewritten by `rewrite` (a pass that keeps the program's shape).
    pub(crate) fn map_terms(&self, rewrite: impl Fn(&Term) -> Term) -> Program {
        Program {
            locals: self
                .locals
                .iter()
                .map(|local| Local {
                    name: local.name.clone(),
                    value: rewrite(&local.value),
                })
                .collect(),
            outputs: self.outputs.iter().map(rewrite).collect(),
        }
    }

    /// Operation count of the whole program.
    pub fn op_count(&self) -> OpCount {
        let mut ops = OpCount::default();
        for local in &self.locals {
            local.value.count(&mut ops);
        }
        for out in &self.outputs {
            out.count(&mut ops);
        }
        ops
    }

    /// Runs the program; `None` if an input has no value.
    pub fn eval(&self, env: &dyn Fn(&Symbol) -> Option<f64>) -> Option<Vec<f64>> {
        let mut locals = Vec::with_capacity(self.locals.len());
        for local in &self.locals {
            let v = local.value.eval(&locals, env)?;
            locals.push(v);
        }
        self.outputs.iter().map(|o| o.eval(&locals, env)).collect()
    }
}

/// The items of a chain of `+`, `−` and unary `−`, in order, each with
/// `true` if it is subtracted: `a − (b − c)` gives `a`, `−b`, `+c`. Any
/// other term is its own single added item. The passes that rebuild sums
/// (`fuse.rs`, `factor.rs`) start from this.
pub(crate) fn chain_items(term: &Term) -> Vec<(&Term, bool)> {
    fn walk<'t>(term: &'t Term, negative: bool, items: &mut Vec<(&'t Term, bool)>) {
        match term {
            Term::Add(a, b) => {
                walk(a, negative, items);
                walk(b, negative, items);
            }
            Term::Sub(a, b) => {
                walk(a, negative, items);
                walk(b, !negative, items);
            }
            Term::Neg(a) => walk(a, !negative, items),
            other => items.push((other, negative)),
        }
    }
    let mut items = Vec::new();
    walk(term, false, &mut items);
    items
}

/// `±a ± b ± …` with the positive items first, so that a sum starts with a
/// plain operand whenever it can. When every item is negative, the sum
/// starts from one whose negation is free (`-0.5 * x - y`); only when none
/// is does it cost a negation.
pub(crate) fn signed_sum(items: Vec<(Term, bool)>) -> Term {
    let (positive, mut negative): (Vec<_>, Vec<_>) = items.into_iter().partition(|(_, neg)| !neg);
    if positive.is_empty() {
        if let Some((i, negated)) = negative
            .iter()
            .enumerate()
            .find_map(|(i, (t, _))| t.negated_for_free().map(|n| (i, n)))
        {
            negative.remove(i);
            negative.insert(0, (negated, false));
        }
    }
    let mut ordered = positive.into_iter().chain(negative);
    let Some((first, first_negative)) = ordered.next() else {
        return Term::Const(0.0);
    };
    let start = if first_negative {
        Term::Neg(Box::new(first))
    } else {
        first
    };
    ordered.fold(start, |acc, (t, neg)| {
        if neg {
            Term::Sub(Box::new(acc), Box::new(t))
        } else {
            Term::Add(Box::new(acc), Box::new(t))
        }
    })
}
