use super::*;

#[test]
fn the_build_lanes_are_the_modules_helpers() {
    let angles = [0.3, -2.0, 7.5, 1e3];
    let quad = BuildLanes.sin_cos_quad(angles[0], angles[1], angles[2], angles[3]);
    assert_eq!(
        quad,
        sin_cos_quad(angles[0], angles[1], angles[2], angles[3])
    );
    for (&x, (s, c)) in angles.iter().zip(quad) {
        assert!(
            (s - x.sin()).abs() < 1e-15 && (c - x.cos()).abs() < 1e-15,
            "{x}"
        );
    }
    let (a, b, c) = (0.1, 3.0_f64.sqrt(), -0.3);
    assert_eq!(BuildLanes.fma(a, b, c).to_bits(), a.mul_add(b, c).to_bits());
}

/// The switch turns the copies off and back on, and the copies' lanes give
/// the build's bits: the same four angles' sines and cosines, the same fused
/// results, where the processor runs them.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[test]
fn the_avx2_lanes_give_the_builds_bits() {
    set_avx_copies(false);
    assert!(!avx_copies());
    set_avx_copies(true);
    let detected = std::is_x86_feature_detected!("avx")
        && std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma");
    assert_eq!(avx_copies(), detected);
    let Some(avx2) = avx::usable() else {
        return;
    };
    for angles in [[0.3, -2.0, 7.5, 1e3], [1e-3, 2e6, -0.0, 4.0]] {
        let [a, b, c, d] = angles;
        assert_eq!(
            avx2.sin_cos_quad(a, b, c, d),
            BuildLanes.sin_cos_quad(a, b, c, d)
        );
    }
    let (a, b, c) = (0.1, 3.0_f64.sqrt(), -0.3);
    assert_eq!(
        avx2.fma(a, b, c).to_bits(),
        BuildLanes.fma(a, b, c).to_bits()
    );
}
