//! What the AVX copies of a module's long functions stand on, as it is
//! written at the end of every `f64` module that has them
//! (`render/dispatch.rs` writes the copies): `avx_copies` and
//! `set_avx_copies`, public, so that a user can pin one instruction set
//! (for timing analysis, or to compare the two copies, as
//! `tests/avx_copies.rs` does); the private `avx` module that asks the
//! processor: AVX (`cpuid` leaf 1, ECX bit 28), FMA (ECX bit 12), AVX2
//! (leaf 7, EBX bit 5) and their registers saved by the operating system
//! (leaf 1, ECX bit 27, `OSXSAVE`, then bits 1 and 2 of `XCR0` by
//! `xgetbv`), as `std`'s `is_x86_feature_detected!` asks, which `no_std`
//! modules cannot call. The answer is kept in an atomic, so the question
//! is asked once per process (twice at worst, when threads race to the
//! first call: both store the same answer).
//!
//! Where a function's statements compute four angles' sines and cosines at
//! once or fuse multiply–adds, they take the routine from a `lanes`
//! argument: `QuadLanes` and `FmaLanes`, each implemented by `BuildLanes`
//! (the build's routines, in the public function) and by `avx::Avx2` (the
//! AVX2 routine and the FMA instruction, in the copy); a module carries
//! the traits its functions take. Compiled here, in tests only, inside the
//! `f64` routines whose `sin_cos_quad`, `sin_cos_quad_avx2` and `fma` it
//! calls.

#[cfg(target_arch = "x86_64")]
use super::sin_cos_quad_avx2;
#[cfg(test)]
mod tests;
use super::{fma, sin_cos_quad, Real};

/// Whether the long functions of this module (those whose documentation
/// says they have an AVX copy) call that copy: in an x86-64 build without
/// AVX2 (rustc's default target), on a processor with AVX, AVX2 and FMA
/// whose registers the operating system saves, unless [`set_avx_copies`]
/// turned the copies off. `false` on every other target, and in builds that
/// enable AVX2 themselves (`-C target-cpu=native`), where every function is
/// AVX2 code. Both copies compute the same operations in the same order:
/// their results are the same bit for bit, only their speed differs.
pub fn avx_copies() -> bool {
    avx::usable().is_some()
}

/// Turns the AVX copies of [`avx_copies`] off (`false`), for one code path
/// whatever the processor (timing analysis, comparisons), or back on
/// (`true`, the default: they run where the processor allows). For the
/// whole process, from the next call on; no effect where [`avx_copies`] is
/// always `false`.
pub fn set_avx_copies(enabled: bool) {
    avx::set(enabled);
}

/// The build's own routines, which the statements of a function with an
/// AVX copy take in the function itself: the module's helpers.
#[derive(Clone, Copy)]
struct BuildLanes;

/// Four angles' sines and cosines at once, as the statements of a function
/// with an AVX copy compute them: by the build's `sin_cos_quad`
/// ([`BuildLanes`]) or by the AVX2 routine (`avx::Avx2`, in the copy). Both
/// compute the same operations: the same bits.
trait QuadLanes: Copy {
    /// The sines and cosines of `a`, `b`, `c` and `d`.
    fn sin_cos_quad(self, a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4];
}

impl QuadLanes for BuildLanes {
    #[inline(always)]
    fn sin_cos_quad(self, a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
        sin_cos_quad(a, b, c, d)
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
impl QuadLanes for avx::Avx2 {
    #[inline(always)]
    fn sin_cos_quad(self, a: Real, b: Real, c: Real, d: Real) -> [(Real, Real); 4] {
        // SAFETY: an `Avx2` exists only where the processor runs AVX2 and
        // the operating system saves its registers.
        unsafe { sin_cos_quad_avx2(a, b, c, d) }
    }
}

/// Fused multiply–adds, as the statements of a function with an AVX copy
/// compute them: by the module's `fma` ([`BuildLanes`]: `libm`, a call
/// each, unless the build enables FMA) or by the FMA instruction
/// (`avx::Avx2`, in the copy). One correctly rounded result either way.
trait FmaLanes: Copy {
    /// `a · b + c` with one rounding.
    fn fma(self, a: Real, b: Real, c: Real) -> Real;
}

impl FmaLanes for BuildLanes {
    #[inline(always)]
    fn fma(self, a: Real, b: Real, c: Real) -> Real {
        fma(a, b, c)
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
impl FmaLanes for avx::Avx2 {
    #[allow(unused_unsafe)]
    #[inline(always)]
    fn fma(self, a: Real, b: Real, c: Real) -> Real {
        use core::arch::x86_64::*;
        // SAFETY: an `Avx2` exists only where the processor runs FMA; the
        // intrinsics touch no memory.
        unsafe { _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c))) }
    }
}

/// Whether the AVX copies may run, asked of the processor once and
/// remembered.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
mod avx {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// Not asked yet (the first call asks).
    const UNKNOWN: u8 = 0;
    /// The processor and the operating system run AVX, AVX2 and FMA.
    const USABLE: u8 = 1;
    /// They do not.
    const UNUSABLE: u8 = 2;
    /// Turned off by `set_avx_copies(false)`.
    const OFF: u8 = 3;

    /// One of the four states above.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// Proof that the AVX copies may run: made only by [`usable`], where
    /// the processor runs AVX, AVX2 and FMA and the operating system saves
    /// their registers; each copy takes one.
    #[derive(Clone, Copy)]
    pub(super) struct Avx2(());

    /// An [`Avx2`] where the AVX copies run now.
    #[inline]
    pub(super) fn usable() -> Option<Avx2> {
        let state = match STATE.load(Ordering::Relaxed) {
            UNKNOWN => {
                let state = if detected() { USABLE } else { UNUSABLE };
                // A `set` in between (another thread) wins.
                let _ =
                    STATE.compare_exchange(UNKNOWN, state, Ordering::Relaxed, Ordering::Relaxed);
                STATE.load(Ordering::Relaxed)
            }
            state => state,
        };
        if state == USABLE {
            Some(Avx2(()))
        } else {
            None
        }
    }

    /// Turns the copies off, or back on (to be asked again).
    pub(super) fn set(enabled: bool) {
        STATE.store(if enabled { UNKNOWN } else { OFF }, Ordering::Relaxed);
    }

    /// `cpuid` leaf 1 says the processor has AVX and FMA (ECX bits 28 and
    /// 12) and the operating system enabled `xgetbv` (ECX bit 27,
    /// `OSXSAVE`), `XCR0` says it saves the SSE and AVX registers (bits 1
    /// and 2), and leaf 7 (where the processor has it, leaf 0's EAX) says
    /// the processor has AVX2 (EBX bit 5). `cpuid` exists on every x86-64
    /// processor; `xgetbv` is asked only once `OSXSAVE` is set. (Recent
    /// Rust made `__cpuid` safe to call and older Rust, down to the
    /// modules' 1.63, does not: hence `unused_unsafe`.)
    #[cfg(not(target_env = "sgx"))]
    #[allow(unused_unsafe)]
    fn detected() -> bool {
        use core::arch::x86_64::{__cpuid, __cpuid_count};
        #[target_feature(enable = "xsave")]
        unsafe fn xcr0() -> u64 {
            core::arch::x86_64::_xgetbv(0)
        }
        let features = unsafe { __cpuid(1) }.ecx;
        let (fma, osxsave, avx) = (1 << 12, 1 << 27, 1 << 28);
        let avx = features & osxsave != 0
            && features & avx != 0
            && features & fma != 0
            && unsafe { xcr0() } & 0b110 == 0b110;
        avx && unsafe { __cpuid(0) }.eax >= 7 && unsafe { __cpuid_count(7, 0) }.ebx & (1 << 5) != 0
    }

    /// Never in an SGX enclave, where `cpuid` is not allowed.
    #[cfg(target_env = "sgx")]
    fn detected() -> bool {
        false
    }
}

/// Builds without AVX copies: nothing to ask or to turn off.
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
mod avx {
    /// Never: there are no copies.
    pub(super) fn usable() -> Option<core::convert::Infallible> {
        None
    }

    /// Nothing to turn off.
    pub(super) fn set(_enabled: bool) {}
}
