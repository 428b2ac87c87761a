//! Two values computed side by side, as it is written at the end of every
//! `f64` module whose functions compute two isomorphic branches together
//! (the legs of a robot that are the same chain with other coordinates,
//! `sharnir_cas::Program::pair_lanes`): a lane statement `let vt5 = …;`
//! evaluates its expression for both branches at once, its leaves made by
//! `pair` (one value per branch, or one value twice) and its results read
//! back by `pair_lanes`. On x86-64, where SSE2 is part of the baseline (so
//! the portable build has it), a `Pair` is one SSE2 register and every
//! operation one instruction for both lanes; elsewhere it is two values
//! and the operations are done one lane after the other. Either way each
//! lane performs the operations of the scalar statement it stands for, in
//! the same order and with the same rounding: the results are the scalar
//! code's bit for bit. Compiled here, in tests only, as a module whose
//! `Real` is `f64`.

#[cfg(test)]
mod tests;

/// The scalar type of the `f64` modules.
type Real = f64;

/// Two values of the module's `Real`, one per branch, in the two lanes of
/// an SSE2 register (x86-64's baseline).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Pair(core::arch::x86_64::__m128d);

/// Two values of the module's `Real`, one per branch (this target has no
/// vector registers the module uses).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy)]
struct Pair([Real; 2]);

/// The pair of `a` (first lane) and `b` (second lane); `pair(x, x)` for a
/// value both branches share.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::useless_conversion)]
#[inline(always)]
fn pair(a: Real, b: Real) -> Pair {
    // SAFETY: SSE2 is part of every x86-64 target; the intrinsic touches
    // no memory.
    unsafe { Pair(core::arch::x86_64::_mm_set_pd(f64::from(b), f64::from(a))) }
}

/// The pair of `a` (first lane) and `b` (second lane); `pair(x, x)` for a
/// value both branches share.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn pair(a: Real, b: Real) -> Pair {
    Pair([a, b])
}

/// The two lanes of `p`: the first branch's value, then the second's.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::unnecessary_cast)]
#[inline(always)]
fn pair_lanes(p: Pair) -> (Real, Real) {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86-64 target; the intrinsics touch no
    // memory.
    unsafe {
        (
            _mm_cvtsd_f64(p.0) as Real,
            _mm_cvtsd_f64(_mm_unpackhi_pd(p.0, p.0)) as Real,
        )
    }
}

/// The two lanes of `p`: the first branch's value, then the second's.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn pair_lanes(p: Pair) -> (Real, Real) {
    (p.0[0], p.0[1])
}

/// Lane by lane `a + b`.
#[cfg(target_arch = "x86_64")]
impl core::ops::Add for Pair {
    type Output = Pair;
    #[inline(always)]
    fn add(self, other: Pair) -> Pair {
        // SAFETY: SSE2 is part of every x86-64 target.
        unsafe { Pair(core::arch::x86_64::_mm_add_pd(self.0, other.0)) }
    }
}

/// Lane by lane `a + b`.
#[cfg(not(target_arch = "x86_64"))]
impl core::ops::Add for Pair {
    type Output = Pair;
    #[inline(always)]
    fn add(self, other: Pair) -> Pair {
        Pair([self.0[0] + other.0[0], self.0[1] + other.0[1]])
    }
}

/// Lane by lane `a − b`.
#[cfg(target_arch = "x86_64")]
impl core::ops::Sub for Pair {
    type Output = Pair;
    #[inline(always)]
    fn sub(self, other: Pair) -> Pair {
        // SAFETY: SSE2 is part of every x86-64 target.
        unsafe { Pair(core::arch::x86_64::_mm_sub_pd(self.0, other.0)) }
    }
}

/// Lane by lane `a − b`.
#[cfg(not(target_arch = "x86_64"))]
impl core::ops::Sub for Pair {
    type Output = Pair;
    #[inline(always)]
    fn sub(self, other: Pair) -> Pair {
        Pair([self.0[0] - other.0[0], self.0[1] - other.0[1]])
    }
}

/// Lane by lane `a · b`.
#[cfg(target_arch = "x86_64")]
impl core::ops::Mul for Pair {
    type Output = Pair;
    #[inline(always)]
    fn mul(self, other: Pair) -> Pair {
        // SAFETY: SSE2 is part of every x86-64 target.
        unsafe { Pair(core::arch::x86_64::_mm_mul_pd(self.0, other.0)) }
    }
}

/// Lane by lane `a · b`.
#[cfg(not(target_arch = "x86_64"))]
impl core::ops::Mul for Pair {
    type Output = Pair;
    #[inline(always)]
    fn mul(self, other: Pair) -> Pair {
        Pair([self.0[0] * other.0[0], self.0[1] * other.0[1]])
    }
}

/// Lane by lane `a / b`.
#[cfg(target_arch = "x86_64")]
impl core::ops::Div for Pair {
    type Output = Pair;
    #[inline(always)]
    fn div(self, other: Pair) -> Pair {
        // SAFETY: SSE2 is part of every x86-64 target.
        unsafe { Pair(core::arch::x86_64::_mm_div_pd(self.0, other.0)) }
    }
}

/// Lane by lane `a / b`.
#[cfg(not(target_arch = "x86_64"))]
impl core::ops::Div for Pair {
    type Output = Pair;
    #[inline(always)]
    fn div(self, other: Pair) -> Pair {
        Pair([self.0[0] / other.0[0], self.0[1] / other.0[1]])
    }
}

/// Lane by lane `−a`: the sign bits flipped, as a scalar negation does.
#[cfg(target_arch = "x86_64")]
impl core::ops::Neg for Pair {
    type Output = Pair;
    #[inline(always)]
    fn neg(self) -> Pair {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target.
        unsafe { Pair(_mm_xor_pd(self.0, _mm_set1_pd(-0.0))) }
    }
}

/// Lane by lane `−a`.
#[cfg(not(target_arch = "x86_64"))]
impl core::ops::Neg for Pair {
    type Output = Pair;
    #[inline(always)]
    fn neg(self) -> Pair {
        Pair([-self.0[0], -self.0[1]])
    }
}
