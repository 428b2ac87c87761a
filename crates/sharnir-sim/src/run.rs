//! One simulation run from the command line: initial state, integration,
//! events, CSV, plot, progress and the closing summary.

use crate::animation::{write_run, Drawing, Film};
use crate::conditioning::near_singular_mass;
use crate::csv_output::{events_path, CsvOutput, EventsCsv};
use crate::curves::Curves;
use crate::options::{Assignment, CoordinateKind, MethodName, SimOptions};
use crate::plot::{self, Trace};
use crate::progress::Progress;
use crate::report::{report, report_start};
use sharnir_runtime::{
    closure_conditioning, BodyPoses, Direction, Event, EventRecord, LoopClosure, MechanicalSystem,
    Method, Model, Observer, ObserverError, Passive, Sample, Simulation, SimulationErrorKind,
    Summary, Tolerances,
};
use std::fmt::Write as _;
use std::time::Instant;

/// Runs the simulation the options describe and returns the text of the
/// summary; an `Err` is the message for the user (the CSV written so far is
/// kept, complete rows only). The joints' contacts (stops, clearances, gear
/// flanks) are watched as events: a contact begins where its gap falls
/// through zero and ends where it rises through it.
pub fn run<M, const NQ: usize, const NV: usize>(
    model: M,
    options: &SimOptions,
) -> Result<String, String>
where
    M: Model<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    let contacts = watched(options, contact_events(&model));
    execute(Simulation::new(model), options, contacts, None, None).map(|(text, ..)| text)
}

/// [`run`] with the model's bodies drawn, so that `--html` can animate
/// them: what the `main` of a simulation binary runs.
pub(crate) fn run_drawn<M, const NQ: usize, const NV: usize>(
    model: M,
    options: &SimOptions,
) -> Result<String, String>
where
    M: BodyPoses<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    let contacts = watched(options, contact_events(&model));
    let drawing = Drawing::of(&model);
    let (text, summary, film) = execute(
        Simulation::new(model),
        options,
        contacts,
        None,
        Some(drawing),
    )?;
    Ok(text + &animate(options, M::NAME, &[film.as_ref()], &summary.events)?)
}

/// [`run_closed`] with the model's bodies drawn (see [`run_drawn`]).
pub(crate) fn run_closed_drawn<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
    options: &SimOptions,
) -> Result<String, String>
where
    M: LoopClosure<NQ, NV, NC, Real = f64> + BodyPoses<NQ, NV> + Clone + Send + 'static,
{
    refuse_symplectic(options)?;
    let events = closed_events(&model, options);
    let drawing = Drawing::of(&model);
    let (text, summary, film) = execute(
        Simulation::new(model).closed(),
        options,
        events,
        None,
        Some(drawing),
    )?;
    Ok(text + &animate(options, M::NAME, &[film.as_ref()], &summary.events)?)
}

/// Writes the `--html` page of a run made of `films`, when asked: the
/// summary's line that says where it is.
pub(crate) fn animate(
    options: &SimOptions,
    title: &str,
    films: &[Option<&Film>],
    events: &[EventRecord],
) -> Result<String, String> {
    let Some(path) = &options.html else {
        return Ok(String::new());
    };
    let films: Vec<&Film> = films.iter().flatten().copied().collect();
    write_run(path, title, options.scene.as_deref(), &films, events)?;
    Ok(format!("animation: {}\n", path.display()))
}

/// `events` unless `--no-events` drops them.
pub(crate) fn watched(
    options: &SimOptions,
    events: Option<(Vec<Event>, EventFunction)>,
) -> Option<(Vec<Event>, EventFunction)> {
    events.filter(|_| !options.no_events)
}

/// The joints' contacts of `model` as non-terminal events on their gaps
/// (`None` without contacts), so that the CSV and the summary say when each
/// stop is struck and left.
pub(crate) fn contact_events<M, const NQ: usize, const NV: usize>(
    model: &M,
) -> Option<(Vec<Event>, EventFunction)>
where
    M: Model<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    if M::CONTACT_NAMES.is_empty() {
        return None;
    }
    let events = M::CONTACT_NAMES
        .iter()
        .map(|name| Event::new(*name, Direction::Either))
        .collect();
    let model = model.clone();
    let gaps = move |_t: f64, q: &[f64], _v: &[f64], g: &mut [f64]| {
        if let Ok(q) = <[f64; NQ]>::try_from(q) {
            model.contact_gaps(&q, g);
        }
    };
    Some((events, Box::new(gaps)))
}

/// `σ_r/σ_1` of the constraint Jacobian below which a configuration of the
/// loops is reported as singular (`closure_conditioning`).
pub(crate) const SINGULAR: f64 = 1e-3;

/// The events of every run of a closed mechanism: its joints' contacts
/// (unless `--no-events`) and its singular configurations.
pub(crate) fn closed_events<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    options: &SimOptions,
) -> Option<(Vec<Event>, EventFunction)>
where
    M: LoopClosure<NQ, NV, NC, Real = f64> + Clone + Send + 'static,
{
    merged(
        watched(options, contact_events(model)),
        singular_events(model, options),
    )
}

/// How many points inside every step the loops' conditioning is also
/// watched at: a mechanism passes near a singular configuration and back
/// in a fraction of a step (the Delta's free fall at default tolerances
/// does, unseen from the steps' ends).
const SINGULAR_SAMPLES: usize = 4;

/// The name of the event of a loop's singular configuration.
const SINGULAR_CONFIGURATION: &str = "singular configuration";

/// The loops' singular configurations as an event, watched on every run
/// of a closed mechanism (also with `--no-events`): the conditioning of
/// the constraint Jacobian falling through [`SINGULAR`], at the steps'
/// ends and [`SINGULAR_SAMPLES`] points inside each. The run goes on
/// through it (the summary and the events file say when), or with
/// `--stop-at-singular` stops there, naming the coordinates.
fn singular_events<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    options: &SimOptions,
) -> (Vec<Event>, EventFunction)
where
    M: LoopClosure<NQ, NV, NC, Real = f64> + Clone + Send + 'static,
{
    let model = model.clone();
    let conditioning = move |_t: f64, q: &[f64], _v: &[f64], g: &mut [f64]| {
        if let (Ok(q), Some(slot)) = (<[f64; NQ]>::try_from(q), g.first_mut()) {
            *slot = closure_conditioning(&model, &q) - SINGULAR;
        }
    };
    let event = Event::new(SINGULAR_CONFIGURATION, Direction::Falling).sampled(SINGULAR_SAMPLES);
    let event = if options.stop_at_singular {
        event.terminal()
    } else {
        event
    };
    (vec![event], Box::new(conditioning))
}

/// [`run`] watching events: `events[i]` describes component `i` of
/// `function(t, q, q̇, g)` (see `sharnir_runtime::Simulation::events`). A
/// terminal event ends the run at its time; with `--csv out.csv` the events
/// go to `out.events.csv`; the summary counts them. `--no-events` ignores
/// them all.
pub fn run_with_events<M, F, const NQ: usize, const NV: usize>(
    model: M,
    options: &SimOptions,
    events: Vec<Event>,
    function: F,
) -> Result<String, String>
where
    M: Model<NQ, NV, Real = f64>,
    F: FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
{
    execute(
        Simulation::new(model),
        options,
        watched(options, Some((events, Box::new(function)))),
        None,
        None,
    )
    .map(|(text, ..)| text)
}

/// [`run`] for a mechanism with closed loops: the constrained dynamics,
/// starting from the initial state assembled with the independent
/// coordinates held (an unreachable one is the error).
pub fn run_closed<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
    options: &SimOptions,
) -> Result<String, String>
where
    M: LoopClosure<NQ, NV, NC, Real = f64> + Clone + Send + 'static,
{
    refuse_symplectic(options)?;
    let events = closed_events(&model, options);
    execute(Simulation::new(model).closed(), options, events, None, None).map(|(text, ..)| text)
}

/// [`run_closed`] watching events, as [`run_with_events`] does.
pub fn run_closed_with_events<M, F, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
    options: &SimOptions,
    events: Vec<Event>,
    function: F,
) -> Result<String, String>
where
    M: LoopClosure<NQ, NV, NC, Real = f64>,
    F: FnMut(f64, &[f64], &[f64], &mut [f64]) + Send + 'static,
{
    refuse_symplectic(options)?;
    execute(
        Simulation::new(model).closed(),
        options,
        watched(options, Some((events, Box::new(function)))),
        None,
        None,
    )
    .map(|(text, ..)| text)
}

/// Closed loops have no symplectic integrator: the message that says what
/// to use instead.
pub(crate) fn refuse_symplectic(options: &SimOptions) -> Result<(), String> {
    if options.method == MethodName::Symplectic {
        return Err(
            "--method symplectic does not take closed loops; use dop853 (or radau5 when stiff)"
                .to_owned(),
        );
    }
    Ok(())
}

/// The event function as the runner keeps it, whatever the caller's type.
pub(crate) type EventFunction = Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + Send>;

/// Where a run starts when it is not the spec's initial state with the
/// `--set` values: the time and the state `(q, q̇)` mapped across a
/// release.
pub(crate) type Start<const NQ: usize, const NV: usize> = (f64, [f64; NQ], [f64; NV]);

/// The run of a configured simulation, open or closed, from the spec's
/// initial state with the `--set` values (or from `start`), with the
/// events the caller watches (none when the caller drops them for
/// `--no-events`): the summary's text, and the summary.
pub(crate) fn execute<M, S, const NQ: usize, const NV: usize>(
    simulation: Simulation<M, NQ, NV, Passive, S>,
    options: &SimOptions,
    events: Option<(Vec<Event>, EventFunction)>,
    start: Option<Start<NQ, NV>>,
    drawing: Option<Drawing>,
) -> Result<(String, Summary, Option<Film>), String>
where
    M: Model<NQ, NV, Real = f64>,
    S: MechanicalSystem<M, NQ, NV>,
{
    let assignments = options.check()?;
    let (t0, q0, v0) = match start {
        Some(start) => start,
        None => {
            let (q0, v0) = initial_state(simulation.model(), &assignments)?;
            (0.0, q0, v0)
        }
    };
    let method = match options.method {
        MethodName::Rk4 => Method::Rk4 {
            step: options.dt.unwrap_or_default(),
        },
        MethodName::Euler => Method::SemiImplicitEuler {
            step: options.dt.unwrap_or_default(),
        },
        MethodName::Symplectic => Method::Symplectic {
            step: options.dt.unwrap_or_default(),
        },
        MethodName::Dopri5 => Method::Dopri5,
        MethodName::Dop853 => Method::Dop853,
        MethodName::Adams => Method::Adams,
        MethodName::Radau5 => Method::Radau5,
    };
    let mut simulation = simulation
        .method(method)
        .tolerances(Tolerances {
            rtol: options.rtol,
            atol: options.atol,
        })
        .initial_state(q0, v0)
        .start_time(t0);
    if let Some(dt) = options.output_dt {
        simulation = simulation.output_interval(dt);
    }
    if let Some(h) = options.max_step {
        simulation = simulation.max_step(h);
    }
    let events = events.filter(|(events, _)| !events.is_empty());
    let watching = events.is_some();
    if let Some((events, function)) = events {
        simulation = simulation.events(events, function);
    }
    let csv = match &options.csv {
        Some(path) => Some(CsvOutput::create(
            path,
            &M::POSITION_NAMES,
            &M::VELOCITY_NAMES,
            &drive_names::<M, NQ, NV>(),
        )?),
        None => None,
    };
    let events_csv = match &options.csv {
        Some(path) if watching => Some(EventsCsv::create(
            &events_path(path),
            &M::POSITION_NAMES,
            &M::VELOCITY_NAMES,
        )?),
        _ => None,
    };
    let curves = Curves::select(
        options,
        &M::POSITION_NAMES,
        &M::VELOCITY_NAMES,
        &drive_names::<M, NQ, NV>(),
    )?;
    let film = match (&options.html, drawing) {
        (None, _) => None,
        (Some(_), Some(drawing)) => Some(Film::new(drawing, curves.clone())),
        (Some(path), None) => {
            return Err(format!(
                "--html {}: this binary knows no body poses; declare its model with \
                 sharnir_runtime::body_poses! and run it through sharnir_sim::main",
                path.display()
            ))
        }
    };
    let mut recorder = Recorder {
        csv,
        events_csv,
        trace: options.plot.as_ref().map(|_| Trace::new(curves.clone())),
        film,
        progress: Progress::new(options.t_end, !options.no_progress),
    };
    let start_note = near_singular_mass(simulation.model(), &q0, "at the start");
    let started = Instant::now();
    let result = simulation.run(options.t_end, &mut recorder);
    recorder.progress.finish();
    // Rows already written stay valid whatever happened.
    let flushed = match recorder.csv.as_mut() {
        Some(csv) => csv.flush(),
        None => Ok(()),
    };
    let events_flushed = match recorder.events_csv.as_mut() {
        Some(csv) => csv.flush(),
        None => Ok(()),
    };
    let summary = result.map_err(|e| {
        if let SimulationErrorKind::InvalidArgument(reason) = &e.kind {
            let hint = if reason.starts_with("the initial state") {
                "\nhint: the start is the spec's [initial] with the --set values; give the \
                 independent coordinates values the linkage can reach"
            } else {
                ""
            };
            return format!("cannot start: {reason}{hint}");
        }
        let mut message = format!("simulation stopped: {e}");
        let when = format!("at t = {}", e.t);
        if let Some(note) = near_singular_mass(simulation.model(), &e.state, &when) {
            let _ = write!(message, "\n{}", note.trim_end());
        }
        if let Some(path) = &options.csv {
            let _ = write!(
                message,
                "\nthe rows up to the stop are in {}",
                path.display()
            );
        }
        message.push_str(
            "\nhint: a blow-up often means a step too large (--dt) or tolerances too loose; \
             a stiff mechanism needs --method radau5",
        );
        message
    })?;
    flushed?;
    events_flushed?;
    if let (Some(path), Some(trace)) = (&options.plot, &recorder.trace) {
        plot::draw(path, M::NAME, trace, summary.conservative)?;
    }
    let mut text = report_start::<M, NQ, NV>(&q0, &v0, &summary.initial_state);
    text.push_str(start_note.as_deref().unwrap_or_default());
    text.push_str(&report(
        &summary,
        options,
        t0,
        started.elapsed().as_secs_f64(),
        watching,
    ));
    text.push_str(&report_stop::<M, NQ, NV>(&summary));
    Ok((text, summary, recorder.film))
}

/// For a run stopped at a loop's singular configuration
/// (`--stop-at-singular`), the line that says where: every position
/// coordinate at the event, and the conditioning it fell through.
fn report_stop<M, const NQ: usize, const NV: usize>(summary: &Summary) -> String
where
    M: Model<NQ, NV, Real = f64>,
{
    let Some(event) = summary.terminated_by.and_then(|i| summary.events.get(i)) else {
        return String::new();
    };
    if event.name != SINGULAR_CONFIGURATION {
        return String::new();
    }
    let mut text = format!(
        "singular configuration at t = {} s (σ_r/σ_1 of the constraint Jacobian fell through \
         {SINGULAR:e}):",
        event.t
    );
    for (name, value) in M::POSITION_NAMES.iter().zip(&event.y) {
        let _ = write!(text, " q.{name} = {value:.6e}");
    }
    text.push('\n');
    text
}

/// The model's initial state with the `--set` values applied; unknown names
/// are refused with the valid ones listed.
fn initial_state<M, const NQ: usize, const NV: usize>(
    model: &M,
    assignments: &[Assignment],
) -> Result<([f64; NQ], [f64; NV]), String>
where
    M: Model<NQ, NV, Real = f64>,
{
    let mut q = model.initial_positions();
    let mut v = model.initial_velocities();
    for a in assignments {
        let (names, values, prefix): (&[&str], &mut [f64], &str) = match a.kind {
            CoordinateKind::Position => (&M::POSITION_NAMES, &mut q, "q"),
            CoordinateKind::Velocity => (&M::VELOCITY_NAMES, &mut v, "v"),
            CoordinateKind::Parameter => {
                return Err(format!(
                    "--set p.{}: a run takes its parameters with the model \
                     (sharnir_sim::main_with_parameters sets them from --set)",
                    a.name
                ))
            }
        };
        let index = names.iter().position(|n| *n == a.name).ok_or_else(|| {
            let known: Vec<String> = names.iter().map(|n| format!("{prefix}.{n}")).collect();
            format!(
                "--set {prefix}.{}: {} has no such coordinate; its coordinates are {}",
                a.name,
                M::NAME,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })?;
        values[index] = a.value;
    }
    Ok((q, v))
}

/// Hands every sample to the CSV file and the plot trace, every event to
/// the events file, and the time to the progress bar.
struct Recorder {
    csv: Option<CsvOutput>,
    events_csv: Option<EventsCsv>,
    trace: Option<Trace>,
    film: Option<Film>,
    progress: Progress,
}

impl Observer for &mut Recorder {
    fn sample(&mut self, sample: &Sample<'_>) -> Result<(), ObserverError> {
        if let Some(csv) = self.csv.as_mut() {
            csv.write(sample)?;
        }
        if let Some(trace) = self.trace.as_mut() {
            trace.push(sample);
        }
        if let Some(film) = self.film.as_mut() {
            film.record(sample);
        }
        Ok(())
    }

    fn event(&mut self, record: &EventRecord) -> Result<(), ObserverError> {
        if let Some(csv) = self.events_csv.as_mut() {
            csv.write(record)?;
        }
        if let Some(trace) = self.trace.as_mut() {
            trace.event(record);
        }
        Ok(())
    }

    fn progress(&mut self, t: f64) {
        self.progress.set(t);
    }
}

/// Two sets of events as one: the first's components, then the second's.
pub(crate) fn merged(
    first: Option<(Vec<Event>, EventFunction)>,
    second: (Vec<Event>, EventFunction),
) -> Option<(Vec<Event>, EventFunction)> {
    let Some((mut events, mut f)) = first else {
        return Some(second);
    };
    let split = events.len();
    let (more, mut g) = second;
    events.extend(more);
    let function = move |t: f64, q: &[f64], v: &[f64], values: &mut [f64]| {
        let (head, tail) = values.split_at_mut(split.min(values.len()));
        f(t, q, v, head);
        g(t, q, v, tail);
    };
    Some((events, Box::new(function)))
}

/// The names of the prescribed coordinates, whose drive forces a run
/// writes and plots.
fn drive_names<M: Model<NQ, NV>, const NQ: usize, const NV: usize>() -> Vec<&'static str> {
    M::PRESCRIBED
        .iter()
        .map(|&k| M::VELOCITY_NAMES[k])
        .collect()
}
