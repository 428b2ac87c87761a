//! The driver a user calls: integrate a model from its initial state to an
//! end time, handing samples at exact output times to an observer.
//!
//! ```
//! use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};
//!
//! model!(Pendulum = sharnir_generated::triple_pendulum);
//!
//! let mut kinetic = Vec::new();
//! let summary = Simulation::new(Pendulum::default())
//!     .method(Method::Dop853)
//!     .tolerances(Tolerances { rtol: 1e-10, atol: 1e-10 })
//!     .output_interval(0.01)
//!     .run(5.0, |sample: &Sample<'_>| kinetic.push(sample.kinetic))?;
//! assert_eq!(kinetic.len(), 501);
//! assert!(summary.energy_drift < 1e-8);
//! # Ok::<(), sharnir_runtime::SimulationError>(())
//! ```

use crate::adaptive::{Adams, Dop853, Dopri5, Radau5};
use crate::model::{join_state, split_state, Control, Passive};
use crate::{assemble, project_velocities_holding, ConstrainedSystem, LoopClosure};
use crate::{IntegrationError, Model, ModelSystem, Rk4, SemiImplicitEuler, Stats, Stepper};
use crate::{OdeSystem, SymplecticEuler, Tolerances};
use std::fmt;
use std::time::{Duration, Instant};

/// Which integrator a [`Simulation`] uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Classical Runge–Kutta with a fixed step.
    Rk4 {
        /// The step size.
        step: f64,
    },
    /// Semi-implicit Euler in the velocities with a fixed step (symplectic
    /// only for a constant mass matrix).
    SemiImplicitEuler {
        /// The step size.
        step: f64,
    },
    /// Symplectic Euler in the momenta `M q̇`, fixed step: bounded energy
    /// error over long conservative runs (no spherical or free joints).
    Symplectic {
        /// The step size.
        step: f64,
    },
    /// Dormand–Prince 5(4), adaptive (MATLAB's `ode45`).
    Dopri5,
    /// Dormand–Prince 8(5,3), adaptive: the method for tight tolerances
    /// (where MATLAB users take `ode113`).
    Dop853,
    /// Adams–Bashforth–Moulton, variable order (1–12) and step: two
    /// evaluations per step, for dynamics that are expensive to evaluate
    /// (MATLAB's `ode113`).
    Adams,
    /// Radau IIA of order 5, implicit and adaptive: stiff mechanisms (stiff
    /// springs, joint stops); where MATLAB users take `ode15s`.
    Radau5,
}

impl Method {
    /// Whether the method chooses its own step sizes from the tolerances.
    pub fn is_adaptive(&self) -> bool {
        matches!(
            self,
            Method::Dopri5 | Method::Dop853 | Method::Adams | Method::Radau5
        )
    }
}

/// The state handed to an [`Observer`] at one output time.
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// Time.
    pub t: f64,
    /// Position coordinates.
    pub q: &'a [f64],
    /// Velocity coordinates.
    pub v: &'a [f64],
    /// Kinetic energy.
    pub kinetic: f64,
    /// Potential energy.
    pub potential: f64,
}

/// An error an observer reports (a CSV file that cannot be written), which
/// stops the simulation.
pub type ObserverError = Box<dyn std::error::Error + Send + Sync>;

/// Receives the samples of a simulation, in time order, and its progress.
pub trait Observer {
    /// One sample at an output time; an `Err` stops the simulation.
    fn sample(&mut self, sample: &Sample<'_>) -> Result<(), ObserverError>;

    /// Called after every accepted step with the time reached (for progress
    /// bars). The default does nothing.
    fn progress(&mut self, t: f64) {
        let _ = t;
    }
}

impl<F: FnMut(&Sample<'_>)> Observer for F {
    fn sample(&mut self, sample: &Sample<'_>) -> Result<(), ObserverError> {
        self(sample);
        Ok(())
    }
}

/// What a finished simulation did.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    /// The time reached (the end time).
    pub t_end: f64,
    /// The integrator's work.
    pub stats: Stats,
    /// Wall-clock time of the integration (output included).
    pub wall_time: Duration,
    /// Samples handed to the observer.
    pub samples: usize,
    /// Total energy at the start.
    pub initial_energy: f64,
    /// The largest `|E(t) − E(0)|` over the samples.
    pub energy_drift: f64,
    /// The largest `|T| + |V − V(0)|` over the samples: the energy that
    /// moved, against which [`Summary::relative_energy_drift`] is measured
    /// (the total energy itself may be zero, as for the textbook's triple
    /// pendulum).
    pub energy_scale: f64,
    /// Whether energy should be conserved: no applied forces and no control.
    pub conservative: bool,
}

impl Summary {
    /// Simulated time per wall-clock time.
    pub fn real_time_factor(&self, t0: f64) -> f64 {
        (self.t_end - t0) / self.wall_time.as_secs_f64().max(1e-12)
    }

    /// [`Summary::energy_drift`] relative to [`Summary::energy_scale`].
    pub fn relative_energy_drift(&self) -> f64 {
        if self.energy_scale > 0.0 {
            self.energy_drift / self.energy_scale
        } else {
            self.energy_drift
        }
    }
}

/// Why a simulation stopped early, with the time and state it reached.
#[derive(Clone, Debug)]
pub struct SimulationError {
    /// The time reached.
    pub t: f64,
    /// The last accepted state `(q, q̇)`.
    pub state: Vec<f64>,
    /// What happened.
    pub kind: SimulationErrorKind,
}

/// The cause of a [`SimulationError`].
#[derive(Clone, Debug)]
pub enum SimulationErrorKind {
    /// The integrator stopped.
    Integration(IntegrationError),
    /// The observer stopped the run.
    Observer(String),
    /// An argument of the simulation is unusable.
    InvalidArgument(String),
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SimulationErrorKind::Integration(e) => write!(f, "{e}")?,
            SimulationErrorKind::Observer(e) => write!(f, "output failed at t = {}: {e}", self.t)?,
            SimulationErrorKind::InvalidArgument(e) => return f.write_str(e),
        }
        write!(f, "; state (q, q̇) = {:?}", self.state)
    }
}

impl std::error::Error for SimulationError {}

/// What a [`Simulation`] integrates: a model's motion as an [`OdeSystem`]
/// on `y = (q, q̇)`, either the open tree ([`ModelSystem`]) or a mechanism
/// closed by cut joints ([`ConstrainedSystem`]).
pub trait MechanicalSystem<M, const NQ: usize, const NV: usize>: OdeSystem<f64> + Sized
where
    M: Model<NQ, NV, Real = f64>,
{
    /// The mechanism.
    fn model(&self) -> &M;

    /// Whether no controller adds forces.
    fn is_passive(&self) -> bool;

    /// Makes the initial state `y` one the system can start from
    /// (quaternions unit; loops assembled with the independent coordinates
    /// held, velocities projected), or says why it cannot.
    fn start(&mut self, y: &mut [f64]) -> Result<(), String>;

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

    fn start(&mut self, y: &mut [f64]) -> Result<(), String> {
        self.project(y);
        Ok(())
    }

    fn symplectic(
        &mut self,
        t0: f64,
        y: &[f64],
        step: f64,
    ) -> Result<Box<dyn Stepper<Self>>, IntegrationError> {
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

    fn start(&mut self, y: &mut [f64]) -> Result<(), String> {
        let Some((q, v)) = split_state::<f64, NQ, NV>(y) else {
            return Err("the state does not have NQ + NV entries".to_owned());
        };
        let q = assemble(&self.model, q, M::INDEPENDENT, self.tolerance)
            .map_err(|e| format!("the initial state: {e}"))?;
        let v = project_velocities_holding(&self.model, &q, &v, M::INDEPENDENT);
        join_state(&q, &v, y);
        Ok(())
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

/// A simulation of one model: its initial state, integrator and output
/// times, configured by builder methods and started by
/// [`Simulation::run`]. `S` is what is integrated: the open tree by
/// default, the closed mechanism after [`Simulation::closed`].
pub struct Simulation<
    M,
    const NQ: usize,
    const NV: usize,
    C = Passive,
    S = ModelSystem<M, NQ, NV, C>,
> {
    system: S,
    /// The controller type lives in `S`; this keeps the parameter used.
    control: std::marker::PhantomData<(M, C)>,
    method: Method,
    tolerances: Tolerances,
    output_interval: Option<f64>,
    t0: f64,
    q0: [f64; NQ],
    v0: [f64; NV],
}

impl<M, const NQ: usize, const NV: usize> Simulation<M, NQ, NV, Passive>
where
    M: Model<NQ, NV, Real = f64>,
{
    /// A simulation from the spec's initial state at `t = 0`, with
    /// [`Method::Dopri5`] and the default tolerances.
    pub fn new(model: M) -> Self {
        let (q0, v0) = (model.initial_positions(), model.initial_velocities());
        Simulation {
            system: ModelSystem::new(model),
            control: std::marker::PhantomData,
            method: Method::Dopri5,
            tolerances: Tolerances::default(),
            output_interval: None,
            t0: 0.0,
            q0,
            v0,
        }
    }
}

impl<M, C, const NQ: usize, const NV: usize> Simulation<M, NQ, NV, C>
where
    M: Model<NQ, NV, Real = f64>,
    C: Control<f64, NQ, NV>,
{
    /// Adds forces from a controller to the model's own.
    pub fn control<D: Control<f64, NQ, NV>>(self, control: D) -> Simulation<M, NQ, NV, D> {
        Simulation {
            system: ModelSystem::with_control(self.system.model, control),
            control: std::marker::PhantomData,
            method: self.method,
            tolerances: self.tolerances,
            output_interval: self.output_interval,
            t0: self.t0,
            q0: self.q0,
            v0: self.v0,
        }
    }

    /// The mechanism with its loops closed by its cut joints: integrates
    /// [`ConstrainedSystem`] (coordinate projection after every step), and
    /// starts by assembling the initial state with the independent
    /// coordinates held.
    pub fn closed<const NC: usize>(
        self,
    ) -> Simulation<M, NQ, NV, C, ConstrainedSystem<M, NQ, NV, NC, C>>
    where
        M: LoopClosure<NQ, NV, NC>,
    {
        let ModelSystem { model, control } = self.system;
        Simulation {
            system: ConstrainedSystem::with_control(model, control),
            control: std::marker::PhantomData,
            method: self.method,
            tolerances: self.tolerances,
            output_interval: self.output_interval,
            t0: self.t0,
            q0: self.q0,
            v0: self.v0,
        }
    }
}

impl<M, C, S, const NQ: usize, const NV: usize> Simulation<M, NQ, NV, C, S>
where
    M: Model<NQ, NV, Real = f64>,
    S: MechanicalSystem<M, NQ, NV>,
{
    /// The integrator.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// Tolerances of the adaptive methods.
    pub fn tolerances(mut self, tolerances: Tolerances) -> Self {
        self.tolerances = tolerances;
        self
    }

    /// Samples at `t0, t0 + dt, t0 + 2 dt, …` and at the end time exactly
    /// (default: 1000 intervals over the run).
    pub fn output_interval(mut self, dt: f64) -> Self {
        self.output_interval = Some(dt);
        self
    }

    /// The initial state (quaternions are normalised when the run starts).
    pub fn initial_state(mut self, q: [f64; NQ], v: [f64; NV]) -> Self {
        self.q0 = q;
        self.v0 = v;
        self
    }

    /// The initial time (default 0).
    pub fn start_time(mut self, t0: f64) -> Self {
        self.t0 = t0;
        self
    }

    /// The model being simulated.
    pub fn model(&self) -> &M {
        self.system.model()
    }

    /// Integrates to `t_end`, handing every output sample to `observer`.
    pub fn run<O: Observer>(
        &mut self,
        t_end: f64,
        mut observer: O,
    ) -> Result<Summary, SimulationError> {
        let started = Instant::now();
        let t0 = self.t0;
        let mut y = vec![0.0; NQ + NV];
        join_state(&self.q0, &self.v0, &mut y);
        let invalid = |message: String, y: &[f64]| SimulationError {
            t: t0,
            state: y.to_vec(),
            kind: SimulationErrorKind::InvalidArgument(message),
        };
        if !(t_end.is_finite() && t_end > t0) {
            return Err(invalid(
                format!("the end time {t_end} must be finite and after the start time {t0}"),
                &y,
            ));
        }
        let dt = self.output_interval.unwrap_or((t_end - t0) / 1000.0);
        if !(dt.is_finite() && dt > 0.0) {
            return Err(invalid(
                format!("the output interval {dt} must be positive"),
                &y,
            ));
        }
        self.system
            .start(&mut y)
            .map_err(|message| invalid(message, &y))?;
        let mut stepper = self.stepper(&y).map_err(|e| SimulationError {
            t: t0,
            state: y.clone(),
            kind: SimulationErrorKind::Integration(e),
        })?;
        let mut energy = EnergyWatch::default();
        let mut samples = 0usize;
        let mut k = 0u64;
        let mut out = vec![0.0; NQ + NV];
        loop {
            let t = t0 + k as f64 * dt;
            let t = if t >= t_end - 1e-9 * dt { t_end } else { t };
            // Samples inside the last accepted step come from its dense
            // output; the end of the step is the state itself.
            while t > stepper.t() {
                stepper
                    .step(&mut self.system, t_end)
                    .map_err(|e| SimulationError {
                        t: e.time().unwrap_or(stepper.t()),
                        state: stepper.y().to_vec(),
                        kind: SimulationErrorKind::Integration(e),
                    })?;
                observer.progress(stepper.t());
            }
            if t == stepper.t() {
                out.copy_from_slice(stepper.y());
            } else {
                stepper.interpolate(t, &mut out);
            }
            let (q, v) = out.split_at(NQ);
            let (kinetic, potential) = self.energy(q, v);
            energy.observe(kinetic, potential);
            observer
                .sample(&Sample {
                    t,
                    q,
                    v,
                    kinetic,
                    potential,
                })
                .map_err(|e| SimulationError {
                    t,
                    state: out.clone(),
                    kind: SimulationErrorKind::Observer(e.to_string()),
                })?;
            samples += 1;
            if t == t_end {
                break;
            }
            k += 1;
        }
        Ok(Summary {
            t_end,
            stats: stepper.stats(),
            wall_time: started.elapsed(),
            samples,
            initial_energy: energy.initial,
            energy_drift: energy.drift,
            energy_scale: energy.scale,
            conservative: !M::HAS_APPLIED_FORCES
                && !M::HAS_JOINT_FORCES
                && self.system.is_passive(),
        })
    }

    fn energy(&self, q: &[f64], v: &[f64]) -> (f64, f64) {
        let mut qa = [0.0; NQ];
        let mut va = [0.0; NV];
        qa.copy_from_slice(q);
        va.copy_from_slice(v);
        self.system.model().energy(&qa, &va)
    }

    fn stepper(&mut self, y: &[f64]) -> Result<Box<dyn Stepper<S>>, IntegrationError> {
        let (system, t0, tolerances) = (&mut self.system, self.t0, self.tolerances);
        Ok(match self.method {
            Method::Rk4 { step } => Box::new(Rk4::new(system, t0, y.to_vec(), step)?),
            Method::SemiImplicitEuler { step } => {
                Box::new(SemiImplicitEuler::new(system, t0, y.to_vec(), step, NQ)?)
            }
            Method::Symplectic { step } => system.symplectic(t0, y, step)?,
            Method::Dopri5 => Box::new(Dopri5::new(system, t0, y, tolerances)?),
            Method::Dop853 => Box::new(Dop853::new(system, t0, y, tolerances)?),
            Method::Adams => Box::new(Adams::new(system, t0, y, tolerances)?),
            Method::Radau5 => Box::new(Radau5::new(system, t0, y, tolerances)?),
        })
    }
}

/// Tracks the total energy over the samples.
#[derive(Default)]
struct EnergyWatch {
    started: bool,
    initial: f64,
    initial_potential: f64,
    drift: f64,
    scale: f64,
}

impl EnergyWatch {
    fn observe(&mut self, kinetic: f64, potential: f64) {
        if !self.started {
            self.started = true;
            self.initial = kinetic + potential;
            self.initial_potential = potential;
        }
        self.drift = self.drift.max((kinetic + potential - self.initial).abs());
        self.scale = self
            .scale
            .max(kinetic.abs() + (potential - self.initial_potential).abs());
    }
}
