//! `cargo xtask` is the `sharnir` command line with the checkout's
//! defaults: the commands are sharnir-cli's (tested there), named
//! `cargo xtask` in their help.

use std::process::Command;

#[test]
fn gen_runs_the_command_line_of_sharnir_cli() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the checkout");
    let spec = root.join("specs").join("double_pendulum.spec");
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("gen")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("xtask runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let module = std::fs::read_to_string(out.join("double_pendulum.rs")).expect("module");
    assert!(
        module.contains("from `specs/double_pendulum.spec`"),
        "the spec is named relative to the checkout: {}",
        module.lines().next().unwrap_or_default()
    );
    assert!(!out.join("lib.rs").exists(), "lib.rs outside generated/src");
}

#[test]
fn help_names_cargo_xtask() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("--help")
        .output()
        .expect("xtask runs");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Usage: cargo xtask <COMMAND>"), "{stdout}");
}
