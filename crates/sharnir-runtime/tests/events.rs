//! Event location on plain ODEs through the generic layer: a bouncing ball
//! against its closed form with every adaptive integrator, direction
//! filtering, several events in one step, a zero at a step end, and an event
//! function that returns NaN.

mod problems;

use problems::{tolerance, Oscillator};
use sharnir_runtime::adaptive::{Adams, Dop853, Dopri5, Radau5};
use sharnir_runtime::{Direction, Event, EventError, EventLocator, EventRecord, IntegrationError};
use sharnir_runtime::{OdeSystem, RhsError, Rk4, Stepper, Trajectory};

const GRAVITY: f64 = 9.81;

/// A ball in free fall: `y = (h, v)`.
struct Ball;

impl OdeSystem for Ball {
    fn dimension(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = -GRAVITY;
        Ok(())
    }
}

/// `y' = 1`: `y = t`, so an event `y = c` is at `t = c`.
struct Clock;

impl OdeSystem for Clock {
    fn dimension(&self) -> usize {
        1
    }
    fn rhs(&mut self, _t: f64, _y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = 1.0;
        Ok(())
    }
}

type MakeStepper = fn(&mut Ball, f64, &[f64]) -> Result<Box<dyn Stepper<Ball>>, IntegrationError>;

/// The times of the first `bounces` impacts of a ball dropped from `h0`
/// with restitution `e`: a terminal falling event on `h`, and a new stepper
/// from the event's state with `v ← −e·v` after each.
fn bounce_times(make: MakeStepper, h0: f64, e: f64, bounces: usize) -> Vec<f64> {
    let mut height = |_t: f64, y: &[f64], g: &mut [f64]| g[0] = y[0];
    let mut locator = EventLocator::new(vec![Event::new("floor", Direction::Falling).terminal()]);
    let (mut t, mut y) = (0.0, vec![h0, 0.0]);
    let mut times = Vec::new();
    while times.len() < bounces {
        let mut stepper = make(&mut Ball, t, &y).expect("a valid start");
        locator.start(t, &y, &mut height).expect("finite g");
        let impact: EventRecord = loop {
            stepper.step(&mut Ball, 100.0).expect("a step");
            assert!(stepper.t() < 100.0, "no impact after t = {t}");
            let found = locator.locate(&*stepper, &mut height).expect("finite g");
            if let Some(record) = found.last() {
                break record.clone();
            }
        };
        assert!(impact.terminal && impact.direction == Direction::Falling);
        assert!(impact.t < stepper.t() || impact.t == stepper.t());
        times.push(impact.t);
        t = impact.t;
        y = vec![impact.y[0], -e * impact.y[1]];
    }
    times
}

#[test]
fn a_bouncing_ball_hits_the_floor_at_the_closed_form_times() {
    let (h0, e, bounces): (f64, f64, usize) = (10.0, 0.8, 8);
    let t1 = (2.0 * h0 / GRAVITY).sqrt();
    let v1 = GRAVITY * t1;
    let mut exact = vec![t1];
    for n in 1..bounces {
        let last = exact[n - 1];
        exact.push(last + 2.0 * e.powi(n as i32) * v1 / GRAVITY);
    }
    let methods: [(&str, MakeStepper, f64); 4] = [
        (
            "dop853",
            |s, t, y| Ok(Box::new(Dop853::new(s, t, y, tolerance(1e-10))?)),
            1e-9,
        ),
        (
            "dopri5",
            |s, t, y| Ok(Box::new(Dopri5::new(s, t, y, tolerance(1e-10))?)),
            1e-9,
        ),
        (
            "radau5",
            |s, t, y| Ok(Box::new(Radau5::new(s, t, y, tolerance(1e-10))?)),
            1e-9,
        ),
        (
            "adams",
            |s, t, y| Ok(Box::new(Adams::new(s, t, y, tolerance(1e-10))?)),
            1e-9,
        ),
    ];
    for (name, make, allowed) in methods {
        let times = bounce_times(make, h0, e, bounces);
        for (n, (t, exact)) in times.iter().zip(&exact).enumerate() {
            assert!(
                (t - exact).abs() < allowed,
                "{name}: impact {} at {t}, closed form {exact}, error {:e}",
                n + 1,
                t - exact
            );
        }
    }
}

/// Every event of `events` on `x = sin t` (the oscillator from `(0, 1)`,
/// `g = x`) over `[0, t_end]` with DOP853.
fn sine_events(direction: Direction, t_end: f64) -> Vec<EventRecord> {
    let mut sine = |_t: f64, y: &[f64], g: &mut [f64]| g[0] = y[0];
    let mut locator = EventLocator::new(vec![Event::new("sine", direction)]);
    let y0 = [0.0, 1.0];
    let mut stepper = Dop853::new(&mut Oscillator, 0.0, &y0, tolerance(1e-10)).unwrap();
    locator.start(0.0, &y0, &mut sine).unwrap();
    let mut records = Vec::new();
    while stepper.t() < t_end {
        stepper.step(&mut Oscillator, t_end).unwrap();
        records.extend_from_slice(locator.locate(&stepper, &mut sine).unwrap());
    }
    records
}

#[test]
fn the_direction_filters_crossings_and_a_zero_at_the_start_is_no_event() {
    use std::f64::consts::PI;
    let pi = PI;
    // sin t = 0 at t = 0 (the start: no event), then falls through zero at
    // π, 3π, 5π and rises at 2π, 4π, 6π.
    let cases = [
        (Direction::Rising, vec![2.0 * pi, 4.0 * pi, 6.0 * pi]),
        (Direction::Falling, vec![pi, 3.0 * pi, 5.0 * pi]),
        (
            Direction::Either,
            (1..=6).map(|k| k as f64 * pi).collect::<Vec<_>>(),
        ),
    ];
    for (direction, expected) in cases {
        let records = sine_events(direction, 20.0);
        let times: Vec<f64> = records.iter().map(|r| r.t).collect();
        assert_eq!(times.len(), expected.len(), "{direction:?}: {times:?}");
        for (r, t) in records.iter().zip(&expected) {
            assert!((r.t - t).abs() < 1e-8, "{direction:?}: {} for {t}", r.t);
            let rising = (t / pi).round() as i64 % 2 == 0;
            let crossing = if rising {
                Direction::Rising
            } else {
                Direction::Falling
            };
            assert_eq!(r.direction, crossing);
            assert!(r.y[0].abs() < 1e-8 && !r.terminal);
        }
    }
}

/// One step of RK4 over `[0, 1]` on `y = t`, with the events' values
/// `g_i = y − c_i` (`c_i < 0`: `−c_i − y`, a falling event at `−c_i`).
fn one_step(levels: &[f64], terminal: Option<usize>) -> Vec<EventRecord> {
    let events = (0..levels.len())
        .map(|i| {
            let event = Event::new(format!("level {i}"), Direction::Either);
            if terminal == Some(i) {
                event.terminal()
            } else {
                event
            }
        })
        .collect();
    let levels = levels.to_vec();
    let mut g = move |_t: f64, y: &[f64], g: &mut [f64]| {
        for (g, &c) in g.iter_mut().zip(&levels) {
            *g = if c >= 0.0 { y[0] - c } else { -c - y[0] };
        }
    };
    let mut locator = EventLocator::new(events);
    let mut stepper = Rk4::new(&mut Clock, 0.0, [0.0], 1.0).unwrap();
    locator.start(0.0, &[0.0], &mut g).unwrap();
    stepper.step(&mut Clock, 1.0).unwrap();
    assert_eq!((stepper.t_previous(), stepper.t()), (0.0, 1.0));
    locator.locate(&stepper, &mut g).unwrap().to_vec()
}

#[test]
fn several_events_in_one_step_come_out_in_time_order() {
    let levels = [0.7, 0.3, 0.5, -0.6];
    let summary = |records: &[EventRecord]| -> Vec<(usize, Direction, bool)> {
        records
            .iter()
            .map(|r| (r.index, r.direction, r.terminal))
            .collect()
    };
    let all = one_step(&levels, None);
    assert_eq!(
        summary(&all),
        vec![
            (1, Direction::Rising, false),
            (2, Direction::Rising, false),
            (3, Direction::Falling, false),
            (0, Direction::Rising, false),
        ]
    );
    for r in &all {
        let c = levels[r.index].abs();
        assert!((r.t - c).abs() < 1e-14, "{} at {} for {c}", r.name, r.t);
        assert!((r.y[0] - c).abs() < 1e-14);
    }
    // A terminal event at 0.6 ends the list: the earlier ones come before
    // it, the one at 0.7 (after the stop) is not reported.
    let stopped = one_step(&levels, Some(3));
    assert_eq!(
        summary(&stopped),
        vec![
            (1, Direction::Rising, false),
            (2, Direction::Rising, false),
            (3, Direction::Falling, true),
        ]
    );
}

#[test]
fn a_zero_at_a_step_end_is_reported_once() {
    // RK4 with h = 0.25 lands on t = 0.5 exactly, where g = t − 0.5 is 0.
    let mut g = |t: f64, _y: &[f64], g: &mut [f64]| g[0] = t - 0.5;
    let mut locator = EventLocator::new(vec![Event::new("half", Direction::Either)]);
    let mut stepper = Rk4::new(&mut Clock, 0.0, [0.0], 0.25).unwrap();
    locator.start(0.0, &[0.0], &mut g).unwrap();
    let mut records = Vec::new();
    while stepper.t() < 2.0 {
        stepper.step(&mut Clock, 2.0).unwrap();
        records.extend_from_slice(locator.locate(&stepper, &mut g).unwrap());
    }
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].t, 0.5);
    assert_eq!(records[0].direction, Direction::Rising);
}

#[test]
fn an_event_function_returning_nan_is_an_error_with_the_time() {
    let mut g = |t: f64, _y: &[f64], g: &mut [f64]| {
        g[0] = 1.0;
        g[1] = if t > 0.5 { f64::NAN } else { -1.0 };
    };
    let events = vec![
        Event::new("fine", Direction::Either),
        Event::new("broken", Direction::Either),
    ];
    let mut locator = EventLocator::new(events);
    let mut stepper = Rk4::new(&mut Clock, 0.0, [0.0], 0.25).unwrap();
    locator.start(0.0, &[0.0], &mut g).unwrap();
    let mut error = None;
    while stepper.t() < 1.0 && error.is_none() {
        stepper.step(&mut Clock, 1.0).unwrap();
        error = locator.locate(&stepper, &mut g).err();
    }
    let error = error.expect("NaN is refused");
    assert!(matches!(
        error,
        EventError::NonFinite { index: 1, t, .. } if t == 0.75
    ));
    assert_eq!(error.time(), 0.75);
    let message = error.to_string();
    assert!(
        message.contains("broken") && message.contains("t = 0.75"),
        "{message}"
    );
}

/// The events of one RK4 step over `[0, 1]` on `y = t`, every component
/// of `g` being `(y − 0.5)² − depth`: a dip below zero of half-width
/// `√depth` about 0.5 when `depth > 0`.
fn dip_events(events: Vec<Event>, depth: f64) -> Vec<EventRecord> {
    let mut g = move |_t: f64, y: &[f64], g: &mut [f64]| {
        for g in g.iter_mut() {
            *g = (y[0] - 0.5) * (y[0] - 0.5) - depth;
        }
    };
    let mut locator = EventLocator::new(events);
    let mut stepper = Rk4::new(&mut Clock, 0.0, [0.0], 1.0).unwrap();
    locator.start(0.0, &[0.0], &mut g).unwrap();
    stepper.step(&mut Clock, 1.0).unwrap();
    locator.locate(&stepper, &mut g).unwrap().to_vec()
}

/// A dip inside one step is unseen from the step's ends, and found when
/// the event is sampled inside the step (by the sampled event only): at a
/// sample below zero, or between two samples above it (half-width 0.01,
/// samples 0.2 apart), each way through zero located to 1e-14. A function
/// that stays above zero gives nothing.
#[test]
fn a_sampled_event_finds_a_dip_inside_one_step() {
    assert!(dip_events(vec![Event::new("dip", Direction::Either)], 0.01).is_empty());
    for (depth, samples) in [(0.01, 4), (1e-4, 4), (1e-4, 2), (1e-4, 1)] {
        let width = f64::sqrt(depth);
        let found = dip_events(
            vec![
                Event::new("ends only", Direction::Either),
                Event::new("sampled", Direction::Falling).sampled(samples),
            ],
            depth,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].index, found[0].direction),
            (1, Direction::Falling)
        );
        assert!((found[0].t - (0.5 - width)).abs() < 1e-14, "{}", found[0].t);
        // Either direction: the way down and the way back up, in time order.
        let both = dip_events(
            vec![Event::new("sampled", Direction::Either).sampled(samples)],
            depth,
        );
        let seen: Vec<(Direction, f64)> = both.iter().map(|r| (r.direction, r.t)).collect();
        assert_eq!(seen.len(), 2, "{both:?}");
        assert_eq!(
            (seen[0].0, seen[1].0),
            (Direction::Falling, Direction::Rising)
        );
        assert!(
            (seen[0].1 - (0.5 - width)).abs() < 1e-14 && (seen[1].1 - (0.5 + width)).abs() < 1e-14,
            "{seen:?}"
        );
    }
    let clear = dip_events(
        vec![Event::new("sampled", Direction::Either).sampled(4)],
        -0.01,
    );
    assert!(clear.is_empty(), "{clear:?}");
}
