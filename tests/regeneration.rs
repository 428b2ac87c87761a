//! `generated/` is exactly what the current compiler produces from `specs/`
//! — every module `cargo xtask gen --all` writes, the twins (folded where
//! the spec asks) and the variants of detachable joints included, as the plans say — and
//! generating twice gives byte-identical text.

use sharnir_codegen::{plan, PlanOptions, Variant};
use sharnir_mech::{Mechanism, ParameterMode};
use sharnir_tests::oracle::{bundled_specs, load_spec};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn generated_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("generated")
        .join("src")
}

#[test]
fn generated_modules_match_the_specs() {
    let dir = generated_dir();
    let stems = bundled_specs();
    assert!(
        stems.len() >= 6,
        "expected the bundled specs, found {stems:?}"
    );
    let mut expected = BTreeSet::new();
    for stem in stems {
        let specs = sharnir_mech::geometry::release::with_variants(load_spec(&stem))
            .expect("bundled variants are valid");
        for spec in &specs {
            let modes: &[ParameterMode] = if spec.folded_twin {
                &[ParameterMode::Runtime, ParameterMode::Folded]
            } else {
                &[ParameterMode::Runtime]
            };
            for &mode in modes {
                let mut mechanism =
                    Mechanism::from_spec(spec, mode).expect("bundled spec is valid");
                let plan = plan(&mut mechanism, &PlanOptions::default()).expect("plans");
                for module in plan.render_all().expect("renders") {
                    let path = dir.join(format!("{}.rs", module.name));
                    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
                    assert!(
                        on_disk == module.source,
                        "{} is stale: run `cargo xtask gen --all`",
                        path.display()
                    );
                    expected.insert(format!("{}.rs", module.name));
                }
            }
        }
    }
    // And nothing else: a module no spec makes is a leftover.
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("generated/src exists")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".rs") && name != "lib.rs")
        .collect();
    let extra: Vec<_> = on_disk.difference(&expected).collect();
    assert!(
        extra.is_empty(),
        "{extra:?} in generated/src come from no spec: run `cargo xtask gen --all`"
    );
}

#[test]
fn generation_is_deterministic() {
    let spec = load_spec("telegin6");
    for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
        let render = || {
            let mut mechanism = Mechanism::from_spec(&spec, mode).expect("bundled spec is valid");
            plan(&mut mechanism, &PlanOptions::default())
                .expect("plans")
                .render(Variant::PLAIN)
                .expect("renders")
        };
        let (first, second) = (render(), render());
        assert_eq!(first.source, second.source);
        assert_eq!(first.op_counts, second.op_counts);
    }
}

/// A generated module reads as if written by hand: a blank line between
/// its top-level items, each operation count on one line, one way to write
/// a zero result, and every parameter group's doc giving its formula,
/// which its value follows.
#[test]
fn generated_modules_are_laid_out_for_reading() {
    use sharnir_generated::damped_pendulum::Params;
    let path = generated_dir().join("damped_pendulum.rs");
    let text = std::fs::read_to_string(path).expect("the module exists");
    let lines: Vec<&str> = text.lines().collect();
    for (k, pair) in lines.windows(2).enumerate() {
        let (before, line) = (pair[0], pair[1]);
        if line.starts_with("pub fn ") || line.starts_with("pub const OPS_") {
            let doc_start = lines[..=k]
                .iter()
                .rposition(|l| !l.starts_with("///") && !l.starts_with("#["))
                .expect("an item before");
            assert!(
                lines[doc_start].is_empty(),
                "line {}: `{line}` is not set apart from the item before (`{before}`)",
                k + 2
            );
        }
        assert!(
            !line.ends_with("= OpCount {"),
            "line {}: a count over lines",
            k + 2
        );
    }
    // A result that is zero throughout is written one way, whatever its
    // size (the pendulum's Coriolis matrix is zero).
    assert!(text.contains("-> [[Real; NV]; NV] {\n    [[0.0; NV]; NV]\n}"));
    assert!(!text.contains("\n    [[0.0]]\n") && !text.contains("\n    [0.0]\n"));
    let p = Params::default();
    let d = p.derived();
    for (doc, value, expected) in [
        ("Parameter group 0: `l²·m`.", d.k0, p.l * p.l * p.m),
        (
            "Parameter group 4: `3/(l²·m)`.",
            d.k4,
            3.0 / (p.l * p.l * p.m),
        ),
        ("Parameter group 5: `g/l`.", d.k5, p.g / p.l),
    ] {
        assert!(text.contains(doc), "no `{doc}`");
        assert!(
            (value - expected).abs() < 1e-15 * expected.abs(),
            "{doc}: {value}"
        );
    }
}
