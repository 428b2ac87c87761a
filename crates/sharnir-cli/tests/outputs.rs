//! `sharnir gen --outputs` and the automatic rule for big mechanisms: the
//! functions a module gets, what its header and stderr say about the
//! others, and the refusal of names that are no output.

use std::path::Path;
use std::process::{Command, Output};

/// A serial chain of `n` revolute links, axes alternating z and y.
fn chain(n: usize) -> String {
    let mut text = String::from("[mechanism]\nname = \"chain\"\ngravity = [0, 0, -9.81]\n");
    for i in 0..n {
        text.push_str(&format!(
            "\n[[body]]\nname = \"b{i}\"\nmass = 1.0\ncom = [0.1, 0.01, 0]\n\
             inertia = [0.01, 0.02, 0.025]\n"
        ));
    }
    for i in 0..n {
        let parent = if i == 0 {
            "ground".to_owned()
        } else {
            format!("b{}", i - 1)
        };
        let axis = if i % 2 == 0 { "[0, 0, 1]" } else { "[0, 1, 0]" };
        let origin = if i == 0 {
            ""
        } else {
            "origin = { xyz = [0.2, 0, 0] }\n"
        };
        text.push_str(&format!(
            "\n[[joint]]\nname = \"j{i}\"\ntype = \"revolute\"\nparent = \"{parent}\"\n\
             child = \"b{i}\"\naxis = {axis}\n{origin}"
        ));
    }
    text
}

/// `sharnir gen` of `spec` with `extra` arguments, into a temporary
/// directory that also holds the module written, if any.
fn gen(spec: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("chain.spec");
    std::fs::write(&path, spec).expect("write spec");
    let output = Command::new(env!("CARGO_BIN_EXE_sharnir"))
        .arg("gen")
        .arg(&path)
        .arg("--out")
        .arg(dir.path())
        .args(extra)
        .output()
        .expect("sharnir runs");
    (output, dir)
}

fn module(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("chain.rs")).expect("the module is written")
}

/// The module's `//!` header as one line of prose.
fn header(module: &str) -> String {
    let lines: Vec<&str> = module
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(str::trim)
        .collect();
    lines.join(" ")
}

fn has_function(module: &str, name: &str) -> bool {
    module.contains(&format!("pub fn {name}("))
}

#[test]
fn outputs_choose_the_standard_functions_and_the_header_names_the_others() {
    let (output, dir) = gen(
        &chain(3),
        &["--outputs", "inverse_dynamics,forward_dynamics"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("note:"), "{stderr}");
    let module = module(dir.path());
    for name in ["inverse_dynamics", "forward_dynamics"] {
        assert!(has_function(&module, name), "no {name}");
    }
    for name in [
        "mass_matrix",
        "bias",
        "joint_space",
        "energy",
        "body_jacobians",
    ] {
        assert!(!has_function(&module, name), "{name} was not asked for");
    }
    let header = header(&module);
    assert!(
        header.contains(
            "Not generated: `mass_matrix`, `bias`, `gravity`, `joint_space`, `coriolis_matrix`, \
             `energy`, `body_poses`, `coordinate_rates`, `body_jacobians`, \
             `inverse_dynamics_derivatives`, `gravity_derivatives`, `mass_matrix_inverse`, \
             `forward_dynamics_derivatives`, `standard_regressor`, `base_parameters`, `regressor`, \
             `base_inverse_dynamics` (not asked for by `--outputs` or the spec's \
             `outputs`); `sharnir gen --outputs all` generates them."
        ),
        "{header}"
    );
    let note = module
        .lines()
        .skip_while(|l| !l.starts_with("//! Not generated"));
    let note: Vec<&str> = note.take_while(|l| l.starts_with("//! ")).collect();
    assert!(
        note.len() > 1 && note.iter().all(|l| l.chars().count() <= 80),
        "{note:?}"
    );
}

#[test]
fn a_mechanism_past_the_limit_skips_its_superlinear_outputs_with_a_note() {
    let (output, dir) = gen(&chain(49), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "note: chain: more than 48 velocity coordinates, so mass_matrix, joint_space, \
             coriolis_matrix, body_jacobians, inverse_dynamics_derivatives, gravity_derivatives, \
             mass_matrix_inverse, forward_dynamics_derivatives, standard_regressor, base_parameters, \
             regressor, base_inverse_dynamics are not generated; ask for them with --outputs all"
        ),
        "{stderr}"
    );
    let module = module(dir.path());
    for name in [
        "mass_matrix",
        "joint_space",
        "coriolis_matrix",
        "body_jacobians",
    ] {
        assert!(!has_function(&module, name), "{name} was generated");
    }
    for name in [
        "inverse_dynamics",
        "bias",
        "gravity",
        "forward_dynamics",
        "energy",
    ] {
        assert!(has_function(&module, name), "no {name}");
    }
    assert!(
        header(&module).contains(
            "Not generated: `mass_matrix`, `joint_space`, `coriolis_matrix`, `body_jacobians`, \
             `inverse_dynamics_derivatives`, `gravity_derivatives`, `mass_matrix_inverse`, \
             `forward_dynamics_derivatives`, `standard_regressor`, `base_parameters`, `regressor`, \
             `base_inverse_dynamics` (the mechanism has more than 48 velocity coordinates, and \
             their size grows faster than linearly)"
        ),
        "{module}"
    );
}

#[test]
fn an_unknown_output_is_refused_with_the_valid_names() {
    let (output, dir) = gen(&chain(2), &["--outputs", "inverse_dynamics,mass_matrx"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown output `mass_matrx`"), "{stderr}");
    assert!(
        stderr.contains(
            "expected `all`, `linear` or a comma-separated list of inverse_dynamics, mass_matrix,"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("chain.rs").exists());
    let (output, _) = gen(&chain(2), &["--outputs", ""]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_spec_can_choose_the_outputs_and_the_command_line_overrides_it() {
    let spec = chain(2).replace(
        "name = \"chain\"",
        "name = \"chain\"\noutputs = [\"forward_dynamics\", \"energy\"]",
    );
    let (output, dir) = gen(&spec, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let chosen = module(dir.path());
    assert!(has_function(&chosen, "forward_dynamics") && has_function(&chosen, "energy"));
    assert!(!has_function(&chosen, "inverse_dynamics"));
    let (output, dir) = gen(&spec, &["--outputs", "all"]);
    assert!(output.status.success());
    assert!(has_function(&module(dir.path()), "body_jacobians"));
}
