//! The Jacobian of a model's first-order system from the module's emitted
//! derivatives, for implicit integrators ([`crate::adaptive::Radau5`]).
//!
//! On `y = (q, q̇)` with `ẏ = (q̇, q̈(q, q̇, τ))` and `τ = τ(t, q, q̇)` the
//! forces the mechanism applies by itself and a controller adds:
//!
//! ```text
//!     J = [ 0                    I                   ]
//!         [ ∂q̈/∂q + M⁻¹ ∂τ/∂q    ∂q̈/∂q̇ + M⁻¹ ∂τ/∂q̇ ]
//! ```
//!
//! `∂q̈/∂q`, `∂q̈/∂q̇` and `M⁻¹ = ∂q̈/∂τ` are the module's
//! `forward_dynamics_derivatives`. The forces are the spec's `[forces]`,
//! the joints' stops, damping and friction and the controller's: a stop's
//! law switches on contact and a controller is any closure, so they are
//! differentiated by forward differences, as an implicit integrator would
//! differentiate the whole right-hand side, but at `2 NV` evaluations of the
//! forces alone instead of `2 NV` of the dynamics. A passive model without
//! forces of its own needs none.
//!
//! Only where every position coordinate is its own rate (`NQ = NV`): a
//! quaternion's four coordinates are not the three velocity coordinates the
//! derivatives are taken in, and the integrator then differentiates
//! numerically as before.

use crate::model::{Control, Model, ModelSystem};
use crate::Real;

impl<M, C, const NQ: usize, const NV: usize> ModelSystem<M, NQ, NV, C>
where
    M: Model<NQ, NV>,
    C: Control<M::Real, NQ, NV>,
{
    /// Writes `J` (row-major, `(NQ + NV)²` entries) at `(t, q, q̇)` into
    /// `jacobian` and returns `true`; `false`, writing nothing, where the
    /// model has no derivatives, has quaternions, or `jacobian` has the
    /// wrong length.
    pub(crate) fn emitted_jacobian(
        &mut self,
        t: M::Real,
        q: &[M::Real; NQ],
        v: &[M::Real; NV],
        jacobian: &mut [M::Real],
    ) -> bool {
        let (model, control) = (&self.model, &mut self.control);
        let n = NQ + NV;
        if NQ != NV || jacobian.len() != n * n {
            return false;
        }
        let zero = <M::Real as Real>::ZERO;
        let forces = |control: &mut C, q: &[M::Real; NQ], v: &[M::Real; NV]| {
            let mut tau = model.model_forces(t, q, v);
            for (total, c) in tau.iter_mut().zip(control.forces(t, q, v)) {
                *total += c;
            }
            tau
        };
        let tau = forces(control, q, v);
        let Some(derivatives) = model.forward_dynamics_derivatives(q, v, &tau) else {
            return false;
        };
        let mut by_position = derivatives.by_position;
        let mut by_velocity = derivatives.by_velocity;
        let applies_forces = M::HAS_APPLIED_FORCES || M::HAS_JOINT_FORCES || !control.is_passive();
        if applies_forces {
            let (force_by_position, force_by_velocity) =
                force_differences(control, q, v, &tau, forces);
            for i in 0..NV {
                for j in 0..NV {
                    let (mut p, mut w) = (zero, zero);
                    for k in 0..NV {
                        p += derivatives.by_force[i][k] * force_by_position[k][j];
                        w += derivatives.by_force[i][k] * force_by_velocity[k][j];
                    }
                    by_position[i][j] += p;
                    by_velocity[i][j] += w;
                }
            }
        }
        for entry in jacobian.iter_mut() {
            *entry = zero;
        }
        for i in 0..NV {
            jacobian[i * n + NQ + i] = <M::Real as Real>::ONE;
            for j in 0..NV {
                jacobian[(NQ + i) * n + j] = by_position[i][j];
                jacobian[(NQ + i) * n + NQ + j] = by_velocity[i][j];
            }
        }
        true
    }
}

/// `∂τ/∂q` and `∂τ/∂q̇` by forward differences, with the step of
/// Hairer's `RADAU5`: `√(ε · max(10⁻⁵, |x|))` per coordinate.
#[allow(clippy::type_complexity)]
fn force_differences<R: Real, C, const NQ: usize, const NV: usize>(
    control: &mut C,
    q: &[R; NQ],
    v: &[R; NV],
    tau: &[R; NV],
    forces: impl Fn(&mut C, &[R; NQ], &[R; NV]) -> [R; NV],
) -> ([[R; NV]; NV], [[R; NV]; NV]) {
    let step = |x: R| {
        let size = x.abs();
        let floor = R::from_f64(1e-5);
        (R::EPSILON * if size > floor { size } else { floor }).sqrt()
    };
    let mut by_position = [[R::ZERO; NV]; NV];
    let mut by_velocity = [[R::ZERO; NV]; NV];
    let mut moved_q = *q;
    for j in 0..NQ.min(NV) {
        let delta = step(q[j]);
        moved_q[j] = q[j] + delta;
        let column = forces(control, &moved_q, v);
        moved_q[j] = q[j];
        for i in 0..NV {
            by_position[i][j] = (column[i] - tau[i]) / delta;
        }
    }
    let mut moved_v = *v;
    for j in 0..NV {
        let delta = step(v[j]);
        moved_v[j] = v[j] + delta;
        let column = forces(control, q, &moved_v);
        moved_v[j] = v[j];
        for i in 0..NV {
            by_velocity[i][j] = (column[i] - tau[i]) / delta;
        }
    }
    (by_position, by_velocity)
}
