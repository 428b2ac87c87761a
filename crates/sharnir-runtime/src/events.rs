//! Event location: the times at which functions of the state cross zero (a
//! joint reaching its stop, a ball reaching the floor, a latch releasing),
//! found on the dense output of the step in which they happen, and
//! optionally the end of the integration there.
//!
//! This is MATLAB's `Events` option and scipy's `solve_ivp(events=…)` for
//! any [`Stepper`](crate::Stepper) over a flat state `y`:
//!
//! - the user gives one [`Event`] per component of a vector-valued event
//!   function `g(t, y)`, written into a slice so that one call evaluates
//!   every event (they usually share kinematics);
//! - after every accepted step, [`EventLocator::locate`] compares the signs
//!   of `g` at both ends of the step; a component that crossed zero in an
//!   allowed [`Direction`] is located on the step's continuous extension
//!   ([`Trajectory::interpolate`]) by the Illinois variant of regula falsi
//!   (with bisection when it stalls), to about four units in the last place
//!   of the time;
//! - the crossings come out in time order as [`EventRecord`]s, ending at the
//!   earliest terminal one: the integration should stop there, and the state
//!   to continue from is the record's, not the stepper's (which is past it).
//!
//! **What is a crossing.** `Rising` means `g` goes from negative to
//! non-negative, `Falling` from positive to non-positive. So a `g` that is
//! exactly zero at the end of a step is reported once, in that step, and
//! leaving zero in the next step is not a second crossing; a `g` that is
//! zero at the start is no event, and neither is a root within the time
//! tolerance of the start (after a terminal event, a restart begins on the
//! root itself).
//!
//! **What can be missed.** The signs are compared at the step ends, and for
//! an event made [`Event::sampled`] also at points inside the step on the
//! continuous extension: if `g` crosses zero twice between two compared
//! points (a ball that touches a plane and leaves it, both inside one
//! step), the signs agree and neither crossing is seen. Sample the events
//! whose excursions are brief (a mechanism dipping near a singular
//! configuration and back), or bound the step with the adaptive
//! integrators' `max_step` (or
//! [`Simulation::max_step`](crate::Simulation::max_step)) below the
//! shortest time `g` can spend on one side of zero.
//!
//! Needs `std`: the records carry the state at the event time, and the
//! locator keeps its values of `g` on the heap, sized by the number of
//! events. A fixed-step controller without an allocator can compare signs
//! itself.

mod dip;
mod illinois;

use crate::Trajectory;
use std::fmt;

/// Which sign changes of an event function count as its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From negative to non-negative (a coordinate growing past a value).
    Rising,
    /// From positive to non-positive (a height falling to the floor).
    Falling,
    /// Either of the two.
    Either,
}

impl Direction {
    /// The crossing from `before` to `after`, if the signs say there is one
    /// (`Rising` or `Falling`, never `Either`).
    fn crossing(before: f64, after: f64) -> Option<Direction> {
        if before < 0.0 && after >= 0.0 {
            Some(Direction::Rising)
        } else if before > 0.0 && after <= 0.0 {
            Some(Direction::Falling)
        } else {
            None
        }
    }

    /// Whether an event watching `self` takes a crossing `crossing`.
    fn admits(self, crossing: Direction) -> bool {
        self == Direction::Either || self == crossing
    }
}

/// The description of one event: the name under which it is reported,
/// which crossings count, and whether it ends the integration.
///
/// Component `i` of the event function belongs to the `i`-th description.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The name in reports and the events CSV file (`"floor"`, `"elbow
    /// stop"`).
    pub name: String,
    /// Which crossings are events.
    pub direction: Direction,
    /// Whether the integration stops at this event (to change the state,
    /// the model or nothing, and go on by a new run from the event).
    pub terminal: bool,
    /// How many evenly spaced points inside each step `g` is also compared
    /// at (0: the step's ends only).
    pub samples: usize,
}

impl Event {
    /// A non-terminal event: its crossings are recorded and the integration
    /// goes on.
    pub fn new(name: impl Into<String>, direction: Direction) -> Self {
        Event {
            name: name.into(),
            direction,
            terminal: false,
            samples: 0,
        }
    }

    /// The same event, ending the integration at its first crossing.
    pub fn terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// The same event, its function also compared at `points` evenly
    /// spaced times inside every step, on the continuous extension: an
    /// excursion of `g` to the other side of zero and back that lasts
    /// longer than a step over `points + 1` is found although both ends of
    /// the step agree. Each point costs one evaluation of the whole event
    /// function per step.
    pub fn sampled(mut self, points: usize) -> Self {
        self.samples = points;
        self
    }
}

/// One located event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord {
    /// Which event: the component of the event function and the index of
    /// its [`Event`].
    pub index: usize,
    /// The event's name.
    pub name: String,
    /// The located time.
    pub t: f64,
    /// The state at `t`, from the step's continuous extension (the step's
    /// end state when the event is at its end): for a mechanism `(q, q̇)`.
    pub y: Vec<f64>,
    /// How `g` crossed: `Rising` or `Falling`, never `Either`.
    pub direction: Direction,
    /// Whether the event is terminal: the integration ends at `t`.
    pub terminal: bool,
}

/// Why events could not be located.
#[derive(Clone, Debug, PartialEq)]
pub enum EventError {
    /// The event function returned NaN or an infinity, so no sign can be
    /// compared.
    NonFinite {
        /// The time of the evaluation.
        t: f64,
        /// The component.
        index: usize,
        /// Its event's name.
        name: String,
        /// The value returned.
        value: f64,
    },
}

impl EventError {
    /// The time at which the event function failed.
    pub fn time(&self) -> f64 {
        match *self {
            EventError::NonFinite { t, .. } => t,
        }
    }
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::NonFinite {
                t,
                index,
                name,
                value,
            } => write!(
                f,
                "the event function returned {value} for event {index} ({name}) at t = {t}"
            ),
        }
    }
}

impl std::error::Error for EventError {}

/// The time tolerance of a root between `a` and `b`: four units in the last
/// place of the larger time, and absolute `4ε` below 1 s.
fn time_tolerance(a: f64, b: f64) -> f64 {
    4.0 * f64::EPSILON * a.abs().max(b.abs()).max(1.0)
}

/// A crossing located in the current step, before it becomes a record.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    t: f64,
    index: usize,
    direction: Direction,
    terminal: bool,
}

/// Watches the sign changes of an event function step after step and
/// locates its roots; one per integration, restarted with
/// [`EventLocator::start`] after a terminal event.
///
/// ```
/// use sharnir_runtime::adaptive::Dop853;
/// use sharnir_runtime::{Direction, Event, EventLocator, OdeSystem, RhsError};
/// use sharnir_runtime::{Stepper, Tolerances, Trajectory};
///
/// /// A falling ball: `y = (h, v)`.
/// struct Ball;
/// impl OdeSystem for Ball {
///     fn dimension(&self) -> usize { 2 }
///     fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
///         dy[0] = y[1];
///         dy[1] = -9.81;
///         Ok(())
///     }
/// }
///
/// let mut height = |_t: f64, y: &[f64], g: &mut [f64]| g[0] = y[0];
/// let mut locator = EventLocator::new(vec![Event::new("floor", Direction::Falling).terminal()]);
/// let y0 = [1.0, 0.0];
/// let tolerances = Tolerances { rtol: 1e-10, atol: 1e-10 };
/// let mut stepper = Dop853::new(&mut Ball, 0.0, &y0, tolerances)?;
/// locator.start(0.0, &y0, &mut height)?;
/// let impact = loop {
///     stepper.step(&mut Ball, 10.0)?;
///     if let Some(record) = locator.locate(&stepper, &mut height)?.last() {
///         break record.clone();
///     }
/// };
/// assert!((impact.t - (2.0f64 / 9.81).sqrt()).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct EventLocator {
    events: Vec<Event>,
    /// The time at which the locator started: roots this close to it are
    /// the start itself.
    t_start: f64,
    /// The time of `g_last`, `None` until started (and after a terminal
    /// event).
    t_last: Option<f64>,
    /// `g` at `t_last`.
    g_last: Vec<f64>,
    /// `g` at the end of the current step.
    g_now: Vec<f64>,
    /// Scratch for the root finder: `g` and the state inside the step.
    g_scratch: Vec<f64>,
    y_scratch: Vec<f64>,
    /// `g` at the sampled points inside the current step, point after
    /// point, and their times.
    g_inside: Vec<f64>,
    t_inside: Vec<f64>,
    crossings: Vec<Crossing>,
    records: Vec<EventRecord>,
}

impl EventLocator {
    /// A locator for these events, component `i` of the event function
    /// belonging to `events[i]`.
    pub fn new(events: Vec<Event>) -> Self {
        let m = events.len();
        EventLocator {
            events,
            t_start: 0.0,
            t_last: None,
            g_last: vec![0.0; m],
            g_now: vec![0.0; m],
            g_scratch: vec![0.0; m],
            y_scratch: Vec::new(),
            g_inside: Vec::new(),
            t_inside: Vec::new(),
            crossings: Vec::with_capacity(m),
            records: Vec::new(),
        }
    }

    /// The events watched.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Starts (or restarts, after a terminal event and a change of state)
    /// at `(t0, y0)`: evaluates `g` there as the reference for the first
    /// step's signs. A component that is zero at `t0` is no event.
    ///
    /// Without it, [`EventLocator::locate`] starts from the first step's
    /// start, interpolated.
    pub fn start<G>(&mut self, t0: f64, y0: &[f64], g: &mut G) -> Result<(), EventError>
    where
        G: FnMut(f64, &[f64], &mut [f64]),
    {
        evaluate(&self.events, g, t0, y0, &mut self.g_last)?;
        self.t_start = t0;
        self.t_last = Some(t0);
        Ok(())
    }

    /// Looks for events in the step the trajectory has just accepted
    /// (from [`Trajectory::t_previous`] to [`Trajectory::t`]) and returns
    /// them in time order: every non-terminal event up to the earliest
    /// terminal one, then that one, which ends the slice.
    ///
    /// After a terminal event the stepper is past the event: continue from
    /// the record's state with a new stepper and [`EventLocator::start`].
    /// A step the locator did not see (or the first, without `start`) is
    /// compared against `g` at its start, interpolated.
    pub fn locate<T, G>(&mut self, trajectory: &T, g: &mut G) -> Result<&[EventRecord], EventError>
    where
        T: Trajectory + ?Sized,
        G: FnMut(f64, &[f64], &mut [f64]),
    {
        self.records.clear();
        self.crossings.clear();
        let (a, b) = (trajectory.t_previous(), trajectory.t());
        self.y_scratch.resize(trajectory.y().len(), 0.0);
        if self.t_last != Some(a) {
            trajectory.interpolate(a, &mut self.y_scratch);
            evaluate(&self.events, g, a, &self.y_scratch, &mut self.g_last)?;
            if self.t_last.is_none() {
                self.t_start = a;
            }
        }
        evaluate(&self.events, g, b, trajectory.y(), &mut self.g_now)?;
        self.sample_inside(trajectory, g, (a, b))?;
        let start_tolerance = time_tolerance(self.t_start, self.t_start);
        let m = self.events.len();
        for (index, event) in self.events.iter().enumerate() {
            // The compared points of this event: the step's ends, and its
            // samples inside; every admitted sign change between two
            // neighbours is a crossing.
            let inside = event.samples.min(self.t_inside.len());
            let point = |j: usize| match j {
                0 => (a, self.g_last[index]),
                j if j <= inside => (self.t_inside[j - 1], self.g_inside[(j - 1) * m + index]),
                _ => (b, self.g_now[index]),
            };
            let mut g_at = |t: f64, out: &mut f64| {
                trajectory.interpolate(t, &mut self.y_scratch);
                evaluate(&self.events, g, t, &self.y_scratch, &mut self.g_scratch)?;
                *out = self.g_scratch[index];
                Ok(())
            };
            // No sign change between the points: a sampled event's dip
            // between two of them.
            let changes =
                (0..=inside).any(|k| Direction::crossing(point(k).1, point(k + 1).1).is_some());
            let dip = match event.samples > 0 && !changes {
                true => dip::dip(inside + 2, point, &mut g_at)?,
                false => None,
            };
            let brackets = (0..=inside)
                .filter(|_| dip.is_none())
                .map(|k| (point(k), point(k + 1)))
                .chain(
                    dip.into_iter()
                        .flat_map(|d| [(d.before, d.bottom), (d.bottom, d.after)]),
                );
            for ((lo, glo), (hi, ghi)) in brackets {
                let Some(direction) =
                    Direction::crossing(glo, ghi).filter(|d| event.direction.admits(*d))
                else {
                    continue;
                };
                let t = illinois::root(&mut g_at, (lo, glo), (hi, ghi), direction)?;
                if t - self.t_start <= start_tolerance {
                    continue;
                }
                self.crossings.push(Crossing {
                    t,
                    index,
                    direction,
                    terminal: event.terminal,
                });
            }
        }
        // Time order; at one time the non-terminal events first, so that
        // they are reported before the terminal one ends the list.
        self.crossings.sort_by(|x, y| {
            x.t.total_cmp(&y.t)
                .then(x.terminal.cmp(&y.terminal))
                .then(x.index.cmp(&y.index))
        });
        if let Some(first_terminal) = self.crossings.iter().position(|c| c.terminal) {
            self.crossings.truncate(first_terminal + 1);
            self.t_last = None;
        } else {
            self.t_last = Some(b);
            std::mem::swap(&mut self.g_last, &mut self.g_now);
        }
        for c in &self.crossings {
            let y = if c.t == b {
                trajectory.y().to_vec()
            } else {
                let mut y = vec![0.0; trajectory.y().len()];
                trajectory.interpolate(c.t, &mut y);
                y
            };
            self.records.push(EventRecord {
                index: c.index,
                name: self.events[c.index].name.clone(),
                t: c.t,
                y,
                direction: c.direction,
                terminal: c.terminal,
            });
        }
        Ok(&self.records)
    }
}

impl EventLocator {
    /// `g` at the sampled points inside the step `(a, b)`: as many evenly
    /// spaced points as the most sampled event asks for.
    fn sample_inside<T, G>(
        &mut self,
        trajectory: &T,
        g: &mut G,
        (a, b): (f64, f64),
    ) -> Result<(), EventError>
    where
        T: Trajectory + ?Sized,
        G: FnMut(f64, &[f64], &mut [f64]),
    {
        let points = self.events.iter().map(|e| e.samples).max().unwrap_or(0);
        let m = self.events.len();
        self.t_inside.clear();
        self.g_inside.resize(points * m, 0.0);
        for k in 0..points {
            let t = a + (b - a) * (k + 1) as f64 / (points + 1) as f64;
            trajectory.interpolate(t, &mut self.y_scratch);
            let out = &mut self.g_inside[k * m..(k + 1) * m];
            evaluate(&self.events, g, t, &self.y_scratch, out)?;
            self.t_inside.push(t);
        }
        Ok(())
    }
}

/// `g(t, y)` into `out`, refusing values that are not finite.
fn evaluate<G>(
    events: &[Event],
    g: &mut G,
    t: f64,
    y: &[f64],
    out: &mut [f64],
) -> Result<(), EventError>
where
    G: FnMut(f64, &[f64], &mut [f64]),
{
    g(t, y, out);
    match out.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(EventError::NonFinite {
            t,
            index,
            name: events[index].name.clone(),
            value: out[index],
        }),
    }
}
