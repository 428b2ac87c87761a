//! Fuzzing the whole gen path on the stable toolchain: grammar-shaped
//! `.spec` and URDF inputs (see `fuzz_support/`) through parse → validate →
//! derive → emit, in process, asserting that nothing panics, that every
//! error is located, and that no module writes an infinity or a NaN.
//!
//! `cargo test` runs a bounded number of cases; `PROPTEST_CASES=N` runs N
//! (docs/robustness.md records a long run). Each case runs on a thread with
//! a main thread's stack, as `cargo xtask gen` would.

mod fuzz_support;

use fuzz_support::{cases, generate_all, on_main_sized_stack, spec_grammar, urdf_grammar, Choices};
use proptest::prelude::*;
use sharnir_spec::Source;

/// Parses, validates and generates `text`; errors must be located.
fn spec_case(text: String) -> Result<(), String> {
    on_main_sized_stack(move || {
        let source = Source {
            name: "fuzz.spec".into(),
            text,
        };
        match sharnir_spec::parse(source) {
            Err(e) if !e.to_string().starts_with("fuzz.spec:") => {
                Err(format!("unlocated error: {e}"))
            }
            Err(_) => Ok(()),
            Ok(spec) => generate_all(&spec).map(|_| ()),
        }
    })?
}

/// Converts, validates and generates a URDF; errors must be located.
fn urdf_case(text: String, options: sharnir_urdf::Options) -> Result<(), String> {
    on_main_sized_stack(move || {
        let source = Source {
            name: "fuzz.urdf".into(),
            text,
        };
        match sharnir_urdf::convert(&source, &options) {
            Err(e) if !e.to_string().starts_with("fuzz.urdf:") => {
                Err(format!("unlocated error: {e}"))
            }
            Err(_) => Ok(()),
            Ok(conversion) => generate_all(&conversion.spec).map(|_| ()),
        }
    })?
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(120), ..ProptestConfig::default() })]

    #[test]
    fn grammar_shaped_specs_never_panic(data in prop::collection::vec(any::<u32>(), 0..400)) {
        let text = spec_grammar::spec(&mut Choices::new(&data));
        if let Err(problem) = spec_case(text.clone()) {
            prop_assert!(false, "{problem}\n--- spec ---\n{text}");
        }
    }

    #[test]
    fn grammar_shaped_urdfs_never_panic(data in prop::collection::vec(any::<u32>(), 0..300)) {
        let (text, options) = urdf_grammar::urdf(&mut Choices::new(&data));
        if let Err(problem) = urdf_case(text.clone(), options.clone()) {
            prop_assert!(false, "{problem}\n--- urdf ({options:?}) ---\n{text}");
        }
    }
}

/// The grammar reaches the emitter: with the first choices, a plain
/// pendulum is generated in both modes.
#[test]
fn the_grammar_makes_valid_mechanisms() {
    let mut made = 0;
    for seed in 0..40_u32 {
        let data: Vec<u32> = (0..400)
            .map(|i| (i * 7919 + seed * 104_729) % 1000)
            .collect();
        let text = spec_grammar::spec(&mut Choices::new(&data));
        let source = Source {
            name: "fuzz.spec".into(),
            text,
        };
        if let Ok(spec) = sharnir_spec::parse(source) {
            made += generate_all(&spec).unwrap_or(0);
        }
    }
    assert!(made > 0, "no grammar-shaped spec got through validation");
}

/// How far random inputs get (`cargo test -- --ignored --nocapture stats`).
#[test]
#[ignore]
fn stats() {
    use std::collections::BTreeMap;
    let mut rng = 12345_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 16) as u32
    };
    let (mut parsed, mut generated) = (0, 0);
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    let n = cases(300);
    for _ in 0..n {
        let data: Vec<u32> = (0..400).map(|_| next()).collect();
        let text = spec_grammar::spec(&mut Choices::new(&data));
        match sharnir_spec::parse(Source {
            name: "fuzz.spec".into(),
            text,
        }) {
            Ok(spec) => {
                parsed += 1;
                generated += generate_all(&spec).unwrap_or(0);
            }
            Err(e) => {
                let m: String = e.message().chars().take(50).collect();
                *errors.entry(m).or_default() += 1;
            }
        }
    }
    let (mut converted, mut from_urdf) = (0, 0);
    for _ in 0..n {
        let data: Vec<u32> = (0..300).map(|_| next()).collect();
        let (text, options) = urdf_grammar::urdf(&mut Choices::new(&data));
        match sharnir_urdf::convert(
            &Source {
                name: "fuzz.urdf".into(),
                text,
            },
            &options,
        ) {
            Ok(conversion) => {
                converted += 1;
                from_urdf += generate_all(&conversion.spec).unwrap_or(0);
            }
            Err(e) => {
                let m: String = e.message().chars().take(50).collect();
                *errors.entry(format!("urdf: {m}")).or_default() += 1;
            }
        }
    }
    eprintln!("{n} urdfs, {converted} converted, {from_urdf} modules");
    let mut sorted: Vec<_> = errors.into_iter().collect();
    sorted.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    for (m, k) in sorted.iter().take(25) {
        eprintln!("{k:5} {m}");
    }
    eprintln!("{n} specs, {parsed} valid, {generated} modules");
}
