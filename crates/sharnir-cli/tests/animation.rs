//! `sharnir sim --html` in a real browser: headless Chromium (Debian's
//! package, WebGL through SwiftShader) opens the page of a triple-pendulum
//! run from disk, with the network off.
//!
//! - The page reports no script error and its canvas is drawn (more than
//!   2 % of it is not background).
//! - Screenshots at the start and at the end differ where the pendulum
//!   moved.
//! - At a chosen time the magenta marker the page puts on the last rod's
//!   origin is where the camera projects that origin, computed here from
//!   the generated `body_poses` at the CSV's coordinates of that sample
//!   (within 3 px): the recording, its encoding, the interpolation and the
//!   drawing agree with the dynamics.
//!
//! Without Chromium on the machine the test says so and checks only the
//! page itself (size, data, no network references). `sharnir view`'s page
//! is opened the same way.

mod checkout;

use checkout::workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium as CI installs it, when it is there.
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Chromium's output for `page` at `query`, with `mode` (`--dump-dom` or
/// `--screenshot=FILE`), in a fresh profile, no network.
fn browse(browser: &Path, profile: &Path, page: &Path, query: &str, mode: &str) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--enable-unsafe-swiftshader",
            "--use-angle=swiftshader",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1000,600",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(format!("file://{}?{query}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What the page wrote for a `?probe=` run: the JSON in its `#probe`.
fn probe(dom: &str) -> serde_json::Value {
    let text = dom
        .split("<pre id=\"probe\" hidden=\"\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("no probe in the page: {dom}"));
    serde_json::from_str(&text.replace("&quot;", "\"")).expect("json")
}

/// RGB pixels and width of a PNG.
fn pixels(path: &Path) -> (Vec<[u8; 3]>, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).expect("a frame");
    let channels = info.color_type.samples();
    let rgb = buffer[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (rgb, info.width as usize)
}

#[test]
fn the_animation_page_draws_the_run_where_the_dynamics_put_it() {
    use sharnir_generated::triple_pendulum as m;
    let dir = tempfile::tempdir().expect("temp dir");
    let page = dir.path().join("pendulum.html");
    let csv = dir.path().join("pendulum.csv");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(workspace())
        .args([
            "sim",
            "specs/triple_pendulum.spec",
            "--t-end",
            "4",
            "--output-dt",
            "0.01",
        ])
        .arg("--html")
        .arg(&page)
        .arg("--csv")
        .arg(&csv)
        .output()
        .expect("sharnir runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.len() < 2_000_000, "page of {} bytes", html.len());
    for remote in ["http://", "https://", "src=\"//"] {
        assert!(
            !html.contains(&format!("<script src=\"{remote}")),
            "{remote} in the page"
        );
    }
    assert!(html.contains("\"bodies\":[\"rod1\",\"rod2\",\"rod3\"]"));

    let Some(browser) = chromium() else {
        eprintln!("chromium is not installed: the page was checked, not opened");
        return;
    };
    let profile = dir.path().join("profile");
    // The chosen sample: t = 2.37 s, a row of the CSV.
    let t = 2.37;
    let dom = browse(
        &browser,
        &profile,
        &page,
        &format!("t={t}&probe=rod3"),
        "--dump-dom",
    );
    let probe = probe(&dom);
    assert_eq!(probe["errors"].as_array().map(Vec::len), Some(0), "{probe}");
    let drawn = probe["drawn"].as_f64().expect("drawn");
    assert!(drawn > 0.02, "the canvas is blank ({drawn})");

    // Where rod 3's origin is at t, from the CSV's coordinates.
    let text = std::fs::read_to_string(&csv).expect("csv");
    let row: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|x| x.parse().expect("number"))
                .collect::<Vec<f64>>()
        })
        .find(|r| (r[0] - t).abs() < 1e-9)
        .expect("a sample at t");
    let q: [f64; m::NQ] = std::array::from_fn(|k| row[1 + k]);
    let origin = m::body_poses(&m::Params::default(), &q)[2].position;
    let vp: Vec<f64> = probe["viewProjection"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    let clip: Vec<f64> = (0..4)
        .map(|r| (0..3).map(|c| vp[4 * c + r] * origin[c]).sum::<f64>() + vp[12 + r])
        .collect();
    let canvas: Vec<f64> = probe["canvas"]
        .as_array()
        .expect("canvas")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    let expected = [
        canvas[0] + (clip[0] / clip[3] + 1.0) / 2.0 * canvas[2],
        canvas[1] + (1.0 - clip[1] / clip[3]) / 2.0 * canvas[3],
    ];

    let shot = dir.path().join("at.png");
    browse(
        &browser,
        &profile,
        &page,
        &format!("t={t}&probe=rod3"),
        &format!("--screenshot={}", shot.display()),
    );
    let (image, width) = pixels(&shot);
    let magenta: Vec<(f64, f64)> = image
        .iter()
        .enumerate()
        .filter(|(_, p)| p[0] > 200 && p[1] < 80 && p[2] > 200)
        .map(|(i, _)| ((i % width) as f64, (i / width) as f64))
        .collect();
    assert!(magenta.len() > 10, "no marker on the screenshot");
    let n = magenta.len() as f64;
    let centre = [
        magenta.iter().map(|p| p.0).sum::<f64>() / n + 0.5,
        magenta.iter().map(|p| p.1).sum::<f64>() / n + 0.5,
    ];
    let miss = ((centre[0] - expected[0]).powi(2) + (centre[1] - expected[1]).powi(2)).sqrt();
    assert!(
        miss < 3.0,
        "marker at {centre:?}, body_poses projects to {expected:?}"
    );

    // The start and the end differ where the pendulum moved.
    let first = dir.path().join("start.png");
    let final_ = dir.path().join("end.png");
    browse(
        &browser,
        &profile,
        &page,
        "t=0",
        &format!("--screenshot={}", first.display()),
    );
    browse(
        &browser,
        &profile,
        &page,
        "t=4",
        &format!("--screenshot={}", final_.display()),
    );
    let (a, width) = pixels(&first);
    let (b, _) = pixels(&final_);
    // The 3-D view only: left of the curves, below the controls.
    let in_view = |i: usize| (i % width) < width / 2 && i / width > 60;
    let changed = (0..a.len()).filter(|&i| in_view(i) && a[i] != b[i]).count();
    let view = (0..a.len()).filter(|&i| in_view(i)).count();
    assert!(
        changed as f64 > 0.02 * view as f64,
        "start and end look alike: {changed} of {view} pixels of the view differ"
    );
}

/// `sharnir view` draws one configuration without compiling: a velocity
/// or an unknown name in `--set` is refused; the four-bar's page at a
/// `--set` coupler angle (a loop left open, as the user gave it) is a
/// still view with its cut joint, and opens in Chromium without an error,
/// drawn.
#[test]
fn the_view_draws_one_configuration_with_its_frames() {
    use sharnir_generated::four_bar as m;
    let dir = tempfile::tempdir().expect("temp dir");
    let page = dir.path().join("four_bar.html");
    let view = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sharnir"))
            .current_dir(workspace())
            .args(["view", "specs/four_bar.spec", "--html"])
            .arg(&page)
            .args(extra)
            .output()
            .expect("sharnir runs")
    };
    for (bad, message) in [
        ("v.crank=1", "velocities do not change a drawing"),
        ("q.nothing=1", "has no such position"),
    ] {
        let output = view(&["--set", bad]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
    let q = m::INITIAL_POSITIONS;
    let output = view(&["--set", &format!("q.coupler={}", q[1] + 0.01)]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.contains("\"still\":true") && html.contains("\"pin\""));

    let Some(browser) = chromium() else {
        eprintln!("chromium is not installed: the page was checked, not opened");
        return;
    };
    let profile = dir.path().join("profile");
    let dom = browse(&browser, &profile, &page, "probe=rocker", "--dump-dom");
    let probe = probe(&dom);
    assert_eq!(probe["errors"].as_array().map(Vec::len), Some(0), "{probe}");
    assert!(probe["drawn"].as_f64().expect("drawn") > 0.01, "{probe}");
}

/// A spec mesh that is missing or not a mesh is an error naming the body
/// and the file, and no page is written.
#[test]
fn a_bad_mesh_is_refused_naming_the_body_and_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = include_str!("../../../specs/four_bar.spec").replacen(
        "visual = [{ box = [\"a\", 0.03, 0.02], origin = { xyz = [\"a/2\", 0, 0] } }]",
        "visual = [{ mesh = \"crank.stl\" }]",
        1,
    );
    assert!(
        spec.contains("crank.stl"),
        "the crank's visual is not where it was"
    );
    let path = dir.path().join("four_bar.spec");
    std::fs::write(&path, spec).expect("spec");
    let page = dir.path().join("page.html");
    for contents in [None, Some(&b"solid x\nvertex 0 0\n"[..])] {
        if let Some(bytes) = contents {
            std::fs::write(dir.path().join("crank.stl"), bytes).expect("stl");
        }
        let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
            .args(["view"])
            .arg(&path)
            .arg("--html")
            .arg(&page)
            .output()
            .expect("sharnir runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("body `crank`") && stderr.contains("crank.stl"),
            "{stderr}"
        );
        assert!(!page.exists(), "a page was written");
    }
}
