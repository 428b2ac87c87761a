//! What the processor running the tests offers, as `std` detects it.

/// Whether the processor has AVX and the operating system saves its
/// registers: where the generated modules' AVX copies must run.
pub fn avx_detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}
