//! A sweep: the cases of [`SweepOptions`] run on every core, each exactly
//! as a single run with its values set would run, one summary line per
//! case as it ends.

use crate::cases::{CaseList, Column, SweepOptions};
use crate::options::{CoordinateKind, SimOptions};
use crate::progress::CaseProgress;
use crate::run::{closed_events, contact_events, execute, refuse_symplectic, watched};
use crate::summary::{self, Appender, Table, CASE, WALL_TIME};
use crate::SetParameter;
use rayon::prelude::*;
use sharnir_runtime::{LoopClosure, Model, Simulation, Summary};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The exit code of a sweep in which this many cases or more failed (the
/// code of fewer is their number).
pub(crate) const MOST_FAILED_CODE: usize = 100;

/// The exit code of a sweep that could not run (its arguments, its files).
pub(crate) const SWEEP_FAILED_CODE: u8 = 101;

/// One case of an open mechanism: what [`crate::run::run_drawn`] runs,
/// without the drawing (which only `--html` records).
pub(crate) fn open_case<M, const NQ: usize, const NV: usize>(
    model: M,
    options: &SimOptions,
) -> Result<Summary, String>
where
    M: Model<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    let contacts = watched(options, contact_events(&model));
    execute(Simulation::new(model), options, contacts, None, None).map(|(_, summary, _)| summary)
}

/// One case of a mechanism with loops: what
/// [`crate::run::run_closed_drawn`] runs, without the drawing.
pub(crate) fn closed_case<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
    options: &SimOptions,
) -> Result<Summary, String>
where
    M: LoopClosure<NQ, NV, NC, Real = f64> + Clone + Send + 'static,
{
    refuse_symplectic(options)?;
    let events = closed_events(&model, options);
    execute(Simulation::new(model).closed(), options, events, None, None)
        .map(|(_, summary, _)| summary)
}

/// How a sweep went: what the binary prints, and the number of failed
/// cases (its exit code).
pub(crate) struct Outcome {
    /// The closing lines.
    pub text: String,
    /// Cases of this run that failed.
    pub failed: usize,
}

/// Runs the cases of `sweep` that belong to its shard and are not in its
/// summary yet: `run` is the single run of the binary (open or closed),
/// given the model with the case's parameters and the options with its
/// initial values. `Err` is an error of the sweep itself (its arguments,
/// its files), not of a case.
pub(crate) fn sweep<M, const NQ: usize, const NV: usize>(
    model: &M,
    set_parameter: Option<SetParameter<M>>,
    options: &SimOptions,
    sweep: &SweepOptions,
    run: impl Fn(M, &SimOptions) -> Result<Summary, String> + Sync,
) -> Result<Outcome, String>
where
    M: Model<NQ, NV, Real = f64> + Clone + Sync,
{
    let list = sweep.expand()?;
    check_columns::<M, NQ, NV>(&list.columns, set_parameter.is_some())?;
    let shard = sweep.shard(|name| std::env::var(name).ok())?;
    std::fs::create_dir_all(&sweep.out)
        .map_err(|e| format!("cannot create {}: {e}", sweep.out.display()))?;
    let cases_dir = sweep.out.join("cases");
    if sweep.case_csv {
        std::fs::create_dir_all(&cases_dir)
            .map_err(|e| format!("cannot create {}: {e}", cases_dir.display()))?;
    }
    let path = sweep.out.join(shard.summary_name());
    let header = header::<M, NQ, NV>(&list.columns);
    let existing = summary::read(&path)?;
    let done = finished(&path, existing.as_ref(), &header, &list)?;
    let pending: Vec<usize> = (0..list.rows.len())
        .filter(|&id| shard.contains(id) && !done.contains(&id))
        .collect();
    let appender = Mutex::new(Appender::open(&path, &header, existing.as_ref())?);
    let write_error: Mutex<Option<String>> = Mutex::new(None);

    let mut base = options.clone();
    base.no_progress = true;
    base.csv = None;
    base.plot = None;
    base.html = None;
    let progress = CaseProgress::new(pending.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(sweep.threads.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start the threads of the sweep: {e}"))?;
    let started = Instant::now();
    let case = Case {
        model,
        set_parameter,
        base: &base,
        list: &list,
        cases_dir: sweep.case_csv.then_some(cases_dir.as_path()),
    };
    let results: Vec<(bool, f64, f64)> = pool.install(|| {
        pending
            .par_iter()
            .map(|&id| {
                let (fields, ok, wall, integration) = case.run(id, &run);
                let written = appender
                    .lock()
                    .map_err(|_| "a thread writing the summary failed".to_owned())
                    .and_then(|mut a| a.append(&fields));
                if let Err(e) = written {
                    if let Ok(mut slot) = write_error.lock() {
                        slot.get_or_insert(e);
                    }
                }
                progress.finished(ok);
                (ok, wall, integration)
            })
            .collect()
    });
    progress.finish();
    let elapsed = started.elapsed().as_secs_f64();
    if let Some(e) = write_error.into_inner().ok().flatten() {
        return Err(e);
    }
    // The finished summary in case order; rows of other runs kept.
    if let Some(table) = summary::read(&path)? {
        summary::write_table(&path, &table)?;
    }
    let failed = results.iter().filter(|(ok, ..)| !ok).count();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "sweep of {}: {} cases, shard {} of {} holds {}, {} already done, ran {} ({} failed) \
         in {:.3} s wall time",
        M::NAME,
        list.rows.len(),
        shard.index,
        shard.count,
        (0..list.rows.len())
            .filter(|&id| shard.contains(id))
            .count(),
        done.len(),
        pending.len(),
        failed,
        elapsed
    );
    let ok: Vec<&(bool, f64, f64)> = results.iter().filter(|(ok, ..)| *ok).collect();
    if !results.is_empty() {
        let _ = write!(
            text,
            "{:.3} cases per second on {} threads",
            results.len() as f64 / elapsed.max(1e-12),
            pool.current_num_threads(),
        );
    }
    if !ok.is_empty() {
        let n = ok.len() as f64;
        let _ = write!(
            text,
            "; per finished case {:.3} ms, of which integration {:.3} ms",
            ok.iter().map(|r| r.1).sum::<f64>() / n * 1e3,
            ok.iter().map(|r| r.2).sum::<f64>() / n * 1e3,
        );
    }
    if !results.is_empty() {
        text.push('\n');
    }
    let _ = writeln!(text, "summary: {}", path.display());
    Ok(Outcome { text, failed })
}

/// Refuses swept names the model does not have, and parameters when the
/// binary cannot set them.
fn check_columns<M, const NQ: usize, const NV: usize>(
    columns: &[Column],
    can_set_parameters: bool,
) -> Result<(), String>
where
    M: Model<NQ, NV, Real = f64>,
{
    for column in columns {
        let names: &[&str] = match column.kind {
            CoordinateKind::Position => &M::POSITION_NAMES,
            CoordinateKind::Velocity => &M::VELOCITY_NAMES,
            CoordinateKind::Parameter if can_set_parameters => continue,
            CoordinateKind::Parameter => {
                return Err(format!(
                    "{}: this binary cannot set parameters; build it with `sharnir sweep`, \
                     whose binaries can",
                    column.label()
                ))
            }
        };
        if !names.contains(&column.name.as_str()) {
            let prefix = column.kind.prefix();
            let known: Vec<String> = names.iter().map(|n| format!("{prefix}.{n}")).collect();
            return Err(format!(
                "{}: {} has no such coordinate; its coordinates are {}",
                column.label(),
                M::NAME,
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// The summary's columns: the case id, its values, how it ended, its final
/// state, energy drift and events, the error of a failed case, the wall
/// time.
fn header<M, const NQ: usize, const NV: usize>(columns: &[Column]) -> Vec<String>
where
    M: Model<NQ, NV, Real = f64>,
{
    let mut header = vec![CASE.to_owned()];
    header.extend(columns.iter().map(Column::label));
    header.extend(["status".to_owned(), "final.t".to_owned()]);
    header.extend(M::POSITION_NAMES.iter().map(|n| format!("final.q.{n}")));
    header.extend(M::VELOCITY_NAMES.iter().map(|n| format!("final.v.{n}")));
    header.extend(
        [
            "energy_drift",
            "relative_energy_drift",
            "events",
            "error",
            WALL_TIME,
        ]
        .map(str::to_owned),
    );
    header
}

/// The ids of the cases the summary at `path` already holds, after
/// checking that it is this sweep's: the same columns, and each case's
/// values those of the case list.
fn finished(
    path: &Path,
    existing: Option<&Table>,
    header: &[String],
    list: &CaseList,
) -> Result<std::collections::BTreeSet<usize>, String> {
    let Some(table) = existing else {
        return Ok(Default::default());
    };
    if table.header != header {
        return Err(format!(
            "{} holds another sweep (its columns differ); choose another --out, or remove it \
             to start again",
            path.display()
        ));
    }
    let mut done = std::collections::BTreeSet::new();
    for (id, row) in &table.rows {
        let expected = list.rows.get(*id).map(|values| formatted(values));
        if expected.as_deref() != row.get(1..=list.columns.len()) {
            return Err(format!(
                "{}: case {id} there has other values than case {id} of these options; \
                 choose another --out, or remove it to start again",
                path.display()
            ));
        }
        done.insert(*id);
    }
    Ok(done)
}

/// Numbers as the summary writes them: the shortest text that reads back
/// to the same bits.
fn formatted(values: &[f64]) -> Vec<String> {
    values.iter().map(f64::to_string).collect()
}

/// What every case of one sweep shares.
struct Case<'a, M> {
    model: &'a M,
    set_parameter: Option<SetParameter<M>>,
    base: &'a SimOptions,
    list: &'a CaseList,
    cases_dir: Option<&'a Path>,
}

impl<M: Clone> Case<'_, M> {
    /// Runs case `id`: its summary line, whether it succeeded, its wall
    /// time and the integration's, s.
    fn run<const NQ: usize, const NV: usize>(
        &self,
        id: usize,
        run: &(impl Fn(M, &SimOptions) -> Result<Summary, String> + Sync),
    ) -> (Vec<String>, bool, f64, f64)
    where
        M: Model<NQ, NV, Real = f64>,
    {
        let started = Instant::now();
        let values = self.list.rows.get(id).cloned().unwrap_or_default();
        let result = self.configured(id, &values).and_then(|(model, options)| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(model, &options)))
                .unwrap_or_else(|_| Err("the run panicked".to_owned()))
        });
        let wall = started.elapsed().as_secs_f64();
        let mut fields = vec![id.to_string()];
        fields.extend(formatted(&values));
        let width = 1 + NQ + NV + 3;
        let integration = match &result {
            Ok(s) => {
                fields.push("ok".to_owned());
                fields.push(s.t_end.to_string());
                fields.extend(formatted(&s.final_state));
                fields.extend([
                    format!("{:e}", s.energy_drift),
                    format!("{:e}", s.relative_energy_drift()),
                    s.events.len().to_string(),
                    String::new(),
                ]);
                s.wall_time.as_secs_f64()
            }
            Err(message) => {
                fields.push("failed".to_owned());
                fields.extend(std::iter::repeat_n(String::new(), width));
                fields.push(message.clone());
                0.0
            }
        };
        fields.push(wall.to_string());
        (fields, result.is_ok(), wall, integration)
    }

    /// The model with the case's parameters and the options with its
    /// initial values (after the command line's, so they win) and CSV.
    fn configured(&self, id: usize, values: &[f64]) -> Result<(M, SimOptions), String> {
        let mut model = self.model.clone();
        let mut options = self.base.clone();
        for (column, value) in self.list.columns.iter().zip(values) {
            match column.kind {
                CoordinateKind::Parameter => {
                    let set = self.set_parameter.ok_or_else(|| {
                        format!("{}: this binary cannot set parameters", column.label())
                    })?;
                    model = set(&model, &column.name, *value).ok_or_else(|| {
                        format!("{}: no runtime parameter of this name", column.label())
                    })?;
                }
                CoordinateKind::Position | CoordinateKind::Velocity => {
                    options.set.push(format!("{}={value}", column.label()));
                }
            }
        }
        options.csv = self.cases_dir.map(|dir| case_csv(dir, id));
        Ok((model, options))
    }
}

/// Where `--case-csv` writes the samples of case `id`.
fn case_csv(dir: &Path, id: usize) -> PathBuf {
    dir.join(format!("case-{id}.csv"))
}
