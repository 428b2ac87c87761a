//! What a [`Simulation`](super::Simulation) integrates: the open tree or the
//! mechanism closed by its cut joints, behind one trait.

use crate::model::{join_state, split_state, Control};
use crate::{assemble, project_velocities_holding, ConstrainedSystem, LoopClosure};
use crate::{IntegrationError, Model, ModelSystem, OdeSystem, Stepper, SymplecticEuler};

/// What a [`Simulation`](super::Simulation) integrates: a model's motion
/// as an [`OdeSystem`] on `y = (q, q̇)`, either the open tree
/// ([`ModelSystem`]) or a mechanism closed by cut joints
/// ([`ConstrainedSystem`]).
pub trait MechanicalSystem<M, const NQ: usize, const NV: usize>: OdeSystem<f64> + Sized
where
    M: Model<NQ, NV, Real = f64>,
{
    /// The mechanism.
    fn model(&self) -> &M;

    /// Whether no controller adds forces.
    fn is_passive(&self) -> bool;

    /// Makes the initial state `y` at `t0` one the system can start from
    /// (quaternions unit; prescribed coordinates on their laws; loops
    /// assembled with the independent coordinates held, velocities
    /// projected), or says why it cannot.
    fn start(&mut self, t0: f64, y: &mut [f64]) -> Result<(), String>;

    /// `τ_model + τ_control` at `(t, q, q̇)`: the forces the mechanism
    /// applies by itself and the control's.
    fn applied_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV];

    /// The power `q̇ · (τ_model + τ_control + τ_drive)` of the forces the
    /// mechanism, the control and the drives of prescribed coordinates
    /// apply at `(t, y)`: what the run integrates into the work that closes
    /// the energy balance (cut joints' reactions do no work). `None` for a
    /// state of the wrong length.
    fn power(&mut self, t: f64, y: &[f64]) -> Option<f64> {
        let (q, v) = split_state::<f64, NQ, NV>(y)?;
        let mut forces = self.applied_forces(t, &q, &v);
        if !M::PRESCRIBED.is_empty() {
            for (total, drive) in forces.iter_mut().zip(self.drive_forces(t, &q, &v)) {
                *total += drive;
            }
        }
        Some(
            v.iter()
                .zip(&forces)
                .map(|(rate, force)| rate * force)
                .sum(),
        )
    }

    /// The force each drive supplies (velocity order, zero at the free
    /// coordinates) at `(t, q, q̇)` with the prescribed coordinates on their
    /// laws, under the mechanism's and the control's forces. Zero by
    /// default (no coordinate prescribed).
    fn drive_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV] {
        let _ = (t, q, v);
        [0.0; NV]
    }

    /// Symplectic Euler on this system, where it applies.
    fn symplectic(
        &mut self,
        t0: f64,
        y: &[f64],
        step: f64,
    ) -> Result<Box<dyn Stepper<Self>>, IntegrationError>;
}

impl<M, C, const NQ: usize, const NV: usize> MechanicalSystem<M, NQ, NV>
    for ModelSystem<M, NQ, NV, C>
where
    M: Model<NQ, NV, Real = f64>,
    C: Control<f64, NQ, NV>,
{
    fn model(&self) -> &M {
        &self.model
    }

    fn is_passive(&self) -> bool {
        self.control.is_passive()
    }

    fn start(&mut self, t0: f64, y: &mut [f64]) -> Result<(), String> {
        self.project(t0, y);
        Ok(())
    }

    fn applied_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV] {
        applied(&self.model, &mut self.control, t, q, v)
    }

    fn drive_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV] {
        let tau = self.applied_forces(t, q, v);
        self.model.mixed_dynamics(t, q, v, &tau).1
    }

    fn symplectic(
        &mut self,
        t0: f64,
        y: &[f64],
        step: f64,
    ) -> Result<Box<dyn Stepper<Self>>, IntegrationError> {
        if !M::PRESCRIBED.is_empty() {
            return Err(IntegrationError::InvalidArgument {
                message: "the symplectic integrator does not take prescribed coordinates: \
                          choose another method",
            });
        }
        Ok(Box::new(SymplecticEuler::new(self, t0, y.to_vec(), step)?))
    }
}

impl<M, C, const NQ: usize, const NV: usize, const NC: usize> MechanicalSystem<M, NQ, NV>
    for ConstrainedSystem<M, NQ, NV, NC, C>
where
    M: LoopClosure<NQ, NV, NC, Real = f64>,
    C: Control<f64, NQ, NV>,
{
    fn model(&self) -> &M {
        &self.model
    }

    fn is_passive(&self) -> bool {
        self.control.is_passive()
    }

    fn start(&mut self, t0: f64, y: &mut [f64]) -> Result<(), String> {
        let Some((mut q, mut v)) = split_state::<f64, NQ, NV>(y) else {
            return Err("the state does not have NQ + NV entries".to_owned());
        };
        self.model.prescribe(t0, &mut q, &mut v);
        let q = assemble(&self.model, q, M::INDEPENDENT, self.tolerance)
            .map_err(|e| format!("the initial state: {e}"))?;
        let v = project_velocities_holding(&self.model, &q, &v, M::INDEPENDENT);
        join_state(&q, &v, y);
        Ok(())
    }

    fn applied_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV] {
        applied(&self.model, &mut self.control, t, q, v)
    }

    fn drive_forces(&mut self, t: f64, q: &[f64; NQ], v: &[f64; NV]) -> [f64; NV] {
        self.accelerations(t, q, v)
            .map_or([f64::NAN; NV], |solution| solution.drives)
    }

    fn symplectic(
        &mut self,
        _t0: f64,
        _y: &[f64],
        _step: f64,
    ) -> Result<Box<dyn Stepper<Self>>, IntegrationError> {
        Err(IntegrationError::InvalidArgument {
            message: "the symplectic integrator does not take closed loops: choose another method",
        })
    }
}

/// `τ_model + τ_control` at `(t, q, q̇)`.
fn applied<M, C, const NQ: usize, const NV: usize>(
    model: &M,
    control: &mut C,
    t: f64,
    q: &[f64; NQ],
    v: &[f64; NV],
) -> [f64; NV]
where
    M: Model<NQ, NV, Real = f64>,
    C: Control<f64, NQ, NV>,
{
    let mut forces = model.model_forces(t, q, v);
    for (total, extra) in forces.iter_mut().zip(control.forces(t, q, v)) {
        *total += extra;
    }
    forces
}
