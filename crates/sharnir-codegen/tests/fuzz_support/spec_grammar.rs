//! `.spec` text in the shape of the format (docs/spec-format.md): a few
//! parameters (numbers and derived), one to three bodies on a tree, every
//! joint type and most optional keys, now and then a joint that closes a
//! loop, `[initial]` and `[forces]`.

use super::{Choices, ANY, POSITIVE};
use std::fmt::Write as _;

const JOINT_TYPES: &[&str] = &[
    "revolute",
    "revolute",
    "revolute",
    "prismatic",
    "prismatic",
    "cylindrical",
    "universal",
    "spherical",
    "planar",
    "free",
    "fixed",
];

const AXES: &[&str] = &[
    "[1, 0, 0]",
    "[0, 1, 0]",
    "[0, 0, 1]",
    "[1, 1, 0]",
    "[0.6, 0, 0.8]",
    "[0, 0, 0]",
    "[1e-320, 0, 0]",
    "[1e308, 1e308, 0]",
];

/// A spec built from `choices`.
pub fn spec(choices: &mut Choices<'_>) -> String {
    let mut g = Builder {
        c: choices,
        parameters: Vec::new(),
        text: String::new(),
        leaders: Vec::new(),
    };
    g.build();
    g.text
}

struct Builder<'c, 'd> {
    c: &'c mut Choices<'d>,
    parameters: Vec<String>,
    text: String,
    /// The joints written so far that can lead a `mimic` or drive a `gear`.
    leaders: Vec<String>,
}

impl Builder<'_, '_> {
    fn build(&mut self) {
        let name = if self.c.hostile() {
            self.c.one(&["Fuzz", "type", "", "fuzz-1", "ground"])
        } else {
            "fuzz"
        };
        let _ = writeln!(self.text, "[mechanism]\nname = \"{name}\"");
        let gravity = [self.value(ANY), self.value(ANY), self.value(ANY)];
        let _ = writeln!(self.text, "gravity = [{}]", gravity.join(", "));
        if self.c.chance(10) {
            self.text.push_str("single_precision = true\n");
        }
        if self.c.chance(10) {
            self.text.push_str("fused_multiply_add = true\n");
        }
        self.parameters_table();
        let bodies = 1 + self.c.pick(3);
        for i in 0..bodies {
            self.body(i);
        }
        for i in 0..bodies {
            let parent = match self.c.pick(i + 2) {
                0 => "ground".to_owned(),
                k if k <= i => format!("b{}", k - 1),
                _ if self.c.hostile() => format!("b{}", bodies),
                _ => "ground".to_owned(),
            };
            self.joint(i, &parent, &format!("b{i}"), bodies);
        }
        if bodies > 1 && self.c.chance(15) {
            let (a, b) = (self.c.pick(bodies), self.c.pick(bodies));
            self.joint(bodies, &format!("b{a}"), &format!("b{b}"), bodies);
            if self.c.chance(50) {
                self.text.push_str("cut = true\n");
            }
        }
        if self.c.chance(15) {
            let q = self.value(ANY);
            let v = self.value(ANY);
            let _ = writeln!(
                self.text,
                "\n[initial]\nq = {{ j0 = {q} }}\nv = {{ j0 = {v} }}"
            );
        }
        if self.c.chance(15) {
            let e = self.expr(2, &["t", "j0", "j0_dot"]);
            let _ = writeln!(self.text, "\n[forces]\nj0 = \"{e}\"");
        }
    }

    fn parameters_table(&mut self) {
        self.text.push_str("\n[parameters]\n");
        let count = self.c.pick(5);
        let mut defined = Vec::new();
        for i in 0..count {
            // A derived parameter uses the ones before it (any, when hostile).
            if self.c.chance(30) {
                self.parameters = if self.c.hostile() {
                    (0..count).map(|k| format!("p{k}")).collect()
                } else {
                    defined.clone()
                };
                let e = self.expr(3, &[]);
                let _ = writeln!(self.text, "p{i} = \"{e}\"");
            } else {
                let n = self.c.number(POSITIVE);
                let _ = writeln!(self.text, "p{i} = {n}");
            }
            defined.push(format!("p{i}"));
        }
        self.parameters = defined;
    }

    fn body(&mut self, i: usize) {
        let mass = self.value(POSITIVE);
        let _ = writeln!(self.text, "\n[[body]]\nname = \"b{i}\"\nmass = {mass}");
        if self.c.chance(70) {
            let com = [self.value(ANY), self.value(ANY), self.value(ANY)];
            let _ = writeln!(self.text, "com = [{}]", com.join(", "));
        }
        let moment = ["0.1", "0.2", "0.15", "1"];
        let xx = self.c.number(&moment);
        let (yy, zz) = if self.c.chance(80) {
            (xx, xx)
        } else {
            (self.c.number(&moment), self.c.number(&moment))
        };
        match self.c.pick(3) {
            0 => {
                let _ = writeln!(self.text, "inertia = [{xx}, {yy}, {zz}]");
            }
            1 => {
                let xy = self.c.number(&["0", "0.01", "-0.01"]);
                let _ = writeln!(self.text, "inertia = [{xx}, {yy}, {zz}, {xy}, 0, 0]");
            }
            _ => {
                let _ = writeln!(
                    self.text,
                    "inertia = {{ xx = {xx}, yy = {yy}, zz = {zz}, yz = 0.001 }}"
                );
            }
        }
    }

    fn joint(&mut self, i: usize, parent: &str, child: &str, bodies: usize) {
        let kind = if self.c.hostile() {
            self.c.one(&["hinge", "", "Revolute"])
        } else {
            self.c.one(JOINT_TYPES)
        };
        let _ = writeln!(
            self.text,
            "\n[[joint]]\nname = \"j{i}\"\ntype = \"{kind}\"\nparent = \"{parent}\"\nchild = \"{child}\""
        );
        let has_axis = matches!(kind, "revolute" | "prismatic" | "cylindrical" | "universal");
        if has_axis != self.c.hostile() {
            let axis = if self.c.chance(85) {
                self.c.one(&AXES[..5])
            } else {
                self.c.one(AXES)
            };
            let _ = writeln!(self.text, "axis = {axis}");
        }
        if kind == "universal" {
            let axis2 = self.c.one(&AXES[..5]);
            let _ = writeln!(self.text, "axis2 = {axis2}");
        }
        if self.c.chance(80) {
            let origin = self.origin();
            let _ = writeln!(self.text, "origin = {origin}");
        }
        if self.c.chance(10) {
            let origin = self.origin();
            let _ = writeln!(self.text, "child_origin = {origin}");
        }
        self.joint_forces(i, kind, bodies);
        if matches!(kind, "revolute" | "prismatic") {
            self.leaders.push(format!("j{i}"));
        }
    }

    /// Limits, stops, damping, friction, mimic, gear and clearance.
    fn joint_forces(&mut self, i: usize, kind: &str, bodies: usize) {
        let one_coordinate = matches!(kind, "revolute" | "prismatic");
        if self.c.chance(25) && (one_coordinate || self.c.hostile()) {
            let (lower, upper) = (self.value(&["-1", "-0.5"]), self.value(&["1", "0.5"]));
            let law = if self.c.chance(50) {
                let k = self.value(POSITIVE);
                let a = self.value(&["30", "100"]);
                format!(", stiffness = {k}, dissipation = 0.1, decay = {a}")
            } else {
                String::new()
            };
            let _ = writeln!(
                self.text,
                "limits = {{ lower = {lower}, upper = {upper}, effort = 1{law} }}"
            );
        }
        if self.c.chance(20) {
            let d = self.value(POSITIVE);
            let _ = writeln!(self.text, "damping = {d}\nfriction = 0.01");
        }
        let leader = if self.leaders.is_empty() || !(one_coordinate || self.c.hostile()) {
            None
        } else {
            let k = self.c.pick(self.leaders.len());
            Some(self.leaders[k].clone())
        };
        if let Some(leader) = leader.filter(|_| i < bodies) {
            if self.c.chance(15) {
                let m = self.value(ANY);
                let _ = writeln!(
                    self.text,
                    "mimic = {{ joint = \"{leader}\", multiplier = {m} }}"
                );
            } else if self.c.chance(8) {
                let _ = writeln!(
                    self.text,
                    "gear = {{ joint = \"{leader}\", ratio = -0.5, backlash = 0.02, stiffness = 20, decay = 3000 }}"
                );
            }
        }
        if kind == "planar" && self.c.chance(30) {
            let r = self.value(&["0.001", "0.01"]);
            let _ = writeln!(
                self.text,
                "clearance = {{ radius = {r}, stiffness = 200, decay = 40000 }}"
            );
        }
    }

    fn origin(&mut self) -> String {
        let xyz = [self.value(ANY), self.value(ANY), self.value(ANY)];
        let rotation = match self.c.pick(6) {
            0 => {
                let rpy = [self.value(ANY), self.value(ANY), self.value(ANY)];
                format!(", rpy = [{}]", rpy.join(", "))
            }
            1 => {
                let angle = self.value(ANY);
                let axis = if self.c.hostile() {
                    self.c.one(AXES)
                } else {
                    self.c.one(&AXES[..5])
                };
                format!(", axis_angle = {{ axis = {axis}, angle = {angle} }}")
            }
            2 => {
                let angle = self.value(ANY);
                format!(", rotations = [[\"z\", {angle}], [\"x\", \"pi/2\"]]")
            }
            3 => ", matrix = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]".to_owned(),
            4 if self.c.hostile() => ", matrix = [[1, 1, 0], [0, 1, 0], [0, 0, 1]]".to_owned(),
            _ => String::new(),
        };
        format!("{{ xyz = [{}]{rotation} }}", xyz.join(", "))
    }

    /// A value: a TOML number, or a string holding an expression.
    fn value(&mut self, ordinary: &[&'static str]) -> String {
        if self.c.chance(60) {
            self.c.number(ordinary).to_owned()
        } else {
            format!("\"{}\"", self.expr(2, &[]))
        }
    }

    /// An expression over the parameters and `variables`, at most `depth`
    /// operators deep.
    fn expr(&mut self, depth: usize, variables: &[&str]) -> String {
        let leaf = depth == 0 || self.c.chance(35);
        if leaf {
            return match self.c.pick(4) {
                0 if !self.parameters.is_empty() => {
                    let i = self.c.pick(self.parameters.len());
                    self.parameters[i].clone()
                }
                1 if !variables.is_empty() => self.c.one(variables).to_owned(),
                2 => "pi".to_owned(),
                _ if self.c.hostile() => self
                    .c
                    .one(&["zz", "1e400", "1e308", "1e-320", "(", "2 pi"])
                    .to_owned(),
                _ => self.c.one(POSITIVE).to_owned(),
            };
        }
        let a = self.expr(depth - 1, variables);
        match self.c.pick(7) {
            0 => format!("{a} + {}", self.expr(depth - 1, variables)),
            1 => format!("{a} - {}", self.expr(depth - 1, variables)),
            2 => format!("({a}) * {}", self.expr(depth - 1, variables)),
            3 => format!("({a}) / ({})", self.expr(depth - 1, variables)),
            4 => format!("-({a})"),
            5 => format!("{}({a})", self.c.one(&["sin", "cos", "sqrt"])),
            _ => format!("({a})^{}", self.c.one(&["2", "-1", "3", "0"])),
        }
    }
}
