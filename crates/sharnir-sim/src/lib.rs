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
//! Without the default `output` feature the crate is only [`SimOptions`],
//! so that `sharnir-cli` can check a command line before compiling anything.

mod options;

#[cfg(feature = "output")]
mod animation;
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
mod run;

pub use options::{parse_assignment, Assignment, CoordinateKind, MethodName, SimOptions};
#[cfg(feature = "page")]
pub use page::{write_page, Frames};
#[cfg(feature = "output")]
pub use release::run_releasing;
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

/// The `main` of a simulation binary: parses the command line, runs, prints
/// the summary on stdout and any error on stderr.
#[cfg(feature = "output")]
pub fn main<M, const NQ: usize, const NV: usize>(model: M) -> std::process::ExitCode
where
    M: sharnir_runtime::BodyPoses<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    use clap::Parser;
    finish(run::run_drawn(model, &Cli::parse().options))
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
        + 'static,
{
    use clap::Parser;
    finish(run::run_closed_drawn(model, &Cli::parse().options))
}

/// [`main`] for a mechanism whose first detachable joint lets go: runs
/// `parent`, then `variant` (the module `DETACHMENTS[0]` names) from the
/// state at the release (see [`run_releasing`]).
#[cfg(feature = "output")]
pub fn main_releasing<
    P,
    V,
    SP,
    SV,
    const NQ: usize,
    const NV: usize,
    const NQ2: usize,
    const NV2: usize,
>(
    parent: sharnir_runtime::Simulation<P, NQ, NV, sharnir_runtime::Passive, SP>,
    variant: sharnir_runtime::Simulation<V, NQ2, NV2, sharnir_runtime::Passive, SV>,
) -> std::process::ExitCode
where
    P: sharnir_runtime::Detachable<NQ, NV, Real = f64>
        + sharnir_runtime::BodyPoses<NQ, NV>
        + Clone
        + Send
        + 'static,
    V: sharnir_runtime::BodyPoses<NQ2, NV2, Real = f64> + Clone + Send + 'static,
    SP: sharnir_runtime::MechanicalSystem<P, NQ, NV>,
    SV: sharnir_runtime::MechanicalSystem<V, NQ2, NV2>,
{
    use clap::Parser;
    finish(release::run_releasing_drawn(
        parent,
        variant,
        &Cli::parse().options,
    ))
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
