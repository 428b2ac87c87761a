//! The runner's events: the events file next to the CSV, the summary's
//! lines, `--no-events`, and no events file when none are watched. The
//! triple pendulum released from the horizontal: θ₂ passes 0.1 rad near
//! 0.8 s and θ₁ reaches −0.3 rad near 1.1 s.

use clap::Parser;
use sharnir_runtime::{model, Direction, Event};
use sharnir_sim::{run, run_with_events, SimOptions};
use std::path::Path;

model!(Pendulum = sharnir_generated::triple_pendulum);

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    options: SimOptions,
}

fn options(csv: &Path, extra: &[&str]) -> SimOptions {
    let csv = csv.display().to_string();
    let mut argv = vec!["sim", "--t-end", "2", "--method", "dop853", "--csv", &csv];
    argv.extend_from_slice(&["--rtol", "1e-10", "--atol", "1e-10"]);
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).expect("valid arguments").options
}

fn events() -> Vec<Event> {
    vec![
        Event::new("theta2 up", Direction::Rising),
        Event::new("theta1 down", Direction::Falling).terminal(),
    ]
}

fn levels(_t: f64, q: &[f64], _v: &[f64], g: &mut [f64]) {
    g[0] = q[1] - 0.1;
    g[1] = q[0] + 0.3;
}

#[test]
fn events_go_to_their_own_file_and_into_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("pendulum.csv");
    let text = run_with_events(Pendulum::default(), &options(&csv, &[]), events(), levels)
        .expect("the run succeeds");
    let events_csv = std::fs::read_to_string(dir.path().join("pendulum.events.csv")).unwrap();
    let rows: Vec<Vec<&str>> = events_csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "t",
            "event",
            "direction",
            "q.theta1",
            "q.theta2",
            "q.theta3",
            "v.theta1",
            "v.theta2",
            "v.theta3"
        ]
    );
    assert_eq!(rows.len(), 3, "{events_csv}");
    assert_eq!(&rows[1][1..3], ["theta2 up", "rising"]);
    assert_eq!(&rows[2][1..3], ["theta1 down", "falling"]);
    let t_stop: f64 = rows[2][0].parse().unwrap();
    let theta1: f64 = rows[2][3].parse().unwrap();
    assert!((1.0..1.2).contains(&t_stop) && (theta1 + 0.3).abs() < 1e-10);
    // The samples end at the terminal event, with its state.
    let samples = std::fs::read_to_string(&csv).unwrap();
    let last: Vec<&str> = samples.lines().last().unwrap().split(',').collect();
    assert_eq!(last[0], rows[2][0]);
    assert_eq!(last[1..7], rows[2][3..9]);
    assert!(text.contains(&format!("simulated {t_stop} s")), "{text}");
    assert!(text.contains("events: 2: theta2 up (rising) at "), "{text}");
    assert!(
        text.contains(&format!(
            "stopped by the terminal event theta1 down at t = {t_stop} s"
        )),
        "{text}"
    );
}

#[test]
fn no_events_file_without_events_or_with_no_events() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("plain.csv");
    let text = run(Pendulum::default(), &options(&csv, &[])).unwrap();
    assert!(!dir.path().join("plain.events.csv").exists());
    assert!(!text.contains("events"), "{text}");
    let ignored = dir.path().join("ignored.csv");
    let text = run_with_events(
        Pendulum::default(),
        &options(&ignored, &["--no-events"]),
        events(),
        levels,
    )
    .unwrap();
    assert!(!dir.path().join("ignored.events.csv").exists());
    assert!(text.contains("simulated 2 s"), "{text}");
    // Watched events that never fire still get their (empty) file.
    let quiet = dir.path().join("quiet.csv");
    let text = run_with_events(
        Pendulum::default(),
        &options(&quiet, &[]),
        vec![Event::new("never", Direction::Either)],
        |_t, q, _v, g| g[0] = q[0] - 10.0,
    )
    .unwrap();
    let header = std::fs::read_to_string(dir.path().join("quiet.events.csv")).unwrap();
    assert_eq!(header.lines().count(), 1);
    assert!(text.contains("events: 0\n"), "{text}");
}

/// A closed mechanism's singular configuration: reported and gone through
/// by default, the run's end with `--stop-at-singular`, which names the
/// coordinates there. The Delta falling from `[initial]` with its motors
/// passive reaches its first near t = 0.300 s and its second near 0.923 s;
/// at the default tolerances each dip through the threshold lies inside
/// one step, between the conditioning's samples, and is found all the same.
#[test]
fn a_singular_configuration_is_gone_through_or_stops_the_run() {
    model!(Delta = sharnir_generated::delta, loops);
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("delta.csv");
    let argv = |extra: &[&str]| {
        let csv = csv.display().to_string();
        let mut argv = vec!["sim", "--method", "dop853", "--csv", &csv];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).expect("valid arguments").options
    };
    let tight = ["--t-end", "0.5", "--rtol", "1e-10", "--atol", "1e-10"];
    let through = sharnir_sim::run_closed(Delta::default(), &argv(&tight)).expect("runs");
    assert!(
        through.contains("singular configuration (falling) at 0.3"),
        "{through}"
    );
    assert!(!through.contains("stopped by"), "{through}");
    let default = sharnir_sim::run_closed(Delta::default(), &argv(&["--t-end", "1.2"]))
        .expect("runs at the default tolerances");
    assert!(
        default.contains("events: 2: singular configuration (falling) at 0.30")
            && default.contains("singular configuration (falling) at 0.92"),
        "{default}"
    );
    let stop = [
        "--t-end",
        "0.5",
        "--rtol",
        "1e-10",
        "--atol",
        "1e-10",
        "--stop-at-singular",
    ];
    let stopped = sharnir_sim::run_closed(Delta::default(), &argv(&stop))
        .expect("runs to the singular configuration");
    assert!(
        stopped.contains("stopped by the terminal event singular configuration at t = 0.3"),
        "{stopped}"
    );
    let line = stopped
        .lines()
        .find(|l| l.starts_with("singular configuration at t = 0.3"))
        .unwrap_or_else(|| panic!("no line naming the coordinates: {stopped}"));
    for name in sharnir_generated::delta::POSITION_NAMES {
        assert!(line.contains(&format!("q.{name} = ")), "{line}");
    }
    assert!(line.contains("fell through 1e-3"), "{line}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    let last: f64 = rows
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .and_then(|t| t.parse().ok())
        .expect("a last sample");
    assert!(
        (0.295..0.305).contains(&last),
        "the samples end at {last} s"
    );
}

/// A mass matrix near singular at the start is said, with the coordinate
/// its weakest direction leads with: the payload flying free with a cube's
/// side of 1e-7 m has a rotational inertia 1e-15 of its mass. The
/// bundled payload (side 0.1 m) gets no such line.
#[test]
fn a_near_singular_mass_matrix_is_reported_at_the_start() {
    use sharnir_generated::payload_release_without_grip as dropped;
    model!(Dropped = sharnir_generated::payload_release_without_grip);
    let argv = ["sim", "--t-end", "0.01", "--method", "rk4", "--dt", "1e-3"];
    let options = Cli::try_parse_from(argv).expect("valid arguments").options;
    let bundled = run(Dropped::default(), &options).expect("runs");
    assert!(!bundled.contains("near-singular"), "{bundled}");
    let feather = Dropped::new(dropped::Params {
        side: 1e-7,
        ..Default::default()
    });
    let text = run(feather, &options).expect("runs");
    let line = text
        .lines()
        .find(|l| l.starts_with("the mass matrix at the start is near-singular"))
        .unwrap_or_else(|| panic!("{text}"));
    let ratio: f64 = line
        .split("eigenvalue is ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|r| r.parse().ok())
        .expect("the ratio");
    // The cube's inertia m s²/6 against the largest eigenvalue, of the
    // order of the arm's inertia about the shoulder.
    assert!(ratio > 1e-18 && ratio < 1e-13, "{line}");
    assert!(line.contains("mostly along v.payload_w"), "{line}");
}
