//! The root of one event function component inside one step: the Illinois
//! variant of regula falsi, with bisection when it stalls.
//!
//! Regula falsi keeps a bracket, so it cannot lose the root, but on a convex
//! function one end never moves and convergence is linear; the Illinois rule
//! (halve the value kept at an end that survived twice) makes it
//! superlinear (order about 1.44) while keeping the bracket. Each iteration
//! costs one dense-output evaluation and one call of the event function.

use super::{time_tolerance, Direction, EventError};

/// More iterations than any bracket of `f64` times needs: every third
/// iteration at most is a bisection when the bracket stops shrinking.
const MAX_ITERATIONS: usize = 400;

/// The time at which `g` crosses zero in `direction` between `a` (value
/// `ga`, before the crossing) and `b` (value `gb`, after it): the end of the
/// final bracket on the crossing's far side, so that `g` there already has
/// its new sign (a restart from it does not see the same crossing again),
/// or the time at which `g` is exactly zero.
pub(super) fn root<F>(
    g: &mut F,
    (mut a, mut ga): (f64, f64),
    (mut b, mut gb): (f64, f64),
    direction: Direction,
) -> Result<f64, EventError>
where
    F: FnMut(f64, &mut f64) -> Result<(), EventError>,
{
    // Zero counts as the far side, as in `Direction::crossing`.
    let far = |v: f64| match direction {
        Direction::Falling => v <= 0.0,
        _ => v >= 0.0,
    };
    if gb == 0.0 {
        return Ok(b);
    }
    // Which end the last iteration moved (+1: b, −1: a), for the Illinois
    // rule; how many iterations in a row failed to halve the bracket.
    let mut moved = 0i8;
    let mut slow = 0u8;
    for _ in 0..MAX_ITERATIONS {
        let width = b - a;
        if width <= time_tolerance(a, b) {
            break;
        }
        let secant = b - gb * width / (gb - ga);
        let t = if slow >= 2 || !(secant > a && secant < b) {
            slow = 0;
            0.5 * (a + b)
        } else {
            secant
        };
        if !(t > a && t < b) {
            break;
        }
        let mut gt = 0.0;
        g(t, &mut gt)?;
        if gt == 0.0 {
            return Ok(t);
        }
        if far(gt) {
            b = t;
            gb = gt;
            if moved == 1 {
                ga *= 0.5;
            }
            moved = 1;
        } else {
            a = t;
            ga = gt;
            if moved == -1 {
                gb *= 0.5;
            }
            moved = -1;
        }
        slow = if b - a > 0.5 * width { slow + 1 } else { 0 };
    }
    Ok(b)
}
