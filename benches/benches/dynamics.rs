//! Criterion benchmarks: for every robot and function, the runtime-parameter
//! module, the folded module and the generic algorithm, as the three members
//! of one criterion group (`telegin6/inverse_dynamics/generated`, …).
//!
//! ```text
//! cargo bench -p sharnir-benches
//! ```
//!
//! After each group a line gives the speed-ups, generic time over generated
//! time, from the mean time per call over every iteration criterion ran.
// `criterion_group!` generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use sharnir_benches::{compare_all, time_batch, Case, Comparison};
use std::time::Duration;

/// Runs each case's three implementations as one criterion group.
struct Groups<'a>(&'a mut Criterion);

impl Comparison for Groups<'_> {
    fn compare(
        &mut self,
        case: Case,
        generated: impl FnMut(),
        folded: impl FnMut(),
        generic: impl FnMut(),
    ) {
        let mut group = self.0.benchmark_group(case.to_string());
        let generated = run(&mut group, "generated", generated);
        let folded = run(&mut group, "folded", folded);
        let generic = run(&mut group, "generic", generic);
        group.finish();
        if let (Some(generated), Some(folded), Some(generic)) = (
            generated.ns_per_call(),
            folded.ns_per_call(),
            generic.ns_per_call(),
        ) {
            println!(
                "{case}: speed-up {:.1}× (generated), {:.1}× (folded)",
                generic / generated,
                generic / folded
            );
        }
    }
}

/// Every iteration criterion ran of one benchmark and their total time.
#[derive(Default)]
struct Tally {
    iterations: u64,
    elapsed: Duration,
}

impl Tally {
    /// Mean nanoseconds per call; `None` if criterion skipped the benchmark.
    fn ns_per_call(&self) -> Option<f64> {
        (self.iterations > 0).then(|| self.elapsed.as_secs_f64() * 1e9 / self.iterations as f64)
    }
}

/// Benchmarks `call` as member `name` of `group`, tallying what criterion
/// ran.
fn run(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, mut call: impl FnMut()) -> Tally {
    let mut tally = Tally::default();
    group.bench_function(name, |b| {
        b.iter_custom(|iterations| {
            let elapsed = time_batch(&mut call, iterations);
            tally.iterations += iterations;
            tally.elapsed += elapsed;
            elapsed
        })
    });
    tally
}

/// All robots, all functions; refuses to time code that disagrees with the
/// generic algorithms.
fn dynamics(c: &mut Criterion) {
    if let Err(disagreement) = compare_all(&mut Groups(c)) {
        panic!("{disagreement}");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots();
    targets = dynamics
}
criterion_main!(benches);
