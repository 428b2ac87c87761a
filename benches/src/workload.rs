//! The tree and the pool of joint states one robot is benchmarked on.

use crate::kernels::{Kernels, Robot};
use sharnir_numeric::Tree;
use sharnir_tests::oracle::{relative_error, Oracle, States};

/// Number of states cycled through: enough that neither the branch predictor
/// nor the optimiser can specialise to one state, few enough to stay in L1.
const POOL_SIZE: usize = 16;

/// Seed of the state pool, fixed so that every run times the same states.
const SEED: u64 = 0x5EED_BE4C;

/// Largest relative difference tolerated between a generated module and the
/// generic algorithms before timing them, relative to `max(1, ‖expected‖∞)`.
/// Loose on purpose: it catches a robot paired with the wrong spec or a broken
/// module (errors of order 1); precision is the business of `sharnir-tests`.
pub(crate) const AGREEMENT_TOLERANCE: f64 = 1e-9;

/// One joint state in the two orders the two sides expect.
pub(crate) struct State<const N: usize> {
    /// Positions in coordinate order, as generated code takes them.
    pub(crate) q: [f64; N],
    /// Velocities in coordinate order.
    pub(crate) qd: [f64; N],
    /// Accelerations in coordinate order.
    pub(crate) qdd: [f64; N],
    /// The joint forces that produce `qdd`, in coordinate order, so that
    /// forward dynamics is timed on consistent states.
    pub(crate) tau: [f64; N],
    /// Positions in the tree's body order, as the generic algorithms take them.
    pub(crate) tree_q: Vec<f64>,
    /// Velocities in body order.
    pub(crate) tree_qd: Vec<f64>,
    /// Accelerations in body order.
    pub(crate) tree_qdd: Vec<f64>,
    /// Joint forces in body order.
    pub(crate) tree_tau: Vec<f64>,
}

/// A robot's numeric tree and its seeded state pool: what both sides of a
/// comparison run on, so that they time the same work.
pub(crate) struct Workload<const N: usize> {
    oracle: Oracle,
    states: Vec<State<N>>,
}

impl<const N: usize> Workload<N> {
    /// Builds the tree of a bundled spec and draws the state pool.
    pub(crate) fn new(spec: &str) -> Workload<N> {
        let oracle = Oracle::for_spec(spec);
        let mut draw = States::seeded(SEED);
        let states = (0..POOL_SIZE)
            .map(|_| {
                let (q, qd, qdd) = oracle.sample::<N, N>(&mut draw);
                let generic_tau = oracle.inverse_dynamics(&q, &qd, &qdd);
                // NaN for a missing entry fails the agreement check.
                let tau = std::array::from_fn(|i| generic_tau.get(i).copied().unwrap_or(f64::NAN));
                State {
                    tree_q: oracle.q_to_tree(&q),
                    tree_qd: oracle.v_to_tree(&qd),
                    tree_qdd: oracle.v_to_tree(&qdd),
                    tree_tau: oracle.v_to_tree(&tau),
                    q,
                    qd,
                    qdd,
                    tau,
                }
            })
            .collect();
        Workload { oracle, states }
    }

    /// The generic algorithms' model of the robot.
    pub(crate) fn tree(&self) -> &Tree {
        &self.oracle.tree
    }

    /// The state pool, repeated without end.
    pub(crate) fn cycle(&self) -> impl Iterator<Item = &State<N>> {
        self.states.iter().cycle()
    }

    /// Largest relative difference, over the pool, between either generated
    /// module of `R` and the generic algorithms, for every compared function.
    /// Forward dynamics is checked by recovering the state's accelerations
    /// from the joint forces the generic inverse dynamics gives for them.
    pub(crate) fn largest_disagreement<R: Robot<N>>(&self) -> f64 {
        let p = R::Runtime::params();
        let pf = R::Folded::params();
        self.states
            .iter()
            .flat_map(|s| {
                let m = self.oracle.mass_matrix(&s.q).concat();
                [
                    disagreement(
                        &R::Runtime::inverse_dynamics(&p, &s.q, &s.qd, &s.qdd),
                        &s.tau,
                    ),
                    disagreement(
                        &R::Folded::inverse_dynamics(&pf, &s.q, &s.qd, &s.qdd),
                        &s.tau,
                    ),
                    disagreement(&R::Runtime::mass_matrix(&p, &s.q).concat(), &m),
                    disagreement(&R::Folded::mass_matrix(&pf, &s.q).concat(), &m),
                    disagreement(
                        &R::Runtime::forward_dynamics(&p, &s.q, &s.qd, &s.tau),
                        &s.qdd,
                    ),
                    disagreement(
                        &R::Folded::forward_dynamics(&pf, &s.q, &s.qd, &s.tau),
                        &s.qdd,
                    ),
                ]
            })
            .fold(
                0.0,
                |worst, e| if e > worst || e.is_nan() { e } else { worst },
            )
    }
}

/// [`relative_error`], made infinite when `got` is not all finite (the
/// running maximum inside `relative_error` would pass over a NaN).
fn disagreement(got: &[f64], expected: &[f64]) -> f64 {
    if got.iter().all(|x| x.is_finite()) {
        relative_error(got, expected)
    } else {
        f64::INFINITY
    }
}
