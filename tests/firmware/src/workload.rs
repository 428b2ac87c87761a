//! What the firmware binary evaluates on the target, written once so that the
//! host can evaluate the same thing and compare (see `tests/qemu.rs` and
//! `docs/embedded.md`).
//!
//! Every function the firmware calls is reached through a function pointer
//! passed through [`core::hint::black_box`]: the optimiser can neither
//! inline it into its caller nor specialise it to the states below, so the
//! linked binary holds each one as a function of its own (its size is what
//! `llvm-nm --print-size` reports) and the link check covers its general
//! code, not a constant-folded copy.

use core::hint::black_box;

use crate::{four_bar, step, telegin6, telegin6_f32, Arm};

/// Where the results go: the target prints them over semihosting, the host
/// test compares them with the target's.
pub trait Probe {
    /// A row of double-precision results.
    fn f64_row(&mut self, label: &str, k: usize, values: &[f64]);
    /// A row of single-precision results.
    fn f32_row(&mut self, label: &str, k: usize, values: &[f32]);
    /// Runs `f` (one call of the function `label`) as often as the probe
    /// wants to time it; the host calls it once.
    fn time(&mut self, label: &str, f: &mut dyn FnMut());
}

/// Number of states the firmware evaluates.
pub const STATES: usize = 4;

/// Number of joints of the arm (`telegin6`).
pub const N: usize = 6;

/// A generated function of `(q, q̇, q̈)` or `(q, q̇, τ)` with its parameter
/// groups `D`, in precision `R`.
type Dynamics<D, R> = fn(&D, &[R; N], &[R; N], &[R; N]) -> [R; N];

/// The four-bar's constrained solve (`crate::linkage_accelerations`).
type ConstrainedSolve =
    fn(&[f64; 3], &[f64; 3], f64) -> Result<([f64; 3], [f64; 2]), four_bar::Singular>;

/// One state `(q, q̇, q̈)` of the arm, in double precision.
pub type State = ([f64; N], [f64; N], [f64; N]);

/// The `k`-th state of the arm: every component in `[-1, 1)` (angles in
/// radians, the prismatic joint in metres), from a fixed integer generator,
/// so the target and the host produce the same bits.
pub fn state(k: usize) -> State {
    let mut seed = (k as u32).wrapping_mul(0x9E37_79B9) ^ 0x5EED_F00D;
    let mut next = || {
        // xorshift32: integer operations only, none of which can overflow.
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        f64::from(seed >> 8) / f64::from(1u32 << 23) - 1.0
    };
    let mut s = ([0.0; N], [0.0; N], [0.0; N]);
    for x in s.0.iter_mut().chain(s.1.iter_mut()).chain(s.2.iter_mut()) {
        *x = next();
    }
    s
}

/// The same state rounded to single precision.
pub fn state_f32(k: usize) -> ([f32; N], [f32; N], [f32; N]) {
    let (q, qd, qdd) = state(k);
    (
        q.map(|x| x as f32),
        qd.map(|x| x as f32),
        qdd.map(|x| x as f32),
    )
}

/// The arm's inverse dynamics, mass matrix and forward dynamics (of the
/// torques just computed) at state `k`, in double precision, handed to
/// `probe` as labelled rows (and timed for `k = 0`).
pub fn telegin6_rows(k: usize, probe: &mut dyn Probe) {
    let (q, qd, qdd) = state(k);
    let derive: fn(&telegin6::Params) -> telegin6::Derived = black_box(telegin6::Params::derived);
    let derived = derive(&telegin6::Params::default());
    let inverse: Dynamics<telegin6::Derived, f64> = black_box(telegin6::inverse_dynamics_with);
    let mass: fn(&telegin6::Derived, &[f64; N]) -> [[f64; N]; N] =
        black_box(telegin6::mass_matrix_with);
    let forward: Dynamics<telegin6::Derived, f64> = black_box(telegin6::forward_dynamics_with);
    let tau = inverse(&derived, &q, &qd, &qdd);
    probe.f64_row("f64.inverse_dynamics", k, &tau);
    let m = mass(&derived, &q);
    probe.f64_row("f64.mass_matrix", k, m.as_flattened());
    probe.f64_row("f64.forward_dynamics", k, &forward(&derived, &q, &qd, &tau));
    if k == 0 {
        let d = &derived;
        // The trigonometry of the functions alone: the sines and cosines of
        // q1, q2, q4 (inverse dynamics, mass matrix), and of q5 as well
        // (forward dynamics).
        probe.time("f64.sincos.q1_q2_q4", &mut || {
            for i in [1, 2, 4] {
                black_box(libm::sincos(black_box(q[i])));
            }
        });
        probe.time("f64.sincos.q1_q2_q4_q5", &mut || {
            for i in [1, 2, 4, 5] {
                black_box(libm::sincos(black_box(q[i])));
            }
        });
        probe.time("f64.derived", &mut || {
            black_box(derive(black_box(&d.params)));
        });
        probe.time("f64.inverse_dynamics", &mut || {
            black_box(inverse(d, black_box(&q), black_box(&qd), black_box(&qdd)));
        });
        probe.time("f64.mass_matrix", &mut || {
            black_box(mass(d, black_box(&q)));
        });
        probe.time("f64.forward_dynamics", &mut || {
            black_box(forward(d, black_box(&q), black_box(&qd), black_box(&tau)));
        });
    }
}

/// [`telegin6_rows`] for the single-precision twin `telegin6_f32`, at the
/// state rounded to `f32`.
pub fn telegin6_f32_rows(k: usize, probe: &mut dyn Probe) {
    let (q, qd, qdd) = state_f32(k);
    let derive: fn(&telegin6_f32::Params) -> telegin6_f32::Derived =
        black_box(telegin6_f32::Params::derived);
    let derived = derive(&telegin6_f32::Params::default());
    let inverse: Dynamics<telegin6_f32::Derived, f32> =
        black_box(telegin6_f32::inverse_dynamics_with);
    let mass: fn(&telegin6_f32::Derived, &[f32; N]) -> [[f32; N]; N] =
        black_box(telegin6_f32::mass_matrix_with);
    let forward: Dynamics<telegin6_f32::Derived, f32> =
        black_box(telegin6_f32::forward_dynamics_with);
    let tau = inverse(&derived, &q, &qd, &qdd);
    probe.f32_row("f32.inverse_dynamics", k, &tau);
    let m = mass(&derived, &q);
    probe.f32_row("f32.mass_matrix", k, m.as_flattened());
    probe.f32_row("f32.forward_dynamics", k, &forward(&derived, &q, &qd, &tau));
    if k == 0 {
        let d = &derived;
        // The trigonometry of the functions alone: the sines and cosines of
        // q1, q2, q4 (inverse dynamics, mass matrix), and of q5 as well
        // (forward dynamics).
        probe.time("f32.sincosf.q1_q2_q4", &mut || {
            for i in [1, 2, 4] {
                black_box(libm::sincosf(black_box(q[i])));
            }
        });
        probe.time("f32.sincosf.q1_q2_q4_q5", &mut || {
            for i in [1, 2, 4, 5] {
                black_box(libm::sincosf(black_box(q[i])));
            }
        });
        probe.time("f32.derived", &mut || {
            black_box(derive(black_box(&d.params)));
        });
        probe.time("f32.inverse_dynamics", &mut || {
            black_box(inverse(d, black_box(&q), black_box(&qd), black_box(&qdd)));
        });
        probe.time("f32.mass_matrix", &mut || {
            black_box(mass(d, black_box(&q)));
        });
        probe.time("f32.forward_dynamics", &mut || {
            black_box(forward(d, black_box(&q), black_box(&qd), black_box(&tau)));
        });
    }
}

/// One RK4 step of 1 ms of the single-precision arm from `(q, q̇)` of state
/// `k` under its own weight (the runtime's integrator), or an empty row if
/// the integrator refuses.
pub fn rk4_rows(k: usize, probe: &mut dyn Probe) {
    let (q, qd, _) = state_f32(k);
    let mut y = [0.0_f32; Arm::STATE_LEN];
    y[..N].copy_from_slice(&q);
    y[N..].copy_from_slice(&qd);
    let stepper: fn(&mut [f32; Arm::STATE_LEN], f32) -> Result<(), crate::IntegrationError> =
        black_box(step);
    let start = y;
    match stepper(&mut y, 1e-3) {
        Ok(()) => probe.f32_row("f32.rk4_step", k, &y),
        Err(_) => probe.f32_row("f32.rk4_step", k, &[]),
    }
    if k == 0 {
        probe.time("f32.rk4_step", &mut || {
            let mut y = black_box(start);
            black_box(stepper(&mut y, 1e-3).is_ok());
        });
    }
}

/// The four-bar's constrained accelerations and pin reactions at its
/// initial configuration with crank speed and torque from state `k`, and one
/// projected RK4 step (the closed linkage in double precision), or empty rows
/// if the constrained solve finds the linkage singular.
pub fn four_bar_rows(k: usize, probe: &mut dyn Probe) {
    let (_, qd, qdd) = state(k);
    let q = four_bar::INITIAL_POSITIONS;
    // The crank's speed and the others' that keep the loop closed are not
    // needed: the constrained solve takes any q̇ (its J̇q̇ term follows it).
    let rates = [qd[0], qd[1], qd[2]];
    let solve: ConstrainedSolve = black_box(crate::linkage_accelerations);
    match solve(&q, &rates, qdd[0]) {
        Ok((accelerations, reactions)) => {
            probe.f64_row("f64.four_bar.accelerations", k, &accelerations);
            probe.f64_row("f64.four_bar.reactions", k, &reactions);
        }
        Err(_) => probe.f64_row("f64.four_bar.accelerations", k, &[]),
    }
    let mut y = [0.0; crate::Linkage::STATE_LEN];
    y[..3].copy_from_slice(&q);
    let stepper: fn(&mut [f64; 6], f64) -> Result<(), crate::IntegrationError> =
        black_box(crate::linkage_step);
    match stepper(&mut y, 1e-3) {
        Ok(()) => probe.f64_row("f64.four_bar.rk4_step", k, &y),
        Err(_) => probe.f64_row("f64.four_bar.rk4_step", k, &[]),
    }
}
