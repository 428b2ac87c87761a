//! Each lane of a `Pair` operation is the scalar operation, bit for bit.

use super::*;

/// Values with every kind of sign, size and special case.
const VALUES: [f64; 10] = [
    0.0,
    -0.0,
    1.5,
    -2.25,
    1e-310,
    -3.7e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    0.1,
];

fn bits((a, b): (Real, Real)) -> (u64, u64) {
    (a.to_bits(), b.to_bits())
}

#[test]
fn every_lane_is_the_scalar_operation() {
    for &a in &VALUES {
        for &b in &VALUES {
            for &c in &VALUES {
                let (x, y) = (pair(a, c), pair(b, a));
                assert_eq!(bits(pair_lanes(pair(a, c))), bits((a, c)));
                assert_eq!(bits(pair_lanes(x + y)), bits((a + b, c + a)));
                assert_eq!(bits(pair_lanes(x - y)), bits((a - b, c - a)));
                assert_eq!(bits(pair_lanes(x * y)), bits((a * b, c * a)));
                assert_eq!(bits(pair_lanes(x / y)), bits((a / b, c / a)));
                assert_eq!(bits(pair_lanes(-x)), bits((-a, -c)));
            }
        }
    }
}
