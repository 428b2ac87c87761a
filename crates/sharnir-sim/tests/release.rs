//! A run through a release (`specs/sling_release.spec`): the hammer until
//! its hinge gives way, then the hammer in flight from the mapped state,
//! with a CSV file per structure and the release in the summary. The
//! flight's first row must continue the swing's last: the hammer's centre
//! of mass is where the hinge let it go.

use clap::Parser;
use sharnir_runtime::{detachments, model, Simulation};
use sharnir_sim::{run_releasing, SimOptions};
use std::path::Path;

model!(Sling = sharnir_generated::sling_release);
detachments!(Sling = sharnir_generated::sling_release);
model!(Thrown = sharnir_generated::sling_release_without_hinge);

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    options: SimOptions,
}

fn options(csv: &Path) -> SimOptions {
    let csv = csv.display().to_string();
    let argv = [
        "sim", "--t-end", "1", "--method", "dop853", "--rtol", "1e-11", "--atol", "1e-11", "--csv",
        &csv,
    ];
    Cli::try_parse_from(argv).expect("valid arguments").options
}

/// The rows of a CSV file: header, then numbers.
fn rows(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).expect("the CSV exists");
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header")
        .split(',')
        .map(str::to_owned)
        .collect();
    let values = lines
        .map(|l| l.split(',').map(|x| x.parse().expect("a number")).collect())
        .collect();
    (header, values)
}

#[test]
fn the_run_continues_in_the_variant_from_the_release() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("sling.csv");
    let text = run_releasing(
        Simulation::new(Sling::default()),
        Simulation::new(Thrown::default()),
        &options(&csv),
    )
    .expect("the run succeeds");
    assert!(
        text.contains("joint hinge let go at t = 0.35"),
        "the summary names the release: {text}"
    );
    assert!(
        text.contains("continuing in sling_release_without_hinge"),
        "{text}"
    );

    let (swing_header, swing) = rows(&csv);
    let flight_path = dir.path().join("sling.sling_release_without_hinge.csv");
    let (flight_header, flight) = rows(&flight_path);
    assert_eq!(swing_header[..3], ["t", "q.theta", "v.theta"]);
    assert_eq!(flight_header[1], "q.hammer_x");
    let last = swing.last().expect("swing rows");
    let first = flight.first().expect("flight rows");
    assert_eq!(last[0], first[0], "the flight starts at the release");
    assert!((first[0] - 0.355).abs() < 1e-3, "released at {}", first[0]);
    assert!((flight.last().expect("rows")[0] - 1.0).abs() < 1e-12);
    // The hinge is the body frame's origin: it stays at the ground's origin
    // at the release, and the hammer's angle is the quaternion's.
    assert!(first[1].abs() < 1e-14 && first[2].abs() < 1e-14);
    let (qz, qw) = (first[6], first[7]);
    let angle = 2.0 * qz.atan2(qw);
    assert!(
        (angle - last[1]).abs() < 1e-12,
        "{angle} against {}",
        last[1]
    );
    // Samples keep one spacing across the release.
    let spacing = |rows: &[Vec<f64>]| rows[2][0] - rows[1][0];
    assert!((spacing(&swing) - spacing(&flight)).abs() < 1e-12);
}
