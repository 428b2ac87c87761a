//! The command line on good and bad specs: bad input gives `file:line:col`,
//! a hint and a non-zero exit, never a panic, and writes nothing.

use std::path::Path;
use std::process::{Command, Output};

const VALID: &str = r#"[mechanism]
name = "arm"
gravity = [0, 0, "-g"]

[parameters]
g = 9.81
m = 2.0

[[body]]
name = "link1"
mass = "m"
com = [0.5, 0, 0]
inertia = [0.01, 0.2, 0.2]

[[joint]]
name = "q1"
type = "revolute"
parent = "ground"
child = "link1"
axis = [0, 0, 1]
"#;

const SECOND_LINK: &str = r#"
[[body]]
name = "link2"
mass = 1.0
com = [0.5, 0, 0]
inertia = [0.01, 0.1, 0.1]
"#;

fn run(spec: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arm.spec");
    std::fs::write(&path, spec).expect("write spec");
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("gen")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .expect("sharnir runs");
    (output, dir)
}

fn written(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("out"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs a bad spec and checks the error contract; returns stderr.
fn rejects(spec: &str, location: &str, message: &str) -> String {
    let (output, dir) = run(spec, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "accepted a bad spec; stderr: {stderr}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "exit code (a panic exits with 101): {stderr}"
    );
    assert!(
        stderr.contains(&format!("arm.spec:{location}")),
        "no `arm.spec:{location}` in:\n{stderr}"
    );
    assert!(stderr.contains(message), "no `{message}` in:\n{stderr}");
    assert!(
        stderr.to_lowercase().contains("help"),
        "no hint in:\n{stderr}"
    );
    assert!(
        written(dir.path()).is_empty(),
        "wrote {:?} for a bad spec",
        written(dir.path())
    );
    stderr
}

#[test]
fn valid_spec_writes_module_and_prints_op_counts() {
    let (output, dir) = run(VALID, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("inverse_dynamics"), "{stdout}");
    assert_eq!(written(dir.path()), vec!["arm.rs".to_owned()]);
    let text = std::fs::read_to_string(dir.path().join("out").join("arm.rs")).expect("module");
    assert!(
        text.contains("pub fn inverse_dynamics(\n    p: &Params,"),
        "{text}"
    );
    assert!(
        text.contains("pub const COORDINATE_NAMES: [&str; NV] = [\"q1\"]"),
        "{text}"
    );
}

#[test]
fn fold_writes_a_folded_module() {
    let (output, dir) = run(VALID, &["--fold"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text =
        std::fs::read_to_string(dir.path().join("out").join("arm_folded.rs")).expect("module");
    assert!(
        !text.contains("p.m"),
        "folded module still reads parameters:\n{text}"
    );
}

#[test]
fn a_spec_with_folded_twin_gets_both_modules() {
    let spec = VALID.replacen("[mechanism]\n", "[mechanism]\nfolded_twin = true\n", 1);
    let (output, dir) = run(&spec, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut files = written(dir.path());
    files.sort();
    assert_eq!(files, ["arm.rs", "arm_folded.rs"]);
    let (output, dir) = run(&spec, &["--fold"]);
    assert!(output.status.success());
    assert_eq!(written(dir.path()), ["arm_folded.rs"]);
}

#[test]
fn syntax_error() {
    rejects(&VALID.replace("mass = \"m\"", "mass = \"m"), "11:", "");
}

#[test]
fn unknown_parameter_points_inside_the_expression() {
    rejects(
        &VALID.replace("mass = \"m\"", "mass = \"m + mx\""),
        "11:13",
        "unknown parameter",
    );
}

#[test]
fn unknown_body() {
    rejects(
        &VALID.replace("child = \"link1\"", "child = \"link9\""),
        "19:",
        "link9",
    );
}

#[test]
fn duplicate_name() {
    let spec = format!("{VALID}{}", SECOND_LINK.replace("link2", "link1"));
    rejects(&spec, "23:", "duplicate");
}

#[test]
fn body_not_connected_to_ground() {
    rejects(
        &format!("{VALID}{SECOND_LINK}"),
        "23:",
        "not connected to ground",
    );
}

/// A loop whose closing joint pins link 2's frame (at the ground origin) to
/// a point of link 1 a metre from link 1's own pivot, which is also at the
/// ground origin: the pin's offset is a nonzero constant.
#[test]
fn a_loop_that_can_never_close_is_refused_at_its_cut_joint() {
    let joints = r#"
[[joint]]
name = "q2"
type = "revolute"
parent = "link1"
child = "link2"
axis = [0, 0, 1]
origin = { xyz = [1, 0, 0] }

[[joint]]
name = "q3"
type = "revolute"
parent = "ground"
child = "link2"
axis = [0, 0, 1]
"#;
    let stderr = rejects(
        &format!("{VALID}{SECOND_LINK}{joints}"),
        "29:8",
        "the loop of cut joint `q2` can never close",
    );
    assert!(stderr.contains("q2.fx"), "the row is not named:\n{stderr}");
}

/// A triangle of bars (sides 1, 1 and 1.5 on the ground), assembled: its
/// two constraints take both coordinates.
#[test]
fn a_loop_that_locks_the_mechanism_is_refused_at_its_cut_joint() {
    let joints = r#"
[[joint]]
name = "q2"
type = "revolute"
parent = "link1"
child = "link2"
axis = [0, 0, 1]
origin = { xyz = [1, 0, 0] }

[[joint]]
name = "anchor"
type = "revolute"
parent = "link2"
child = "ground_stub"
axis = [0, 0, 1]
origin = { xyz = [1, 0, 0] }
cut = true

[[joint]]
name = "stub"
type = "fixed"
parent = "ground"
child = "ground_stub"
origin = { xyz = [1.5, 0, 0] }

[[body]]
name = "ground_stub"
mass = 1.0
inertia = [0.1, 0.1, 0.1]

[initial]
q = { q1 = 0.7227342478134157, q2 = -1.4454684956268313 }
"#;
    rejects(
        &format!("{VALID}{SECOND_LINK}{joints}"),
        "",
        "the loops lock the mechanism",
    );
}

/// The four-bar with a rocker too short to reach the coupler's tip from
/// its [initial] crank angle, which assembly holds: refused by `gen` at the
/// cut joint, naming the constraint that stays open.
#[test]
fn a_loop_that_cannot_close_from_its_initial_state_is_refused_at_its_cut_joint() {
    let spec = include_str!("../../../specs/four_bar.spec").replace("c = 0.5 ", "c = 0.05");
    assert!(
        spec.contains("c = 0.05"),
        "the rocker's length is not where it was"
    );
    let line = spec
        .lines()
        .position(|l| l == "name = \"pin\"")
        .expect("the cut joint")
        + 1;
    let stderr = rejects(&spec, &format!("{line}:8"), "[initial] cannot be assembled");
    assert!(
        stderr.contains("`pin.fx`") && stderr.contains("`crank` held"),
        "{stderr}"
    );
}

/// The Stewart platform, whose tree turns leg 1's ball-joint quaternion:
/// with leg 1 a centimetre too long its [initial] is assembled on the
/// manifold (a note with the residual it started from), a metre too long
/// it is refused at a cut joint.
#[test]
fn a_stewart_platform_start_is_assembled_through_its_quaternion_or_refused() {
    let spec = include_str!("../../../specs/stewart.spec");
    let leg = "s1 = 0.6426530800466733";
    assert!(spec.contains(leg), "leg 1's length is not where it was");
    let (output, _dir) = run(&spec.replace(leg, "s1 = 0.6526530800466733"), &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("[initial] does not close the loops"),
        "{stdout}"
    );
    let far = spec.replace(leg, "s1 = 1.6426530800466733");
    let stderr = rejects(&far, "", "[initial] cannot be assembled");
    assert!(
        stderr.contains("`ball") && stderr.contains("`s1`, `s2`"),
        "{stderr}"
    );
}

/// A body on a free joint tethered to the ground by a cut ball joint, its
/// [initial] 1 cm and 0.1 rad off the tether: assembled at `gen` by moving
/// the free joint's origin and turning its quaternion, with a note.
#[test]
fn a_free_joint_start_is_assembled_on_the_manifold() {
    let spec = r#"[mechanism]
name = "arm"
gravity = [0, 0, -9.81]

[[body]]
name = "bob"
mass = 1.0
inertia = [0.01, 0.02, 0.03]

[[joint]]
name = "base"
type = "free"
parent = "ground"
child = "bob"

[[joint]]
name = "tether"
type = "spherical"
parent = "ground"
child = "bob"
cut = true
origin = { xyz = [0, 0, 1] }
child_origin = { xyz = [0, 0, 0.5] }

[initial]
q = { base_x = 0.01, base_z = 0.5 }
rpy = { base = [0.1, 0, 0] }
"#;
    let (output, _dir) = run(spec, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("[initial] does not close the loops"),
        "{stdout}"
    );
    assert!(stdout.contains("3 degree(s) of freedom"), "{stdout}");
}

#[test]
fn non_positive_mass() {
    rejects(&VALID.replace("m = 2.0", "m = -2.0"), "11:", "mass");
}

#[test]
fn inertia_not_positive_definite() {
    rejects(
        &VALID.replace("[0.01, 0.2, 0.2]", "[0.01, -0.2, 0.2]"),
        "13:",
        "inertia",
    );
}

#[test]
fn inertia_violating_triangle_inequality() {
    rejects(
        &VALID.replace("[0.01, 0.2, 0.2]", "[0.01, 0.2, 0.5]"),
        "13:",
        "triangle",
    );
}

#[test]
fn zero_axis() {
    rejects(
        &VALID.replace("axis = [0, 0, 1]", "axis = [0, 0, 0]"),
        "20:",
        "axis",
    );
}

#[test]
fn ops_reports_every_formalism_and_mode_as_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arm.spec");
    std::fs::write(&path, VALID).expect("write spec");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .args(["ops", "--json"])
        .arg(&path)
        .output()
        .expect("sharnir runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().count(),
        1,
        "one object per spec, one per line (JSON Lines), as the help says: {stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("ops --json prints JSON");
    let functions = &report["functions"];
    for method in ["newton-euler", "lagrange"] {
        for mode in ["params", "folded"] {
            let counts = &functions["inverse_dynamics"][method][mode];
            assert!(
                counts["mul"].as_u64().is_some(),
                "no {method}/{mode} counts in {report}"
            );
        }
    }
    assert!(
        functions["forward_dynamics"]["vereshchagin"]["params"]["div"]
            .as_u64()
            .is_some()
    );
    assert!(
        functions["inverse_dynamics"].get("vereshchagin").is_none(),
        "vereshchagin derives no inverse dynamics"
    );
    // Which row the module `gen` writes holds, for every function and mode:
    // a row of the report.
    let used = report["used"].as_object().expect("the rows gen uses");
    assert!(used.contains_key("forward_dynamics") && used.contains_key("energy"));
    for (function, modes) in used {
        for mode in ["params", "folded"] {
            let method = modes[mode].as_str().expect("a method name");
            assert!(
                functions[function][method][mode]["mul"].as_u64().is_some(),
                "{function}: gen's row {method}/{mode} is not in the report"
            );
        }
    }
    // A single pendulum's τ = (I + m l²) q̈ + m g l cos q costs a handful of
    // operations, not none and not dozens.
    let mul = functions["inverse_dynamics"]["newton-euler"]["params"]["mul"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        (1..=8).contains(&mul),
        "{mul} multiplications for one pendulum"
    );
    assert_eq!(
        written(dir.path()),
        Vec::<String>::new(),
        "ops writes no files"
    );
}

#[test]
fn two_specs_of_one_mechanism_name_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = dir.path().join("arm.spec");
    let second = dir.path().join("arm_copy.spec");
    std::fs::write(&first, VALID).expect("write spec");
    std::fs::write(&second, VALID).expect("write spec");
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("gen")
        .arg(&first)
        .arg(&second)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("sharnir runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("both define the"), "{stderr}");
    assert!(stderr.contains("arm_copy.spec"), "{stderr}");
    assert!(written(dir.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn written_modules_have_the_usual_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (output, dir) = run(VALID, &[]);
    assert!(output.status.success());
    let mode = std::fs::metadata(dir.path().join("out").join("arm.rs"))
        .expect("module")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644, "mode {mode:o}");
}

/// Generating a module again that has not changed leaves its file alone
/// (cargo compiles a crate again when a source file's time changes), and
/// one that has changed is rewritten.
#[test]
fn an_unchanged_module_is_not_written_again() {
    let (output, dir) = run(VALID, &[]);
    assert!(output.status.success());
    let module = dir.path().join("out").join("arm.rs");
    let modified = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("the module has a modification time")
    };
    let past = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(&module)
        .and_then(|f| f.set_modified(past))
        .expect("the module's time can be set");
    let again = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("gen")
        .arg(dir.path().join("arm.spec"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("sharnir runs");
    assert!(again.status.success());
    assert_eq!(modified(&module), past, "the same module was written again");
    let fewer = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("gen")
        .arg(dir.path().join("arm.spec"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--outputs", "inverse_dynamics"])
        .output()
        .expect("sharnir runs");
    assert!(fewer.status.success());
    assert_ne!(modified(&module), past, "a changed module was not written");
}
