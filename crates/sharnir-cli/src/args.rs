//! The command line's grammar: every command and its arguments, parsed and
//! validated by clap, apart from what the commands do (one file each) so
//! that both stay readable.

use clap::{Parser, Subcommand, ValueEnum};
use sharnir_codegen::plan::outputs::Outputs;
use sharnir_codegen::Method;
use std::path::PathBuf;

/// The whole command line: one command and its arguments.
#[derive(Parser)]
#[command(
    name = "sharnir",
    version,
    about = "sharnir: compile mechanism specs into Rust equations of motion"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands, each run by the file of its name.
#[derive(Subcommand)]
pub(crate) enum Command {
    /// Generate the Rust module of one or more specs (or URDFs, converted in memory).
    /// Example: `sharnir gen robot.spec --out src/` writes `src/robot.rs`.
    Gen(GenArgs),
    /// Convert a URDF to a spec and print it on stdout.
    /// Example: `sharnir urdf2spec panda.urdf --floating > panda.spec`.
    Urdf2spec(Urdf2specArgs),
    /// Report the operation counts of every output, by every formalism, with
    /// runtime parameters and folded, next to the published anchors.
    /// Example: `sharnir ops robot.spec`.
    Ops(OpsArgs),
    /// List the base parameters of a spec (the identifiable combinations of the
    /// bodies' inertial parameters) with their regrouping formulas, as the
    /// generated module's `base_parameters` computes them.
    /// Example: `sharnir base-parameters arm.spec`.
    BaseParameters(BaseParametersArgs),
    /// Estimate the base parameters (and the drives' armature, damping and
    /// friction) from measured joint forces: weighted least squares on the
    /// stacked minimal regressor, with standard deviations (see
    /// docs/identification.md). Example: `sharnir identify arm.spec log.csv --drives all`.
    Identify(IdentifyArgs),
    /// Print the state-space matrices A and B of a spec at its initial state (or
    /// `--set` one), with the eigenvalues of A: is this equilibrium stable?
    /// Example: `sharnir linearize pendulum.spec --set q.theta=3.14159`.
    Linearize(LinearizeArgs),
    /// Simulate a spec (or URDF) with its generated dynamics: compiles the module
    /// into a simulation binary (once per spec) and integrates it, with CSV
    /// output, a PNG plot and a summary (see docs/simulation.md).
    /// Example: `sharnir sim pendulum.spec --t-end 5 --plot pendulum.png --csv pendulum.csv`.
    Sim(Box<SimArgs>),
    /// Run a parameter sweep of a spec: compiles the simulation once, runs the
    /// cases (every combination of the --vary values, or the rows of --cases)
    /// on every core, and writes DIR/summary.csv, one line per case. `--shard
    /// I/N` runs a slice (Slurm job arrays by default); `sweep merge DIR…`
    /// joins the slices (see docs/sweeps.md). Example: `sharnir sweep
    /// specs/double_pendulum.spec --vary p.l1=0.5:1:11 --t-end 5 --out runs`.
    Sweep(SweepArgs),
    /// Draw a spec (or URDF) at its initial configuration (or `--set` one) into
    /// one HTML page, every joint frame and axis and every body named: the
    /// quickest way to see a frame placed wrong. Nothing is compiled.
    /// Example: `sharnir view specs/four_bar.spec --html four_bar.html`.
    View(ViewArgs),
}

/// `sharnir gen`'s arguments.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
    /// Spec files (`.spec`) or URDF files (`.urdf`) to compile.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub(crate) specs: Vec<PathBuf>,
    /// Regenerate every spec under specs/ into generated/ of the sharnir
    /// checkout the command runs in (the runtime modules, and the folded
    /// twins of the specs with `folded_twin = true`).
    #[arg(long)]
    pub(crate) all: bool,
    /// Output directory (default: the current directory for `sharnir`,
    /// generated/src of the checkout for `cargo xtask` and `--all`).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Also (re)write `lib.rs` in the output directory, declaring every module
    /// there: a `no_std` crate of them. Always done in a checkout's
    /// generated/src.
    #[arg(long)]
    pub(crate) lib_rs: bool,
    /// Fold parameter values into constants instead of reading them from
    /// `Params` (a spec with `folded_twin = true` gets both without it).
    #[arg(long, conflicts_with = "all")]
    pub(crate) fold: bool,
    /// Formalism of the dynamics outputs (default: for each output, the formalism
    /// whose code is cheapest; `--all` always uses the default).
    #[arg(long, value_enum, conflicts_with = "all")]
    pub(crate) method: Option<MethodArg>,
    /// The standard functions to generate, comma-separated: any of
    /// inverse_dynamics, mass_matrix, bias, gravity, joint_space,
    /// forward_dynamics, coriolis_matrix, energy, body_poses,
    /// coordinate_rates, body_jacobians, inverse_dynamics_derivatives,
    /// gravity_derivatives, mass_matrix_inverse,
    /// forward_dynamics_derivatives, standard_regressor, base_parameters,
    /// regressor, or `all`, or `linear` (all but the eleven whose size
    /// grows like n²). Default: all, except that a mechanism of more than
    /// 48 velocity coordinates skips those eleven
    /// (with a note on stderr). The functions of the spec's forces,
    /// contacts, detachments and loops always come with it.
    #[arg(long, value_name = "LIST", value_parser = parse_outputs, conflicts_with = "all")]
    pub(crate) outputs: Option<Outputs>,
    /// Also write a single-precision twin `<name>_f32` (`Real = f32`) of each
    /// module (a spec can ask for one with `single_precision = true`).
    #[arg(long, conflicts_with = "all")]
    pub(crate) single_precision: bool,
    /// Also write a fused multiply–add twin `<name>_fma` of each module, sums of
    /// products through `libm`'s `fma` (a spec can ask for one with
    /// `fused_multiply_add = true`); with `--single-precision`, also `<name>_fma_f32`.
    #[arg(long, conflicts_with = "all")]
    pub(crate) fma: bool,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `--outputs`: a list of function names, `all` or `linear`; an unknown
/// name is refused with the list of valid ones.
fn parse_outputs(list: &str) -> Result<Outputs, String> {
    Outputs::parse_list(list).map_err(|e| e.to_string())
}

/// The values of `--method`, one per [`Method`] (clap needs its own enum).
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum MethodArg {
    /// Recursive Newton–Euler inverse dynamics; M, bias and gravity read off it.
    NewtonEuler,
    /// Vereshchagin's separate-bodies forward dynamics; the rest by Newton–Euler.
    Vereshchagin,
    /// The joint-coordinate formalism: M = Σ BᵀMB, bias, and an L D Lᵀ forward dynamics.
    Lagrange,
    /// Telegin's direction-cosine formalism (serial chains); M, bias and gravity read off it.
    Telegin,
}

impl From<MethodArg> for Method {
    fn from(arg: MethodArg) -> Method {
        match arg {
            MethodArg::NewtonEuler => Method::NewtonEuler,
            MethodArg::Vereshchagin => Method::Vereshchagin,
            MethodArg::Lagrange => Method::Lagrange,
            MethodArg::Telegin => Method::Telegin,
        }
    }
}

/// `sharnir urdf2spec`'s arguments.
#[derive(clap::Args)]
pub(crate) struct Urdf2specArgs {
    /// The URDF file to convert.
    pub(crate) urdf: PathBuf,
    /// Write `folded_twin = true`: `gen` then also writes the module with
    /// the parameter values compiled in.
    #[arg(long)]
    pub(crate) folded_twin: bool,
    #[command(flatten)]
    pub(crate) options: UrdfArgs,
}

/// `sharnir ops`'s arguments.
#[derive(clap::Args)]
pub(crate) struct OpsArgs {
    /// Specs (or URDFs) to report on.
    #[arg(required = true)]
    pub(crate) specs: Vec<PathBuf>,
    /// Print JSON (one object per spec, one per line) instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
    /// Count the fused multiply–add twins (`<name>_fma`) instead of the plain
    /// modules: fused operations in the `fma` column, counted neither as
    /// `mul` nor as `add`.
    #[arg(long)]
    pub(crate) fma: bool,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `sharnir base-parameters`'s arguments.
#[derive(clap::Args)]
pub(crate) struct BaseParametersArgs {
    /// The spec (`.spec`) or URDF (`.urdf`).
    pub(crate) spec: PathBuf,
    /// Print JSON: the standard parameters, and every base parameter's name,
    /// formula and coefficients.
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the runtime parameters' values into the formulas, as the
    /// `_folded` module's header does.
    #[arg(long)]
    pub(crate) fold: bool,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `sharnir identify`'s arguments.
#[derive(clap::Args)]
pub(crate) struct IdentifyArgs {
    /// The spec (`.spec`) or URDF (`.urdf`) whose parameters are estimated;
    /// its geometry and gravity are taken as known.
    pub(crate) spec: PathBuf,
    /// The measurements: a CSV file with a header row `t`, `q.<position>`,
    /// `tau.<coordinate>` and optionally `v.<coordinate>` and
    /// `a.<coordinate>` (the names of `sharnir sim`'s CSV). A coordinate
    /// without a `tau.` column takes its `drive.<coordinate>` column as its
    /// joint force (what `sharnir sim` writes for a prescribed coordinate);
    /// where both are there, `tau.` is read.
    pub(crate) data: PathBuf,
    /// Which drive parameters are estimated with the bodies': those the
    /// spec declares (`armature`, `damping`, `friction`, even as 0), or
    /// all three on every revolute and prismatic joint.
    #[arg(long, value_enum, default_value_t = DrivesArg::Declared)]
    pub(crate) drives: DrivesArg,
    /// Low-pass the positions and joint forces with a zero-phase
    /// (forward–backward) second-order Butterworth filter of this cutoff,
    /// in Hz, before velocities and accelerations are taken by central
    /// differences; needs uniformly spaced samples.
    #[arg(long, value_name = "HZ")]
    pub(crate) cutoff: Option<f64>,
    /// Print JSON: every estimate with its standard deviation, the
    /// condition number, the residuals per joint.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write a copy of the spec (comments and layout kept) whose
    /// masses, centres of mass, inertias and drive parameters reproduce the
    /// estimated base parameters: of those physically consistent, the
    /// nearest to the spec's own (which fill what the data do not
    /// determine); a body that cannot be made physically consistent is
    /// flagged (a warning, and a `# WARNING:` line above it).
    /// Example: `sharnir identify arm.spec log.csv --write-spec arm_identified.spec`.
    #[arg(long, value_name = "OUT.spec")]
    pub(crate) write_spec: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// Which drive parameters `sharnir identify` estimates.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DrivesArg {
    /// Those the spec declares.
    Declared,
    /// Armature, damping and friction on every revolute and prismatic joint.
    All,
}

/// `sharnir linearize`'s arguments.
#[derive(clap::Args)]
pub(crate) struct LinearizeArgs {
    /// The spec (`.spec`) or URDF (`.urdf`) to linearize.
    pub(crate) spec: PathBuf,
    /// A position or velocity of the state (default: the spec's `[initial]`),
    /// e.g. `--set q.theta=3.14159 --set v.theta=0`; repeatable.
    #[arg(long = "set", value_name = "q.NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// A joint force or torque held constant (default: zero), added to the
    /// mechanism's own (`[forces]`, damping, friction), e.g. `--tau
    /// shoulder=2.5`; repeatable.
    #[arg(long = "tau", value_name = "NAME=VALUE")]
    pub(crate) tau: Vec<String>,
    /// Print JSON: the state, `A`, `B` and the eigenvalues.
    #[arg(long, conflicts_with = "csv")]
    pub(crate) json: bool,
    /// Print CSV: `A`, then `B`, then the eigenvalues, each with a header row.
    #[arg(long)]
    pub(crate) csv: bool,
    /// The time at which the spec's `[forces]` are evaluated.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) time: f64,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `sharnir view`'s arguments.
#[derive(clap::Args)]
pub(crate) struct ViewArgs {
    /// The spec (`.spec`) or URDF (`.urdf`) to draw.
    pub(crate) spec: PathBuf,
    /// The page to write.
    #[arg(long, value_name = "FILE")]
    pub(crate) html: PathBuf,
    /// A position of the configuration (default: the spec's `[initial]`),
    /// e.g. `--set q.crank=0.5`; repeatable.
    #[arg(long = "set", value_name = "q.NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// Where the `package://NAME/…` meshes of a URDF are found (see `sim`).
    #[arg(long, value_name = "DIR")]
    pub(crate) package_path: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `sharnir sim`'s arguments.
#[derive(clap::Args)]
pub(crate) struct SimArgs {
    /// The spec (`.spec`) or URDF (`.urdf`) to simulate.
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) options: sharnir_sim::SimOptions,
    /// The sharnir checkout whose `sharnir-runtime` and `sharnir-sim` the
    /// simulation binary is compiled against (they are not published), and
    /// under whose `target/` it is built (default: `$SHARNIR_PATH`, else the
    /// checkout the command runs in, else the one `sharnir` was installed
    /// from).
    #[arg(long, value_name = "DIR")]
    pub(crate) sharnir_path: Option<PathBuf>,
    /// Where the `package://NAME/…` meshes of a URDF's visuals are found for
    /// `--html`: NAME is a directory in DIR. Repeatable; after them, every
    /// ancestor directory of the URDF called NAME.
    #[arg(long, value_name = "DIR")]
    pub(crate) package_path: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) urdf: UrdfArgs,
}

/// `sharnir sweep`'s arguments: a sweep, or `merge`.
pub(crate) enum SweepArgs {
    /// A sweep: the simulation every case shares, and the cases.
    Run(Box<SimArgs>, sharnir_sim::SweepOptions),
    /// `sharnir sweep merge DIR…`.
    Merge(MergeArgs),
}

// By hand: a command with a subcommand (`merge`) beside required arguments
// of its own, which clap's derive cannot build when the subcommand is given.
impl clap::Args for SweepArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        let merge = SweepCommand::augment_subcommands(clap::Command::new("sweep"));
        <sharnir_sim::SweepOptions as clap::Args>::augment_args(SimArgs::augment_args(command))
            .subcommands(merge.get_subcommands().cloned())
            .args_conflicts_with_subcommands(true)
            .subcommand_negates_reqs(true)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for SweepArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        if matches.subcommand().is_some() {
            let SweepCommand::Merge(merge) = SweepCommand::from_arg_matches(matches)?;
            return Ok(SweepArgs::Merge(merge));
        }
        Ok(SweepArgs::Run(
            Box::new(SimArgs::from_arg_matches(matches)?),
            sharnir_sim::SweepOptions::from_arg_matches(matches)?,
        ))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// What `sharnir sweep` does besides sweeping.
#[derive(Subcommand)]
pub(crate) enum SweepCommand {
    /// Join the summaries of a sweep's shards (every summary*.csv in the
    /// directories) into one summary.csv ordered by case id.
    Merge(MergeArgs),
}

/// `sharnir sweep merge`'s arguments.
#[derive(clap::Args)]
pub(crate) struct MergeArgs {
    /// The directories the shards wrote to.
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// The merged summary (default: summary.csv in the first DIR).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// The conversion choices of URDF inputs (see docs/urdf.md).
#[derive(clap::Args)]
pub(crate) struct UrdfArgs {
    /// Mechanism and module name (URDF inputs; default: the robot name in snake case).
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// Make the root link a floating base on a free joint `root_joint` (URDF inputs).
    #[arg(long)]
    pub(crate) floating: bool,
    /// Replace the lumped inertia of a moving body that no rigid body can have
    /// by the nearest physical one instead of rejecting it (URDF inputs).
    ///
    /// Only bodies whose lumped inertia is not positive definite or breaks
    /// I₁ + I₂ ≥ I₃ change; the others keep their tensors exactly. Same
    /// principal axes, mass and centre of mass; each principal moment raised
    /// to at least 1e-6 × the largest (at least 1e-12 kg·m²), then a triangle
    /// violation v removed by adding v/3 to I₁ and I₂ and taking v/3 from
    /// I₃. Each replacement is printed on stderr with the moments before and
    /// after (docs/urdf.md).
    #[arg(long)]
    pub(crate) fix_inertia: bool,
    /// Make position limits stops with the default contact law of docs/urdf.md (URDF inputs).
    #[arg(long)]
    pub(crate) stops: bool,
    /// Write rpy angles as the URDF gives them (URDF inputs).
    ///
    /// By default an angle within 1e-9 rad of a multiple of pi/2 becomes
    /// that multiple, exactly, which makes the code cheaper and changes the
    /// model by that much (docs/urdf.md, "Right angles").
    #[arg(long)]
    pub(crate) keep_angles: bool,
}

impl UrdfArgs {
    /// The conversion options these flags choose.
    pub(crate) fn options(&self) -> sharnir_urdf::Options {
        sharnir_urdf::Options {
            name: self.name.clone(),
            floating: self.floating,
            fix_inertia: self.fix_inertia,
            stops: self.stops,
            keep_angles: self.keep_angles,
            folded_twin: false,
        }
    }

    /// Whether any URDF flag is given: an error where no input is a URDF.
    pub(crate) fn any(&self) -> bool {
        self.name.is_some() || self.floating || self.fix_inertia || self.stops || self.keep_angles
    }
}
