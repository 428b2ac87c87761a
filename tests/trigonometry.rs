//! The double-precision modules' `sin_cos_pair` (the sines and cosines of
//! two angles at once, in SSE2 lanes on x86-64; `libm` elsewhere) against
//! `libm`'s `sincos`, which the modules used before and still use for a
//! lone angle: every result within one ulp of `libm`'s. And their
//! `sin_cos_quad` (four at once, in AVX2 lanes where the build enables
//! AVX2; two `sin_cos_pair` otherwise) against `sin_cos_pair`: bit for bit
//! the same, or `libm`'s where a lane's partners send the group to `libm`.
//! The AVX2 routine itself, `sin_cos_quad_avx2` (what `sin_cos_quad` is
//! in AVX2 builds and what the long functions' AVX copies call in the
//! others), is held to the same wherever the processor runs AVX2, in every
//! x86-64 build.
//!
//! Arguments (about 1.2 · 10⁶ pairs, every argument's lane partner drawn
//! from another family, so that one lane's fall-back to `libm` meets every
//! kind of value in the other): uniform in ±π/4, ±π, ±2π, ±10³, ±2²⁰ (the
//! routine's bound) and ±2²² (beyond it: `libm`); every bit pattern (huge
//! magnitudes, subnormals, infinities, NaN); log-uniform magnitudes from
//! 2⁻¹⁰⁷⁴ to 2³⁰; the doubles around multiples of π/2 and at the edge of
//! the reduction's cancellation test (`|r| ≈ 2⁻²⁴ |k|`); and the special
//! values (±0, ±∞, NaN, the smallest normal and subnormal, the bound).
//!
//! Measured on x86-64 (`cargo test --release --test trigonometry --
//! --nocapture` prints it): the largest difference is one ulp, and 0.4 to
//! 0.6 % of the results of the uniform families differ from `libm`'s at
//! all.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_generated::panda::{sin_cos_pair, sin_cos_quad};
use sharnir_tests::processor::avx_detected;
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// Arguments per random family.
const PER_FAMILY: usize = 100_000;

/// The distance of `a` from `b` in ulps (doubles in between, plus one):
/// zero for equal values and for two NaNs, `u64::MAX` for a NaN against a
/// number and for zeros of different signs.
fn ulps(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    if a == 0.0 && b == 0.0 {
        return if a.to_bits() == b.to_bits() {
            0
        } else {
            u64::MAX
        };
    }
    // Sign and magnitude to one ordered integer line.
    let ordered = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i64::MIN.wrapping_sub(bits)
        } else {
            bits
        }
    };
    (i128::from(ordered(a)) - i128::from(ordered(b))).unsigned_abs() as u64
}

/// The argument families, by name.
fn families() -> Vec<(&'static str, Vec<f64>)> {
    let mut rng = SmallRng::seed_from_u64(17);
    let mut families = Vec::new();
    for (name, bound) in [
        ("uniform ±π/4", FRAC_PI_4),
        ("uniform ±π", PI),
        ("uniform ±2π", 2.0 * PI),
        ("uniform ±1e3", 1e3),
        ("uniform ±2^20", 1_048_576.0),
        ("uniform ±2^22", 4_194_304.0),
    ] {
        let xs = (0..PER_FAMILY).map(|_| rng.gen_range(-bound..=bound));
        families.push((name, xs.collect()));
    }
    families.push((
        "every bit pattern",
        (0..PER_FAMILY)
            .map(|_| f64::from_bits(rng.gen::<u64>()))
            .collect(),
    ));
    families.push((
        "log-uniform 2^-1074..2^30",
        (0..PER_FAMILY)
            .map(|_| {
                let magnitude = rng.gen_range(-1074.0..30.0_f64).exp2();
                if rng.gen::<bool>() {
                    magnitude
                } else {
                    -magnitude
                }
            })
            .collect(),
    ));
    // The five doubles around k π/2 for the first quarter turns and for
    // random ones up to 2²¹ (beyond the bound), both signs.
    let mut near = Vec::new();
    for i in 0..40_000_u64 {
        let k = if i < 20_000 {
            i
        } else {
            rng.gen_range(0..1 << 21)
        };
        let centre = (k as f64 * FRAC_PI_2).to_bits();
        for step in 0..5 {
            let x = f64::from_bits(centre + step - 2.min(centre));
            near.extend([x, -x]);
        }
    }
    families.push(("around k·π/2", near));
    // x = k π/2 + δ with |δ| around 2⁻²⁴ k, where the cancellation test
    // switches between the routine and `libm`.
    families.push((
        "cancellation edge",
        (0..PER_FAMILY)
            .map(|_| {
                let k = rng.gen_range(1..600_000_u32);
                let delta = f64::from(k) * rng.gen_range(0.5..2.0) * (-24.0_f64).exp2();
                let sign = if rng.gen::<bool>() { 1.0 } else { -1.0 };
                sign * (f64::from(k) * FRAC_PI_2 + if rng.gen::<bool>() { delta } else { -delta })
            })
            .collect(),
    ));
    families.push((
        "special values",
        vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::MAX,
            f64::MIN,
            1e-162,
            1e-161,
            1_048_575.999_999_999_9,
            1_048_576.0,
            -1_048_576.0,
            FRAC_PI_4,
            -FRAC_PI_4,
            FRAC_PI_2,
            PI,
        ],
    ));
    families
}

#[test]
fn sin_cos_pair_is_within_one_ulp_of_libm() {
    let families = families();
    let everything: Vec<f64> = families.iter().flat_map(|(_, xs)| xs.clone()).collect();
    let mut rng = SmallRng::seed_from_u64(18);
    let mut pairs = 0;
    for (name, xs) in &families {
        let (mut worst, mut at, mut differ, mut results) = (0, 0.0, 0_usize, 0_usize);
        for &x in xs {
            // The partner from anywhere, in either lane.
            let other = everything[rng.gen_range(0..everything.len())];
            let ((sa, ca), (sb, cb)) = if rng.gen::<bool>() {
                sin_cos_pair(x, other)
            } else {
                let (b, a) = sin_cos_pair(other, x);
                (a, b)
            };
            pairs += 1;
            // The family's statistics from its own argument; the partner's
            // results are held to the same bound.
            for (y, s, c, own) in [(x, sa, ca, true), (other, sb, cb, false)] {
                let (ls, lc) = libm::sincos(y);
                for d in [ulps(s, ls), ulps(c, lc)] {
                    if own {
                        results += 1;
                        differ += usize::from(d > 0);
                    }
                    if d > worst {
                        (worst, at) = (d, y);
                    }
                }
            }
        }
        println!(
            "{name}: {} arguments, largest difference {worst} ulp (at {at:e}), {:.2} % of the results differ",
            xs.len(),
            100.0 * differ as f64 / results as f64
        );
        assert!(
            worst <= 1,
            "{name}: sin_cos_pair is {worst} ulp from libm at {at:e}"
        );
    }
    assert!(pairs >= 1_000_000, "only {pairs} pairs");
}

#[test]
fn sin_cos_quad_is_sin_cos_pair_or_libm_bit_for_bit() {
    quads_are_pairs_or_libm("sin_cos_quad", sin_cos_quad);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx2_routine_is_sin_cos_pair_or_libm_bit_for_bit() {
    if !avx_detected() {
        eprintln!("no AVX2 here: sin_cos_quad_avx2 not run");
        return;
    }
    quads_are_pairs_or_libm("sin_cos_quad_avx2", |a, b, c, d| {
        // SAFETY: the processor runs AVX2 (asked just above).
        unsafe { sharnir_generated::panda::sin_cos_quad_avx2(a, b, c, d) }
    });
}

/// Every argument of [`families`] once in a random lane of `quad` (named
/// `name`), with three random partners: each lane's result is
/// `sin_cos_pair`'s bit for bit, or `libm`'s.
fn quads_are_pairs_or_libm(name: &str, quad: impl Fn(f64, f64, f64, f64) -> [(f64, f64); 4]) {
    let everything: Vec<f64> = families().into_iter().flat_map(|(_, xs)| xs).collect();
    let mut rng = SmallRng::seed_from_u64(19);
    let bits = |(s, c): (f64, f64)| (s.to_bits(), c.to_bits());
    for &x in &everything {
        let mut xs: [f64; 4] =
            std::array::from_fn(|_| everything[rng.gen_range(0..everything.len())]);
        xs[rng.gen_range(0..4)] = x;
        let results = quad(xs[0], xs[1], xs[2], xs[3]);
        for (got, y) in results.into_iter().zip(xs) {
            let (alone, _) = sin_cos_pair(y, y);
            assert!(
                bits(got) == bits(alone) || bits(got) == bits(libm::sincos(y)),
                "{name} differs from sin_cos_pair and libm at {y:e}"
            );
        }
    }
}
