//! A run through a joint's release: the mechanism until the joint lets go
//! (a terminal event located on the dense output), then its variant module
//! from the state mapped across the release, to the end time.

use crate::animation::Drawing;
use crate::options::SimOptions;
use crate::run::{animate, contact_events, execute, merged, watched};
use sharnir_runtime::{
    release_events, release_state, split_state, BodyPoses, Detachable, MechanicalSystem, Model,
    Passive, Simulation, Summary,
};
use std::fmt::Write as _;
use std::path::Path;

/// Runs `parent` until its first detachable joint (`DETACHMENTS[0]`) lets
/// go, then `variant` — the module that joint's release continues in —
/// from the mapped state (every body's pose and velocity kept) to the end
/// time. Either may be a mechanism with loops
/// (`Simulation::new(model).closed()`): a cut joint that lets go may leave
/// a tree or other loops. With `--csv out.csv` the first part goes to `out.csv`, the rest to
/// `out.<variant>.csv` (its columns are the variant's coordinates); a plot
/// likewise. Release conditions are watched even with `--no-events`, which
/// drops only the contacts. A run in which another joint lets go first
/// stops there and says which module continues it.
pub fn run_releasing<
    P,
    V,
    SP,
    SV,
    const NQ: usize,
    const NV: usize,
    const NQ2: usize,
    const NV2: usize,
>(
    parent: Simulation<P, NQ, NV, Passive, SP>,
    variant: Simulation<V, NQ2, NV2, Passive, SV>,
    options: &SimOptions,
) -> Result<String, String>
where
    P: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
    V: Model<NQ2, NV2, Real = f64> + Clone + Send + 'static,
    SP: MechanicalSystem<P, NQ, NV>,
    SV: MechanicalSystem<V, NQ2, NV2>,
{
    releasing(parent, variant, options, None)
}

/// [`run_releasing`] with both models' bodies drawn, so that `--html`
/// animates the whole run, the released body flying off.
pub(crate) fn run_releasing_drawn<
    P,
    V,
    SP,
    SV,
    const NQ: usize,
    const NV: usize,
    const NQ2: usize,
    const NV2: usize,
>(
    parent: Simulation<P, NQ, NV, Passive, SP>,
    variant: Simulation<V, NQ2, NV2, Passive, SV>,
    options: &SimOptions,
) -> Result<String, String>
where
    P: Detachable<NQ, NV, Real = f64> + BodyPoses<NQ, NV> + Clone + Send + 'static,
    V: BodyPoses<NQ2, NV2, Real = f64> + Clone + Send + 'static,
    SP: MechanicalSystem<P, NQ, NV>,
    SV: MechanicalSystem<V, NQ2, NV2>,
{
    let drawings = (Drawing::of(parent.model()), Drawing::of(variant.model()));
    releasing(parent, variant, options, Some(drawings))
}

/// The run through the release, its bodies drawn when `drawings` are given.
fn releasing<P, V, SP, SV, const NQ: usize, const NV: usize, const NQ2: usize, const NV2: usize>(
    parent: Simulation<P, NQ, NV, Passive, SP>,
    variant: Simulation<V, NQ2, NV2, Passive, SV>,
    options: &SimOptions,
    drawings: Option<(Drawing, Drawing)>,
) -> Result<String, String>
where
    P: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
    V: Model<NQ2, NV2, Real = f64> + Clone + Send + 'static,
    SP: MechanicalSystem<P, NQ, NV>,
    SV: MechanicalSystem<V, NQ2, NV2>,
{
    let (before, after) = match drawings {
        Some((before, after)) => (Some(before), Some(after)),
        None => (None, None),
    };
    let model = parent.model().clone();
    let contacts = watched(options, contact_events(&model));
    let watched_contacts = contacts.as_ref().map_or(0, |(events, _)| events.len());
    let releases = release_events(&model);
    let events = merged(contacts, releases);
    let (mut text, summary, film) = execute(parent, options, events, None, before)?;
    let Some(record) = terminal(&summary) else {
        return Ok(text + &animate(options, P::NAME, &[film.as_ref()], &summary.events)?);
    };
    let index = record.index.saturating_sub(watched_contacts);
    let detachment = model
        .detachment(index)
        .ok_or_else(|| format!("the run stopped at {}, which is no release", record.name))?;
    if index != 0 {
        let _ = writeln!(
            text,
            "joint {} let go at t = {} s: the mechanism continues in module {}, which this \
             binary does not hold (it follows the first detachable joint only)",
            detachment.joint, record.t, detachment.variant
        );
        return Ok(text + &animate(options, P::NAME, &[film.as_ref()], &summary.events)?);
    }
    let (q, v) = split_state::<f64, NQ, NV>(&record.y).ok_or_else(|| {
        format!(
            "the state at the release of {} has the wrong length",
            detachment.joint
        )
    })?;
    let (q2, v2) = release_state::<P, NQ, NV, NQ2, NV2>(&model, 0, &q, &v)
        .map_err(|e| format!("releasing joint {}: {e}", detachment.joint))?;
    let _ = writeln!(
        text,
        "joint {} let go at t = {} s: continuing in {}",
        detachment.joint, record.t, detachment.variant
    );
    let mut rest = options.clone();
    rest.csv = options
        .csv
        .as_deref()
        .map(|p| renamed(p, detachment.variant));
    rest.plot = options
        .plot
        .as_deref()
        .map(|p| renamed(p, detachment.variant));
    rest.set = Vec::new();
    rest.html = None;
    // The same sample spacing on both sides of the release.
    rest.output_dt = Some(options.output_dt.unwrap_or(options.t_end / 1000.0));
    let contacts = watched(&rest, contact_events(variant.model()));
    // The variant's samples go into the same page.
    let mut filming = rest.clone();
    filming.html = options.html.clone();
    let (continued, later, rest_film) = execute(
        variant,
        if after.is_some() { &filming } else { &rest },
        contacts,
        Some((record.t, q2, v2)),
        after,
    )?;
    text.push_str(&continued);
    let events: Vec<_> = summary
        .events
        .iter()
        .chain(&later.events)
        .cloned()
        .collect();
    let films = [film.as_ref(), rest_film.as_ref()];
    Ok(text + &animate(options, P::NAME, &films, &events)?)
}

/// The terminal event that stopped a run, if one did.
fn terminal(summary: &Summary) -> Option<&sharnir_runtime::EventRecord> {
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
