//! Symplectic Euler in the momenta `p = M(q) q̇`, for conservative
//! mechanisms over long runs: the energy error stays bounded instead of
//! drifting, whatever the step, because the method is symplectic for the
//! mechanism's Hamiltonian `H = ½ pᵀ M(q)⁻¹ p + V(q)` (Hairer, Lubich and
//! Wanner, *Geometric Numerical Integration*, VI.3).
//!
//! One step from `(qₙ, pₙ)`:
//!
//! ```text
//! pₙ₊₁ = pₙ + h (C(qₙ, v)ᵀ v − g(qₙ) + τ),   v = M(qₙ)⁻¹ pₙ₊₁
//! qₙ₊₁ = qₙ + h v
//! ```
//!
//! using `∂L/∂q = Cᵀ q̇ − g` for the Coriolis matrix with `Ṁ − 2C` skew. The
//! first line is implicit in `v` and solved by fixed-point iteration (a few
//! Cholesky solves with `M(qₙ)`). It needs coordinates whose rates are the
//! velocities, so mechanisms with spherical or free joints are refused, and
//! the Coriolis matrix, so modules generated without it are too.
//! First order; its virtue is the long-time behaviour, not the accuracy of
//! one step. Applied forces and control enter through `τ` (the method is then
//! no longer symplectic, as no method can be for a non-conservative system).

use crate::fixed_step::{linear, StateVector};
use crate::linalg::{cholesky, solve};
use crate::model::{join_state, split_state, Control};
use crate::stepper::{trajectory, Track};
use crate::{IntegrationError, Model, ModelSystem, Real, RhsError, Stats, Stepper};

/// Most fixed-point iterations per step.
const ITERATIONS: usize = 50;

/// Symplectic Euler in the momenta, with a fixed step (see the module
/// documentation); dense output is linear.
#[derive(Clone, Debug)]
pub struct SymplecticEuler<R: Real, V: StateVector<R>> {
    track: Track<R, V>,
    h: R,
    y_previous: V,
}

fn refuse(message: &'static str) -> IntegrationError {
    IntegrationError::InvalidArgument { message }
}

impl<R: Real, V: StateVector<R>> SymplecticEuler<R, V> {
    /// Starts at `(t0, y0)`, `y0 = (q, q̇)`, with step `h`.
    pub fn new<M, C, const NQ: usize, const NV: usize>(
        _system: &mut ModelSystem<M, NQ, NV, C>,
        t0: R,
        y0: V,
        h: R,
    ) -> Result<Self, IntegrationError>
    where
        M: Model<NQ, NV, Real = R>,
    {
        if !M::HAS_CORIOLIS_MATRIX {
            return Err(refuse(
                "the symplectic integrator needs the module's coriolis_matrix: generate it \
                 with `sharnir gen --outputs all` and use `model!` without `linear`",
            ));
        }
        if NQ != NV {
            return Err(refuse(
                "the symplectic integrator needs coordinates whose rates are the velocities: \
                 the mechanism has a spherical or free joint",
            ));
        }
        if y0.as_ref().len() != NQ + NV {
            return Err(refuse("the state length differs from NQ + NV"));
        }
        if !h.is_finite() || h.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) {
            return Err(refuse("the step size must be positive and finite"));
        }
        if !y0.as_ref().iter().all(|c| c.is_finite()) {
            return Err(refuse("the initial state has an infinite or NaN entry"));
        }
        Ok(SymplecticEuler {
            h,
            y_previous: y0.clone(),
            track: Track::new(t0, y0, Stats::default()),
        })
    }
}

const NOT_DEFINITE: RhsError = RhsError {
    message: "the mass matrix is not positive definite",
};
const NO_CONVERGENCE: RhsError = RhsError {
    message: "the symplectic step's fixed-point iteration did not converge: reduce the step",
};

impl<R, V, M, C, const NQ: usize, const NV: usize> Stepper<ModelSystem<M, NQ, NV, C>, R>
    for SymplecticEuler<R, V>
where
    R: Real,
    V: StateVector<R>,
    M: Model<NQ, NV, Real = R>,
    C: Control<R, NQ, NV>,
{
    fn step(
        &mut self,
        system: &mut ModelSystem<M, NQ, NV, C>,
        t_end: R,
    ) -> Result<(), IntegrationError> {
        let Some(h) = self.track.next_step(t_end, self.h) else {
            return Ok(());
        };
        let t = self.track.t;
        let fail = |error| IntegrationError::Rhs {
            t: t.to_f64(),
            error,
        };
        let (q, v) = split_state::<R, NQ, NV>(self.track.y.as_ref())
            .ok_or(refuse("the state length differs from NQ + NV"))?;
        let model = &system.model;
        let mass = model.mass_matrix(&q);
        let factor = cholesky(&mass).ok_or(fail(NOT_DEFINITE))?;
        let momentum: [R; NV] =
            core::array::from_fn(|i| (0..NV).fold(R::ZERO, |sum, j| sum + mass[i][j] * v[j]));
        let gravity = model.gravity(&q);
        let mut velocity = v;
        let mut new_momentum = momentum;
        let mut converged = false;
        let mut previous_change = R::ZERO;
        for iteration in 0..ITERATIONS {
            let coriolis = model.coriolis_matrix(&q, &velocity);
            let mut tau = model.model_forces(t, &q, &velocity);
            let control = system.control.forces(t, &q, &velocity);
            for (total, c) in tau.iter_mut().zip(control) {
                *total += c;
            }
            for i in 0..NV {
                let lagrangian_force =
                    (0..NV).fold(R::ZERO, |sum, j| sum + coriolis[j][i] * velocity[j]) - gravity[i]
                        + tau[i];
                new_momentum[i] = momentum[i] + h * lagrangian_force;
            }
            let next = solve(&factor, &new_momentum);
            self.track.stats.rhs_evaluations = self.track.stats.rhs_evaluations.saturating_add(1);
            let (mut change, mut size) = (R::ZERO, R::ZERO);
            for i in 0..NV {
                let d = (next[i] - velocity[i]).abs();
                change = if d > change { d } else { change };
                let s = next[i].abs();
                size = if s > size { s } else { size };
            }
            velocity = next;
            if !velocity.iter().all(|c| c.is_finite()) {
                return Err(IntegrationError::NonFinite { t: t.to_f64() });
            }
            // Converged at roundoff, or stalled there: an ill-conditioned
            // mass matrix leaves noise of about cond(M)·ε in each solve.
            let roundoff = R::EPSILON * (R::ONE + size);
            let stalled = iteration >= 2
                && change >= R::from_f64(0.5) * previous_change
                && change <= R::from_f64(1e6) * roundoff;
            if change <= R::from_f64(16.0) * roundoff || stalled {
                converged = true;
                break;
            }
            previous_change = change;
        }
        if !converged {
            return Err(fail(NO_CONVERGENCE));
        }
        // NQ == NV (checked in `new`): the positions move with the velocities.
        let q_new: [R; NQ] =
            core::array::from_fn(|i| q[i] + h * velocity.get(i).copied().unwrap_or(R::ZERO));
        let factor = cholesky(&model.mass_matrix(&q_new)).ok_or(fail(NOT_DEFINITE))?;
        let v_new: [R; NV] = solve(&factor, &new_momentum);
        self.y_previous
            .as_mut()
            .copy_from_slice(self.track.y.as_ref());
        join_state(&q_new, &v_new, self.track.y.as_mut());
        self.track.check_finite()?;
        self.track.arrive(self.track.landing(t_end, h));
        Ok(())
    }
}

impl<R: Real, V: StateVector<R>> SymplecticEuler<R, V> {
    /// The straight line over the last step at `t`.
    fn dense_value(&self, t: R, out: &mut [R]) {
        linear(&self.track, &self.y_previous, t, out);
    }
}

trajectory!([R: Real, V: StateVector<R>] R, SymplecticEuler<R, V>);
