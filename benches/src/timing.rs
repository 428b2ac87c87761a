//! A plain stopwatch: the measured loop shared with the criterion bench, and
//! the median per-call time the speed table reports.

use std::time::{Duration, Instant};

/// How long a case runs before it is timed, so that caches, branch
/// predictors and the clock frequency have settled.
const WARM_UP: Duration = Duration::from_millis(100);

/// Shortest timed batch: long against the resolution and the cost of reading
/// `Instant` (tens of nanoseconds), short enough for many batches per case.
const BATCH: Duration = Duration::from_millis(2);

/// Batches timed per case; the median of their per-call times is reported,
/// which a few batches disturbed by other processes do not move.
const BATCHES: usize = 101;

/// Runs `call` `iterations` times back to back and returns the elapsed time.
///
/// This is the measured loop of both harnesses (the bench hands it to
/// criterion's `iter_custom`), so that they time exactly the same thing.
pub fn time_batch(call: &mut impl FnMut(), iterations: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iterations {
        call();
    }
    start.elapsed()
}

/// The median time of one call of `call`, in nanoseconds, over [`BATCHES`]
/// batches of at least [`BATCH`] each, after a [`WARM_UP`].
pub fn median_ns(mut call: impl FnMut()) -> f64 {
    let mut iterations: u64 = 1;
    while time_batch(&mut call, iterations) < BATCH && iterations < 1 << 40 {
        iterations *= 2;
    }
    let warm_up = Instant::now();
    while warm_up.elapsed() < WARM_UP {
        time_batch(&mut call, iterations);
    }
    let mut per_call: Vec<f64> = (0..BATCHES)
        .map(|_| time_batch(&mut call, iterations).as_secs_f64() * 1e9 / iterations as f64)
        .collect();
    median(&mut per_call).unwrap_or(f64::NAN)
}

/// The median of `values` (the mean of the middle two for an even count),
/// `None` when there are none. Sorts `values`.
pub fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    let upper = *values.get(middle)?;
    if values.len() % 2 == 1 {
        Some(upper)
    } else {
        values.get(middle - 1).map(|lower| (lower + upper) / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_an_odd_count_is_the_middle_value() {
        assert_eq!(median(&mut [5.0, 1.0, 3.0]), Some(3.0));
    }

    #[test]
    fn median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut [4.0, 1.0, 10.0, 2.0]), Some(3.0));
    }

    #[test]
    fn median_of_nothing_is_none() {
        assert_eq!(median(&mut []), None);
    }
}
