//! The driver a user calls: integrate a model from its initial state to an
//! end time, handing samples at exact output times to an observer, and
//! locating events on the way ([`Simulation::events`]).
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

mod mechanical;
mod output;
mod release;
mod work;

pub use mechanical::MechanicalSystem;
pub use output::{Observer, ObserverError, Sample, SimulationError, SimulationErrorKind, Summary};
pub use release::release_events;

use crate::adaptive::{Adams, Dop853, Dopri5, Radau5};
use crate::model::{join_state, Control, Passive};
use crate::{ConstrainedSystem, Event, EventLocator, EventRecord, IntegrationError, LoopClosure};
use crate::{Model, ModelSystem, Rk4, SemiImplicitEuler, Stepper, Tolerances, Trajectory};
use output::{EnergyWatch, Outputs};
use std::time::Instant;
use work::StepWork;

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
    max_step: Option<f64>,
    t0: f64,
    q0: [f64; NQ],
    v0: [f64; NV],
    events: Option<Events>,
}

/// The event function of [`Simulation::events`]: `g(t, q, q̇)` written into
/// the last slice, one component per event.
type EventFunction = Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + Send>;

/// The events a simulation watches: the locator (which holds their
/// descriptions) and the function.
struct Events {
    locator: EventLocator,
    function: EventFunction,
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
            max_step: None,
            t0: 0.0,
            q0,
            v0,
            events: None,
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
            max_step: self.max_step,
            t0: self.t0,
            q0: self.q0,
            v0: self.v0,
            events: self.events,
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
            max_step: self.max_step,
            t0: self.t0,
            q0: self.q0,
            v0: self.v0,
            events: self.events,
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

    /// Events to locate during the run: `events[i]` describes component
    /// `i` of `function(t, q, q̇, g)`, which writes every component into `g`
    /// (one call per evaluation, so that events share their kinematics).
    ///
    /// After every accepted step the run compares the signs of `g` at both
    /// ends and locates each crossing on the step's dense output (see
    /// [`EventLocator`]); events reach the observer
    /// ([`Observer::event`]) between the samples, in time order, and the
    /// [`Summary`] lists them all. A non-terminal event changes no sample;
    /// a terminal one ends the run at its time with a final sample there.
    /// A `g` that crosses zero twice within one step is not seen: bound the
    /// step with [`Simulation::max_step`]. Replaces earlier events.
    pub fn events<F>(mut self, events: Vec<Event>, function: F) -> Self
    where
        F: FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
    {
        self.events = Some(Events {
            locator: EventLocator::new(events),
            function: Box::new(function),
        });
        self
    }

    /// Steps of the adaptive methods no longer than `h`: so that an event
    /// whose function crosses zero and back within a step is not missed,
    /// or dense output between long stiff steps stays accurate. The
    /// fixed-step methods take the step they are given.
    pub fn max_step(mut self, h: f64) -> Self {
        self.max_step = Some(h);
        self
    }

    /// The model being simulated.
    pub fn model(&self) -> &M {
        self.system.model()
    }

    /// Integrates to `t_end` (or to the first terminal event), handing
    /// every output sample and every event to `observer`.
    pub fn run<O: Observer>(
        &mut self,
        t_end: f64,
        observer: O,
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
            .start(t0, &mut y)
            .map_err(|message| invalid(message, &y))?;
        let initial_state = y.clone();
        let mut stepper = self.stepper(&y).map_err(|e| SimulationError {
            t: t0,
            state: y.clone(),
            kind: SimulationErrorKind::Integration(e),
        })?;
        if let Some(events) = self.events.as_mut() {
            events.start::<NQ>(t0, &y).map_err(|e| event_error(e, &y))?;
        }
        let mut outputs = Outputs {
            observer,
            energy: EnergyWatch::default(),
            samples: 0,
            next: 0,
            t0,
            dt,
            t_end,
            state: vec![0.0; NQ + NV],
        };
        let conservative = !M::HAS_APPLIED_FORCES
            && !M::HAS_JOINT_FORCES
            && M::PRESCRIBED.is_empty()
            && self.system.is_passive();
        let mut work = StepWork::at_start(t0);
        let mut scratch = vec![0.0; NQ + NV];
        outputs.through(&mut self.system, &*stepper, t0, true, &work)?;
        let mut found: Vec<EventRecord> = Vec::new();
        let mut terminated_by = None;
        while terminated_by.is_none() && stepper.t() < t_end {
            stepper
                .step(&mut self.system, t_end)
                .map_err(|e| SimulationError {
                    t: e.time().unwrap_or(stepper.t()),
                    state: stepper.y().to_vec(),
                    kind: SimulationErrorKind::Integration(e),
                })?;
            outputs.observer.progress(stepper.t());
            let located = match self.events.as_mut() {
                Some(events) => events
                    .locate::<NQ, _>(&*stepper)
                    .map_err(|e| event_error(e, stepper.y()))?,
                None => &[],
            };
            // The work up to every sample and event inside the step; a
            // conservative run's forces are zero and do none.
            if !conservative {
                let mut cuts = outputs.due_until(stepper.t());
                cuts.extend(located.iter().map(|record| record.t));
                work = work
                    .next::<M, S, _, NQ, NV>(&mut self.system, &*stepper, &cuts, &mut scratch)
                    .ok_or_else(|| SimulationError {
                        t: stepper.t(),
                        state: stepper.y().to_vec(),
                        kind: SimulationErrorKind::Integration(IntegrationError::NonFinite {
                            t: stepper.t(),
                        }),
                    })?;
            }
            for record in located {
                // Samples before the event come from the step's dense
                // output, as without events.
                outputs.through(&mut self.system, &*stepper, record.t, false, &work)?;
                outputs.event(record)?;
                found.push(record.clone());
                if record.terminal {
                    terminated_by = Some(found.len() - 1);
                    outputs.sample(&mut self.system, record.t, &record.y, work.at(record.t))?;
                }
            }
            if terminated_by.is_none() {
                outputs.through(&mut self.system, &*stepper, stepper.t(), true, &work)?;
            }
        }
        let (t_final, final_state) = match terminated_by {
            Some(i) => (found[i].t, found[i].y.clone()),
            None => (stepper.t(), stepper.y().to_vec()),
        };
        Ok(Summary {
            t_end: t_final,
            final_state,
            initial_state,
            events: found,
            terminated_by,
            stats: stepper.stats(),
            wall_time: started.elapsed(),
            samples: outputs.samples,
            initial_energy: outputs.energy.initial,
            energy_drift: outputs.energy.drift,
            energy_scale: outputs.energy.scale,
            work: outputs.energy.work,
            conservative,
        })
    }

    fn stepper(&mut self, y: &[f64]) -> Result<Box<dyn Stepper<S>>, IntegrationError> {
        let (system, t0, tolerances) = (&mut self.system, self.t0, self.tolerances);
        let h_max = self.max_step;
        Ok(match self.method {
            Method::Rk4 { step } => Box::new(Rk4::new(system, t0, y.to_vec(), step)?),
            Method::SemiImplicitEuler { step } => {
                Box::new(SemiImplicitEuler::new(system, t0, y.to_vec(), step, NQ)?)
            }
            Method::Symplectic { step } => system.symplectic(t0, y, step)?,
            Method::Dopri5 => Box::new(limited(
                Dopri5::new(system, t0, y, tolerances)?,
                h_max,
                Dopri5::max_step,
            )),
            Method::Dop853 => Box::new(limited(
                Dop853::new(system, t0, y, tolerances)?,
                h_max,
                Dop853::max_step,
            )),
            Method::Adams => Box::new(limited(
                Adams::new(system, t0, y, tolerances)?,
                h_max,
                Adams::max_step,
            )),
            Method::Radau5 => Box::new(limited(
                Radau5::new(system, t0, y, tolerances)?,
                h_max,
                Radau5::max_step,
            )),
        })
    }
}

/// `stepper` with its largest step set to `h_max`, when there is one.
fn limited<T>(stepper: T, h_max: Option<f64>, set: fn(T, f64) -> T) -> T {
    match h_max {
        Some(h) => set(stepper, h),
        None => stepper,
    }
}

impl Events {
    /// The event function on the flat state `y = (q, q̇)`.
    fn on_state<const NQ: usize>(
        function: &mut EventFunction,
    ) -> impl FnMut(f64, &[f64], &mut [f64]) + '_ {
        move |t, y, g| {
            let (q, v) = y.split_at(NQ);
            function(t, q, v, g)
        }
    }

    fn start<const NQ: usize>(&mut self, t0: f64, y: &[f64]) -> Result<(), crate::EventError> {
        let mut g = Self::on_state::<NQ>(&mut self.function);
        self.locator.start(t0, y, &mut g)
    }

    fn locate<const NQ: usize, T: Trajectory + ?Sized>(
        &mut self,
        trajectory: &T,
    ) -> Result<&[EventRecord], crate::EventError> {
        let mut g = Self::on_state::<NQ>(&mut self.function);
        self.locator.locate(trajectory, &mut g)
    }
}

/// A failure of the event function as the run's error.
fn event_error(error: crate::EventError, y: &[f64]) -> SimulationError {
    SimulationError {
        t: error.time(),
        state: y.to_vec(),
        kind: SimulationErrorKind::Event(error),
    }
}
