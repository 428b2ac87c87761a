//! The simulation command: runs one compiled model from the command line,
//! with CSV output, a PNG plot, a 3-D animation page, a progress bar and a
//! summary.
//!
//! `cargo xtask sim specs/robot.spec --t-end 5` generates the mechanism's
//! module, compiles it once into a small binary whose `main` is
//! [`main`] instantiated for that model, and runs it; a second run of the
//! same spec reuses the binary. The same binary can be built by hand for any
//! generated module:
//!
//! ```ignore
//! mod triple_pendulum; // a generated module
//! sharnir_runtime::model!(TriplePendulum = triple_pendulum);
//! sharnir_runtime::body_poses!(TriplePendulum = triple_pendulum);
//! fn main() -> std::process::ExitCode {
//!     sharnir_sim::main(TriplePendulum::default())
//! }
//! ```
//!
//! The same binary runs a sweep: `binary sweep --vary p.l=0.5:1:11 --out
//! DIR …` runs every case on every core, as a single run with those values
//! would (`docs/sweeps.md`). A binary whose `main` is
//! [`main_with_parameters`] can also set the module's parameters
//! (`--set p.l=0.7`, `--vary p.l=…`).
//!
//! Without the default `output` feature the crate is only [`SimOptions`]
//! and [`SweepOptions`], so that `sharnir-cli` can check a command line
//! before compiling anything.

mod cases;
mod options;

#[cfg(feature = "output")]
mod animation;
#[cfg(feature = "output")]
mod conditioning;
#[cfg(feature = "output")]
mod csv_output;
#[cfg(feature = "output")]
mod curves;
#[cfg(feature = "page")]
mod page;
#[cfg(feature = "output")]
mod plot;
#[cfg(feature = "output")]
mod progress;
#[cfg(feature = "output")]
mod release;
#[cfg(feature = "output")]
mod report;
#[cfg(feature = "output")]
mod run;
#[cfg(feature = "summary")]
pub mod summary;
#[cfg(feature = "output")]
mod sweep;

pub use cases::{parse_shard, parse_vary, CaseList, Column, Shard, SweepOptions, MOST_CASES};
pub use options::{
    parse_assignment, parse_target, parse_value, Assignment, CoordinateKind, MethodName, SimOptions,
};
#[cfg(feature = "page")]
pub use page::{write_page, Frames};
#[cfg(feature = "output")]
pub use release::{run_releasing, Structure};
#[cfg(feature = "output")]
pub use run::{run, run_closed, run_closed_with_events, run_with_events};
/// A body's pose, as [`Frames::push`] takes it.
#[cfg(feature = "page")]
pub use sharnir_runtime::BodyPose;

/// The command line of a compiled simulation binary.
#[cfg(feature = "output")]
#[derive(clap::Parser)]
#[command(about = "Simulate a mechanism compiled by sharnir")]
struct Cli {
    #[command(flatten)]
    options: SimOptions,
}

/// The command line of the binary's sweep mode (`binary sweep …`).
#[cfg(feature = "output")]
#[derive(clap::Parser)]
#[command(about = "Run the cases of a sweep of a mechanism compiled by sharnir")]
struct SweepCli {
    #[command(flatten)]
    options: SimOptions,
    #[command(flatten)]
    sweep: SweepOptions,
}

/// Sets parameter `name` of a model to `value`: the model with it, or
/// `None` when its module has no runtime parameter of that name. The
/// runtime's `Model` has no names for its `Params`' fields, so the binary's
/// `main` supplies this (`sharnir sim` writes a `match` over the fields).
pub type SetParameter<M> = fn(&M, &str, f64) -> Option<M>;

/// The `main` of a simulation binary: parses the command line, runs, prints
/// the summary on stdout and any error on stderr; `binary sweep …` runs a
/// sweep instead (initial values only: [`main_with_parameters`] also sets
/// parameters).
#[cfg(feature = "output")]
pub fn main<M, const NQ: usize, const NV: usize>(model: M) -> std::process::ExitCode
where
    M: sharnir_runtime::BodyPoses<NQ, NV, Real = f64> + Clone + Send + Sync + 'static,
{
    main_with_parameters(model, None)
}

/// [`main`] with the parameters settable by name (`--set p.NAME=…`,
/// `--vary p.NAME=…`) through `set_parameter`.
#[cfg(feature = "output")]
pub fn main_with_parameters<M, const NQ: usize, const NV: usize>(
    model: M,
    set_parameter: Option<SetParameter<M>>,
) -> std::process::ExitCode
where
    M: sharnir_runtime::BodyPoses<NQ, NV, Real = f64> + Clone + Send + Sync + 'static,
{
    dispatch(
        model,
        set_parameter,
        run::run_drawn,
        sweep::open_case::<M, NQ, NV>,
    )
}

/// [`main`] for a mechanism with closed loops (a module with cut joints,
/// `model!(…, loops)`).
#[cfg(feature = "output")]
pub fn main_closed<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
) -> std::process::ExitCode
where
    M: sharnir_runtime::LoopClosure<NQ, NV, NC, Real = f64>
        + sharnir_runtime::BodyPoses<NQ, NV>
        + Clone
        + Send
        + Sync
        + 'static,
{
    main_closed_with_parameters(model, None)
}

/// [`main_closed`] with the parameters settable by name, as
/// [`main_with_parameters`].
#[cfg(feature = "output")]
pub fn main_closed_with_parameters<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: M,
    set_parameter: Option<SetParameter<M>>,
) -> std::process::ExitCode
where
    M: sharnir_runtime::LoopClosure<NQ, NV, NC, Real = f64>
        + sharnir_runtime::BodyPoses<NQ, NV>
        + Clone
        + Send
        + Sync
        + 'static,
{
    dispatch(
        model,
        set_parameter,
        run::run_closed_drawn,
        sweep::closed_case::<M, NQ, NV, NC>,
    )
}

/// Whether the binary was started in its sweep mode (`binary sweep …`).
#[cfg(feature = "output")]
fn sweeping() -> bool {
    std::env::args_os().nth(1).is_some_and(|a| a == "sweep")
}

/// Runs the command line: one run by `single`, or a sweep whose cases run
/// by `case`, with the `p.` values of `--set` applied to the model first.
#[cfg(feature = "output")]
fn dispatch<M, const NQ: usize, const NV: usize>(
    model: M,
    set_parameter: Option<SetParameter<M>>,
    single: fn(M, &SimOptions) -> Result<String, String>,
    case: fn(M, &SimOptions) -> Result<sharnir_runtime::Summary, String>,
) -> std::process::ExitCode
where
    M: sharnir_runtime::Model<NQ, NV, Real = f64> + Clone + Sync,
{
    use clap::Parser;
    if !sweeping() {
        let options = Cli::parse().options;
        return finish(
            parametrized(model, set_parameter, &options)
                .and_then(|(model, options)| single(model, &options)),
        );
    }
    let args = std::env::args_os()
        .take(1)
        .chain(std::env::args_os().skip(2));
    let cli = SweepCli::parse_from(args);
    let outcome = parametrized(model, set_parameter, &cli.options).and_then(|(model, options)| {
        sweep::sweep(&model, set_parameter, &options, &cli.sweep, case)
    });
    match outcome {
        Ok(outcome) => {
            print!("{}", outcome.text);
            std::process::ExitCode::from(
                u8::try_from(outcome.failed.min(sweep::MOST_FAILED_CODE)).unwrap_or(100),
            )
        }
        Err(message) => {
            eprintln!("error: {message}");
            std::process::ExitCode::from(sweep::SWEEP_FAILED_CODE)
        }
    }
}

/// The model with the `p.` values of `--set` and the options without them.
#[cfg(feature = "output")]
fn parametrized<M, const NQ: usize, const NV: usize>(
    model: M,
    set_parameter: Option<SetParameter<M>>,
    options: &SimOptions,
) -> Result<(M, SimOptions), String>
where
    M: sharnir_runtime::Model<NQ, NV, Real = f64>,
{
    let mut model = model;
    let mut rest = options.clone();
    rest.set.clear();
    for (text, assignment) in options.set.iter().zip(options.check()?) {
        if assignment.kind != CoordinateKind::Parameter {
            rest.set.push(text.clone());
            continue;
        }
        let set = set_parameter.ok_or_else(|| {
            format!(
                "--set {text}: this binary cannot set parameters; build it with `sharnir sim`, \
                 whose binaries can (sharnir_sim::main_with_parameters)"
            )
        })?;
        model = set(&model, &assignment.name, assignment.value).ok_or_else(|| {
            format!(
                "--set {text}: {} has no runtime parameter `{}`",
                M::NAME,
                assignment.name
            )
        })?;
    }
    Ok((model, rest))
}

/// Builds every structure of a mechanism whose joints let go (the
/// mechanism first, then its variant modules) with the runtime parameters
/// given by name, `--set p.NAME=…`: `sharnir sim` writes one into such a
/// binary's `main`, since the structures are modules of different types
/// that share the spec's parameters. An `Err` names a parameter the
/// modules do not have.
#[cfg(feature = "output")]
pub type BuildStructures = fn(&[(String, f64)]) -> Result<Vec<Structure>, String>;

/// [`main`] for a mechanism whose joints let go: builds the structures
/// with the `p.` values of `--set`, then runs the first and the structure
/// each release leads to (see [`run_releasing`]).
#[cfg(feature = "output")]
pub fn main_releasing(build: BuildStructures) -> std::process::ExitCode {
    use clap::Parser;
    if sweeping() {
        eprintln!(
            "error: a sweep does not take a mechanism with detachable joints; run its cases \
             one by one with sim --set"
        );
        return std::process::ExitCode::from(sweep::SWEEP_FAILED_CODE);
    }
    let options = Cli::parse().options;
    finish(releasing_with_parameters(build, &options))
}

/// The structures built with the `p.` values of `--set`, run with the
/// other options.
#[cfg(feature = "output")]
fn releasing_with_parameters(
    build: BuildStructures,
    options: &SimOptions,
) -> Result<String, String> {
    let mut rest = options.clone();
    rest.set.clear();
    let mut parameters = Vec::new();
    for (text, assignment) in options.set.iter().zip(options.check()?) {
        if assignment.kind == CoordinateKind::Parameter {
            parameters.push((assignment.name, assignment.value));
        } else {
            rest.set.push(text.clone());
        }
    }
    release::run_releasing(build(&parameters)?, &rest)
}

/// Prints the summary or the error and gives the exit code.
#[cfg(feature = "output")]
fn finish(result: Result<String, String>) -> std::process::ExitCode {
    match result {
        Ok(summary) => {
            print!("{summary}");
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
