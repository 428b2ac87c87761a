//! Functions split into parts, compiled and run: a chain long enough for
//! some of its functions to be emitted in parts (`sharnir-codegen`'s
//! `body.rs`: values passed on through a `live` array, outputs written
//! into the result by the parts) is generated, compiled as a crate of its
//! own with `cargo`, run at a few states, and every function's result is
//! compared with the plan's programs evaluated directly (`Plan::evaluate`),
//! which know nothing of parts; each part's AVX copy (`dispatch.rs`) must
//! give the plain part's results bit for bit. No bundled module has a
//! function long enough to be split, so this is the only test of the split
//! code as the compiler sees it.

use sharnir_codegen::{plan, PlanOptions, Variant};
use sharnir_tests::chains::chain;
use sharnir_tests::inputs::environment;
use sharnir_tests::oracle::relative_error;
use sharnir_tests::processor::avx_detected;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Links: enough that the Coriolis matrix (about 1 700 locals) is split.
const LINKS: usize = 12;

/// Agreement of the compiled functions with the evaluated programs,
/// relative to the largest entry (or 1): the same operations in the same
/// order, but the module's vector-lane sines and cosines may differ from
/// `libm`'s by an ulp.
const TOLERANCE: f64 = 1e-12;

/// The functions compared, with the arguments they take and how their
/// result is flattened into the order of the plan's outputs.
const FUNCTIONS: [(&str, &str, &str); 10] = [
    (
        "inverse_dynamics",
        "&q, &qd, &qdd",
        "r.iter().copied().collect()",
    ),
    ("mass_matrix", "&q", "r.iter().flatten().copied().collect()"),
    ("bias", "&q, &qd", "r.iter().copied().collect()"),
    ("gravity", "&q", "r.iter().copied().collect()"),
    (
        "joint_space",
        "&q, &qd",
        "r.mass_matrix.iter().flatten().chain(&r.bias).chain(&r.gravity).copied().collect()",
    ),
    (
        "forward_dynamics",
        "&q, &qd, &tau",
        "r.iter().copied().collect()",
    ),
    (
        "coriolis_matrix",
        "&q, &qd",
        "r.iter().flatten().copied().collect()",
    ),
    ("energy", "&q, &qd", "vec![r.0, r.1]"),
    (
        "body_poses",
        "&q",
        "r.iter().flat_map(|p| p.rotation.iter().flatten().chain(&p.position)).copied().collect()",
    ),
    (
        "body_jacobians",
        "&q",
        "r.iter().flatten().flatten().copied().collect()",
    ),
];

/// A state of the chain: positions, velocities, accelerations and forces.
fn state(k: usize) -> [Vec<f64>; 4] {
    let wave = |phase: f64, scale: f64| -> Vec<f64> {
        (0..LINKS)
            .map(|i| scale * (0.7 * i as f64 + phase + 1.3 * k as f64).sin())
            .collect()
    };
    [
        wave(0.1, 1.2),
        wave(0.5, 0.8),
        wave(0.9, 2.0),
        wave(1.7, 3.0),
    ]
}

/// The crate's `main`: whether the parts' AVX copies run (`avx true`),
/// then every function at every state, two lines of results (in Rust's
/// round-trip notation) per function and state: with the AVX copies as
/// the processor allows, then with them off (`set_avx_copies(false)`).
fn main_rs(states: &[[Vec<f64>; 4]]) -> String {
    let mut text = String::from(
        "#![allow(clippy::all)]\n#[rustfmt::skip]\nmod chain;\nuse chain::*;\n\nfn main() {\n    let p = Params::default();\n    println!(\"avx {}\", avx_copies());\n",
    );
    for [q, qd, qdd, tau] in states {
        let _ = writeln!(
            text,
            "    let (q, qd, qdd, tau): ([f64; NQ], [f64; NV], [f64; NV], [f64; NV]) = ({q:?}, {qd:?}, {qdd:?}, {tau:?});\n    let _ = (&qdd, &tau);"
        );
        for (name, arguments, flatten) in FUNCTIONS {
            let _ = writeln!(
                text,
                "    for copies in [true, false] {{ set_avx_copies(copies); let r = {name}(&p, {arguments}); let v: Vec<f64> = {flatten}; println!(\"{name} {{v:?}}\"); }}\n    set_avx_copies(true);"
            );
        }
    }
    text.push_str("}\n");
    text
}

/// The version of `libm` the workspace locks, so that the crate builds
/// offline from the same registry cache.
fn locked_libm(lock: &str) -> Option<String> {
    let at = lock.find("name = \"libm\"")?;
    let rest = &lock[at..];
    let version = rest.lines().nth(1)?.strip_prefix("version = \"")?;
    Some(version.trim_end_matches('"').to_owned())
}

#[test]
fn split_functions_compile_and_compute_what_their_programs_do() {
    let (spec, mut mechanism) = chain(LINKS);
    let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
    let module = plan.render(Variant::PLAIN).expect("renders");
    assert!(
        module.source.contains("fn coriolis_matrix_part0("),
        "the Coriolis matrix is not split"
    );

    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace");
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).expect("Cargo.lock");
    let libm = locked_libm(&lock).expect("the workspace locks libm");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path();
    std::fs::create_dir(root.join("src")).expect("src/");
    let manifest = format!(
        "[package]\nname = \"split\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nlibm = \"={libm}\"\n\n[workspace]\n"
    );
    let states: Vec<[Vec<f64>; 4]> = (0..2).map(state).collect();
    for (path, text) in [
        ("Cargo.toml", manifest.as_str()),
        ("Cargo.lock", lock.as_str()),
        ("src/chain.rs", module.source.as_str()),
        ("src/main.rs", main_rs(&states).as_str()),
    ] {
        std::fs::write(root.join(path), text).expect("writes the crate");
    }
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let parameters = spec.parameter_values();
    let mut lines = stdout.lines();
    // The crate is built without RUSTFLAGS: for rustc's default target,
    // which on x86-64 leaves AVX and AVX2 to the copies.
    let avx = cfg!(target_arch = "x86_64") && avx_detected();
    assert_eq!(
        lines.next(),
        Some(format!("avx {avx}").as_str()),
        "the parts' AVX copies run exactly where the processor has AVX and AVX2"
    );
    for [q, qd, qdd, tau] in &states {
        let input = environment(&parameters, q, qd, qdd, tau);
        for (name, _, _) in FUNCTIONS {
            let line = lines.next().expect("a line per function and state");
            let plain = lines.next().expect("a line per function and state");
            assert_eq!(
                line, plain,
                "`{name}`: the AVX copies differ from the plain parts"
            );
            let values = line
                .strip_prefix(name)
                .and_then(|rest| rest.trim().strip_prefix('['))
                .and_then(|rest| rest.strip_suffix(']'))
                .unwrap_or_else(|| panic!("`{name}`: unexpected line {line}"));
            let got: Vec<f64> = values
                .split(", ")
                .map(|v| v.parse().expect("a number"))
                .collect();
            let want = plan.evaluate(name, &input).expect("evaluates");
            assert_eq!(got.len(), want.len(), "`{name}`");
            let error = relative_error(&got, &want);
            assert!(error < TOLERANCE, "`{name}` differs by {error:e}");
        }
    }
}
