//! Lowering of expression DAGs to straight-line programs.
//!
//! A node becomes a named local when it is used more than once (or is
//! raised to a power, so the power can multiply the local by itself); a
//! node used once is inlined into its user.

use super::ir::{signed_sum, Local, Program, Term};
use super::long_sums::{contained_long_sums, is_long};
use super::passes;
use crate::absorb::LONG_SUM;
use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

impl Program {
    /// Lowers `roots` to a program sharing every subexpression used twice,
    /// including, where that makes the program cheaper, the partial sums
    /// and products that several flat sums and products have in common (see
    /// `share.rs`), after sums gave up the terms their users already have
    /// (see `absorb.rs`), with the common factors of the products of every
    /// sum taken out (see `passes/factor.rs`) and with negations moved to where
    /// they are free (see `passes/signs.rs`), finally cleaned up (literal
    /// products folded, aliases forwarded, unused locals dropped, see
    /// `passes/peephole.rs`), so that the counts are those of the printed
    /// code. The sharing rewrites are
    /// greedy and can cut across the larger shared sums the plain lowering
    /// reuses whole, so the plain and the rewritten program are both built
    /// and the one of lower [`OpCount::weight`](super::OpCount::weight) is
    /// kept — up to 2 000 DAG nodes (`SMALL_DAG`): beyond, the rewritten one is built
    /// alone (the plain one only where the rewriting fails).
    pub fn lower(pool: &Pool, roots: &[Id]) -> Program {
        let finish = |program: Program| {
            passes::peephole::peephole(passes::signs::settle(program.factored()))
        };
        // What the roots reach, walked once for the size test, the plain
        // lowering and the sharing.
        let reachable = pool.reachable(roots);
        let plain = || finish(Lowering::new(pool, roots, reachable.clone()).run(roots));
        let shared = || {
            let (shared_pool, shared_roots) =
                crate::share::share_partial_results(pool, roots, &reachable)?;
            let shared_reachable = shared_pool.reachable(&shared_roots);
            Some(finish(
                Lowering::new(&shared_pool, &shared_roots, shared_reachable).run(&shared_roots),
            ))
        };
        if reachable.iter().filter(|&&r| r).count() > SMALL_DAG {
            return shared().unwrap_or_else(plain);
        }
        // The two lowerings read the pool only: on a second core the shared
        // one runs beside the plain one (with the main thread's stack, as
        // deep as the expressions), and alone where no thread can start.
        let (plain, shared) = std::thread::scope(|scope| {
            let beside = std::thread::Builder::new()
                .stack_size(crate::parallel::WORKER_STACK)
                .spawn_scoped(scope, shared);
            let plain = plain();
            let shared = match beside {
                Ok(handle) => handle.join().ok().flatten(),
                Err(_) => shared(),
            };
            (plain, shared)
        });
        match shared {
            Some(shared) if shared.op_count().weight() < plain.op_count().weight() => shared,
            _ => plain,
        }
    }

    /// Each of `programs` lowered by [`Program::lower`], in order, on as
    /// many threads as there are cores: the programs of a module's
    /// functions, or the candidates of a choice, read the pool only and
    /// do not depend on each other. The result is the same as lowering
    /// them one by one.
    pub fn lower_each(pool: &Pool, programs: &[&[Id]]) -> Vec<Program> {
        crate::parallel::map_in_order(programs, |roots| Program::lower(pool, roots))
    }

    /// The same program with the common factors of every sum's products
    /// taken out (Horner's rule, see `passes/factor.rs`).
    fn factored(&self) -> Program {
        self.map_terms(passes::factor::factor)
    }
}

/// The size of an expression DAG (distinct nodes) above which sharing
/// partial results always paid: of the 3 100 programs lowered for the
/// bundled specs, Talos and a 20-link chain, the plain lowering was
/// cheaper or as cheap for 1 234, none of them above 495 nodes (402 were
/// above 500). Beyond this bound, four times that, the plain lowering is
/// not built, which leaves the second core to another candidate.
pub(crate) const SMALL_DAG: usize = 2000;

/// A local sum that a larger sum may contain: its length, node, local and
/// terms.
type Candidate<'a> = (usize, Id, usize, &'a [(Id, Coeff)]);

struct Lowering<'p> {
    pool: &'p Pool,
    uses: HashMap<Id, u32>,
    /// How many products divide by each node.
    divisions: HashMap<Id, u32>,
    local_of: HashMap<Id, usize>,
    /// The local holding `1 / node`, for nodes that two or more products
    /// divide by: one division, then multiplications.
    reciprocal_of: HashMap<Id, usize>,
    /// The sums that are locals already, with their local indices, by
    /// their first term: candidates for reuse inside larger sums, of which
    /// a sum looks only at those whose first term it contains (a scan of
    /// every local made lowering quadratic in the program's size).
    local_sums: HashMap<Id, Vec<(Id, usize)>>,
    /// The same for products without divisions, by their first factor:
    /// candidates for reuse inside larger products.
    local_products: HashMap<Id, Vec<(Id, usize)>>,
    /// The long sums another long sum contains: locals even when used
    /// once, so that the larger reuse them (see [`contained_long_sums`]).
    long_nested: HashSet<Id>,
    /// Which nodes of the pool the roots reach, by index.
    reachable: Vec<bool>,
    program: Program,
}

impl<'p> Lowering<'p> {
    /// The lowering of `roots`, which reach `reachable` (`Pool::reachable`).
    fn new(pool: &'p Pool, roots: &[Id], reachable: Vec<bool>) -> Lowering<'p> {
        let mut uses: HashMap<Id, u32> = HashMap::default();
        let mut divisions: HashMap<Id, u32> = HashMap::default();
        for &r in roots {
            *uses.entry(r).or_default() += 1;
        }
        for (i, &seen) in reachable.iter().enumerate() {
            if !seen {
                continue;
            }
            let id = Id::from_index(i);
            match pool.node(id) {
                Node::Mul(factors) => {
                    for &(b, e) in factors.iter() {
                        *uses.entry(b).or_default() += if e.unsigned_abs() >= 2 { 2 } else { 1 };
                        if e < 0 {
                            *divisions.entry(b).or_default() += 1;
                        }
                    }
                }
                _ => {
                    for c in pool.children(id) {
                        *uses.entry(c).or_default() += 1;
                    }
                }
            }
        }
        Lowering {
            pool,
            uses,
            divisions,
            local_of: HashMap::default(),
            reciprocal_of: HashMap::default(),
            local_sums: HashMap::default(),
            local_products: HashMap::default(),
            long_nested: contained_long_sums(pool, &reachable),
            reachable,
            program: Program::default(),
        }
    }

    fn run(mut self, roots: &[Id]) -> Program {
        let reachable = std::mem::take(&mut self.reachable);
        for (i, &seen) in reachable.iter().enumerate() {
            let id = Id::from_index(i);
            if seen && self.needs_local(id) {
                let value = self.expand(id);
                let name = self.local_name(id);
                self.local_of.insert(id, self.program.locals.len());
                match self.pool.node(id) {
                    Node::Add(terms, _) => {
                        if let Some(&(first, _)) = terms.first() {
                            let local = (id, self.program.locals.len());
                            self.local_sums.entry(first).or_default().push(local);
                        }
                    }
                    Node::Mul(factors) if factors.iter().all(|&(_, e)| e > 0) => {
                        if let Some(&(first, _)) = factors.first() {
                            let local = (id, self.program.locals.len());
                            self.local_products.entry(first).or_default().push(local);
                        }
                    }
                    _ => {}
                }
                self.program.locals.push(Local { name, value });
            }
            if seen && self.divisions.get(&id).copied().unwrap_or(0) >= 2 {
                let value = Term::Div(Box::new(Term::Const(1.0)), Box::new(self.term(id)));
                let name = format!("inv{}", self.program.locals.len());
                self.reciprocal_of.insert(id, self.program.locals.len());
                self.program.locals.push(Local { name, value });
            }
        }
        for id in self.nested_roots(roots) {
            let value = self.expand(id);
            let name = self.local_name(id);
            self.local_of.insert(id, self.program.locals.len());
            if let Node::Add(terms, _) = self.pool.node(id) {
                if let Some(&(first, _)) = terms.first() {
                    let local = (id, self.program.locals.len());
                    self.local_sums.entry(first).or_default().push(local);
                }
            }
            self.program.locals.push(Local { name, value });
        }
        self.program.outputs = roots.iter().map(|&r| self.term(r)).collect();
        self.program
    }

    /// The output sums that another output sum contains (with the same
    /// coefficients, or all negated), smallest first: computed as locals
    /// after every other local, the larger outputs then add to them instead
    /// of repeating their terms. In a chain, the joint force of joint `i` is
    /// joint `i + 1`'s plus what body `i` adds, so each row reads the next.
    fn nested_roots(&self, roots: &[Id]) -> Vec<Id> {
        // A sum with a constant part takes part as a host longer than
        // `LONG_SUM` (a chain's vertical positions start at the first
        // joint's height), or as a sum such a host contains.
        let sum_terms = |id: Id| match self.pool.node(id) {
            Node::Add(terms, c0) if terms.len() >= 2 && (c0.is_zero() || is_long(terms)) => {
                Some(terms)
            }
            _ => None,
        };
        let has_constant = |id: Id| matches!(self.pool.node(id), Node::Add(_, c0) if !c0.is_zero());
        let mut hosts_of: HashMap<Id, Vec<Id>> = HashMap::default();
        // Every output sum's terms by id, so that a containment test is
        // linear in the contained sum (a chain's flat position sums are as
        // long as the chain, and there are as many of them).
        let mut coefficients: HashMap<Id, HashMap<Id, Coeff>> = HashMap::default();
        let inner_terms = |id: Id| match self.pool.node(id) {
            Node::Add(terms, _) if terms.len() >= 2 => Some(terms),
            _ => None,
        };
        for &root in roots {
            for &(t, _) in sum_terms(root).into_iter().flatten() {
                hosts_of.entry(t).or_default().push(root);
            }
            if let Some(terms) = sum_terms(root) {
                coefficients
                    .entry(root)
                    .or_insert_with(|| terms.iter().copied().collect());
            }
        }
        let contains = |host: Id, inner: &[(Id, Coeff)], constant: bool| {
            let Some(outer) = coefficients.get(&host).filter(|o| o.len() > inner.len()) else {
                return false;
            };
            if (constant || has_constant(host)) && outer.len() <= LONG_SUM {
                return false;
            }
            let coefficient = |t: Id| outer.get(&t).copied();
            inner.iter().all(|&(t, c)| coefficient(t) == Some(c))
                || inner.iter().all(|&(t, c)| coefficient(t) == Some(-c))
        };
        let mut nested: Vec<Id> = roots
            .iter()
            .copied()
            .filter(|&root| !self.local_of.contains_key(&root))
            .filter(|&root| {
                inner_terms(root).is_some_and(|inner| {
                    let constant = has_constant(root);
                    hosts_of
                        .get(&inner[0].0)
                        .is_some_and(|hosts| hosts.iter().any(|&h| contains(h, inner, constant)))
                })
            })
            .collect();
        nested.sort_by_key(|&id| (inner_terms(id).map_or(0, |t| t.len()), id));
        nested.dedup();
        nested
    }

    fn needs_local(&self, id: Id) -> bool {
        let leaf = matches!(
            self.pool.node(id),
            Node::Num(_) | Node::Pi | Node::Symbol(_)
        );
        !leaf
            && (self.uses.get(&id).copied().unwrap_or(0) >= 2
                || self.is_trig(id)
                || self.long_nested.contains(&id))
    }

    fn is_trig(&self, id: Id) -> bool {
        matches!(self.pool.node(id), Node::Sin(_) | Node::Cos(_))
    }

    fn local_name(&self, id: Id) -> String {
        let prefix = match self.pool.node(id) {
            Node::Sin(u) => Some(("s", *u)),
            Node::Cos(u) => Some(("c", *u)),
            _ => None,
        };
        if let Some((p, u)) = prefix {
            if let Node::Symbol(symbol) = self.pool.node(u) {
                return format!("{p}_{}", identifier_part(&symbol.to_string()));
            }
        }
        format!("t{}", self.program.locals.len())
    }

    /// The term that refers to `id` from a user: its local, or its inlined expansion.
    fn term(&self, id: Id) -> Term {
        if let Some(&i) = self.local_of.get(&id) {
            return Term::Local(i);
        }
        match self.pool.node(id) {
            Node::Num(c) => Term::Const(c.to_f64()),
            Node::Pi => Term::Pi,
            Node::Symbol(symbol) => Term::Input(symbol.clone()),
            _ => self.expand(id),
        }
    }

    /// The defining expression of `id`.
    fn expand(&self, id: Id) -> Term {
        match self.pool.node(id) {
            Node::Add(terms, c0) => self.expand_sum_reusing(id, terms, *c0),
            Node::Mul(factors) => self.expand_product_reusing(id, factors),
            Node::Sin(u) => Term::Sin(Box::new(self.term(*u))),
            Node::Cos(u) => Term::Cos(Box::new(self.term(*u))),
            Node::Sqrt(u) => Term::Sqrt(Box::new(self.term(*u))),
            Node::Num(_) | Node::Pi | Node::Symbol(_) => self.term(id),
        }
    }

    /// A sum that contains an already computed sum (or its negation) reads
    /// that local instead of adding its terms again: with `t = q̇₁ + q̇₂`
    /// computed, `q̇₁ + q̇₂ + q̇₃` is emitted as `t + q̇₃`. Flat canonical sums
    /// otherwise repeat every shared partial sum; the largest contained
    /// local is taken first, repeatedly. The candidates are tried largest
    /// first and the terms looked up by id, so that a chain's flat sums,
    /// each containing all the previous ones, cost their length, not its
    /// square.
    fn expand_sum_reusing(&self, id: Id, terms: &[(Id, Coeff)], c0: Coeff) -> Term {
        let mut rest: Vec<(Id, Coeff)> = terms.to_vec();
        let mut reused: Vec<(Term, bool)> = Vec::new();
        // What is left of the constant part once the reused sums' own are
        // taken out: a sum longer than `LONG_SUM` also reuses sums with a
        // constant part (a chain's vertical positions), which no shorter one
        // does, so that no bundled module changes.
        let mut constant = c0;
        let long = is_long(terms);
        while rest.len() >= 2 {
            let mut candidates: Vec<Candidate<'_>> = rest
                .iter()
                .filter_map(|(t, _)| self.local_sums.get(t))
                .flatten()
                .filter(|(sum, _)| *sum != id)
                .filter_map(|&(sum, local)| match self.pool.node(sum) {
                    Node::Add(inner, k)
                        if (k.is_zero() || long)
                            && inner.len() >= 2
                            && inner.len() <= rest.len() =>
                    {
                        Some((inner.len(), sum, local, &inner[..]))
                    }
                    _ => None,
                })
                .collect();
            if candidates.is_empty() {
                break;
            }
            candidates.sort_unstable_by_key(|&(size, sum, _, _)| std::cmp::Reverse((size, sum)));
            let coefficients: HashMap<Id, Coeff> = rest.iter().copied().collect();
            let contained = candidates.into_iter().find_map(|(_, sum, local, inner)| {
                let sign = coefficients.get(&inner[0].0).copied()?;
                let negated = if sign == inner[0].1 {
                    false
                } else if sign == -inner[0].1 {
                    true
                } else {
                    return None;
                };
                let all = inner.iter().all(|&(t, c)| {
                    let want = if negated { -c } else { c };
                    coefficients.get(&t) == Some(&want)
                });
                all.then_some((sum, local, negated))
            });
            let Some((sum, local, negated)) = contained else {
                break;
            };
            if let Node::Add(inner, k) = self.pool.node(sum) {
                let taken: HashSet<Id> = inner.iter().map(|&(t, _)| t).collect();
                rest.retain(|(t, _)| !taken.contains(t));
                constant = constant + if negated { *k } else { -*k };
            }
            reused.push((Term::Local(local), negated));
        }
        if reused.is_empty() {
            return self.expand_sum(terms, c0);
        }
        reused.extend(self.sum_items(&rest, constant));
        signed_sum(reused)
    }

    /// `Σ cᵢ·tᵢ + c₀` with terms that share a coefficient magnitude grouped:
    /// `0.5a − 0.5b + 2c + 2d` is emitted as `0.5·(a − b) + 2·(c + d)`, one
    /// multiplication per distinct magnitude rather than one per term.
    fn expand_sum(&self, terms: &[(Id, Coeff)], c0: Coeff) -> Term {
        signed_sum(self.sum_items(terms, c0))
    }

    /// The signed items of [`Self::expand_sum`], for callers that add
    /// further items to the same chain.
    fn sum_items(&self, terms: &[(Id, Coeff)], c0: Coeff) -> Vec<(Term, bool)> {
        let mut groups: Vec<(Coeff, Vec<(Term, bool)>)> = Vec::new();
        for &(t, c) in terms {
            let magnitude = if c.is_negative() { -c } else { c };
            let item = (self.term(t), c.is_negative());
            match groups.iter_mut().find(|(m, _)| *m == magnitude) {
                Some((_, items)) => items.push(item),
                None => groups.push((magnitude, vec![item])),
            }
        }
        let mut items: Vec<(Term, bool)> = Vec::with_capacity(groups.len() + 1);
        for (magnitude, group) in groups {
            if magnitude.is_one() {
                items.extend(group);
                continue;
            }
            let factor = Term::Const(magnitude.to_f64());
            let all_negative = group.iter().all(|(_, negative)| *negative);
            let inner = signed_sum(
                group
                    .into_iter()
                    .map(|(t, negative)| (t, negative && !all_negative))
                    .collect(),
            );
            items.push((Term::Mul(Box::new(factor), Box::new(inner)), all_negative));
        }
        if !c0.is_zero() {
            items.push((Term::Const(c0.to_f64().abs()), c0.is_negative()));
        }
        items
    }

    /// A product that contains an already computed product reads that
    /// local instead of multiplying its factors again: with `t = q̇₀ sin q₁`
    /// computed, `q̇₀ q̇₁ sin q₁` is emitted as `t · q̇₁`. The largest
    /// contained local (by factor count, powers counted) is taken first,
    /// repeatedly; a local must leave at least one factor over, or it would
    /// be the product itself.
    fn expand_product_reusing(&self, id: Id, factors: &[(Id, i32)]) -> Term {
        let mut rest: Vec<(Id, i32)> = factors.to_vec();
        let mut reused: Vec<Term> = Vec::new();
        loop {
            let available = degree(&rest);
            let contained = rest
                .iter()
                .filter_map(|(b, _)| self.local_products.get(b))
                .flatten()
                .filter(|(product, _)| *product != id)
                .filter_map(|&(product, local)| {
                    let Node::Mul(inner) = self.pool.node(product) else {
                        return None;
                    };
                    let size = degree(inner);
                    let fits = size >= 2
                        && size < available
                        && inner
                            .iter()
                            .all(|&(b, e)| rest.iter().any(|&(r, re)| r == b && re >= e));
                    fits.then_some((size, product, local))
                })
                .max_by_key(|&(size, product, _)| (size, product));
            let Some((_, product, local)) = contained else {
                break;
            };
            if let Node::Mul(inner) = self.pool.node(product) {
                for &(b, e) in inner.iter() {
                    if let Some(slot) = rest.iter_mut().find(|(r, _)| *r == b) {
                        slot.1 -= e;
                    }
                }
                rest.retain(|&(_, e)| e != 0);
            }
            reused.push(Term::Local(local));
        }
        let Some(first) = reused.first().cloned() else {
            return self.expand_product(factors);
        };
        let head = reused
            .into_iter()
            .skip(1)
            .fold(first, |acc, t| Term::Mul(Box::new(acc), Box::new(t)));
        if rest.is_empty() {
            return head;
        }
        match self.expand_product(&rest) {
            Term::Div(numerator, denominator) if *numerator == Term::Const(1.0) => {
                Term::Div(Box::new(head), denominator)
            }
            Term::Div(numerator, denominator) => {
                Term::Div(Box::new(Term::Mul(Box::new(head), numerator)), denominator)
            }
            tail => Term::Mul(Box::new(head), Box::new(tail)),
        }
    }

    fn expand_product(&self, factors: &[(Id, i32)]) -> Term {
        let power = |b: Id, e: u32| -> Term {
            let base = self.term(b);
            (1..e).fold(base.clone(), |acc, _| {
                Term::Mul(Box::new(acc), Box::new(base.clone()))
            })
        };
        let product = |list: Vec<Term>| -> Option<Term> {
            list.into_iter()
                .reduce(|acc, t| Term::Mul(Box::new(acc), Box::new(t)))
        };
        let reciprocal = |b: Id, e: u32| -> Option<Term> {
            let local = Term::Local(*self.reciprocal_of.get(&b)?);
            Some((1..e).fold(local.clone(), |acc, _| {
                Term::Mul(Box::new(acc), Box::new(local.clone()))
            }))
        };
        let numerator = product(
            factors
                .iter()
                .filter_map(|&(b, e)| match e {
                    e if e > 0 => Some(power(b, e.unsigned_abs())),
                    e => reciprocal(b, e.unsigned_abs()),
                })
                .collect(),
        );
        let denominator = product(
            factors
                .iter()
                .filter(|&&(b, e)| e < 0 && !self.reciprocal_of.contains_key(&b))
                .map(|&(b, e)| power(b, e.unsigned_abs()))
                .collect(),
        );
        match (numerator, denominator) {
            (Some(n), None) => n,
            (Some(n), Some(d)) => Term::Div(Box::new(n), Box::new(d)),
            (None, Some(d)) => Term::Div(Box::new(Term::Const(1.0)), Box::new(d)),
            (None, None) => Term::Const(1.0),
        }
    }
}

/// The number of multiplied factors of a product, powers counted (`x²y`
/// has three); divisors do not count.
fn degree(factors: &[(Id, i32)]) -> i32 {
    factors
        .iter()
        .filter(|&&(_, e)| e > 0)
        .map(|&(_, e)| e)
        .sum()
}

/// The letters, digits and underscores of a symbol name, so that `q[2]`
/// names its sine `s_q2` and `p.th` its cosine `c_pth`: always a valid
/// identifier suffix.
fn identifier_part(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}
