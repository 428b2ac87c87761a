//! A dip of one event function component to zero and back between two
//! compared points of a step, which the signs at the points cannot show:
//! a mechanism passing close by a singular configuration in a fraction of
//! a step, its conditioning falling through the threshold and rising again.
//!
//! Among points that all have one sign, the one nearest zero is a valley
//! of `|g|`. If `g` were to reach zero between its neighbours while
//! changing no faster than it does from the valley to them, the valley
//! could be no higher than that change; only then is the bracket of its
//! neighbours searched, by golden-section minimisation of `|g|` on the
//! continuous extension, stopping at the first point where `g` has changed
//! sign. So a step far from zero costs nothing, and a dip that is one
//! valley between two points is found wherever it falls.

use super::{time_tolerance, EventError};

/// More iterations than a bracket of `f64` times needs (each shrinks it by
/// the golden ratio).
const MAX_ITERATIONS: usize = 200;

/// A dip found: `g` at a time where it has changed sign, with a point on
/// each side of it where it has not; each pair brackets one crossing.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dip {
    pub(super) before: (f64, f64),
    pub(super) bottom: (f64, f64),
    pub(super) after: (f64, f64),
}

/// The dip of `g` between the `n` compared points `point(0) … point(n−1)`
/// (time order, `(t, g)`), all of one sign, if their valley brackets one;
/// `g(t, out)` evaluates `g` on the continuous extension.
pub(super) fn dip<P, F>(n: usize, point: P, g: &mut F) -> Result<Option<Dip>, EventError>
where
    P: Fn(usize) -> (f64, f64),
    F: FnMut(f64, &mut f64) -> Result<(), EventError>,
{
    let sign = point(0).1.signum();
    if n < 2 || (0..n).any(|j| point(j).1 == 0.0 || point(j).1.signum() != sign) {
        return Ok(None);
    }
    let height = |j: usize| sign * point(j).1;
    let k = (0..n).fold(0, |low, j| if height(j) < height(low) { j } else { low });
    let (left, right) = (k.saturating_sub(1), (k + 1).min(n - 1));
    let rise = height(left).max(height(right)) - height(k);
    if height(k) > rise {
        return Ok(None);
    }
    // Golden-section search for the lowest |g| in (left, right), whose ends
    // are above zero; the first value that is not is the dip's bottom.
    let ratio = 0.5 * (5.0_f64.sqrt() - 1.0);
    let (mut a, mut b) = (point(left), point(right));
    let mut value = |t: f64| -> Result<(f64, f64), EventError> {
        let mut out = 0.0;
        g(t, &mut out)?;
        Ok((t, out))
    };
    let inner = |a: f64, b: f64| (b - ratio * (b - a), a + ratio * (b - a));
    let (t1, t2) = inner(a.0, b.0);
    let (mut c, mut d) = (value(t1)?, value(t2)?);
    for _ in 0..MAX_ITERATIONS {
        // a < c < d < b; the first of c, d that is not above zero is the
        // bottom, between neighbours that are.
        if sign * c.1 <= 0.0 {
            let after = if sign * d.1 > 0.0 { d } else { b };
            return Ok(Some(Dip {
                before: a,
                bottom: c,
                after,
            }));
        }
        if sign * d.1 <= 0.0 {
            return Ok(Some(Dip {
                before: c,
                bottom: d,
                after: b,
            }));
        }
        if b.0 - a.0 <= time_tolerance(a.0, b.0) {
            break;
        }
        if sign * c.1 < sign * d.1 {
            b = d;
            d = c;
            c = value(inner(a.0, b.0).0)?;
        } else {
            a = c;
            c = d;
            d = value(inner(a.0, b.0).1)?;
        }
    }
    Ok(None)
}
