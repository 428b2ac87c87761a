//! Both cores for independent work: the programs of a module's functions,
//! the candidates of a choice, the printing of a module's functions.
//!
//! Generation runs on small machines (two cores is the norm in CI), so the
//! one way work is spread is a map over a list in order: each worker takes
//! the next item not yet taken, so that one long item does not leave the
//! other core idle behind it, and the results come back in the list's
//! order, so that the output is the same as a loop's, byte for byte.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of a worker: as deep as the main thread's, since lowering and
/// printing recurse as deep as the expressions.
pub const WORKER_STACK: usize = 8 << 20;

/// `work` applied to every item of `items`, in order, on as many threads as
/// there are cores (the calling thread is one of them). Where no thread can
/// start, or a worker panicked, the items it did not return are worked here.
pub fn map_in_order<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if workers <= 1 {
        return items.iter().map(&work).collect();
    }
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, work(item)));
        }
    };
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, worker)
                    .ok()
            })
            .collect();
        let mut results = worker();
        for helper in helpers {
            results.extend(helper.join().unwrap_or_default());
        }
        results
    });
    results.sort_unstable_by_key(|&(i, _)| i);
    let mut results = results.into_iter().peekable();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match results.next_if(|&(j, _)| j == i) {
            Some((_, result)) => result,
            None => work(item),
        })
        .collect()
}

/// [`map_in_order`] with the items taken largest first by `size`: each
/// worker still takes the next item not yet taken, but in that order, so
/// that the longest job starts first instead of last while the other core
/// finishes the rest (a long chain's Coriolis matrix is 40 % of its
/// module's lines and came seventh). The results come back in the items'
/// order, as [`map_in_order`]'s.
pub fn map_largest_first<T: Sync, R: Send>(
    items: &[T],
    size: impl Fn(&T) -> usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Each size measured once; stable: items of one size keep their order.
    order.sort_by_cached_key(|&i| std::cmp::Reverse(items.get(i).map_or(0, &size)));
    let sorted: Vec<&T> = order.iter().filter_map(|&i| items.get(i)).collect();
    let results = map_in_order(&sorted, |item| work(item));
    let mut placed: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, result) in order.into_iter().zip(results) {
        if let Some(slot) = placed.get_mut(i) {
            *slot = Some(result);
        }
    }
    placed.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_results_come_back_in_order() {
        let items: Vec<u64> = (0..200).collect();
        // Uneven work, so that the workers finish out of order.
        let got = map_in_order(&items, |&k| (0..(k % 7) * 1000).fold(k, |a, b| a ^ b));
        let want: Vec<u64> = items
            .iter()
            .map(|&k| (0..(k % 7) * 1000).fold(k, |a, b| a ^ b))
            .collect();
        assert_eq!(got, want);
        assert!(map_in_order(&[] as &[u8], |&b| b).is_empty());
    }

    #[test]
    fn largest_first_comes_back_in_order_too() {
        let items: Vec<u64> = (0..200).collect();
        let work = |&k: &u64| (0..(k % 7) * 1000).fold(k, |a, b| a ^ b);
        let got = map_largest_first(&items, |&k| usize::try_from(k % 7).unwrap_or(0), work);
        let want: Vec<u64> = items.iter().map(work).collect();
        assert_eq!(got, want);
        assert!(map_largest_first(&[] as &[u8], |_| 0, |&b| b).is_empty());
    }
}
