//! The single-precision twins' sines, cosines and fused multiply–add, as
//! they are written at the end of every `_f32` twin that calls them
//! (`super` cuts the items out of this file; `sqrt` comes from the `f64`
//! routines, being generic over `Real`). Compiled here, in tests only, as a
//! module whose `Real` is `f32`, so that rustc, rustfmt and clippy keep the
//! text the twins carry.
//!
//! `libm`'s `sinf` and `cosf` reduce their argument in double precision,
//! which a Cortex-M4F computes in software (about 2 200 instructions per
//! `sincosf`, 97 % of a twin's time; `docs/embedded.md`), so the twins
//! carry their own routine in `f32` arithmetic: Cody–Waite reduction by π/2
//! in three parts, then the single-precision minimax polynomials on
//! `[−π/4, π/4]` (Moshier's Cephes `sinf`/`cosf` coefficients). Within
//! `|x| < 402` (256 quarter turns, where the reduction is exact) the error
//! is at most 2 ulp of 1 (`tests/single_precision.rs` measures it); beyond,
//! it calls `libm`. `sin_cos` is always written, public, so that a twin
//! offers it whether or not its own code calls it; `sin_cos_pair`,
//! `sin_cos_quad`, `sin` and `cos` are calls of it, so that every sine and
//! cosine of a twin goes through it and no call site changes.

#[cfg(test)]
mod tests;

/// The scalar type of the single-precision twins.
type Real = f32;

/// Sine and cosine of `x` in single-precision arithmetic throughout: `libm`'s
/// `sincosf` reduces the argument in double precision, which a 32-bit
/// floating-point unit does in software. Cody–Waite reduction by π/2 (exact
/// for `|x| < 402`, 256 quarter turns), then minimax polynomials on
/// `[−π/4, π/4]`; at most 2 ulp of 1 from the exact values there, and
/// `libm` beyond. Every sine and cosine of this module is computed here.
pub fn sin_cos(x: Real) -> (Real, Real) {
    const FRAC_2_PI: Real = 0.636_619_8;
    const PIO2_1: Real = 1.570_312_5;
    const PIO2_2: Real = 4.837_513e-4;
    const PIO2_3: Real = 7.549_79e-8;
    if !(x > -402.0 && x < 402.0) {
        return libm::Libm::<Real>::sincos(x);
    }
    let half = if x < 0.0 { -0.5 } else { 0.5 };
    let k = (x * FRAC_2_PI + half) as i32;
    let kf = k as Real;
    let r = ((x - kf * PIO2_1) - kf * PIO2_2) - kf * PIO2_3;
    let z = r * r;
    let s = ((-1.951_529_6e-4 * z + 8.332_161e-3) * z - 0.166_666_55) * z * r + r;
    let c = ((2.443_315_7e-5 * z - 1.388_731_6e-3) * z + 4.166_664_6e-2) * z * z - 0.5 * z + 1.0;
    match k & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// The sines and cosines of two angles by [`sin_cos`].
#[inline(always)]
fn sin_cos_pair(a: Real, b: Real) -> ((Real, Real), (Real, Real)) {
    (sin_cos(a), sin_cos(b))
}

/// The sines and cosines of four angles by [`sin_cos`].
#[inline(always)]
fn sin_cos_quad(a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
    [sin_cos(a), sin_cos(b), sin_cos(c), sin_cos(d)]
}

/// The sine of `x` by [`sin_cos`].
fn sin(x: Real) -> Real {
    sin_cos(x).0
}

/// The cosine of `x` by [`sin_cos`].
fn cos(x: Real) -> Real {
    sin_cos(x).1
}

/// `a · b + c` with one rounding: every fused operation of this module, by
/// the FMA instruction where the build enables it and through `libm`'s
/// `fma` otherwise (see the module header for when that is a single
/// instruction).
#[allow(unused_unsafe)]
#[inline(always)]
fn fma(a: Real, b: Real, c: Real) -> Real {
    #[cfg(all(target_arch = "x86_64", target_feature = "fma"))]
    {
        use core::arch::x86_64::*;
        // SAFETY: the build enables FMA (the `cfg`); the intrinsics touch no
        // memory.
        unsafe { _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c))) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "fma")))]
    {
        libm::Libm::<Real>::fma(a, b, c)
    }
}
