//! `sharnir sim` (`cargo xtask sim`) end to end: a spec is compiled into a simulation
//! binary and run; the CSV, the plot and the summary are what
//! docs/simulation.md promises, and bad input or a blow-up is an error with
//! the time and state, leaving complete CSV rows.
//!
//! The first run compiles the runtime and the plotting crate in release
//! mode (about a minute on two cores); the other runs reuse it.

mod checkout;

use checkout::workspace;
use std::path::PathBuf;
use std::process::{Command, Output};

fn sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(workspace())
        .arg("sim")
        .args(args)
        .output()
        .expect("sharnir runs")
}

/// One test, so that the binary is built once and the runs do not race for
/// the same project directory.
#[test]
fn simulates_writes_csv_and_plot_and_reports_bad_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("pendulum.csv");
    let plot = dir.path().join("pendulum.png");
    let output = sim(&[
        "specs/triple_pendulum.spec",
        "--t-end",
        "2",
        "--method",
        "dop853",
        "--rtol",
        "1e-10",
        "--atol",
        "1e-10",
        "--output-dt",
        "0.3",
        "--set",
        "v.theta2=0.5",
        "--csv",
        csv.to_str().expect("utf-8 path"),
        "--plot",
        plot.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("simulated 2 s with dop853"), "{stdout}");
    assert!(stdout.contains("max |E(t) − E(0)|"), "{stdout}");
    assert!(stderr.contains("compiled in"), "{stderr}");

    let text = std::fs::read_to_string(&csv).expect("csv written");
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .map(|x| x.parse().expect("a number"))
                .collect()
        })
        .collect();
    assert_eq!(
        text.lines().next(),
        Some(
            "t,q.theta1,q.theta2,q.theta3,v.theta1,v.theta2,v.theta3,\
             a.theta1,a.theta2,a.theta3,energy.kinetic,energy.potential,energy.work"
        )
    );
    // Samples at 0, 0.3, …, 1.8 and at the end time exactly.
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(times.len(), 8, "{times:?}");
    assert_eq!(times[0], 0.0);
    assert!((times[3] - 0.9).abs() < 1e-12);
    assert_eq!(times[7], 2.0);
    assert_eq!(rows[0][5], 0.5, "--set v.theta2 reached the start");
    let energy = |r: &Vec<f64>| r[10] + r[11];
    for row in &rows {
        assert!((energy(row) - energy(&rows[0])).abs() < 1e-8, "{row:?}");
    }
    // The accelerations are the module's forward dynamics at each sample.
    {
        use sharnir_generated::triple_pendulum as pendulum;
        let p = pendulum::Params::default();
        for row in &rows {
            let (t, q, v) = (row[0], [row[1], row[2], row[3]], [row[4], row[5], row[6]]);
            let applied = pendulum::applied_forces(&p, t, &q, &v);
            let friction = pendulum::friction_forces(&p, &q, &v);
            let tau: [f64; 3] = std::array::from_fn(|i| applied[i] + friction[i]);
            let a = pendulum::forward_dynamics(&p, &q, &v, &tau);
            for (i, want) in a.iter().enumerate() {
                let got = row[7 + i];
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "t = {t}: a.theta{} = {got}, the forward dynamics {want}",
                    i + 1
                );
            }
        }
    }
    // The plot: 1200 × 900 RGB on white, with curves drawn on it.
    let decoder = png::Decoder::new(std::fs::File::open(&plot).expect("plot written"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!((frame.width, frame.height), (1200, 900));
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    let white = pixels.chunks_exact(3).filter(|p| p == &[255, 255, 255]);
    let share = white.count() as f64 / (1200.0 * 900.0);
    assert!((0.5..0.99).contains(&share), "white share {share}");

    let output = sim(&[
        "specs/triple_pendulum.spec",
        "--t-end",
        "1",
        "--set",
        "q.theta9=1",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("q.theta1, q.theta2, q.theta3"), "{stderr}");

    // A fixed step far too large for the 10-rod chain blows up: the error
    // names the time and the state, and the CSV keeps complete rows.
    let output = sim(&[
        "specs/chain10.spec",
        "--t-end",
        "100",
        "--method",
        "euler",
        "--dt",
        "0.5",
        "--output-dt",
        "0.5",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a blow-up passed: {stderr}");
    assert!(stderr.contains("at t = "), "{stderr}");
    assert!(stderr.contains("state (q, q̇)"), "{stderr}");
    let text = std::fs::read_to_string(&csv).expect("csv kept");
    for line in text.lines().skip(1) {
        assert_eq!(line.split(',').count(), 34, "incomplete row {line}");
    }

    // A closed loop: the four-bar starts assembled with the crank where
    // --set puts it (the independent coordinate is held, the others follow)
    // and keeps its energy.
    let output = sim(&[
        "specs/four_bar.spec",
        "--t-end",
        "2",
        "--method",
        "dop853",
        "--rtol",
        "1e-10",
        "--atol",
        "1e-10",
        "--set",
        "q.crank=1",
        "--set",
        "v.crank=5",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .map(|x| x.parse().expect("a number"))
                .collect()
        })
        .collect();
    assert_eq!(rows[0][1], 1.0, "the crank was not held at --set q.crank");
    assert_eq!(
        rows[0][4], 5.0,
        "the crank rate was not held at --set v.crank"
    );
    assert!(
        (rows[0][2] - 0.9272952180016122).abs() > 1e-3,
        "the coupler did not follow the crank"
    );
    let energy = |r: &Vec<f64>| r[10] + r[11];
    for row in &rows {
        assert!((energy(row) - energy(&rows[0])).abs() < 1e-6, "{row:?}");
    }
    // Loops through a ball joint's quaternion: the Stewart platform with
    // leg 1 lengthened by 1 cm is assembled (the legs held, the platform
    // moved) and says what it corrected; a leg no platform pose can reach
    // is refused at the start, naming a cut joint.
    let output = sim(&[
        "specs/stewart.spec",
        "--t-end",
        "0.1",
        "--set",
        "q.s1=0.6526530800466733",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.contains("start: the initial state was made consistent"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let first: Vec<&str> = text.lines().nth(1).expect("a row").split(',').collect();
    assert_eq!(
        first[3].parse::<f64>().expect("a number"),
        0.6526530800466733,
        "leg 1 was not held"
    );
    let output = sim(&["specs/stewart.spec", "--t-end", "0.1", "--set", "q.s1=2"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "an unreachable start passed");
    assert!(stderr.contains("cannot start"), "{stderr}");
    assert!(stderr.contains("at cut joint `ball"), "{stderr}");

    let output = sim(&[
        "specs/four_bar.spec",
        "--t-end",
        "1",
        "--method",
        "symplectic",
        "--dt",
        "0.01",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("closed loops"), "{stderr}");
}

#[test]
fn options_are_checked_before_anything_is_compiled() {
    for (args, message) in [
        (vec!["--t-end", "0"], "--t-end 0 must be a positive"),
        (
            vec!["--t-end", "1", "--method", "euler"],
            "needs a step size",
        ),
        (
            vec!["--t-end", "1", "--set", "theta1=1"],
            "must start with q. or v.",
        ),
    ] {
        let mut all = vec!["specs/triple_pendulum.spec"];
        all.extend(args);
        let output = sim(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
        assert!(!stderr.contains("compiled in"), "{stderr}");
    }
}

/// An installed `sharnir` in a user's directory, outside any checkout and
/// without `--sharnir-path`: the binary is compiled against the crates of
/// the checkout it was built from, under that checkout's `target/`.
#[test]
fn simulates_a_users_spec_outside_the_checkout() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        workspace().join("specs").join("double_pendulum.spec"),
        dir.path().join("double_pendulum.spec"),
    )
    .expect("copy spec");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(dir.path())
        .env_remove("SHARNIR_PATH")
        .args(["sim", "double_pendulum.spec", "--t-end", "0.5"])
        .output()
        .expect("sharnir runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("simulated 0.5 s"), "{stdout}");
    let manifest = workspace()
        .join("target")
        .join("sharnir-sim")
        .join("double_pendulum")
        .join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest).expect("the project is in the checkout");
    assert!(
        manifest.contains("sharnir-runtime = { path = "),
        "{manifest}"
    );

    #[cfg(unix)]
    {
        // The same checkout given by a relative --sharnir-path: the project's
        // manifest, elsewhere, still finds the crates.
        let here = dir.path().canonicalize().expect("temp dir");
        let root = workspace().canonicalize().expect("workspace");
        let mut relative = PathBuf::new();
        for _ in 1..here.components().count() {
            relative.push("..");
        }
        relative.push(root.strip_prefix("/").expect("an absolute path"));
        let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
            .current_dir(dir.path())
            .args(["sim", "double_pendulum.spec", "--t-end", "0.5"])
            .arg("--sharnir-path")
            .arg(&relative)
            .output()
            .expect("sharnir runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{relative:?}: {stderr}");
    }
}

/// A spec with `[motion]`: the shaft follows its law in every row, the
/// drive's torque is a column of its own, and the energy balance counts the
/// drive's work; setting the prescribed coordinate is refused up front.
#[test]
fn simulates_prescribed_motion_with_drive_columns() {
    let refused = sim(&[
        "specs/spun_pendulum.spec",
        "--t-end",
        "1",
        "--set",
        "q.psi=1",
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`psi` is prescribed by [motion]"),
        "{stderr}"
    );
    assert!(!stderr.contains("compiled in"), "{stderr}");

    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("spun.csv");
    let output = sim(&[
        "specs/spun_pendulum.spec",
        "--t-end",
        "3",
        "--method",
        "dop853",
        "--rtol",
        "1e-10",
        "--atol",
        "1e-10",
        "--output-dt",
        "0.5",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("energy balance"), "{stdout}");
    let text = std::fs::read_to_string(&csv).expect("csv written");
    assert_eq!(
        text.lines().next(),
        Some(
            "t,q.psi,q.theta,v.psi,v.theta,a.psi,a.theta,drive.psi,\
             energy.kinetic,energy.potential,energy.work"
        )
    );
    // The spec's values: ω = 4, R = 0.3, l = 0.5, m = 1.
    let (omega, radius, l, m) = (4.0, 0.3, 0.5, 1.0);
    for line in text.lines().skip(1) {
        let row: Vec<f64> = line
            .split(',')
            .map(|x| x.parse().expect("a number"))
            .collect();
        let (t, psi, theta, rate, theta_rate, drive) =
            (row[0], row[1], row[2], row[3], row[4], row[7]);
        // The law's acceleration at the spun coordinate: none.
        assert_eq!(row[5], 0.0, "{line}");
        assert!(
            (psi - omega * t).abs() < 1e-12 * (omega * t).max(1.0),
            "{line}"
        );
        assert_eq!(rate, omega);
        let torque = 2.0 * m * omega * l * theta.cos() * (radius + l * theta.sin()) * theta_rate;
        assert!(
            (drive - torque).abs() < 1e-9 * torque.abs().max(1.0),
            "{line}: {torque}"
        );
    }
}

/// A spec whose joints let go one after the other: the binary holds every
/// structure and follows both releases in order, each part in its own CSV.
#[test]
fn simulates_a_chain_of_releases() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("pair.csv");
    let output = sim(&[
        "specs/two_stage_release.spec",
        "--t-end",
        "1",
        "--method",
        "dop853",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let first = stdout
        .find(
            "joint shoulder let go at t = 0.4 s: continuing in two_stage_release_without_shoulder",
        )
        .unwrap_or_else(|| panic!("{stdout}"));
    let second = stdout
        .find(
            "joint elbow let go at t = 0.7 s: continuing in \
             two_stage_release_without_elbow_and_shoulder",
        )
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(first < second, "{stdout}");
    let last = dir
        .path()
        .join("pair.two_stage_release_without_elbow_and_shoulder.csv");
    let text = std::fs::read_to_string(&last).expect("the last part's csv");
    let header = text.lines().next().expect("a header");
    assert!(
        header.starts_with("t,q.upper_x,q.upper_y,q.upper_z,q.upper_qx"),
        "{header}"
    );
    assert!(header.contains("q.lower_x"), "{header}");
    let end: f64 = text
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .and_then(|t| t.parse().ok())
        .expect("a last row");
    assert_eq!(end, 1.0);

    // A parameter set by name reaches every structure: with the upper rod
    // 0.8 m long the lower rod's frame, at the elbow, starts its own flight
    // 0.8 m from the upper rod's.
    let longer = dir.path().join("longer.csv");
    let output = sim(&[
        "specs/two_stage_release.spec",
        "--t-end",
        "1",
        "--method",
        "dop853",
        "--set",
        "p.l1=0.8",
        "--csv",
        longer.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(
        dir.path()
            .join("longer.two_stage_release_without_elbow_and_shoulder.csv"),
    )
    .expect("the last part's csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let first: Vec<f64> = lines
        .next()
        .expect("a first row")
        .split(',')
        .map(|x| x.parse().expect("a number"))
        .collect();
    let at = |name: &str| first[header.iter().position(|h| *h == name).expect(name)];
    let apart = (at("q.lower_x") - at("q.upper_x")).hypot(at("q.lower_y") - at("q.upper_y"));
    assert!(
        (apart - 0.8).abs() < 1e-9,
        "the elbow {apart} m from the shoulder end"
    );
    let refused = sim(&[
        "specs/two_stage_release.spec",
        "--t-end",
        "1",
        "--set",
        "p.nonsense=1",
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("nonsense"), "{stderr}");
}
