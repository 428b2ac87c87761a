//! Benchmarks of sharnir's generated equations of motion against the generic
//! numeric algorithms of `sharnir-numeric`, which compute the same quantities
//! by recursive Newton–Euler, composite-rigid-body and articulated-body
//! sweeps over a tree.
//!
//! The question they answer is what straight-line generated code buys over a
//! generic implementation, in both parameter modes. Every case is timed three
//! ways on the same numeric tree and the same seeded pool of joint states:
//!
//! - `generated`: the module that reads parameters from `Params` at run time;
//! - `folded`: the `_folded` module, parameters compiled in as constants;
//! - `generic`: `sharnir_numeric::Tree` built from the same spec.
//!
//! Two harnesses share everything here through [`Comparison`]: the criterion
//! bench `dynamics` (`cargo bench -p sharnir-benches`) and the `speed-table`
//! binary, which prints the Markdown table of median times and speed-ups.
//! Before a robot is timed, its generated modules are checked against the
//! generic algorithms on the pool ([`Disagreement`]).
//!
//! Inside: `robots` lists the robots (adding one is one line), `kernels`
//! gives generated modules a common interface, `workload` holds a robot's
//! tree and states, `comparison` says what is compared, `timing` and `table`
//! serve the speed table.

mod comparison;
mod kernels;
mod robots;
mod table;
mod timing;
mod workload;

pub use comparison::{compare_all, Case, Comparison, Disagreement};
pub use table::{markdown, Row};
pub use timing::{interleaved_medians_ns, time_batch};

#[cfg(test)]
mod tests {
    use crate::kernels::{Robot, RobotVisitor};
    use crate::robots::for_each_robot;
    use crate::workload::{Workload, AGREEMENT_TOLERANCE};

    /// Records each robot's largest disagreement on the benchmark pool.
    struct Disagreements(Vec<(&'static str, f64)>);

    impl RobotVisitor for Disagreements {
        fn visit<const N: usize, R: Robot<N>>(&mut self) {
            let error = Workload::<N>::new(R::SPEC).largest_disagreement::<R>();
            self.0.push((R::SPEC, error));
        }
    }

    #[test]
    fn every_robot_is_benchmarked_on_code_that_agrees_with_the_generic_algorithms() {
        let mut found = Disagreements(Vec::new());
        for_each_robot(&mut found);
        assert!(found.0.len() >= 3, "robots: {:?}", found.0);
        for (robot, error) in found.0 {
            assert!(
                error <= AGREEMENT_TOLERANCE,
                "{robot}: off by {error:e} (tolerance {AGREEMENT_TOLERANCE:e})"
            );
        }
    }
}
