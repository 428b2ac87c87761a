//! A run through a chain of releases: the mechanism until one of its
//! joints lets go (a terminal event located on the dense output), then the
//! variant module that release leads to from the state mapped across it,
//! and so on, each joint in the order it lets go, to the end time.
//!
//! Every structure the mechanism can take is its own compiled module with
//! its own sizes, so the run holds them as [`Structure`]s: a module's run
//! and its release map with the types erased, found by the module name
//! that a release names (`Detachment::variant`).

use crate::animation::{Drawing, Film};
use crate::options::SimOptions;
use crate::run::{
    closed_events, contact_events, execute, merged, refuse_symplectic, watched, EventFunction,
    Start,
};
use sharnir_runtime::{
    release_events, release_state_into, released_sizes, split_state, BodyPoses, Detachable,
    Detachment, Event, EventRecord, LoopClosure, Simulation, Summary,
};
use std::fmt::Write as _;
use std::path::Path;

/// Where a structure starts when a release leads to it: the time and the
/// state `(q, q̇)` mapped across the release.
type Handover = (f64, Vec<f64>, Vec<f64>);

/// What one structure's part of the run gives: the summary's text, the
/// summary, and the frames of the animation when one is asked for.
type Leg = (String, Summary, Option<Film>);

/// The run of one structure with the release events given, from the spec's
/// initial state or a handover.
type LegRun = Box<
    dyn FnOnce(
        &SimOptions,
        Option<(Vec<Event>, EventFunction)>,
        Option<Handover>,
    ) -> Result<Leg, String>,
>;

/// How a structure's joints let go: their events, and the state map onto
/// the variant each release leads to.
struct Releases {
    events: (Vec<Event>, EventFunction),
    detachment: Box<dyn Fn(usize) -> Option<Detachment<f64>>>,
    map: StateMap,
}

/// The map of a state `[q, q̇]` across release `index` onto the variant's
/// `(q, q̇)`.
type StateMap = Box<dyn Fn(usize, &[f64]) -> Result<(Vec<f64>, Vec<f64>), String>>;

/// One structure of a mechanism whose joints let go: a compiled module
/// (the mechanism itself or one of its variants), open or with loops, with
/// or without detachable joints of its own. [`run_releasing`] passes from
/// one to the next as the joints let go.
pub struct Structure {
    name: &'static str,
    releases: Option<Releases>,
    run: LegRun,
}

impl Structure {
    /// A tree module without detachable joints: the end of a chain.
    pub fn open<M, const NQ: usize, const NV: usize>(model: M) -> Structure
    where
        M: BodyPoses<NQ, NV, Real = f64> + Clone + Send + 'static,
    {
        let run = move |options: &SimOptions, releases, handover| {
            let events = joined(releases, watched(options, contact_events(&model)));
            let start = arrays::<NQ, NV>(M::NAME, handover)?;
            let drawing = Drawing::of(&model);
            execute(
                Simulation::new(model),
                options,
                events,
                start,
                Some(drawing),
            )
        };
        Structure {
            name: M::NAME,
            releases: None,
            run: Box::new(run),
        }
    }

    /// A module with loops (`model!(…, loops)`) without detachable joints:
    /// its constrained dynamics.
    pub fn closed<M, const NQ: usize, const NV: usize, const NC: usize>(model: M) -> Structure
    where
        M: LoopClosure<NQ, NV, NC, Real = f64> + BodyPoses<NQ, NV> + Clone + Send + 'static,
    {
        let run = move |options: &SimOptions, releases, handover| {
            refuse_symplectic(options)?;
            let events = joined(releases, closed_events(&model, options));
            let start = arrays::<NQ, NV>(M::NAME, handover)?;
            let drawing = Drawing::of(&model);
            let simulation = Simulation::new(model).closed();
            execute(simulation, options, events, start, Some(drawing))
        };
        Structure {
            name: M::NAME,
            releases: None,
            run: Box::new(run),
        }
    }

    /// A tree module with detachable joints (`detachments!`).
    pub fn open_releasing<M, const NQ: usize, const NV: usize>(model: M) -> Structure
    where
        M: Detachable<NQ, NV, Real = f64> + BodyPoses<NQ, NV> + Clone + Send + 'static,
    {
        let releases = releases(&model);
        Structure {
            releases: Some(releases),
            ..Structure::open(model)
        }
    }

    /// A module with loops and detachable joints (`detachments!(…, loops)`).
    pub fn closed_releasing<M, const NQ: usize, const NV: usize, const NC: usize>(
        model: M,
    ) -> Structure
    where
        M: LoopClosure<NQ, NV, NC, Real = f64>
            + Detachable<NQ, NV>
            + BodyPoses<NQ, NV>
            + Clone
            + Send
            + 'static,
    {
        let releases = releases(&model);
        Structure {
            releases: Some(releases),
            ..Structure::closed(model)
        }
    }
}

/// The release events and state map of `model`, with its type erased.
fn releases<M, const NQ: usize, const NV: usize>(model: &M) -> Releases
where
    M: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    let (looked_up, mapped) = (model.clone(), model.clone());
    let map = move |index: usize, y: &[f64]| {
        let (q, v) = split_state::<f64, NQ, NV>(y)
            .ok_or_else(|| format!("the state at a release of {} has the wrong length", M::NAME))?;
        let (nq, nv) = released_sizes(&mapped, index).map_err(|e| e.to_string())?;
        let (mut q2, mut v2) = (vec![0.0; nq], vec![0.0; nv]);
        release_state_into(&mapped, index, &q, &v, &mut q2, &mut v2).map_err(|e| e.to_string())?;
        Ok((q2, v2))
    };
    Releases {
        events: release_events(model),
        detachment: Box::new(move |index| looked_up.detachment(index)),
        map: Box::new(map),
    }
}

/// Two optional sets of events as one, the first's components first.
fn joined(
    first: Option<(Vec<Event>, EventFunction)>,
    second: Option<(Vec<Event>, EventFunction)>,
) -> Option<(Vec<Event>, EventFunction)> {
    match second {
        Some(second) => merged(first, second),
        None => first,
    }
}

/// A handover's state as the structure's arrays.
fn arrays<const NQ: usize, const NV: usize>(
    name: &str,
    handover: Option<Handover>,
) -> Result<Option<Start<NQ, NV>>, String> {
    let Some((t, q, v)) = handover else {
        return Ok(None);
    };
    let wrong = || {
        format!(
            "the state handed to {name} has {} positions and {} velocities, not {NQ} and {NV}",
            q.len(),
            v.len()
        )
    };
    let q: [f64; NQ] = q.as_slice().try_into().map_err(|_| wrong())?;
    let v: [f64; NV] = v.as_slice().try_into().map_err(|_| wrong())?;
    Ok(Some((t, q, v)))
}

/// Runs `structures[0]` (the mechanism as the spec writes it) until a
/// joint lets go, then the structure that release leads to from the
/// mapped state (every body's pose and velocity kept), and so on until
/// the end time or a structure without releases. With `--csv out.csv`
/// the first part goes to `out.csv` and each later one to
/// `out.<module>.csv` (its columns are that module's coordinates), with
/// the same sample spacing; a plot likewise; `--html` animates the whole
/// run, released bodies flying off. Release conditions are watched even
/// with `--no-events`, which drops only the contacts. A release that leads
/// to a module not among `structures` is an error naming it.
pub fn run_releasing(structures: Vec<Structure>, options: &SimOptions) -> Result<String, String> {
    let mut waiting: Vec<Option<Structure>> = structures.into_iter().map(Some).collect();
    let mut current = waiting
        .first_mut()
        .and_then(Option::take)
        .ok_or("no structure to run")?;
    let title = module_name(current.name);
    let mut leg_options = options.clone();
    let mut handover = None;
    let (mut text, mut films, mut events) = (String::new(), Vec::new(), Vec::new());
    loop {
        let (release_events, releases) = match current.releases {
            Some(r) => (Some(r.events), Some((r.detachment, r.map))),
            None => (None, None),
        };
        let watched_releases = release_events.as_ref().map_or(0, |(e, _)| e.len());
        let (leg_text, summary, film) = (current.run)(&leg_options, release_events, handover)?;
        text.push_str(&leg_text);
        films.push(film);
        events.extend(summary.events.iter().cloned());
        let (Some((detachment, map)), Some(record)) = (releases, terminal(&summary)) else {
            break;
        };
        if record.index >= watched_releases {
            break;
        }
        let joint = detachment(record.index)
            .ok_or_else(|| format!("the run stopped at {}, which is no release", record.name))?;
        let (q2, v2) = map(record.index, &record.y)
            .map_err(|e| format!("releasing joint {}: {e}", joint.joint))?;
        let Some(next) = waiting
            .iter_mut()
            .find(|s| {
                s.as_ref()
                    .is_some_and(|s| module_name(s.name) == joint.variant)
            })
            .and_then(Option::take)
        else {
            return Err(format!(
                "joint {} let go at t = {} s: the mechanism continues in module {}, which this \
                 binary does not hold; build it with every variant module of the spec",
                joint.joint, record.t, joint.variant
            ));
        };
        let _ = writeln!(
            text,
            "joint {} let go at t = {} s: continuing in {}",
            joint.joint, record.t, joint.variant
        );
        leg_options = continued(options, joint.variant);
        handover = Some((record.t, q2, v2));
        current = next;
    }
    let films: Vec<Option<&Film>> = films.iter().map(Option::as_ref).collect();
    Ok(text + &crate::run::animate(options, title, &films, &events)?)
}

/// The options of the part of the run in module `variant`: its own CSV and
/// plot files, the start's `--set` values dropped (the state comes across
/// the release), and the same sample spacing as the first part.
fn continued(options: &SimOptions, variant: &str) -> SimOptions {
    let mut rest = options.clone();
    rest.csv = options.csv.as_deref().map(|p| renamed(p, variant));
    rest.plot = options.plot.as_deref().map(|p| renamed(p, variant));
    rest.set = Vec::new();
    rest.output_dt = Some(options.output_dt.unwrap_or(options.t_end / 1000.0));
    rest
}

/// The module's own name in a model's `NAME`, which is the path written
/// at its `model!` call (`sharnir_generated :: sling_release`).
fn module_name(path: &str) -> &str {
    path.rsplit(':').next().unwrap_or(path).trim()
}

/// The terminal event that stopped a run, if one did.
fn terminal(summary: &Summary) -> Option<&EventRecord> {
    summary.terminated_by.and_then(|i| summary.events.get(i))
}

/// `out.csv` → `out.<variant>.csv`.
fn renamed(path: &Path, variant: &str) -> std::path::PathBuf {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_extension(format!("{variant}.{extension}"))
}
