//! URDF input on the command line: `urdf2spec` prints a spec that parses,
//! `gen` compiles a URDF like a spec, and every URDF problem exits with 1,
//! `file.urdf:line:col`, a message and a hint, and writes nothing.

use std::path::Path;
use std::process::{Command, Output};

/// A two-link arm with a tool bolted on; the line numbers in the tests
/// refer to it.
const ARM: &str = r#"<?xml version="1.0"?>
<robot name="Arm">
  <link name="base"/>
  <link name="upper">
    <inertial>
      <origin xyz="0.25 0 0" rpy="0 0 0"/>
      <mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.05"/>
    </inertial>
  </link>
  <link name="fore">
    <inertial>
      <origin xyz="0.2 0 0"/>
      <mass value="1.0"/>
      <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/>
    </inertial>
  </link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1.5" upper="1.5" effort="40" velocity="2"/>
  </joint>
  <joint name="elbow" type="continuous">
    <origin xyz="0.5 0 0" rpy="0 0 0"/>
    <parent link="upper"/>
    <child link="fore"/>
    <axis xyz="0 0 1"/>
    <dynamics damping="0.1" friction="0.05"/>
  </joint>
  <joint name="tcp" type="fixed">
    <origin xyz="0.4 0 0"/>
    <parent link="fore"/>
    <child link="tool"/>
  </joint>
</robot>
"#;

/// `ARM` with `from` replaced by `to`, checking `from` is there.
fn edited(from: &str, to: &str) -> String {
    assert!(ARM.contains(from), "`{from}` is not in the arm");
    ARM.replacen(from, to, 1)
}

/// Runs `sharnir <command> <dir>/arm.urdf <extra>` on `urdf`.
fn run(command: &str, urdf: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arm.urdf");
    std::fs::write(&path, urdf).expect("write urdf");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sharnir"));
    cmd.arg(command).arg(&path).args(extra);
    if command == "gen" {
        cmd.arg("--out").arg(dir.path().join("out"));
    }
    (cmd.output().expect("sharnir runs"), dir)
}

fn written(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir.join("out"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A report with miette's line wrapping (at 80 columns without a terminal)
/// undone: words joined by single spaces, the frame's `│` dropped.
fn unwrapped(report: &str) -> String {
    report
        .split_whitespace()
        .filter(|word| *word != "│")
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks the error contract for both commands: exit code 1, the location,
/// the message and a hint on stderr, nothing on stdout or on disk.
fn rejects(urdf: &str, extra: &[&str], location: &str, message: &str) {
    for command in ["urdf2spec", "gen"] {
        let (output, dir) = run(command, urdf, extra);
        let stderr = unwrapped(&text(&output.stderr));
        assert_eq!(
            output.status.code(),
            Some(1),
            "{command}: exit code (a panic exits with 101); stderr:\n{stderr}"
        );
        assert!(
            stderr.contains(&format!("arm.urdf:{location}")),
            "{command}: no `arm.urdf:{location}` in:\n{stderr}"
        );
        assert!(
            stderr.contains(message),
            "{command}: no `{message}` in:\n{stderr}"
        );
        assert!(
            stderr.to_lowercase().contains("help"),
            "{command}: no hint in:\n{stderr}"
        );
        assert!(
            output.stdout.is_empty(),
            "{command}: printed {}",
            text(&output.stdout)
        );
        assert!(
            written(dir.path()).is_empty(),
            "{command}: wrote {:?}",
            written(dir.path())
        );
    }
}

fn parse_spec(text: &str) -> sharnir_spec::Spec {
    sharnir_spec::parse(sharnir_spec::Source {
        name: "converted.spec".into(),
        text: text.into(),
    })
    .unwrap_or_else(|e| panic!("{:?}\n{text}", miette::Report::from(e)))
}

#[test]
fn urdf2spec_prints_a_spec_that_parses() {
    let (output, _dir) = run("urdf2spec", ARM, &[]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let spec = parse_spec(&stdout);
    assert_eq!(spec.name, "arm");
    let bodies: Vec<&str> = spec.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(bodies, ["upper", "fore"]);
    let joints: Vec<&str> = spec.joints.iter().map(|j| j.coordinate.as_str()).collect();
    assert_eq!(joints, ["shoulder", "elbow"]);
    assert_eq!(spec.joints[0].parent, "ground");
    assert!(spec.joints[0].limits.is_some(), "{stdout}");
    assert!(spec.joints[1].limits.is_none(), "{stdout}");
    assert!(spec.joints[1].damping.is_some(), "{stdout}");
    for line in [
        "the root link `base` is the ground",
        "`tcp` (`tool` into `fore`)",
        "limits = { lower = -1.5, upper = 1.5, effort = 40, velocity = 2 }",
        "damping = 0.1\nfriction = 0.05",
        "# URDF type `continuous`",
    ] {
        assert!(stdout.contains(line), "no `{line}` in:\n{stdout}");
    }
}

#[test]
fn gen_compiles_a_urdf_like_a_spec() {
    let (output, dir) = run("gen", ARM, &["--name", "two_link"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("inverse_dynamics"));
    assert_eq!(written(dir.path()), ["two_link.rs"]);
    let module =
        std::fs::read_to_string(dir.path().join("out").join("two_link.rs")).expect("module");
    assert!(
        module.contains("pub const COORDINATE_NAMES: [&str; NV] = [\"shoulder\", \"elbow\"]"),
        "{module}"
    );
    assert!(module.contains("arm.urdf"), "the header names the URDF");
    let (folded, dir) = run("gen", ARM, &["--fold"]);
    assert!(folded.status.success(), "{}", text(&folded.stderr));
    assert_eq!(written(dir.path()), ["arm_folded.rs"]);
}

#[test]
fn massless_leaf_links_are_dropped_with_a_note() {
    let urdf = edited(
        "</robot>",
        r#"  <link name="camera"/>
  <joint name="pan" type="revolute">
    <parent link="fore"/>
    <child link="camera"/>
  </joint>
</robot>"#,
    );
    let (output, _dir) = run("urdf2spec", &urdf, &[]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout
            .contains("massless leaf links dropped with their joints:\n#   `camera` (joint `pan`)"),
        "{stdout}"
    );
    assert_eq!(parse_spec(&stdout).joints.len(), 2);
}

#[test]
fn fix_inertia_projects_and_says_so() {
    let bad = edited("ixx=\"0.01\"", "ixx=\"0.2\"");
    rejects(&bad, &[], "8:7", "violates the triangle inequality");
    let (output, _dir) = run("urdf2spec", &bad, &["--fix-inertia"]);
    let stderr = unwrapped(&text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning:")
            && stderr.contains("arm.urdf:8:7: inertia of the moving body of link `upper` replaced"),
        "{stderr}"
    );
    assert!(
        stdout.contains("# * --fix-inertia: inertia of the moving body of link `upper` replaced"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--fix-inertia`."),
        "the header's command line: {stdout}"
    );
    // Moments (0.05, 0.05, 0.2) violate I₁ + I₂ ≥ I₃ by v = 0.1; the nearest
    // physical ones are (0.05 + v/3, 0.05 + v/3, 0.2 − v/3) = (1/12, 1/12, 1/6),
    // on the same (here: the link's) axes.
    let spec = parse_spec(&stdout);
    let inertia = &spec.bodies[0].inertia;
    let want = [1.0 / 6.0, 1.0 / 12.0, 1.0 / 12.0];
    for (expr, want) in [&inertia.xx, &inertia.yy, &inertia.zz]
        .into_iter()
        .zip(want)
    {
        match expr.kind {
            sharnir_spec::ExprKind::Number(x) => assert!((x - want).abs() < 1e-12, "{x} vs {want}"),
            _ => panic!("not a number: {expr:?}"),
        }
    }
}

#[test]
fn xml_syntax_error() {
    rejects(
        &edited("<link name=\"tool\"/>", "<link name=\"tool\">"),
        &[],
        "",
        "XML syntax error",
    );
}

#[test]
fn unknown_links() {
    rejects(
        &edited("<parent link=\"upper\"/>", "<parent link=\"uper\"/>"),
        &[],
        "27:19",
        "unknown link `uper` as parent of joint `elbow`",
    );
    rejects(
        &edited("<child link=\"upper\"/>", "<child link=\"upperr\"/>"),
        &[],
        "21:18",
        "unknown link `upperr` as child of joint `shoulder`",
    );
}

#[test]
fn duplicate_names() {
    rejects(
        &edited("<link name=\"tool\"/>", "<link name=\"fore\"/>"),
        &[],
        "18:3",
        "duplicate link name `fore`",
    );
    rejects(
        &edited("<joint name=\"tcp\"", "<joint name=\"elbow\""),
        &[],
        "32:16",
        "duplicate joint name `elbow`",
    );
}

#[test]
fn more_than_one_root() {
    rejects(
        &edited(
            "<link name=\"tool\"/>",
            "<link name=\"tool\"/>\n  <link name=\"spare\"/>",
        ),
        &[],
        "19:3",
        "more than one root link: `base` and `spare`",
    );
}

#[test]
fn closed_loop() {
    rejects(
        &edited("<parent link=\"base\"/>", "<parent link=\"fore\"/>"),
        &[],
        "25:16",
        "the joints `elbow`, `shoulder` form a closed loop",
    );
}

#[test]
fn floating_and_planar_joints_become_free_and_planar_joints() {
    for (kind, spec_kind) in [("floating", "free"), ("planar", "planar")] {
        let urdf = edited("type=\"continuous\"", &format!("type=\"{kind}\""));
        let (output, _dir) = run("urdf2spec", &urdf, &[]);
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert!(
            stdout.contains(&format!("# URDF type `{kind}`")),
            "{stdout}"
        );
        assert_eq!(parse_spec(&stdout).joints[1].kind.name(), spec_kind);
        let (generated, dir) = run("gen", &urdf, &[]);
        assert!(generated.status.success(), "{}", text(&generated.stderr));
        assert_eq!(written(dir.path()), ["arm.rs"]);
    }
}

#[test]
fn floating_base() {
    // The arm's root link has no mass: it cannot float.
    rejects(
        ARM,
        &["--floating"],
        "3:3",
        "the floating base `base` has no mass",
    );
    let urdf = edited(
        "<link name=\"base\"/>",
        r#"<link name="base">
    <inertial>
      <mass value="5.0"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
    </inertial>
  </link>"#,
    );
    let (output, dir) = run("gen", &urdf, &["--floating"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let module = std::fs::read_to_string(dir.path().join("out").join("arm.rs")).expect("module");
    for line in [
        "pub const NQ: usize = 9;",
        "pub const NV: usize = 8;",
        "\"root_joint_qw\"",
        "\"root_joint_wz\"",
    ] {
        assert!(module.contains(line), "no `{line}` in the module");
    }
}

#[test]
fn mimic_joints_become_coupled_coordinates() {
    let urdf = edited(
        "<dynamics damping=\"0.1\" friction=\"0.05\"/>",
        "<mimic joint=\"shoulder\" multiplier=\"2\"/>",
    );
    let (output, _dir) = run("urdf2spec", &urdf, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let spec = text(&output.stdout);
    assert!(
        spec.contains("mimic = { joint = \"shoulder\", multiplier = 2, offset = 0 }"),
        "{spec}"
    );
    let (output, dir) = run("gen", &urdf, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let module = std::fs::read_to_string(dir.path().join("out").join("arm.rs")).expect("written");
    assert!(
        module.contains("pub const NV: usize = 1;"),
        "one degree of freedom"
    );
    assert!(module.contains("`elbow` follows `shoulder`"));
    rejects(
        &edited(
            "<dynamics damping=\"0.1\" friction=\"0.05\"/>",
            "<mimic joint=\"wrist\"/>",
        ),
        &[],
        "30:19",
        "joint `elbow` mimics an unknown joint `wrist`",
    );
}

#[test]
fn masses() {
    rejects(
        &edited("<mass value=\"2.0\"/>", "<mass value=\"-2.0\"/>"),
        &[],
        "7:20",
        "mass of link `upper` is negative",
    );
    rejects(
        &edited("<mass value=\"1.0\"/>", "<mass value=\"0\"/>"),
        &[],
        "14:20",
        "mass of moving link `fore` is zero",
    );
    let massless_upper = edited(
        r#"    <inertial>
      <origin xyz="0.25 0 0" rpy="0 0 0"/>
      <mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.05"/>
    </inertial>
"#,
        "",
    );
    rejects(
        &massless_upper,
        &[],
        "4:3",
        "link `upper` has no mass but carries `fore` through the moving joint `elbow`",
    );
}

#[test]
fn inertia_not_positive_definite() {
    rejects(
        &edited("ixx=\"0.01\"", "ixx=\"-0.01\""),
        &[],
        "8:7",
        "inertia of the moving body of link `upper` is not positive definite",
    );
}

/// The criterion is the lumped body: a tool link bolted on by a fixed joint
/// may be a point mass or a rank-1 dummy, as in published robots; a moving
/// body that is singular once lumped is reported at the link whose own
/// tensor is bad, naming the links lumped into the body.
#[test]
fn inertia_is_checked_on_the_lumped_moving_bodies() {
    let point_tool = edited(
        "<link name=\"tool\"/>",
        r#"<link name="tool"><inertial><mass value="0.3"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>"#,
    );
    let (output, _dir) = run("urdf2spec", &point_tool, &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stderr).is_empty(), "{}", text(&output.stderr));
    let flat_fore = point_tool.replacen(
        "ixx=\"0.005\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"",
        "ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"",
        1,
    );
    rejects(
        &flat_fore,
        &[],
        "15:7",
        "inertia of the moving body of link `fore` with `tool` lumped in by fixed joints is \
         not positive definite",
    );
}

/// A xacro template is told to go through `xacro` first; a file that is
/// not UTF-8 is located at its first bad byte, without the "check the
/// path" hint of a file that cannot be read at all.
#[test]
fn xacro_and_non_utf8_files() {
    let xacro = edited(
        "<robot name=\"Arm\">",
        "<robot name=\"Arm\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n  \
         <xacro:property name=\"length\" value=\"0.5\"/>",
    );
    rejects(
        &xacro,
        &[],
        "3:3",
        "`<xacro:property>` in a URDF: this is a xacro file",
    );
    let (output, _dir) = run("urdf2spec", &xacro, &[]);
    assert!(
        unwrapped(&text(&output.stderr)).contains("xacro robot.urdf.xacro > robot.urdf"),
        "{}",
        text(&output.stderr)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arm.urdf");
    // `tool_é` in Latin-1: the byte 0xE9 alone is no UTF-8.
    let latin1: Vec<u8> = edited("name=\"tool\"", "name=\"tool_\u{1}\"")
        .bytes()
        .map(|b| if b == 1 { 0xE9 } else { b })
        .collect();
    std::fs::write(&path, latin1).expect("write urdf");
    for command in ["urdf2spec", "gen"] {
        let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
            .arg(command)
            .arg(&path)
            .output()
            .expect("sharnir runs");
        let stderr = unwrapped(&text(&output.stderr));
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("arm.urdf:18:20") && stderr.contains("not UTF-8 text: byte 0xE9"),
            "{command}: {stderr}"
        );
        assert!(stderr.contains("iconv"), "{stderr}");
        assert!(!stderr.contains("check the path"), "{stderr}");
    }
}

#[test]
fn limits_and_dynamics() {
    rejects(
        &edited(
            "lower=\"-1.5\" upper=\"1.5\"",
            "lower=\"1.5\" upper=\"-1.5\"",
        ),
        &[],
        "23:31",
        "upper limit of joint `shoulder` is below its lower limit",
    );
    rejects(
        &edited("effort=\"40\"", "effort=\"-40\""),
        &[],
        "23:",
        "effort of joint `shoulder` is negative",
    );
    rejects(
        &edited("damping=\"0.1\"", "damping=\"-0.1\""),
        &[],
        "30:",
        "damping of joint `elbow` is negative",
    );
}

#[test]
fn malformed_values() {
    rejects(
        &edited("<child link=\"upper\"/>", "<child/>"),
        &[],
        "21:5",
        "<child> has no `link` attribute",
    );
    rejects(
        &edited("<axis xyz=\"0 0 1\"/>", "<axis xyz=\"0 0 0\"/>"),
        &[],
        "22:16",
        "the axis of joint `shoulder` is zero",
    );
    rejects(
        &edited(
            "rpy=\"0 0 0\"/>\n    <parent",
            "rpy=\"0 0 x\"/>\n    <parent",
        ),
        &[],
        "26:36",
        "rpy must be a number, found `x`",
    );
    rejects(
        &edited("xyz=\"0.4 0 0\"", "xyz=\"0.4 0\""),
        &[],
        "33:18",
        "xyz must be three numbers, found 2",
    );
}

#[test]
fn urdf_options_need_a_urdf() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .args(["gen", "specs/telegin6.spec", "--fix-inertia", "--out"])
        .arg(dir.path())
        .output()
        .expect("sharnir runs");
    let stderr = unwrapped(&text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("apply to URDF inputs only"), "{stderr}");
}

#[test]
fn keep_angles_writes_the_urdf_angles() {
    let urdf = edited(
        "<origin xyz=\"0.5 0 0\" rpy=\"0 0 0\"/>",
        "<origin xyz=\"0.5 0 0\" rpy=\"1.57079632679 0 0\"/>",
    );
    let (output, _dir) = run("urdf2spec", &urdf, &[]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("rpy = [\"pi/2\", 0, 0]"), "{stdout}");
    let (output, _dir) = run("urdf2spec", &urdf, &["--keep-angles"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("rpy = [1.57079632679, 0, 0]"), "{stdout}");
    assert!(stdout.contains("--keep-angles"), "{stdout}");
    parse_spec(&stdout);
}
