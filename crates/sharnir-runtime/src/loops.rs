//! Closed kinematic loops at run time: assembling a configuration that
//! satisfies the loop-closure constraints `Ψ(q) = 0`, projecting velocities
//! onto `J q̇ = 0`, and the constrained dynamics
//! `M q̈ + bias = τ + Jᵀλ`, `J q̈ + J̇ q̇ = 0` as an [`OdeSystem`] whose
//! `project` removes the drift after every step.
//!
//! The constraints come from a [`LoopClosure`] model: the generated module
//! of a spec with cut joints, through [`crate::model!`]`(…, loops)`.
//! `J` is in velocity coordinates, so the Newton steps of assembly are
//! velocity increments `δ`, applied as `q ⊕ δ` by [`integrate`]: a tree
//! with spherical or free joints (a Stewart platform hanging on one leg's
//! ball joint, a floating base carrying a closed-loop leg) is assembled
//! and projected like any other, its quaternions kept unit.
//!
//! Redundant constraint rows (a planar loop written with spatial joints, a
//! parallelogram) make `J Jᵀ` singular; every solve here adds a tiny
//! regularisation `μ I` relative to its diagonal, so it returns the
//! minimum-norm correction instead of failing.

use crate::linalg::{cholesky, solve};
use crate::manifold::integrate;
use crate::model::{join_state, normalize_quaternions, split_state, Control, Passive};
use crate::{Model, OdeSystem, Real, RhsError};
use core::fmt;

/// A model whose tree is closed by cut joints.
pub trait LoopClosure<const NQ: usize, const NV: usize, const NC: usize>: Model<NQ, NV> {
    /// Velocity indices of the independent coordinates (the spec's
    /// `independent`): what a simulation's assembly of the initial state
    /// holds. Empty by default.
    const INDEPENDENT: &'static [usize] = &[];

    /// The constraints' names, `<cut joint>.<component>` (the module's
    /// `CONSTRAINT_NAMES`), in the order of the rows of `Ψ`: what an
    /// assembly that fails names. Empty by default.
    const CONSTRAINT_NAMES: &'static [&'static str] = &[];

    /// `Ψ(q)`, one row per constraint.
    fn constraints(&self, q: &[Self::Real; NQ]) -> [Self::Real; NC];

    /// `J = ∂Ψ/∂q` (velocity coordinates), so that `Ψ̇ = J q̇`.
    fn constraint_jacobian(&self, q: &[Self::Real; NQ]) -> [[Self::Real; NV]; NC];

    /// `J̇ q̇`, so that the constraints' accelerations are `J q̈ + J̇ q̇`.
    fn constraint_bias(&self, q: &[Self::Real; NQ], qd: &[Self::Real; NV]) -> [Self::Real; NC];

    /// `∂q̈/∂q` and `∂q̈/∂q̇` of the constrained accelerations at
    /// `(q, q̇, τ)`, `τ` held (`∂/∂q` in velocity coordinates), from the
    /// module's `constrained_forward_dynamics_derivatives`; `None` for a
    /// module without it (`model!(…, linear, loops)`) or where the
    /// constrained dynamics has no solution. What the Newton iterations of
    /// an implicit integrator need ([`ConstrainedSystem`]'s
    /// [`OdeSystem::jacobian`]).
    fn constrained_forward_dynamics_derivatives(
        &self,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        tau: &[Self::Real; NV],
    ) -> Option<ConstrainedMotionDerivatives<Self::Real, NV>> {
        let _ = (q, qd, tau);
        None
    }
}

/// The derivatives of a closed mechanism's constrained accelerations in its
/// state, the joint forces held
/// ([`LoopClosure::constrained_forward_dynamics_derivatives`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstrainedMotionDerivatives<R, const NV: usize> {
    /// `∂q̈/∂q`, in velocity coordinates.
    pub by_position: [[R; NV]; NV],
    /// `∂q̈/∂q̇`.
    pub by_velocity: [[R; NV]; NV],
}

/// `P` with `P f` the change of the constrained accelerations that a change
/// `f` of the joint forces makes, the loops held:
/// `P = M⁻¹ − M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ J M⁻¹`, solved as
/// [`ConstrainedSystem`]'s accelerations are (the same regularisation of
/// redundant rows); `None` where `M` is not positive definite.
pub(crate) fn constrained_response<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    q: &[M::Real; NQ],
) -> Option<[[M::Real; NV]; NV]>
where
    M: LoopClosure<NQ, NV, NC>,
{
    let zero = M::Real::ZERO;
    let jacobian = model.constraint_jacobian(q);
    let factor = cholesky(&model.mass_matrix(q))?;
    let minv_jt: [[M::Real; NV]; NC] = core::array::from_fn(|i| solve(&factor, &jacobian[i]));
    let coupling: [[M::Real; NC]; NC] = core::array::from_fn(|i| {
        core::array::from_fn(|j| (0..NV).fold(zero, |s, k| s + jacobian[i][k] * minv_jt[j][k]))
    });
    let mut response = [[zero; NV]; NV];
    let mut unit = [zero; NV];
    for c in 0..NV {
        unit[c] = M::Real::ONE;
        let free = solve(&factor, &unit);
        unit[c] = zero;
        let rhs: [M::Real; NC] =
            core::array::from_fn(|i| -(0..NV).fold(zero, |s, k| s + jacobian[i][k] * free[k]));
        let lambda = regularised_spd_solve(&coupling, &rhs)?;
        for (k, row) in response.iter_mut().enumerate() {
            row[c] = free[k] + (0..NC).fold(zero, |s, i| s + minv_jt[i][k] * lambda[i]);
        }
    }
    Some(response)
}

/// Why a configuration could not be assembled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AssemblyError {
    /// The largest `|Ψᵢ|` reached.
    pub residual: f64,
    /// The index of that constraint row.
    pub row: usize,
    /// Its name, `<cut joint>.<component>` (empty when the model names no
    /// constraints).
    pub constraint: &'static str,
    /// Newton iterations done.
    pub iterations: usize,
}

impl fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut_joint = self.constraint.split('.').next().unwrap_or_default();
        if cut_joint.is_empty() {
            write!(f, "cannot close the loops: constraint row {}", self.row)?;
        } else {
            write!(
                f,
                "cannot close the loop at cut joint `{cut_joint}`: constraint `{}` (row {})",
                self.constraint, self.row
            )?;
        }
        write!(
            f,
            " keeps a residual of {:.3e} after {} iterations; the linkage cannot reach this \
             configuration with its independent coordinates held (check their values and \
             the lengths)",
            self.residual, self.iterations
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for AssemblyError {}

/// `(A Aᵀ)⁻¹ b` for an `NC × NV` matrix `A`, regularised (see
/// [`regularised_spd_solve`]): the minimum-norm solve that survives
/// redundant rows.
fn regularised_solve<R: Real, const NV: usize, const NC: usize>(
    a: &[[R; NV]; NC],
    b: &[R; NC],
) -> Option<[R; NC]> {
    let gram: [[R; NC]; NC] = core::array::from_fn(|i| {
        core::array::from_fn(|j| (0..NV).fold(R::ZERO, |s, k| s + a[i][k] * a[j][k]))
    });
    regularised_spd_solve(&gram, b)
}

/// `G⁻¹ b` for a symmetric positive semi-definite `G`: a Cholesky
/// factorisation of `G + μ I`, `μ` a small multiple of its largest diagonal
/// entry (so that redundant constraints do not make it fail), then two steps
/// of iterative refinement against `G` itself, which remove the bias the
/// damping leaves on a consistent system.
fn regularised_spd_solve<R: Real, const NC: usize>(
    gram: &[[R; NC]; NC],
    b: &[R; NC],
) -> Option<[R; NC]> {
    let largest = (0..NC).fold(R::ZERO, |m, i| if gram[i][i] > m { gram[i][i] } else { m });
    let mu = R::from_f64(1e-12) * (largest + R::EPSILON);
    let mut damped = *gram;
    for (i, row) in damped.iter_mut().enumerate() {
        row[i] += mu;
    }
    let factor = cholesky(&damped)?;
    let mut y = solve(&factor, b);
    for _ in 0..2 {
        let residual: [R; NC] =
            core::array::from_fn(|i| b[i] - (0..NC).fold(R::ZERO, |s, j| s + gram[i][j] * y[j]));
        let correction = solve(&factor, &residual);
        for (yi, ci) in y.iter_mut().zip(correction) {
            *yi += ci;
        }
    }
    Some(y)
}

fn largest_row<R: Real, const NC: usize>(psi: &[R; NC]) -> (R, usize) {
    psi.iter()
        .enumerate()
        .fold((R::ZERO, 0), |(best, at), (i, &x)| {
            if x.abs() > best {
                (x.abs(), i)
            } else {
                (best, at)
            }
        })
}

/// `J` with the columns of the `held` coordinates zeroed: the corrections
/// of assembly and velocity projection then leave those coordinates alone.
fn without_columns<R: Real, const NV: usize, const NC: usize>(
    mut jacobian: [[R; NV]; NC],
    held: &[usize],
) -> [[R; NV]; NC] {
    for row in jacobian.iter_mut() {
        for &h in held {
            if let Some(entry) = row.get_mut(h) {
                *entry = R::ZERO;
            }
        }
    }
    jacobian
}

/// Solves `Ψ(q) = 0` from `q` by damped Newton steps of minimum norm, the
/// velocity coordinates listed in `held` kept as they are (the independent,
/// actuated coordinates a user sets). Succeeds when every `|Ψᵢ| ≤ tolerance`.
///
/// The steps are taken in velocity coordinates and applied by
/// [`integrate`] (`q ⊕ δ`), so quaternions turn by the exponential map and
/// stay unit; `q`'s quaternions are normalised first.
pub fn assemble<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    mut q: [M::Real; NQ],
    held: &[usize],
    tolerance: M::Real,
) -> Result<[M::Real; NQ], AssemblyError>
where
    M: LoopClosure<NQ, NV, NC>,
{
    const ITERATIONS: usize = 50;
    normalize_quaternions(M::QUATERNIONS, &mut q);
    let failure = |residual: M::Real, row: usize, iterations: usize| AssemblyError {
        residual: residual.to_f64(),
        row,
        constraint: M::CONSTRAINT_NAMES.get(row).copied().unwrap_or_default(),
        iterations,
    };
    let mut psi = model.constraints(&q);
    let (mut residual, mut row) = largest_row(&psi);
    for iteration in 0..ITERATIONS {
        if residual <= tolerance {
            return Ok(q);
        }
        let jacobian = without_columns(model.constraint_jacobian(&q), held);
        let Some(y) = regularised_solve(&jacobian, &psi) else {
            break;
        };
        // Δq = −Jᵀ (J Jᵀ)⁻¹ Ψ, halved until the residual decreases.
        let step: [M::Real; NV] =
            core::array::from_fn(|k| (0..NC).fold(M::Real::ZERO, |s, i| s + jacobian[i][k] * y[i]));
        let mut scale = M::Real::ONE;
        let mut improved = false;
        for _ in 0..30 {
            let trial = integrate(model, &q, &step.map(|s| -scale * s));
            let trial_psi = model.constraints(&trial);
            let (trial_residual, trial_row) = largest_row(&trial_psi);
            if trial_residual.is_finite() && trial_residual < residual {
                q = trial;
                psi = trial_psi;
                residual = trial_residual;
                row = trial_row;
                improved = true;
                break;
            }
            scale *= M::Real::from_f64(0.5);
        }
        if !improved {
            return Err(failure(residual, row, iteration + 1));
        }
    }
    if residual <= tolerance {
        Ok(q)
    } else {
        Err(failure(residual, row, ITERATIONS))
    }
}

/// The velocities closest to `qd` (in the Euclidean norm) that satisfy
/// `J q̇ = 0`.
pub fn project_velocities<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    q: &[M::Real; NQ],
    qd: &[M::Real; NV],
) -> [M::Real; NV]
where
    M: LoopClosure<NQ, NV, NC>,
{
    project_velocities_holding(model, q, qd, &[])
}

/// [`project_velocities`] with the velocities listed in `held` (the
/// independent ones a user set) kept as they are: only the others change.
pub fn project_velocities_holding<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    q: &[M::Real; NQ],
    qd: &[M::Real; NV],
    held: &[usize],
) -> [M::Real; NV]
where
    M: LoopClosure<NQ, NV, NC>,
{
    let jacobian = model.constraint_jacobian(q);
    let rate: [M::Real; NC] =
        core::array::from_fn(|i| (0..NV).fold(M::Real::ZERO, |s, k| s + jacobian[i][k] * qd[k]));
    let free = without_columns(jacobian, held);
    let Some(y) = regularised_solve(&free, &rate) else {
        return *qd;
    };
    core::array::from_fn(|k| qd[k] - (0..NC).fold(M::Real::ZERO, |s, i| s + free[i][k] * y[i]))
}

/// A loop mechanism as a first-order system on `y = (q, q̇)`: the
/// accelerations of `M q̈ + bias = τ + Jᵀλ` with the constraints'
/// accelerations held at zero, and, after every step, the state assembled
/// again (`Ψ = 0` to `tolerance`, quaternions unit) and its velocities
/// projected (coordinate projection, the default drift control), the
/// model's independent coordinates held and the others corrected.
#[derive(Clone, Debug)]
pub struct ConstrainedSystem<M, const NQ: usize, const NV: usize, const NC: usize, C = Passive> {
    /// The mechanism.
    pub model: M,
    /// Forces added at every evaluation.
    pub control: C,
    /// How closely the projection closes the loops.
    pub tolerance: f64,
    /// How the drift off `Ψ = 0` is held down.
    pub drift_control: DriftControl,
}

/// How a [`ConstrainedSystem`] keeps an integrated state on the
/// constraints, which the accelerations alone satisfy only to first order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DriftControl {
    /// Coordinate projection (the default): after every accepted step the
    /// configuration is assembled again and the velocities projected, the
    /// independent coordinates held. `Ψ` stays at the assembly tolerance;
    /// no parameter to tune.
    Projection,
    /// Baumgarte stabilisation: the constraint accelerations are
    /// `J q̈ + J̇ q̇ = −2α Ψ̇ − β² Ψ`, a damped oscillator that pulls the
    /// drift back (`α`, `β` in 1/s, typically of the order of the inverse
    /// step size); no projection. Cheaper per step, but `Ψ` is only kept
    /// small, not zero, and large `α`, `β` make the system stiff.
    Baumgarte {
        /// Damping rate of the drift.
        alpha: f64,
        /// Natural frequency of the drift.
        beta: f64,
    },
}

impl<M, const NQ: usize, const NV: usize, const NC: usize> ConstrainedSystem<M, NQ, NV, NC>
where
    M: LoopClosure<NQ, NV, NC>,
{
    /// The mechanism moving under its own applied forces, its loops closed
    /// to 1e-12 after every step.
    pub fn new(model: M) -> Self {
        ConstrainedSystem {
            model,
            control: Passive,
            tolerance: 1e-12,
            drift_control: DriftControl::Projection,
        }
    }
}

impl<M, C, const NQ: usize, const NV: usize, const NC: usize> ConstrainedSystem<M, NQ, NV, NC, C>
where
    M: LoopClosure<NQ, NV, NC>,
    C: Control<M::Real, NQ, NV>,
{
    /// The mechanism with forces from `control` added, its loops closed to
    /// 1e-12 after every step.
    pub fn with_control(model: M, control: C) -> Self {
        ConstrainedSystem {
            model,
            control,
            tolerance: 1e-12,
            drift_control: DriftControl::Projection,
        }
    }
}

/// The solution of the constrained dynamics at one state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accelerations<R, const NV: usize, const NC: usize> {
    /// `q̈`.
    pub qdd: [R; NV],
    /// `λ` of `M q̈ + bias = τ + Jᵀλ + drives`: the cut joints' reactions
    /// in the constraints' coordinates.
    pub multipliers: [R; NC],
    /// The forces the drives of prescribed coordinates supply
    /// ([`Model::PRESCRIBED`](crate::Model::PRESCRIBED)), zero at the free
    /// coordinates.
    pub drives: [R; NV],
}

const NOT_DEFINITE: RhsError = RhsError {
    message: "the mass matrix is not positive definite",
};
const LOCKED: RhsError = RhsError {
    message: "the constraint matrix J M⁻¹ Jᵀ is singular beyond regularisation",
};
const WRONG_LENGTH: RhsError = RhsError {
    message: "the state vector does not have NQ + NV entries",
};

impl<M, C, const NQ: usize, const NV: usize, const NC: usize> ConstrainedSystem<M, NQ, NV, NC, C>
where
    M: LoopClosure<NQ, NV, NC>,
    C: Control<M::Real, NQ, NV>,
{
    /// `q̈`, the multipliers `λ` (the cut joints' reactions in the
    /// constraints' coordinates) and the drive forces at time `t`, the
    /// prescribed coordinates on their laws.
    ///
    /// With prescribed coordinates `p`, their accelerations `a_p` are known:
    /// the rows and columns of `p` in `M` become the identity, `a_p` moves
    /// to the right-hand sides (`τ − bias − M_·p a_p`, `J̇ q̇ + J_·p a_p`) and
    /// the columns of `p` in `J` to zero, so the same solve gives the free
    /// coordinates' accelerations; the drives' forces close the rows of
    /// `p`: `(M (q̈ − q̈_tree) − Jᵀλ)_p`, `q̈_tree = M⁻¹ (τ − bias)`.
    pub fn accelerations(
        &mut self,
        t: M::Real,
        q: &[M::Real; NQ],
        qd: &[M::Real; NV],
    ) -> Result<Accelerations<M::Real, NV, NC>, RhsError> {
        let (mut q, mut qd) = (*q, *qd);
        let known = self.model.prescribe(t, &mut q, &mut qd);
        self.solve(t, &q, &qd, &known)
    }

    /// [`ConstrainedSystem::accelerations`] at a state whose prescribed
    /// coordinates are on their laws, `known` the laws' accelerations.
    pub(crate) fn solve(
        &mut self,
        t: M::Real,
        q: &[M::Real; NQ],
        qd: &[M::Real; NV],
        known: &[M::Real; NV],
    ) -> Result<Accelerations<M::Real, NV, NC>, RhsError> {
        let model = &self.model;
        let mut tau = model.model_forces(t, q, qd);
        for (total, c) in tau.iter_mut().zip(self.control.forces(t, q, qd)) {
            *total += c;
        }
        let tree = model.forward_dynamics(q, qd, &tau);
        let full_jacobian = model.constraint_jacobian(q);
        let full_mass = model.mass_matrix(q);
        let mut jacobian = full_jacobian;
        let mut bias = model.constraint_bias(q, qd);
        let mut mass = full_mass;
        let mut free = tree;
        let prescribed = |k: usize| M::PRESCRIBED.contains(&k);
        if !M::PRESCRIBED.is_empty() {
            let times = |matrix: &[[M::Real; NV]; NV], x: &[M::Real; NV], i: usize| {
                (0..NV).fold(M::Real::ZERO, |s, k| s + matrix[i][k] * x[k])
            };
            free = core::array::from_fn(|i| {
                if prescribed(i) {
                    known[i]
                } else {
                    times(&full_mass, &tree, i) - times(&full_mass, known, i)
                }
            });
            for (i, row) in mass.iter_mut().enumerate() {
                for (k, entry) in row.iter_mut().enumerate() {
                    if prescribed(i) || prescribed(k) {
                        *entry = if i == k { M::Real::ONE } else { M::Real::ZERO };
                    }
                }
            }
            for (row, b) in jacobian.iter_mut().zip(bias.iter_mut()) {
                for (k, (entry, &a)) in row.iter_mut().zip(known).enumerate() {
                    if prescribed(k) {
                        *b += *entry * a;
                        *entry = M::Real::ZERO;
                    }
                }
            }
        }
        let factor = cholesky(&mass).ok_or(NOT_DEFINITE)?;
        if !M::PRESCRIBED.is_empty() {
            free = solve(&factor, &free);
        }
        // M⁻¹ Jᵀ, column by column.
        let mut minv_jt = [[M::Real::ZERO; NC]; NV];
        for i in 0..NC {
            let column = solve(&factor, &jacobian[i]);
            for (k, value) in column.into_iter().enumerate() {
                minv_jt[k][i] = value;
            }
        }
        let matrix: [[M::Real; NC]; NC] = core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                (0..NV).fold(M::Real::ZERO, |s, k| s + jacobian[i][k] * minv_jt[k][j])
            })
        });
        let feedback: [M::Real; NC] = match self.drift_control {
            DriftControl::Projection => [M::Real::ZERO; NC],
            DriftControl::Baumgarte { alpha, beta } => {
                let psi = model.constraints(q);
                let (two_alpha, beta_squared) = (
                    M::Real::from_f64(2.0 * alpha),
                    M::Real::from_f64(beta * beta),
                );
                core::array::from_fn(|i| {
                    let rate = (0..NV).fold(M::Real::ZERO, |s, k| s + full_jacobian[i][k] * qd[k]);
                    two_alpha * rate + beta_squared * psi[i]
                })
            }
        };
        let rhs: [M::Real; NC] = core::array::from_fn(|i| {
            -(bias[i]
                + feedback[i]
                + (0..NV).fold(M::Real::ZERO, |s, k| s + jacobian[i][k] * free[k]))
        });
        let lambda = regularised_spd_solve(&matrix, &rhs).ok_or(LOCKED)?;
        let qdd: [M::Real; NV] = core::array::from_fn(|k| {
            free[k] + (0..NC).fold(M::Real::ZERO, |s, i| s + minv_jt[k][i] * lambda[i])
        });
        let drives = core::array::from_fn(|p| {
            if !prescribed(p) {
                return M::Real::ZERO;
            }
            let inertial = (0..NV).fold(M::Real::ZERO, |s, k| {
                s + full_mass[p][k] * (qdd[k] - tree[k])
            });
            (0..NC).fold(inertial, |s, i| s - full_jacobian[i][p] * lambda[i])
        });
        Ok(Accelerations {
            qdd,
            multipliers: lambda,
            drives,
        })
    }
}

impl<M, C, const NQ: usize, const NV: usize, const NC: usize> OdeSystem<M::Real>
    for ConstrainedSystem<M, NQ, NV, NC, C>
where
    M: LoopClosure<NQ, NV, NC>,
    C: Control<M::Real, NQ, NV>,
{
    fn dimension(&self) -> usize {
        NQ + NV
    }

    fn rhs(&mut self, t: M::Real, y: &[M::Real], dy: &mut [M::Real]) -> Result<(), RhsError> {
        let (q, v) = split_state::<M::Real, NQ, NV>(y).ok_or(WRONG_LENGTH)?;
        if dy.len() != NQ + NV {
            return Err(WRONG_LENGTH);
        }
        let (mut q, mut v) = (q, v);
        let known = self.model.prescribe(t, &mut q, &mut v);
        let qdd = self.solve(t, &q, &v, &known)?.qdd;
        let rates = self.model.coordinate_rates(&q, &v);
        join_state(&rates, &qdd, dy);
        Ok(())
    }

    /// From the module's `constrained_forward_dynamics_derivatives` where
    /// it has them and the drift is removed by projection (Baumgarte's
    /// feedback is not in them), the prescribed coordinates on their laws;
    /// the model's and the control's forces differentiated numerically
    /// (see the `jacobian` module). `Ok(false)` otherwise: the integrator
    /// then differentiates [`OdeSystem::rhs`] numerically.
    fn jacobian(
        &mut self,
        t: M::Real,
        y: &[M::Real],
        jacobian: &mut [M::Real],
    ) -> Result<bool, RhsError> {
        let (mut q, mut v) = split_state::<M::Real, NQ, NV>(y).ok_or(WRONG_LENGTH)?;
        if self.drift_control != DriftControl::Projection {
            return Ok(false);
        }
        let known = self.model.prescribe(t, &mut q, &mut v);
        Ok(self.emitted_jacobian(t, &q, &v, &known, jacobian))
    }

    /// Puts the prescribed coordinates on their laws at `t`, then (with
    /// projection) assembles and projects, the independent coordinates
    /// held.
    fn project(&mut self, t: M::Real, y: &mut [M::Real]) -> bool {
        let Some((mut q, mut v)) = split_state::<M::Real, NQ, NV>(y) else {
            return false;
        };
        self.model.prescribe(t, &mut q, &mut v);
        if self.drift_control != DriftControl::Projection {
            normalize_quaternions(M::QUATERNIONS, &mut q);
            let changed = y[..NQ] != q[..] || y[NQ..] != v[..];
            join_state(&q, &v, y);
            return changed;
        }
        normalize_quaternions(M::QUATERNIONS, &mut q);
        let tolerance = M::Real::from_f64(self.tolerance);
        let q = assemble(&self.model, q, M::INDEPENDENT, tolerance).unwrap_or(q);
        let v = project_velocities_holding(&self.model, &q, &v, M::INDEPENDENT);
        let changed = y[..NQ] != q[..] || y[NQ..] != v[..];
        join_state(&q, &v, y);
        changed
    }
}
