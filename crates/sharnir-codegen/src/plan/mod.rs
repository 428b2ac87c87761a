//! The planning stage: from a derived mechanism to the plan of its module,
//! as data.
//!
//! A [`Plan`] holds every function of a module — name, arguments, result
//! shape, lowered program, the formalism that made it and why
//! ([`Provenance`]) — with the module's constants, its parameter groups and
//! the twins it has. Rendering ([`Plan::render`]) only prints a plan, so
//! `gen`, `ops` and the tests read one decision: which functions a module
//! has, which formalism each came from and which twins are written.
//!
//! - `choice`: derive every candidate formalism, cost, choose;
//! - `contacts` and `detachments`: the functions of the joints' own forces
//!   and of the reactions that release conditions watch;
//! - [`cost`]: the one cost model, remembering what it has costed;
//! - `derivatives`: the derivative functions, derived after all others;
//! - `derived`: the parameter groups hoisted out of every function;
//! - `evaluate`: a planned program run numerically;
//! - `facts`: what rendering reads of the mechanism, kept in the plan;
//! - `functions`: the functions every module has, from the derived
//!   expressions;
//! - `identification`: the base parameters and the minimal regressor,
//!   derived after the derivatives;
//! - [`outputs`]: which of them a plan derives (`--outputs`, and the
//!   automatic rule that skips the superlinear ones of big mechanisms);
//! - `branches.rs`: the isomorphic branches of the tree, as renamings of
//!   one branch's coordinates to another's for the lane statements;
//! - [`provenance`]: where each function comes from, and the header note
//!   that says so.

mod branches;
mod choice;
mod contacts;
pub mod cost;
mod derivatives;
pub(crate) mod derived;
mod detachments;
mod evaluate;
mod facts;
mod functions;
mod identification;

pub use identification::base_parameter_facts;
pub mod outputs;
pub mod provenance;

use crate::error::EmitError;
use crate::method::Method;
use crate::vocabulary::{
    Argument, BaseParameterFacts, Facts, FunctionSpec, HeaderFacts, LoopFacts, Shape,
};
use choice::Dynamics;
use derived::Derived;
use outputs::{Function, Outputs};
use provenance::{Provenance, Selection};
use sharnir_cas::{hoist_constants, Id, Pool, Program, Summation};
use sharnir_mech::formalisms::coriolis;
use sharnir_mech::{Input, Mechanism, ParameterMode};

/// The largest factorised Coriolis matrix (spherical and free joints), by
/// the naive weight of its outputs as derived, that is offered its angle
/// sums and has its one-walk form derived last. Past it the contraction is
/// skipped (it costs a lowering of a program that large, and a copy of it
/// in the pool, for a few operations: Talos, naive weight 72 000, 43 of
/// 47 000) and the one-walk form is derived early, so that the two forms
/// are lowered side by side on two cores instead of one after the other
/// (Talos, every output, the same module byte for byte: 3.3 → 2.7 s, the
/// medians of five runs each on an AMD EPYC). The largest bundled one,
/// Solo12's, weighs 11 000: no bundled module takes this path.
const CONTRACTED_CORIOLIS_UP_TO: u64 = 32_768;

/// What the caller asks of a plan beyond what the spec says: a formalism
/// for the dynamics, and twins for every module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Derive the dynamics outputs by this method (`--method`) instead of
    /// the cheapest formalism per output.
    pub method: Option<Method>,
    /// Add the fused multiply–add twin whatever the spec says (`--fma`).
    pub fused_multiply_add: bool,
    /// Add the single-precision twins whatever the spec says
    /// (`--single-precision`; runtime-parameter modules only).
    pub single_precision: bool,
    /// The standard functions to derive (`--outputs`); `None` for the
    /// automatic rule ([`Outputs::automatic`]): every one, except the
    /// superlinear ones of a mechanism with more than
    /// [`outputs::AUTOMATIC_LIMIT`] velocity coordinates.
    pub outputs: Option<Outputs>,
    /// Add `body_poses` to whatever outputs are chosen: `sim` asks for it,
    /// because its animation draws the bodies where `body_poses` puts them.
    pub body_poses: bool,
}

/// Which modules a plan is rendered into besides its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Twins {
    /// `<name>_fma`: sums of products by fused multiply–adds.
    pub fused_multiply_add: bool,
    /// `<name>_f32` (and `<name>_fma_f32` with the fused twin): `Real = f32`
    /// and the single-precision sine and cosine.
    pub single_precision: bool,
}

/// One rendering of a plan: the module itself or one of its twins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    /// Sums of products by `fma` (the `_fma` suffix).
    pub fused_multiply_add: bool,
    /// `Real = f32` (the `_f32` suffix).
    pub single_precision: bool,
}

impl Variant {
    /// The module itself.
    pub const PLAIN: Variant = Variant {
        fused_multiply_add: false,
        single_precision: false,
    };

    /// What the variant adds to the plan's module name.
    pub fn suffix(self) -> &'static str {
        match (self.fused_multiply_add, self.single_precision) {
            (false, false) => "",
            (true, false) => "_fma",
            (false, true) => "_f32",
            (true, true) => "_fma_f32",
        }
    }
}

/// One function of a plan: what it is called, takes and returns, the
/// program it computes and where that program comes from.
#[derive(Clone, Debug)]
pub struct PlannedFunction {
    /// Rust name, e.g. `inverse_dynamics`.
    pub name: String,
    /// Doc comment of the emitted function.
    pub doc: String,
    /// Arguments after `p: &Params` (or `d: &Derived`), in order.
    pub arguments: Vec<Argument>,
    /// The returned type.
    pub shape: Shape,
    /// The straight-line program, reading the parameter groups of
    /// [`Plan::derived_program`] as `d.k<i>`.
    pub program: Program,
    /// Which formalism made it and why.
    pub provenance: Provenance,
}

/// A module before rendering. See the module documentation.
#[derive(Debug)]
pub struct Plan {
    /// Module name (`<spec name>`, `<spec name>_folded` with folded
    /// parameters); twins add [`Variant::suffix`].
    pub name: String,
    /// How parameters are treated.
    pub mode: ParameterMode,
    /// How the dynamics outputs were selected.
    pub selection: Selection,
    /// Every function, in emission order.
    pub functions: Vec<PlannedFunction>,
    /// The twins rendered besides the module itself.
    pub twins: Twins,
    /// The standard functions the plan has.
    pub outputs: Outputs,
    /// Whether the automatic rule chose [`Plan::outputs`] (no `--outputs`,
    /// no `outputs` in the spec).
    pub automatic_outputs: bool,
    pub(crate) facts: Facts,
    pub(crate) header: HeaderFacts,
    pub(crate) derived: Derived,
}

impl Plan {
    /// The standard functions the plan does not have, by name, if the
    /// automatic rule skipped them: what `gen` notes on stderr and the
    /// module header says.
    pub fn skipped_automatically(&self) -> Option<Vec<&'static str>> {
        let skipped = self.outputs.missing();
        (self.automatic_outputs && !skipped.is_empty())
            .then(|| skipped.into_iter().map(Function::name).collect())
    }

    /// The function named `name`, if the plan has it.
    pub fn function(&self, name: &str) -> Option<&PlannedFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The program computing the parameter groups (`Params::derived`),
    /// whose outputs are `k0`, `k1`, … in order.
    pub fn derived_program(&self) -> &Program {
        &self.derived.program
    }

    /// The spec's bodies in the order of `BODY_NAMES`, `body_poses` and
    /// `body_jacobians`.
    pub fn body_names(&self) -> &[String] {
        &self.facts.body_names
    }

    /// The drive parameters (`<joint>.armature`, `<joint>.damping`,
    /// `<joint>.friction`), the columns of `standard_regressor` after the
    /// bodies' ten each; empty where the module has no standard regressor.
    pub fn drive_parameters(&self) -> &[String] {
        &self.facts.drive_parameters
    }

    /// The base parameters, where the plan has `base_parameters` or
    /// `regressor`.
    pub fn base_parameters(&self) -> Option<&BaseParameterFacts> {
        self.facts.base_parameters.as_ref()
    }

    /// The loops of a mechanism with cut joints; `None` for a tree.
    pub fn loops(&self) -> Option<&LoopFacts> {
        self.facts.loops.as_ref()
    }

    /// The variants this plan is written as: the twins first (single
    /// precision, then single precision of the fused twin, then the fused
    /// twin), the module itself last.
    pub fn variants(&self) -> Vec<Variant> {
        let mut variants = Vec::with_capacity(4);
        for (fused, single) in [(false, true), (true, true), (true, false)] {
            if (!fused || self.twins.fused_multiply_add) && (!single || self.twins.single_precision)
            {
                variants.push(Variant {
                    fused_multiply_add: fused,
                    single_precision: single,
                });
            }
        }
        variants.push(Variant::PLAIN);
        variants
    }
}

/// Derives every function of the module for `mechanism` and plans it: the
/// dynamics outputs by the formalism whose emitted code is cheapest, output
/// by output, or by `options.method`; angle sums contracted where they pay;
/// constant groups of runtime parameters hoisted into `Derived`; every
/// function lowered.
pub fn plan(mechanism: &mut Mechanism, options: &PlanOptions) -> Result<Plan, EmitError> {
    let (outputs, automatic_outputs) = outputs_of(mechanism, options);
    // The order of derivations is part of the output: it numbers the
    // pool's nodes, and node numbers order canonical sums. Skipping an
    // output skips its derivations and leaves the others in this order.
    let mut costs = cost::Costs::default();
    let (inverse_dynamics, terms) = choice::newton_euler(mechanism, &mut costs, outputs);
    let fixed = functions::FixedOutputs::derive(mechanism, &terms.bias, outputs);
    let newton_euler_bias = terms.bias.clone();
    let newton_euler_inverse = inverse_dynamics.clone();
    let dynamics = match options.method {
        Some(method) => Dynamics::derive(
            mechanism,
            &mut costs,
            method,
            inverse_dynamics,
            terms,
            outputs,
        )?,
        None => Dynamics::cheapest(mechanism, &mut costs, inverse_dynamics, terms, outputs)?,
    };
    let mut provenance = dynamics.provenance.clone();
    let chosen_terms = dynamics.terms.clone();
    let (chosen_inverse, chosen_forward) = (dynamics.inverse.clone(), dynamics.forward.clone());
    let (mut specs, loops) = functions::functions(mechanism, dynamics, fixed, outputs)?;
    if let Some(closed) = &mechanism.loops {
        // `J̇ q̇` summed per coordinate or by one walk, each with its angle
        // sums where they pay: whichever is cheaper.
        let walked = closed.closure.bias_by_one_walk.clone();
        if let Some(bias) = specs.iter_mut().find(|f| f.name == "constraint_bias") {
            let pool = &mut mechanism.pool;
            let summed = std::mem::take(&mut bias.outputs);
            let summed = choice::with_angle_sums(pool, &mut costs, &summed);
            let walked = choice::with_angle_sums(pool, &mut costs, &walked);
            bias.outputs = choice::cheapest(pool, &mut costs, [summed, walked]);
        }
    }
    // A huge factorised Coriolis matrix is not offered its angle sums, and
    // its one-walk form is derived now and costed beside it, both lowered
    // at once (`CONTRACTED_CORIOLIS_UP_TO`); a smaller one below.
    let factorised = coriolis::is_factorised(mechanism);
    let mut coriolis_chosen = false;
    for function in &mut specs {
        let huge_coriolis = factorised
            && function.name == "coriolis_matrix"
            && cost::naive_weight(&mechanism.pool, &function.outputs) > CONTRACTED_CORIOLIS_UP_TO;
        if huge_coriolis {
            let walked =
                coriolis::coriolis_matrix_summed(mechanism, &newton_euler_bias, Summation::OneWalk);
            let current = std::mem::take(&mut function.outputs);
            function.outputs =
                choice::cheapest(&mut mechanism.pool, &mut costs, [current, walked.concat()]);
            coriolis_chosen = true;
        } else {
            function.outputs =
                choice::with_angle_sums(&mut mechanism.pool, &mut costs, &function.outputs);
        }
    }
    if options.method.is_none() && outputs.needs_mass_matrix() {
        // After every function's own angle sums, so that nothing the CRBA
        // adds to the pool reorders what the others are lowered from.
        let compared = choice::compares_every_formalism(mechanism);
        let crba = choice::composite_rigid_body(mechanism, &mut costs);
        let with_terms = [crba.as_slice(), &chosen_terms.bias, &chosen_terms.gravity].concat();
        for function in &mut specs {
            let (candidate, provenance) = match function.name.as_str() {
                "mass_matrix" => (&crba, &mut provenance.mass_matrix),
                "joint_space" => (&with_terms, &mut provenance.joint_space),
                _ => continue,
            };
            let offer = if compared {
                choice::offer_composite_rigid_body
            } else {
                choice::take_composite_rigid_body
            };
            offer(
                &mut mechanism.pool,
                &mut costs,
                &mut function.outputs,
                provenance,
                candidate,
            );
        }
    }
    // The Coriolis matrix of spherical and free joints with its time
    // derivatives by one walk, derived last so that nothing above is
    // numbered otherwise: kept where cheaper.
    let function = specs.iter_mut().find(|f| f.name == "coriolis_matrix");
    if let (true, false, Some(function)) = (factorised, coriolis_chosen, function) {
        let walked =
            coriolis::coriolis_matrix_summed(mechanism, &newton_euler_bias, Summation::OneWalk);
        let pool = &mut mechanism.pool;
        let current = std::mem::take(&mut function.outputs);
        // The walked form without angle sums: contracting a matrix this
        // large costs a lowering and a copy of it in the pool for a few
        // operations (Talos: 43 of 47 000).
        function.outputs = choice::cheapest(pool, &mut costs, [current, walked.concat()]);
    }
    // The derivatives last of all, from what the module computes.
    let outputs_of = |name: &str| {
        specs
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.outputs.clone())
            .unwrap_or_default()
    };
    let sources = derivatives::Sources {
        inverse: chosen_inverse,
        newton_euler: newton_euler_inverse,
        forward: chosen_forward,
        mass_matrix: outputs_of("mass_matrix"),
        constraint_jacobian: outputs_of("constraint_jacobian"),
        constraint_bias: outputs_of("constraint_bias"),
    };
    let derivative_functions = derivatives::functions(mechanism, &mut costs, sources, outputs);
    specs.extend(derivative_functions);
    let (identification, base_parameters) =
        identification::functions(mechanism, &mut costs, outputs)?;
    specs.extend(identification);
    if mechanism.pool.overflowed() {
        return Err(EmitError::TooLarge);
    }
    let selection = options
        .method
        .map_or(Selection::Cheapest, Selection::Method);
    let runtime = mechanism.mode == ParameterMode::Runtime;
    let twins = Twins {
        fused_multiply_add: (mechanism.fused_multiply_add && runtime) || options.fused_multiply_add,
        single_precision: (mechanism.single_precision || options.single_precision) && runtime,
    };
    let name = match mechanism.mode {
        ParameterMode::Runtime => mechanism.name.clone(),
        ParameterMode::Folded => format!("{}_folded", mechanism.name),
    };
    let mut facts = Facts::of(mechanism, loops);
    facts.base_parameters = base_parameters;
    if outputs.contains(Function::StandardRegressor) {
        facts.drive_parameters = mechanism.drives.iter().map(|d| d.name.clone()).collect();
    }
    let header = HeaderFacts::of(mechanism);
    Ok(lower(
        &mut mechanism.pool,
        Lowering {
            name,
            mode: mechanism.mode,
            selection,
            twins,
            outputs,
            automatic_outputs,
            facts,
            header,
        },
        &specs,
        &|name| provenance.of(name),
        &mut costs,
    ))
}

/// The standard functions `options` asks of `mechanism` (`--outputs`), else
/// the spec (its `outputs`), else the automatic rule, and whether the rule
/// chose them; with `inverse_dynamics` and `joint_space` always for a
/// mechanism with loops, since its constrained dynamics are solved from
/// them, `joint_space` for one with `[motion]` (its `mixed_dynamics`
/// reads it), and `body_poses` and `body_jacobians` for one with detachable
/// joints, which the runtime's release reads. The spec's names were checked when it was parsed
/// (`sharnir_spec::OUTPUT_NAMES`, the names of [`Function`]).
fn outputs_of(mechanism: &Mechanism, options: &PlanOptions) -> (Outputs, bool) {
    let from_spec = || {
        let names = mechanism.outputs.as_ref()?;
        Outputs::parse_list(&names.join(",")).ok()
    };
    let asked = options.outputs.or_else(from_spec);
    let outputs = asked.unwrap_or_else(|| Outputs::automatic(mechanism.dof()));
    let outputs = if mechanism.has_loops() {
        outputs
            .with(Function::InverseDynamics)
            .with(Function::JointSpace)
    } else {
        outputs
    };
    // `mixed_dynamics` solves the reduced system of the free coordinates
    // from the mass matrix and bias.
    let outputs = if mechanism.motion.is_empty() {
        outputs
    } else {
        outputs.with(Function::JointSpace)
    };
    // The forward dynamics' derivatives are taken along the forward
    // dynamics, which the module then has.
    let outputs = if outputs.contains(Function::ForwardDynamicsDerivatives) {
        outputs.with(Function::ForwardDynamics)
    } else {
        outputs
    };
    // The runtime maps a state across a release through the poses and
    // Jacobians (`sharnir_runtime::detachments!`).
    let outputs = if mechanism.detachments.is_empty() {
        outputs
    } else {
        outputs
            .with(Function::BodyPoses)
            .with(Function::BodyJacobians)
    };
    let outputs = if options.body_poses {
        outputs.with(Function::BodyPoses)
    } else {
        outputs
    };
    (outputs, asked.is_none())
}

/// What a plan holds besides its functions.
pub(crate) struct Lowering {
    pub(crate) name: String,
    pub(crate) mode: ParameterMode,
    pub(crate) selection: Selection,
    pub(crate) twins: Twins,
    pub(crate) outputs: Outputs,
    pub(crate) automatic_outputs: bool,
    pub(crate) facts: Facts,
    pub(crate) header: HeaderFacts,
}

/// The plan of `functions`: constant groups of runtime parameters hoisted
/// out of every function (shared by all of them) into the `Derived`
/// constants that `Params::derived` computes once, then every function
/// lowered, or taken from `costs` where its choice lowered the same roots.
pub(crate) fn lower(
    pool: &mut Pool,
    lowering: Lowering,
    functions: &[FunctionSpec],
    provenance: &dyn Fn(&str) -> Provenance,
    costs: &mut cost::Costs,
) -> Plan {
    let roots: Vec<Id> = functions
        .iter()
        .flat_map(|f| f.outputs.iter().copied())
        .collect();
    let is_parameter = |symbol: &Input| matches!(symbol, Input::Parameter(_));
    let name = Input::Derived;
    let hoisted = hoist_constants(pool, &roots, &is_parameter, &name);
    let derived = Derived::lower(pool, &hoisted.definitions);
    let mut rest = hoisted.roots.as_slice();
    let mut outputs = Vec::with_capacity(functions.len());
    for function in functions {
        let (own, tail) = rest.split_at(function.outputs.len().min(rest.len()));
        rest = tail;
        outputs.push(own);
    }
    let known: Vec<Option<Program>> = outputs.iter().map(|o| costs.take_program(o)).collect();
    let unknown: Vec<&[Id]> = outputs
        .iter()
        .zip(&known)
        .filter(|(_, known)| known.is_none())
        .map(|(o, _)| *o)
        .collect();
    // The largest first (a long chain's Coriolis matrix came seventh).
    let weight =
        |roots: &&[Id]| usize::try_from(cost::naive_weight(pool, roots)).unwrap_or(usize::MAX);
    let lower = |roots: &&[Id]| Program::lower(pool, roots);
    let mut lowered = sharnir_cas::parallel::map_largest_first(&unknown, weight, lower).into_iter();
    let programs: Vec<Program> = known
        .into_iter()
        .zip(&outputs)
        .map(|(known, roots)| {
            known
                .or_else(|| lowered.next())
                .unwrap_or_else(|| Program::lower(pool, roots))
        })
        .collect();
    let planned = functions
        .iter()
        .zip(programs)
        .map(|(function, program)| PlannedFunction {
            name: function.name.clone(),
            doc: function.doc.clone(),
            arguments: function.arguments.clone(),
            shape: function.shape,
            program,
            provenance: provenance(&function.name),
        })
        .collect();
    Plan {
        name: lowering.name,
        mode: lowering.mode,
        selection: lowering.selection,
        functions: planned,
        twins: lowering.twins,
        outputs: lowering.outputs,
        automatic_outputs: lowering.automatic_outputs,
        facts: lowering.facts,
        header: lowering.header,
        derived,
    }
}
