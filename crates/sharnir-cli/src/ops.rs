//! `cargo xtask ops`: the operation count of every output, by every
//! formalism that produces it, with runtime parameters and folded, next to
//! the published counts sharnir is measured against. `mass_matrix` and
//! `joint_space` are also listed as `chosen`, from the module `cargo xtask
//! gen` writes, whose mass matrix may come from the composite-rigid-body
//! algorithm.

use crate::args::OpsArgs;
use crate::{load, Context};
use miette::IntoDiagnostic;
use sharnir_cas::OpCount;
use sharnir_codegen::method::Method;
use sharnir_codegen::plan::provenance::{Formalism, Provenance};
use sharnir_codegen::{EmitError, GeneratedModule, Plan, PlanOptions, Variant};
use sharnir_mech::Mechanism;
use sharnir_mech::ParameterMode;
use sharnir_spec::Spec;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Counts by function, then formalism, then parameter mode.
type Counts = BTreeMap<String, BTreeMap<&'static str, BTreeMap<&'static str, OpCount>>>;

/// The row of each function that the module `gen` writes uses: by
/// function and parameter mode, the formalism's name in [`Counts`].
type Used = BTreeMap<(String, &'static str), &'static str>;

/// The modes, as the report names them.
const MODES: [(ParameterMode, &str); 2] = [
    (ParameterMode::Runtime, "params"),
    (ParameterMode::Folded, "folded"),
];

/// `cargo xtask ops`: every formalism's operation counts of each spec.
pub(crate) fn run(args: OpsArgs, context: &Context) -> miette::Result<()> {
    let root = context.root();
    let options = args.urdf.options();
    for path in &args.specs {
        let spec = load(&root, path, &options)?;
        let (counts, used) = counts(&spec, args.fma)?;
        let name = path.display().to_string();
        if args.json {
            println!("{}", json(&name, &counts, &used)?);
        } else {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            println!("{}", table(&name, stem, &counts, &used, args.fma));
        }
    }
    Ok(())
}

/// The module of `spec` in `mode` with the dynamics by `method` (the
/// cheapest per output when `None`), plain or fused, and its plan; `None`
/// when the method does not apply to the mechanism (Telegin's formalism
/// needs a serial chain of independent joints, the separate-bodies method
/// independent joints): it has no counts to report there.
fn module(
    spec: &Spec,
    mode: ParameterMode,
    method: Option<Method>,
    fma: bool,
) -> miette::Result<Option<(Plan, GeneratedModule)>> {
    let options = PlanOptions {
        method,
        ..PlanOptions::default()
    };
    let mut mechanism = Mechanism::from_spec(spec, mode)?;
    let plan = match sharnir_codegen::plan(&mut mechanism, &options) {
        Ok(plan) => plan,
        Err(EmitError::Telegin(_) | EmitError::SeparateBodies(_)) => return Ok(None),
        Err(e) => miette::bail!("{}: {e}", spec.source.name),
    };
    let variant = Variant {
        fused_multiply_add: fma,
        ..Variant::PLAIN
    };
    let module = plan
        .render(variant)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
    Ok(Some((plan, module)))
}

/// Generates `spec` with every method in both modes and collects the counts
/// of the functions each method really produces (those the plan records as
/// [`Provenance::Asked`]). Functions no method chooses (energy, poses, …)
/// and the parameter groups are listed under Newton–Euler. With `fma`, the
/// counts are those of each module's fused multiply–add twin. Also which
/// row each function of the module `gen` writes comes from.
fn counts(spec: &Spec, fma: bool) -> miette::Result<(Counts, Used)> {
    let mut counts = Counts::new();
    let mut used = Used::new();
    for method in Method::ALL {
        for (mode, mode_name) in MODES {
            let Some((plan, module)) = module(spec, mode, Some(method), fma)? else {
                continue;
            };
            for (function, ops) in module.op_counts {
                let provenance = plan.function(&function).map(|f| &f.provenance);
                let listed = match provenance {
                    Some(Provenance::Asked(_)) => true,
                    Some(Provenance::Fallback(..)) => false,
                    _ => method == Method::NewtonEuler,
                };
                if listed {
                    counts
                        .entry(function)
                        .or_default()
                        .entry(method.name())
                        .or_default()
                        .insert(mode_name, ops);
                }
            }
        }
    }
    // The module `cargo xtask gen` writes, whose mass matrices may come from
    // the composite-rigid-body algorithm: no method produces that, so the
    // functions it was offered to are also listed as `chosen`.
    for (mode, mode_name) in MODES {
        let Some((plan, module)) = module(spec, mode, None, fma)? else {
            miette::bail!("{}: no formalism applies", spec.source.name);
        };
        for (function, ops) in module.op_counts {
            let offered_crba = plan.function(&function).is_some_and(|f| {
                matches!(&f.provenance, Provenance::Cheapest { candidates, .. }
                    if candidates.iter().any(|(c, _)| *c == Formalism::CompositeRigidBody))
            });
            let row = match plan
                .function(&function)
                .and_then(|f| f.provenance.formalism())
            {
                _ if offered_crba => "chosen",
                Some(Formalism::Method(method)) => method.name(),
                _ => Method::NewtonEuler.name(),
            };
            used.insert((function.clone(), mode_name), row);
            if offered_crba {
                counts
                    .entry(function)
                    .or_default()
                    .entry("chosen")
                    .or_default()
                    .insert(mode_name, ops);
            }
        }
    }
    Ok((counts, used))
}

/// The report as JSON:
/// `{"spec": …, "functions": {"inverse_dynamics": {"newton-euler": {"params": {"mul": …}, "folded": {…}}, …}, …},
/// "used": {"inverse_dynamics": {"params": "newton-euler", "folded": …}, …}}`.
fn json(spec_name: &str, counts: &Counts, used: &Used) -> miette::Result<String> {
    let op = |o: &OpCount| serde_json::json!({"mul": o.mul, "add": o.add, "div": o.div, "sqrt": o.sqrt, "sin": o.sin, "cos": o.cos, "exp": o.exp, "fma": o.fma});
    let functions: serde_json::Map<String, serde_json::Value> = counts
        .iter()
        .map(|(function, methods)| {
            let methods: serde_json::Map<String, serde_json::Value> = methods
                .iter()
                .map(|(method, modes)| {
                    let modes: serde_json::Map<String, serde_json::Value> = modes
                        .iter()
                        .map(|(mode, o)| ((*mode).to_owned(), op(o)))
                        .collect();
                    ((*method).to_owned(), modes.into())
                })
                .collect();
            (function.clone(), methods.into())
        })
        .collect();
    let mut by_function = serde_json::Map::new();
    for ((function, mode), method) in used {
        let entry = by_function
            .entry(function.clone())
            .or_insert_with(|| serde_json::json!({}));
        if let Some(modes) = entry.as_object_mut() {
            modes.insert((*mode).to_owned(), (*method).into());
        }
    }
    serde_json::to_string(
        &serde_json::json!({"spec": spec_name, "functions": functions, "used": by_function}),
    )
    .into_diagnostic()
}

/// The report as a table, followed by the anchors that apply to this spec
/// (not for fused counts, `fma`: the published counts fuse nothing, so
/// comparing multiplications and additions alone would flatter sharnir).
fn table(spec_name: &str, stem: &str, counts: &Counts, used: &Used, fma: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{spec_name}");
    let _ = writeln!(
        out,
        "{:<18} {:<13} {:<7} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>6} {:>4}",
        "function",
        "method",
        "mode",
        "mul",
        "add",
        "div",
        "sqrt",
        "sin",
        "cos",
        "exp",
        "fma",
        "trig%",
        "gen"
    );
    for (function, methods) in counts {
        for (method, modes) in methods {
            for (mode, o) in modes {
                let in_gen = used.get(&(function.clone(), *mode)) == Some(method);
                let _ = writeln!(
                    out,
                    "{function:<18} {method:<13} {mode:<7} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>6} {:>4}",
                    o.mul,
                    o.add,
                    o.div,
                    o.sqrt,
                    o.sin,
                    o.cos,
                    o.exp,
                    o.fma,
                    trigonometry_share(o),
                    if in_gen { "*" } else { "" }
                );
            }
        }
    }
    let _ = writeln!(out, "{LEGEND}");
    let anchors: Vec<&Anchor> = ANCHORS.iter().filter(|a| a.specs.contains(&stem)).collect();
    if !anchors.is_empty() && fma {
        let _ = writeln!(
            out,
            "\npublished anchors: not compared with fused counts (run without --fma)"
        );
    } else if !anchors.is_empty() {
        let _ = writeln!(
            out,
            "\npublished anchors (best formalism of this spec against each):"
        );
        for anchor in anchors {
            let _ = writeln!(out, "{}", anchor.verdict(counts));
        }
    }
    out
}

/// What the table's columns mean, printed under it.
const LEGEND: &str = "\
method  the formalism the row's code is derived by; `chosen` is the module `gen` writes,
        where the composite-rigid-body mass matrix competes too; the functions no
        formalism is chosen for are listed under newton-euler
mode    params reads the parameters at run time; folded has the spec's numbers folded in
mul…exp operations per call; fma the fused multiply-adds (with --fma)
trig%   the share of the weighted cost in sines and cosines (each weighs ten multiplications)
gen     * marks the row whose code the module `gen` writes holds";

/// The share of a function's weighted cost (`OpCount::weight`) that its
/// sines and cosines take, in percent: what the plain counts hide on a
/// target where a `sin` costs a hundred multiplications (a `libm` `sinf`
/// on a Cortex-M4F reduces in software `f64`; see docs/embedded.md).
fn trigonometry_share(o: &OpCount) -> String {
    let weight = o.weight();
    if weight == 0 {
        return "—".to_owned();
    }
    let trig = 10 * u64::from(o.sin + o.cos);
    format!("{:.0}", 100.0 * trig as f64 / weight as f64)
}

/// A published operation count and the target set against it.
struct Anchor {
    /// Spec stems it applies to.
    specs: &'static [&'static str],
    function: &'static str,
    mode: &'static str,
    source: &'static str,
    mul: u32,
    add: u32,
    /// The target: at most this many multiplications and additions.
    target: (u32, u32),
}

/// The published anchors and their targets: Telegin's hand derivation
/// (target ≤ 75 mul / 40 add), HybrDyn's Maple-optimised Newton–Euler and
/// mass matrix (target 0.7 × theirs; measured on `puma560_symbolic`, whose
/// every inertial parameter is symbolic as in HybrDyn's setting) and
/// Khalil's customised Newton–Euler with base parameters (target: at or
/// below), and HybrDyn's minimal regressors (target: at or below, with
/// their number of base parameters beside ours in docs/performance.md).
const ANCHORS: [Anchor; 8] = [
    Anchor {
        specs: &["telegin6"],
        function: "inverse_dynamics",
        mode: "folded",
        source: "Telegin (2021), Listing 2, hand-derived",
        mul: 89,
        add: 43,
        target: (75, 40),
    },
    Anchor {
        specs: &["puma560_symbolic"],
        function: "inverse_dynamics",
        mode: "params",
        source: "HybrDyn/SerRobLib Newton–Euler, industrial 6R, symbolic parameters",
        mul: 388,
        add: 304,
        target: (271, 212),
    },
    Anchor {
        specs: &["puma560", "ur5"],
        function: "inverse_dynamics",
        mode: "folded",
        source: "Khalil's customised Newton–Euler with base parameters, 6R",
        mul: 160,
        add: 113,
        target: (160, 113),
    },
    Anchor {
        specs: &["puma560_symbolic"],
        function: "base_inverse_dynamics",
        mode: "params",
        source: "Khalil's customised Newton–Euler, 6R, every base parameter symbolic",
        mul: 160,
        add: 113,
        target: (160, 113),
    },
    Anchor {
        specs: &["puma560_symbolic"],
        function: "mass_matrix",
        mode: "params",
        source: "HybrDyn mass matrix, industrial 6R, symbolic parameters",
        mul: 538,
        add: 374,
        target: (376, 261),
    },
    Anchor {
        specs: &["puma560_symbolic", "puma560"],
        function: "regressor",
        mode: "params",
        source: "HybrDyn minimal regressor, industrial 6R (38 base parameters)",
        mul: 886,
        add: 618,
        target: (886, 618),
    },
    Anchor {
        specs: &["ur5"],
        function: "regressor",
        mode: "params",
        source: "HybrDyn minimal regressor, general 6R",
        mul: 1580,
        add: 1100,
        target: (1580, 1100),
    },
    Anchor {
        specs: &["panda"],
        function: "regressor",
        mode: "params",
        source: "HybrDyn minimal regressor, 7R LWR (45 base parameters)",
        mul: 1597,
        add: 1090,
        target: (1597, 1090),
    },
];

impl Anchor {
    /// One line: the published count, our best, and how far from the target.
    fn verdict(&self, counts: &Counts) -> String {
        let best = counts
            .get(self.function)
            .into_iter()
            .flat_map(|methods| methods.iter())
            .filter_map(|(method, modes)| modes.get(self.mode).map(|o| (method, o)))
            .min_by_key(|(_, o)| (o.mul, o.add));
        let (target_mul, target_add) = self.target;
        match best {
            None => format!("  {} ({}): not generated", self.function, self.mode),
            Some((method, o)) => {
                let status = if o.mul <= target_mul && o.add <= target_add {
                    "target met".to_owned()
                } else {
                    format!(
                        "target missed by {} mul, {} add",
                        o.mul.saturating_sub(target_mul),
                        o.add.saturating_sub(target_add)
                    )
                };
                format!(
                    "  {} ({}): {} — {} mul / {} add; target ≤ {target_mul} / {target_add}; sharnir ({method}) {} / {}: {status}",
                    self.function, self.mode, self.source, self.mul, self.add, o.mul, o.add
                )
            }
        }
    }
}
