//! EXPERIMENT, not compiled (no `mod` declares this file) and removed in
//! the next commit: a branch-free double-precision `sin_cos` meant to
//! replace `libm`'s `sincos` in the `f64` modules (issue 17). Measured in
//! `docs/performance.md`, "Trigonometry in the mass matrix": within 0.77 ulp
//! of 50-digit values (22 001 points), twice as fast as `libm` for
//! arguments up to 1e3 rad, but 1.3× slower for arguments within ±π, where
//! `libm` needs little or no reduction — so the mass matrices of Panda,
//! Solo12 and Talos got slower (92 → 102, 178 → 201, 726 → 770 ns) and it
//! was not wired in. Kept in the history for whoever tries again.
//!
//! Design: Cody–Waite reduction by π/2 (`k` rounded by adding 1.5·2⁵²,
//! the quadrant read from the sum's low bits), π/2 in two parts (33 bits,
//! so `k π/2` is exact below 2²⁰ quarter turns, and the rest; about 87
//! bits), the subtraction's rounding error kept as a tail `rr`; `libm`
//! beyond 2²⁰ rad, for non-finite `x`, for `x = ±0` and where the
//! reduction cancels (`|r| ≤ 2⁻²⁴ |k|`); fdlibm's kernel coefficients
//! (degree 13 and 14 on `[−π/4, π/4]`) evaluated by Estrin's scheme with
//! the tail as a first-order correction; the quadrant applied by bit masks.
//!
//! `SIN_COS_N`, the second experiment: the same arithmetic over an array of
//! angles, lane by lane, so that the compiler vectorises it (SSE2: two
//! lanes). Called once for the run of `sin_cos` lines at the top of a
//! mass matrix (`let [(s_q1, c_q1), …] = sin_cos_n([q[1], …]);`, edited in
//! by hand, not emitted), it made the portable build's mass matrices 8 to
//! 11 % faster (Panda 92 → 85, Solo12 177 → 157, Talos 736 → 673 ns), but
//! with `-C target-cpu=native` (AVX-512) Panda's slower (86 → 100 ns;
//! Solo12 161 → 141, Talos 694 → 614 ns).

/// The routine, the last helper of every `f64` module: Rust source parsed
/// into the module's tokens by `math::helpers` and printed with the rest.
pub(crate) const SIN_COS: &str = r#"/// Sine and cosine of `x`, together: one argument reduction for both, in
/// straight-line code with one branch (to `libm`'s `sincos` beyond
/// `|x| < 2²⁰`, for infinities, NaN, ±0 and reductions that cancel).
/// Cody–Waite reduction by π/2 in two parts with the rounding error kept,
/// then minimax polynomials on `[−π/4, π/4]` (fdlibm's coefficients) with
/// that tail as a first-order correction. Measured within 0.77 ulp of the
/// exact values. Every sine and cosine of this module is computed here.
pub fn sin_cos(x: Real) -> (Real, Real) {
    const BOUND: Real = 1_048_576.0;
    const FRAC_2_PI: Real = 0.636_619_772_367_581_4;
    // π/2 = PIO2_1 + PIO2_1T to about 87 bits; PIO2_1 has 33 bits, so its
    // product with a quadrant count below 2²⁰ is exact.
    const PIO2_1: Real = 1.570_796_326_734_125_6;
    const PIO2_1T: Real = 6.077_100_506_506_192e-11;
    // 2⁻⁴⁸: the reduction is used where |r| > 2⁻²⁴ |k|.
    const CANCELLATION: Real = 3.552_713_678_800_501e-15;
    // 1.5 · 2⁵²: adding it rounds to an integer, the quadrant in the low bits.
    const ROUND: Real = 6_755_399_441_055_744.0;
    const S1: Real = -1.666_666_666_666_663_2e-1;
    const S2: Real = 8.333_333_333_322_49e-3;
    const S3: Real = -1.984_126_982_985_795e-4;
    const S4: Real = 2.755_731_370_707_006_8e-6;
    const S5: Real = -2.505_076_025_340_686_3e-8;
    const S6: Real = 1.589_690_995_211_55e-10;
    const C1: Real = 4.166_666_666_666_66e-2;
    const C2: Real = -1.388_888_888_887_411e-3;
    const C3: Real = 2.480_158_728_947_673e-5;
    const C4: Real = -2.755_731_435_139_066_3e-7;
    const C5: Real = 2.087_572_321_298_175e-9;
    const C6: Real = -1.135_964_755_778_819_5e-11;
    let t = x * FRAC_2_PI + ROUND;
    let k = t - ROUND;
    // x − k π/2 = r + rr: the first product and difference exact, the
    // second difference's rounding error kept in rr.
    let a = x - k * PIO2_1;
    let w = k * PIO2_1T;
    let r = a - w;
    let rr = (a - r) - w;
    let z = r * r;
    // Beyond the bound, for infinities and NaN, and where x is so close to
    // a multiple of π/2 that the reduction cancels (or x = ±0): `libm`.
    if !(x > -BOUND && x < BOUND && z > k * k * CANCELLATION) {
        return libm::Libm::<Real>::sincos(x);
    }
    // sin(r + rr) ≈ sin r + rr cos r and cos(r + rr) ≈ cos r − rr r, the
    // polynomials in z = r² by Estrin's scheme (a shorter dependency chain
    // than Horner's), the cosine's 1 − z/2 with its rounding error added.
    let z2 = z * z;
    let z4 = z2 * z2;
    let sp = (S1 + S2 * z) + z2 * (S3 + S4 * z) + z4 * (S5 + S6 * z);
    let cp = (C1 + C2 * z) + z2 * (C3 + C4 * z) + z4 * (C5 + C6 * z);
    let h = 0.5 * z;
    let one_h = 1.0 - h;
    let s = (r + ((r * z) * sp + rr * one_h)).to_bits();
    let c = (one_h + (((1.0 - one_h) - h) + (z2 * cp - r * rr))).to_bits();
    // Quadrant q: (sin, cos) = (s, c), (c, −s), (−s, −c), (−c, s).
    let quadrant = t.to_bits() & 3;
    let odd = 0_u64.wrapping_sub(quadrant & 1);
    let sine = (s & !odd) | (c & odd);
    let cosine = (c & !odd) | (s & odd);
    (
        Real::from_bits(sine ^ ((quadrant & 2) << 62)),
        Real::from_bits(cosine ^ (((quadrant + 1) & 2) << 62)),
    )
}
"#;

/// The module's sine, where it calls `sin` alone.
pub(crate) const SIN: &str = r#"/// The sine of `x` by [`sin_cos`].
fn sin(x: Real) -> Real {
    sin_cos(x).0
}
"#;

/// The module's cosine, where it calls `cos` alone.
pub(crate) const COS: &str = r#"/// The cosine of `x` by [`sin_cos`].
fn cos(x: Real) -> Real {
    sin_cos(x).1
}
"#;

/// The second experiment: every angle of a run at once (see the module's
/// documentation).
pub(crate) const SIN_COS_N: &str = r#"/// Sines and cosines of N angles, lane by lane so the compiler can vectorise.
#[inline(always)]
pub fn sin_cos_n<const N: usize>(x: [Real; N]) -> [(Real, Real); N] {
    const BOUND: Real = 1_048_576.0;
    const FRAC_2_PI: Real = 0.636_619_772_367_581_4;
    const PIO2_1: Real = 1.570_796_326_734_125_6;
    const PIO2_1T: Real = 6.077_100_506_506_192e-11;
    const CANCELLATION: Real = 3.552_713_678_800_501e-15;
    const ROUND: Real = 6_755_399_441_055_744.0;
    const S1: Real = -1.666_666_666_666_663_2e-1;
    const S2: Real = 8.333_333_333_322_49e-3;
    const S3: Real = -1.984_126_982_985_795e-4;
    const S4: Real = 2.755_731_370_707_006_8e-6;
    const S5: Real = -2.505_076_025_340_686_3e-8;
    const S6: Real = 1.589_690_995_211_55e-10;
    const C1: Real = 4.166_666_666_666_66e-2;
    const C2: Real = -1.388_888_888_887_411e-3;
    const C3: Real = 2.480_158_728_947_673e-5;
    const C4: Real = -2.755_731_435_139_066_3e-7;
    const C5: Real = 2.087_572_321_298_175e-9;
    const C6: Real = -1.135_964_755_778_819_5e-11;
    let t = x.map(|x| x * FRAC_2_PI + ROUND);
    let mut k = t;
    let mut r = x;
    let mut rr = x;
    let mut z = x;
    let mut fine = true;
    for (((((k, r), rr), z), t), x) in k.iter_mut().zip(r.iter_mut()).zip(rr.iter_mut()).zip(z.iter_mut()).zip(t.iter()).zip(x.iter()) {
        *k = *t - ROUND;
        let a = *x - *k * PIO2_1;
        let w = *k * PIO2_1T;
        *r = a - w;
        *rr = (a - *r) - w;
        *z = *r * *r;
        fine &= *x > -BOUND && *x < BOUND && *z > *k * *k * CANCELLATION;
    }
    if !fine {
        return x.map(|x| libm::Libm::<Real>::sincos(x));
    }
    let mut out = [(0.0, 0.0); N];
    for ((((o, r), rr), z), t) in out.iter_mut().zip(r.iter()).zip(rr.iter()).zip(z.iter()).zip(t.iter()) {
        let (r, rr, z) = (*r, *rr, *z);
        let z2 = z * z;
        let z4 = z2 * z2;
        let sp = (S1 + S2 * z) + z2 * (S3 + S4 * z) + z4 * (S5 + S6 * z);
        let cp = (C1 + C2 * z) + z2 * (C3 + C4 * z) + z4 * (C5 + C6 * z);
        let h = 0.5 * z;
        let one_h = 1.0 - h;
        let s = (r + ((r * z) * sp + rr * one_h)).to_bits();
        let c = (one_h + (((1.0 - one_h) - h) + (z2 * cp - r * rr))).to_bits();
        let quadrant = t.to_bits() & 3;
        let odd = 0_u64.wrapping_sub(quadrant & 1);
        let sine = (s & !odd) | (c & odd);
        let cosine = (c & !odd) | (s & odd);
        *o = (
            Real::from_bits(sine ^ ((quadrant & 2) << 62)),
            Real::from_bits(cosine ^ (((quadrant + 1) & 2) << 62)),
        );
    }
    out
}
"#;
