//! Which of a module's standard functions a plan derives (`sharnir gen
//! --outputs`), and the automatic rule for big mechanisms.
//!
//! Most functions of a module grow like the mechanism: a chain of `n`
//! links has `n` joint forces, each the next joint's plus one body's, and
//! `n` poses. Four grow faster — the mass matrix, `joint_space` (which
//! holds it), the Coriolis matrix (`n²` entries each) and the body
//! Jacobians (`6 n` rows of `n`) — and for a chain of hundreds of links
//! they are most of the generation time and of the emitted code. Above
//! [`AUTOMATIC_LIMIT`] velocity coordinates a plan without an explicit
//! choice skips them; a skipped function is not derived at all, and no
//! formalism whose candidates are superlinear (the joint-coordinate
//! formalism builds `M`, Telegin's sums over subsystems, the
//! composite-rigid-body algorithm) is derived for the comparison.

use std::fmt;
use std::str::FromStr;

/// The number of velocity coordinates above which a plan without an explicit
/// choice of outputs skips the [superlinear](Function::is_superlinear)
/// ones. Chosen from measurements (`docs/performance.md`, "Generation
/// scaling"): every output of an 80-link spatial chain is half a million
/// lines, 6.4 s to generate and minutes for `rustc` (a 40-link one's
/// 130 000 lines take 77 s to compile), where the linear outputs of 80
/// links are 37 000 lines in 0.9 s; 48 keeps a humanoid's 38 and every
/// bundled spec (18 at most) whole.
pub const AUTOMATIC_LIMIT: usize = 48;

/// One standard function of a generated module that `--outputs` can name.
/// The functions a spec adds by its own tables (applied forces, contacts,
/// detachments, loops) always come with it, since the runtime needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    /// `inverse_dynamics`: joint forces, `O(n)`.
    InverseDynamics,
    /// `mass_matrix`: `n²` entries.
    MassMatrix,
    /// `bias`: `C q̇ + g`, `O(n)`.
    Bias,
    /// `gravity`: `g(q)`, `O(n)`.
    Gravity,
    /// `joint_space`: the mass matrix, bias and gravity together.
    JointSpace,
    /// `forward_dynamics`: `O(n)` by the separate-bodies method.
    ForwardDynamics,
    /// `coriolis_matrix`: `n²` entries.
    CoriolisMatrix,
    /// `energy`: two scalars of `O(n)` terms.
    Energy,
    /// `body_poses`: 12 numbers per body.
    BodyPoses,
    /// `coordinate_rates`: one rate per position coordinate.
    CoordinateRates,
    /// `body_jacobians`: `6 n` rows of `n`.
    BodyJacobians,
    /// `inverse_dynamics_derivatives`: `∂τ/∂q` and `∂τ/∂q̇`, `n²` entries
    /// each.
    InverseDynamicsDerivatives,
    /// `gravity_derivatives`: `∂g/∂q`, `n²` entries.
    GravityDerivatives,
    /// `mass_matrix_inverse`: `M⁻¹`, `n²` entries.
    MassMatrixInverse,
    /// `forward_dynamics_derivatives`: `∂q̈/∂q`, `∂q̈/∂q̇` and `∂q̈/∂τ = M⁻¹`.
    ForwardDynamicsDerivatives,
    /// `standard_regressor`: `τ = Y π`, `n` rows of ten columns per body.
    StandardRegressor,
    /// `base_parameters`: the base parameters `β` from the standard ones
    /// (superlinear with the regressor it is chosen with: its columns are
    /// sampled to find which combinations are independent).
    BaseParameters,
    /// `regressor`: the minimal regressor, `τ = Y_b β`, `n` rows of `NBP`.
    Regressor,
    /// `base_inverse_dynamics`: the joint forces written in the base
    /// parameters, `Y_b β` for a given `β` (Khalil's customised
    /// Newton–Euler; superlinear like the base parameters it needs).
    BaseInverseDynamics,
}

impl Function {
    /// Every function, in the order a module emits them.
    pub const ALL: [Function; 19] = [
        Function::InverseDynamics,
        Function::MassMatrix,
        Function::Bias,
        Function::Gravity,
        Function::JointSpace,
        Function::ForwardDynamics,
        Function::CoriolisMatrix,
        Function::Energy,
        Function::BodyPoses,
        Function::CoordinateRates,
        Function::BodyJacobians,
        Function::InverseDynamicsDerivatives,
        Function::GravityDerivatives,
        Function::MassMatrixInverse,
        Function::ForwardDynamicsDerivatives,
        Function::StandardRegressor,
        Function::BaseParameters,
        Function::Regressor,
        Function::BaseInverseDynamics,
    ];

    /// The function's name in a module and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Function::InverseDynamics => "inverse_dynamics",
            Function::MassMatrix => "mass_matrix",
            Function::Bias => "bias",
            Function::Gravity => "gravity",
            Function::JointSpace => "joint_space",
            Function::ForwardDynamics => "forward_dynamics",
            Function::CoriolisMatrix => "coriolis_matrix",
            Function::Energy => "energy",
            Function::BodyPoses => "body_poses",
            Function::CoordinateRates => "coordinate_rates",
            Function::BodyJacobians => "body_jacobians",
            Function::InverseDynamicsDerivatives => "inverse_dynamics_derivatives",
            Function::GravityDerivatives => "gravity_derivatives",
            Function::MassMatrixInverse => "mass_matrix_inverse",
            Function::ForwardDynamicsDerivatives => "forward_dynamics_derivatives",
            Function::StandardRegressor => "standard_regressor",
            Function::BaseParameters => "base_parameters",
            Function::Regressor => "regressor",
            Function::BaseInverseDynamics => "base_inverse_dynamics",
        }
    }

    /// Whether the function's size grows faster than the mechanism's (an
    /// `n × n` matrix or `6 n × n` Jacobians): what the automatic rule
    /// skips.
    pub fn is_superlinear(self) -> bool {
        matches!(
            self,
            Function::MassMatrix
                | Function::JointSpace
                | Function::CoriolisMatrix
                | Function::BodyJacobians
                | Function::InverseDynamicsDerivatives
                | Function::GravityDerivatives
                | Function::MassMatrixInverse
                | Function::ForwardDynamicsDerivatives
                | Function::StandardRegressor
                | Function::BaseParameters
                | Function::Regressor
                | Function::BaseInverseDynamics
        )
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of [`Function`]s: a bit set, so that
/// [`PlanOptions`](super::PlanOptions) stays `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outputs(u32);

impl Default for Outputs {
    /// Every function, as modules always had.
    fn default() -> Self {
        Outputs::ALL
    }
}

impl Outputs {
    /// Every function.
    pub const ALL: Outputs = Outputs((1 << Function::ALL.len()) - 1);

    /// No function (a start to [`Outputs::with`] from).
    pub const NONE: Outputs = Outputs(0);

    /// Every function whose size grows at most linearly.
    pub fn linear() -> Outputs {
        Function::ALL
            .into_iter()
            .filter(|f| !f.is_superlinear())
            .fold(Outputs::NONE, Outputs::with)
    }

    /// The automatic rule: every function for a mechanism of at most
    /// [`AUTOMATIC_LIMIT`] velocity coordinates, the linear ones above.
    pub fn automatic(velocity_coordinates: usize) -> Outputs {
        if velocity_coordinates > AUTOMATIC_LIMIT {
            Outputs::linear()
        } else {
            Outputs::ALL
        }
    }

    /// This set and `function`.
    pub fn with(self, function: Function) -> Outputs {
        Outputs(self.0 | function.bit())
    }

    /// Whether `function` is in the set.
    pub fn contains(self, function: Function) -> bool {
        self.0 & function.bit() != 0
    }

    /// Whether the function named `name` is in the set; a name that is not a
    /// [`Function`] (a loop or contact function) always is.
    pub fn contains_name(self, name: &str) -> bool {
        name.parse::<Function>().map_or(true, |f| self.contains(f))
    }

    /// Whether the mass matrix is derived: for `mass_matrix` or
    /// `joint_space`. Only then are the formalisms that build it (the
    /// joint-coordinate one, Telegin's, the composite-rigid-body
    /// algorithm) derived for the comparison.
    pub fn needs_mass_matrix(self) -> bool {
        self.contains(Function::MassMatrix) || self.contains(Function::JointSpace)
    }

    /// Whether Newton–Euler's bias or gravity is read: by `bias`,
    /// `gravity`, `joint_space`, or the Coriolis matrix (derived from the
    /// bias). Without them neither is derived nor costed.
    pub fn needs_bias_or_gravity(self) -> bool {
        [
            Function::Bias,
            Function::Gravity,
            Function::JointSpace,
            Function::CoriolisMatrix,
        ]
        .into_iter()
        .any(|f| self.contains(f))
            || self.needs_mass_matrix()
    }

    /// The functions not in the set, in emission order.
    pub fn missing(self) -> Vec<Function> {
        Function::ALL
            .into_iter()
            .filter(|f| !self.contains(*f))
            .collect()
    }

    /// Parses a comma-separated list of names, `all` (every function) or
    /// `linear` (the [linear](Outputs::linear) ones), as `--outputs` takes
    /// it; empty items are refused.
    pub fn parse_list(list: &str) -> Result<Outputs, UnknownOutput> {
        let mut set = Outputs::NONE;
        for name in list.split(',').map(str::trim) {
            set = match name {
                "all" => Outputs::ALL,
                "linear" => set.union(Outputs::linear()),
                name => set.with(name.parse()?),
            };
        }
        Ok(set)
    }

    /// Every function of either set.
    pub fn union(self, other: Outputs) -> Outputs {
        Outputs(self.0 | other.0)
    }
}

impl fmt::Display for Outputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Function::ALL
            .into_iter()
            .filter(|x| self.contains(*x))
            .map(Function::name)
            .collect();
        f.write_str(&names.join(","))
    }
}

/// A name `--outputs` (or the spec's `outputs`) does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOutput(pub String);

impl fmt::Display for UnknownOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown output `{}`: expected `all`, `linear` or a comma-separated list of {}",
            self.0,
            valid_names()
        )
    }
}

impl std::error::Error for UnknownOutput {}

/// Every name [`Outputs::parse_list`] takes besides `all` and `linear`,
/// for messages.
pub fn valid_names() -> String {
    let names: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
    names.join(", ")
}

impl FromStr for Function {
    type Err = UnknownOutput;

    fn from_str(s: &str) -> Result<Function, UnknownOutput> {
        Function::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownOutput(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_lists_parse() {
        for function in Function::ALL {
            assert_eq!(function.name().parse::<Function>(), Ok(function));
        }
        let set = Outputs::parse_list("inverse_dynamics, forward_dynamics").unwrap();
        assert!(set.contains(Function::InverseDynamics) && set.contains(Function::ForwardDynamics));
        assert!(!set.contains(Function::MassMatrix));
        assert_eq!(Outputs::parse_list("all"), Ok(Outputs::ALL));
        assert_eq!(Outputs::parse_list("bias,all"), Ok(Outputs::ALL));
        assert_eq!(
            Outputs::parse_list("linear,mass_matrix"),
            Ok(Outputs::linear().with(Function::MassMatrix))
        );
        let error = Outputs::parse_list("inverse_dynamics,mass_matrx").unwrap_err();
        assert_eq!(error, UnknownOutput("mass_matrx".into()));
        assert!(error.to_string().contains("mass_matrix, bias"));
        assert!(Outputs::parse_list("").is_err());
    }

    #[test]
    fn the_spec_knows_the_same_names() {
        let names: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names, sharnir_spec::OUTPUT_NAMES);
    }

    #[test]
    fn the_automatic_rule_skips_only_superlinear_outputs_of_big_mechanisms() {
        assert_eq!(Outputs::automatic(AUTOMATIC_LIMIT), Outputs::ALL);
        let big = Outputs::automatic(AUTOMATIC_LIMIT + 1);
        let skipped: Vec<&str> = big.missing().into_iter().map(Function::name).collect();
        assert_eq!(
            skipped,
            [
                "mass_matrix",
                "joint_space",
                "coriolis_matrix",
                "body_jacobians",
                "inverse_dynamics_derivatives",
                "gravity_derivatives",
                "mass_matrix_inverse",
                "forward_dynamics_derivatives",
                "standard_regressor",
                "base_parameters",
                "regressor",
                "base_inverse_dynamics"
            ]
        );
        assert!(big.contains_name("constraints") && !big.needs_mass_matrix());
        assert_eq!(
            big.to_string(),
            "inverse_dynamics,bias,gravity,forward_dynamics,energy,body_poses,coordinate_rates"
        );
    }
}
