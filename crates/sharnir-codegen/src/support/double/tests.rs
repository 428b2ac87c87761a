use super::*;

/// Within `ulps` units in the last place of the larger of `a` and `b`.
fn close(a: f64, b: f64, ulps: f64) -> bool {
    (a - b).abs() <= ulps * f64::EPSILON * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

#[test]
fn the_libm_helpers_are_the_functions_they_name() {
    assert_eq!(sqrt(2.0), 2.0_f64.sqrt());
    for x in [0.0, 0.5, -1.25, 3.0, 1e5] {
        assert_eq!(sin_cos(x), (sin(x), cos(x)));
        assert!(
            close(sin(x), x.sin(), 1.0) && close(cos(x), x.cos(), 1.0),
            "{x}"
        );
    }
    let (a, b, c) = (0.1, 3.0_f64.sqrt(), -0.3);
    assert_eq!(fma(a, b, c).to_bits(), a.mul_add(b, c).to_bits());
}

/// Two and four angles at once are `libm`'s results or one ulp away, over
/// angles the lanes reduce and angles they leave to `libm` (large, zero,
/// not finite, at a multiple of π/2).
#[test]
fn two_and_four_angles_at_once_agree_with_libm() {
    let angles = [
        0.3,
        -2.0,
        7.5,
        1e3,
        -1e5,
        1e-300,
        0.0,
        2e6,
        core::f64::consts::FRAC_PI_2,
        f64::NAN,
    ];
    for (i, &a) in angles.iter().enumerate() {
        let b = angles[(i + 3) % angles.len()];
        let (first, second) = sin_cos_pair(a, b);
        for (x, (s, c)) in [(a, first), (b, second)] {
            let (ls, lc) = sin_cos(x);
            if x.is_nan() {
                assert!(s.is_nan() && c.is_nan());
                continue;
            }
            assert!(close(s, ls, 1.0) && close(c, lc, 1.0), "{x}: {s} {c}");
        }
        let (c, d) = (
            angles[(i + 5) % angles.len()],
            angles[(i + 7) % angles.len()],
        );
        let quad = sin_cos_quad(a, b, c, d);
        let pairs = [sin_cos_pair(a, b), sin_cos_pair(c, d)];
        let expected = [pairs[0].0, pairs[0].1, pairs[1].0, pairs[1].1];
        let bits = |v: [(f64, f64); 4]| v.map(|(s, c)| (s.to_bits(), c.to_bits()));
        // Bit for bit, NaN's bits included, unless one of the four sends
        // them all to `libm` where the pairs reduced their own.
        let any_to_libm = [a, b, c, d].iter().any(|x| {
            x.is_nan()
                || x.abs() >= 1_048_576.0
                || x.abs() < 1e-100
                || *x == core::f64::consts::FRAC_PI_2
        });
        if !any_to_libm {
            assert_eq!(bits(quad), bits(expected), "{a} {b} {c} {d}");
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor runs AVX2.
            let avx2 = unsafe { sin_cos_quad_avx2(a, b, c, d) };
            if any_to_libm {
                assert_eq!(bits(avx2), bits([a, b, c, d].map(sin_cos)));
            } else {
                assert_eq!(bits(avx2), bits(expected), "{a} {b} {c} {d}");
            }
        }
    }
}
