//! What is compared: each benchmarked function of each robot, evaluated by
//! its runtime-parameter module, its folded module and the generic
//! algorithm, on the same tree and the same states.

use crate::kernels::{Kernels, Robot, RobotVisitor};
use crate::robots::for_each_robot;
use crate::workload::{State, Workload, AGREEMENT_TOLERANCE};
use std::fmt;
use std::hint::black_box;

/// One robot and one function: a row of the speed table, a criterion group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    /// The robot's spec stem (`"telegin6"`).
    pub robot: &'static str,
    /// The function's name in generated modules (`"inverse_dynamics"`).
    pub function: &'static str,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.robot, self.function)
    }
}

/// A way of timing three implementations of one function side by side:
/// criterion in the `dynamics` bench, a plain stopwatch in `speed-table`.
///
/// Each argument evaluates the function on the next state of the robot's
/// seeded pool and black-boxes inputs and result. The closures are generic,
/// not `dyn`, so the harness adds no indirect call to the fastest of them.
pub trait Comparison {
    /// Times the three implementations of `case`, one after the other.
    fn compare(
        &mut self,
        case: Case,
        generated: impl FnMut(),
        folded: impl FnMut(),
        generic: impl FnMut(),
    );
}

/// A robot whose generated code disagrees with the generic algorithms, so
/// that timing them against each other would compare different work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disagreement {
    /// The robot's spec stem.
    pub robot: &'static str,
    /// The largest relative difference found (infinite for a non-finite
    /// output).
    pub error: f64,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: generated code differs from the generic algorithms by {:e} (tolerance {:e}); \
             not timing it",
            self.robot, self.error, AGREEMENT_TOLERANCE
        )
    }
}

impl std::error::Error for Disagreement {}

/// Runs `comparison` on every case of every benchmarked robot, robot by
/// robot, after checking on the state pool that the generated modules and the
/// generic algorithms compute the same thing. Stops at the first robot that
/// disagrees.
pub fn compare_all(comparison: &mut impl Comparison) -> Result<(), Disagreement> {
    let mut visit = CompareEach {
        comparison,
        outcome: Ok(()),
    };
    for_each_robot(&mut visit);
    visit.outcome
}

/// The visitor behind [`compare_all`].
struct CompareEach<'a, C> {
    comparison: &'a mut C,
    outcome: Result<(), Disagreement>,
}

impl<C: Comparison> RobotVisitor for CompareEach<'_, C> {
    fn visit<const N: usize, R: Robot<N>>(&mut self) {
        if self.outcome.is_err() {
            return;
        }
        let workload = Workload::<N>::new(R::SPEC);
        let error = workload.largest_disagreement::<R>();
        if error <= AGREEMENT_TOLERANCE {
            compare_robot::<N, R>(&workload, self.comparison);
        } else {
            self.outcome = Err(Disagreement {
                robot: R::SPEC,
                error,
            });
        }
    }
}

/// Every compared function of one robot.
fn compare_robot<const N: usize, R: Robot<N>>(
    workload: &Workload<N>,
    comparison: &mut impl Comparison,
) {
    let p = R::Runtime::params();
    let pf = R::Folded::params();
    let tree = workload.tree();
    let case = |function| Case {
        robot: R::SPEC,
        function,
    };
    comparison.compare(
        case("inverse_dynamics"),
        cycling(workload, |s| {
            R::Runtime::inverse_dynamics(
                black_box(&p),
                black_box(&s.q),
                black_box(&s.qd),
                black_box(&s.qdd),
            )
        }),
        cycling(workload, |s| {
            R::Folded::inverse_dynamics(
                black_box(&pf),
                black_box(&s.q),
                black_box(&s.qd),
                black_box(&s.qdd),
            )
        }),
        cycling(workload, |s| {
            tree.inverse_dynamics(
                black_box(&s.tree_q),
                black_box(&s.tree_qd),
                black_box(&s.tree_qdd),
            )
        }),
    );
    comparison.compare(
        case("mass_matrix"),
        cycling(workload, |s| {
            R::Runtime::mass_matrix(black_box(&p), black_box(&s.q))
        }),
        cycling(workload, |s| {
            R::Folded::mass_matrix(black_box(&pf), black_box(&s.q))
        }),
        cycling(workload, |s| tree.mass_matrix(black_box(&s.tree_q))),
    );
    comparison.compare(
        case("forward_dynamics"),
        cycling(workload, |s| {
            R::Runtime::forward_dynamics(
                black_box(&p),
                black_box(&s.q),
                black_box(&s.qd),
                black_box(&s.tau),
            )
        }),
        cycling(workload, |s| {
            R::Folded::forward_dynamics(
                black_box(&pf),
                black_box(&s.q),
                black_box(&s.qd),
                black_box(&s.tau),
            )
        }),
        cycling(workload, |s| {
            tree.forward_dynamics(
                black_box(&s.tree_q),
                black_box(&s.tree_qd),
                black_box(&s.tree_tau),
            )
        }),
    );
}

/// A closure that applies `evaluate` to the next state of the pool on each
/// call and black-boxes the result, so that the work cannot be optimised
/// away.
fn cycling<'a, const N: usize, T>(
    workload: &'a Workload<N>,
    mut evaluate: impl FnMut(&State<N>) -> T + 'a,
) -> impl FnMut() + 'a {
    let mut states = workload.cycle();
    move || {
        if let Some(state) = states.next() {
            black_box(evaluate(state));
        }
    }
}
