//! What a run hands out: samples and events to an [`Observer`], the
//! [`Summary`] at the end, a [`SimulationError`] when it stops early.

use super::work::StepWork;
use super::MechanicalSystem;
use crate::model::{join_state, split_state};
use crate::{EventError, EventRecord, IntegrationError, Model, Stats, Trajectory};
use std::fmt;
use std::time::Duration;

/// The state handed to an [`Observer`] at one output time.
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// Time.
    pub t: f64,
    /// Position coordinates.
    pub q: &'a [f64],
    /// Velocity coordinates.
    pub v: &'a [f64],
    /// Accelerations `q̇̇` of the velocity coordinates at the sample: the
    /// system's own (the forward dynamics of the tree, or the constrained
    /// motion of a mechanism with loops, with the laws' accelerations at
    /// prescribed coordinates), so that a run's samples hold what
    /// identification reads as measured accelerations.
    pub a: &'a [f64],
    /// Kinetic energy.
    pub kinetic: f64,
    /// Potential energy.
    pub potential: f64,
    /// The work done on the mechanism since the start by its own forces
    /// (the spec's `[forces]`, stops, damping, friction), the control and
    /// the drives of prescribed coordinates: `kinetic + potential − work`
    /// stays at its initial value.
    pub work: f64,
    /// The force each drive supplies to hold its coordinate on its law
    /// ([`Model::PRESCRIBED`] order); empty without prescribed coordinates.
    pub drives: &'a [f64],
}

/// An error an observer reports (a CSV file that cannot be written), which
/// stops the simulation.
pub type ObserverError = Box<dyn std::error::Error + Send + Sync>;

/// Receives the samples and events of a simulation, in time order, and its
/// progress.
pub trait Observer {
    /// One sample at an output time; an `Err` stops the simulation.
    fn sample(&mut self, sample: &Sample<'_>) -> Result<(), ObserverError>;

    /// One located event (see [`Simulation::events`](super::Simulation::events)),
    /// between the samples before it and those at or after it; a terminal
    /// event is followed by the final sample at its time. An `Err` stops the
    /// simulation. The default does nothing: every event is also in
    /// [`Summary::events`].
    fn event(&mut self, record: &EventRecord) -> Result<(), ObserverError> {
        let _ = record;
        Ok(())
    }

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
#[derive(Clone, Debug)]
pub struct Summary {
    /// The time reached: the end time, or the time of the terminal event
    /// that stopped the run.
    pub t_end: f64,
    /// The state `(q, q̇)` at [`Summary::t_end`] (interpolated at a terminal
    /// event): what a follow-up run starts from, after the caller changed
    /// what the event stands for (a velocity reversed by an impact, a
    /// released latch), with [`Simulation::initial_state`](super::Simulation::initial_state)
    /// and [`Simulation::start_time`](super::Simulation::start_time).
    pub final_state: Vec<f64>,
    /// The state `(q, q̇)` the run started from: the requested one with its
    /// quaternions normalised and, for a mechanism with loops, assembled
    /// (independent coordinates held) and its velocities projected. The
    /// difference from the request is the correction the start needed.
    pub initial_state: Vec<f64>,
    /// Every event located, in time order.
    pub events: Vec<EventRecord>,
    /// The terminal event that stopped the run, as an index into
    /// [`Summary::events`] (the last one); `None` when the run reached its
    /// end time.
    pub terminated_by: Option<usize>,
    /// The integrator's work.
    pub stats: Stats,
    /// Wall-clock time of the integration (output included).
    pub wall_time: Duration,
    /// Samples handed to the observer.
    pub samples: usize,
    /// Total energy `E = T + V` at the start.
    pub initial_energy: f64,
    /// The largest `|E(t) − W(t) − E(0)|` over the samples, `W` the work
    /// done by the mechanism's own forces and the control (zero for a
    /// conservative run): how far the energy balance fails to close.
    pub energy_drift: f64,
    /// The largest `|T| + |V − V(0)| + |W|` over the samples: the energy
    /// that moved, against which [`Summary::relative_energy_drift`] is
    /// measured (the total energy itself may be zero, as for the textbook's
    /// triple pendulum).
    pub energy_scale: f64,
    /// `W` at the end: the work done by the mechanism's own forces (the
    /// spec's `[forces]`, stops, damping, friction), the control and the
    /// drives of prescribed coordinates.
    pub work: f64,
    /// Whether energy should be conserved: no applied forces, no drives and
    /// no control.
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
    /// The event function could not be evaluated (it returned NaN).
    Event(EventError),
    /// The observer stopped the run.
    Observer(String),
    /// An argument of the simulation is unusable.
    InvalidArgument(String),
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SimulationErrorKind::Integration(e) => write!(f, "{e}")?,
            SimulationErrorKind::Event(e) => write!(f, "{e}")?,
            SimulationErrorKind::Observer(e) => write!(f, "output failed at t = {}: {e}", self.t)?,
            SimulationErrorKind::InvalidArgument(e) => return f.write_str(e),
        }
        write!(f, "; state (q, q̇) = {:?}", self.state)
    }
}

impl std::error::Error for SimulationError {}

/// Tracks the energy balance `T + V − W` over the samples.
#[derive(Default)]
pub(super) struct EnergyWatch {
    started: bool,
    pub(super) initial: f64,
    initial_potential: f64,
    pub(super) drift: f64,
    pub(super) scale: f64,
    pub(super) work: f64,
}

impl EnergyWatch {
    fn observe(&mut self, kinetic: f64, potential: f64, work: f64) {
        if !self.started {
            self.started = true;
            self.initial = kinetic + potential;
            self.initial_potential = potential;
        }
        self.work = work;
        self.drift = self
            .drift
            .max((kinetic + potential - work - self.initial).abs());
        self.scale = self
            .scale
            .max(kinetic.abs() + (potential - self.initial_potential).abs() + work.abs());
    }
}

/// The output side of a run: the observer, the output times `t0 + k·dt`
/// (and `t_end` exactly), the energy over the samples.
pub(super) struct Outputs<O> {
    pub(super) observer: O,
    pub(super) energy: EnergyWatch,
    pub(super) samples: usize,
    /// `k` of the next output time.
    pub(super) next: u64,
    pub(super) t0: f64,
    pub(super) dt: f64,
    pub(super) t_end: f64,
    /// The state at an output time.
    pub(super) state: Vec<f64>,
}

impl<O: Observer> Outputs<O> {
    /// The next output time; the last is `t_end` itself.
    fn next_time(&self) -> f64 {
        self.time(self.next)
    }

    /// Output time `k`: `t0 + k·dt`, the last one `t_end` itself.
    fn time(&self, k: u64) -> f64 {
        let t = self.t0 + k as f64 * self.dt;
        if t >= self.t_end - 1e-9 * self.dt {
            self.t_end
        } else {
            t
        }
    }

    /// The output times still due up to `limit` (inclusive), in order.
    pub(super) fn due_until(&self, limit: f64) -> Vec<f64> {
        let mut times = Vec::new();
        for k in self.next.. {
            let t = self.time(k);
            if t > limit {
                break;
            }
            times.push(t);
            if t == self.t_end {
                break;
            }
        }
        times
    }

    /// Hands out the samples due before `limit` (up to it when
    /// `inclusive`), all within the trajectory's last step: at its end the
    /// state itself, inside it the dense output.
    pub(super) fn through<M, S, T, const NQ: usize, const NV: usize>(
        &mut self,
        system: &mut S,
        trajectory: &T,
        limit: f64,
        inclusive: bool,
        work: &StepWork,
    ) -> Result<(), SimulationError>
    where
        M: Model<NQ, NV, Real = f64>,
        S: MechanicalSystem<M, NQ, NV>,
        T: Trajectory + ?Sized,
    {
        let mut state = std::mem::take(&mut self.state);
        let mut result = Ok(());
        while self.next_time() < limit || (inclusive && self.next_time() == limit) {
            let t = self.next_time();
            if t == trajectory.t() {
                state.copy_from_slice(trajectory.y());
            } else {
                trajectory.interpolate(t, &mut state);
            }
            result = self.sample(system, t, &state, work.at(t));
            if result.is_err() || t == self.t_end {
                break;
            }
        }
        self.state = state;
        result
    }

    /// Hands one sample to the observer.
    pub(super) fn sample<M, S, const NQ: usize, const NV: usize>(
        &mut self,
        system: &mut S,
        t: f64,
        y: &[f64],
        work: f64,
    ) -> Result<(), SimulationError>
    where
        M: Model<NQ, NV, Real = f64>,
        S: MechanicalSystem<M, NQ, NV>,
    {
        let mut drives: Vec<f64> = Vec::new();
        let mut on_laws: Vec<f64> = Vec::new();
        let y = if M::PRESCRIBED.is_empty() {
            y
        } else {
            // Dense output between steps follows the laws only to the
            // integration's accuracy; the samples follow them exactly.
            on_laws.extend_from_slice(y);
            if let Some((mut q, mut v)) = split_state::<f64, NQ, NV>(&on_laws) {
                system.model().prescribe(t, &mut q, &mut v);
                join_state(&q, &v, &mut on_laws);
                let forces = system.drive_forces(t, &q, &v);
                drives.extend(M::PRESCRIBED.iter().map(|&k| forces[k]));
            }
            &on_laws[..]
        };
        let mut rates = vec![0.0; y.len()];
        system
            .rhs(t, y, &mut rates)
            .map_err(|error| SimulationError {
                t,
                state: y.to_vec(),
                kind: SimulationErrorKind::Integration(IntegrationError::Rhs { t, error }),
            })?;
        let model = system.model();
        let (q, v) = y.split_at(NQ);
        let (kinetic, potential) = energy(model, q, v);
        self.energy.observe(kinetic, potential, work);
        self.next += 1;
        self.samples += 1;
        self.observer
            .sample(&Sample {
                t,
                q,
                v,
                a: &rates[NQ..],
                kinetic,
                potential,
                work,
                drives: &drives,
            })
            .map_err(|e| SimulationError {
                t,
                state: y.to_vec(),
                kind: SimulationErrorKind::Observer(e.to_string()),
            })
    }

    /// Hands one event to the observer.
    pub(super) fn event(&mut self, record: &EventRecord) -> Result<(), SimulationError> {
        self.observer.event(record).map_err(|e| SimulationError {
            t: record.t,
            state: record.y.clone(),
            kind: SimulationErrorKind::Observer(e.to_string()),
        })
    }
}

/// The model's kinetic and potential energy at `(q, q̇)`.
fn energy<M, const NQ: usize, const NV: usize>(model: &M, q: &[f64], v: &[f64]) -> (f64, f64)
where
    M: Model<NQ, NV, Real = f64>,
{
    let mut qa = [0.0; NQ];
    let mut va = [0.0; NV];
    qa.copy_from_slice(q);
    va.copy_from_slice(v);
    model.energy(&qa, &va)
}
