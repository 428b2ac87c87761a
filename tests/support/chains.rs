//! Specs of long serial chains, for the tests of what only big mechanisms
//! reach: the automatic rule on the outputs, and functions split into
//! parts.

use sharnir_mech::{Mechanism, ParameterMode};
use sharnir_spec::Spec;

/// The chain of `n` links ([`chain_spec`]), parsed, and its mechanism with
/// runtime parameters.
pub fn chain(n: usize) -> (Spec, Mechanism) {
    let source = sharnir_spec::Source {
        name: "chain.spec".to_owned(),
        text: chain_spec(n),
    };
    let spec = sharnir_spec::parse(source).expect("the chain spec is valid");
    let mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("valid");
    (spec, mechanism)
}

/// A serial chain of `n` revolute links with general inertias, offsets and
/// axes cycling z, y, x (`benches/scaling/spatial_chain.py` without the
/// tilts between joints), with its masses as runtime parameters.
pub fn chain_spec(n: usize) -> String {
    let axes = ["[0, 0, 1]", "[0, 1, 0]", "[1, 0, 0]"];
    let mut text =
        format!("[mechanism]\nname = \"chain{n}\"\ngravity = [0, 0, -9.81]\n\n[parameters]\n");
    for i in 0..n {
        text.push_str(&format!("m{i} = {}\n", 1.0 + 0.01 * i as f64));
    }
    for i in 0..n {
        text.push_str(&format!(
            "\n[[body]]\nname = \"b{i}\"\nmass = \"m{i}\"\ncom = [{}, 0.02, 0.03]\n\
             inertia = {{ xx = 0.1, yy = 0.12, zz = 0.13, xy = 0.001, xz = 0.002, yz = 0.003 }}\n",
            0.1 + 0.001 * i as f64
        ));
    }
    for i in 0..n {
        let parent = if i == 0 {
            "ground".to_owned()
        } else {
            format!("b{}", i - 1)
        };
        let origin = if i == 0 {
            ""
        } else {
            "origin = { xyz = [0.3, 0.05, 0.02] }\n"
        };
        text.push_str(&format!(
            "\n[[joint]]\nname = \"j{i}\"\ntype = \"revolute\"\nparent = \"{parent}\"\n\
             child = \"b{i}\"\naxis = {}\n{origin}",
            axes[i % 3]
        ));
    }
    text
}
