use super::*;

#[test]
fn the_twins_sines_and_cosines_are_within_two_ulp_of_one() {
    let tolerance = 2.0 * f32::EPSILON;
    let mut x = -401.0_f32;
    while x < 401.0 {
        let (s, c) = sin_cos(x);
        let exact = f64::from(x);
        assert!(
            (f64::from(s) - exact.sin()).abs() <= f64::from(tolerance),
            "sin {x}"
        );
        assert!(
            (f64::from(c) - exact.cos()).abs() <= f64::from(tolerance),
            "cos {x}"
        );
        assert_eq!((sin(x), cos(x)), (s, c));
        x += 0.173;
    }
    // Beyond the exact reduction, `libm`.
    assert_eq!(sin_cos(1e4), libm::Libm::<f32>::sincos(1e4));
    let [a, b, c, d] = [0.1, 1.0, -2.0, 3.0];
    assert_eq!(sin_cos_pair(a, b), (sin_cos(a), sin_cos(b)));
    assert_eq!(sin_cos_quad(a, b, c, d), [a, b, c, d].map(sin_cos));
    assert_eq!(
        fma(0.1, 3.0, -0.3).to_bits(),
        0.1_f32.mul_add(3.0, -0.3).to_bits()
    );
}
