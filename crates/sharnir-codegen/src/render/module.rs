//! Rendering one self-contained generated Rust module from its plan.
//!
//! The module depends on nothing but `core` and `libm`, allocates nothing and
//! cannot panic: inputs are fixed-size arrays indexed by constants, and the
//! body of every function is straight-line arithmetic. Its header records the
//! spec it came from and the operation count of every function, and the same
//! counts are exported as `OPS_*` constants. Every variant of a plan (the
//! module, its fused multiply–add and single-precision twins) is printed
//! from the same programs, so no twin derives anything again.

use crate::error::EmitError;
use crate::plan::{Plan, Variant};
use crate::print::lines::format_items;
use crate::render::constrained;
use crate::render::contacts;
use crate::render::dispatch::LanesUse;
use crate::render::math::HELPERS;
use crate::vocabulary::{GeneratedModule, Shape};
use proc_macro2::TokenStream;
use quote::quote;
use sharnir_cas::{OpCount, Program};

impl Plan {
    /// Every module of the plan, in the order of [`Plan::variants`].
    /// The fused programs are made once for both fused variants.
    pub fn render_all(&self) -> Result<Vec<GeneratedModule>, EmitError> {
        let fused = self.fused_programs(self.twins.fused_multiply_add);
        self.variants()
            .into_iter()
            .map(|variant| render_plan(self, variant, &self.programs(variant, &fused)))
            .collect()
    }

    /// The module of one variant.
    pub fn render(&self, variant: Variant) -> Result<GeneratedModule, EmitError> {
        let fused = self.fused_programs(variant.fused_multiply_add);
        render_plan(self, variant, &self.programs(variant, &fused))
    }

    /// The programs `variant` prints: `fused` for a fused variant, the
    /// plan's own otherwise.
    fn programs<'a>(&'a self, variant: Variant, fused: &'a [Program]) -> Vec<&'a Program> {
        if variant.fused_multiply_add {
            fused.iter().collect()
        } else {
            self.functions.iter().map(|f| &f.program).collect()
        }
    }

    /// Every function's program with its sums of products fused
    /// ([`Program::fuse_multiply_add`]) when `needed`, none otherwise.
    fn fused_programs(&self, needed: bool) -> Vec<Program> {
        if !needed {
            return Vec::new();
        }
        self.functions
            .iter()
            .map(|f| f.program.fuse_multiply_add())
            .collect()
    }
}

/// The module of `plan` in `variant`: the header ([`crate::render::header`]), then
/// every item printed from `programs`, one per function of the plan (fused
/// for the fused variants), in `f32` with the single-precision sine and cosine
/// (`math.rs`) for the single-precision variants.
fn render_plan(
    plan: &Plan,
    variant: Variant,
    programs: &[&Program],
) -> Result<GeneratedModule, EmitError> {
    let Rendered {
        body,
        op_counts,
        dispatches,
    } = render(plan, programs, variant)?;
    let name = format!("{}{}", plan.name, variant.suffix());
    let header = crate::render::header::header(plan, &name, variant, &op_counts, dispatches);
    let source = format!("{header}{body}");
    Ok(GeneratedModule {
        name,
        source,
        op_counts,
        loops: plan.facts.loops.clone(),
    })
}

/// What [`render`] makes of a plan: everything of the module but its header.
struct Rendered {
    /// The formatted items.
    body: String,
    /// The operation counts of `Params::derived` and of every function.
    op_counts: Vec<(String, OpCount)>,
    /// Whether any function has an AVX copy ([`crate::render::dispatch`]).
    dispatches: bool,
}

/// The items of a module printed from `programs` (one per function of
/// `plan`); a fused `variant` adds the `fma` field to the module's
/// `OpCount` and to every `OPS_*` constant.
///
/// The functions are printed and formatted on both cores, each on its own,
/// the longest first (formatting a module's items one by one gives the
/// text formatting the whole module gives, which a test below holds it
/// to).
fn render(plan: &Plan, programs: &[&Program], variant: Variant) -> Result<Rendered, EmitError> {
    let fma = variant.fused_multiply_add;
    let derived = plan.derived.emit(fma)?;
    let mut op_counts = vec![("derived".to_owned(), plan.derived.op_count())];
    let jobs: Vec<(&crate::PlannedFunction, &Program, OpCount)> = plan
        .functions
        .iter()
        .zip(programs)
        .map(|(function, program)| {
            let mut ops = program.op_count();
            if function.shape == Shape::LimitForces {
                ops = ops + contacts::law_ops(&plan.facts.contacts);
            }
            (function, *program, ops)
        })
        .collect();
    let size = |&(_, program, _): &(_, &Program, _)| program.locals.len();
    // The AVX copies' lanes exist in `f64` (`dispatch.rs`).
    let avx2_lanes = !variant.single_precision;
    let printed =
        sharnir_cas::parallel::map_largest_first(&jobs, size, |&(function, program, ops)| {
            let emitted = crate::render::function::emit(
                function,
                program,
                ops,
                &plan.facts,
                fma,
                avx2_lanes,
            )?;
            let text = crate::print::lines::splice(&format_items(emitted.item)?, &emitted.lines);
            Ok::<(String, [bool; HELPERS.len()], bool, LanesUse), EmitError>((
                text,
                emitted.helpers,
                emitted.dispatches,
                emitted.lanes,
            ))
        });
    let mut used = [false; HELPERS.len()];
    crate::render::math::called(&derived, &mut used);
    let mut functions = String::new();
    let mut dispatches = false;
    let mut lanes = LanesUse::default();
    for ((function, _, ops), printed) in jobs.iter().zip(printed) {
        let (text, called, dispatched, reads_lanes) = printed?;
        functions.push_str(&text);
        for (u, c) in used.iter_mut().zip(called) {
            *u |= c;
        }
        dispatches |= dispatched;
        lanes = lanes.or(reads_lanes);
        op_counts.push((function.name.clone(), *ops));
    }
    // What this mechanism's functions build on, then the support code
    // every module carries alike.
    let mut tail = TokenStream::new();
    let mut support = String::new();
    if dispatches {
        support = crate::render::dispatch::items(lanes)?;
        // `QuadLanes for BuildLanes` calls the build's `sin_cos_quad`.
        if lanes.quads {
            crate::render::math::require("sin_cos_quad", &mut used);
        }
    }
    let derivatives = op_counts
        .iter()
        .find(|(name, _)| name == "forward_dynamics_derivatives")
        .map(|(_, ops)| *ops);
    if let Some(derivatives) = derivatives {
        let (items, ops) = crate::render::linearization::items(&plan.facts, derivatives, fma);
        tail.extend(items);
        op_counts.push(("linearization".to_owned(), ops));
    }
    let has = |name: &str| plan.functions.iter().any(|f| f.name == name);
    if !has("mixed_dynamics") && has("forward_dynamics") {
        tail.extend(crate::render::motion::free_motion());
    }
    if let Some(loops) = &plan.facts.loops {
        let (solves, ops) = constrained::items(loops, plan.facts.dof, &op_counts, fma);
        crate::render::math::called(&solves, &mut used);
        tail.extend(solves);
        op_counts.extend(ops);
        if op_counts
            .iter()
            .any(|(name, _)| name == "constrained_residual_derivatives")
        {
            let nc = loops.constraint_names.len();
            let (items, ops) =
                crate::render::constrained_derivatives::items(plan.facts.dof, nc, &op_counts, fma);
            tail.extend(items);
            op_counts.push(("constrained_forward_dynamics_derivatives".to_owned(), ops));
        }
        if !plan.facts.prescribed.is_empty() {
            let nc = loops.constraint_names.len();
            let (items, ops) =
                crate::render::constrained_motion::items(plan.facts.dof, nc, &op_counts, fma);
            tail.extend(items);
            op_counts.push(ops);
        }
    }
    let helpers = crate::render::math::helpers(
        &used,
        variant.single_precision,
        lanes.quads,
        variant.fused_multiply_add,
    )?;
    if !support.is_empty() && !helpers.is_empty() {
        support.push('\n');
    }
    support.push_str(&helpers);
    let preamble = crate::render::preamble::preamble(&plan.facts, variant)?;
    let head = format_items(quote! {
        #preamble
        #derived
    })?;
    let support = if support.is_empty() {
        String::new()
    } else {
        format!("\n{SUPPORT_DIVIDER}\n\n{support}")
    };
    Ok(Rendered {
        body: crate::print::layout::tidy(&format!(
            "{head}{functions}{}{support}",
            format_items(tail)?
        )),
        op_counts,
        dispatches,
    })
}

/// The comment before the support code at the end of a module: the
/// processor detection and the sine, cosine and square-root routines,
/// the same text in every module of this sharnir version that needs them,
/// so that a reader knows where the mechanism's own code ends.
const SUPPORT_DIVIDER: &str =
    "// ---- Support code, written alike into every module that needs it:\n\
    // processor detection, sines, cosines and square roots. Nothing below\n\
    // is specific to this mechanism. ----";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::outputs::Outputs;
    use crate::plan::provenance::{Provenance, Selection};
    use crate::plan::{lower, Lowering, Twins};
    use crate::vocabulary::{Argument, Facts, FunctionSpec, HeaderFacts};
    use sharnir_cas::{Coeff, Pool};
    use sharnir_mech::ParameterMode;

    /// The plan of a two-coordinate module made without a mechanism, with
    /// both twins. Its outputs are sums of products (`m·q₀·q̇₀ + m·q̇₁² − q₀/2 +
    /// sin(q₁)·q̇₀` and `q₀·q̇₁ − m·q̇₀`).
    fn tiny_plan() -> Plan {
        let mut pool = Pool::new();
        let [q0, q1, qd0, qd1, m] =
            ["q[0]", "q[1]", "qd[0]", "qd[1]", "p.m"].map(|s| pool.symbol(s));
        let a = pool.mul_all(&[m, q0, qd0]);
        let qd1_2 = pool.powi(qd1, 2);
        let b = pool.mul(m, qd1_2);
        let s1 = pool.sin(q1);
        let c = pool.mul(s1, qd0);
        let first = pool.linear(
            &[
                (a, Coeff::int(1)),
                (b, Coeff::int(1)),
                (q0, Coeff::ratio(-1, 2)),
                (c, Coeff::int(1)),
            ],
            Coeff::int(0),
        );
        let d = pool.mul(q0, qd1);
        let e = pool.mul(m, qd0);
        let second = pool.sub(d, e);
        let outputs = vec![first, second];
        let function = FunctionSpec {
            name: "inverse_dynamics".to_owned(),
            doc: "Joint forces.".to_owned(),
            arguments: vec![Argument::Position, Argument::Velocity],
            shape: Shape::JointVector,
            outputs: outputs.clone(),
        };
        let facts = Facts {
            dof: 2,
            nq: 2,
            coordinates: vec!["a".to_owned(), "b".to_owned()],
            positions: vec!["a".to_owned(), "b".to_owned()],
            quaternions: Vec::new(),
            initial_positions: vec![0.5, 0.0],
            initial_velocities: vec![0.0, -1.0],
            body_names: vec!["one".to_owned(), "two".to_owned()],
            drive_parameters: Vec::new(),
            parameters: vec![("m".to_owned(), 2.0)],
            loops: None,
            contacts: Vec::new(),
            joint_forces: false,
            detachments: Vec::new(),
            rotations: Vec::new(),
            applied_forces: false,
            prescribed: Vec::new(),
            base_parameters: None,
            branch_renamings: Vec::new(),
        };
        let header = HeaderFacts {
            source_name: "tiny.spec".to_owned(),
            source_digest: 0,
            description: None,
            followers: Vec::new(),
            independent_chosen: false,
        };
        let lowering = Lowering {
            name: "tiny".to_owned(),
            mode: ParameterMode::Runtime,
            selection: Selection::Cheapest,
            twins: Twins {
                fused_multiply_add: true,
                single_precision: true,
            },
            outputs: Outputs::ALL,
            automatic_outputs: false,
            facts,
            header,
        };
        lower(
            &mut pool,
            lowering,
            &[function],
            &|_| Provenance::Fixed,
            &mut crate::plan::cost::Costs::default(),
        )
    }

    /// The module `tiny` in `variant`.
    fn tiny(variant: Variant) -> GeneratedModule {
        tiny_plan().render(variant).expect("renders")
    }

    const FUSED: Variant = Variant {
        fused_multiply_add: true,
        single_precision: false,
    };

    #[test]
    fn plain_modules_have_no_trace_of_fusion() {
        let module = tiny(Variant::PLAIN);
        assert!(!module.source.contains("fma"), "{}", module.source);
        assert!(module.source.contains(
            "//! | function | mul | add | div | sqrt | sin | cos |\n//! |---|---:|---:|---:|---:|---:|---:|\n"
        ));
        assert!(module.op_counts.iter().all(|(_, o)| o.fma == 0));
    }

    #[test]
    fn the_fused_twin_counts_and_prints_fused_operations() {
        let module = tiny(Variant::PLAIN);
        let fused = tiny(FUSED);
        assert_eq!(fused.name, "tiny_fma");
        let (_, plain) = &module.op_counts[1];
        let (_, ops) = &fused.op_counts[1];
        // Hand count. Plain: t = m·q̇₀ is shared (1 mul); the first output
        // takes q₀ out of t·q₀ − 0.5·q₀, so it is q₀·(t − 0.5) (1 mul,
        // 1 add) + m·(q̇₁·q̇₁) (2 mul) + sin(q₁)·q̇₀ (1 mul), two more
        // additions; q₀·q̇₁ − t: 1 mul, 1 add.
        assert_eq!((plain.mul, plain.add, plain.fma), (6, 4, 0));
        // Fused: the first output is three products and nothing else: the
        // first is multiplied (1 mul, and t − 0.5 inside it), the other two
        // fused (2 fma), keeping only the inner q̇₁·q̇₁ of m·(q̇₁·q̇₁)
        // (1 mul). With t (1 mul), and the second output as it was (1 mul,
        // 1 add): −t has no free negation.
        assert_eq!((ops.mul, ops.add, ops.fma), (1 + 1 + 1 + 1, 2, 2));
        assert_eq!(ops.sin, plain.sin);
        let source = &fused.source;
        assert!(source.starts_with("//! `tiny_fma`: equations"), "{source}");
        assert!(source.contains("//! Fused multiply–add: sums of products"));
        assert!(source.contains(
            "//! | function | mul | add | div | sqrt | sin | cos | fma |\n//! |---|---:|---:|---:|---:|---:|---:|---:|\n"
        ));
        assert!(source.contains("//! | `inverse_dynamics` | 4 | 2 | 0 | 0 | 1 | 0 | 2 |\n"));
        // A function that fuses has an AVX copy whose `fma` is its lanes'
        // (the FMA instruction there): the statements' two calls, the
        // closure that routes them, the lanes' method (declared, the
        // build's calling the helper, AVX2's), the helper's definition and
        // the libm call it wraps, once.
        let body = source
            .split("fn inverse_dynamics_with_body(")
            .nth(1)
            .and_then(|rest| rest.split("\n}\n").next())
            .expect("the function's statements");
        let calls = body.matches("fma(").count() - body.matches("lanes.fma(").count();
        assert_eq!(calls, 2, "{body}");
        assert!(body.contains("let fma = |a: Real, b: Real, c: Real| lanes.fma(a, b, c);"));
        assert_eq!(
            source.matches("fma(").count(),
            2 + 1 + 4 + 1 + 1,
            "{source}"
        );
        assert_eq!(source.matches(">::fma(").count(), 1, "{source}");
        assert!(source.contains("_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c))"));
        assert!(source.contains("pub fma: u32,"));
        let file = syn::parse_file(source).expect("the twin is valid Rust");
        let consts: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Const(c) if c.ident.to_string().starts_with("OPS_") => {
                    Some(quote!(#c).to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(consts.len(), 2, "{consts:?}");
        assert!(consts.iter().all(|c| c.contains("fma :")), "{consts:?}");
        assert!(consts[0].contains("OPS_DERIVED") && consts[0].contains("fma : 0"));
    }

    #[test]
    fn every_twin_of_a_plan() {
        let plan = tiny_plan();
        let names: Vec<String> = plan
            .render_all()
            .expect("renders")
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["tiny_f32", "tiny_fma_f32", "tiny_fma", "tiny"]);
        let f32_twin = tiny(Variant {
            fused_multiply_add: true,
            single_precision: true,
        });
        assert!(f32_twin.source.contains("pub type Real = f32;"));
        assert!(f32_twin.source.contains("libm::Libm::<Real>::fma("));
        assert!(f32_twin
            .source
            .contains("//! Single precision: every value is an `f32`"));
        // The module's `libm` sine gave way to the twin's, by its `sin_cos`.
        let fused = tiny(FUSED);
        assert!(fused.source.contains("libm::Libm::<Real>::sin(x)"));
        assert!(!f32_twin.source.contains("libm::Libm::<Real>::sin("));
        assert!(f32_twin.source.contains("pub fn sin_cos(x: Real)"));
        assert!(f32_twin
            .source
            .contains("fn sin(x: Real) -> Real {\n    sin_cos(x).0"));
        assert!(!f32_twin.source.contains("fn cos(x: Real)"));
    }

    #[test]
    fn formatting_item_by_item_is_formatting_the_whole_module() {
        for variant in tiny_plan().variants() {
            let module = tiny(variant);
            let body = module
                .source
                .lines()
                .skip_while(|l| l.starts_with("//"))
                .collect::<Vec<_>>();
            // The mechanism's own code is prettyplease's; the support code
            // after the divider is the support files' text, verbatim.
            let body = body.join("\n") + "\n";
            let (own, support) = body
                .split_once(&format!("\n{SUPPORT_DIVIDER}\n\n"))
                .expect("the module calls a helper");
            let file = syn::parse_file(own).expect("the module is valid Rust");
            let whole = crate::print::layout::tidy(&prettyplease::unparse(&file));
            assert!(file.items.len() > 3, "{body}");
            assert_eq!(whole.trim_start(), own.trim_start(), "{:?}", variant);
            syn::parse_file(support).expect("the support code is valid Rust");
            use crate::support::{item, Source};
            let trigonometry = if variant.single_precision {
                item(Source::Single, "sin_cos")
            } else {
                item(Source::Double, "sin")
            };
            assert!(
                support.contains(&trigonometry.expect("written")),
                "{support}"
            );
        }
    }

    #[test]
    fn fusing_is_deterministic() {
        let a = tiny(FUSED);
        let b = tiny(FUSED);
        assert_eq!(a.source, b.source);
        assert_eq!(a.op_counts, b.op_counts);
    }
}
