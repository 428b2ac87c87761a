//! The arguments of `gen` that choose what a module contains: the
//! formalism (`--method`) and the outputs (`--outputs`), parsed and
//! validated by clap, apart from `lib.rs` so that it stays readable.

use crate::UrdfArgs;
use clap::ValueEnum;
use sharnir_codegen::plan::outputs::Outputs;
use sharnir_codegen::Method;
use std::path::PathBuf;

/// `sharnir gen`'s arguments.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
    /// Spec files (`.spec`) or URDF files (`.urdf`) to compile.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub(crate) specs: Vec<PathBuf>,
    /// Regenerate every spec under specs/ into generated/ (runtime and folded
    /// variants) of the sharnir checkout the command runs in.
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
    /// Fold parameter values into constants instead of reading them from `Params`.
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
    /// forward_dynamics_derivatives, or `all`, or `linear` (all but the
    /// eight whose size grows like n²). Default: all, except that a
    /// mechanism of more than 48 velocity coordinates skips those eight
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
