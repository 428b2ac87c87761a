//! `cargo xtask ops`: the operation count of every output, by every
//! formalism that produces it, with runtime parameters and folded, next to
//! the published counts sharnir is measured against. `mass_matrix` and
//! `joint_space` are also listed as `chosen`, from the module `cargo xtask
//! gen` writes, whose mass matrix may come from the composite-rigid-body
//! algorithm.

use crate::generate_one;
use miette::IntoDiagnostic;
use sharnir_cas::OpCount;
use sharnir_codegen::method::{Method, Output};
use sharnir_mech::ParameterMode;
use sharnir_spec::Spec;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Counts by function, then formalism, then parameter mode.
pub(crate) type Counts = BTreeMap<String, BTreeMap<&'static str, BTreeMap<&'static str, OpCount>>>;

/// The modes, as the report names them.
const MODES: [(ParameterMode, &str); 2] = [
    (ParameterMode::Runtime, "params"),
    (ParameterMode::Folded, "folded"),
];

/// Which formalism-dependent output a generated function is, if any.
fn output_of(function: &str) -> Option<Output> {
    match function {
        "inverse_dynamics" => Some(Output::InverseDynamics),
        "mass_matrix" | "bias" | "gravity" => Some(Output::JointSpace),
        "forward_dynamics" => Some(Output::ForwardDynamics),
        _ => None,
    }
}

/// Generates `spec` with every method in both modes and collects the counts
/// of the functions each method really produces. Functions no method
/// chooses (energy, poses, …) and the parameter groups are listed under
/// Newton–Euler. With `fma`, the counts are those of each module's fused
/// multiply–add twin.
pub(crate) fn counts(spec: &Spec, fma: bool) -> miette::Result<Counts> {
    let mut counts = Counts::new();
    for method in Method::ALL {
        for (mode, mode_name) in MODES {
            // Telegin's formalism needs a serial chain of independent
            // joints and the separate-bodies method independent joints:
            // outside them they have no counts to report.
            let module = match generate_one(spec, mode, Some(method)) {
                Ok(module) => module,
                Err(_) if matches!(method, Method::Telegin | Method::Vereshchagin) => continue,
                Err(e) => return Err(e),
            };
            let module = if fma {
                sharnir_codegen::module::fused_multiply_add(&module)
                    .map_err(|e| miette::miette!("{e}"))?
            } else {
                module
            };
            for (function, ops) in module.op_counts {
                let listed = match output_of(&function) {
                    Some(output) => method.produces(output),
                    None => method == Method::NewtonEuler,
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
    // The module `cargo xtask gen` writes, which may take the mass matrix
    // from the composite-rigid-body algorithm: no method produces that.
    for (mode, mode_name) in MODES {
        let module = generate_one(spec, mode, None)?;
        let module = if fma {
            sharnir_codegen::module::fused_multiply_add(&module)
                .map_err(|e| miette::miette!("{e}"))?
        } else {
            module
        };
        for (function, ops) in module.op_counts {
            if CHOSEN.contains(&function.as_str()) {
                counts
                    .entry(function)
                    .or_default()
                    .entry("chosen")
                    .or_default()
                    .insert(mode_name, ops);
            }
        }
    }
    Ok(counts)
}

/// The functions also listed as `chosen`, from the module without
/// `--method`: their cheapest candidate can be the CRBA's mass matrix
/// (`sharnir_mech::crba`), which is no method.
const CHOSEN: [&str; 2] = ["mass_matrix", "joint_space"];

/// The report as JSON:
/// `{"spec": …, "functions": {"inverse_dynamics": {"newton-euler": {"params": {"mul": …}, "folded": {…}}, …}, …}}`.
pub(crate) fn json(spec_name: &str, counts: &Counts) -> miette::Result<String> {
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
    serde_json::to_string(&serde_json::json!({"spec": spec_name, "functions": functions}))
        .into_diagnostic()
}

/// The report as a table, followed by the anchors that apply to this spec
/// (not for fused counts, `fma`: the published counts fuse nothing, so
/// comparing multiplications and additions alone would flatter sharnir).
pub(crate) fn table(spec_name: &str, stem: &str, counts: &Counts, fma: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{spec_name}");
    let _ = writeln!(
        out,
        "{:<18} {:<13} {:<7} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>6}",
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
        "trig%"
    );
    for (function, methods) in counts {
        for (method, modes) in methods {
            for (mode, o) in modes {
                let _ = writeln!(
                    out,
                    "{function:<18} {method:<13} {mode:<7} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>6}",
                    o.mul, o.add, o.div, o.sqrt, o.sin, o.cos, o.exp, o.fma, trigonometry_share(o)
                );
            }
        }
    }
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
/// below).
const ANCHORS: [Anchor; 4] = [
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
        function: "mass_matrix",
        mode: "params",
        source: "HybrDyn mass matrix, industrial 6R, symbolic parameters",
        mul: 538,
        add: 374,
        target: (376, 261),
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
