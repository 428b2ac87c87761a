//! One generated function: its `OPS_*` constant, the function on
//! `Params`, its `_with` twin on `Derived`, and, for a program too long for
//! the compiler to optimise in time linear in its size, the parts it is
//! split into (their statements: [`crate::render::body`]).

use crate::error::EmitError;
use crate::plan::PlannedFunction;
use crate::print::lines::{Line, Lines};
use crate::print::printer::op_count_literal;
use crate::print::tokens::Usage;
use crate::render::body::{body, Body, Quads};
use crate::render::dispatch::{LanesUse, Parameter};
use crate::render::lanes::pair_branches;
use crate::render::result::{places, result_type, result_value, zero};
use crate::vocabulary::{Argument, Facts, Shape};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use sharnir_cas::{OpCount, Program};

/// The variable an argument is passed in.
fn argument_name(argument: Argument) -> &'static str {
    match argument {
        Argument::Position => "q",
        Argument::Velocity => "qd",
        Argument::Acceleration => "qdd",
        Argument::Force => "tau",
        Argument::Time => "t",
        Argument::Multipliers => "lambda",
        Argument::BaseParameters => "beta",
    }
}

/// The type of an argument.
fn argument_type(argument: Argument) -> TokenStream {
    match argument {
        Argument::Position => quote!(&[Real; NQ]),
        Argument::Velocity | Argument::Acceleration | Argument::Force => quote!(&[Real; NV]),
        Argument::Time => quote!(Real),
        Argument::Multipliers => quote!(&[Real; NC]),
        Argument::BaseParameters => quote!(&[Real; NBP]),
    }
}

/// How a function taking `function`'s arguments and running `body` is
/// declared: `d: &Derived` and every argument, each marked read or not
/// (an unread one is declared `_q`), and `let p = &d.params;` where it
/// reads the parameters — so that the module needs no
/// `allow(unused_variables)`; `usage` is the body's, asked about
/// [`USED_NAMES`].
fn signature(function: &PlannedFunction, usage: &Usage) -> (Vec<Parameter>, TokenStream) {
    let parameters = if usage.reads("p") {
        quote!(let p = &d.params;)
    } else {
        TokenStream::new()
    };
    let derived = Parameter {
        name: "d".to_owned(),
        ty: quote!(&Derived),
        read: usage.reads("d") || !parameters.is_empty(),
    };
    (
        std::iter::once(derived)
            .chain(arguments(function, |name| usage.reads(name)))
            .collect(),
        parameters,
    )
}

/// `function`'s arguments as parameters, each marked as `read` says.
fn arguments<'a>(
    function: &'a PlannedFunction,
    read: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = Parameter> + 'a {
    function.arguments.iter().map(move |&argument| Parameter {
        name: argument_name(argument).to_owned(),
        ty: argument_type(argument),
        read: read(argument_name(argument)),
    })
}

/// The names [`signature`] and [`crate::render::dispatch`] ask about: every
/// argument's, `p`, `d`, `lanes` and the fused twins' `fma`.
const SIGNATURE_NAMES: [&str; 11] = [
    "q", "qd", "qdd", "tau", "t", "lambda", "beta", "p", "d", "lanes", "fma",
];

/// The names a function's body is walked for, once: [`SIGNATURE_NAMES`]
/// and the module's helpers ([`crate::render::math::HELPERS`]).
const USED_NAMES: [&str; SIGNATURE_NAMES.len() + crate::render::math::HELPERS.len()] = {
    let mut names = [""; SIGNATURE_NAMES.len() + crate::render::math::HELPERS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = if i < SIGNATURE_NAMES.len() {
            SIGNATURE_NAMES[i]
        } else {
            crate::render::math::HELPERS[i - SIGNATURE_NAMES.len()]
        };
        i += 1;
    }
    names
};

/// One function of a module, as [`emit`] makes it.
pub(crate) struct Emitted {
    /// Its `OPS_*` constant and the function (and its parts), with a
    /// marker statement for each text of `lines`.
    pub(crate) item: TokenStream,
    /// The module's helpers it calls, flagged in the order of
    /// [`crate::render::math::HELPERS`].
    pub(crate) helpers: [bool; crate::render::math::HELPERS.len()],
    /// Whether it has an AVX copy ([`crate::render::dispatch`]), which needs the
    /// module's `avx` items.
    pub(crate) dispatches: bool,
    /// What its statements take from their `lanes` ([`Quads::Lanes`]),
    /// which needs the module's `Lanes` items.
    pub(crate) lanes: LanesUse,
    /// Its runs of statements as text ([`crate::print::lines`]), for
    /// [`crate::print::lines::splice`] to put in place of their markers once the
    /// item is formatted.
    pub(crate) lines: Vec<String>,
}

/// One `OPS_*` constant and one function; `dof` is the row length of
/// matrix results; `fma` gives the constant its `fma` field;
/// `avx2_lanes`, the AVX copy of a function computes four angles' sines
/// and cosines by the AVX2 routine and fused multiply–adds by the FMA
/// instruction (the `f64` modules: the `f32` twins have no such routines),
/// so that every function that fuses gets a copy, whatever its length.
pub(crate) fn emit(
    function: &PlannedFunction,
    program: &Program,
    ops: OpCount,
    facts: &Facts,
    fma: bool,
    avx2_lanes: bool,
) -> Result<Emitted, EmitError> {
    let dof = facts.dof;
    let in_function = |error: EmitError| EmitError::InFunction {
        function: function.name.clone(),
        error: Box::new(error),
    };
    let places = places(function.shape, dof, program.outputs.len());
    let dispatch = crate::render::dispatch::dispatches(ops, avx2_lanes);
    let quads = if dispatch && avx2_lanes {
        Quads::Lanes
    } else {
        Quads::Helper
    };
    // What a body (the function's, a part's) takes from its lanes.
    let uses = |usage: &Usage| LanesUse {
        quads: usage.reads("lanes"),
        fma: quads == Quads::Lanes && usage.calls("fma"),
    };
    // Two isomorphic branches computed in the lanes of a `Pair`: `f64`
    // modules that do not fuse, every function but the regressors.
    let lanes = (avx2_lanes && !fma && !regressor(function.shape))
        .then(|| pair_branches(program, &facts.branch_renamings))
        .flatten();
    let printed = lanes.as_ref().map_or(program, |l| &l.program);
    let Body {
        mut statements,
        outputs,
        parts,
    } = body(printed, places.as_deref(), quads, lanes.as_ref()).map_err(in_function)?;
    let returns = result_type(function.shape);
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
    let ops_literal = op_count_literal(ops, fma);
    let arguments_typed: Vec<TokenStream> =
        arguments(function, |_| true).map(|a| a.passed()).collect();
    let with_name = Ident::new(&format!("{}_with", function.name), Span::call_site());
    let with_doc = format!(" [`{}_with`]; its cost is [`{ops_name}`].", function.name);
    let with_summary = format!(
        " [`{}`] with the parameter groups already computed by [`Params::derived`].",
        function.name
    );
    let passed: Vec<Ident> = arguments(function, |_| true).map(|a| a.ident()).collect();
    // A split function's parts, or a long function's statements, write the
    // outputs into `out` themselves.
    let (start, out, value) = match &outputs {
        Some(outputs) => (
            TokenStream::new(),
            TokenStream::new(),
            result_value(function.shape, dof, outputs, &facts.contacts),
        ),
        None => {
            let zero = zero(function.shape);
            (
                quote!(let mut out: #returns = #zero;),
                quote!(&mut out),
                quote!(out),
            )
        }
    };
    let calls = (0..parts.len()).map(|k| {
        let part_name = Ident::new(&format!("{}_part{k}", function.name), Span::call_site());
        quote!(#part_name(d, #(#passed,)* &mut live, #out);)
    });
    // Written by the statements themselves, `out` is declared before them.
    let start = if parts.is_empty() && outputs.is_none() {
        statements.insert(0, Line::Tokens(start));
        TokenStream::new()
    } else {
        start
    };
    let mut lines = Lines::default();
    let mut usage = Usage::new(&USED_NAMES);
    let statements = lines.run(statements, &mut usage)?;
    let rest = quote!(#start #(#calls)* #value);
    usage.add(&rest);
    let body = quote!(#statements #rest);
    let mut helpers = [false; crate::render::math::HELPERS.len()];
    crate::render::math::called_in(&usage, &mut helpers);
    let (with_parameters, parameters) = signature(function, &usage);
    // A split function dispatches in each part; its own body only calls them.
    let split = !parts.is_empty();
    let mut lanes = uses(&usage);
    let mut split_parts = Vec::with_capacity(parts.len());
    for (k, part) in parts.into_iter().enumerate() {
        let part_name = Ident::new(&format!("{}_part{k}", function.name), Span::call_site());
        let mut usage = Usage::new(&USED_NAMES);
        let statements = lines.run(part.statements, &mut usage)?;
        crate::render::math::called_in(&usage, &mut helpers);
        lanes = lanes.or(uses(&usage));
        let (mut part_parameters, parameters) = signature(function, &usage);
        let size = Literal::usize_unsuffixed(part.live);
        part_parameters.push(Parameter {
            name: "live".to_owned(),
            ty: quote!(&mut [Real; #size]),
            read: true,
        });
        if outputs.is_none() {
            part_parameters.push(Parameter {
                name: "out".to_owned(),
                ty: quote!(&mut #returns),
                read: part.writes_outputs,
            });
        }
        split_parts.push(crate::render::dispatch::function(
            crate::render::dispatch::Function {
                name: &part_name,
                outer: quote!(#[inline(never)]),
                visibility: TokenStream::new(),
                parameters: part_parameters,
                returns: TokenStream::new(),
                body: quote!(#parameters #statements),
                lanes: uses(&usage),
            },
            dispatch,
        ));
    }
    let with_function = crate::render::dispatch::function(
        crate::render::dispatch::Function {
            name: &with_name,
            outer: quote!(#[doc = #with_summary]),
            visibility: quote!(pub),
            parameters: with_parameters,
            returns: quote!(-> #returns),
            body: quote!(#parameters #body),
            lanes: uses(&usage),
        },
        dispatch && !split,
    );
    let item = quote! {
        #[doc = #ops_doc]
        pub const #ops_name: OpCount = #ops_literal;

        #doc
        ///
        /// Computes the parameter groups first; when the parameters do not
        /// change between calls, compute `p.derived()` once and call
        #[doc = #with_doc]
        pub fn #name(p: &Params, #(#arguments_typed),*) -> #returns {
            #with_name(&p.derived(), #(#passed),*)
        }

        #with_function

        #(#split_parts)*
    };
    Ok(Emitted {
        item,
        helpers,
        dispatches: dispatch,
        lanes,
        lines: lines.finish()?,
    })
}

/// One `#[doc]` attribute per line, so prettyplease prints `///` comments
/// rather than a `/** */` block, each with the space after `///` that
/// rustfmt and every hand-written comment have.
fn doc_lines(text: &str) -> TokenStream {
    let lines = text.lines().map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    quote!(#(#[doc = #lines])*)
}

/// Whether a function of this shape is a regressor, which lanes do not
/// speed up: the minimal regressor of `solo12_fixed` (1 104 outputs, most
/// of them written as soon as computed) ran 1.5 times slower with them in
/// its AVX copy (1.06 times faster in the SSE2 build).
fn regressor(shape: Shape) -> bool {
    matches!(
        shape,
        Shape::Regressor | Shape::DriveRegressor | Shape::BaseRegressor
    )
}
