//! Which of the support code's helpers a module carries: `sqrt`, `sin`,
//! `cos`, `sin_cos`, `sin_cos_pair`, `sin_cos_quad` (short private helpers
//! around `libm`, so that every call site reads `sin(x)` rather than
//! `libm::Libm::<Real>::sin(x)`, and the double precision's routines for
//! two and four angles at once), a fused twin's `fma`, and `pair` with
//! the `Pair` arithmetic of the lane statements that compute two branches
//! together.
//!
//! Only the helpers a module calls are written (an unused private function
//! would be dead code), at the very end of the module: `sqrt` and `fma`
//! first, then the trigonometric ones. The single-precision twins'
//! trigonometric helpers are their own `sin_cos` in `f32` arithmetic, with
//! `sin`, `cos`, `sin_cos_pair` and `sin_cos_quad` as calls of it: every
//! sine and cosine of a twin goes through its `sin_cos`, and no call site
//! changes. The text of each is in `crate::support`.

use crate::error::EmitError;
use crate::print::tokens::Usage;
use crate::support::{self, Source};
use proc_macro2::TokenStream;

/// The helpers, in the order they are emitted.
pub(crate) const HELPERS: [&str; 7] = [
    "sqrt",
    "sin_cos",
    "sin_cos_pair",
    "sin_cos_quad",
    "sin",
    "cos",
    "pair",
];

/// The items `pair` brings (`support/double/pairs.rs`): the type, its
/// constructor and its lanes, and its arithmetic.
const PAIR_ITEMS: [&str; 8] = [
    "Pair",
    "pair",
    "pair_lanes",
    "Add for Pair",
    "Sub for Pair",
    "Mul for Pair",
    "Div for Pair",
    "Neg for Pair",
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

/// Flags `helper` (one of [`HELPERS`]) in `found`: code the module carries
/// calls it outside the tokens [`called`] walks.
pub(crate) fn require(helper: &str, found: &mut [bool; HELPERS.len()]) {
    for (flag, name) in found.iter_mut().zip(HELPERS) {
        *flag |= name == helper;
    }
}

/// [`called_in`] for `tokens`, walked for the helpers alone.
pub(crate) fn called(tokens: &TokenStream, found: &mut [bool; HELPERS.len()]) {
    called_in(&Usage::of(tokens, &HELPERS), found);
}

/// The text of the helpers flagged in `used`, in the order of [`HELPERS`],
/// from the support code (`crate::support`); with `single_precision`, the
/// trigonometric ones are the single-precision routine's (its `sin_cos`
/// always, public, so a twin offers it whether or not its own code calls
/// it); `quad_in_copies`, the AVX copies call the AVX2 routine for four
/// angles, so it is written for every x86-64 build, not only those that
/// enable AVX2; `fused`, the module's `fma`. `pair` is written in `f64`
/// modules only, the only ones with lane statements.
pub(crate) fn helpers(
    used: &[bool; HELPERS.len()],
    single_precision: bool,
    quad_in_copies: bool,
    fused: bool,
) -> Result<String, EmitError> {
    let [sqrt, sin_cos, sin_cos_pair, sin_cos_quad, sin, cos, pair] = *used;
    // `sin_cos_quad` falls back on `sin_cos_pair` (in `f64`), which falls
    // back on `sin_cos`.
    let sin_cos_pair = sin_cos_pair || (sin_cos_quad && !single_precision);
    let sin_cos = sin_cos || sin_cos_pair || sin_cos_quad || single_precision;
    let mut names: Vec<&str> = Vec::new();
    let mut wanted = |flag: bool, name| {
        if flag {
            names.push(name);
        }
    };
    wanted(sin_cos, "sin_cos");
    wanted(sin_cos_pair, "sin_cos_pair");
    wanted(sin_cos_pair && !single_precision, "sin_cos_pair_by_libm");
    wanted(sin_cos_quad, "sin_cos_quad");
    wanted(sin_cos_quad && !single_precision, "sin_cos_quad_avx2");
    wanted(sin_cos_quad && !single_precision, "sin_cos_quad_by_libm");
    wanted(sin, "sin");
    wanted(cos, "cos");
    let trigonometry = if single_precision {
        Source::Single
    } else {
        Source::Double
    };
    let mut text = String::new();
    if sqrt {
        text.push_str(&support::item(Source::Double, "sqrt")?);
    }
    if fused {
        text.push('\n');
        text.push_str(&support::item(trigonometry, "fma")?);
    }
    for name in names {
        let item = support::item(trigonometry, name)?;
        let item = if name.starts_with("sin_cos_quad_") && !quad_in_copies {
            item.replace(ANY_X86_64, AVX2_BUILDS)
        } else {
            item
        };
        text.push('\n');
        text.push_str(&item);
    }
    if pair {
        for name in PAIR_ITEMS {
            text.push('\n');
            text.push_str(&support::item(Source::Pairs, name)?);
        }
    }
    Ok(text.trim_start_matches('\n').to_owned())
}

/// The `cfg` of the AVX2 routine for four angles (and its `libm` fallback)
/// as the support code writes it: every x86-64 build, where the AVX copies
/// call it.
const ANY_X86_64: &str = "#[cfg(target_arch = \"x86_64\")]";

/// Its `cfg` in a module without AVX copies that call it: the builds that
/// enable AVX2, where it is `sin_cos_quad`.
const AVX2_BUILDS: &str = "#[cfg(all(target_arch = \"x86_64\", target_feature = \"avx2\"))]";

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn calls(tokens: TokenStream) -> [bool; 7] {
        let mut found = [false; 7];
        called(&tokens, &mut found);
        found
    }

    #[test]
    fn plain_calls_count_and_paths_do_not() {
        assert_eq!(
            calls(quote!(let a = sin(x) * cos(y);)),
            [false, false, false, false, true, true, false]
        );
        assert_eq!(
            calls(quote!(let (s, c) = sin_cos(x); let r = libm::Libm::<Real>::sqrt(z);)),
            [false, true, false, false, false, false, false]
        );
        assert_eq!(
            calls(quote!(
                fn f() {
                    [sqrt(a + b), sin];
                }
            )),
            [true, false, false, false, false, false, false]
        );
    }

    /// The helpers as a module carries them, parsed as one file.
    fn written(used: [bool; 7], single_precision: bool, in_copies: bool, fused: bool) -> String {
        let text = helpers(&used, single_precision, in_copies, fused).expect("written");
        syn::parse_file(&format!("type Real = f64;\n{text}")).expect("parses");
        text
    }

    #[test]
    fn the_twin_keeps_only_what_the_module_called() {
        let twin = written(
            [true, true, false, false, false, true, false],
            true,
            false,
            false,
        );
        assert!(twin.starts_with("/// The square root of `x`"));
        assert!(twin.contains("fn sqrt(x: Real) -> Real"));
        assert!(twin.contains("pub fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(twin.contains("\nfn cos(x: Real) -> Real"));
        assert!(!twin.contains("\nfn sin(x: Real) -> Real"));
        assert!(!twin.contains("Libm::<Real>::cos("));
        assert!(!twin.contains("fn fma("));
        let fused = written([false; 7], true, false, true);
        assert!(fused.contains("fn fma(a: Real, b: Real, c: Real) -> Real"));
        assert!(fused.contains("_mm_fmadd_ss("));
    }

    #[test]
    fn four_angles_at_once_bring_two_and_one_along() {
        let quad = [false, false, false, true, false, false, false];
        let double = written(quad, false, false, false);
        assert!(double.contains("fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(double.contains("pub fn sin_cos_pair(a: Real, b: Real)"));
        assert!(double.contains("_mm_mul_pd("));
        assert!(double.contains("_mm256_mul_pd("));
        assert_eq!(double.matches("libm::Libm::<Real>::sincos(").count(), 1);
        // The AVX2 routine exists in AVX2 builds, and in every x86-64 build
        // where the AVX copies call it.
        let routine = |cfg: &str| {
            format!(
                "{cfg}\n#[allow(clippy::useless_conversion, clippy::unnecessary_cast, unused_unsafe)]\n\
                 #[target_feature(enable = \"avx,avx2\")]\n#[inline]\npub unsafe fn sin_cos_quad_avx2("
            )
        };
        assert!(double.contains(&routine(AVX2_BUILDS)), "{double}");
        // Only the two-lane routine and its fallback are for every x86-64 build.
        assert_eq!(double.matches(ANY_X86_64).count(), 2);
        let in_copies = written(quad, false, true, false);
        assert!(in_copies.contains(&routine(ANY_X86_64)));
        let single = written(quad, true, true, false);
        assert!(single.contains("pub fn sin_cos(x: Real) -> (Real, Real)"));
        assert!(single.contains("[sin_cos(a), sin_cos(b), sin_cos(c), sin_cos(d)]"));
        assert!(!single.contains("sin_cos_pair"));
        assert!(!single.contains("_mm_"));
    }

    #[test]
    fn lane_statements_bring_the_pair_and_its_arithmetic() {
        let used = [false, false, false, false, false, false, true];
        let double = written(used, false, false, false);
        assert!(double.contains("struct Pair(core::arch::x86_64::__m128d);"));
        assert!(double.contains("struct Pair([Real; 2]);"));
        assert_eq!(
            double.matches("fn pair(a: Real, b: Real) -> Pair").count(),
            2
        );
        assert_eq!(double.matches("fn pair_lanes(p: Pair)").count(), 2);
        for op in ["Add", "Sub", "Mul", "Div", "Neg"] {
            assert_eq!(
                double
                    .matches(&format!("impl core::ops::{op} for Pair"))
                    .count(),
                2
            );
        }
        assert!(!written([false; 7], false, false, false).contains("Pair"));
    }
}
