//! Fixed-step integrators that need no allocator: what a controller on a
//! microcontroller runs at its sampling period.
//!
//! The state is any owned vector `V` (`[R; N]` without an allocator, where
//! `N = NQ + NV` is a model's `STATE_LEN`; `Vec<R>` with one), and the
//! stages are copies of it, so nothing is allocated per step.

use crate::stepper::{trajectory, Track};
use crate::{IntegrationError, OdeSystem, Real, Stats, Stepper};

/// The storage of a state: an owned vector of `R` such as `[R; N]` or
/// `Vec<R>`.
pub trait StateVector<R>: Clone + AsRef<[R]> + AsMut<[R]> {}

impl<R, V: Clone + AsRef<[R]> + AsMut<[R]>> StateVector<R> for V {}

/// Checks the arguments every fixed-step integrator takes.
fn check<R: Real, S: OdeSystem<R>>(system: &S, y0: &[R], h: R) -> Result<(), IntegrationError> {
    if system.dimension() != y0.len() {
        return Err(IntegrationError::InvalidArgument {
            message: "the state length differs from the system's dimension",
        });
    }
    if h.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) || !h.is_finite() {
        return Err(IntegrationError::InvalidArgument {
            message: "the step size must be positive and finite",
        });
    }
    if !y0.iter().all(|c| c.is_finite()) {
        return Err(IntegrationError::InvalidArgument {
            message: "the initial state has an infinite or NaN entry",
        });
    }
    Ok(())
}

/// A copy of `like` with every entry zero.
fn zeros<R: Real, V: StateVector<R>>(like: &V) -> V {
    let mut v = like.clone();
    v.as_mut().fill(R::ZERO);
    v
}

/// Evaluates the right-hand side, turning a refusal or a non-finite rate
/// into the error that stops the integration at `t`.
fn evaluate<R: Real, S: OdeSystem<R>>(
    system: &mut S,
    t: R,
    y: &[R],
    dy: &mut [R],
    stats: &mut Stats,
) -> Result<(), IntegrationError> {
    stats.rhs_evaluations = stats.rhs_evaluations.saturating_add(1);
    system
        .rhs(t, y, dy)
        .map_err(|error| IntegrationError::Rhs {
            t: t.to_f64(),
            error,
        })?;
    if dy.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(IntegrationError::NonFinite { t: t.to_f64() })
    }
}

impl<R: Real, V: StateVector<R>> Track<R, V> {
    /// The step to take towards `t_end` with the fixed step `h`: `None` at
    /// or past `t_end`; else `h`, shortened so that the last step lands on
    /// `t_end` (and lengthened by at most 1 % rather than leaving a sliver
    /// step behind).
    pub(crate) fn next_step(&self, t_end: R, h: R) -> Option<R> {
        if self.t >= t_end {
            return None;
        }
        let remaining = t_end - self.t;
        Some(if remaining <= h * R::from_f64(1.01) {
            remaining
        } else {
            h
        })
    }

    /// The time a step of `h` (from [`Track::next_step`]) ends at:
    /// `t_end` exactly when it is the last.
    pub(crate) fn landing(&self, t_end: R, h: R) -> R {
        if h == t_end - self.t {
            t_end
        } else {
            self.t + h
        }
    }

    /// Stops the integration, at the time the step started, when the new
    /// state has an infinite or NaN entry.
    pub(crate) fn check_finite(&self) -> Result<(), IntegrationError> {
        if self.y.as_ref().iter().all(|c| c.is_finite()) {
            Ok(())
        } else {
            Err(IntegrationError::NonFinite { t: self.t.to_f64() })
        }
    }

    /// Ends the step at `t_new` and counts it.
    pub(crate) fn arrive(&mut self, t_new: R) {
        self.t_previous = self.t;
        self.t = t_new;
        self.stats.steps = self.stats.steps.saturating_add(1);
    }
}

/// The classical fourth-order Runge–Kutta method with a fixed step, and a
/// cubic Hermite interpolant (from the rates at both ends, the next step's
/// first stage) as its dense output.
#[derive(Clone, Debug)]
pub struct Rk4<R: Real, V: StateVector<R>> {
    track: Track<R, V>,
    h: R,
    y_previous: V,
    rate: V,
    rate_previous: V,
    stages: [V; 4],
}

impl<R: Real, V: StateVector<R>> Rk4<R, V> {
    /// Starts at `(t0, y0)` with step `h` (projecting `y0` onto the system's
    /// manifold first).
    pub fn new<S: OdeSystem<R>>(
        system: &mut S,
        t0: R,
        mut y0: V,
        h: R,
    ) -> Result<Self, IntegrationError> {
        check(system, y0.as_ref(), h)?;
        system.project(t0, y0.as_mut());
        let mut stats = Stats::default();
        let mut rate = zeros(&y0);
        evaluate(system, t0, y0.as_ref(), rate.as_mut(), &mut stats)?;
        let zero = zeros(&y0);
        Ok(Rk4 {
            h,
            y_previous: y0.clone(),
            track: Track::new(t0, y0, stats),
            rate_previous: rate.clone(),
            rate,
            stages: [zero.clone(), zero.clone(), zero.clone(), zero],
        })
    }
}

impl<R: Real, V: StateVector<R>, S: OdeSystem<R>> Stepper<S, R> for Rk4<R, V> {
    fn step(&mut self, system: &mut S, t_end: R) -> Result<(), IntegrationError> {
        let Some(h) = self.track.next_step(t_end, self.h) else {
            return Ok(());
        };
        let half = h * R::from_f64(0.5);
        let t = self.track.t;
        let stats = &mut self.track.stats;
        let [stage, k2, k3, k4] = &mut self.stages;
        let (y0, k1) = (self.track.y.as_ref(), self.rate.as_ref());
        combine(stage.as_mut(), y0, &[(half, k1)]);
        evaluate(system, t + half, stage.as_ref(), k2.as_mut(), stats)?;
        combine(stage.as_mut(), y0, &[(half, k2.as_ref())]);
        evaluate(system, t + half, stage.as_ref(), k3.as_mut(), stats)?;
        combine(stage.as_mut(), y0, &[(h, k3.as_ref())]);
        evaluate(system, t + h, stage.as_ref(), k4.as_mut(), stats)?;
        let sixth = h / R::from_f64(6.0);
        let third = h / R::from_f64(3.0);
        let weights = [
            (sixth, k1),
            (third, k2.as_ref()),
            (third, k3.as_ref()),
            (sixth, k4.as_ref()),
        ];
        self.y_previous.as_mut().copy_from_slice(y0);
        combine(self.track.y.as_mut(), self.y_previous.as_ref(), &weights);
        self.track.check_finite()?;
        let t_new = self.track.landing(t_end, h);
        system.project(t_new, self.track.y.as_mut());
        core::mem::swap(&mut self.rate, &mut self.rate_previous);
        evaluate(
            system,
            t_new,
            self.track.y.as_ref(),
            self.rate.as_mut(),
            &mut self.track.stats,
        )?;
        self.track.arrive(t_new);
        Ok(())
    }
}

impl<R: Real, V: StateVector<R>> Rk4<R, V> {
    /// The cubic Hermite interpolant of the last step at `t`.
    fn dense_value(&self, t: R, out: &mut [R]) {
        hermite(
            self.track.t_previous,
            self.track.t,
            (self.y_previous.as_ref(), self.rate_previous.as_ref()),
            (self.track.y.as_ref(), self.rate.as_ref()),
            t,
            out,
        );
    }
}

trajectory!([R: Real, V: StateVector<R>] R, Rk4<R, V>);

/// `out = base + Σ cᵢ·vᵢ`, entry by entry.
fn combine<R: Real>(out: &mut [R], base: &[R], terms: &[(R, &[R])]) {
    // Zipped rather than indexed, so that no bounds check (a panic path in
    // firmware) is left; each entry is summed in the same order as
    // `base[i] + c₁ v₁[i] + c₂ v₂[i] + …`, so the result is unchanged.
    for (o, &b) in out.iter_mut().zip(base) {
        *o = b;
    }
    for &(c, v) in terms {
        for (o, &x) in out.iter_mut().zip(v) {
            *o += c * x;
        }
    }
}

/// The cubic Hermite interpolant through `(t0, y0, f0)` and `(t1, y1, f1)`
/// at `t`; `y1` when the step has zero length.
fn hermite<R: Real>(t0: R, t1: R, start: (&[R], &[R]), end: (&[R], &[R]), t: R, out: &mut [R]) {
    let h = t1 - t0;
    if h.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) {
        for (o, &y) in out.iter_mut().zip(end.0) {
            *o = y;
        }
        return;
    }
    let s = (t - t0) / h;
    let one = R::ONE;
    let two = R::from_f64(2.0);
    let three = R::from_f64(3.0);
    let h00 = (one + two * s) * (one - s) * (one - s);
    let h10 = s * (one - s) * (one - s);
    let h01 = s * s * (three - two * s);
    let h11 = s * s * (s - one);
    let ((y0, f0), (y1, f1)) = (start, end);
    for (i, o) in out.iter_mut().enumerate() {
        *o = h00 * y0[i] + h * h10 * f0[i] + h01 * y1[i] + h * h11 * f1[i];
    }
}

/// Semi-implicit (symplectic) Euler with a fixed step, for a state laid
/// out as `y = (q, v)` with `positions` position entries:
/// `v₁ = v₀ + h·v̇(q₀, v₀)`, then `q₁ = q₀ + h·q̇(q₀, v₁)`.
///
/// First order, but for a separable Hamiltonian system (constant mass
/// matrix, conservative forces) it is symplectic: the energy error stays
/// bounded over long runs instead of drifting. For a mechanism whose mass
/// matrix depends on `q` it is only first order; use [`Rk4`] or an adaptive
/// method when accuracy matters. Each step evaluates the right-hand side
/// twice (the second time for the rates at `(q₀, v₁)`). Dense output is
/// linear.
#[derive(Clone, Debug)]
pub struct SemiImplicitEuler<R: Real, V: StateVector<R>> {
    track: Track<R, V>,
    h: R,
    positions: usize,
    y_previous: V,
    rate: V,
}

impl<R: Real, V: StateVector<R>> SemiImplicitEuler<R, V> {
    /// Starts at `(t0, y0)` with step `h`; the first `positions` entries of
    /// the state are positions, the rest velocities.
    pub fn new<S: OdeSystem<R>>(
        system: &mut S,
        t0: R,
        mut y0: V,
        h: R,
        positions: usize,
    ) -> Result<Self, IntegrationError> {
        check(system, y0.as_ref(), h)?;
        if positions > y0.as_ref().len() {
            return Err(IntegrationError::InvalidArgument {
                message: "more positions than state entries",
            });
        }
        system.project(t0, y0.as_mut());
        Ok(SemiImplicitEuler {
            h,
            positions,
            y_previous: y0.clone(),
            rate: zeros(&y0),
            track: Track::new(t0, y0, Stats::default()),
        })
    }
}

impl<R: Real, V: StateVector<R>, S: OdeSystem<R>> Stepper<S, R> for SemiImplicitEuler<R, V> {
    fn step(&mut self, system: &mut S, t_end: R) -> Result<(), IntegrationError> {
        let Some(h) = self.track.next_step(t_end, self.h) else {
            return Ok(());
        };
        let (t, np) = (self.track.t, self.positions);
        let track = &mut self.track;
        self.y_previous.as_mut().copy_from_slice(track.y.as_ref());
        // The velocities from the rates at (q₀, v₀), then the positions
        // from those at (q₀, v₁).
        for positions in [false, true] {
            evaluate(
                system,
                t,
                track.y.as_ref(),
                self.rate.as_mut(),
                &mut track.stats,
            )?;
            let entries = track.y.as_mut().iter_mut().zip(self.rate.as_ref());
            for (i, (y, rate)) in entries.enumerate() {
                if (i < np) == positions {
                    *y += h * *rate;
                }
            }
        }
        track.check_finite()?;
        let t_new = track.landing(t_end, h);
        system.project(t_new, track.y.as_mut());
        track.arrive(t_new);
        Ok(())
    }
}

impl<R: Real, V: StateVector<R>> SemiImplicitEuler<R, V> {
    /// The straight line over the last step at `t`.
    fn dense_value(&self, t: R, out: &mut [R]) {
        linear(&self.track, &self.y_previous, t, out);
    }
}

trajectory!([R: Real, V: StateVector<R>] R, SemiImplicitEuler<R, V>);

/// The straight line from `y_previous` at the start of the track's last
/// step to its state at its end, at `t`: the dense output of the
/// first-order methods.
pub(crate) fn linear<R: Real, V: StateVector<R>>(
    track: &Track<R, V>,
    y_previous: &V,
    t: R,
    out: &mut [R],
) {
    let h = track.t - track.t_previous;
    let s = if h > R::ZERO {
        (t - track.t_previous) / h
    } else {
        R::ONE
    };
    let ends = y_previous.as_ref().iter().zip(track.y.as_ref());
    for (o, (&a, &b)) in out.iter_mut().zip(ends) {
        *o = a + s * (b - a);
    }
}
