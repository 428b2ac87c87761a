//! A second, AVX2-compiled copy of each long function for x86-64 builds
//! that do not enable AVX2 themselves, chosen at run time.
//!
//! A build for rustc's default x86-64 target may use SSE2 and nothing
//! newer, and SSE2 arithmetic overwrites one of its operands: every
//! operand that lives on is first copied (`movapd`). The generated
//! functions are long runs of straight-line code in which most values are
//! read several times, so a third of their instructions are such copies
//! and the code outgrows the instruction cache (Talos's mass matrix:
//! 10 000 instructions, 64 kB, for 3 500 operations). AVX has the same
//! scalar operations in a three-operand (VEX) encoding without the
//! copies; the same statements compiled for it are a fifth smaller and a
//! fifth faster on the long functions. AVX2 adds the four-lane integer
//! operations of `sin_cos_quad_avx2`, so that the copy computes its
//! coordinates' sines and cosines four at a time where the plain code
//! does two: another 6 to 15 % (`docs/performance.md`, "Run-time
//! dispatch"). FMA turns the fused twins' `fma` calls (`libm`, a call
//! each) into one instruction each.
//!
//! So a function with at least [`DISPATCH_FROM`] operations, and every
//! function of a fused twin that fuses, is emitted as three: its
//! statements in a private `#[inline(always)]` function (`<name>_body`),
//! compiled into a private `#[target_feature(enable = "avx,avx2,fma")]`
//! copy (`<name>_avx`), and the public function, which calls the copy
//! when the processor runs AVX, AVX2 and FMA and the operating system
//! saves their registers (asked once and remembered, see [`items`]), and
//! the plain statements otherwise. What the statements compute by
//! instruction set — four angles' sines and cosines at once
//! ([`crate::render::body::Quads::Lanes`]), fused multiply–adds — they take from
//! their `lanes` parameter ([`LanesUse`]), through the traits `QuadLanes`
//! and `FmaLanes`: `BuildLanes`, the build's `sin_cos_quad` and `fma`, in
//! the public function; `avx::Avx2`, the AVX2 routine and the FMA
//! instruction, in the copy (their text is in `crate::support`). That value is also the
//! proof that the copy may run: only the detection makes one. The two
//! copies compute the same IEEE operations in the same order (Rust never
//! fuses or reassociates them, the AVX2 routine's lanes are
//! `sin_cos_pair`'s bit for bit, and a fused multiply–add has one correct
//! result), so their results are the same: the choice changes the speed,
//! never a number.
//!
//! The copy and the check exist only where they can help: x86-64 with
//! AVX2 not already enabled by the build (with `-C target-cpu=native` on
//! an AVX2 machine the function is the plain one), and the copy never runs
//! in SGX enclaves, where `cpuid` is not allowed. Everywhere else — the
//! microcontrollers among them — the public function is the statements.

use crate::error::EmitError;
use crate::support::{self, Source};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use sharnir_cas::OpCount;

/// The fewest operations (multiplications, additions, divisions, square
/// roots, fused multiply–adds) for which a function gets its AVX copy.
/// Below it the copy gains little (Panda's mass matrix, about 420
/// operations, 6 %) and would only lengthen the module and its build.
pub(crate) const DISPATCH_FROM: u32 = 256;

/// Whether a function of `ops` gets its AVX copy: for its length, or,
/// where the copy's lanes have the FMA instruction (`avx2_lanes`: the
/// `f64` modules), because it fuses — its `fma` is a `libm` call in the
/// plain statements and one instruction in the copy.
pub(crate) fn dispatches(ops: OpCount, avx2_lanes: bool) -> bool {
    ops.mul + ops.add + ops.div + ops.sqrt + ops.fma >= DISPATCH_FROM || (avx2_lanes && ops.fma > 0)
}

/// The `cfg` predicate of the builds where the AVX copy exists: x86-64
/// without AVX2 enabled at compile time.
fn avx_missing() -> TokenStream {
    quote!(all(target_arch = "x86_64", not(target_feature = "avx2")))
}

/// One parameter of a generated function.
pub(crate) struct Parameter {
    /// Its name (`q`, `d`, `live`, …).
    pub(crate) name: String,
    /// Its type.
    pub(crate) ty: TokenStream,
    /// Whether the statements read it; a parameter they do not read is
    /// declared `_q`, so that the module needs no `allow(unused_variables)`.
    pub(crate) read: bool,
}

impl Parameter {
    /// `name: ty`, as the statements declare it (`_name` unread).
    fn declared(&self) -> TokenStream {
        let ty = &self.ty;
        let name = if self.read {
            Ident::new(&self.name, Span::call_site())
        } else {
            Ident::new(&format!("_{}", self.name), Span::call_site())
        };
        quote!(#name: #ty)
    }

    /// `name: ty`, as a function that passes it on declares it.
    pub(crate) fn passed(&self) -> TokenStream {
        let (name, ty) = (self.ident(), &self.ty);
        quote!(#name: #ty)
    }

    /// The name, as a caller passes it.
    pub(crate) fn ident(&self) -> Ident {
        Ident::new(&self.name, Span::call_site())
    }
}

/// What a function's statements take from their `lanes` parameter: the
/// build's routines in the public function, AVX2's and FMA's in its copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LanesUse {
    /// `lanes.sin_cos_quad(…)`: four angles' sines and cosines at once
    /// ([`crate::render::body::Quads::Lanes`]).
    pub(crate) quads: bool,
    /// Their fused multiply–adds, `fma(…)`: the module's `fma` helper
    /// (`libm`, a call each) in the public function, one FMA instruction in
    /// the copy.
    pub(crate) fma: bool,
}

impl LanesUse {
    /// Whether the statements take anything from their lanes.
    fn any(self) -> bool {
        self.quads || self.fma
    }

    /// What either takes.
    pub(crate) fn or(self, other: LanesUse) -> LanesUse {
        LanesUse {
            quads: self.quads || other.quads,
            fma: self.fma || other.fma,
        }
    }
}

/// The parts of a function that [`function`] arranges.
pub(crate) struct Function<'a> {
    /// The public (or, for a part of a split function, private) name.
    pub(crate) name: &'a Ident,
    /// Attributes and documentation of the public function.
    pub(crate) outer: TokenStream,
    /// `pub` or nothing.
    pub(crate) visibility: TokenStream,
    /// Every parameter, in order.
    pub(crate) parameters: Vec<Parameter>,
    /// `-> T`, or nothing.
    pub(crate) returns: TokenStream,
    /// The statements.
    pub(crate) body: TokenStream,
    /// What the statements take from their `lanes`.
    pub(crate) lanes: LanesUse,
}

/// `function` as one function, or, `with_copy`, as its public function,
/// its statements and their AVX copy.
pub(crate) fn function(function: Function<'_>, with_copy: bool) -> TokenStream {
    if with_copy {
        return dispatched(function);
    }
    let Function {
        name,
        outer,
        visibility,
        parameters,
        returns,
        body,
        lanes: _,
    } = function;
    let allow = many_arguments(parameters.len());
    let parameters = parameters.iter().map(Parameter::declared);
    quote! {
        #outer
        #allow
        #visibility fn #name(#(#parameters),*) #returns {
            #body
        }
    }
}

/// Clippy's allowance for a function of more than seven arguments (a part
/// of a split function reads the state, the multipliers, `live` and `out`,
/// and its copies also their lanes), on that function alone.
fn many_arguments(count: usize) -> TokenStream {
    if count > 7 {
        quote!(#[allow(clippy::too_many_arguments)])
    } else {
        TokenStream::new()
    }
}

/// `function` as its public function, its statements and their AVX copy.
fn dispatched(function: Function<'_>) -> TokenStream {
    let Function {
        name,
        outer,
        visibility,
        parameters,
        returns,
        body,
        lanes,
    } = function;
    let allow = many_arguments(parameters.len());
    let allow_with_lanes = many_arguments(parameters.len() + 1);
    let passed_parameters: Vec<TokenStream> = parameters.iter().map(Parameter::passed).collect();
    let names: Vec<Ident> = parameters.iter().map(Parameter::ident).collect();
    let parameters = parameters.iter().map(Parameter::declared);
    let avx_missing = avx_missing();
    let avx_name = Ident::new(&format!("{name}_avx"), Span::call_site());
    let body_name = Ident::new(&format!("{name}_body"), Span::call_site());
    // The lanes the statements compute four angles in, or fuse by, where
    // they do; their `fma` calls the lanes' (the closure shadows the
    // module's helper).
    let fma = if lanes.fma {
        quote!(let fma = |a: Real, b: Real, c: Real| lanes.fma(a, b, c);)
    } else {
        TokenStream::new()
    };
    let bound = match (lanes.quads, lanes.fma) {
        (true, true) => quote!(QuadLanes + FmaLanes),
        (true, false) => quote!(QuadLanes),
        _ => quote!(FmaLanes),
    };
    let (lanes_parameter, build_lanes, copy_lanes, avx2) = if lanes.any() {
        (
            quote!(lanes: impl #bound,),
            quote!(BuildLanes,),
            quote!(avx2,),
            quote!(avx2),
        )
    } else {
        (
            TokenStream::new(),
            TokenStream::new(),
            TokenStream::new(),
            quote!(_avx2),
        )
    };
    let avx_doc = [
        format!(" [`{name}`]'s statements compiled for AVX, AVX2 and FMA. Called only"),
        " with an `avx::Avx2`, which `avx::usable` makes only where the".to_owned(),
        " processor runs all three and the operating system saves their registers:".to_owned(),
        " what the `unsafe` of `target_feature` asks.".to_owned(),
    ];
    let body_doc = [
        format!(" The statements of [`{name}`], inlined into it and into its AVX"),
        " copy, so that each is compiled for its own instruction set.".to_owned(),
    ];
    // Told where users read: on the public functions, not on the parts.
    let note = if visibility.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            ///
            /// Has an AVX copy, which x86-64 builds without AVX2 call where the
            /// processor runs it (see [`avx_copies`]).
        }
    };
    quote! {
        #outer
        #note
        #allow
        #visibility fn #name(#(#passed_parameters),*) #returns {
            #[cfg(#avx_missing)]
            if let Some(avx2) = avx::usable() {
                return unsafe { #avx_name(avx2, #(#names),*) };
            }
            #body_name(#build_lanes #(#names),*)
        }

        #(#[doc = #avx_doc])*
        #[cfg(#avx_missing)]
        #[target_feature(enable = "avx,avx2,fma")]
        #allow_with_lanes
        unsafe fn #avx_name(#avx2: avx::Avx2, #(#passed_parameters),*) #returns {
            #body_name(#copy_lanes #(#names),*)
        }

        #(#[doc = #body_doc])*
        #[inline(always)]
        #allow_with_lanes
        fn #body_name(#lanes_parameter #(#parameters),*) #returns {
            #fma
            #body
        }
    }
}

/// The support code behind every dispatch of a module
/// (`crate::support`'s `double/dispatch.rs`): `avx_copies` and
/// `set_avx_copies` and the private `avx` module that asks the processor;
/// where some function's statements take anything from their `lanes`, also
/// `BuildLanes` and the lanes traits they take (`QuadLanes`, `FmaLanes`),
/// each with its two implementations.
pub(crate) fn items(lanes: LanesUse) -> Result<String, EmitError> {
    let mut names = vec!["avx_copies", "set_avx_copies"];
    if lanes.any() {
        names.push("BuildLanes");
    }
    if lanes.quads {
        names.extend([
            "QuadLanes",
            "QuadLanes for BuildLanes",
            "QuadLanes for Avx2",
        ]);
    }
    if lanes.fma {
        names.extend(["FmaLanes", "FmaLanes for BuildLanes", "FmaLanes for Avx2"]);
    }
    names.push("avx");
    let items = names
        .into_iter()
        .map(|name| support::item(Source::Dispatch, name))
        .collect::<Result<Vec<String>, EmitError>>()?;
    Ok(items.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(name: &str, ty: TokenStream, read: bool) -> Parameter {
        Parameter {
            name: name.to_owned(),
            ty,
            read,
        }
    }

    fn ops(mul: u32, add: u32) -> OpCount {
        OpCount {
            mul,
            add,
            ..OpCount::default()
        }
    }

    #[test]
    fn only_functions_from_the_threshold_on_get_a_copy() {
        assert!(!dispatches(
            ops(DISPATCH_FROM / 2, DISPATCH_FROM / 2 - 1),
            true
        ));
        assert!(dispatches(ops(DISPATCH_FROM / 2, DISPATCH_FROM / 2), false));
        let trigonometry = OpCount {
            sin: 1000,
            cos: 1000,
            ..OpCount::default()
        };
        assert!(!dispatches(trigonometry, true), "only arithmetic counts");
        // One fused multiply–add is enough where the copy has the instruction.
        let fused = OpCount {
            fma: 1,
            ..OpCount::default()
        };
        assert!(dispatches(fused, true));
        assert!(!dispatches(fused, false));
    }

    #[test]
    fn the_public_function_chooses_between_the_copy_and_the_statements() {
        let name = Ident::new("mass_matrix_with", Span::call_site());
        let items = dispatched(Function {
            name: &name,
            outer: quote!(#[doc = " Summary."]),
            visibility: quote!(pub),
            parameters: vec![
                parameter("d", quote!(&Derived), false),
                parameter("q", quote!(&[Real; NQ]), true),
            ],
            returns: quote!(-> Real),
            body: quote!(q[0] * q[1]),
            lanes: LanesUse::default(),
        });
        let file: syn::File = syn::parse2(items).expect("items parse");
        let text = prettyplease::unparse(&file);
        let expected = [
            "pub fn mass_matrix_with(d: &Derived, q: &[Real; NQ]) -> Real {\n    \
             #[cfg(all(target_arch = \"x86_64\", not(target_feature = \"avx2\")))]\n    \
             if let Some(avx2) = avx::usable() {\n        \
             return unsafe { mass_matrix_with_avx(avx2, d, q) };\n    }\n    \
             mass_matrix_with_body(d, q)\n}",
            "#[cfg(all(target_arch = \"x86_64\", not(target_feature = \"avx2\")))]\n\
             #[target_feature(enable = \"avx,avx2,fma\")]\n\
             unsafe fn mass_matrix_with_avx(_avx2: avx::Avx2, d: &Derived, q: &[Real; NQ]) -> Real {\n    \
             mass_matrix_with_body(d, q)\n}",
            "#[inline(always)]\n\
             fn mass_matrix_with_body(_d: &Derived, q: &[Real; NQ]) -> Real {\n    \
             q[0] * q[1]\n}",
            "/// processor runs it (see [`avx_copies`]).",
        ];
        for piece in expected {
            assert!(text.contains(piece), "missing\n{piece}\nin\n{text}");
        }
    }

    #[test]
    fn statements_with_lanes_get_the_builds_in_the_function_and_avx2_in_the_copy() {
        let name = Ident::new("mass_matrix_with", Span::call_site());
        let items = dispatched(Function {
            name: &name,
            outer: TokenStream::new(),
            visibility: quote!(pub),
            parameters: vec![parameter("q", quote!(&[Real; NQ]), true)],
            returns: quote!(-> Real),
            body: quote!(fma(
                lanes.sin_cos_quad(q[0], q[1], q[2], q[3])[0].0,
                q[0],
                q[1]
            )),
            lanes: LanesUse {
                quads: true,
                fma: true,
            },
        });
        let text = prettyplease::unparse(&syn::parse2(items).expect("items parse"));
        for piece in [
            "return unsafe { mass_matrix_with_avx(avx2, q) };",
            "mass_matrix_with_body(BuildLanes, q)\n}",
            "unsafe fn mass_matrix_with_avx(avx2: avx::Avx2, q: &[Real; NQ]) -> Real {\n    \
             mass_matrix_with_body(avx2, q)\n}",
            "fn mass_matrix_with_body(lanes: impl QuadLanes + FmaLanes, q: &[Real; NQ]) -> Real {\n    \
             let fma = |a: Real, b: Real, c: Real| lanes.fma(a, b, c);\n",
        ] {
            assert!(text.contains(piece), "missing\n{piece}\nin\n{text}");
        }
    }

    #[test]
    fn parts_are_not_told_about_the_copy() {
        let name = Ident::new("coriolis_matrix_part0", Span::call_site());
        let items = dispatched(Function {
            name: &name,
            outer: quote!(#[inline(never)]),
            visibility: TokenStream::new(),
            parameters: vec![parameter("live", quote!(&mut [Real; 3]), true)],
            returns: TokenStream::new(),
            body: quote!(live[0] = 1.0;),
            lanes: LanesUse::default(),
        });
        let text = prettyplease::unparse(&syn::parse2(items).expect("items parse"));
        assert!(text.contains("#[inline(never)]\nfn coriolis_matrix_part0(live: &mut [Real; 3]) {"));
        assert!(!text.contains("avx_copies"));
    }

    #[test]
    fn every_build_has_the_switch_and_only_avx2_less_x86_64_the_question() {
        let print = |quads, fma| {
            let text = items(LanesUse { quads, fma }).expect("written");
            syn::parse_file(&format!("type Real = f64;\n{text}")).expect("parses");
            text
        };
        let text = print(false, false);
        for piece in [
            "pub fn avx_copies() -> bool {",
            "pub fn set_avx_copies(enabled: bool) {",
            "#[cfg(all(target_arch = \"x86_64\", not(target_feature = \"avx2\")))]\nmod avx {",
            "#[cfg(not(all(target_arch = \"x86_64\", not(target_feature = \"avx2\"))))]\nmod avx {",
            "__cpuid(1)",
            "__cpuid_count(7, 0)",
            "let (fma, osxsave, avx) = (1 << 12, 1 << 27, 1 << 28);",
            "#[cfg(target_env = \"sgx\")]",
        ] {
            assert!(text.contains(piece), "missing {piece}");
        }
        assert!(!text.contains("Lanes"));
        let quads = print(true, false);
        for piece in [
            "trait QuadLanes: Copy {",
            "impl QuadLanes for BuildLanes {",
            "impl QuadLanes for avx::Avx2 {",
            "unsafe { sin_cos_quad_avx2(a, b, c, d) }",
        ] {
            assert!(quads.contains(piece), "missing {piece}");
        }
        assert!(!quads.contains("fn fma("));
        let fused = print(false, true);
        assert!(fused.contains("_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c))"));
        assert!(fused.contains("impl FmaLanes for BuildLanes {"));
        assert!(fused
            .contains("fn fma(self, a: Real, b: Real, c: Real) -> Real {\n        fma(a, b, c)"));
        assert!(!fused.contains("sin_cos_quad"));
        let both = print(true, true);
        assert_eq!(both.matches("struct BuildLanes;").count(), 1);
    }
}
