//! The module's own `sin`, `cos`, `sin_cos`, `sin_cos_pair`,
//! `sin_cos_quad` and `sqrt`:
//! short private helpers around `libm`, so that every call site reads
//! `sin(x)` rather than `libm::Libm::<Real>::sin(x)`, and the double
//! precision's routines for two and four angles at once (`double_trig.rs`).
//!
//! Only the helpers a module calls are emitted (an unused private function
//! would be dead code), at the very end of the module, `sqrt` first and
//! then the trigonometric ones. The single-precision variant's
//! trigonometric helpers are its own `sin_cos` in `f32` arithmetic
//! (`single_trig.rs`), with `sin` and `cos` by it where the module calls
//! them, and `sin_cos_pair` and `sin_cos_quad` as calls of its `sin_cos`: every sine and
//! cosine of a twin goes through its `sin_cos`, and no call site changes.

use crate::error::EmitError;
use crate::print::tokens::Usage;
use proc_macro2::TokenStream;
use quote::quote;

/// The helpers, in the order they are emitted.
pub(crate) const HELPERS: [&str; 6] = [
    "sqrt",
    "sin_cos",
    "sin_cos_pair",
    "sin_cos_quad",
    "sin",
    "cos",
];

/// Flags in `found`, in the order of [`HELPERS`], the helpers that code
/// calls by `usage` (which must have asked about them): the names written
/// as a plain call, `name(…)`, not as the last segment of a path
/// (`libm::Libm::<Real>::sqrt(…)` in the hand-written solves calls `libm`
/// itself).
pub(crate) fn called_in(usage: &Usage, found: &mut [bool; HELPERS.len()]) {
    for (flag, helper) in found.iter_mut().zip(HELPERS) {
        *flag |= usage.calls(helper);
    }
}

/// [`called_in`] for `tokens`, walked for the helpers alone.
pub(crate) fn called(tokens: &TokenStream, found: &mut [bool; HELPERS.len()]) {
    called_in(&Usage::of(tokens, &HELPERS), found);
}

/// The helpers flagged in `used`, in the order of [`HELPERS`]; with
/// `single_precision`, the trigonometric ones are the single-precision
/// routine's (its `sin_cos` always, public, so a twin offers it whether or
/// not its own code calls it); `quad_in_copies`, the AVX copies call the
/// AVX2 routine for four angles ([`crate::render::double_trig::sin_cos_quad`]).
pub(crate) fn helpers(
    used: &[bool; HELPERS.len()],
    single_precision: bool,
    quad_in_copies: bool,
) -> Result<TokenStream, EmitError> {
    let [sqrt, sin_cos, sin_cos_pair, sin_cos_quad, sin, cos] = *used;
    // `sin_cos_quad` falls back on `sin_cos_pair` (in `f64`), which falls
    // back on `sin_cos`.
    let sin_cos_pair = sin_cos_pair || (sin_cos_quad && !single_precision);
    let sin_cos = sin_cos || sin_cos_pair || sin_cos_quad;
    let mut items = TokenStream::new();
    if sqrt {
        items.extend(quote! {
            /// The square root of `x`, by `libm` (`core` has none without `std`).
            #[inline(always)]
            fn sqrt(x: Real) -> Real {
                libm::Libm::<Real>::sqrt(x)
            }
        });
    }
    let routine = |text: &str| {
        text.parse::<TokenStream>().map_err(|e| {
            EmitError::Internal(format!("a trigonometric routine does not parse: {e}"))
        })
    };
    if single_precision {
        items.extend(routine(crate::render::single_trig::SIN_COS)?);
        if sin_cos_pair {
            items.extend(routine(crate::render::single_trig::SIN_COS_PAIR)?);
        }
        if sin_cos_quad {
            items.extend(routine(crate::render::single_trig::SIN_COS_QUAD)?);
        }
        if sin {
            items.extend(routine(crate::render::single_trig::SIN)?);
        }
        if cos {
            items.extend(routine(crate::render::single_trig::COS)?);
        }
        return Ok(items);
    }
    if sin_cos {
        items.extend(quote! {
            /// Trigonometry of this module, by `libm`: the sine and cosine of `x`
            /// together (one argument reduction for both).
            #[inline(always)]
            fn sin_cos(x: Real) -> (Real, Real) {
                libm::Libm::<Real>::sincos(x)
            }
        });
    }
    if sin_cos_pair {
        items.extend(routine(crate::render::double_trig::SIN_COS_PAIR)?);
    }
    if sin_cos_quad {
        items.extend(routine(&crate::render::double_trig::sin_cos_quad(
            quad_in_copies,
        ))?);
    }
    if sin {
        items.extend(quote! {
            /// Trigonometry of this module, by `libm`: the sine of `x`.
            #[inline(always)]
            fn sin(x: Real) -> Real {
                libm::Libm::<Real>::sin(x)
            }
        });
    }
    if cos {
        items.extend(quote! {
            /// Trigonometry of this module, by `libm`: the cosine of `x`.
            #[inline(always)]
            fn cos(x: Real) -> Real {
                libm::Libm::<Real>::cos(x)
            }
        });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(tokens: TokenStream) -> [bool; 6] {
        let mut found = [false; 6];
        called(&tokens, &mut found);
        found
    }

    #[test]
    fn plain_calls_count_and_paths_do_not() {
        assert_eq!(
            calls(quote!(let a = sin(x) * cos(y);)),
            [false, false, false, false, true, true]
        );
        assert_eq!(
            calls(quote!(let (s, c) = sin_cos(x); let r = libm::Libm::<Real>::sqrt(z);)),
            [false, true, false, false, false, false]
        );
        assert_eq!(
            calls(quote!(
                fn f() {
                    [sqrt(a + b), sin];
                }
            )),
            [true, false, false, false, false, false]
        );
    }

    #[test]
    fn the_twin_keeps_only_what_the_module_called() {
        let helpers =
            helpers(&[true, true, false, false, false, true], true, false).expect("parses");
        let file: syn::File = syn::parse2(quote!(pub fn f() {} #helpers)).expect("parses");
        let twin = prettyplease::unparse(&file);
        assert!(twin.contains("fn sqrt(x: Real) -> Real"));
        assert!(twin.contains("pub fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(twin.contains("\nfn cos(x: Real) -> Real"));
        assert!(!twin.contains("\nfn sin(x: Real) -> Real"));
        assert!(!twin.contains("Libm::<Real>::cos("));
    }

    #[test]
    fn four_angles_at_once_bring_two_and_one_along() {
        let print = |single_precision, in_copies| {
            let helpers = helpers(
                &[false, false, false, true, false, false],
                single_precision,
                in_copies,
            )
            .expect("parses");
            let file: syn::File = syn::parse2(quote!(#helpers)).expect("parses");
            prettyplease::unparse(&file)
        };
        let double = print(false, false);
        assert!(double.contains("fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(double.contains("pub fn sin_cos_pair(a: Real, b: Real)"));
        assert!(double.contains("_mm_mul_pd("));
        assert!(double.contains("_mm256_mul_pd("));
        assert_eq!(double.matches("libm::Libm::<Real>::sincos(").count(), 1);
        // The AVX2 routine exists in AVX2 builds, and in every x86-64 build
        // where the AVX copies call it.
        let avx2_builds = "#[cfg(all(target_arch = \"x86_64\", target_feature = \"avx2\"))]\n\
                           #[allow(clippy::useless_conversion, clippy::unnecessary_cast, unused_unsafe)]\n\
                           #[target_feature(enable = \"avx,avx2\")]\n#[inline]\npub unsafe fn sin_cos_quad_avx2(";
        assert!(double.contains(avx2_builds), "{double}");
        let in_copies = print(false, true);
        assert!(in_copies.contains(&avx2_builds.replacen(
            "all(target_arch = \"x86_64\", target_feature = \"avx2\")",
            "target_arch = \"x86_64\"",
            1
        )));
        let single = print(true, true);
        assert!(single.contains("pub fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(single.contains("[sin_cos(a), sin_cos(b), sin_cos(c), sin_cos(d)]"));
        assert!(!single.contains("sin_cos_pair"));
        assert!(!single.contains("_mm_"));
    }
}
