//! URDF text in the shape of the format: a base link and one to three links
//! on a tree, with `<inertial>`, `<origin>`, `<axis>`, `<limit>`,
//! `<dynamics>` and `<mimic>`, and the conversion options.

use super::{Choices, ANY, POSITIVE};
use std::fmt::Write as _;

const JOINT_TYPES: &[&str] = &[
    "revolute",
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "floating",
    "planar",
];

/// A URDF and the conversion options built from `choices`.
pub fn urdf(c: &mut Choices<'_>) -> (String, sharnir_urdf::Options) {
    let mut text = String::from("<?xml version=\"1.0\"?>\n<robot name=\"fuzz\">\n");
    let links = 1 + c.pick(3);
    for i in 0..=links {
        let name = i
            .checked_sub(1)
            .map_or("base".to_owned(), |k| format!("l{k}"));
        let _ = writeln!(text, "  <link name=\"{name}\">");
        if c.chance(if i == 0 { 50 } else { 90 }) {
            let mass = c.number(POSITIVE);
            let xyz = triple(c, ANY);
            let rpy = triple(c, ANY);
            let moments = ["0.1", "0.2", "0.15", "1"];
            let ixx = c.number(&moments);
            let [iyy, izz] = if c.chance(80) {
                [ixx; 2]
            } else {
                [0; 2].map(|_| c.number(&moments))
            };
            let ixy = c.number(&["0", "0.01", "-0.01"]);
            let _ = writeln!(
                text,
                "    <inertial>\n      <origin xyz=\"{xyz}\" rpy=\"{rpy}\"/>\n      \
                 <mass value=\"{mass}\"/>\n      <inertia ixx=\"{ixx}\" ixy=\"{ixy}\" ixz=\"0\" \
                 iyy=\"{iyy}\" iyz=\"0\" izz=\"{izz}\"/>\n    </inertial>"
            );
        }
        let _ = writeln!(text, "  </link>");
    }
    for i in 0..links {
        let kind = if c.hostile() {
            c.one(&["ball", "", "Revolute"])
        } else {
            c.one(JOINT_TYPES)
        };
        let parent = match c.pick(i + 1) {
            0 => "base".to_owned(),
            k => format!("l{}", k - 1),
        };
        let _ = writeln!(
            text,
            "  <joint name=\"j{i}\" type=\"{kind}\">\n    <parent link=\"{parent}\"/>\n    \
             <child link=\"l{i}\"/>"
        );
        if c.chance(80) {
            let xyz = triple(c, ANY);
            let rpy = triple(c, ANY);
            let _ = writeln!(text, "    <origin xyz=\"{xyz}\" rpy=\"{rpy}\"/>");
        }
        if c.chance(80) {
            let axis = if c.hostile() {
                c.one(&["0 0 0", "1 1", "nan 0 0", "1e308 1e308 0", "x"])
            } else {
                c.one(&["1 0 0", "0 1 0", "0 0 1", "0.6 0 0.8"])
            };
            let _ = writeln!(text, "    <axis xyz=\"{axis}\"/>");
        }
        if c.chance(50) {
            let lower = c.number(&["-1", "-0.5", "0"]);
            let upper = c.number(&["1", "0.5", "0"]);
            let _ = writeln!(
                text,
                "    <limit lower=\"{lower}\" upper=\"{upper}\" effort=\"10\" velocity=\"2\"/>"
            );
        }
        if c.chance(30) {
            let damping = c.number(POSITIVE);
            let _ = writeln!(
                text,
                "    <dynamics damping=\"{damping}\" friction=\"0.1\"/>"
            );
        }
        if i > 0 && c.chance(15) {
            let multiplier = c.number(ANY);
            let _ = writeln!(
                text,
                "    <mimic joint=\"j{}\" multiplier=\"{multiplier}\" offset=\"0\"/>",
                c.pick(i)
            );
        }
        let _ = writeln!(text, "  </joint>");
    }
    text.push_str("</robot>\n");
    let options = sharnir_urdf::Options {
        name: None,
        floating: c.chance(20),
        fix_inertia: c.chance(20),
        stops: c.chance(20),
        keep_angles: false,
        folded_twin: c.chance(20),
    };
    (text, options)
}

/// Three numbers separated by spaces.
fn triple(c: &mut Choices<'_>, ordinary: &[&'static str]) -> String {
    [0; 3].map(|_| c.number(ordinary)).join(" ")
}
