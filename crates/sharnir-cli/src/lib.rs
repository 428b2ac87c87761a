//! The command line of sharnir: the `sharnir` binary, and [`run`], which
//! `cargo xtask` calls with the repository's defaults.
//!
//! A thin shell over the library crates: parse arguments, load specs (or
//! convert URDFs to specs in memory), derive, emit, and write files
//! atomically. Nothing is written unless every requested module was
//! generated, so a bad input never leaves a half-updated `generated/`
//! behind. Where things go is the [`Context`]'s: the installed `sharnir`
//! writes into the current directory, `cargo xtask` into the checkout's
//! `generated/src`.

mod args;
mod base_parameters;
mod consistency;
mod context;
mod eigen;
mod frame;
mod gen;
mod identify;
mod linearize;
mod measurements;
mod mesh;
mod ops;
mod scene;
mod sim;
mod sweep;
mod urdf2spec;
mod urdf_scene;
mod view;

pub use context::{find_checkout, Context};

use args::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use sharnir_codegen::Plan;
use sharnir_mech::{Mechanism, ParameterMode};
use sharnir_spec::Spec;
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// The allocator of every program built on this crate (`sharnir`,
/// `cargo xtask`). Generation builds and drops millions of small nodes,
/// token trees and syntax trees, and glibc's allocator spent a fifth of a
/// big module's generation time in `malloc` and `free`, coalescing its
/// free lists; mimalloc's per-size pages do not (`docs/performance.md`,
/// "Generation scaling").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs the command line `args` (the program name first, as
/// [`std::env::args_os`] gives it) in `context`; errors are reported on
/// stderr and give a failing exit code.
pub fn run<I, T>(args: I, context: &Context) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let parsed = Cli::command()
        .name(context.program)
        .bin_name(context.program)
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version on stdout with success, usage errors on
            // stderr with clap's exit code.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Gen(args) => gen::run(args, context),
        Command::Urdf2spec(args) => urdf2spec::run(args, context),
        Command::Ops(args) => ops::run(args, context),
        Command::BaseParameters(args) => base_parameters::run(&args, context),
        Command::Identify(args) => identify::run(&args, &context.root()),
        Command::Linearize(args) => linearize::run(&args, &context.root()),
        Command::Sim(args) => sim::run(*args, context),
        Command::View(args) => view::run(&args, &context.root()),
        Command::Sweep(args) => return sweep::run(args, context),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `path` names a URDF, which is converted instead of parsed.
fn is_urdf(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "urdf")
}

/// Reads a file, naming it relative to the workspace root in messages. A
/// file that is not UTF-8 is reported where its first bad byte is.
fn read_source(root: &Path, path: &Path) -> miette::Result<sharnir_spec::Source> {
    let display = path.strip_prefix(root).unwrap_or(path);
    let bytes = std::fs::read(path).map_err(|e| {
        miette::miette!(
            help = "check the path",
            "cannot read {}: {e}",
            path.display()
        )
    })?;
    Ok(sharnir_urdf::decode(display.display().to_string(), bytes)?)
}

/// Converts a URDF, reporting its warnings on stderr.
fn convert(
    root: &Path,
    path: &Path,
    options: &sharnir_urdf::Options,
) -> miette::Result<sharnir_urdf::Conversion> {
    let conversion = sharnir_urdf::convert(&read_source(root, path)?, options)?;
    for warning in &conversion.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(conversion)
}

/// A validated spec from a `.spec` file, or converted from a `.urdf` file.
fn load(root: &Path, path: &Path, options: &sharnir_urdf::Options) -> miette::Result<Spec> {
    let spec = if is_urdf(path) {
        convert(root, path, options)?.spec
    } else {
        sharnir_spec::parse(read_source(root, path)?)?
    };
    if let Some(warning) = spec.unused_parameters_warning() {
        eprintln!("warning: {warning}");
    }
    Ok(spec)
}

/// Derives and plans one module, entirely in memory (see
/// [`sharnir_codegen::plan`]).
fn plan_one(
    spec: &Spec,
    mode: ParameterMode,
    options: &sharnir_codegen::PlanOptions,
) -> miette::Result<Plan> {
    let mut mechanism = Mechanism::from_spec(spec, mode)?;
    sharnir_codegen::plan(&mut mechanism, options)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))
}

/// Scales every quaternion of `q` to unit length; a zero one is an error.
pub(crate) fn normalise_quaternions(quaternions: &[usize], q: &mut [f64]) -> miette::Result<()> {
    for &start in quaternions {
        let Some(quaternion) = q.get_mut(start..start + 4) else {
            continue;
        };
        let norm = quaternion.iter().map(|c| c * c).sum::<f64>().sqrt();
        if norm.is_nan() || norm <= 0.0 {
            miette::bail!("the quaternion at q[{start}..{}] is zero", start + 4);
        }
        quaternion.iter_mut().for_each(|c| *c /= norm);
    }
    Ok(())
}
