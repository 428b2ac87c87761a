//! `generated/` is exactly what the current compiler produces from `specs/`,
//! and generating twice gives byte-identical text.

use sharnir_mech::{Mechanism, ParameterMode};
use sharnir_tests::oracle::{load_spec, specs_dir};
use std::path::PathBuf;

fn bundled_specs() -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(specs_dir())
        .expect("specs/ exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spec"))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
        .collect();
    stems.sort();
    stems
}

fn generate(stem: &str, mode: ParameterMode) -> sharnir_codegen::GeneratedModule {
    let spec = load_spec(stem);
    let mut mechanism = Mechanism::from_spec(&spec, mode).expect("bundled spec is valid");
    sharnir_codegen::generate(&mut mechanism).expect("bundled spec emits")
}

#[test]
fn generated_modules_match_the_specs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("generated")
        .join("src");
    let stems = bundled_specs();
    assert!(
        stems.len() >= 6,
        "expected the bundled specs, found {stems:?}"
    );
    for stem in stems {
        for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
            let module = generate(&stem, mode);
            let spec = load_spec(&stem);
            let runtime = mode == ParameterMode::Runtime;
            let fused = (runtime && spec.fused_multiply_add)
                .then(|| sharnir_codegen::fused_multiply_add(&module).expect("fuses"));
            let mut expected = vec![module.clone()];
            if runtime && spec.single_precision {
                expected.push(sharnir_codegen::single_precision(&module));
                expected.extend(fused.iter().map(sharnir_codegen::single_precision));
            }
            expected.extend(fused);
            for module in expected {
                let path = dir.join(format!("{}.rs", module.name));
                let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    on_disk == module.source,
                    "{} is stale: run `cargo xtask gen --all`",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn generation_is_deterministic() {
    for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
        let first = generate("telegin6", mode);
        let second = generate("telegin6", mode);
        assert_eq!(first.source, second.source);
        assert_eq!(first.op_counts, second.op_counts);
    }
}
