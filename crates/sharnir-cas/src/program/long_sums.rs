//! The long sums of long chains (more than [`LONG_SUM`] terms): a link's
//! position sums every inboard offset, because the canonical form flattens
//! a sum of sums, so a chain's positions are sums of every length up to
//! the chain's, each containing the one before. The lowering writes each
//! as the one before plus its own terms; this finds which those are, in
//! time linear in their total length. No bundled spec has a sum this long,
//! so their modules do not depend on it.

use crate::absorb::LONG_SUM;
use crate::coeff::Coeff;
use crate::pool::{Id, Node, Pool};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Whether a sum is long enough (more than [`LONG_SUM`] terms) to reuse
/// contained sums with constant parts.
pub(super) fn is_long(terms: &[(Id, Coeff)]) -> bool {
    terms.len() > LONG_SUM
}

/// The sums of more than [`LONG_SUM`] terms reachable in `pool` that
/// another such sum contains (the same terms with the same coefficients,
/// or all negated; constant parts aside). A long chain's positions are
/// such sums, each containing the one before, and an expression that reads
/// every one once (the potential energy's heights) would otherwise repeat
/// them all: as locals, each is the one before plus its own terms. No
/// bundled spec has a sum this long.
pub(super) fn contained_long_sums(pool: &Pool, reachable: &[bool]) -> HashSet<Id> {
    let long: Vec<(Id, &[(Id, Coeff)])> = reachable
        .iter()
        .enumerate()
        .filter(|(_, &seen)| seen)
        .filter_map(|(i, _)| {
            let id = Id::from_index(i);
            match pool.node(id) {
                Node::Add(terms, _) if is_long(terms) => Some((id, &terms[..])),
                _ => None,
            }
        })
        .collect();
    let mut hosts_of: HashMap<Id, Vec<usize>> = HashMap::default();
    for (host, (_, terms)) in long.iter().enumerate() {
        for &(t, _) in terms.iter() {
            hosts_of.entry(t).or_default().push(host);
        }
    }
    let mut coefficients: Vec<Option<HashMap<Id, Coeff>>> = vec![None; long.len()];
    let mut nested = HashSet::default();
    for (inner, &(id, terms)) in long.iter().enumerate() {
        let hosts = hosts_of.get(&terms[0].0).map_or(&[][..], Vec::as_slice);
        for &host in hosts {
            let outer = long[host].1;
            if host == inner || outer.len() <= terms.len() {
                continue;
            }
            let outer = coefficients[host].get_or_insert_with(|| outer.iter().copied().collect());
            let coefficient = |t: Id| outer.get(&t).copied();
            if terms.iter().all(|&(t, c)| coefficient(t) == Some(c))
                || terms.iter().all(|&(t, c)| coefficient(t) == Some(-c))
            {
                nested.insert(id);
                break;
            }
        }
    }
    nested
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;
    use crate::symbol::Symbol;

    /// `x0 … x99` at 0.01 apart.
    fn env(symbol: &Symbol) -> Option<f64> {
        let name = symbol.to_string();
        let index: f64 = name.strip_prefix('x')?.parse().ok()?;
        Some(0.5 + 0.01 * index)
    }

    #[test]
    fn long_sums_with_constants_reuse_the_ones_they_contain() {
        // The vertical positions of a long chain: `1.5 + Σ_{i<k} x_i` for
        // k past `LONG_SUM`, each the previous one plus one term.
        let mut pool = Pool::new();
        let x: Vec<Id> = (0..LONG_SUM + 10)
            .map(|i| pool.symbol(&format!("x{i}")))
            .collect();
        let roots: Vec<Id> = (LONG_SUM + 2..LONG_SUM + 10)
            .map(|k| {
                let terms: Vec<(Id, Coeff)> = x[..k].iter().map(|&t| (t, Coeff::ONE)).collect();
                pool.linear(&terms, Coeff::ratio(3, 2))
            })
            .collect();
        let program = Program::lower(&pool, &roots);
        // The first: its 82 terms and the constant; then one per sum.
        assert_eq!(program.op_count().add as usize, LONG_SUM + 2 + 7);
        let got = program.eval(&env).expect("bound");
        let want = pool.eval(&roots, &env).expect("bound");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12 * w.abs(), "{got:?} vs {want:?}");
        }
    }
}
