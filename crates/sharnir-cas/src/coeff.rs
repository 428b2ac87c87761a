//! Numeric coefficients: exact rationals while they fit, IEEE doubles after.
//!
//! Structural numbers (the 2 in `2·ω×v`, the ½ of a mid-point) stay exact, so
//! `1 − c + c` cancels to exactly 1 and zeros propagate. Parameter values folded
//! in with `--fold` are decimal literals and usually stay exact too; a product
//! whose numerator or denominator would overflow `i128` degrades to a float
//! rather than failing, so construction never panics.

use std::cmp::Ordering;
use std::ops::{Mul, Neg};
use std::sync::{LazyLock, Mutex};

/// A numeric coefficient of a sum term, a constant, or a folded parameter.
///
/// Sixteen bytes, because every term of every sum holds one and a big
/// robot's expressions hold millions of terms: a fraction whose numerator
/// fits 64 bits and denominator 32 (nearly all of them) is stored in
/// place, a larger one in a table of such fractions that lives as long as
/// the program (they are few: folded decimals multiplied together). Each
/// value has exactly one form, so equality and hashing compare forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coeff(Repr);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Repr {
    /// `num / den` in lowest terms with `den > 0`.
    Small(i64, u32),
    /// A fraction in lowest terms that does not fit `Small`: its index in
    /// [`BIG`].
    Big(u32),
    /// An inexact value, by its bits (so never NaN-compared for identity).
    Float(u64),
}

/// What a coefficient is worth, for arithmetic.
#[derive(Clone, Copy)]
enum Value {
    /// `num / den` in lowest terms with `den > 0`.
    Exact(i128, i128),
    /// An inexact value.
    Float(f64),
}

/// The fractions too large to be stored in place, each once.
#[derive(Default)]
struct BigFractions {
    values: Vec<(i128, i128)>,
    index: rustc_hash::FxHashMap<(i128, i128), u32>,
}

/// The table of [`Repr::Big`] fractions, shared by every pool and thread.
static BIG: LazyLock<Mutex<BigFractions>> = LazyLock::new(Mutex::default);

/// The table, even if a thread panicked while holding it (it only ever
/// grows, and a half-finished insertion leaves no fraction wrong).
fn big_fractions() -> std::sync::MutexGuard<'static, BigFractions> {
    BIG.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Coeff {
    /// Exact zero.
    pub const ZERO: Coeff = Coeff(Repr::Small(0, 1));
    /// Exact one.
    pub const ONE: Coeff = Coeff(Repr::Small(1, 1));
    /// Exact minus one.
    pub const MINUS_ONE: Coeff = Coeff(Repr::Small(-1, 1));

    /// An exact integer.
    pub fn int(n: i64) -> Coeff {
        Coeff(Repr::Small(n, 1))
    }

    /// An inexact value, as it is (`-0.0` stays `-0.0`).
    pub fn inexact(x: f64) -> Coeff {
        Coeff(Repr::Float(x.to_bits()))
    }

    /// The fraction `num / den`, already in lowest terms with `den > 0`,
    /// in its one form; a float if the table of large fractions is full.
    fn exact(num: i128, den: i128) -> Coeff {
        if let (Ok(n), Ok(d)) = (i64::try_from(num), u32::try_from(den)) {
            return Coeff(Repr::Small(n, d));
        }
        let mut table = big_fractions();
        if let Some(&i) = table.index.get(&(num, den)) {
            return Coeff(Repr::Big(i));
        }
        let Ok(i) = u32::try_from(table.values.len()) else {
            return Coeff::inexact(num as f64 / den as f64);
        };
        table.values.push((num, den));
        table.index.insert((num, den), i);
        Coeff(Repr::Big(i))
    }

    /// The value, for arithmetic.
    fn value(self) -> Value {
        match self.0 {
            Repr::Small(n, d) => Value::Exact(i128::from(n), i128::from(d)),
            Repr::Big(i) => match big_fractions().values.get(i as usize) {
                Some(&(n, d)) => Value::Exact(n, d),
                // Never handed out: only `exact` makes big fractions.
                None => Value::Float(f64::NAN),
            },
            Repr::Float(bits) => Value::Float(f64::from_bits(bits)),
        }
    }

    /// The exact fraction `(num, den)` in lowest terms with `den > 0`, if
    /// this coefficient is exact.
    pub fn as_fraction(self) -> Option<(i128, i128)> {
        match self.value() {
            Value::Exact(n, d) => Some((n, d)),
            Value::Float(_) => None,
        }
    }

    /// An exact fraction, reduced; a zero denominator gives an infinite float.
    pub fn ratio(num: i128, den: i128) -> Coeff {
        if den == 0 {
            return Coeff::inexact(if num == 0 { f64::NAN } else { f64::INFINITY });
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs());
        let (mut n, mut d) = (num / g as i128, den / g as i128);
        if d < 0 {
            match (n.checked_neg(), d.checked_neg()) {
                (Some(nn), Some(dd)) => {
                    n = nn;
                    d = dd;
                }
                _ => return Coeff::inexact(num as f64 / den as f64),
            }
        }
        Coeff::exact(n, d)
    }

    /// The exact value of a double's shortest round-trip decimal text
    /// (`0.6` becomes 3/5, not 5404319552844595/9007199254740992), because
    /// spec authors mean the decimal they wrote.
    pub fn from_decimal_f64(x: f64) -> Coeff {
        if !x.is_finite() {
            return Coeff::inexact(x);
        }
        parse_decimal(&format!("{x:e}")).unwrap_or(Coeff::inexact(x))
    }

    /// The value as a double.
    pub fn to_f64(self) -> f64 {
        match self.value() {
            Value::Exact(n, d) => n as f64 / d as f64,
            Value::Float(x) => x,
        }
    }

    /// True for an exact or floating zero.
    pub fn is_zero(self) -> bool {
        match self.0 {
            Repr::Small(n, _) => n == 0,
            Repr::Big(_) => false,
            Repr::Float(bits) => f64::from_bits(bits) == 0.0,
        }
    }

    /// True for exactly one.
    pub fn is_one(self) -> bool {
        self == Coeff::ONE
    }

    /// True for exactly minus one.
    pub fn is_minus_one(self) -> bool {
        self == Coeff::MINUS_ONE
    }

    /// Whether `self == -other`, without forming `-other` where both are
    /// stored in place (the pair extraction asks this of every pair).
    pub fn is_negation_of(self, other: Coeff) -> bool {
        match (self.0, other.0) {
            (Repr::Small(n, d), Repr::Small(m, e)) => {
                m.checked_neg().is_some_and(|minus_m| n == minus_m) && d == e
            }
            _ => self == -other,
        }
    }

    /// True if the value is negative (used to choose `a − b` over `a + (−1)·b`).
    pub fn is_negative(self) -> bool {
        match self.value() {
            Value::Exact(n, _) => n < 0,
            Value::Float(x) => x < 0.0,
        }
    }

    /// The exact integer value, if this is one.
    pub fn as_integer(self) -> Option<i128> {
        match self.value() {
            Value::Exact(n, 1) => Some(n),
            _ => None,
        }
    }

    /// Sum, exact when both are exact and nothing overflows.
    fn sum(self, other: Coeff) -> Coeff {
        match (self.value(), other.value()) {
            (Value::Exact(a, 1), Value::Exact(c, 1)) => a
                .checked_add(c)
                .map_or(Coeff::inexact(a as f64 + c as f64), |n| Coeff::exact(n, 1)),
            (Value::Exact(a, b), Value::Exact(c, d)) => {
                let exact = (|| {
                    let num = a.checked_mul(d)?.checked_add(c.checked_mul(b)?)?;
                    Some(Coeff::ratio(num, b.checked_mul(d)?))
                })();
                exact.unwrap_or(Coeff::inexact(self.to_f64() + other.to_f64()))
            }
            _ => Coeff::float(self.to_f64() + other.to_f64()),
        }
    }

    /// Product, exact when both are exact and nothing overflows.
    fn product(self, other: Coeff) -> Coeff {
        if self.is_one() && !matches!(other.0, Repr::Float(_)) {
            return other;
        }
        if other.is_one() && !matches!(self.0, Repr::Float(_)) {
            return self;
        }
        match (self.0, other.0) {
            (Repr::Small(a, b), Repr::Small(c, d)) => {
                // Most coefficients: the cross reductions in 64 bits, and
                // products of two 64-bit numbers cannot overflow 128 bits.
                let (b, d) = (i64::from(b), i64::from(d));
                let reduced = |x: i64, y: i64| {
                    let g = binary_gcd(x.unsigned_abs(), y.unsigned_abs());
                    i64::try_from(g).map_or(1, |g| g.max(1))
                };
                let (g1, g2) = (reduced(a, d), reduced(c, b));
                let num = i128::from(a / g1) * i128::from(c / g2);
                let den = i128::from(b / g2) * i128::from(d / g1);
                // Already in lowest terms with a positive denominator: a
                // prime of both would divide a and b, c and d, or what
                // the cross reductions took out. No 128-bit division then.
                return Coeff::exact(num, den);
            }
            (Repr::Float(_), _) | (_, Repr::Float(_)) => {}
            _ => {
                if let (Value::Exact(a, b), Value::Exact(c, d)) = (self.value(), other.value()) {
                    let exact = (|| {
                        let g1 = gcd(a.unsigned_abs(), d.unsigned_abs()) as i128;
                        let g2 = gcd(c.unsigned_abs(), b.unsigned_abs()) as i128;
                        let num = (a / g1).checked_mul(c / g2)?;
                        let den = (b / g2).checked_mul(d / g1)?;
                        Some(Coeff::ratio(num, den))
                    })();
                    return exact.unwrap_or(Coeff::inexact(self.to_f64() * other.to_f64()));
                }
            }
        }
        if self.is_zero() || other.is_zero() {
            Coeff::ZERO
        } else {
            Coeff::float(self.to_f64() * other.to_f64())
        }
    }

    /// Reciprocal; the reciprocal of zero is an infinite float.
    pub fn recip(self) -> Coeff {
        match self.value() {
            Value::Exact(n, d) => Coeff::ratio(d, n),
            Value::Float(x) => Coeff::inexact(1.0 / x),
        }
    }

    /// `self / divisor`: the product with the reciprocal, with the cross
    /// reductions done at once where both are stored in place (the pair
    /// extraction divides the coefficients of every pair it counts).
    pub fn quotient(self, divisor: Coeff) -> Coeff {
        if divisor.is_one() {
            return self.product(Coeff::ONE);
        }
        match (self.0, divisor.0) {
            (Repr::Small(a, b), Repr::Small(c, d)) if c != 0 => {
                // (a/b) / (c/d) = (a·d) / (b·c), reduced across first: the
                // products of 64-bit numbers cannot overflow 128 bits.
                let (b, d) = (i64::from(b), i64::from(d));
                let reduced = |x: i64, y: i64| {
                    let g = binary_gcd(x.unsigned_abs(), y.unsigned_abs());
                    i128::from(g.max(1))
                };
                let (g1, g2) = (reduced(a, c), reduced(b, d));
                let (a, b, c, d) = (i128::from(a), i128::from(b), i128::from(c), i128::from(d));
                Coeff::ratio((a / g1) * (d / g2), (b / g2) * (c / g1))
            }
            _ => self * divisor.recip(),
        }
    }

    /// Integer power by repeated squaring.
    pub fn powi(self, exp: i32) -> Coeff {
        let base = if exp < 0 { self.recip() } else { self };
        let mut result = Coeff::ONE;
        let mut square = base;
        let mut e = exp.unsigned_abs();
        while e > 0 {
            if e & 1 == 1 {
                result = result.mul(square);
            }
            square = square.mul(square);
            e >>= 1;
        }
        result
    }

    /// A float, normalising −0.0 to exact zero so identity is stable.
    fn float(x: f64) -> Coeff {
        if x == 0.0 {
            Coeff::ZERO
        } else {
            Coeff::inexact(x)
        }
    }

    /// A total order used to sort terms deterministically.
    pub fn total_cmp(self, other: Coeff) -> Ordering {
        self.to_f64().total_cmp(&other.to_f64())
    }
}

impl std::ops::Add for Coeff {
    type Output = Coeff;
    fn add(self, other: Coeff) -> Coeff {
        self.sum(other)
    }
}

impl std::ops::Mul for Coeff {
    type Output = Coeff;
    fn mul(self, other: Coeff) -> Coeff {
        self.product(other)
    }
}

impl std::ops::Neg for Coeff {
    type Output = Coeff;
    fn neg(self) -> Coeff {
        match self.value() {
            // What the product with −1 gives, without its divisions.
            Value::Exact(n, d) if n != i128::MIN => Coeff::ratio(-n, d),
            _ => self.product(Coeff::MINUS_ONE),
        }
    }
}

/// The greatest common divisor, at least 1 (so dividing by it is safe for
/// `0 / 0`). Most coefficients fit 64 bits, where the binary algorithm
/// avoids 128-bit divisions, the slowest step of building sums.
fn gcd(mut a: u128, mut b: u128) -> u128 {
    if let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) {
        return u128::from(binary_gcd(a, b).max(1));
    }
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Stein's binary greatest common divisor: shifts and subtractions only.
fn binary_gcd(mut a: u64, mut b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// Parses `d.ddde±x` (Rust's `{:e}` form) into an exact rational.
fn parse_decimal(text: &str) -> Option<Coeff> {
    let (mantissa, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = mantissa.starts_with('-');
    let digits_part = mantissa.trim_start_matches('-');
    let (int_part, frac_part) = digits_part.split_once('.').unwrap_or((digits_part, ""));
    let digits: i128 = format!("{int_part}{frac_part}").parse().ok()?;
    let scale = exponent - frac_part.len() as i32;
    let ten = Coeff::int(10);
    let magnitude = Coeff::exact(digits, 1).mul(ten.powi(scale));
    magnitude.as_fraction()?;
    Some(if negative { magnitude.neg() } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_become_exact_fractions() {
        assert_eq!(Coeff::from_decimal_f64(0.6).as_fraction(), Some((3, 5)));
        assert_eq!(
            Coeff::from_decimal_f64(-9.81).as_fraction(),
            Some((-981, 100))
        );
        assert_eq!(Coeff::from_decimal_f64(1e-3).as_fraction(), Some((1, 1000)));
        assert_eq!(Coeff::from_decimal_f64(2.0).as_fraction(), Some((2, 1)));
        assert_eq!(
            Coeff::from_decimal_f64(1.5e20).as_fraction(),
            Some((150_000_000_000_000_000_000, 1))
        );
    }

    #[test]
    fn arithmetic_is_exact_and_reduced() {
        let third = Coeff::ratio(1, 3);
        assert_eq!(third + third + third, Coeff::ONE);
        assert_eq!(Coeff::ratio(2, -4).as_fraction(), Some((-1, 2)));
        assert_eq!(Coeff::ratio(3, 5).powi(-2).as_fraction(), Some((25, 9)));
        assert_eq!(Coeff::int(7).mul(Coeff::ratio(1, 7)), Coeff::ONE);
    }

    #[test]
    fn overflow_degrades_to_float() {
        let big = Coeff::exact(i128::MAX / 2, 1);
        let product = big.mul(big);
        assert!(product.as_fraction().is_none());
        let expected = (i128::MAX / 2) as f64;
        assert!((product.to_f64() / (expected * expected) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_binary_gcd_is_euclid_s() {
        let euclid = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let samples = [
            0,
            1,
            2,
            3,
            6,
            12,
            35,
            97,
            1 << 40,
            3 << 61,
            600_851_475_143,
            u64::MAX,
        ];
        for a in samples {
            for b in samples {
                assert_eq!(binary_gcd(a, b), euclid(a, b), "gcd({a}, {b})");
            }
        }
    }

    proptest::proptest! {
        /// The product of two fractions stored in place is the reduced
        /// product of numerators over denominators (`ratio`), in the one
        /// form: the in-place path skips the final reduction.
        #[test]
        fn products_in_place_are_reduced(
            p in -1_000_000_000_000i64..1_000_000_000_000,
            q in 1i64..4_000_000_000,
            r in -1_000_000_000_000i64..1_000_000_000_000,
            s in 1i64..4_000_000_000,
            scale in 0usize..4,
        ) {
            // Shared factors of 2, 5 and 3 are the decimals' common case.
            let [p, r] = [p, r].map(|x| x * [1, 2, 10, 3][scale]);
            let (a, b) = (Coeff::ratio(p.into(), q.into()), Coeff::ratio(r.into(), s.into()));
            let want = Coeff::ratio(i128::from(p) * i128::from(r), i128::from(q) * i128::from(s));
            proptest::prop_assert_eq!(a * b, want);
            proptest::prop_assert_eq!(a * b, b * a);
        }
    }

    #[test]
    fn fast_paths_agree_with_the_general_product() {
        let samples = [
            Coeff::ZERO,
            Coeff::ONE,
            Coeff::MINUS_ONE,
            Coeff::ratio(-7, 12),
            Coeff::ratio(981, 100),
            Coeff::exact(i128::MAX, 3),
            Coeff::exact(i128::MIN, 1),
            Coeff::exact(i128::from(i64::MAX) + 2, 5),
            Coeff::inexact(0.3),
            Coeff::inexact(-2.5),
        ];
        // Without cross-cancelling: overflows sooner, never disagrees.
        let general = |a: Coeff, b: Coeff| match (a.as_fraction(), b.as_fraction()) {
            (Some((p, q)), Some((r, s))) => p
                .checked_mul(r)
                .zip(q.checked_mul(s))
                .map_or(Coeff::inexact(a.to_f64() * b.to_f64()), |(n, d)| {
                    Coeff::ratio(n, d)
                }),
            _ => a * b,
        };
        for a in samples {
            assert_eq!(-a, general(a, Coeff::MINUS_ONE), "-({a:?})");
            for b in samples {
                assert_eq!(a.is_negation_of(b), a == -b, "{a:?} = -({b:?})");
            }
            assert_eq!(a.is_negation_of(-a), a == -(-a), "{a:?} = -(-{a:?})");
            for b in samples {
                let (got, want) = (a.quotient(b), a * b.recip());
                if want.as_fraction().is_some() {
                    assert_eq!(got, want, "{a:?} / {b:?}");
                } else {
                    assert!(
                        got.to_f64().total_cmp(&want.to_f64()).is_eq() || {
                            let (g, w) = (got.to_f64(), want.to_f64());
                            (g - w).abs() <= 1e-12 * w.abs()
                        }
                    );
                }
            }
            for b in samples {
                let exact = general(a, b);
                let got = a * b;
                if exact.as_fraction().is_some() {
                    assert_eq!(got, exact, "{a:?} * {b:?}");
                } else {
                    assert!((got.to_f64() - exact.to_f64()).abs() <= 1e-12 * exact.to_f64().abs());
                }
            }
        }
    }

    #[test]
    fn a_coefficient_is_sixteen_bytes_and_large_fractions_have_one_form() {
        assert_eq!(std::mem::size_of::<Coeff>(), 16);
        let big = Coeff::ratio(3 << 80, 6 << 70);
        assert_eq!(big, Coeff::int(512), "reduced, stored in place");
        let wide = Coeff::ratio(7, 1 << 40);
        assert_eq!(
            wide,
            Coeff::ratio(14, 1 << 41),
            "the same value, the same form"
        );
        assert_eq!(wide.as_fraction(), Some((7, 1 << 40)));
        assert_eq!(wide * Coeff::int(1 << 40), Coeff::int(7));
        let huge = Coeff::int(i64::MAX) * Coeff::int(4);
        assert_eq!(huge.as_integer(), Some(i128::from(i64::MAX) * 4));
        assert_eq!(
            huge + Coeff::int(1),
            Coeff::ratio(i128::from(i64::MAX) * 4 + 1, 1)
        );
        assert!(!huge.is_zero() && !(-huge).is_one() && (-huge).is_negative());
    }

    #[test]
    fn float_zero_is_exact_zero() {
        assert_eq!(Coeff::inexact(0.5) + Coeff::inexact(-0.5), Coeff::ZERO);
    }
}
