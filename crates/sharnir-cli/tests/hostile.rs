//! Hostile inputs through the command line — expressions nested or sized to
//! panic (exit 101), overflow the stack (exit 134) or generate a useless
//! module: each is refused with exit 1, `file:line:col` and a hint,
//! writing nothing (or, for unused parameters, warned about).

use std::process::{Command, Output};

/// A pendulum; `{params}`, `{mass}`, `{com}` and `{origin}` are filled in.
const TEMPLATE: &str = r#"[mechanism]
name = "hostile"
gravity = [0, 0, "-g"]

[parameters]
g = 9.81
{params}

[[body]]
name = "link"
mass = {mass}
com = {com}
inertia = [0.1, 0.1, 0.1]

[[joint]]
name = "q"
type = "revolute"
parent = "ground"
child = "link"
axis = [1, 0, 0]
origin = {origin}
"#;

fn spec(params: &str, mass: &str, com: &str, origin: &str) -> String {
    TEMPLATE
        .replace("{params}", params)
        .replace("{mass}", mass)
        .replace("{com}", com)
        .replace("{origin}", origin)
}

fn plain() -> String {
    spec("", "1", "[0, 0, -0.5]", "{ xyz = [0, 0, 0] }")
}

/// Runs `sharnir <command> <file> --out … <extra>` on `text` written to
/// `file_name`; returns the output and whether anything was written.
fn run(command: &str, file_name: &str, text: &str, extra: &[&str]) -> (Output, bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(file_name);
    std::fs::write(&path, text).expect("write input");
    let out = dir.path().join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sharnir"));
    cmd.arg(command).arg(&path);
    if command == "gen" {
        cmd.arg("--out").arg(&out);
    }
    let output = cmd.args(extra).output().expect("sharnir runs");
    (output, out.exists())
}

/// Refused with exit 1 (not a panic's 101 or an abort's 134), at
/// `file:location`, with `message` and a hint, writing nothing.
fn refused(
    command: &str,
    file_name: &str,
    text: &str,
    extra: &[&str],
    location: &str,
    message: &str,
) {
    let (output, wrote) = run(command, file_name, text, extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{file_name}:{location}")),
        "no `{file_name}:{location}` in {stderr}"
    );
    assert!(stderr.contains(message), "no `{message}` in {stderr}");
    assert!(stderr.contains("help"), "no hint in {stderr}");
    assert!(!wrote, "wrote output for a refused input");
}

#[test]
fn the_plain_pendulum_is_generated() {
    let (output, wrote) = run("gen", "hostile.spec", &plain(), &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(wrote);
}

#[test]
fn constants_whose_products_overflow_are_refused_where_written() {
    let com = spec("", "1", "[1e160, 0, 0]", "{ xyz = [0, 0, 0] }");
    let origin = spec("", "1", "[0, 0, -0.5]", "{ xyz = [1e308, 1e308, 0] }");
    for fold in [&[][..], &["--fold"][..]] {
        refused("gen", "hostile.spec", &com, fold, "12:8", "to 1e50 that");
        refused(
            "gen",
            "hostile.spec",
            &origin,
            fold,
            "21:19",
            "to 1e50 that",
        );
    }
    refused("ops", "hostile.spec", &com, &[], "12:8", "to 1e50 that");
}

#[test]
fn huge_parameters_and_subnormal_masses_are_refused_where_written() {
    let huge = spec("L = 1e308", "1", "[0, 0, \"-L\"]", "{ xyz = [0, 0, 0] }");
    let tiny = spec("", "1e-320", "[0, 0, -0.5]", "{ xyz = [0, 0, 0] }");
    let tiny_parameter = spec("m = 1e-320", "\"m\"", "[0, 0, -0.5]", "{ xyz = [0, 0, 0] }");
    for fold in [&[][..], &["--fold"][..]] {
        refused(
            "gen",
            "hostile.spec",
            &huge,
            fold,
            "7:1",
            "parameter `L` is 1.000e308",
        );
        refused("gen", "hostile.spec", &tiny, fold, "11:8", "to 1e50 that");
        refused(
            "gen",
            "hostile.spec",
            &tiny_parameter,
            fold,
            "7:1",
            "parameter `m`",
        );
    }
}

#[test]
fn fifteen_thousand_chained_derived_parameters_are_refused_not_a_stack_overflow() {
    let n = 15_000;
    let mut chain: String = (0..n)
        .map(|i| format!("a{i} = \"a{} + 1\"\n", i + 1))
        .collect();
    chain.push_str(&format!("a{n} = 1"));
    let text = spec(&chain, "1", "[0, 0, \"a0 * 1e-5\"]", "{ xyz = [0, 0, 0] }");
    refused(
        "gen",
        "hostile.spec",
        &text,
        &[],
        "14807:11",
        "nested too deeply",
    );
    refused(
        "gen",
        "hostile.spec",
        &text,
        &["--fold"],
        "14807:11",
        "nested too deeply",
    );
}

#[test]
fn urdf_nested_twenty_thousand_deep_is_refused_not_a_stack_overflow() {
    let depth = 20_000;
    let text = format!(
        "<robot name=\"r\">{}{}<link name=\"l\"/></robot>",
        "<a>".repeat(depth),
        "</a>".repeat(depth)
    );
    refused(
        "gen",
        "deep.urdf",
        &text,
        &[],
        "1:314",
        "XML nested too deeply",
    );
}

#[test]
fn unused_parameters_are_warned_about_at_the_first() {
    let unused: String = (0..20_000).map(|i| format!("u{i} = {i}\n")).collect();
    let text = spec(&unused, "1", "[0, 0, -0.5]", "{ xyz = [0, 0, 0] }");
    let (output, wrote) = run("gen", "hostile.spec", &text, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(wrote);
    assert!(
        stderr.contains(
            "warning: ",
        ) && stderr.contains("hostile.spec:7:1: 20000 parameters are never used: `u0`, `u1`, `u2`, `u3`, `u4`, … (19995 more)"),
        "{stderr}"
    );
    let (output, _) = run("gen", "hostile.spec", &plain(), &[]);
    assert!(!String::from_utf8_lossy(&output.stderr).contains("never used"));
}

/// Found by fuzzing the gen path: `sin(pi)` is 1.2e-16 in floating point,
/// which the spec's checks accept as a divisor, but exactly zero in the
/// derivation, which then wrote `inf` (a panic before the printer learnt
/// to refuse it). Refused where written, in both parameter modes.
#[test]
fn a_divisor_that_is_exactly_zero_is_refused_where_written() {
    let text = spec("", "1", "[0, 0, \"10 / sin(pi)\"]", "{ xyz = [0, 0, 0] }");
    for fold in [&[][..], &["--fold"][..]] {
        refused(
            "gen",
            "hostile.spec",
            &text,
            fold,
            "12:15",
            "divisor is exactly zero",
        );
    }
}

/// Found by the strict gen-path fuzzing: `sin(pi) * pi` is 3.8e-16, a
/// positive mass to the spec's floating-point checks, but exactly zero in
/// the derivation, whose forward dynamics then divided by it.
#[test]
fn a_mass_that_is_exactly_zero_is_refused_where_written() {
    let text = spec(
        "",
        "\"sin(pi) * pi\"",
        "[0, 0, -0.5]",
        "{ xyz = [0, 0, 0] }",
    );
    for fold in [&[][..], &["--fold"][..]] {
        refused(
            "gen",
            "hostile.spec",
            &text,
            fold,
            "11:9",
            "the mass is 0 when computed",
        );
    }
}
