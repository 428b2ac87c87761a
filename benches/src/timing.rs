//! A plain stopwatch: the measured loop shared with the criterion bench, and
//! the median per-call times the speed table reports.

use std::time::{Duration, Instant};

/// How long the contestants of a case run before they are timed, so that
/// caches, branch predictors and the clock frequency have settled.
const WARM_UP: Duration = Duration::from_millis(100);

/// Shortest timed batch: long against the resolution and the cost of reading
/// `Instant` (tens of nanoseconds), short against a scheduler time slice, so
/// that most batches run undisturbed by the other processes of the machine.
const BATCH: Duration = Duration::from_micros(200);

/// Batches timed per contestant; the median of their per-call times is
/// reported, which the batches that other processes disturbed do not move.
const BATCHES: usize = 501;

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

/// The median time of one call of each of three closures, in nanoseconds.
///
/// Batches of the three alternate (after a common warm-up), so that a
/// slow spell of the machine falls on all three alike and their ratios stay
/// meaningful on a busy machine.
pub fn interleaved_medians_ns(a: impl FnMut(), b: impl FnMut(), c: impl FnMut()) -> [f64; 3] {
    let (mut a, mut b, mut c) = (Stopwatch::new(a), Stopwatch::new(b), Stopwatch::new(c));
    let warm_up = Instant::now();
    while warm_up.elapsed() < WARM_UP {
        a.run();
        b.run();
        c.run();
    }
    for _ in 0..BATCHES {
        a.record();
        b.record();
        c.record();
    }
    [a.median_ns(), b.median_ns(), c.median_ns()]
}

/// One closure, its batch length and the per-call times of its batches.
struct Stopwatch<F> {
    call: F,
    iterations: u64,
    per_call_ns: Vec<f64>,
}

impl<F: FnMut()> Stopwatch<F> {
    /// Finds the number of calls that makes a batch last at least [`BATCH`].
    fn new(mut call: F) -> Stopwatch<F> {
        let mut iterations: u64 = 1;
        while time_batch(&mut call, iterations) < BATCH && iterations < 1 << 40 {
            iterations *= 2;
        }
        Stopwatch {
            call,
            iterations,
            per_call_ns: Vec::with_capacity(BATCHES),
        }
    }

    /// Runs one batch and returns its time.
    fn run(&mut self) -> Duration {
        time_batch(&mut self.call, self.iterations)
    }

    /// Runs one batch and keeps its time per call.
    fn record(&mut self) {
        let per_call = self.run().as_secs_f64() * 1e9 / self.iterations as f64;
        self.per_call_ns.push(per_call);
    }

    /// The median of the recorded times per call.
    fn median_ns(&mut self) -> f64 {
        median(&mut self.per_call_ns).unwrap_or(f64::NAN)
    }
}

/// The median of `values` (the mean of the middle two for an even count),
/// `None` when there are none. Sorts `values`.
fn median(values: &mut [f64]) -> Option<f64> {
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
