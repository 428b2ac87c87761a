//! Events through the `Simulation` driver on a generated model, the
//! textbook's triple pendulum released from the horizontal (θ₁ falls, θ₂
//! and θ₃ rise over the first two seconds): non-terminal events change no
//! sample, a terminal one ends the run on its crossing with the state a run
//! to that time reaches, and a run restarted from it continues the motion.

use sharnir_runtime::{model, Direction, Event, EventRecord, Method, Observer, ObserverError};
use sharnir_runtime::{Sample, Simulation, SimulationErrorKind, Tolerances};

model!(Pendulum = sharnir_generated::triple_pendulum);

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-10,
    atol: 1e-10,
};

/// What an observer saw, in the order it saw it.
#[derive(Debug, PartialEq)]
enum Seen {
    Sample(f64, Vec<f64>),
    Event(f64, usize),
}

#[derive(Default)]
struct Log(Vec<Seen>);

impl Observer for &mut Log {
    fn sample(&mut self, s: &Sample<'_>) -> Result<(), ObserverError> {
        let state = s.q.iter().chain(s.v).copied().collect();
        self.0.push(Seen::Sample(s.t, state));
        Ok(())
    }

    fn event(&mut self, record: &EventRecord) -> Result<(), ObserverError> {
        self.0.push(Seen::Event(record.t, record.index));
        Ok(())
    }
}

impl Log {
    fn samples(&self) -> Vec<(f64, &[f64])> {
        self.0
            .iter()
            .filter_map(|s| match s {
                Seen::Sample(t, y) => Some((*t, y.as_slice())),
                Seen::Event(..) => None,
            })
            .collect()
    }

    fn times(&self) -> Vec<f64> {
        self.0
            .iter()
            .map(|s| match s {
                Seen::Sample(t, _) | Seen::Event(t, _) => *t,
            })
            .collect()
    }
}

fn pendulum() -> Simulation<Pendulum, 3, 3> {
    Simulation::new(Pendulum::default())
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .output_interval(0.01)
}

/// θ₁ through −0.1 and −0.5, θ₂ through 0.3, any direction.
fn levels(_t: f64, q: &[f64], _v: &[f64], g: &mut [f64]) {
    g[0] = q[0] + 0.1;
    g[1] = q[0] + 0.5;
    g[2] = q[1] - 0.3;
}

#[test]
fn non_terminal_events_leave_the_samples_unchanged() {
    let mut plain = Log::default();
    let without = pendulum().run(2.0, &mut plain).unwrap();
    let mut watched = Log::default();
    let events = vec![
        Event::new("theta1 -0.1", Direction::Either),
        Event::new("theta1 -0.5", Direction::Either),
        Event::new("theta2 0.3", Direction::Either),
    ];
    let with = pendulum()
        .events(events, levels)
        .run(2.0, &mut watched)
        .unwrap();
    // Bitwise: the same steps, the same dense output.
    assert_eq!(plain.samples(), watched.samples());
    assert_eq!(without.samples, with.samples);
    assert_eq!(with.t_end, 2.0);
    assert_eq!(with.terminated_by, None);
    let indices: Vec<usize> = with.events.iter().map(|r| r.index).collect();
    assert_eq!(indices, vec![0, 2, 1], "{:?}", with.events);
    for r in &with.events {
        let mut g = [0.0; 3];
        levels(r.t, &r.y[..3], &r.y[3..], &mut g);
        assert!(g[r.index].abs() < 1e-10, "{}: g = {:e}", r.name, g[r.index]);
        let expected = if r.index == 2 {
            Direction::Rising
        } else {
            Direction::Falling
        };
        assert_eq!(r.direction, expected);
    }
    // The events reach the observer among the samples, in time order.
    let times = watched.times();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert_eq!(times.len(), plain.0.len() + 3);
    assert_eq!(with.final_state.len(), 6);
}

#[test]
fn a_terminal_event_stops_the_run_on_its_crossing() {
    let level = -0.3;
    let events = vec![
        Event::new("theta2 0.1", Direction::Rising),
        Event::new("theta1 down", Direction::Falling).terminal(),
        Event::new("theta3 0.02", Direction::Rising),
    ];
    let mut log = Log::default();
    let summary = pendulum()
        .events(events, move |_t, q, _v, g| {
            g[0] = q[1] - 0.1;
            g[1] = q[0] - level;
            g[2] = q[2] - 0.02;
        })
        .run(2.0, &mut log)
        .unwrap();
    // θ₂ passes 0.1 near 0.8 s, θ₁ reaches −0.3 near 1.1 s, before θ₃
    // reaches 0.02 (near 1.2 s), which is therefore never reported.
    let indices: Vec<usize> = summary.events.iter().map(|r| r.index).collect();
    assert_eq!(indices, vec![0, 1]);
    assert_eq!(summary.terminated_by, Some(1));
    let stop = &summary.events[1];
    assert!(stop.terminal && (1.0..1.2).contains(&stop.t), "{stop:?}");
    assert_eq!(summary.t_end, stop.t);
    assert_eq!(summary.final_state, stop.y);
    assert!((summary.final_state[0] - level).abs() < 1e-10);
    // The last thing observed is the final sample at the event.
    match (&log.0[log.0.len() - 2], log.0.last()) {
        (Seen::Event(t, 1), Some(Seen::Sample(ts, y))) => {
            assert_eq!((*t, *ts), (stop.t, stop.t));
            assert_eq!(y, &stop.y);
        }
        (before, last) => panic!("ends with {before:?}, {last:?}"),
    }
    // A run to the event time without events reaches the same state.
    let reference = pendulum().run(stop.t, |_: &Sample<'_>| {}).unwrap();
    let difference = reference
        .final_state
        .iter()
        .zip(&summary.final_state)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(difference < 1e-8, "difference {difference:e}");
    // Restarting from the event continues the motion.
    let (q, v) = summary.final_state.split_at(3);
    let continued = pendulum()
        .initial_state([q[0], q[1], q[2]], [v[0], v[1], v[2]])
        .start_time(stop.t)
        .run(1.5, |_: &Sample<'_>| {})
        .unwrap();
    let through = pendulum().run(1.5, |_: &Sample<'_>| {}).unwrap();
    let difference = continued
        .final_state
        .iter()
        .zip(&through.final_state)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(difference < 1e-7, "restart difference {difference:e}");
}

#[test]
fn an_event_function_returning_nan_stops_the_run_with_its_time() {
    let error = pendulum()
        .events(
            vec![Event::new("broken", Direction::Either)],
            |t, _q, _v, g| {
                g[0] = if t > 0.5 { f64::NAN } else { 1.0 };
            },
        )
        .run(2.0, |_: &Sample<'_>| {})
        .unwrap_err();
    assert!(matches!(error.kind, SimulationErrorKind::Event(_)));
    assert!(error.t > 0.5 && error.t < 2.0, "{error}");
    let message = error.to_string();
    assert!(
        message.contains("broken") && message.contains("NaN"),
        "{message}"
    );
}

#[test]
fn max_step_bounds_the_steps_so_that_a_short_excursion_is_seen() {
    // g < 0 only on (0.49, 0.51): both crossings lie within one step of
    // DOP853 at these tolerances (about 0.1 s), unless the step is bounded.
    let pulse = |t: f64, _q: &[f64], _v: &[f64], g: &mut [f64]| g[0] = (t - 0.5).powi(2) - 1e-4;
    let free = pendulum().run(1.0, |_: &Sample<'_>| {}).unwrap();
    let summary = pendulum()
        .max_step(0.005)
        .events(vec![Event::new("pulse", Direction::Either)], pulse)
        .run(1.0, |_: &Sample<'_>| {})
        .unwrap();
    assert!(free.stats.steps < 50, "{:?}", free.stats);
    assert!(summary.stats.steps >= 200, "{:?}", summary.stats);
    let found: Vec<(f64, Direction)> = summary.events.iter().map(|r| (r.t, r.direction)).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!((found[0].0 - 0.49).abs() < 1e-12 && found[0].1 == Direction::Falling);
    assert!((found[1].0 - 0.51).abs() < 1e-12 && found[1].1 == Direction::Rising);
}
