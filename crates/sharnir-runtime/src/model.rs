//! What the runtime needs of a generated module, and the adapter that turns
//! it into an [`OdeSystem`].
//!
//! Generated modules are plain `core` + `libm` code with a fixed shape
//! (`NQ`, `NV`, `POSITION_NAMES`, `Params`, `Derived`, `forward_dynamics_with`,
//! …). [`crate::model!`] (`model_macro.rs`) turns that shape into a [`Model`] impl, so no module
//! needs hand-written glue and the modules stay independent of this crate.

use crate::{OdeSystem, Real, RhsError};

/// `∂q̈/∂q`, `∂q̈/∂q̇` and `∂q̈/∂τ` of a model's forward dynamics at one
/// state, each `NV × NV` (row: acceleration, column: velocity coordinate or
/// joint force); `∂q̈/∂q` in velocity coordinates (`q ⊕ δ`, Pinocchio's
/// convention).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForwardDynamicsDerivatives<R, const NV: usize> {
    /// `∂q̈/∂q`.
    pub by_position: [[R; NV]; NV],
    /// `∂q̈/∂q̇`.
    pub by_velocity: [[R; NV]; NV],
    /// `∂q̈/∂τ = M(q)⁻¹`.
    pub by_force: [[R; NV]; NV],
}

/// A mechanism the runtime can integrate: one generated module with its
/// parameter values.
///
/// The sizes are const parameters (`NQ` position coordinates, `NV` velocity
/// coordinates) so that states are fixed-size arrays even without an
/// allocator. Every method takes `&self`, which holds the parameter groups
/// the module computes once (`Params::derived`).
pub trait Model<const NQ: usize, const NV: usize> {
    /// The module's floating-point type (`f64`, or `f32` for `_f32` twins).
    type Real: Real;
    /// The module's `Params`.
    type Params: Copy + Default;

    /// The module as named at the [`crate::model!`] call (`triple_pendulum`,
    /// or a path such as `sharnir_generated::triple_pendulum`).
    const NAME: &'static str;
    /// Names of the position coordinates, in the order of `q`.
    const POSITION_NAMES: [&'static str; NQ];
    /// Names of the velocity coordinates, in the order of `q̇` and of forces.
    const VELOCITY_NAMES: [&'static str; NV];
    /// Index in `q` of the first component of every unit quaternion
    /// (`qx, qy, qz, qw`, scalar last), which integration keeps unit.
    const QUATERNIONS: &'static [usize];
    /// Whether the module's `applied_forces` can be nonzero (the spec has
    /// `[forces]`).
    const HAS_APPLIED_FORCES: bool;
    /// Whether the joints apply forces of their own: stops, clearances,
    /// gear meshes, damping or friction (the module's `HAS_JOINT_FORCES`).
    const HAS_JOINT_FORCES: bool = false;
    /// Names of the joints' unilateral contacts, in the order of
    /// [`Model::contact_gaps`] (the module's `CONTACT_NAMES`).
    const CONTACT_NAMES: &'static [&'static str] = &[];
    /// Whether [`Model::coriolis_matrix`] is the module's: `false` for a
    /// module generated without it (`model!(…, linear)`), whose
    /// `coriolis_matrix` is NaN, so that the symplectic integrator, the one
    /// user, refuses the model instead of stepping with a wrong momentum.
    const HAS_CORIOLIS_MATRIX: bool = true;

    /// The parameter values in use.
    fn params(&self) -> &Self::Params;

    /// The spec's initial positions (`[initial]`; zeros and identity
    /// quaternions by default).
    fn initial_positions(&self) -> [Self::Real; NQ];

    /// The spec's initial velocities (`[initial]`; zeros by default).
    fn initial_velocities(&self) -> [Self::Real; NV];

    /// `q̈` from `M q̈ + bias = τ`.
    fn forward_dynamics(
        &self,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        tau: &[Self::Real; NV],
    ) -> [Self::Real; NV];

    /// `dq/dt` from the velocity coordinates (quaternion kinematics for
    /// spherical and free joints; `q̇` itself for the others).
    fn coordinate_rates(&self, q: &[Self::Real; NQ], qd: &[Self::Real; NV]) -> [Self::Real; NQ];

    /// Kinetic and potential energy.
    fn energy(&self, q: &[Self::Real; NQ], qd: &[Self::Real; NV]) -> (Self::Real, Self::Real);

    /// The mass matrix `M(q)`.
    fn mass_matrix(&self, q: &[Self::Real; NQ]) -> [[Self::Real; NV]; NV];

    /// The Coriolis matrix `C(q, q̇)` (`C q̇ + g = bias`, `Ṁ − 2C` skew): for
    /// coordinates whose rates are the velocities, `Cᵀ q̇ − g = ∂L/∂q`, the
    /// rate of the momentum `M q̇` that the symplectic integrator steps.
    fn coriolis_matrix(
        &self,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
    ) -> [[Self::Real; NV]; NV];

    /// The gravity forces `g(q) = ∂V/∂q`.
    fn gravity(&self, q: &[Self::Real; NQ]) -> [Self::Real; NV];

    /// `∂q̈/∂q`, `∂q̈/∂q̇` and `∂q̈/∂τ = M⁻¹` of [`Model::forward_dynamics`]
    /// at `(q, q̇, τ)` (`∂q̈/∂q` in velocity coordinates, the module's
    /// convention), from the module's `forward_dynamics_derivatives`; `None`
    /// for a module without it (`model!(…, linear)`). What the Newton
    /// iterations of an implicit integrator need ([`ModelSystem`]'s
    /// [`OdeSystem::jacobian`]).
    fn forward_dynamics_derivatives(
        &self,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        tau: &[Self::Real; NV],
    ) -> Option<ForwardDynamicsDerivatives<Self::Real, NV>> {
        let _ = (q, qd, tau);
        None
    }

    /// Velocity indices of the coordinates the spec's `[motion]` prescribes
    /// as functions of time (the module's `PRESCRIBED`; empty by default).
    const PRESCRIBED: &'static [usize] = &[];

    /// Indices in `q` of the prescribed coordinates' positions, in the
    /// order of [`Model::PRESCRIBED`].
    const PRESCRIBED_POSITIONS: &'static [usize] = &[];

    /// Writes the prescribed coordinates' positions and rates at time `t`
    /// (their laws) into `q` and `qd`, leaving the others, and returns the
    /// laws' accelerations (zero at the free coordinates); without
    /// prescribed coordinates, writes nothing and returns zeros.
    fn prescribe(
        &self,
        t: Self::Real,
        q: &mut [Self::Real; NQ],
        qd: &mut [Self::Real; NV],
    ) -> [Self::Real; NV] {
        let _ = (t, q, qd);
        [<Self::Real as Real>::ZERO; NV]
    }

    /// Every acceleration, and the force each drive supplies (in the
    /// velocity coordinates' order, zero at the free ones), when the
    /// prescribed coordinates follow their laws at `t` and the others move
    /// under `tau`: the module's `mixed_dynamics`. Without prescribed
    /// coordinates, the forward dynamics and no drive force.
    fn mixed_dynamics(
        &self,
        t: Self::Real,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
        tau: &[Self::Real; NV],
    ) -> ([Self::Real; NV], [Self::Real; NV]) {
        let _ = t;
        (
            self.forward_dynamics(q, qd, tau),
            [<Self::Real as Real>::ZERO; NV],
        )
    }

    /// The spec's applied joint forces at time `t` (zero when the spec has no
    /// `[forces]`).
    fn applied_forces(
        &self,
        t: Self::Real,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
    ) -> [Self::Real; NV] {
        let _ = (t, q, qd);
        [<Self::Real as Real>::ZERO; NV]
    }

    /// The joints' own forces: the contact law of stops, clearances and
    /// gear meshes (`limit_forces`) plus damping and dry friction
    /// (`friction_forces`). Zero by default.
    fn joint_forces(&self, q: &[Self::Real; NQ], qd: &[Self::Real; NV]) -> [Self::Real; NV] {
        let _ = (q, qd);
        [<Self::Real as Real>::ZERO; NV]
    }

    /// Writes the gap of every contact ([`Model::CONTACT_NAMES`]) into
    /// `gaps`: positive while apart, negative while pressed in; the event
    /// functions of contacts. Writes nothing by default.
    fn contact_gaps(&self, q: &[Self::Real; NQ], gaps: &mut [Self::Real]) {
        let _ = (q, gaps);
    }

    /// Every force the mechanism applies by itself at `(t, q, q̇)`: the
    /// spec's `[forces]` and the joints' own. What the integrators add a
    /// controller's forces to.
    fn model_forces(
        &self,
        t: Self::Real,
        q: &[Self::Real; NQ],
        qd: &[Self::Real; NV],
    ) -> [Self::Real; NV] {
        let mut tau = self.applied_forces(t, q, qd);
        if Self::HAS_JOINT_FORCES {
            for (total, f) in tau.iter_mut().zip(self.joint_forces(q, qd)) {
                *total += f;
            }
        }
        tau
    }
}

/// Joint forces chosen while the simulation runs (a controller, a motor
/// model), added to the model's own applied forces.
pub trait Control<R: Real, const NQ: usize, const NV: usize> {
    /// The forces at time `t` and state `(q, q̇)`, in the order of the
    /// velocity coordinates.
    fn forces(&mut self, t: R, q: &[R; NQ], qd: &[R; NV]) -> [R; NV];

    /// Whether the forces are always zero, so that a simulation of a model
    /// without applied forces can say its energy must be conserved.
    fn is_passive(&self) -> bool {
        false
    }
}

/// No control: the mechanism moves under its own applied forces.
#[derive(Clone, Copy, Debug, Default)]
pub struct Passive;

impl<R: Real, const NQ: usize, const NV: usize> Control<R, NQ, NV> for Passive {
    fn forces(&mut self, _t: R, _q: &[R; NQ], _qd: &[R; NV]) -> [R; NV] {
        [R::ZERO; NV]
    }

    fn is_passive(&self) -> bool {
        true
    }
}

impl<R, F, const NQ: usize, const NV: usize> Control<R, NQ, NV> for F
where
    R: Real,
    F: FnMut(R, &[R; NQ], &[R; NV]) -> [R; NV],
{
    fn forces(&mut self, t: R, q: &[R; NQ], qd: &[R; NV]) -> [R; NV] {
        self(t, q, qd)
    }
}

/// A model as a first-order system on `y = (q, q̇)` (length `NQ + NV`):
/// `ẏ = (coordinate_rates(q, q̇), forward_dynamics(q, q̇, τ))` with
/// `τ = model_forces + control` (the spec's `[forces]`, the joints' own forces
/// and the controller's). With prescribed coordinates
/// ([`Model::PRESCRIBED`]) their positions and rates come from their laws
/// at `t` and the accelerations from [`Model::mixed_dynamics`].
///
/// [`OdeSystem::project`] renormalises the quaternions and writes the
/// prescribed coordinates' laws into the state.
///
/// The sizes are parameters of the system (not only of the model's trait)
/// so that the compiler knows which `Model<NQ, NV>` impl is meant.
#[derive(Clone, Debug)]
pub struct ModelSystem<M, const NQ: usize, const NV: usize, C = Passive> {
    /// The mechanism.
    pub model: M,
    /// Forces added at every evaluation.
    pub control: C,
}

impl<M: Model<NQ, NV>, const NQ: usize, const NV: usize> ModelSystem<M, NQ, NV, Passive> {
    /// The model moving under its own applied forces only.
    pub fn new(model: M) -> Self {
        ModelSystem {
            model,
            control: Passive,
        }
    }
}

impl<M: Model<NQ, NV>, C: Control<M::Real, NQ, NV>, const NQ: usize, const NV: usize>
    ModelSystem<M, NQ, NV, C>
{
    /// The model with forces from `control` added.
    pub fn with_control(model: M, control: C) -> Self {
        ModelSystem { model, control }
    }
}

/// Splits a flat state into fixed-size position and velocity arrays; `None`
/// when `y` is not `NQ + NV` long.
pub fn split_state<R: Real, const NQ: usize, const NV: usize>(
    y: &[R],
) -> Option<([R; NQ], [R; NV])> {
    if y.len() != NQ + NV {
        return None;
    }
    let mut q = [R::ZERO; NQ];
    let mut v = [R::ZERO; NV];
    q.copy_from_slice(&y[..NQ]);
    v.copy_from_slice(&y[NQ..]);
    Some((q, v))
}

/// Writes positions and velocities into a flat state of length `NQ + NV`
/// (nothing when the length is wrong).
pub fn join_state<R: Real, const NQ: usize, const NV: usize>(
    q: &[R; NQ],
    v: &[R; NV],
    y: &mut [R],
) {
    if y.len() == NQ + NV {
        y[..NQ].copy_from_slice(q);
        y[NQ..].copy_from_slice(v);
    }
}

/// Scales every quaternion of `q` (at the indices `quaternions`) to unit
/// length; says whether anything changed. A zero quaternion, which has no
/// direction, is left alone for the integrator's finiteness check to stop on.
pub fn normalize_quaternions<R: Real>(quaternions: &[usize], q: &mut [R]) -> bool {
    let mut changed = false;
    for &start in quaternions {
        let Some(quaternion) = q.get_mut(start..start + 4) else {
            continue;
        };
        let norm = quaternion
            .iter()
            .fold(R::ZERO, |sum, &c| sum + c * c)
            .sqrt();
        if norm > R::ZERO && norm != R::ONE {
            for c in quaternion.iter_mut() {
                *c = *c / norm;
            }
            changed = true;
        }
    }
    changed
}

const WRONG_LENGTH: RhsError = RhsError {
    message: "the state vector does not have NQ + NV entries",
};

impl<M, C, const NQ: usize, const NV: usize> OdeSystem<M::Real> for ModelSystem<M, NQ, NV, C>
where
    M: Model<NQ, NV>,
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
        self.model.prescribe(t, &mut q, &mut v);
        let mut tau = self.model.model_forces(t, &q, &v);
        let control = self.control.forces(t, &q, &v);
        for (total, c) in tau.iter_mut().zip(control) {
            *total += c;
        }
        let rates = self.model.coordinate_rates(&q, &v);
        let (accelerations, _) = self.model.mixed_dynamics(t, &q, &v, &tau);
        join_state(&rates, &accelerations, dy);
        Ok(())
    }

    /// From the module's `forward_dynamics_derivatives` where it has them
    /// (quaternions through the map between their rates and the velocities;
    /// prescribed coordinates on their laws, the free ones' derivatives
    /// from the tree's); the model's and the control's forces
    /// differentiated numerically (see the `jacobian` module).
    /// `Ok(false)` otherwise: the integrator then differentiates
    /// [`OdeSystem::rhs`] numerically.
    fn jacobian(
        &mut self,
        t: M::Real,
        y: &[M::Real],
        jacobian: &mut [M::Real],
    ) -> Result<bool, RhsError> {
        let (mut q, mut v) = split_state::<M::Real, NQ, NV>(y).ok_or(WRONG_LENGTH)?;
        self.model.prescribe(t, &mut q, &mut v);
        Ok(self.emitted_jacobian(t, &q, &v, jacobian))
    }

    fn project(&mut self, t: M::Real, y: &mut [M::Real]) -> bool {
        let end = NQ.min(y.len());
        let normalized = normalize_quaternions(M::QUATERNIONS, &mut y[..end]);
        if M::PRESCRIBED.is_empty() {
            return normalized;
        }
        let Some((mut q, mut v)) = split_state::<M::Real, NQ, NV>(y) else {
            return normalized;
        };
        self.model.prescribe(t, &mut q, &mut v);
        let changed = y[..NQ] != q[..] || y[NQ..] != v[..];
        join_state(&q, &v, y);
        normalized || changed
    }
}
