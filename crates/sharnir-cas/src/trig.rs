//! Contraction of products of sines and cosines into sines and cosines of
//! angle sums.
//!
//! Composing the rotations of a serial chain multiplies out angle-addition
//! identities: the orientation of a planar 2R arm is `c₁c₂ − s₁s₂` where
//! `cos(q₁ + q₂)` would do, and every further parallel joint doubles the
//! terms again. The pool's canonical form keeps such sums flat and never
//! undoes the expansion, so generated code pays two multiplications and an
//! addition per pair of terms, over and over. [`contract_angle_sums`] folds
//! the pairs back:
//!
//! - `k·X·cos a·cos b − k·X·sin a·sin b` → `k·X·cos(a + b)`;
//! - `k·X·cos a·cos b + k·X·sin a·sin b` → `k·X·cos(a − b)`;
//! - `k·X·sin a·cos b + k·X·cos a·sin b` → `k·X·sin(a + b)`;
//! - `k·X·sin a·cos b − k·X·cos a·sin b` → `k·X·sin(a − b)`;
//!
//! with the same numeric coefficient `k` and the same remaining cofactor `X`
//! (possibly 1) in both terms, repeatedly, so `c₁·c₂₃ − s₁·s₂₃` becomes
//! `cos(q₁ + q₂ + q₃)` once `c₂₃` has been formed.
//!
//! The rewrite only adds nodes to the pool; the input expressions keep their
//! ids and meaning, so a caller can lower both the input and the output to a
//! [`Program`](crate::Program) and keep whichever is cheaper.

use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::FxHashMap as HashMap;

/// Rewrites the DAG reachable from `roots` bottom-up, contracting every pair
/// of sum terms that matches an angle-addition identity (see the module
/// documentation), and returns the rewritten roots in order.
///
/// This exists because expanded angle sums are the dominant redundancy of
/// chain kinematics and the canonical constructors cannot see it: it needs
/// two terms of one sum at a time. Every node is rewritten once (shared
/// subexpressions stay shared), children before parents, and every choice
/// follows ids and term order, never hash order, so two runs on equal input
/// build equal pools and emit byte-identical code. The function is pure over
/// the pool: existing nodes are untouched, so the caller can compare
/// [`Program::lower`](crate::Program::lower) op counts of `roots` and of the
/// result and keep the cheaper.
pub fn contract_angle_sums(pool: &mut Pool, roots: &[Id]) -> Vec<Id> {
    let Some(max) = roots.iter().max() else {
        return Vec::new();
    };
    let reachable = pool.reachable(roots);
    // Children have smaller ids than their parents, so one pass in id order
    // rewrites every child before its users.
    let mut image: Vec<Id> = (0..=max.index()).map(Id::from_index).collect();
    for (i, &seen) in reachable.iter().enumerate() {
        if seen {
            image[i] = rebuild(pool, Id::from_index(i), &image);
        }
    }
    roots.iter().map(|r| image[r.index()]).collect()
}

/// The rewritten form of `id`, given the rewritten forms of its children.
fn rebuild(pool: &mut Pool, id: Id, image: &[Id]) -> Id {
    let map = |c: Id| image[c.index()];
    match pool.node(id).clone() {
        Node::Num(_) | Node::Pi | Node::Symbol(_) => id,
        Node::Add(terms, c0) => {
            let mapped: Vec<(Id, Coeff)> = terms.iter().map(|&(t, c)| (map(t), c)).collect();
            let (mut current, mut constant) = normalise(pool, &mapped, c0);
            let mut contracted = false;
            while let Some(items) = contract_pass(pool, &current) {
                contracted = true;
                (current, constant) = normalise(pool, &items, constant);
            }
            if !contracted && mapped.as_slice() == &*terms {
                id
            } else {
                pool.linear(&current, constant)
            }
        }
        Node::Mul(factors) => {
            let mapped: Vec<(Id, i32)> = factors.iter().map(|&(b, e)| (map(b), e)).collect();
            if mapped.as_slice() == &*factors {
                id
            } else {
                pool.product(&mapped)
            }
        }
        Node::Sin(u) if map(u) != u => pool.sin(map(u)),
        Node::Cos(u) if map(u) != u => pool.cos(map(u)),
        Node::Sqrt(u) if map(u) != u => pool.sqrt(map(u)),
        Node::Sin(_) | Node::Cos(_) | Node::Sqrt(_) => id,
    }
}

/// Brings `Σ cᵢ·tᵢ + c₀` to the shape of a canonical sum without interning
/// it: numbers go into the constant, scaled single terms and unit-scaled
/// sums are flattened (as [`Pool::linear`] would), terms are sorted by id,
/// like terms merged and zeros dropped. Contraction then sees each distinct
/// term once.
fn normalise(pool: &Pool, items: &[(Id, Coeff)], constant: Coeff) -> (Vec<(Id, Coeff)>, Coeff) {
    let mut c0 = constant;
    let mut flat: Vec<(Id, Coeff)> = Vec::with_capacity(items.len());
    for &(id, c) in items {
        match pool.node(id) {
            Node::Num(v) => c0 = c0 + c * *v,
            Node::Add(terms, k)
                if c.is_one() || c.is_minus_one() || (terms.len() == 1 && k.is_zero()) =>
            {
                c0 = c0 + c * *k;
                flat.extend(terms.iter().map(|&(t, tc)| (t, tc * c)));
            }
            _ => flat.push((id, c)),
        }
    }
    flat.sort_by_key(|&(id, _)| id);
    let mut terms: Vec<(Id, Coeff)> = Vec::with_capacity(flat.len());
    for (id, c) in flat {
        match terms.last_mut() {
            Some((last, lc)) if *last == id => *lc = *lc + c,
            _ => terms.push((id, c)),
        }
    }
    terms.retain(|(_, c)| !c.is_zero());
    (terms, c0)
}

/// A trigonometric factor: `sin` or `cos` of an angle.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Trig {
    Sin(Id),
    Cos(Id),
}

/// The factors `bᵢ^eᵢ` of a term, sorted by id as in a canonical product.
type Factors = Vec<(Id, i32)>;

/// The factors of a sum term: a product's own, or the term itself.
fn factors_of(pool: &Pool, term: Id) -> Factors {
    match pool.node(term) {
        Node::Mul(factors) => factors.to_vec(),
        _ => vec![(term, 1)],
    }
}

/// `Some` if the node is a sine or cosine.
fn trig_of(pool: &Pool, id: Id) -> Option<Trig> {
    match pool.node(id) {
        Node::Sin(a) => Some(Trig::Sin(*a)),
        Node::Cos(a) => Some(Trig::Cos(*a)),
        _ => None,
    }
}

/// `factors · base^delta`, kept sorted with zero exponents dropped.
fn adjust(factors: &mut Factors, base: Id, delta: i32) {
    match factors.binary_search_by_key(&base, |&(b, _)| b) {
        Ok(i) => {
            factors[i].1 += delta;
            if factors[i].1 == 0 {
                factors.remove(i);
            }
        }
        Err(i) => factors.insert(i, (base, delta)),
    }
}

/// One pass over the terms of a normalised sum: every term, in order, that
/// holds `cos a·cos b` or `sin a·cos b` (one power of each, `a ≠ b`) is
/// paired with the first unused term that is the same cofactor times
/// `sin a·sin b` or `cos a·sin b` with coefficient `±k`, and the pair is
/// replaced by one term. `None` if no pair was found; otherwise the new,
/// not yet normalised, list of terms.
fn contract_pass(pool: &mut Pool, terms: &[(Id, Coeff)]) -> Option<Vec<(Id, Coeff)>> {
    let shapes: Vec<Factors> = terms.iter().map(|&(t, _)| factors_of(pool, t)).collect();
    if shapes.len() < 2 {
        return None;
    }
    // Lookups only: iteration always follows `terms`, so hashing never
    // decides anything.
    let by_shape: HashMap<&[(Id, i32)], usize> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_slice(), i))
        .collect();
    let mut trig_node: HashMap<Trig, Id> = HashMap::default();
    for shape in &shapes {
        for &(b, _) in shape {
            if let Some(t) = trig_of(pool, b) {
                trig_node.insert(t, b);
            }
        }
    }
    let mut used = vec![false; terms.len()];
    let mut out: Vec<(Id, Coeff)> = Vec::with_capacity(terms.len());
    let mut any = false;
    for i in 0..terms.len() {
        if used[i] {
            continue;
        }
        let found = find_partner(pool, &shapes[i], terms[i].1, &trig_node, |partner| {
            by_shape
                .get(partner)
                .copied()
                .filter(|&j| j != i && !used[j])
                .map(|j| (j, terms[j].1))
        });
        if let Some((j, cofactor, trig)) = found {
            used[i] = true;
            used[j] = true;
            any = true;
            let mut factors = cofactor;
            factors.push((trig, 1));
            let term = pool.product(&factors);
            out.push((term, terms[i].1));
        }
    }
    if !any {
        return None;
    }
    out.extend(
        terms
            .iter()
            .zip(&used)
            .filter(|(_, &u)| !u)
            .map(|(&t, _)| t),
    );
    Some(out)
}

/// The first partner of a term with factors `shape` and coefficient `k`:
/// tries the ordered pairs of its distinct trigonometric factors in factor
/// order, asks `lookup` for a live term with the complementary factors, and
/// returns that term's index, the shared cofactor `X` and the contracted
/// `sin`/`cos` of the angle sum or difference.
fn find_partner(
    pool: &mut Pool,
    shape: &Factors,
    k: Coeff,
    trig_node: &HashMap<Trig, Id>,
    lookup: impl Fn(&[(Id, i32)]) -> Option<(usize, Coeff)>,
) -> Option<(usize, Factors, Id)> {
    let trigs: Vec<(Id, Trig)> = shape
        .iter()
        .filter(|&&(_, e)| e >= 1)
        .filter_map(|&(b, _)| trig_of(pool, b).map(|t| (b, t)))
        .collect();
    for (p, &(fp, tp)) in trigs.iter().enumerate() {
        for (q, &(fq, tq)) in trigs.iter().enumerate() {
            // cos a·cos b is unordered (take it once); sin a·cos b is ordered.
            let (a, b, want_a, want_b, is_cos) = match (tp, tq) {
                (Trig::Cos(a), Trig::Cos(b)) if p < q => (a, b, Trig::Sin(a), Trig::Sin(b), true),
                (Trig::Sin(a), Trig::Cos(b)) => (a, b, Trig::Cos(a), Trig::Sin(b), false),
                _ => continue,
            };
            if a == b {
                continue;
            }
            let (Some(&ga), Some(&gb)) = (trig_node.get(&want_a), trig_node.get(&want_b)) else {
                continue;
            };
            let mut cofactor = shape.clone();
            adjust(&mut cofactor, fp, -1);
            adjust(&mut cofactor, fq, -1);
            let mut partner = cofactor.clone();
            adjust(&mut partner, ga, 1);
            adjust(&mut partner, gb, 1);
            let Some((j, kj)) = lookup(&partner) else {
                continue;
            };
            let same = kj == k;
            if !same && kj != -k {
                continue;
            }
            // cos: −k gives a + b, +k gives a − b; sin: +k gives a + b.
            let plus = same != is_cos;
            let angle = if plus { pool.add(a, b) } else { pool.sub(a, b) };
            let trig = if is_cos {
                pool.cos(angle)
            } else {
                pool.sin(angle)
            };
            return Some((j, cofactor, trig));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{OpCount, Program};
    use crate::symbol::Symbol;

    fn total(ops: OpCount) -> u32 {
        ops.mul + ops.add + ops.div + ops.sqrt + ops.sin + ops.cos
    }

    fn trig_pair(p: &mut Pool, a: Id, b: Id) -> (Id, Id, Id, Id) {
        let (sa, ca, sb, cb) = (p.sin(a), p.cos(a), p.sin(b), p.cos(b));
        (sa, ca, sb, cb)
    }

    /// `k·X·f·g` as a canonical term.
    fn term(p: &mut Pool, k: i64, x: Id, f: Id, g: Id) -> Id {
        let prod = p.mul_all(&[x, f, g]);
        p.scale(Coeff::int(k), prod)
    }

    fn contract_one(p: &mut Pool, e: Id) -> Id {
        contract_angle_sums(p, &[e])[0]
    }

    #[test]
    fn the_four_patterns_contract_to_the_expected_nodes() {
        let mut p = Pool::new();
        let (a, b, l, y) = (p.symbol("a"), p.symbol("b"), p.symbol("l"), p.symbol("y"));
        let (sa, ca, sb, cb) = trig_pair(&mut p, a, b);
        let one = p.one();

        // 3·l·(ca·cb − sa·sb) + y = 3·l·cos(a + b) + y
        let t1 = term(&mut p, 3, l, ca, cb);
        let t2 = term(&mut p, -3, l, sa, sb);
        let e = p.sum(&[t1, t2, y]);
        let got = contract_one(&mut p, e);
        let ab = p.add(a, b);
        let cab = p.cos(ab);
        let want_body = term(&mut p, 3, l, cab, one);
        let want = p.add(want_body, y);
        assert_ne!(e, want);
        assert_eq!(got, want, "cos(a + b)");

        // 3·l·(ca·cb + sa·sb) = 3·l·cos(a − b)
        let t2 = term(&mut p, 3, l, sa, sb);
        let e = p.add(t1, t2);
        let got = contract_one(&mut p, e);
        let amb = p.sub(a, b);
        let camb = p.cos(amb);
        let want = term(&mut p, 3, l, camb, one);
        assert_eq!(got, want, "cos(a − b)");

        // 3·l·(sa·cb + ca·sb) = 3·l·sin(a + b)
        let t1 = term(&mut p, 3, l, sa, cb);
        let t2 = term(&mut p, 3, l, ca, sb);
        let e = p.add(t1, t2);
        let got = contract_one(&mut p, e);
        let sab = p.sin(ab);
        let want = term(&mut p, 3, l, sab, one);
        assert_eq!(got, want, "sin(a + b)");

        // 3·l·(sa·cb − ca·sb) = 3·l·sin(a − b)
        let t2 = term(&mut p, -3, l, ca, sb);
        let e = p.add(t1, t2);
        let got = contract_one(&mut p, e);
        let samb = p.sin(amb);
        let want = term(&mut p, 3, l, samb, one);
        assert_eq!(got, want, "sin(a − b)");

        // sb·ca − cb·sa = sin(b − a) = −sin(a − b): the pool's parity rule.
        let t1 = p.mul(sb, ca);
        let t2 = p.mul(cb, sa);
        let e = p.sub(t1, t2);
        let got = contract_one(&mut p, e);
        assert_eq!(got, p.neg(samb), "sin(b − a)");
    }

    #[test]
    fn different_cofactors_or_coefficients_do_not_contract() {
        let mut p = Pool::new();
        let (a, b, l, m) = (p.symbol("a"), p.symbol("b"), p.symbol("l"), p.symbol("m"));
        let (sa, ca, sb, cb) = trig_pair(&mut p, a, b);
        let one = p.one();

        let t1 = term(&mut p, 2, l, ca, cb);
        let t2 = term(&mut p, -2, m, sa, sb);
        let e = p.add(t1, t2);
        assert_eq!(contract_one(&mut p, e), e, "cofactors l and m differ");

        let t2 = term(&mut p, -2, one, sa, sb);
        let e = p.add(t1, t2);
        assert_eq!(contract_one(&mut p, e), e, "cofactors l and 1 differ");

        let t2 = term(&mut p, -3, l, sa, sb);
        let e = p.add(t1, t2);
        assert_eq!(contract_one(&mut p, e), e, "coefficients 2 and −3 differ");

        let t1 = term(&mut p, 2, l, sa, cb);
        let t2 = term(&mut p, 1, l, ca, sb);
        let e = p.add(t1, t2);
        assert_eq!(contract_one(&mut p, e), e, "coefficients 2 and 1 differ");

        // sa·sb with ca·sb is no identity.
        let t1 = p.mul(sa, sb);
        let t2 = p.mul(ca, sb);
        let e = p.add(t1, t2);
        assert_eq!(contract_one(&mut p, e), e);
    }

    #[test]
    fn squares_are_left_alone() {
        let mut p = Pool::new();
        let a = p.symbol("a");
        let (s, c) = (p.sin(a), p.cos(a));
        let (s2, c2) = (p.powi(s, 2), p.powi(c, 2));
        let e = p.sub(c2, s2);
        assert_eq!(contract_one(&mut p, e), e, "cos²a − sin²a stays");
        let sc = p.mul(s, c);
        let y = p.symbol("y");
        let e = p.add(sc, y);
        assert_eq!(contract_one(&mut p, e), e, "sin a·cos a stays");
    }

    #[test]
    fn a_factor_with_a_higher_power_lends_one_power() {
        let mut p = Pool::new();
        let (a, b) = (p.symbol("a"), p.symbol("b"));
        let (sa, ca, sb, cb) = trig_pair(&mut p, a, b);
        // ca²·cb − ca·sa·sb = ca·cos(a + b)
        let t1 = p.product(&[(ca, 2), (cb, 1)]);
        let t2 = p.mul_all(&[ca, sa, sb]);
        let e = p.sub(t1, t2);
        let got = contract_one(&mut p, e);
        let ab = p.add(a, b);
        let cab = p.cos(ab);
        assert_eq!(got, p.mul(ca, cab));
        // ca²·cb − sa·sb has no common cofactor.
        let t2 = p.mul(sa, sb);
        let e = p.sub(t1, t2);
        assert_eq!(contract_one(&mut p, e), e);
    }

    #[test]
    fn a_term_joins_one_pair_only() {
        let mut p = Pool::new();
        let (a, b, c) = (p.symbol("a"), p.symbol("b"), p.symbol("c"));
        let (sa, ca, sb, cb) = trig_pair(&mut p, a, b);
        let (sc, cc) = (p.sin(c), p.cos(c));
        // −sa·sb·sc completes both ca·cb·sc (to sc·cos(a + b)) and
        // sa·cb·cc (to sa·cos(b + c)), but can be used only once.
        let t = [
            p.mul_all(&[ca, cb, sc]),
            p.mul_all(&[sa, cb, cc]),
            p.mul_all(&[sa, sb, sc]),
        ];
        let e = p.linear(
            &[
                (t[0], Coeff::ONE),
                (t[1], Coeff::ONE),
                (t[2], Coeff::MINUS_ONE),
            ],
            Coeff::ZERO,
        );
        let got = contract_one(&mut p, e);
        assert_ne!(got, e);
        for seed in 0..4 {
            let env = point(seed);
            let want = p.eval(&[e], &env).expect("bound")[0];
            let have = p.eval(&[got], &env).expect("bound")[0];
            assert!((want - have).abs() < 1e-12, "{want} vs {have}");
        }
    }

    #[test]
    fn contraction_repeats_until_no_pair_is_left() {
        let mut p = Pool::new();
        let q: Vec<Id> = (1..=3).map(|i| p.symbol(&format!("q{i}"))).collect();
        let s: Vec<Id> = q.iter().map(|&x| p.sin(x)).collect();
        let c: Vec<Id> = q.iter().map(|&x| p.cos(x)).collect();
        let want = {
            let angle = p.sum(&q);
            p.cos(angle)
        };
        // c1·(c2c3 − s2s3) − s1·(s2c3 + c2s3): nested sums, inner first.
        let c23 = {
            let (x, y) = (p.mul(c[1], c[2]), p.mul(s[1], s[2]));
            p.sub(x, y)
        };
        let s23 = {
            let (x, y) = (p.mul(s[1], c[2]), p.mul(c[1], s[2]));
            p.add(x, y)
        };
        let (x, y) = (p.mul(c[0], c23), p.mul(s[0], s23));
        let nested = p.sub(x, y);
        assert_eq!(contract_one(&mut p, nested), want);
        // The same, multiplied out into one flat sum of four terms.
        let flat = {
            let t = [
                p.mul_all(&[c[0], c[1], c[2]]),
                p.mul_all(&[c[0], s[1], s[2]]),
                p.mul_all(&[s[0], s[1], c[2]]),
                p.mul_all(&[s[0], c[1], s[2]]),
            ];
            p.linear(
                &[
                    (t[0], Coeff::ONE),
                    (t[1], Coeff::MINUS_ONE),
                    (t[2], Coeff::MINUS_ONE),
                    (t[3], Coeff::MINUS_ONE),
                ],
                Coeff::ZERO,
            )
        };
        assert_eq!(contract_one(&mut p, flat), want);
    }

    /// A 3×3 matrix of expressions.
    type Mat = [[Id; 3]; 3];

    fn rot(p: &mut Pool, axis: usize, angle: Id) -> Mat {
        let (s, c) = (p.sin(angle), p.cos(angle));
        let ms = p.neg(s);
        let (zero, one) = (p.zero(), p.one());
        let mut m = [[zero; 3]; 3];
        let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
        m[axis][axis] = one;
        m[i][i] = c;
        m[j][j] = c;
        m[i][j] = ms;
        m[j][i] = s;
        m
    }

    fn mat_mul(p: &mut Pool, a: &Mat, b: &Mat) -> Mat {
        let zero = p.zero();
        let mut m = [[zero; 3]; 3];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                let products: Vec<Id> = (0..3).map(|k| p.mul(a[i][k], b[k][j])).collect();
                *cell = p.sum(&products);
            }
        }
        m
    }

    fn mat_vec(p: &mut Pool, a: &Mat, v: &[Id; 3]) -> [Id; 3] {
        let mut out = [v[0]; 3];
        for (i, cell) in out.iter_mut().enumerate() {
            let products: Vec<Id> = (0..3).map(|k| p.mul(a[i][k], v[k])).collect();
            *cell = p.sum(&products);
        }
        out
    }

    /// Orientation and tip position of a serial chain: joint `i` rotates
    /// about `axes[i]` by `qᵢ` (plus a constant parameter offset `θᵢ` when
    /// `offsets`), then link `i` of length `lᵢ` runs along x. Returns the
    /// nine orientation entries, the three tip coordinates and the
    /// derivatives of the tip with respect to each `qᵢ`.
    fn chain(p: &mut Pool, axes: &[usize], offsets: bool) -> Vec<Id> {
        let zero = p.zero();
        let mut orientation: Option<Mat> = None;
        let mut tip = [zero; 3];
        let mut qs = Vec::new();
        for (i, &axis) in axes.iter().enumerate() {
            let q = p.symbol(&format!("q{i}"));
            qs.push(q);
            let angle = if offsets {
                let th = p.symbol(&format!("th{i}"));
                p.add(q, th)
            } else {
                q
            };
            let r = rot(p, axis, angle);
            let r = match orientation {
                Some(o) => mat_mul(p, &o, &r),
                None => r,
            };
            let l = p.symbol(&format!("l{i}"));
            let link = mat_vec(p, &r, &[l, zero, zero]);
            for k in 0..3 {
                tip[k] = p.add(tip[k], link[k]);
            }
            orientation = Some(r);
        }
        let mut roots: Vec<Id> = orientation.into_iter().flatten().flatten().collect();
        roots.extend(tip);
        for &q in &qs {
            roots.extend(p.diff_all(&tip, q));
        }
        roots
    }

    /// Deterministic pseudo-random values for every symbol of a chain.
    fn point(seed: u64) -> impl Fn(&Symbol) -> Option<f64> {
        move |symbol: &Symbol| {
            let name = symbol.to_string();
            let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
            for byte in name.bytes() {
                h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                h ^= h >> 29;
            }
            Some(((h >> 11) as f64 / (1u64 << 53) as f64) * 6.0 - 3.0)
        }
    }

    #[test]
    fn contraction_keeps_values_of_rotation_chains() {
        for code in 0..81usize {
            let axes = [code % 3, (code / 3) % 3, (code / 9) % 3, code / 27];
            let offsets = code % 2 == 1;
            let mut p = Pool::new();
            let roots = chain(&mut p, &axes, offsets);
            let contracted = contract_angle_sums(&mut p, &roots);
            // Only consecutive parallel axes multiply out angle sums.
            let parallel = axes.windows(2).any(|w| w[0] == w[1]);
            assert_eq!(contracted != roots, parallel, "axes {axes:?}");
            for seed in 0..4 {
                let env = point(seed);
                let before = p.eval(&roots, &env).expect("bound");
                let after = p.eval(&contracted, &env).expect("bound");
                for (k, (x, y)) in before.iter().zip(&after).enumerate() {
                    assert!(
                        (x - y).abs() <= 1e-12 * (1.0 + x.abs()),
                        "axes {axes:?} root {k} seed {seed}: {x} vs {y}"
                    );
                }
                let lowered = Program::lower(&p, &contracted).eval(&env).expect("bound");
                for (x, y) in lowered.iter().zip(&after) {
                    assert!((x - y).abs() <= 1e-12 * (1.0 + x.abs()));
                }
            }
        }
    }

    /// The homogeneous transform of a planar 3R arm: orientation entries
    /// and tip position, composed joint by joint.
    fn planar_3r(p: &mut Pool) -> Vec<Id> {
        let roots = chain(p, &[2, 2, 2], false);
        // Orientation (9) and tip (3), without the Jacobian.
        roots[..12].to_vec()
    }

    #[test]
    fn contraction_shrinks_a_planar_3r_arm() {
        let mut p = Pool::new();
        let roots = planar_3r(&mut p);
        let contracted = contract_angle_sums(&mut p, &roots);
        let before = Program::lower(&p, &roots).op_count();
        let after = Program::lower(&p, &contracted).op_count();
        // Before: sin/cos of q0, q1, q2 and the multiplied-out products of
        // the composed rotations and links.
        assert_eq!(
            (before.mul, before.add, before.sin, before.cos),
            (16, 11, 3, 3),
            "before: {before}"
        );
        // After: the orientation entries are ±cos(q0 + q1 + q2) and
        // ±sin(q0 + q1 + q2); the tip is Σ lᵢ·cos(partial sum) and
        // Σ lᵢ·sin(partial sum): six multiplications, four additions, two
        // for the partial angle sums and one negation.
        assert_eq!(
            (after.mul, after.add, after.sin, after.cos),
            (6, 7, 3, 3),
            "after: {after}"
        );
        assert!(total(after) < total(before));
        // The tip's x coordinate is l0·cos q0 + l1·cos(q0 + q1) + l2·cos(q0 + q1 + q2).
        let (q, l): (Vec<Id>, Vec<Id>) = (0..3)
            .map(|i| (p.symbol(&format!("q{i}")), p.symbol(&format!("l{i}"))))
            .unzip();
        let a01 = p.add(q[0], q[1]);
        let a012 = p.add(a01, q[2]);
        let (c0, c01, c012) = (p.cos(q[0]), p.cos(a01), p.cos(a012));
        let x = {
            let t = [p.mul(l[0], c0), p.mul(l[1], c01), p.mul(l[2], c012)];
            p.sum(&t)
        };
        assert_eq!(contracted[9], x);
    }

    #[test]
    fn two_runs_give_identical_programs() {
        let run = || {
            let mut p = Pool::new();
            let mut roots = chain(&mut p, &[2, 2, 0, 2], true);
            roots.extend(chain(&mut p, &[1, 0, 0, 1], false));
            let contracted = contract_angle_sums(&mut p, &roots);
            let program = Program::lower(&p, &contracted);
            (p.len(), contracted, format!("{program:?}"))
        };
        let first = run();
        assert_eq!(first, run());
        assert_eq!(first, run());
    }
}
