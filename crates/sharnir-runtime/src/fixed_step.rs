//! Fixed-step integrators that need no allocator: what a controller on a
//! microcontroller runs at its sampling period.
//!
//! The state is any owned vector `V` (`[R; N]` without an allocator, where
//! `N = NQ + NV` is a model's `STATE_LEN`; `Vec<R>` with one), and the
//! stages are copies of it, so nothing is allocated per step.

use crate::{IntegrationError, OdeSystem, Real, Stats, Stepper, Trajectory};

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

/// The step to take from `t` towards `t_end`: `h`, shortened so that the
/// last step lands on `t_end` (and lengthened by at most 1 % rather than
/// leaving a sliver step behind).
fn next_step<R: Real>(t: R, t_end: R, h: R) -> R {
    let remaining = t_end - t;
    if remaining <= h * R::from_f64(1.01) {
        remaining
    } else {
        h
    }
}

/// The classical fourth-order Runge–Kutta method with a fixed step, and a
/// cubic Hermite interpolant (from the rates at both ends, the next step's
/// first stage) as its dense output.
#[derive(Clone, Debug)]
pub struct Rk4<R: Real, V: StateVector<R>> {
    t: R,
    t_previous: R,
    h: R,
    y: V,
    y_previous: V,
    rate: V,
    rate_previous: V,
    stages: [V; 4],
    stats: Stats,
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
        system.project(y0.as_mut());
        let mut stats = Stats::default();
        let mut rate = zeros(&y0);
        evaluate(system, t0, y0.as_ref(), rate.as_mut(), &mut stats)?;
        let zero = zeros(&y0);
        Ok(Rk4 {
            t: t0,
            t_previous: t0,
            h,
            y_previous: y0.clone(),
            y: y0,
            rate_previous: rate.clone(),
            rate,
            stages: [zero.clone(), zero.clone(), zero.clone(), zero],
            stats,
        })
    }
}

impl<R: Real, V: StateVector<R>, S: OdeSystem<R>> Stepper<S, R> for Rk4<R, V> {
    fn step(&mut self, system: &mut S, t_end: R) -> Result<(), IntegrationError> {
        if self.t >= t_end {
            return Ok(());
        }
        let h = next_step(self.t, t_end, self.h);
        let half = h * R::from_f64(0.5);
        let t = self.t;
        let [stage, k2, k3, k4] = &mut self.stages;
        let (y0, k1) = (self.y.as_ref(), self.rate.as_ref());
        combine(stage.as_mut(), y0, &[(half, k1)]);
        evaluate(
            system,
            t + half,
            stage.as_ref(),
            k2.as_mut(),
            &mut self.stats,
        )?;
        combine(stage.as_mut(), y0, &[(half, k2.as_ref())]);
        evaluate(
            system,
            t + half,
            stage.as_ref(),
            k3.as_mut(),
            &mut self.stats,
        )?;
        combine(stage.as_mut(), y0, &[(h, k3.as_ref())]);
        evaluate(system, t + h, stage.as_ref(), k4.as_mut(), &mut self.stats)?;
        let sixth = h / R::from_f64(6.0);
        let third = h / R::from_f64(3.0);
        let weights = [
            (sixth, k1),
            (third, k2.as_ref()),
            (third, k3.as_ref()),
            (sixth, k4.as_ref()),
        ];
        self.y_previous.as_mut().copy_from_slice(y0);
        combine(self.y.as_mut(), self.y_previous.as_ref(), &weights);
        if !self.y.as_ref().iter().all(|c| c.is_finite()) {
            return Err(IntegrationError::NonFinite { t: t.to_f64() });
        }
        system.project(self.y.as_mut());
        let t_new = if h == t_end - t { t_end } else { t + h };
        core::mem::swap(&mut self.rate, &mut self.rate_previous);
        evaluate(
            system,
            t_new,
            self.y.as_ref(),
            self.rate.as_mut(),
            &mut self.stats,
        )?;
        self.t_previous = t;
        self.t = t_new;
        self.stats.steps = self.stats.steps.saturating_add(1);
        Ok(())
    }
}

impl<R: Real, V: StateVector<R>> Trajectory<R> for Rk4<R, V> {
    fn t(&self) -> R {
        self.t
    }

    fn t_previous(&self) -> R {
        self.t_previous
    }

    fn y(&self) -> &[R] {
        self.y.as_ref()
    }

    fn interpolate(&self, t: R, out: &mut [R]) {
        hermite(
            self.t_previous,
            self.t,
            (self.y_previous.as_ref(), self.rate_previous.as_ref()),
            (self.y.as_ref(), self.rate.as_ref()),
            t,
            out,
        );
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

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
    t: R,
    t_previous: R,
    h: R,
    positions: usize,
    y: V,
    y_previous: V,
    rate: V,
    stats: Stats,
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
        system.project(y0.as_mut());
        Ok(SemiImplicitEuler {
            t: t0,
            t_previous: t0,
            h,
            positions,
            y_previous: y0.clone(),
            rate: zeros(&y0),
            y: y0,
            stats: Stats::default(),
        })
    }
}

impl<R: Real, V: StateVector<R>, S: OdeSystem<R>> Stepper<S, R> for SemiImplicitEuler<R, V> {
    fn step(&mut self, system: &mut S, t_end: R) -> Result<(), IntegrationError> {
        if self.t >= t_end {
            return Ok(());
        }
        let h = next_step(self.t, t_end, self.h);
        let (t, np) = (self.t, self.positions);
        self.y_previous.as_mut().copy_from_slice(self.y.as_ref());
        evaluate(
            system,
            t,
            self.y.as_ref(),
            self.rate.as_mut(),
            &mut self.stats,
        )?;
        for (y, rate) in self.y.as_mut().iter_mut().zip(self.rate.as_ref()).skip(np) {
            *y += h * *rate;
        }
        evaluate(
            system,
            t,
            self.y.as_ref(),
            self.rate.as_mut(),
            &mut self.stats,
        )?;
        for (y, rate) in self.y.as_mut().iter_mut().zip(self.rate.as_ref()).take(np) {
            *y += h * *rate;
        }
        if !self.y.as_ref().iter().all(|c| c.is_finite()) {
            return Err(IntegrationError::NonFinite { t: t.to_f64() });
        }
        system.project(self.y.as_mut());
        self.t_previous = t;
        self.t = if h == t_end - t { t_end } else { t + h };
        self.stats.steps = self.stats.steps.saturating_add(1);
        Ok(())
    }
}

impl<R: Real, V: StateVector<R>> Trajectory<R> for SemiImplicitEuler<R, V> {
    fn t(&self) -> R {
        self.t
    }

    fn t_previous(&self) -> R {
        self.t_previous
    }

    fn y(&self) -> &[R] {
        self.y.as_ref()
    }

    fn interpolate(&self, t: R, out: &mut [R]) {
        linear(self.t_previous, self.t, &self.y_previous, &self.y, t, out);
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

/// The straight line through `(t0, y0)` and `(t1, y1)` at `t`: the dense
/// output of the first-order methods.
pub(crate) fn linear<R: Real, V: StateVector<R>>(
    t0: R,
    t1: R,
    y0: &V,
    y1: &V,
    t: R,
    out: &mut [R],
) {
    let h = t1 - t0;
    let s = if h > R::ZERO { (t - t0) / h } else { R::ONE };
    for (o, (&a, &b)) in out.iter_mut().zip(y0.as_ref().iter().zip(y1.as_ref())) {
        *o = a + s * (b - a);
    }
}
