//! The scalar type of a model: `f64` on a host, `f32` on a microcontroller
//! without a double-precision unit. Generated modules fix theirs with
//! `pub type Real`, and the runtime's `no_std` integrators work in either.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A floating-point scalar the fixed-step integrators can work in.
///
/// Only what integration needs: field arithmetic, a square root, sine and
/// cosine (through `libm`, so that they exist without `std`) and conversions to and from
/// `f64` for step sizes and tolerances given by the caller.
pub trait Real:
    Copy
    + Debug
    + PartialOrd
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    /// The additive identity.
    const ZERO: Self;
    /// The multiplicative identity.
    const ONE: Self;
    /// The machine epsilon (the spacing of numbers near one).
    const EPSILON: Self;
    /// The nearest value of this type.
    fn from_f64(value: f64) -> Self;
    /// The value widened (or kept) as `f64`.
    fn to_f64(self) -> f64;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Sine and cosine (for turning quaternions by the exponential map).
    fn sin_cos(self) -> (Self, Self);
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const EPSILON: Self = f64::EPSILON;
    fn from_f64(value: f64) -> Self {
        value
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        libm::sqrt(self)
    }
    fn abs(self) -> Self {
        libm::fabs(self)
    }
    fn sin_cos(self) -> (Self, Self) {
        libm::sincos(self)
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const EPSILON: Self = f32::EPSILON;
    fn from_f64(value: f64) -> Self {
        value as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn sqrt(self) -> Self {
        libm::sqrtf(self)
    }
    fn abs(self) -> Self {
        libm::fabsf(self)
    }
    fn sin_cos(self) -> (Self, Self) {
        libm::sincosf(self)
    }
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
}
