//! `sharnir sweep` end to end on the double pendulum: every case equals its
//! single `sharnir sim` run bit for bit, the shards merged equal the whole
//! sweep, an interrupted sweep resumed gives the same summary, a failing
//! case is a line of its own, and bad arguments are refused before
//! anything is compiled.
//!
//! One test, so that the simulation binary is built once and the runs do
//! not race for its project directory.

mod checkout;

use checkout::workspace;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn sharnir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .current_dir(workspace())
        .args(args)
        .output()
        .expect("sharnir runs")
}

const SPEC: &str = "specs/double_pendulum.spec";

/// The options every case shares.
const RUN: [&str; 8] = [
    "--t-end", "0.5", "--method", "dop853", "--rtol", "1e-10", "--atol", "1e-10",
];

fn sweep(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", SPEC];
    args.extend(RUN);
    args.extend(["--out", out.to_str().expect("utf-8 path")]);
    args.extend(extra);
    sharnir(&args)
}

/// A sweep of `spec` for 1 s into a directory that is never written.
fn sweep_of(spec: &str, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", spec, "--t-end", "1", "--out", "unwritten"];
    args.extend(extra);
    let output = sharnir(&args);
    assert_eq!(output.status.code(), Some(101));
    output
}

/// A summary's lines by case id, each without its wall time (the one
/// column that differs between runs).
fn summary(path: &Path) -> (Vec<String>, BTreeMap<usize, Vec<String>>) {
    let text = std::fs::read_to_string(path).expect("summary written");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header.last().map(String::as_str), Some("wall_time"));
    let mut rows = BTreeMap::new();
    for record in reader.records() {
        let record = record.expect("a complete line");
        let mut row: Vec<String> = record.iter().map(str::to_owned).collect();
        let wall: f64 = row.pop().expect("a wall time").parse().expect("a number");
        assert!(wall >= 0.0);
        let id = row[0].parse().expect("a case id");
        assert!(rows.insert(id, row).is_none(), "case {id} twice");
    }
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn sweeps_equal_their_single_runs_across_shards_and_resumes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);

    // Bad arguments: refused with a hint before anything is compiled.
    let cases = path("cases.csv");
    std::fs::write(&cases, "p.g,x.joint1\n9.81,0.3\n").expect("written");
    for (extra, message, hint) in [
        (vec!["--vary", "p.g=1:2"], "three parts", "sweep --help"),
        (vec!["--vary", "p.g=1:2:0"], "N = 0", "sweep --help"),
        (vec!["--vary", "p.mass=1,2"], "no such parameter", "p.g"),
        (
            vec!["--vary", "q.elbow=1,2"],
            "no such coordinate",
            "q.joint1, q.joint2",
        ),
        (
            vec!["--vary", "p.g=1,2", "--shard", "2/2"],
            "out of range",
            "sweep --help",
        ),
        (
            vec!["--cases", cases.to_str().expect("utf-8")],
            "`x.joint1` is no p.NAME",
            "sweep --help",
        ),
        (
            vec!["--vary", "p.g=1", "--csv", "a.csv"],
            "one file",
            "--case-csv",
        ),
    ] {
        let output = sweep(&path("bad"), &extra);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(101), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
        assert!(stderr.contains(hint), "{extra:?}: {stderr}");
        assert!(!stderr.contains("compil"), "{extra:?} compiled: {stderr}");
    }

    // A derived parameter is computed from others, which are what to vary.
    let output = sweep_of("benches/specs/chain25.spec", &["--vary", "p.jz=1,2"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(101), "{stderr}");
    assert!(stderr.contains("derived from other parameters"), "{stderr}");
    assert!(stderr.contains("p.m, p.l, p.g"), "{stderr}");

    // A mechanism whose joint lets go runs in several modules: no sweep
    // (each case's summary would have the columns of whichever structure
    // it ended in), but a single run takes its parameters by name.
    let output = sweep_of("specs/payload_release.spec", &["--vary", "p.g=1,2"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("can let go"));
    let output = sharnir(&[
        "sim",
        "specs/payload_release.spec",
        "--t-end",
        "1",
        "--set",
        "p.g=1",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");

    // The whole sweep: 2 × 2 cases, the first --vary changing slowest.
    let vary = ["--vary", "p.g=9.81,3", "--vary", "q.joint1=0.3:1.2:2"];
    let all = path("all");
    let output = sweep(&all, &vary);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("4 cases"), "{stdout}");
    let (header, rows) = summary(&all.join("summary.csv"));
    assert_eq!(
        header[..4],
        ["case", "p.g", "q.joint1", "status"].map(String::from)
    );
    let values: Vec<(&str, &str)> = rows
        .values()
        .map(|r| (r[1].as_str(), r[2].as_str()))
        .collect();
    assert_eq!(
        values,
        [("9.81", "0.3"), ("9.81", "1.2"), ("3", "0.3"), ("3", "1.2")]
    );

    // Each case is its single run, bit for bit.
    let state = [
        "final.q.joint1",
        "final.q.joint2",
        "final.v.joint1",
        "final.v.joint2",
    ];
    for row in rows.values() {
        assert_eq!(row[column(&header, "status")], "ok");
        let csv = path(&format!("case-{}.csv", row[0]));
        let mut args = vec!["sim", SPEC];
        args.extend(RUN);
        let g = format!("p.g={}", row[1]);
        let q = format!("q.joint1={}", row[2]);
        args.extend([
            "--set",
            &g,
            "--set",
            &q,
            "--csv",
            csv.to_str().expect("utf-8"),
        ]);
        let output = sharnir(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(&csv).expect("csv written");
        let last: Vec<f64> = text
            .lines()
            .last()
            .expect("a sample")
            .split(',')
            .map(|x| x.parse().expect("a number"))
            .collect();
        let swept: Vec<f64> = std::iter::once("final.t")
            .chain(state)
            .map(|name| row[column(&header, name)].parse().expect("a number"))
            .collect();
        let single = &last[..5];
        assert_eq!(
            swept.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            single.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "case {}: {swept:?} against {single:?}",
            row[0]
        );
    }
    // Different gravity, different motion.
    assert_ne!(rows[&0][5], rows[&2][5]);

    // Two shards into one directory, merged: the whole sweep.
    let sharded = path("sharded");
    for shard in ["0/2", "1/2"] {
        let mut extra = vary.to_vec();
        extra.extend(["--shard", shard]);
        let output = sweep(&sharded, &extra);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(String::from_utf8_lossy(&output.stdout).contains("holds 2"));
    }
    assert!(sharded.join("summary-0-of-2.csv").exists());
    let output = sharnir(&["sweep", "merge", sharded.to_str().expect("utf-8")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        summary(&sharded.join("summary.csv")),
        (header.clone(), rows.clone())
    );

    // A sweep interrupted after two cases, in the middle of a third line,
    // then run again: only the missing cases run, to the same summary.
    let resumed = path("resumed");
    std::fs::create_dir_all(&resumed).expect("created");
    let text = std::fs::read_to_string(all.join("summary.csv")).expect("read");
    let mut partial: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    partial.push_str("2,3,0.3,ok,0.5,0.12");
    std::fs::write(resumed.join("summary.csv"), partial).expect("written");
    let output = sweep(&resumed, &vary);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("2 already done, ran 2 (0 failed)"),
        "{stdout}"
    );
    assert_eq!(
        summary(&resumed.join("summary.csv")),
        (header.clone(), rows.clone())
    );
    // A third run has nothing left to do.
    let output = sweep(&resumed, &vary);
    assert!(String::from_utf8_lossy(&output.stdout).contains("ran 0"));
    // Other values in the same directory are another sweep: refused.
    let output = sweep(
        &resumed,
        &["--vary", "p.g=1,2", "--vary", "q.joint1=0.3:1.2:2"],
    );
    assert_eq!(output.status.code(), Some(101));
    assert!(String::from_utf8_lossy(&output.stderr).contains("other values"));

    // The same cases from a CSV file.
    std::fs::write(&cases, "p.g,q.joint1\n9.81,0.3\n9.81,1.2\n3,0.3\n3,1.2\n").expect("written");
    let listed = path("listed");
    let output = sweep(&listed, &["--cases", cases.to_str().expect("utf-8")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        summary(&listed.join("summary.csv")),
        (header.clone(), rows.clone())
    );

    // A case that blows up is recorded with its error; the others run, and
    // the exit code counts the failures.
    let failing = path("failing");
    let output = sharnir(&[
        "sweep",
        SPEC,
        "--t-end",
        "0.2",
        "--method",
        "rk4",
        "--dt",
        "0.002",
        "--vary",
        "v.joint1=1,1e5,2",
        "--case-csv",
        "--out",
        failing.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (header, rows) = summary(&failing.join("summary.csv"));
    let status: Vec<&str> = rows
        .values()
        .map(|r| r[column(&header, "status")].as_str())
        .collect();
    assert_eq!(status, ["ok", "failed", "ok"]);
    assert!(rows[&1][column(&header, "error")].contains("infinite or NaN"));
    assert!(rows[&1][column(&header, "final.q.joint1")].is_empty());
    let samples =
        std::fs::read_to_string(failing.join("cases").join("case-2.csv")).expect("per-case csv");
    assert!(samples.starts_with("t,q.joint1,q.joint2"), "{samples}");
}
