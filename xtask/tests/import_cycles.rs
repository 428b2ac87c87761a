//! No file of a crate depends on itself through other files of the crate:
//! a file that names another's module (`use crate::…`, `use super::…`, or
//! such a path in code) comes after it, so every crate reads as layers.
//! A cycle fails this test with the way round it, each file with the line
//! that names the next.

mod cycles;

use std::path::Path;

#[test]
fn no_crate_has_an_import_cycle() {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the checkout");
    let found = cycles::cycles(checkout);
    let report: Vec<String> = found
        .iter()
        .map(|cycle| {
            let files: Vec<String> = cycle
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect();
            format!(
                "  {}\n    (every file of the tangle: {})",
                cycle.route,
                files.join(", ")
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "import cycles between the files of one crate:\n{}",
        report.join("\n")
    );
}

/// The code generator stands in layers: `plan/` (planning), `print/`
/// (terms into text) and `support/` (the code every module carries) never
/// name `render/` (a plan into a module), and `print/` and `support/` never
/// name `plan/`, so planning never reads rendering, the printer reads
/// neither, and the support code stands on its own.
#[test]
fn the_code_generator_plans_prints_and_renders_in_layers() {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the checkout");
    let codegen = Path::new("crates/sharnir-codegen/src");
    let layer = |file: &Path| {
        file.strip_prefix(codegen)
            .ok()
            .and_then(|rest| rest.components().next())
            .and_then(|first| first.as_os_str().to_str().map(str::to_owned))
    };
    let forbidden = [
        ("plan", "render"),
        ("print", "render"),
        ("print", "plan"),
        ("support", "render"),
        ("support", "plan"),
        ("support", "print"),
    ];
    let references = cycles::references(checkout);
    assert!(
        references
            .iter()
            .any(|(from, to, _)| layer(from).as_deref() == Some("render")
                && layer(to).as_deref() == Some("print")),
        "rendering names the printer: the layers were not found"
    );
    let crossing: Vec<String> = references
        .iter()
        .filter(|(from, to, _)| {
            let (a, b) = (layer(from), layer(to));
            forbidden
                .iter()
                .any(|(x, y)| a.as_deref() == Some(*x) && b.as_deref() == Some(*y))
        })
        .map(|(from, to, line)| format!("  {}:{line} names {}", from.display(), to.display()))
        .collect();
    assert!(
        crossing.is_empty(),
        "a lower layer of the code generator names a higher one:\n{}",
        crossing.join("\n")
    );
}
