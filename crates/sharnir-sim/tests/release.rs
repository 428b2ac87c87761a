//! Runs through releases, with a CSV file per structure and every release
//! in the summary:
//! - `specs/sling_release.spec`: the hammer until its hinge gives way, then
//!   in flight from the mapped state; the flight's first row continues the
//!   swing's last.
//! - `specs/two_stage_release.spec`: a chain of two releases, the shoulder
//!   then the elbow, through three modules; checked by the bodies' own
//!   kinematics written here, not by the generated code: every body
//!   continuous across each release, centres of mass on parabolas under g,
//!   a lone rod spinning uniformly.

use clap::Parser;
use sharnir_runtime::{body_poses, detachments, model};
use sharnir_sim::{run_releasing, SimOptions, Structure};
use std::path::Path;

model!(Sling = sharnir_generated::sling_release);
detachments!(Sling = sharnir_generated::sling_release);
body_poses!(Sling = sharnir_generated::sling_release);
model!(Thrown = sharnir_generated::sling_release_without_hinge);
body_poses!(Thrown = sharnir_generated::sling_release_without_hinge);

model!(Pendulum = sharnir_generated::two_stage_release);
detachments!(Pendulum = sharnir_generated::two_stage_release);
body_poses!(Pendulum = sharnir_generated::two_stage_release);
model!(Pair = sharnir_generated::two_stage_release_without_shoulder);
detachments!(Pair = sharnir_generated::two_stage_release_without_shoulder);
body_poses!(Pair = sharnir_generated::two_stage_release_without_shoulder);
model!(Apart = sharnir_generated::two_stage_release_without_elbow_and_shoulder);
body_poses!(Apart = sharnir_generated::two_stage_release_without_elbow_and_shoulder);
model!(LowerFirst = sharnir_generated::two_stage_release_without_elbow);
detachments!(LowerFirst = sharnir_generated::two_stage_release_without_elbow);
body_poses!(LowerFirst = sharnir_generated::two_stage_release_without_elbow);

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
        vec![
            Structure::open_releasing(Sling::default()),
            Structure::open(Thrown::default()),
        ],
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

/// The spec's numbers (`specs/two_stage_release.spec`).
const L1: f64 = 0.6;
const L2: f64 = 0.5;
const M1: f64 = 1.5;
const M2: f64 = 1.0;
const G: f64 = 9.81;

/// A point of a planar body at angle `phi` whose frame is at `origin`,
/// `x` along the body.
fn along(origin: [f64; 2], phi: f64, x: f64) -> [f64; 2] {
    [origin[0] + x * phi.cos(), origin[1] + x * phi.sin()]
}

/// The planar angle of a quaternion about z (`qz`, `qw`).
fn angle(qz: f64, qw: f64) -> f64 {
    2.0 * qz.atan2(qw)
}

/// The two rods' frames `(origin, angle)` in each structure's row.
fn rods(header: &[String], row: &[f64]) -> [([f64; 2], f64); 2] {
    let at = |name: &str| {
        let k = header.iter().position(|h| h == name).expect(name);
        row[k]
    };
    let upper = if header.iter().any(|h| h == "q.theta1") {
        ([0.0, 0.0], at("q.theta1"))
    } else {
        (
            [at("q.upper_x"), at("q.upper_y")],
            angle(at("q.upper_qz"), at("q.upper_qw")),
        )
    };
    let lower = if header.iter().any(|h| h == "q.theta2") {
        (along(upper.0, upper.1, L1), upper.1 + at("q.theta2"))
    } else {
        (
            [at("q.lower_x"), at("q.lower_y")],
            angle(at("q.lower_qz"), at("q.lower_qw")),
        )
    };
    [upper, lower]
}

/// Each rod's centre of mass, and the pair's.
fn centres(rods: &[([f64; 2], f64); 2]) -> [[f64; 2]; 3] {
    let c1 = along(rods[0].0, rods[0].1, L1 / 2.0);
    let c2 = along(rods[1].0, rods[1].1, L2 / 2.0);
    let both = core::array::from_fn(|i| (M1 * c1[i] + M2 * c2[i]) / (M1 + M2));
    [c1, c2, both]
}

/// Asserts that `values`, sampled every `dt`, have second differences
/// `acceleration · dt²`: a parabola (or a uniform motion) exactly.
fn second_differences(values: &[f64], dt: f64, acceleration: f64, what: &str) {
    assert!(values.len() > 10, "{what}: too few samples");
    for w in values.windows(3) {
        let d2 = w[2] - 2.0 * w[1] + w[0];
        assert!(
            (d2 - acceleration * dt * dt).abs() < 1e-10,
            "{what}: second difference {d2:e}, expected {:e}",
            acceleration * dt * dt
        );
    }
}

#[test]
fn a_chain_of_releases_runs_through_every_structure_in_order() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("pair.csv");
    let text = run_releasing(
        vec![
            Structure::open_releasing(Pendulum::default()),
            Structure::open_releasing(LowerFirst::default()),
            Structure::open_releasing(Pair::default()),
            Structure::open(Apart::default()),
        ],
        &options(&csv),
    )
    .expect("the run succeeds");
    let shoulder = text
        .find("joint shoulder let go at t = 0.4")
        .unwrap_or_else(|| panic!("the summary names the first release: {text}"));
    let elbow = text
        .find("joint elbow let go at t = 0.7")
        .unwrap_or_else(|| panic!("the summary names the second release: {text}"));
    assert!(shoulder < elbow, "in the order they let go: {text}");
    assert!(text.contains("continuing in two_stage_release_without_shoulder"));
    assert!(text.contains("continuing in two_stage_release_without_elbow_and_shoulder"));

    let parts = [
        rows(&csv),
        rows(
            &dir.path()
                .join("pair.two_stage_release_without_shoulder.csv"),
        ),
        rows(
            &dir.path()
                .join("pair.two_stage_release_without_elbow_and_shoulder.csv"),
        ),
    ];
    let dt = parts[1].1[2][0] - parts[1].1[1][0];
    // Each part starts where the last ended: the same time and every rod
    // where it was.
    for pair in parts.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let last = before.1.last().expect("rows");
        let first = after.1.first().expect("rows");
        assert_eq!(last[0], first[0], "one time at the release");
        let (a, b) = (rods(&before.0, last), rods(&after.0, first));
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x.0[0] - y.0[0]).abs() < 1e-12 && (x.0[1] - y.0[1]).abs() < 1e-12,
                "{a:?} vs {b:?}"
            );
            let turn = (x.1 - y.1).rem_euclid(2.0 * std::f64::consts::PI);
            assert!(
                turn.min(2.0 * std::f64::consts::PI - turn) < 1e-12,
                "{a:?} vs {b:?}"
            );
        }
    }
    assert!((parts[1].1[0][0] - 0.4).abs() < 1e-9);
    assert!((parts[2].1[0][0] - 0.7).abs() < 1e-9);
    assert!((parts[2].1.last().expect("rows")[0] - 1.0).abs() < 1e-12);

    // The pair's centre of mass leaves the shoulder with the velocity the
    // pendulum gave it: by hand from the last row's angles and rates,
    // against the parabola through the flight's first three samples.
    let column = |header: &[String], name: &str| header.iter().position(|h| h == name).expect(name);
    let last = parts[0].1.last().expect("rows");
    let at = |name: &str| last[column(&parts[0].0, name)];
    let (phi1, w1) = (at("q.theta1"), at("v.theta1"));
    let (phi2, w2) = (phi1 + at("q.theta2"), w1 + at("v.theta2"));
    let swing: [f64; 2] = core::array::from_fn(|i| {
        let (d1, d2) = if i == 0 {
            (-phi1.sin(), -phi2.sin())
        } else {
            (phi1.cos(), phi2.cos())
        };
        (M1 * L1 / 2.0 * w1 * d1 + M2 * (L1 * w1 * d1 + L2 / 2.0 * w2 * d2)) / (M1 + M2)
    });
    let flight: Vec<[f64; 2]> = parts[1].1[..3]
        .iter()
        .map(|r| centres(&rods(&parts[1].0, r))[2])
        .collect();
    for i in 0..2 {
        let leaving = (-3.0 * flight[0][i] + 4.0 * flight[1][i] - flight[2][i]) / (2.0 * dt);
        assert!(
            (leaving - swing[i]).abs() < 1e-8,
            "component {i}: {leaving} against {}",
            swing[i]
        );
    }
    // Each rod leaves the elbow spinning as it turned just before.
    let last = parts[1].1.last().expect("rows");
    let upper_rate = last[column(&parts[1].0, "v.upper_wz")];
    let rates = [
        upper_rate,
        upper_rate + last[column(&parts[1].0, "v.theta2")],
    ];
    let apart_first: Vec<[([f64; 2], f64); 2]> = parts[2].1[..2]
        .iter()
        .map(|r| rods(&parts[2].0, r))
        .collect();
    for k in 0..2 {
        let spin = (apart_first[1][k].1 - apart_first[0][k].1) / dt;
        assert!(
            (spin - rates[k]).abs() < 1e-8,
            "rod {k}: {spin} against {}",
            rates[k]
        );
    }
    // And each rod's centre leaves with the velocity it had: by hand from
    // the upper rod's origin velocity (its own axes) and the two rates.
    let here = rods(&parts[1].0, last);
    let turned =
        |phi: f64, [x, y]: [f64; 2]| [x * phi.cos() - y * phi.sin(), x * phi.sin() + y * phi.cos()];
    let origin = turned(
        here[0].1,
        [
            last[column(&parts[1].0, "v.upper_vx")],
            last[column(&parts[1].0, "v.upper_vy")],
        ],
    );
    // The velocity of the point `x` along a rod at angle `phi` turning at
    // `w` whose frame's origin moves at `v`.
    let moving = |v: [f64; 2], phi: f64, w: f64, x: f64| {
        [v[0] - w * x * phi.sin(), v[1] + w * x * phi.cos()]
    };
    let elbow = moving(origin, here[0].1, rates[0], L1);
    let expected = [
        moving(origin, here[0].1, rates[0], L1 / 2.0),
        moving(elbow, here[1].1, rates[1], L2 / 2.0),
    ];
    let apart_centres: Vec<[[f64; 2]; 3]> = parts[2].1[..3]
        .iter()
        .map(|r| centres(&rods(&parts[2].0, r)))
        .collect();
    for k in 0..2 {
        for i in 0..2 {
            let c = |j: usize| apart_centres[j][k][i];
            let leaving = (-3.0 * c(0) + 4.0 * c(1) - c(2)) / (2.0 * dt);
            assert!(
                (leaving - expected[k][i]).abs() < 1e-8,
                "rod {k}, component {i}: {leaving} against {}",
                expected[k][i]
            );
        }
    }
    // The flying pair: its centre of mass falls freely.
    let pair: Vec<[[f64; 2]; 3]> = parts[1]
        .1
        .iter()
        .map(|r| centres(&rods(&parts[1].0, r)))
        .collect();
    second_differences(
        &pair.iter().map(|c| c[2][0]).collect::<Vec<_>>(),
        dt,
        0.0,
        "pair x",
    );
    second_differences(
        &pair.iter().map(|c| c[2][1]).collect::<Vec<_>>(),
        dt,
        -G,
        "pair y",
    );
    // Apart: each rod's centre falls freely and each spins uniformly.
    let apart: Vec<[([f64; 2], f64); 2]> =
        parts[2].1.iter().map(|r| rods(&parts[2].0, r)).collect();
    for (k, name) in ["upper", "lower"].into_iter().enumerate() {
        let c: Vec<[f64; 2]> = apart.iter().map(|r| centres(r)[k]).collect();
        second_differences(&c.iter().map(|c| c[0]).collect::<Vec<_>>(), dt, 0.0, name);
        second_differences(&c.iter().map(|c| c[1]).collect::<Vec<_>>(), dt, -G, name);
        // The angles unwrapped: a uniform spin has no second difference.
        let mut phi: Vec<f64> = apart.iter().map(|r| r[k].1).collect();
        for i in 1..phi.len() {
            let jump = ((phi[i] - phi[i - 1]) / (2.0 * std::f64::consts::PI)).round();
            phi[i] -= jump * 2.0 * std::f64::consts::PI;
        }
        second_differences(&phi, dt, 0.0, name);
    }
}

#[test]
fn a_release_into_a_module_the_run_does_not_hold_is_an_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let error = run_releasing(
        vec![
            Structure::open_releasing(Pendulum::default()),
            Structure::open(Apart::default()),
        ],
        &options(&dir.path().join("pair.csv")),
    )
    .expect_err("the shoulder's structure is missing");
    assert!(
        error.contains("continues in module two_stage_release_without_shoulder, which this binary does not hold"),
        "{error}"
    );
}
