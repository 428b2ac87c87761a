//! What the processor running the tests offers, as `std` detects it.

/// Whether the processor has AVX and AVX2 and the operating system saves
/// their registers: where the generated modules' AVX copies must run.
pub fn avx_detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}
