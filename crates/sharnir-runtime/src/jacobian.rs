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
//! Where a joint stores a unit quaternion (spherical and free joints), the
//! derivatives are taken in velocity coordinates, `q ⊕ δ`, and `y` holds
//! the four components. With `Q(q)` the map from velocities to coordinate
//! rates (`q̇ = Q(q) v`, the module's `coordinate_rates`, linear in `v`)
//! and `D = (QᵀQ)⁻¹Qᵀ` its left inverse (for a unit quaternion
//! `δ = 2 vec(ρ* ⊗ dρ)`: the radial direction, which the integrator's
//! projection removes, is dropped):
//!
//! ```text
//!     J = [ ∂(Q(q) v)/∂q                  Q(q)                ]
//!         [ (∂q̈/∂δ + M⁻¹ ∂τ/∂δ) D        ∂q̈/∂q̇ + M⁻¹ ∂τ/∂q̇ ]
//! ```
//!
//! `∂(Q(q) v)/∂q` by central differences of `coordinate_rates`, exact up to
//! rounding (the rates are at most quadratic in `q`), and `∂τ/∂δ` along
//! `q ⊕ δ` ([`crate::manifold::integrate`]).
//!
//! With prescribed coordinates the right-hand side puts them on their
//! laws first, so their rows and columns are zero, and the free
//! coordinates' block comes from the tree's derivatives
//! ([`mixed_derivatives`]).
//!
//! A closed mechanism ([`ConstrainedSystem`]) has the same `J` with the
//! constrained accelerations: `∂q̈/∂q` and `∂q̈/∂q̇` from the module's
//! `constrained_forward_dynamics_derivatives`, and `P = ∂q̈/∂τ` the
//! constrained response to a joint force,
//! `M⁻¹ − M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ J M⁻¹` (`J` the constraint Jacobian here), in
//! place of `M⁻¹`; with prescribed coordinates as well, the loops' derivatives
//! at the forces the drives add, projected so that the prescribed
//! accelerations stay the laws' ([`holding_prescribed`]).

use crate::loops::{constrained_response, ConstrainedSystem, LoopClosure};
use crate::model::{Control, Model, ModelSystem};
use crate::Real;

impl<M, C, const NQ: usize, const NV: usize> ModelSystem<M, NQ, NV, C>
where
    M: Model<NQ, NV>,
    C: Control<M::Real, NQ, NV>,
{
    /// Writes `J` (row-major, `(NQ + NV)²` entries) at `(t, q, q̇)` into
    /// `jacobian` and returns `true`; `false`, writing nothing, where the
    /// model has no derivatives or `jacobian` has the wrong length.
    pub(crate) fn emitted_jacobian(
        &mut self,
        t: M::Real,
        q: &[M::Real; NQ],
        v: &[M::Real; NV],
        jacobian: &mut [M::Real],
    ) -> bool {
        let model = &self.model;
        let done = with_forces(model, &mut self.control, t, q, v, jacobian, |tau, _| {
            if M::PRESCRIBED.is_empty() {
                let d = model.forward_dynamics_derivatives(q, v, tau)?;
                Some((d.by_position, d.by_velocity, Some(d.by_force)))
            } else {
                mixed_derivatives(model, t, q, v, tau)
            }
        });
        if done {
            clear_prescribed::<M, NQ, NV>(jacobian);
        }
        done
    }
}

/// Zeroes the rows and columns of the prescribed coordinates' positions
/// and rates in `J`: the right-hand side puts them on their laws first, so
/// it reads nothing of theirs, and their rates and accelerations are the
/// laws'.
fn clear_prescribed<M, const NQ: usize, const NV: usize>(jacobian: &mut [M::Real])
where
    M: Model<NQ, NV>,
{
    let n = NQ + NV;
    let prescribed = M::PRESCRIBED_POSITIONS
        .iter()
        .copied()
        .chain(M::PRESCRIBED.iter().map(|&k| NQ + k));
    for k in prescribed.filter(|&k| k < n) {
        for j in 0..n {
            jacobian[k * n + j] = <M::Real as Real>::ZERO;
            jacobian[j * n + k] = <M::Real as Real>::ZERO;
        }
    }
}

/// The free coordinates' accelerations' derivatives when the prescribed
/// ones follow their laws (`M_ff q̈_f = τ_f − h_f − M_fp a_p`), from the
/// tree's: with `τ* = τ + drives` the forces that give the whole `q̈`,
/// `∂q̈/∂x` at `τ*` is `−M⁻¹ ∂ID/∂x`, so the free ones' are
/// `M_ff⁻¹ (M ∂q̈/∂x)_f`; `∂q̈_f/∂τ_f = M_ff⁻¹`. Rows and columns of the
/// prescribed coordinates are zero.
#[allow(clippy::type_complexity)]
fn mixed_derivatives<M, const NQ: usize, const NV: usize>(
    model: &M,
    t: M::Real,
    q: &[M::Real; NQ],
    v: &[M::Real; NV],
    tau: &[M::Real; NV],
) -> Option<(
    [[M::Real; NV]; NV],
    [[M::Real; NV]; NV],
    Option<[[M::Real; NV]; NV]>,
)>
where
    M: Model<NQ, NV>,
{
    let zero = <M::Real as Real>::ZERO;
    let prescribed = |k: usize| M::PRESCRIBED.contains(&k);
    let (_, drives) = model.mixed_dynamics(t, q, v, tau);
    let total: [M::Real; NV] = core::array::from_fn(|k| tau[k] + drives[k]);
    let tree = model.forward_dynamics_derivatives(q, v, &total)?;
    let mass = model.mass_matrix(q);
    let mut free_mass = mass;
    for (i, row) in free_mass.iter_mut().enumerate() {
        for (k, entry) in row.iter_mut().enumerate() {
            if prescribed(i) || prescribed(k) {
                *entry = if i == k { <M::Real as Real>::ONE } else { zero };
            }
        }
    }
    let factor = crate::linalg::cholesky(&free_mass)?;
    // `M_ff⁻¹ b_f` in the free rows, zero in the others.
    let solve_free = |b: [M::Real; NV]| -> [M::Real; NV] {
        let masked: [M::Real; NV] =
            core::array::from_fn(|i| if prescribed(i) { zero } else { b[i] });
        crate::linalg::solve(&factor, &masked)
    };
    let free_of = |derivative: &[[M::Real; NV]; NV]| -> [[M::Real; NV]; NV] {
        let mut out = [[zero; NV]; NV];
        for j in (0..NV).filter(|&j| !prescribed(j)) {
            let column: [M::Real; NV] = core::array::from_fn(|i| {
                (0..NV).fold(zero, |s, k| s + mass[i][k] * derivative[k][j])
            });
            for (row, x) in out.iter_mut().zip(solve_free(column)) {
                row[j] = x;
            }
        }
        out
    };
    let mut by_force = [[zero; NV]; NV];
    for j in (0..NV).filter(|&j| !prescribed(j)) {
        let unit: [M::Real; NV] =
            core::array::from_fn(|i| if i == j { <M::Real as Real>::ONE } else { zero });
        for (row, x) in by_force.iter_mut().zip(solve_free(unit)) {
            row[j] = x;
        }
    }
    Some((
        free_of(&tree.by_position),
        free_of(&tree.by_velocity),
        Some(by_force),
    ))
}

/// `J` at `(t, q, q̇)` into `jacobian` from `accelerations(τ, wanted)`: the
/// accelerations' derivatives `∂q̈/∂q`, `∂q̈/∂q̇` with the forces `τ` held,
/// and `∂q̈/∂τ` where `wanted` (some force depends on the state). The model's and the control's forces are
/// differentiated by [`force_differences`] and added through `∂q̈/∂τ`.
/// `false`, writing nothing, where a derivative is missing or `jacobian`
/// has the wrong length.
#[allow(clippy::type_complexity)]
fn with_forces<M, C, const NQ: usize, const NV: usize>(
    model: &M,
    control: &mut C,
    t: M::Real,
    q: &[M::Real; NQ],
    v: &[M::Real; NV],
    jacobian: &mut [M::Real],
    accelerations: impl FnOnce(
        &[M::Real; NV],
        bool,
    ) -> Option<(
        [[M::Real; NV]; NV],
        [[M::Real; NV]; NV],
        Option<[[M::Real; NV]; NV]>,
    )>,
) -> bool
where
    M: Model<NQ, NV>,
    C: Control<M::Real, NQ, NV>,
{
    if jacobian.len() != (NQ + NV) * (NQ + NV) {
        return false;
    }
    let forces = |control: &mut C, q: &[M::Real; NQ], v: &[M::Real; NV]| {
        let mut tau = model.model_forces(t, q, v);
        for (total, c) in tau.iter_mut().zip(control.forces(t, q, v)) {
            *total += c;
        }
        tau
    };
    let tau = forces(control, q, v);
    let applies_forces = M::HAS_APPLIED_FORCES || M::HAS_JOINT_FORCES || !control.is_passive();
    let Some((mut by_position, mut by_velocity, by_force)) = accelerations(&tau, applies_forces)
    else {
        return false;
    };
    if applies_forces {
        let Some(by_force) = by_force else {
            return false;
        };
        let (force_by_position, force_by_velocity) =
            force_differences(model, control, q, v, &tau, forces);
        add_product(&mut by_position, &by_force, &force_by_position);
        add_product(&mut by_velocity, &by_force, &force_by_velocity);
    }
    state_jacobian(model, q, v, &by_position, &by_velocity, jacobian)
}

/// Writes `J` (row-major, `(NQ + NV)²` entries) from the accelerations'
/// derivatives `∂q̈/∂q` (velocity coordinates) and `∂q̈/∂q̇`, every force
/// included, as the module documentation says; `false` where `QᵀQ` is
/// singular (a zero quaternion).
fn state_jacobian<M, const NQ: usize, const NV: usize>(
    model: &M,
    q: &[M::Real; NQ],
    v: &[M::Real; NV],
    by_position: &[[M::Real; NV]; NV],
    by_velocity: &[[M::Real; NV]; NV],
    jacobian: &mut [M::Real],
) -> bool
where
    M: Model<NQ, NV>,
{
    let n = NQ + NV;
    let zero = <M::Real as Real>::ZERO;
    for entry in jacobian.iter_mut() {
        *entry = zero;
    }
    for i in 0..NV {
        for j in 0..NV {
            jacobian[(NQ + i) * n + NQ + j] = by_velocity[i][j];
        }
    }
    if NQ == NV && M::QUATERNIONS.is_empty() {
        // Every coordinate its own rate: Q = D = I, ∂(Q v)/∂q = 0.
        for i in 0..NV {
            jacobian[i * n + NQ + i] = <M::Real as Real>::ONE;
            for j in 0..NV {
                jacobian[(NQ + i) * n + j] = by_position[i][j];
            }
        }
        return true;
    }
    let Some((rates, inverse)) = tangent_maps(model, q) else {
        return false;
    };
    let half = <M::Real as Real>::from_f64(0.5);
    let mut moved = *q;
    for j in 0..NQ {
        // ∂(Q(q) v)/∂q_j by central differences, exact for quadratics.
        let h = step(q[j]);
        moved[j] = q[j] + h;
        let ahead = model.coordinate_rates(&moved, v);
        moved[j] = q[j] - h;
        let behind = model.coordinate_rates(&moved, v);
        moved[j] = q[j];
        for i in 0..NQ {
            jacobian[i * n + j] = (ahead[i] - behind[i]) * half / h;
        }
    }
    for i in 0..NQ {
        for j in 0..NV {
            jacobian[i * n + NQ + j] = rates[i][j];
        }
    }
    for i in 0..NV {
        for j in 0..NQ {
            let mut entry = zero;
            for k in 0..NV {
                entry += by_position[i][k] * inverse[k][j];
            }
            jacobian[(NQ + i) * n + j] = entry;
        }
    }
    true
}

/// The closed-loop counterpart: the accelerations' derivatives are the
/// module's `constrained_forward_dynamics_derivatives` (the joint forces
/// held), and a change `∂τ` of the forces changes them by `P ∂τ`
/// ([`constrained_response`]), the loops held.
///
/// With prescribed coordinates `p`, the drives' forces `d` are what keeps
/// `q̈_p` on the laws: at `τ* = τ + d` the loops' accelerations are the
/// mixed problem's, and along a change of the state `d` moves so that
/// `S_p (∂q̈/∂x + P_{·p} ∂d/∂x) = 0`. Every derivative is therefore the
/// free one times `H = I − P_{·p} P_pp⁻¹ S_p` ([`holding_prescribed`]).
impl<M, C, const NQ: usize, const NV: usize, const NC: usize> ConstrainedSystem<M, NQ, NV, NC, C>
where
    M: LoopClosure<NQ, NV, NC>,
    C: Control<M::Real, NQ, NV>,
{
    /// Writes `J` (row-major, `(NQ + NV)²` entries) at `(t, q, q̇)`, the
    /// prescribed coordinates on their laws (`known` their accelerations),
    /// into `jacobian` and returns `true`; `false`, writing nothing, where
    /// the model has no derivatives there, the prescribed coordinates are
    /// not independent of each other through the loops, or `jacobian` has
    /// the wrong length.
    pub(crate) fn emitted_jacobian(
        &mut self,
        t: M::Real,
        q: &[M::Real; NQ],
        v: &[M::Real; NV],
        known: &[M::Real; NV],
        jacobian: &mut [M::Real],
    ) -> bool {
        let drives = if M::PRESCRIBED.is_empty() {
            [<M::Real as Real>::ZERO; NV]
        } else {
            match self.solve(t, q, v, known) {
                Ok(solution) => solution.drives,
                Err(_) => return false,
            }
        };
        let model = &self.model;
        let done = with_forces(
            model,
            &mut self.control,
            t,
            q,
            v,
            jacobian,
            |tau, by_force| {
                let total: [M::Real; NV] = core::array::from_fn(|k| tau[k] + drives[k]);
                let d = model.constrained_forward_dynamics_derivatives(q, v, &total)?;
                if M::PRESCRIBED.is_empty() {
                    let response = if by_force {
                        Some(constrained_response(model, q)?)
                    } else {
                        None
                    };
                    return Some((d.by_position, d.by_velocity, response));
                }
                let response = constrained_response(model, q)?;
                let hold = holding_prescribed(&response, M::PRESCRIBED)?;
                Some((
                    product(&hold, &d.by_position),
                    product(&hold, &d.by_velocity),
                    Some(product(&hold, &response)),
                ))
            },
        );
        if done {
            clear_prescribed::<M, NQ, NV>(jacobian);
        }
        done
    }
}

/// `H = I − P_{·p} P_pp⁻¹ S_p` for the prescribed coordinates `p` and the
/// constrained response `P`: what turns a change of the loops'
/// accelerations under held forces into the change when the drives keep
/// `q̈_p` on their laws (`S_p H = 0`). `None` where `P_pp` is singular:
/// the loops lock a combination of the prescribed coordinates, and the
/// drives are not unique.
fn holding_prescribed<R: Real, const NV: usize>(
    response: &[[R; NV]; NV],
    prescribed: &[usize],
) -> Option<[[R; NV]; NV]> {
    let is_prescribed = |k: usize| prescribed.contains(&k);
    let identity = |i: usize, k: usize| if i == k { R::ONE } else { R::ZERO };
    let block: [[R; NV]; NV] = core::array::from_fn(|i| {
        core::array::from_fn(|k| {
            if is_prescribed(i) && is_prescribed(k) {
                response[i][k]
            } else {
                identity(i, k)
            }
        })
    });
    let factor = crate::linalg::cholesky(&block)?;
    let mut hold: [[R; NV]; NV] =
        core::array::from_fn(|i| core::array::from_fn(|k| identity(i, k)));
    for j in (0..NV).filter(|&j| is_prescribed(j)) {
        let unit: [R; NV] = core::array::from_fn(|k| identity(j, k));
        let weights = crate::linalg::solve(&factor, &unit);
        for (row, response_row) in hold.iter_mut().zip(response) {
            row[j] -= (0..NV)
                .filter(|&k| is_prescribed(k))
                .fold(R::ZERO, |s, k| s + response_row[k] * weights[k]);
        }
    }
    Some(hold)
}

/// `b c` for square matrices.
fn product<R: Real, const NV: usize>(b: &[[R; NV]; NV], c: &[[R; NV]; NV]) -> [[R; NV]; NV] {
    let mut out = [[R::ZERO; NV]; NV];
    add_product(&mut out, b, c);
    out
}

/// `a += b c` for square matrices.
fn add_product<R: Real, const NV: usize>(
    a: &mut [[R; NV]; NV],
    b: &[[R; NV]; NV],
    c: &[[R; NV]; NV],
) {
    for (row, b_row) in a.iter_mut().zip(b) {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry += (0..NV).fold(R::ZERO, |s, k| s + b_row[k] * c[k][j]);
        }
    }
}

/// `Q(q)` (`NQ × NV`, column `j` the coordinate rates of a unit velocity
/// `j`) and its left inverse `D = (QᵀQ)⁻¹Qᵀ` (`NV × NQ`); `None` where
/// `QᵀQ` is singular (a zero quaternion).
#[allow(clippy::type_complexity)]
fn tangent_maps<M, const NQ: usize, const NV: usize>(
    model: &M,
    q: &[M::Real; NQ],
) -> Option<([[M::Real; NV]; NQ], [[M::Real; NQ]; NV])>
where
    M: Model<NQ, NV>,
{
    let zero = <M::Real as Real>::ZERO;
    let mut rates = [[zero; NV]; NQ];
    let mut unit = [zero; NV];
    for j in 0..NV {
        unit[j] = <M::Real as Real>::ONE;
        let column = model.coordinate_rates(q, &unit);
        unit[j] = zero;
        for i in 0..NQ {
            rates[i][j] = column[i];
        }
    }
    let mut gram = [[zero; NV]; NV];
    for a in 0..NV {
        for b in 0..NV {
            for row in &rates {
                gram[a][b] += row[a] * row[b];
            }
        }
    }
    let factor = crate::linalg::cholesky(&gram)?;
    let mut inverse = [[zero; NQ]; NV];
    for j in 0..NQ {
        let column = crate::linalg::solve(&factor, &rates[j]);
        for k in 0..NV {
            inverse[k][j] = column[k];
        }
    }
    Some((rates, inverse))
}

/// The difference step of Hairer's `RADAU5`: `√(ε · max(10⁻⁵, |x|))`.
fn step<R: Real>(x: R) -> R {
    let size = x.abs();
    let floor = R::from_f64(1e-5);
    (R::EPSILON * if size > floor { size } else { floor }).sqrt()
}

/// `∂τ/∂δ` (along `q ⊕ δ`) and `∂τ/∂q̇` by forward differences, with the
/// step of Hairer's `RADAU5` ([`step`]).
#[allow(clippy::type_complexity)]
fn force_differences<M, C, const NQ: usize, const NV: usize>(
    model: &M,
    control: &mut C,
    q: &[M::Real; NQ],
    v: &[M::Real; NV],
    tau: &[M::Real; NV],
    forces: impl Fn(&mut C, &[M::Real; NQ], &[M::Real; NV]) -> [M::Real; NV],
) -> ([[M::Real; NV]; NV], [[M::Real; NV]; NV])
where
    M: Model<NQ, NV>,
{
    let zero = <M::Real as Real>::ZERO;
    let mut by_position = [[zero; NV]; NV];
    let mut by_velocity = [[zero; NV]; NV];
    let mut delta = [zero; NV];
    for j in 0..NV {
        // The coordinate's own size where it is its own rate, 1 (a
        // quaternion's) otherwise.
        let h = step(if NQ == NV { q[j] } else { zero });
        delta[j] = h;
        let moved = crate::manifold::integrate(model, q, &delta);
        delta[j] = zero;
        let column = forces(control, &moved, v);
        for i in 0..NV {
            by_position[i][j] = (column[i] - tau[i]) / h;
        }
    }
    let mut moved_v = *v;
    for j in 0..NV {
        let h = step(v[j]);
        moved_v[j] = v[j] + h;
        let column = forces(control, q, &moved_v);
        moved_v[j] = v[j];
        for i in 0..NV {
            by_velocity[i][j] = (column[i] - tau[i]) / h;
        }
    }
    (by_position, by_velocity)
}
