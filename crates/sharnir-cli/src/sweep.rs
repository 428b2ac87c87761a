//! `sharnir sweep`: the cases of a sweep run by one simulation binary,
//! compiled as `sharnir sim` compiles it and started in its sweep mode; and
//! `sharnir sweep merge`, which joins the summaries of shards.

use crate::args::{MergeArgs, SimArgs, SweepArgs};
use crate::sim::{build, check_assignments};
use crate::Context;
use sharnir_sim::{Assignment, SweepOptions};
use std::process::{Command, ExitCode};

/// The exit code of a sweep that could not run (as the binary's).
const SWEEP_FAILED: u8 = 101;

/// Runs `sharnir sweep`: the exit code is the number of failed cases (at
/// most 100), 101 when the sweep itself could not run.
pub(crate) fn run(args: SweepArgs, context: &Context) -> ExitCode {
    let result = match args {
        SweepArgs::Merge(merge) => self::merge(&merge).map(|()| ExitCode::SUCCESS),
        SweepArgs::Run(sim, options) => sweep(&sim, &options, context),
    };
    result.unwrap_or_else(|report| {
        eprintln!("{report:?}");
        ExitCode::from(SWEEP_FAILED)
    })
}

/// Checks the sweep, builds the binary and runs its sweep mode.
fn sweep(sim: &SimArgs, sweep: &SweepOptions, context: &Context) -> miette::Result<ExitCode> {
    let help = format!("see {} sweep --help", context.program);
    let options = &sim.options;
    for (flag, given) in [
        ("--csv", options.csv.is_some()),
        ("--plot", options.plot.is_some()),
        ("--html", options.html.is_some()),
    ] {
        if given {
            miette::bail!(
                help = "--case-csv writes every case's samples to DIR/cases/case-<id>.csv",
                "{flag} names one file; a sweep writes one per case"
            );
        }
    }
    let list = sweep
        .expand()
        .map_err(|e| miette::miette!(help = help.clone(), "{e}"))?;
    sweep
        .shard(|name| std::env::var(name).ok())
        .map_err(|e| miette::miette!(help = help.clone(), "{e}"))?;
    if sweep.threads == Some(0) {
        miette::bail!(
            help = "leave --threads out to use every core",
            "--threads 0: a sweep needs at least one thread"
        );
    }
    let from_file = list.columns.len() - sweep.vary.len();
    let checks: Vec<(String, Assignment)> = list
        .columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let flag = match &sweep.cases {
                Some(path) if i < from_file => format!("--cases {}:", path.display()),
                _ => "--vary".to_owned(),
            };
            let assignment = Assignment {
                kind: column.kind,
                name: column.name.clone(),
                value: 0.0,
            };
            (flag, assignment)
        })
        .collect();
    let built = build(sim, context, |spec| {
        if let Some(joint) = spec.detachable_joints().next() {
            miette::bail!(
                help = "run its cases one by one with `sim --set`",
                "a sweep does not take `{}`: its joint `{}` can let go",
                spec.name,
                joint.name
            );
        }
        for (flag, assignment) in &checks {
            check_assignments(spec, std::slice::from_ref(assignment), flag)?;
        }
        Ok(())
    })?;
    let status = Command::new(&built.binary)
        .arg("sweep")
        .args(built.options.to_args())
        .args(sweep_args(sweep))
        .status()
        .map_err(|e| miette::miette!("cannot run {}: {e}", built.binary.display()))?;
    // The binary has printed its summary or its error.
    Ok(ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(SWEEP_FAILED),
    ))
}

/// The command line that gives the binary the same sweep.
fn sweep_args(sweep: &SweepOptions) -> Vec<String> {
    let mut args = Vec::new();
    for vary in &sweep.vary {
        args.push(format!("--vary={vary}"));
    }
    if let Some(path) = &sweep.cases {
        args.extend(["--cases".to_owned(), path.display().to_string()]);
    }
    args.extend(["--out".to_owned(), sweep.out.display().to_string()]);
    if let Some(shard) = &sweep.shard {
        args.extend(["--shard".to_owned(), shard.clone()]);
    }
    if sweep.case_csv {
        args.push("--case-csv".to_owned());
    }
    if let Some(threads) = sweep.threads {
        args.extend(["--threads".to_owned(), threads.to_string()]);
    }
    args
}

/// `sharnir sweep merge DIR…`.
fn merge(args: &MergeArgs) -> miette::Result<()> {
    let out = match &args.out {
        Some(out) => out.clone(),
        None => args.dirs[0].join("summary.csv"),
    };
    let merged = sharnir_sim::summary::merge(&args.dirs, &out)
        .map_err(|e| miette::miette!(help = "each DIR is a sweep's --out", "{e}"))?;
    println!(
        "merged {} cases from {} files into {}",
        merged.cases,
        merged.files,
        out.display()
    );
    if !merged.missing.is_empty() {
        let shown: Vec<String> = merged
            .missing
            .iter()
            .take(10)
            .map(usize::to_string)
            .collect();
        eprintln!(
            "warning: {} cases below the last are in no file (cases {}{}): a shard has not \
             finished or not run",
            merged.missing.len(),
            shown.join(", "),
            if merged.missing.len() > 10 {
                ", …"
            } else {
                ""
            }
        );
    }
    Ok(())
}
