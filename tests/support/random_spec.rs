//! Seeded random mechanisms, written as `.spec` text.
//!
//! The bundled specs cover a handful of hand-picked robots; the property
//! tests need mechanisms nobody chose, so that a case the authors did not
//! think of (a cylindrical joint under a spherical one, a fixed chain hanging
//! off a floating base, a tilted gravity given by a parameter) gets derived
//! and checked too. Each mechanism is produced as file text rather than as a
//! `Spec` value, so the parser and the validator are part of what is tested.
//!
//! A mechanism has 1 to [`MAX_BODIES`] bodies on a random tree: each body
//! hangs from a random earlier body or from ground, the first one sometimes
//! by a free joint (a floating base), and now and then by a fixed joint,
//! sometimes two fixed joints in a row. Joint types are drawn by weight,
//! favouring revolute and prismatic joints while every other type still
//! appears in most runs of a few dozen mechanisms. Axes are unit vectors,
//! either along a coordinate axis (so exact zeros reach the algebra) or
//! random; placements use every rotation form of `origin`; masses lie in
//! [0.1, 5] kg; inertias are physically valid (principal moments built from
//! second moments of mass, so the triangle inequality holds, then rotated by
//! a random rotation and written with all six components). Some masses,
//! lengths, angles and the gravity magnitude are runtime parameters, and
//! some quantities are derived parameters, occasionally declared before the
//! parameters they use.
//!
//! About one revolute or prismatic joint in five follows an earlier one
//! (`mimic`, a coupled coordinate) with a random multiplier and offset.
//! About three joints in ten have a drive's armature (one value, or one per
//! coordinate), one in ten dry friction.
//!
//! The same seed always gives the same text.

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::f64::consts::PI;

/// The largest number of bodies of a random mechanism.
pub const MAX_BODIES: usize = 7;

/// Joint types a body is attached by, with their relative weights; `free`
/// is drawn only for bodies hanging from ground.
const JOINT_WEIGHTS: [(&str, u32); 7] = [
    ("revolute", 30),
    ("prismatic", 18),
    ("cylindrical", 9),
    ("universal", 9),
    ("spherical", 9),
    ("planar", 8),
    ("fixed", 7),
];

/// Weight of `free` for a body whose parent is ground (besides the floating
/// base, which is chosen separately).
const FREE_WEIGHT: u32 = 4;

/// The `.spec` text of random mechanism number `seed`.
pub fn random_spec(seed: u64) -> String {
    Generator {
        rng: SmallRng::seed_from_u64(seed),
        parameters: Vec::new(),
    }
    .spec(seed)
}

/// How one body hangs in the tree.
struct Link {
    /// Index of the parent body; `None` for ground.
    parent: Option<usize>,
    /// Joint type, as spelled in a spec.
    kind: &'static str,
}

/// The state of one mechanism being written: the random stream and the
/// parameters declared so far (`name = value` lines).
struct Generator {
    rng: SmallRng,
    parameters: Vec<String>,
}

impl Generator {
    fn spec(mut self, seed: u64) -> String {
        let links = self.topology();
        let gravity = self.gravity();
        let mut bodies: Vec<String> = (0..links.len()).map(|i| self.body(i + 1)).collect();
        let mut joints: Vec<String> = links
            .iter()
            .enumerate()
            .map(|(i, link)| self.joint(i + 1, link))
            .collect();
        self.couple(seed, &links, &mut joints);
        // File order is not tree order: the compiler numbers bodies itself
        // and coordinates follow the joints as listed.
        bodies.shuffle(&mut self.rng);
        joints.shuffle(&mut self.rng);
        let mut text = format!(
            "# Random mechanism {seed}.\n[mechanism]\nname = \"random_{seed}\"\n\
             description = \"Random mechanism {seed} of the property tests\"\n\
             gravity = {gravity}\n"
        );
        if !self.parameters.is_empty() {
            text.push_str("\n[parameters]\n");
            for line in &self.parameters {
                text.push_str(line);
                text.push('\n');
            }
        }
        for block in bodies.iter().chain(&joints) {
            text.push('\n');
            text.push_str(block);
        }
        text
    }

    /// Makes some revolute and prismatic joints followers (`mimic`) of an
    /// earlier one that is not a follower, with a random multiplier and
    /// offset (sometimes runtime parameters). Drawn from a stream of its own,
    /// so that the mechanisms without couplings stay what they were.
    fn couple(&mut self, seed: u64, links: &[Link], joints: &mut [String]) {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x6D17_1C00);
        let mut leaders: Vec<usize> = Vec::new();
        for (i, link) in links.iter().enumerate() {
            if !matches!(link.kind, "revolute" | "prismatic") {
                continue;
            }
            if leaders.is_empty() || !rng.gen_bool(0.25) {
                leaders.push(i);
                continue;
            }
            let leader = leaders[rng.gen_range(0..leaders.len())];
            let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            let multiplier = number(sign * rng.gen_range(0.3..2.0));
            let offset = number(rng.gen_range(-0.5..0.5));
            let (multiplier, offset) = if rng.gen_bool(0.3) {
                let k = format!("k{}", i + 1);
                (
                    self.runtime(&k, 1.0)
                        .replace(&k, &format!("{k} * {multiplier}")),
                    offset,
                )
            } else {
                (multiplier, offset)
            };
            joints[i].push_str(&format!(
                "mimic = {{ joint = \"j{}\", multiplier = {multiplier}, offset = {offset} }}\n",
                leader + 1
            ));
        }
    }

    /// The tree: body `i` hangs from ground or from an earlier body.
    fn topology(&mut self) -> Vec<Link> {
        let n = self.rng.gen_range(1..=MAX_BODIES);
        let floating = self.rng.gen_bool(0.2);
        let mut links: Vec<Link> = Vec::with_capacity(n);
        let mut fixed_chain = false;
        for i in 0..n {
            if fixed_chain {
                fixed_chain = false;
                links.push(Link {
                    parent: i.checked_sub(1),
                    kind: "fixed",
                });
                continue;
            }
            // 0 stands for ground, k for body k − 1.
            let parent = self.rng.gen_range(0..=i).checked_sub(1);
            let kind = if i == 0 && floating {
                "free"
            } else {
                self.joint_kind(parent.is_none())
            };
            fixed_chain = kind == "fixed" && i + 1 < n && self.rng.gen_bool(0.4);
            links.push(Link { parent, kind });
        }
        if links.iter().all(|l| l.kind == "fixed") {
            if let Some(first) = links.first_mut() {
                first.kind = "revolute";
            }
        }
        links
    }

    fn joint_kind(&mut self, from_ground: bool) -> &'static str {
        let free = if from_ground { FREE_WEIGHT } else { 0 };
        let total: u32 = JOINT_WEIGHTS.iter().map(|(_, w)| w).sum::<u32>() + free;
        let mut pick = self.rng.gen_range(0..total);
        for (kind, weight) in JOINT_WEIGHTS {
            if pick < weight {
                return kind;
            }
            pick -= weight;
        }
        "free"
    }

    /// Declares a runtime parameter and returns the quoted expression naming it.
    fn runtime(&mut self, name: &str, value: f64) -> String {
        self.parameters.push(format!("{name} = {}", number(value)));
        format!("\"{name}\"")
    }

    /// Declares a derived parameter `name = "2 * half"` over a runtime
    /// parameter `half` worth `value / 2`, in a random order of declaration,
    /// and returns the quoted expression naming it.
    fn derived(&mut self, name: &str, value: f64) -> String {
        let half = format!("{name}_half");
        let definition = format!("{name} = \"2 * {half}\"");
        if self.rng.gen_bool(0.5) {
            self.parameters.push(definition);
            self.runtime(&half, value / 2.0);
        } else {
            self.runtime(&half, value / 2.0);
            self.parameters.push(definition);
        }
        format!("\"{name}\"")
    }

    fn gravity(&mut self) -> String {
        match self.rng.gen_range(0..10) {
            0..=3 => {
                let g = self.rng.gen_range(1.0..15.0);
                self.runtime("g", g);
                "[0, 0, \"-g\"]".to_owned()
            }
            4 => {
                let g = self.rng.gen_range(1.0..15.0);
                self.runtime("g", g);
                "[0, \"-g\", 0]".to_owned()
            }
            5 | 6 => {
                let g = self.rng.gen_range(1.0..15.0);
                self.runtime("g", g);
                let [x, y, z] = self.random_unit();
                format!(
                    "[\"{} * g\", \"{} * g\", \"{} * g\"]",
                    number(x),
                    number(y),
                    number(z)
                )
            }
            7 | 8 => {
                let g = self.rng.gen_range(1.0..15.0);
                vector(self.random_unit().map(|x| number(g * x)))
            }
            _ => "[0, 0, 0]".to_owned(),
        }
    }

    fn body(&mut self, i: usize) -> String {
        let m = self.rng.gen_range(0.1..=5.0);
        let mass = match self.rng.gen_range(0..10) {
            0 | 1 => self.runtime(&format!("m{i}"), m),
            2 => self.derived(&format!("m{i}"), m),
            _ => number(m),
        };
        let mut text = format!("[[body]]\nname = \"b{i}\"\nmass = {mass}\n");
        match self.rng.gen_range(0..10) {
            0 | 1 => {}
            2 => {
                let length = self.rng.gen_range(0.1..0.6);
                let length = self.runtime(&format!("L{i}"), length);
                let [y, z] = [self.coordinate(0.3), self.coordinate(0.3)];
                text.push_str(&format!(
                    "com = [\"{} / 2\", {y}, {z}]\n",
                    length.trim_matches('"')
                ));
            }
            _ => {
                let com = [0; 3].map(|_| self.coordinate(0.3));
                text.push_str(&format!("com = {}\n", vector(com)));
            }
        }
        text.push_str(&format!("inertia = {}\n", self.inertia(m)));
        text
    }

    /// A random coordinate in ±`range`, exactly zero one time in five.
    fn coordinate(&mut self, range: f64) -> String {
        if self.rng.gen_bool(0.2) {
            "0".to_owned()
        } else {
            number(self.rng.gen_range(-range..range))
        }
    }

    /// A valid central inertia of a body of mass `m`: principal moments
    /// `(b + c, a + c, a + b)` from second moments `a, b, c ≥ 0` (so the
    /// triangle inequality holds, with equality for a flat body), rotated by
    /// a random rotation.
    fn inertia(&mut self, m: f64) -> String {
        let mut second = [0; 3].map(|_| m * self.rng.gen_range(0.05_f64..0.3).powi(2));
        if self.rng.gen_bool(0.05) {
            second[self.rng.gen_range(0..3)] = 0.0;
        }
        let [a, b, c] = second;
        let principal = [b + c, a + c, a + b];
        if self.rng.gen_bool(0.1) {
            return vector(principal.map(number));
        }
        let r = self.random_rotation();
        let entry = |i: usize, j: usize| (0..3).map(|k| r[i][k] * principal[k] * r[j][k]).sum();
        let [xx, yy, zz, xy, xz, yz]: [f64; 6] = [
            entry(0, 0),
            entry(1, 1),
            entry(2, 2),
            entry(0, 1),
            entry(0, 2),
            entry(1, 2),
        ];
        if self.rng.gen_bool(0.5) {
            format!(
                "[{}, {}, {}, {}, {}, {}]",
                number(xx),
                number(yy),
                number(zz),
                number(xy),
                number(xz),
                number(yz)
            )
        } else {
            format!(
                "{{ xx = {}, yy = {}, zz = {}, xy = {}, xz = {}, yz = {} }}",
                number(xx),
                number(yy),
                number(zz),
                number(xy),
                number(xz),
                number(yz)
            )
        }
    }

    fn joint(&mut self, i: usize, link: &Link) -> String {
        let parent = link
            .parent
            .map_or("ground".to_owned(), |p| format!("b{}", p + 1));
        let mut text = format!(
            "[[joint]]\nname = \"j{i}\"\ntype = \"{}\"\nparent = \"{parent}\"\nchild = \"b{i}\"\n",
            link.kind
        );
        let axis = self.axis();
        if matches!(
            link.kind,
            "revolute" | "prismatic" | "cylindrical" | "universal"
        ) {
            text.push_str(&format!("axis = {}\n", vector(axis.map(number))));
        }
        if link.kind == "universal" {
            let second = self.second_axis(axis);
            text.push_str(&format!("axis2 = {}\n", vector(second.map(number))));
        }
        if self.rng.gen_bool(0.3) {
            text.push_str(&format!("coordinate = \"x{i}\"\n"));
        }
        if self.rng.gen_bool(0.85) {
            let origin = self.origin(i);
            text.push_str(&format!("origin = {origin}\n"));
        }
        if matches!(link.kind, "revolute" | "prismatic") && self.rng.gen_bool(0.15) {
            text.push_str(
                "limits = { lower = \"-pi\", upper = \"pi\", effort = 50 }\ndamping = 0.1\n",
            );
        }
        text.push_str(&self.drive(link.kind));
        text
    }

    /// A drive on some joints: an armature (one value, or one per
    /// coordinate) three times in ten, dry friction with its speed one time
    /// in ten.
    fn drive(&mut self, kind: &str) -> String {
        let coordinates = match kind {
            "revolute" | "prismatic" => 1,
            "cylindrical" | "universal" => 2,
            "planar" | "spherical" => 3,
            "free" => 6,
            _ => return String::new(),
        };
        let mut text = String::new();
        if self.rng.gen_bool(0.3) {
            let values: Vec<String> = (0..coordinates)
                .map(|_| number(self.rng.gen_range(0.01..0.5)))
                .collect();
            if coordinates == 1 || self.rng.gen_bool(0.5) {
                text.push_str(&format!("armature = {}\n", values[0]));
            } else {
                text.push_str(&format!("armature = [{}]\n", values.join(", ")));
            }
        }
        if self.rng.gen_bool(0.1) {
            let friction = number(self.rng.gen_range(0.05..1.0));
            let speed = number(self.rng.gen_range(0.05..0.5));
            text.push_str(&format!(
                "friction = {friction}\nfriction_speed = {speed}\n"
            ));
        }
        text
    }

    /// A unit joint axis: along a coordinate axis (either sign) two times in
    /// five, otherwise a random direction.
    fn axis(&mut self) -> [f64; 3] {
        if self.rng.gen_bool(0.4) {
            let mut axis = [0.0; 3];
            axis[self.rng.gen_range(0..3)] = if self.rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            axis
        } else {
            self.random_unit()
        }
    }

    /// A unit axis at least about 12° away from `first` (either direction).
    fn second_axis(&mut self, first: [f64; 3]) -> [f64; 3] {
        loop {
            let second = self.axis();
            let cross = [
                first[1] * second[2] - first[2] * second[1],
                first[2] * second[0] - first[0] * second[2],
                first[0] * second[1] - first[1] * second[0],
            ];
            if cross.iter().map(|c| c * c).sum::<f64>() > 0.04 {
                return second;
            }
        }
    }

    /// `{ xyz = [...], <rotation> }` in one of the forms of the format.
    fn origin(&mut self, joint: usize) -> String {
        let mut keys = Vec::new();
        if self.rng.gen_bool(0.8) {
            let xyz = [0; 3].map(|_| self.coordinate(0.5));
            keys.push(format!("xyz = {}", vector(xyz)));
        }
        match self.rng.gen_range(0..10) {
            0 | 1 => {}
            2..=4 => {
                let rpy = [0, 1, 2].map(|k| self.angle(joint, k));
                keys.push(format!("rpy = {}", vector(rpy)));
            }
            5 | 6 => {
                let axis = self.axis().map(number);
                let angle = self.angle(joint, 0);
                keys.push(format!(
                    "axis_angle = {{ axis = {}, angle = {angle} }}",
                    vector(axis)
                ));
            }
            7 | 8 => {
                let count = self.rng.gen_range(1..=3);
                let steps: Vec<String> = (0..count)
                    .map(|k| {
                        let letter = ["x", "y", "z"].choose(&mut self.rng).unwrap_or(&"z");
                        format!("[\"{letter}\", {}]", self.angle(joint, k))
                    })
                    .collect();
                keys.push(format!("rotations = [{}]", steps.join(", ")));
            }
            _ => keys.push(format!("matrix = {}", self.matrix(joint))),
        }
        format!("{{ {} }}", keys.join(", "))
    }

    /// A rotation angle: an exact multiple of π, a runtime or derived
    /// parameter, or a plain number.
    fn angle(&mut self, joint: usize, slot: usize) -> String {
        let value = self.rng.gen_range(-PI..PI);
        match self.rng.gen_range(0..10) {
            0 | 1 => [
                "\"pi/2\"",
                "\"-pi/2\"",
                "\"pi\"",
                "0",
                "\"pi/3\"",
                "\"-pi/4\"",
            ]
            .choose(&mut self.rng)
            .unwrap_or(&"0")
            .to_string(),
            2 => self.runtime(&format!("a{joint}_{slot}"), value),
            3 => self.derived(&format!("a{joint}_{slot}"), value),
            _ => number(value),
        }
    }

    /// An exact rotation matrix: a signed permutation with determinant +1,
    /// or a rotation about z by a runtime parameter written with `cos` and
    /// `sin`.
    fn matrix(&mut self, joint: usize) -> String {
        if self.rng.gen_bool(0.5) {
            let t = self.rng.gen_range(-PI..PI);
            let t = self.runtime(&format!("t{joint}"), t);
            let t = t.trim_matches('"');
            return format!(
                "[[\"cos({t})\", \"-sin({t})\", 0], [\"sin({t})\", \"cos({t})\", 0], [0, 0, 1]]"
            );
        }
        let mut columns = [0_usize, 1, 2];
        columns.shuffle(&mut self.rng);
        let mut m = [[0_i32; 3]; 3];
        for (row, &column) in m.iter_mut().zip(&columns) {
            row[column] = if self.rng.gen_bool(0.5) { 1 } else { -1 };
        }
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if det < 0 {
            m[2] = m[2].map(|x| -x);
        }
        let rows = m.map(|row| vector(row.map(|x| x.to_string())));
        format!("[{}]", rows.join(", "))
    }

    /// A direction uniform on the unit sphere.
    fn random_unit(&mut self) -> [f64; 3] {
        loop {
            let v = [0; 3].map(|_| self.rng.gen_range(-1.0_f64..1.0));
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (0.1..=1.0).contains(&norm) {
                return v.map(|x| x / norm);
            }
        }
    }

    /// A rotation uniform on SO(3), from a uniform unit quaternion.
    fn random_rotation(&mut self) -> [[f64; 3]; 3] {
        let quaternion = loop {
            let q = [0; 4].map(|_| self.rng.gen_range(-1.0_f64..1.0));
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (0.1..=1.0).contains(&norm) {
                break q.map(|x| x / norm);
            }
        };
        crate::geometry::quaternion_matrix(quaternion)
    }
}

/// A number as TOML and the expression grammar both read it, exactly.
fn number(x: f64) -> String {
    format!("{x:?}")
}

/// `[a, b, c]`.
fn vector(items: [String; 3]) -> String {
    format!("[{}]", items.join(", "))
}
