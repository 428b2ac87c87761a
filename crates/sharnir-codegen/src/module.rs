//! Assembly of one self-contained generated Rust module.
//!
//! The module depends on nothing but `core` and `libm`, allocates nothing and
//! cannot panic: inputs are fixed-size arrays indexed by constants, and the
//! body of every function is straight-line arithmetic. Its header records the
//! spec it came from and the operation count of every function, and the same
//! counts are exported as `OPS_*` constants.

use crate::derived::Derived;
use crate::printer::{float_literal, Printer};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use sharnir_cas::{hoist_constants, Id, OpCount, Program};
use sharnir_mech::{Input, Mechanism, ParameterMode};

/// An argument of a generated function after `p: &Params`; each is a
/// fixed-size array read by constant indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    /// `q: &[Real; NQ]`, joint positions.
    Position,
    /// `qd: &[Real; NV]`, joint velocities.
    Velocity,
    /// `qdd: &[Real; NV]`, joint accelerations.
    Acceleration,
    /// `tau: &[Real; NV]`, joint forces.
    Force,
}

/// The Rust type a function returns, filled from its outputs in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `[Real; NV]`: one entry per velocity coordinate.
    JointVector,
    /// `[Real; NQ]`: one entry per position coordinate.
    PositionVector,
    /// `[[Real; NV]; NV]`, row-major.
    JointMatrix,
    /// `(Real, Real)`.
    Pair,
    /// `[Pose; NB]`: per body, 9 rotation entries (row-major) then 3
    /// position entries.
    Poses,
    /// `[[[Real; NV]; 6]; NB]`: per body, six rows of NV entries.
    BodyJacobians,
}

/// A function to emit: its name, arguments, doc text and outputs.
#[derive(Clone, Debug)]
pub struct FunctionSpec {
    /// Rust name, e.g. `inverse_dynamics`.
    pub name: String,
    /// Doc comment for the emitted function.
    pub doc: String,
    /// Arguments after `p: &Params`, in order.
    pub arguments: Vec<Argument>,
    /// The returned type.
    pub shape: Shape,
    /// Every entry of the result in order (row-major for matrices), as
    /// expressions in `mechanism.pool`.
    pub outputs: Vec<Id>,
}

/// The text of a generated module and what it costs to run.
#[derive(Clone, Debug)]
pub struct GeneratedModule {
    /// Module name (the file is `<name>.rs`).
    pub name: String,
    /// Formatted Rust source.
    pub source: String,
    /// Operation count of every function, in emission order.
    pub op_counts: Vec<(String, OpCount)>,
}

/// Why a module could not be emitted.
#[derive(Debug)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot emit module: {}", self.0)
    }
}

impl std::error::Error for EmitError {}

/// Emits the module `module_name` for `mechanism` with the given functions.
///
/// Constant groups of runtime parameters are hoisted out of every function
/// first (shared by all of them) into the `Derived` constants that
/// `Params::derived` computes once; see [`crate::derived`].
pub fn emit_module(
    mechanism: &mut Mechanism,
    module_name: &str,
    functions: &[FunctionSpec],
) -> Result<GeneratedModule, EmitError> {
    let roots: Vec<Id> = functions
        .iter()
        .flat_map(|f| f.outputs.iter().copied())
        .collect();
    let is_parameter = |symbol: &str| matches!(Input::parse(symbol), Some(Input::Parameter(_)));
    let name = |k: usize| Input::Derived(k).symbol_name();
    let hoisted = hoist_constants(&mut mechanism.pool, &roots, &is_parameter, &name);
    let derived = Derived::lower(&mechanism.pool, &hoisted.definitions);
    let mut items = vec![derived.emit()];
    let mut op_counts = vec![("derived".to_owned(), derived.op_count())];
    let mut rest = hoisted.roots.as_slice();
    for function in functions {
        let (outputs, tail) = rest.split_at(function.outputs.len().min(rest.len()));
        rest = tail;
        let program = Program::lower(&mechanism.pool, outputs);
        let ops = program.op_count();
        items.push(emit_function(function, &program, ops, mechanism.dof()));
        op_counts.push((function.name.clone(), ops));
    }
    let preamble = preamble(mechanism);
    let tokens = quote! {
        #preamble
        #(#items)*
    };
    let file: syn::File = syn::parse2(tokens)
        .map_err(|e| EmitError(format!("generated tokens do not parse: {e}")))?;
    let body = prettyplease::unparse(&file);
    let source = format!("{}{body}", header(mechanism, module_name, &op_counts));
    Ok(GeneratedModule {
        name: module_name.to_owned(),
        source,
        op_counts,
    })
}

/// The `//!` header: provenance, conventions and the operation-count table.
fn header(mechanism: &Mechanism, module_name: &str, op_counts: &[(String, OpCount)]) -> String {
    let mut h = String::new();
    h.push_str(&format!(
        "//! `{module_name}`: equations of motion generated by sharnir from `{}`.\n",
        mechanism.source_name
    ));
    h.push_str("//! Do not edit: regenerate with `cargo xtask gen`.\n");
    if let Some(description) = &mechanism.description {
        h.push_str("//!\n");
        for line in description.lines() {
            h.push_str(&format!("//! {line}\n"));
        }
    }
    h.push_str("//!\n");
    h.push_str(match mechanism.mode {
        ParameterMode::Runtime => "//! Parameters are read at run time from `Params`.\n",
        ParameterMode::Folded => {
            "//! Parameter values are folded into constants (`--fold`); `Params` is empty.\n"
        }
    });
    h.push_str(
        "//! Self-contained: needs only `core` and the `libm` crate; no allocation, no panics.\n",
    );
    h.push_str("//!\n//! Coordinates, in order: ");
    h.push_str(
        &mechanism
            .coordinates
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    h.push('.');
    let followers: Vec<String> = mechanism
        .bodies
        .iter()
        .filter_map(|b| {
            b.coupling
                .as_ref()
                .map(|c| format!("`{}` follows `{}`", b.joint, c.leader))
        })
        .collect();
    if !followers.is_empty() {
        h.push_str(" Coupled joints (no coordinate of their own; their joint forces act on the\n//! leader's): ");
        h.push_str(&followers.join(", "));
        h.push('.');
    }
    h.push_str("\n//!\n//! | function | mul | add | div | sqrt | sin | cos |\n//! |---|---:|---:|---:|---:|---:|---:|\n");
    for (name, o) in op_counts {
        h.push_str(&format!(
            "//! | `{name}` | {} | {} | {} | {} | {} | {} |\n",
            o.mul, o.add, o.div, o.sqrt, o.sin, o.cos
        ));
    }
    h.push('\n');
    h
}

/// Constants, `OpCount` and `Params`.
fn preamble(mechanism: &Mechanism) -> TokenStream {
    let n = Literal::usize_unsuffixed(mechanism.dof());
    let nq = Literal::usize_unsuffixed(mechanism.nq());
    let names = &mechanism.coordinates;
    let positions = &mechanism.positions;
    let body_names: Vec<&str> = mechanism
        .spec_bodies()
        .map(|(_, b)| b.name.as_str())
        .collect();
    let nb = Literal::usize_unsuffixed(body_names.len());
    let fields: Vec<Ident> = mechanism
        .parameters
        .iter()
        .map(|p| Ident::new(&p.name, Span::call_site()))
        .collect();
    let defaults: Vec<TokenStream> = mechanism
        .parameters
        .iter()
        .map(|p| float_literal(p.default))
        .collect();
    let field_docs: Vec<String> = mechanism
        .parameters
        .iter()
        .map(|p| format!(" `{}` (spec value {}).", p.name, p.default))
        .collect();
    quote! {
        #![allow(unused_variables, unused_parens, clippy::all, clippy::pedantic)]

        /// The floating-point type of every input, output and parameter:
        /// change it to `f32` (or generate with `single_precision = true` in
        /// the spec) for single precision.
        pub type Real = f64;

        /// Number of position coordinates `q` (larger than `NV` when a
        /// spherical or free joint stores a quaternion).
        pub const NQ: usize = #nq;
        /// Number of velocity coordinates `qd` (and of accelerations and forces).
        pub const NV: usize = #n;
        /// Velocity coordinate names, in the order of `qd`, `qdd`, `tau` and
        /// the outputs.
        pub const COORDINATE_NAMES: [&str; NV] = [#(#names),*];
        /// Position coordinate names, in the order of `q`; the same as
        /// `COORDINATE_NAMES` unless a joint stores a quaternion.
        pub const POSITION_NAMES: [&str; NQ] = [#(#positions),*];
        /// Number of moving bodies.
        pub const NB: usize = #nb;
        /// Body names in the order of `body_poses` and `body_jacobians`:
        /// every body after its parent.
        pub const BODY_NAMES: [&str; NB] = [#(#body_names),*];

        /// Where a body is: `p_ground = position + rotation · p_body`.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Pose {
            /// Rotation from body to ground coordinates, row-major.
            pub rotation: [[Real; 3]; 3],
            /// Body-frame origin in ground coordinates.
            pub position: [Real; 3],
        }

        /// Arithmetic operations of one generated function (subtractions and
        /// negations count as additions).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct OpCount {
            /// Multiplications.
            pub mul: u32,
            /// Additions, subtractions and negations.
            pub add: u32,
            /// Divisions.
            pub div: u32,
            /// Square roots.
            pub sqrt: u32,
            /// Sines.
            pub sin: u32,
            /// Cosines.
            pub cos: u32,
        }

        /// Runtime parameters of the mechanism; `Default` gives the spec's values.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Params {
            #(#[doc = #field_docs] pub #fields: Real,)*
        }

        impl Default for Params {
            fn default() -> Self {
                Params { #(#fields: #defaults,)* }
            }
        }
    }
}

/// One `OPS_*` constant and one function; `dof` is the row length of
/// matrix results.
fn emit_function(
    function: &FunctionSpec,
    program: &Program,
    ops: OpCount,
    dof: usize,
) -> TokenStream {
    let locals: Vec<String> = program.locals.iter().map(|l| l.name.clone()).collect();
    let printer = Printer { locals: &locals };
    let statements = program.locals.iter().map(|local| {
        let name = Ident::new(&local.name, Span::call_site());
        let value = printer.expr(&local.value);
        quote!(let #name = #value;)
    });
    let outputs: Vec<TokenStream> = program.outputs.iter().map(|o| printer.expr(o)).collect();
    let name = Ident::new(&function.name, Span::call_site());
    let ops_name = Ident::new(
        &format!("OPS_{}", function.name.to_uppercase()),
        Span::call_site(),
    );
    let doc = doc_lines(&function.doc);
    let ops_doc = format!(
        " Operation count of [`{}_with`] (and of [`{}`] after [`OPS_DERIVED`]).",
        function.name, function.name
    );
    let [mul, add, div, sqrt, sin, cos] =
        [ops.mul, ops.add, ops.div, ops.sqrt, ops.sin, ops.cos].map(Literal::u32_unsuffixed);
    let arguments: Vec<TokenStream> = function
        .arguments
        .iter()
        .map(|argument| match argument {
            Argument::Position => quote!(q: &[Real; NQ]),
            Argument::Velocity => quote!(qd: &[Real; NV]),
            Argument::Acceleration => quote!(qdd: &[Real; NV]),
            Argument::Force => quote!(tau: &[Real; NV]),
        })
        .collect();
    let argument_names = function.arguments.iter().map(|argument| match argument {
        Argument::Position => quote!(q),
        Argument::Velocity => quote!(qd),
        Argument::Acceleration => quote!(qdd),
        Argument::Force => quote!(tau),
    });
    let with_name = Ident::new(&format!("{}_with", function.name), Span::call_site());
    let with_doc = format!(" [`{}_with`]; its cost is [`{ops_name}`].", function.name);
    let with_summary = format!(
        " [`{}`] with the parameter groups already computed by [`Params::derived`].",
        function.name
    );
    let (returns, value) = match function.shape {
        Shape::JointVector => (quote!([Real; NV]), quote!([#(#outputs),*])),
        Shape::PositionVector => (quote!([Real; NQ]), quote!([#(#outputs),*])),
        Shape::JointMatrix => {
            let rows = outputs.chunks(dof.max(1)).map(|row| quote!([#(#row),*]));
            (quote!([[Real; NV]; NV]), quote!([#(#rows),*]))
        }
        Shape::Pair => (quote!((Real, Real)), quote!((#(#outputs),*))),
        Shape::Poses => {
            let poses = outputs.chunks(12).map(|pose| {
                let (rotation, position) = pose.split_at(9.min(pose.len()));
                let rows = rotation.chunks(3).map(|row| quote!([#(#row),*]));
                quote!(Pose { rotation: [#(#rows),*], position: [#(#position),*] })
            });
            (quote!([Pose; NB]), quote!([#(#poses),*]))
        }
        Shape::BodyJacobians => {
            let bodies = outputs.chunks((6 * dof).max(1)).map(|body| {
                let rows = body.chunks(dof.max(1)).map(|row| quote!([#(#row),*]));
                quote!([#(#rows),*])
            });
            (quote!([[[Real; NV]; 6]; NB]), quote!([#(#bodies),*]))
        }
    };
    quote! {
        #[doc = #ops_doc]
        pub const #ops_name: OpCount = OpCount { mul: #mul, add: #add, div: #div, sqrt: #sqrt, sin: #sin, cos: #cos };

        #doc
        ///
        /// Computes the parameter groups first; when the parameters do not
        /// change between calls, compute `p.derived()` once and call
        #[doc = #with_doc]
        pub fn #name(p: &Params, #(#arguments),*) -> #returns {
            #with_name(&p.derived(), #(#argument_names),*)
        }

        #[doc = #with_summary]
        pub fn #with_name(d: &Derived, #(#arguments),*) -> #returns {
            let p = &d.params;
            #(#statements)*
            #value
        }
    }
}

/// One `#[doc]` attribute per line, so prettyplease prints `///` comments
/// rather than a `/** */` block.
fn doc_lines(text: &str) -> TokenStream {
    let lines = text.lines();
    quote!(#(#[doc = #lines])*)
}

/// The single-precision twin of a module: the same code with `Real = f32`,
/// named `<name>_f32`, for targets whose floating-point unit is 32-bit only.
/// The operation counts are the same; the accuracy is about 1e-6 relative
/// instead of 1e-15.
pub fn single_precision(module: &GeneratedModule) -> GeneratedModule {
    let name = format!("{}_f32", module.name);
    let source = module
        .source
        .replacen("pub type Real = f64;", "pub type Real = f32;", 1)
        .replacen(
            &format!("//! `{}`:", module.name),
            &format!("//! `{name}`:"),
            1,
        )
        .replacen(
            "//! Self-contained:",
            "//! Single precision: every value is an `f32`.\n//! Self-contained:",
            1,
        );
    GeneratedModule {
        name,
        source,
        op_counts: module.op_counts.clone(),
    }
}
