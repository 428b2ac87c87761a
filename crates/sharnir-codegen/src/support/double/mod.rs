//! The `f64` modules' square root, sines and cosines and fused
//! multiply–add, as they are written at the end of every module that calls
//! them (`super` cuts the items out of this file; the `f32` twins take
//! `sqrt`, which is generic over `Real`, from here too). Compiled here, in
//! tests only, as a module whose `Real` is `f64`, so that rustc, rustfmt
//! and clippy keep the text the modules carry.
//!
//! `sin_cos_pair` and `sin_cos_quad` compute the sines and cosines of two
//! and four angles at once, which the emitter calls for the `sin_cos`
//! statements in a row (every angle that reads no local, the coordinates
//! and their sums, at the top of its function). `libm`'s scalar `sincos`
//! takes a quarter (Talos) to not quite half (Panda, Solo12) of a mass
//! matrix's time; on x86-64, where SSE2 is part of the baseline (so the
//! portable build has it), `sin_cos_pair` evaluates two angles in the two
//! lanes of one register, and `sin_cos_quad` four in AVX2's four lanes
//! where the build enables AVX2 (two `sin_cos_pair` otherwise), or in the
//! AVX copies of the long functions (`dispatch.rs`). Elsewhere both are
//! calls of `libm`.
//!
//! The arithmetic: Cody–Waite reduction by π/2 (`k` rounded by adding
//! 1.5·2⁵², the quadrant read from the sum's low bits; π/2 in a 33-bit
//! part, so `k π/2` is exact below 2²⁰ quarter turns, and the rest, about
//! 87 bits, with the subtraction's rounding error kept as a tail); fdlibm's
//! kernel coefficients (degree 13 and 14 on `[−π/4, π/4]`) by Estrin's
//! scheme with the tail as a first-order correction; the quadrant applied
//! by bit masks. All angles go to `libm` when any is beyond 2²⁰ rad,
//! infinite, NaN, ±0, below about 10⁻¹⁶² (where `r²` underflows) or so
//! close to a multiple of π/2 that the reduction cancels (`|r| ≤ 2⁻²⁴ |k|`).
//! Against `libm` on 10⁷ arguments (uniform up to 2²² rad, every bit
//! pattern, log-uniform magnitudes, the doubles around multiples of π/2)
//! its results are `libm`'s or one ulp away (`tests/trigonometry.rs`). The
//! four-lane routine's lanes are the two-lane routine's bit for bit (the
//! same operations, which Rust does not contract into fused
//! multiply–adds).
//!
//! `sin_cos_quad_avx2` and `sin_cos_quad_by_libm` are written here for
//! every x86-64 build, as the modules whose AVX copies call the AVX2
//! routine carry them; in the other modules their `cfg` is the builds
//! that enable AVX2 (`super::double_item`).

mod dispatch;
mod pairs;
#[cfg(test)]
mod tests;

/// The scalar type of the `f64` modules.
type Real = f64;

/// The square root of `x`, by `libm` (`core` has none without `std`).
#[inline(always)]
fn sqrt(x: Real) -> Real {
    libm::Libm::<Real>::sqrt(x)
}

/// Trigonometry of this module, by `libm`: the sine and cosine of `x`
/// together (one argument reduction for both).
#[inline(always)]
fn sin_cos(x: Real) -> (Real, Real) {
    libm::Libm::<Real>::sincos(x)
}

/// Trigonometry of this module, by `libm`: the sine of `x`.
#[inline(always)]
fn sin(x: Real) -> Real {
    libm::Libm::<Real>::sin(x)
}

/// Trigonometry of this module, by `libm`: the cosine of `x`.
#[inline(always)]
fn cos(x: Real) -> Real {
    libm::Libm::<Real>::cos(x)
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
        unsafe { _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c))) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "fma")))]
    {
        libm::Libm::<Real>::fma(a, b, c)
    }
}

/// Sines and cosines of two angles, `((sin a, cos a), (sin b, cos b))`,
/// by the module's `sin_cos` (`libm`; this target has no routine of its
/// own for two at once).
/// Public, like the x86-64 routine it stands for, which tests measure.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn sin_cos_pair(a: Real, b: Real) -> ((Real, Real), (Real, Real)) {
    (sin_cos(a), sin_cos(b))
}

/// Sines and cosines of two angles, `((sin a, cos a), (sin b, cos b))`,
/// both in the two lanes of SSE2 registers (x86-64's baseline): one
/// reduction by π/2 for both (Cody–Waite, π/2 to about 87 bits, exact
/// below 2²⁰ rad), fdlibm's minimax polynomials on `[−π/4, π/4]`, the
/// quadrant applied by bit masks. Within one ulp of `libm`'s `sincos`
/// (0.77 ulp of the exact values); `libm` for both angles where either is
/// beyond 2²⁰ rad, not finite, ±0, tiny or too close to a multiple of π/2.
/// The `unsafe` block calls SSE2 intrinsics only, which every x86-64
/// target has and which touch no memory. Public so that tests can hold it
/// to `libm` (`tests/trigonometry.rs`). Its arithmetic is `f64`'s whatever
/// `Real` is (the conversions, no-ops for `f64`, let a module whose `Real`
/// is edited to `f32` compile).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
#[inline(always)]
pub fn sin_cos_pair(a: Real, b: Real) -> ((Real, Real), (Real, Real)) {
    use core::arch::x86_64::*;
    const BOUND: f64 = 1_048_576.0;
    const FRAC_2_PI: f64 = 0.636_619_772_367_581_4;
    // π/2 = PIO2_1 + PIO2_1T to about 87 bits; PIO2_1 has 33 bits, so its
    // product with a quadrant count below 2²⁰ is exact.
    const PIO2_1: f64 = 1.570_796_326_734_125_6;
    const PIO2_1T: f64 = 6.077_100_506_506_192e-11;
    // 2⁻⁴⁸: the reduction is used where r² > 2⁻⁴⁸ k².
    const CANCELLATION: f64 = 3.552_713_678_800_501e-15;
    // 1.5 · 2⁵²: adding it rounds to an integer, the quadrant in the low bits.
    const ROUND: f64 = 6_755_399_441_055_744.0;
    const S1: f64 = -1.666_666_666_666_663_2e-1;
    const S2: f64 = 8.333_333_333_322_49e-3;
    const S3: f64 = -1.984_126_982_985_795e-4;
    const S4: f64 = 2.755_731_370_707_006_8e-6;
    const S5: f64 = -2.505_076_025_340_686_3e-8;
    const S6: f64 = 1.589_690_995_211_55e-10;
    const C1: f64 = 4.166_666_666_666_66e-2;
    const C2: f64 = -1.388_888_888_887_411e-3;
    const C3: f64 = 2.480_158_728_947_673e-5;
    const C4: f64 = -2.755_731_435_139_066_3e-7;
    const C5: f64 = 2.087_572_321_298_175e-9;
    const C6: f64 = -1.135_964_755_778_819_5e-11;
    // SAFETY: SSE2 is part of every x86-64 target, so its intrinsics are
    // always available; they touch no memory.
    unsafe {
        let all = _mm_set1_pd;
        let x = _mm_set_pd(f64::from(b), f64::from(a));
        let t = _mm_add_pd(_mm_mul_pd(x, all(FRAC_2_PI)), all(ROUND));
        let k = _mm_sub_pd(t, all(ROUND));
        // x − k π/2 = r + rr: the first product and difference exact, the
        // second difference's rounding error kept in rr.
        let d = _mm_sub_pd(x, _mm_mul_pd(k, all(PIO2_1)));
        let w = _mm_mul_pd(k, all(PIO2_1T));
        let r = _mm_sub_pd(d, w);
        let rr = _mm_sub_pd(_mm_sub_pd(d, r), w);
        let z = _mm_mul_pd(r, r);
        // Comparisons with NaN are false: non-finite angles fail too.
        let fine = _mm_and_pd(
            _mm_cmplt_pd(_mm_andnot_pd(all(-0.0), x), all(BOUND)),
            _mm_cmpgt_pd(z, _mm_mul_pd(_mm_mul_pd(k, k), all(CANCELLATION))),
        );
        if _mm_movemask_pd(fine) != 3 {
            return sin_cos_pair_by_libm(a, b);
        }
        // sin(r + rr) ≈ sin r + rr cos r and cos(r + rr) ≈ cos r − rr r, the
        // polynomials in z = r² by Estrin's scheme, the cosine's 1 − z/2
        // with its rounding error added.
        let z2 = _mm_mul_pd(z, z);
        let z4 = _mm_mul_pd(z2, z2);
        let estrin = |c: [f64; 6]| {
            let pair = |c0, c1| _mm_add_pd(all(c0), _mm_mul_pd(all(c1), z));
            _mm_add_pd(
                _mm_add_pd(pair(c[0], c[1]), _mm_mul_pd(z2, pair(c[2], c[3]))),
                _mm_mul_pd(z4, pair(c[4], c[5])),
            )
        };
        let sp = estrin([S1, S2, S3, S4, S5, S6]);
        let cp = estrin([C1, C2, C3, C4, C5, C6]);
        let h = _mm_mul_pd(all(0.5), z);
        let one_h = _mm_sub_pd(all(1.0), h);
        let s = _mm_add_pd(
            r,
            _mm_add_pd(_mm_mul_pd(_mm_mul_pd(r, z), sp), _mm_mul_pd(rr, one_h)),
        );
        let c = _mm_add_pd(
            one_h,
            _mm_add_pd(
                _mm_sub_pd(_mm_sub_pd(all(1.0), one_h), h),
                _mm_sub_pd(_mm_mul_pd(z2, cp), _mm_mul_pd(r, rr)),
            ),
        );
        // Quadrant q: (sin, cos) = (s, c), (c, −s), (−s, −c), (−c, s).
        let quadrant = _mm_and_si128(_mm_castpd_si128(t), _mm_set1_epi64x(3));
        let odd = _mm_castsi128_pd(_mm_sub_epi64(
            _mm_setzero_si128(),
            _mm_and_si128(quadrant, _mm_set1_epi64x(1)),
        ));
        let sign = |q| _mm_castsi128_pd(_mm_slli_epi64::<62>(_mm_and_si128(q, _mm_set1_epi64x(2))));
        let sine = _mm_xor_pd(
            _mm_or_pd(_mm_andnot_pd(odd, s), _mm_and_pd(odd, c)),
            sign(quadrant),
        );
        let cosine = _mm_xor_pd(
            _mm_or_pd(_mm_andnot_pd(odd, c), _mm_and_pd(odd, s)),
            sign(_mm_add_epi64(quadrant, _mm_set1_epi64x(1))),
        );
        let first = _mm_unpacklo_pd(sine, cosine);
        let second = _mm_unpackhi_pd(sine, cosine);
        let high = |v| _mm_cvtsd_f64(_mm_unpackhi_pd(v, v)) as Real;
        (
            (_mm_cvtsd_f64(first) as Real, high(first)),
            (_mm_cvtsd_f64(second) as Real, high(second)),
        )
    }
}

/// [`sin_cos_pair`] by the module's `sin_cos` (`libm`), for the angles the
/// two-lane routine leaves to it; out of line, so that the rare case does not bloat every call site.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn sin_cos_pair_by_libm(a: Real, b: Real) -> ((Real, Real), (Real, Real)) {
    (sin_cos(a), sin_cos(b))
}

/// Sines and cosines of four angles by two calls of [`sin_cos_pair`] (this
/// build does not enable AVX2). Public, like the AVX2 routine it stands
/// for, which tests measure.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
#[inline(always)]
pub fn sin_cos_quad(a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
    let (first, second) = sin_cos_pair(a, b);
    let (third, fourth) = sin_cos_pair(c, d);
    [first, second, third, fourth]
}

/// Sines and cosines of four angles in the four lanes of AVX2 registers
/// ([`sin_cos_quad_avx2`]), for builds that enable AVX2. Public so that
/// tests can hold it to `libm` (`tests/trigonometry.rs`).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub fn sin_cos_quad(a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
    // SAFETY: the build enables AVX2 (the `cfg`).
    unsafe { sin_cos_quad_avx2(a, b, c, d) }
}

/// Sines and cosines of four angles in the four lanes of AVX2 registers:
/// [`sin_cos_pair`]'s arithmetic (its results bit for bit), twice as wide;
/// `libm` for all four angles where any is beyond 2²⁰ rad, not finite, ±0,
/// tiny or too close to a multiple of π/2. [`sin_cos_quad`] in builds that
/// enable AVX2, and what the AVX copies of the long functions call in the
/// others. Public so that tests can hold it to `libm`
/// (`tests/trigonometry.rs`).
///
/// # Safety
///
/// The processor must run AVX2 and the operating system save its
/// registers (`is_x86_feature_detected!("avx2")`). The intrinsics inside
/// touch no memory.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::useless_conversion, clippy::unnecessary_cast, unused_unsafe)]
#[target_feature(enable = "avx,avx2")]
#[inline]
pub unsafe fn sin_cos_quad_avx2(a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
    use core::arch::x86_64::*;
    const BOUND: f64 = 1_048_576.0;
    const FRAC_2_PI: f64 = 0.636_619_772_367_581_4;
    const PIO2_1: f64 = 1.570_796_326_734_125_6;
    const PIO2_1T: f64 = 6.077_100_506_506_192e-11;
    const CANCELLATION: f64 = 3.552_713_678_800_501e-15;
    const ROUND: f64 = 6_755_399_441_055_744.0;
    const S: [f64; 6] = [
        -1.666_666_666_666_663_2e-1,
        8.333_333_333_322_49e-3,
        -1.984_126_982_985_795e-4,
        2.755_731_370_707_006_8e-6,
        -2.505_076_025_340_686_3e-8,
        1.589_690_995_211_55e-10,
    ];
    const C: [f64; 6] = [
        4.166_666_666_666_66e-2,
        -1.388_888_888_887_411e-3,
        2.480_158_728_947_673e-5,
        -2.755_731_435_139_066_3e-7,
        2.087_572_321_298_175e-9,
        -1.135_964_755_778_819_5e-11,
    ];
    unsafe {
        let all = _mm256_set1_pd;
        let x = _mm256_set_pd(f64::from(d), f64::from(c), f64::from(b), f64::from(a));
        let t = _mm256_add_pd(_mm256_mul_pd(x, all(FRAC_2_PI)), all(ROUND));
        let k = _mm256_sub_pd(t, all(ROUND));
        let e = _mm256_sub_pd(x, _mm256_mul_pd(k, all(PIO2_1)));
        let w = _mm256_mul_pd(k, all(PIO2_1T));
        let r = _mm256_sub_pd(e, w);
        let rr = _mm256_sub_pd(_mm256_sub_pd(e, r), w);
        let z = _mm256_mul_pd(r, r);
        let fine = _mm256_and_pd(
            _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_andnot_pd(all(-0.0), x), all(BOUND)),
            _mm256_cmp_pd::<_CMP_GT_OQ>(z, _mm256_mul_pd(_mm256_mul_pd(k, k), all(CANCELLATION))),
        );
        if _mm256_movemask_pd(fine) != 15 {
            return sin_cos_quad_by_libm(a, b, c, d);
        }
        let z2 = _mm256_mul_pd(z, z);
        let z4 = _mm256_mul_pd(z2, z2);
        let estrin = |p: [f64; 6]| {
            let pair = |p0, p1| _mm256_add_pd(all(p0), _mm256_mul_pd(all(p1), z));
            _mm256_add_pd(
                _mm256_add_pd(pair(p[0], p[1]), _mm256_mul_pd(z2, pair(p[2], p[3]))),
                _mm256_mul_pd(z4, pair(p[4], p[5])),
            )
        };
        let sp = estrin(S);
        let cp = estrin(C);
        let h = _mm256_mul_pd(all(0.5), z);
        let one_h = _mm256_sub_pd(all(1.0), h);
        let s = _mm256_add_pd(
            r,
            _mm256_add_pd(
                _mm256_mul_pd(_mm256_mul_pd(r, z), sp),
                _mm256_mul_pd(rr, one_h),
            ),
        );
        let co = _mm256_add_pd(
            one_h,
            _mm256_add_pd(
                _mm256_sub_pd(_mm256_sub_pd(all(1.0), one_h), h),
                _mm256_sub_pd(_mm256_mul_pd(z2, cp), _mm256_mul_pd(r, rr)),
            ),
        );
        let quadrant = _mm256_and_si256(_mm256_castpd_si256(t), _mm256_set1_epi64x(3));
        let odd = _mm256_castsi256_pd(_mm256_sub_epi64(
            _mm256_setzero_si256(),
            _mm256_and_si256(quadrant, _mm256_set1_epi64x(1)),
        ));
        let sign = |q| {
            _mm256_castsi256_pd(_mm256_slli_epi64::<62>(_mm256_and_si256(
                q,
                _mm256_set1_epi64x(2),
            )))
        };
        let sine = _mm256_xor_pd(_mm256_blendv_pd(s, co, odd), sign(quadrant));
        let cosine = _mm256_xor_pd(
            _mm256_blendv_pd(co, s, odd),
            sign(_mm256_add_epi64(quadrant, _mm256_set1_epi64x(1))),
        );
        // Lanes 0 and 2 (a, c) and 1 and 3 (b, d), sine and cosine side by side.
        let even = _mm256_unpacklo_pd(sine, cosine);
        let odd = _mm256_unpackhi_pd(sine, cosine);
        let low = |v| _mm_cvtsd_f64(v) as Real;
        let high = |v| _mm_cvtsd_f64(_mm_unpackhi_pd(v, v)) as Real;
        let (ac_low, ac_high) = (
            _mm256_castpd256_pd128(even),
            _mm256_extractf128_pd::<1>(even),
        );
        let (bd_low, bd_high) = (_mm256_castpd256_pd128(odd), _mm256_extractf128_pd::<1>(odd));
        [
            (low(ac_low), high(ac_low)),
            (low(bd_low), high(bd_low)),
            (low(ac_high), high(ac_high)),
            (low(bd_high), high(bd_high)),
        ]
    }
}

/// [`sin_cos_quad`] by the module's `sin_cos` (`libm`), for the angles the
/// four-lane routine leaves to it; out of line, so that the rare case does
/// not bloat every call site.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn sin_cos_quad_by_libm(a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
    [sin_cos(a), sin_cos(b), sin_cos(c), sin_cos(d)]
}
