//! Seeded random mechanisms with closed kinematic loops, written as `.spec`
//! text, each with a configuration `q*` at which every loop is closed.
//!
//! A mechanism is a random tree of 2 to [`MAX_BODIES`] bodies (each hanging
//! from ground or an earlier body by a revolute, prismatic, cylindrical,
//! universal, spherical or planar joint, now and then a fixed one or, from
//! ground, a free one; some tree joints with a `child_origin`, some origins
//! reading runtime parameters) plus one or two closing joints of any type
//! but free, between two bodies or between ground and a body, in either
//! direction along the tree.
//!
//! One mechanism in five is planar: every tree joint moves in the ground's
//! x–y plane (revolute and cylindrical joints about ±z, slides in the plane,
//! planar joints) and every placement is a rotation about z with no offset
//! along it, written so that the zeros out of the plane stay exact; the
//! rows a planar loop cannot violate then vanish identically and the
//! derivation drops them, as it does for `specs/four_bar.spec`.
//!
//! The closing joints are placed so that the loops close exactly at a random
//! `q*`: the tree alone is written and parsed first, its body poses at `q*`
//! are computed numerically (by [`LoopOracle::body_poses`]), a random
//! `origin` in the parent body and a random motion `J(q_cut)` of the
//! closing joint itself are drawn, and
//! `child_origin = X_child⁻¹ · X_parent · origin · J(q_cut)`, so that the
//! joint's child frame is where its parent frame would carry it. Numbers
//! are written with 17 significant digits (rotations as `rpy`, or as a
//! `matrix` when the pitch is near ±90°, where `rpy` loses digits).
//!
//! Some closing joints are marked `cut = true`; the others are left for
//! validation to find. When the breadth-first spanning tree would leave out
//! other joints than the closing ones (a closing joint that reaches a body
//! in fewer steps than the tree does), every closing joint is marked, so
//! that the cut joints, and with them the coordinates of `q*`, are always
//! the intended ones.
//!
//! The spec's `[initial]` table is `q*`, every position coordinate by name
//! (quaternions by their `_qx` … `_qw` components), so that the spec starts
//! assembled and its mobility is taken there.
//!
//! Every mechanism can move: the degrees of freedom the loops leave at `q*`
//! are found numerically from the tree's poses, apart from `sharnir_mech`
//! ([`RandomLoop::degrees_of_freedom`]), and a mechanism the loops lock (a
//! rigid structure, which `Mechanism::from_spec` refuses) is drawn again,
//! with as many bodies, from the same random stream.
//!
//! The same seed always gives the same text and `q*`.

use crate::geometry::{
    axis_angle, cross, joint_motion, quaternion_matrix, Frame, Mat3, Vec3, IDENTITY,
};
use crate::loop_oracle::LoopOracle;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sharnir_spec::{JointKind, Spec};
use std::f64::consts::PI;

/// The largest number of bodies of a random loop mechanism.
pub const MAX_BODIES: usize = 6;

/// Tree joint types with their relative weights (`free` only from ground).
const TREE_WEIGHTS: [(JointKind, u32); 8] = [
    (JointKind::Revolute, 30),
    (JointKind::Prismatic, 15),
    (JointKind::Cylindrical, 10),
    (JointKind::Universal, 10),
    (JointKind::Spherical, 10),
    (JointKind::Planar, 8),
    (JointKind::Fixed, 5),
    (JointKind::Free, 4),
];

/// Tree joint types of a planar mechanism, with their relative weights.
const PLANAR_TREE_WEIGHTS: [(JointKind, u32); 5] = [
    (JointKind::Revolute, 30),
    (JointKind::Prismatic, 15),
    (JointKind::Cylindrical, 6),
    (JointKind::Planar, 8),
    (JointKind::Fixed, 5),
];

/// Closing joint types with their relative weights.
const CLOSING_WEIGHTS: [(JointKind, u32); 7] = [
    (JointKind::Revolute, 20),
    (JointKind::Prismatic, 12),
    (JointKind::Cylindrical, 12),
    (JointKind::Universal, 12),
    (JointKind::Spherical, 16),
    (JointKind::Planar, 12),
    (JointKind::Fixed, 10),
];

/// A random mechanism with loops.
#[derive(Clone, Debug)]
pub struct RandomLoop {
    /// The spec text.
    pub text: String,
    /// Positions (the tree's coordinates, in spec order) at which every
    /// loop is closed.
    pub closed: Vec<f64>,
    /// The closing joints' names, in spec order: the spec's cut joints.
    pub closing: Vec<String>,
    /// Whether the mechanism moves in the ground's x–y plane (with exact
    /// zeros out of it).
    pub planar: bool,
    /// The degrees of freedom the loops leave at `closed` (at least one),
    /// found numerically from the tree's poses and the closing joints'
    /// motions, apart from `sharnir_mech`.
    pub degrees_of_freedom: usize,
}

/// How many mechanisms the loops lock before the generator gives up on a
/// seed.
const ATTEMPTS: usize = 50;

/// The random loop mechanism number `seed`.
///
/// A mechanism the loops lock (no degree of freedom at `q*`: a rigid
/// structure, which `Mechanism::from_spec` rightly refuses) is drawn again,
/// with as many bodies, from the same random stream.
pub fn random_loop_spec(seed: u64) -> RandomLoop {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x100F_5EED);
    let planar = rng.gen_bool(0.2);
    let mut generator = Generator {
        bodies: rng.gen_range(2..=MAX_BODIES),
        planar,
        rng,
        parameters: Vec::new(),
    };
    for _ in 0..ATTEMPTS {
        let mechanism = generator.mechanism(seed);
        if mechanism.degrees_of_freedom > 0 {
            return mechanism;
        }
    }
    panic!("random loop mechanism {seed}: the loops lock {ATTEMPTS} mechanisms in a row")
}

/// One tree joint: body `child` hangs from `parent` (`None` for ground).
struct Link {
    parent: Option<usize>,
    kind: JointKind,
}

/// A closing joint before it is written.
struct Closing {
    name: String,
    kind: JointKind,
    parent: Option<usize>,
    child: usize,
    axis: Vec3,
    axis2: Option<Vec3>,
    origin: Frame,
    motion: Vec<f64>,
    marked: bool,
}

struct Generator {
    rng: SmallRng,
    /// The number of bodies, kept when a locked mechanism is drawn again.
    bodies: usize,
    /// Every tree joint moves in the x–y plane of the ground and every
    /// placement keeps that plane, with exact zeros out of it, so that
    /// the rows a planar loop cannot violate vanish identically and are
    /// dropped by the derivation.
    planar: bool,
    parameters: Vec<String>,
}

impl Generator {
    fn mechanism(&mut self, seed: u64) -> RandomLoop {
        self.parameters.clear();
        let links = self.topology();
        let bodies: Vec<String> = (0..links.len()).map(|i| self.body(i + 1)).collect();
        let mut tree_joints: Vec<String> = links
            .iter()
            .enumerate()
            .map(|(i, link)| self.tree_joint(i + 1, link))
            .collect();
        tree_joints.shuffle(&mut self.rng);
        let header = |parameters: &[String]| {
            let mut text = format!(
                "# Random loop mechanism {seed}.\n[mechanism]\nname = \"random_loop_{seed}\"\n\
                 gravity = [0, 0, -9.81]\n"
            );
            if !parameters.is_empty() {
                text.push_str("\n[parameters]\n");
                for line in parameters {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            for block in &bodies {
                text.push('\n');
                text.push_str(block);
            }
            text
        };
        let mut tree_text = header(&self.parameters);
        for block in &tree_joints {
            tree_text.push('\n');
            tree_text.push_str(block);
        }
        let tree = parse(&tree_text);
        let oracle = LoopOracle::new(&tree);
        let closed = self.positions(&tree);
        let poses = oracle.body_poses(&closed);
        let initial = initial_text(&tree, &closed);
        let count = if self.rng.gen_bool(0.35) { 2 } else { 1 };
        let closings: Vec<Closing> = (0..count)
            .map(|c| self.closing(c + 1, links.len()))
            .collect();
        let child_origins: Vec<Frame> = closings.iter().map(|c| child_origin(c, &poses)).collect();
        let degrees_of_freedom =
            degrees_of_freedom(&oracle, &tree, &closed, &closings, &child_origins);
        let blocks: Vec<String> = closings
            .iter()
            .zip(&child_origins)
            .map(|(c, origin)| closing_text(c, origin, false))
            .collect();
        // Closing joints go anywhere in the file: they have no coordinates,
        // so the order of the tree's coordinates stays that of `closed`.
        let mut slots: Vec<usize> = (0..closings.len())
            .map(|_| self.rng.gen_range(0..=tree_joints.len()))
            .collect();
        slots.sort_unstable();
        let assemble = |blocks: &[String]| {
            let mut text = header(&self.parameters);
            let mut next = 0;
            for (i, block) in tree_joints.iter().enumerate() {
                while next < blocks.len() && slots[next] == i {
                    text.push('\n');
                    text.push_str(&blocks[next]);
                    next += 1;
                }
                text.push('\n');
                text.push_str(block);
            }
            for block in &blocks[next..] {
                text.push('\n');
                text.push_str(block);
            }
            text.push('\n');
            text.push_str(&initial);
            text
        };
        let names: Vec<String> = closings.iter().map(|c| c.name.clone()).collect();
        let text = assemble(&blocks);
        let text = if cuts_are(&text, &names) {
            text
        } else {
            let marked: Vec<String> = closings
                .iter()
                .zip(&child_origins)
                .map(|(c, origin)| closing_text(c, origin, true))
                .collect();
            let text = assemble(&marked);
            if !cuts_are(&text, &names) {
                panic!(
                    "random loop mechanism {seed}: the marked closing joints are not the cut \
                     joints\n--- spec ---\n{text}"
                );
            }
            text
        };
        RandomLoop {
            text,
            closed,
            closing: names,
            planar: self.planar,
            degrees_of_freedom,
        }
    }

    /// The tree: body `i` hangs from ground or from an earlier body.
    fn topology(&mut self) -> Vec<Link> {
        let mut links: Vec<Link> = (0..self.bodies)
            .map(|i| {
                let parent = self.rng.gen_range(0..=i).checked_sub(1);
                let weights: &[(JointKind, u32)] = if self.planar {
                    &PLANAR_TREE_WEIGHTS
                } else {
                    &TREE_WEIGHTS
                };
                let kind = loop {
                    let kind = pick(&mut self.rng, weights);
                    if kind != JointKind::Free || parent.is_none() {
                        break kind;
                    }
                };
                Link { parent, kind }
            })
            .collect();
        if links.iter().all(|l| l.kind == JointKind::Fixed) {
            links[0].kind = JointKind::Revolute;
        }
        links
    }

    /// A body with valid, random mass properties (they play no part in the
    /// constraints).
    fn body(&mut self, i: usize) -> String {
        let m = self.rng.gen_range(0.1..5.0);
        let [a, b, c] = [0; 3].map(|_| m * self.rng.gen_range(0.05_f64..0.3).powi(2));
        let com = [0; 3].map(|_| number(self.rng.gen_range(-0.3..0.3)));
        format!(
            "[[body]]\nname = \"b{i}\"\nmass = {}\ncom = {}\ninertia = [{}, {}, {}]\n",
            number(m),
            vector(&com),
            number(b + c),
            number(a + c),
            number(a + b)
        )
    }

    fn tree_joint(&mut self, i: usize, link: &Link) -> String {
        let parent = body_name(link.parent);
        let mut text = format!(
            "[[joint]]\nname = \"j{i}\"\ntype = \"{}\"\nparent = \"{parent}\"\nchild = \"b{i}\"\n",
            link.kind.name()
        );
        let axis = self.axis_for(link.kind);
        if link.kind.has_axis() {
            text.push_str(&format!("axis = {}\n", vector(&axis.map(number))));
        }
        if link.kind == JointKind::Universal {
            let second = self.second_axis(axis);
            text.push_str(&format!("axis2 = {}\n", vector(&second.map(number))));
        }
        if self.rng.gen_bool(0.85) {
            let origin = self.tree_origin(i);
            text.push_str(&format!("origin = {origin}\n"));
        }
        if self.rng.gen_bool(0.35) {
            let frame = self.random_frame(0.4);
            text.push_str(&format!("child_origin = {}\n", frame_text(&frame)));
        }
        text
    }

    /// A tree joint's `origin` in one of the forms of the format, now and
    /// then reading a runtime parameter.
    fn tree_origin(&mut self, joint: usize) -> String {
        let mut xyz = [0; 3].map(|_| number(self.rng.gen_range(-0.5..0.5)));
        if self.planar {
            xyz[2] = "0".to_owned();
        }
        if self.rng.gen_bool(0.3) {
            let name = format!("L{joint}");
            let value = self.rng.gen_range(0.1..0.6);
            self.parameters.push(format!("{name} = {}", number(value)));
            xyz[0] = format!("\"{name}\"");
        }
        let mut keys = vec![format!("xyz = {}", vector(&xyz))];
        if self.planar {
            let angle = self.rng.gen_range(-PI..PI);
            let (s, c) = angle.sin_cos();
            match self.rng.gen_range(0..5) {
                0 => {}
                1 => keys.push(format!("rpy = [0, 0, {}]", number(angle))),
                2 => keys.push(format!(
                    "axis_angle = {{ axis = [0, 0, -1], angle = {} }}",
                    number(-angle)
                )),
                3 => keys.push(format!("rotations = [[\"z\", {}]]", number(angle))),
                _ => keys.push(format!(
                    "matrix = [[{}, {}, 0], [{}, {}, 0], [0, 0, 1]]",
                    number(c),
                    number(-s),
                    number(s),
                    number(c)
                )),
            }
            return format!("{{ {} }}", keys.join(", "));
        }
        match self.rng.gen_range(0..8) {
            0 => {}
            1 | 2 => {
                let mut angles = [0; 3].map(|_| number(self.rng.gen_range(-PI..PI)));
                if self.rng.gen_bool(0.3) {
                    let name = format!("a{joint}");
                    let value = self.rng.gen_range(-PI..PI);
                    self.parameters.push(format!("{name} = {}", number(value)));
                    angles[2] = format!("\"{name} / 2\"");
                }
                keys.push(format!("rpy = {}", vector(&angles)));
            }
            3 | 4 => {
                let axis = self.axis().map(number);
                let angle = number(self.rng.gen_range(-PI..PI));
                keys.push(format!(
                    "axis_angle = {{ axis = {}, angle = {angle} }}",
                    vector(&axis)
                ));
            }
            5 | 6 => {
                let steps: Vec<String> = (0..self.rng.gen_range(1..=3))
                    .map(|_| {
                        let letter = ["x", "y", "z"].choose(&mut self.rng).unwrap_or(&"z");
                        let angle = ["\"pi/2\"", "\"-pi/3\"", "0.7", "-2.1"]
                            .choose(&mut self.rng)
                            .unwrap_or(&"0");
                        format!("[\"{letter}\", {angle}]")
                    })
                    .collect();
                keys.push(format!("rotations = [{}]", steps.join(", ")));
            }
            _ => {
                let r = self.random_rotation();
                keys.push(format!("matrix = {}", matrix_text(&r)));
            }
        }
        format!("{{ {} }}", keys.join(", "))
    }

    /// A closing joint between two distinct bodies, or from ground to a
    /// body, with its axes, parent-side origin and own motion.
    fn closing(&mut self, c: usize, bodies: usize) -> Closing {
        let (parent, child) = loop {
            let parent = if self.rng.gen_bool(0.25) {
                None
            } else {
                Some(self.rng.gen_range(0..bodies))
            };
            let child = self.rng.gen_range(0..bodies);
            if parent != Some(child) {
                break (parent, child);
            }
        };
        let kind = pick(&mut self.rng, &CLOSING_WEIGHTS);
        let axis = self.axis_for(kind);
        let axis2 = (kind == JointKind::Universal).then(|| self.second_axis(axis));
        let origin = self.random_frame(0.5);
        let motion = match kind {
            JointKind::Revolute => vec![self.rng.gen_range(-PI..PI)],
            JointKind::Prismatic => vec![self.rng.gen_range(-0.5..0.5)],
            JointKind::Cylindrical => {
                vec![self.rng.gen_range(-0.5..0.5), self.rng.gen_range(-PI..PI)]
            }
            JointKind::Universal => vec![self.rng.gen_range(-PI..PI), self.rng.gen_range(-PI..PI)],
            JointKind::Spherical => self.unit_quaternion().to_vec(),
            JointKind::Planar => vec![
                self.rng.gen_range(-0.5..0.5),
                self.rng.gen_range(-0.5..0.5),
                self.rng.gen_range(-PI..PI),
            ],
            _ => Vec::new(),
        };
        Closing {
            name: format!("loop{c}"),
            kind,
            parent,
            child,
            axis,
            axis2,
            origin,
            motion,
            marked: self.rng.gen_bool(0.3),
        }
    }

    /// `q*`: angles in ±π, slides in ±0.5 m, quaternions uniform.
    fn positions(&mut self, spec: &Spec) -> Vec<f64> {
        let mut q = Vec::new();
        for joint in spec.joints.iter().filter(|j| !j.coordinateless()) {
            match joint.kind {
                JointKind::Revolute => q.push(self.rng.gen_range(-PI..PI)),
                JointKind::Prismatic => q.push(self.rng.gen_range(-0.5..0.5)),
                JointKind::Cylindrical => {
                    q.push(self.rng.gen_range(-0.5..0.5));
                    q.push(self.rng.gen_range(-PI..PI));
                }
                JointKind::Universal => {
                    q.push(self.rng.gen_range(-PI..PI));
                    q.push(self.rng.gen_range(-PI..PI));
                }
                JointKind::Spherical => q.extend(self.unit_quaternion()),
                JointKind::Planar => {
                    q.push(self.rng.gen_range(-0.5..0.5));
                    q.push(self.rng.gen_range(-0.5..0.5));
                    q.push(self.rng.gen_range(-PI..PI));
                }
                JointKind::Free => {
                    for _ in 0..3 {
                        q.push(self.rng.gen_range(-0.5..0.5));
                    }
                    q.extend(self.unit_quaternion());
                }
                JointKind::Fixed => {}
            }
        }
        q
    }

    /// A unit axis: along a coordinate axis (either sign) two times in
    /// five, otherwise a random direction.
    fn axis(&mut self) -> Vec3 {
        if self.rng.gen_bool(0.4) {
            let mut axis = [0.0; 3];
            axis[self.rng.gen_range(0..3)] = if self.rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            axis
        } else {
            self.random_unit()
        }
    }

    /// A joint axis of type `kind`: [`Generator::axis`], or in a planar
    /// mechanism along ±z (in the x–y plane for a slide).
    fn axis_for(&mut self, kind: JointKind) -> Vec3 {
        if !self.planar {
            return self.axis();
        }
        if kind == JointKind::Prismatic {
            return self.in_plane_axis();
        }
        [0.0, 0.0, if self.rng.gen_bool(0.7) { 1.0 } else { -1.0 }]
    }

    /// A unit axis in the x–y plane: ±x or ±y two times in five.
    fn in_plane_axis(&mut self) -> Vec3 {
        if self.rng.gen_bool(0.4) {
            let mut axis = [0.0; 3];
            axis[self.rng.gen_range(0..2)] = if self.rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            axis
        } else {
            let (s, c) = self.rng.gen_range(-PI..PI).sin_cos();
            [c, s, 0.0]
        }
    }

    /// A unit axis at least about 12° away from `first` (in the x–y plane
    /// in a planar mechanism).
    fn second_axis(&mut self, first: Vec3) -> Vec3 {
        if self.planar {
            return self.in_plane_axis();
        }
        loop {
            let second = self.axis();
            let c = cross(first, second);
            if c.iter().map(|x| x * x).sum::<f64>() > 0.04 {
                return second;
            }
        }
    }

    fn random_unit(&mut self) -> Vec3 {
        loop {
            let v = [0; 3].map(|_| self.rng.gen_range(-1.0_f64..1.0));
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (0.1..=1.0).contains(&norm) {
                return v.map(|x| x / norm);
            }
        }
    }

    fn unit_quaternion(&mut self) -> [f64; 4] {
        loop {
            let q = [0; 4].map(|_| self.rng.gen_range(-1.0_f64..1.0));
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (0.1..=1.0).contains(&norm) {
                return q.map(|x| x / norm);
            }
        }
    }

    fn random_rotation(&mut self) -> Mat3 {
        let q = self.unit_quaternion();
        quaternion_matrix(q)
    }

    /// A random placement: translation in ±`reach`, a random rotation (the
    /// identity one time in five).
    fn random_frame(&mut self, reach: f64) -> Frame {
        let mut translation = [0; 3].map(|_| self.rng.gen_range(-reach..reach));
        if self.planar {
            translation[2] = 0.0;
            let rotation = if self.rng.gen_bool(0.2) {
                IDENTITY
            } else {
                axis_angle([0.0, 0.0, 1.0], self.rng.gen_range(-PI..PI))
            };
            return Frame {
                rotation,
                translation,
            };
        }
        let rotation = if self.rng.gen_bool(0.2) {
            IDENTITY
        } else {
            self.random_rotation()
        };
        Frame {
            rotation,
            translation,
        }
    }
}

/// The `child_origin` that closes `c` at the bodies' poses `poses`:
/// `X_child⁻¹ · X_parent · origin · J(q_cut)`.
fn child_origin(c: &Closing, poses: &[Frame]) -> Frame {
    let host = |b: Option<usize>| b.map_or(Frame::IDENTITY, |b| poses[b]);
    let motion = joint_motion(c.kind, c.axis, c.axis2, &c.motion);
    host(Some(c.child))
        .inverse()
        .then(&host(c.parent).then(&c.origin).then(&motion))
}

/// The `[[joint]]` block of a closing joint placed in its child body at
/// `child_origin`.
fn closing_text(c: &Closing, child_origin: &Frame, mark: bool) -> String {
    let mut text = format!(
        "[[joint]]\nname = \"{}\"\ntype = \"{}\"\nparent = \"{}\"\nchild = \"{}\"\n",
        c.name,
        c.kind.name(),
        body_name(c.parent),
        body_name(Some(c.child))
    );
    if c.kind.has_axis() {
        text.push_str(&format!("axis = {}\n", vector(&c.axis.map(number))));
    }
    if let Some(axis2) = c.axis2 {
        text.push_str(&format!("axis2 = {}\n", vector(&axis2.map(number))));
    }
    text.push_str(&format!("origin = {}\n", frame_text(&c.origin)));
    text.push_str(&format!("child_origin = {}\n", frame_text(child_origin)));
    if mark || c.marked {
        text.push_str("cut = true\n");
    }
    text
}

/// Whether `text` parses with exactly the joints `names` as cut joints.
fn cuts_are(text: &str, names: &[String]) -> bool {
    let source = sharnir_spec::Source {
        name: "random_loop_graph.spec".to_owned(),
        text: text.to_owned(),
    };
    sharnir_spec::parse(source).is_ok_and(|spec| {
        let cut: Vec<&String> = spec
            .joints
            .iter()
            .filter(|j| j.cut)
            .map(|j| &j.name)
            .collect();
        cut.len() == names.len() && names.iter().all(|n| cut.contains(&n))
    })
}

/// Parses a tree spec the generator wrote, panicking with its text.
fn parse(text: &str) -> Spec {
    let source = sharnir_spec::Source {
        name: "random_loop_tree.spec".to_owned(),
        text: text.to_owned(),
    };
    sharnir_spec::parse(source)
        .unwrap_or_else(|e| panic!("a random loop tree is rejected: {e:?}\n--- spec ---\n{text}"))
}

fn pick(rng: &mut SmallRng, weights: &[(JointKind, u32)]) -> JointKind {
    let total: u32 = weights.iter().map(|(_, w)| w).sum();
    let mut at = rng.gen_range(0..total);
    for &(kind, weight) in weights {
        if at < weight {
            return kind;
        }
        at -= weight;
    }
    JointKind::Revolute
}

fn body_name(body: Option<usize>) -> String {
    body.map_or("ground".to_owned(), |b| format!("b{}", b + 1))
}

/// The degrees of freedom the closing joints leave the tree `spec` at `q`
/// (where they close), from the tree's poses alone, apart from
/// `sharnir_mech`'s loop equations and mobility.
///
/// Each closing joint's relative placement
/// `E = (X_parent · origin · J(q_cut))⁻¹ · X_child · child_origin` is the
/// identity at `q`; to first order it moves by `A v` along the tree
/// velocities `v` and by `M w` along the joint's own motion `w` (as a
/// rotation vector and a translation, in the joint frame, by fourth-order
/// central differences; a spherical joint turns about all three axes). The
/// loops stay closed for the `v` with `A v + M w = 0` for some `w`, and
/// `M` has full column rank, so the constraint Jacobian has rank
/// `rank [A M] − rank M` and the degrees of freedom are `nv` less that.
fn degrees_of_freedom(
    oracle: &LoopOracle,
    spec: &Spec,
    q: &[f64],
    closings: &[Closing],
    child_origins: &[Frame],
) -> usize {
    const STEP: f64 = 1e-3;
    let nv: usize = spec.joints.iter().map(|j| j.nv()).sum();
    let rows = 6 * closings.len();
    // Rotation vector and translation of a placement near the identity.
    let twist = |e: &Frame| {
        let r = &e.rotation;
        let t = e.translation;
        [
            0.5 * (r[2][1] - r[1][2]),
            0.5 * (r[0][2] - r[2][0]),
            0.5 * (r[1][0] - r[0][1]),
            t[0],
            t[1],
            t[2],
        ]
    };
    let derivative = |f: &dyn Fn(f64) -> Vec<f64>| {
        let (p1, m1, p2, m2) = (f(STEP), f(-STEP), f(2.0 * STEP), f(-2.0 * STEP));
        (0..p1.len())
            .map(|i| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * STEP))
            .collect::<Vec<f64>>()
    };
    let placements = |q: &[f64]| -> Vec<f64> {
        let poses = oracle.body_poses(q);
        let host = |b: Option<usize>| b.map_or(Frame::IDENTITY, |b| poses[b]);
        closings
            .iter()
            .zip(child_origins)
            .flat_map(|(c, child_origin)| {
                let motion = joint_motion(c.kind, c.axis, c.axis2, &c.motion);
                let parent = host(c.parent).then(&c.origin).then(&motion);
                twist(
                    &parent
                        .inverse()
                        .then(&host(Some(c.child)).then(child_origin)),
                )
            })
            .collect()
    };
    let mut a: Vec<Vec<f64>> = Vec::new();
    for k in 0..nv {
        let mut unit = vec![0.0; nv];
        unit[k] = 1.0;
        a.push(derivative(&|s| {
            placements(&oracle.oracle().integrate(q, &unit, s))
        }));
    }
    let mut m: Vec<Vec<f64>> = Vec::new();
    for (i, c) in closings.iter().enumerate() {
        let column = |local: &[f64]| {
            let mut column = vec![0.0; rows];
            column[6 * i..6 * i + 6].copy_from_slice(local);
            column
        };
        if c.kind == JointKind::Spherical {
            for axis in 0..3 {
                let mut local = [0.0; 6];
                local[axis] = 1.0;
                m.push(column(&local));
            }
            continue;
        }
        let at = joint_motion(c.kind, c.axis, c.axis2, &c.motion).inverse();
        for p in 0..c.motion.len() {
            let local = derivative(&|s| {
                let mut motion = c.motion.clone();
                motion[p] += s;
                twist(&at.then(&joint_motion(c.kind, c.axis, c.axis2, &motion))).to_vec()
            });
            m.push(column(&local));
        }
    }
    let all: Vec<Vec<f64>> = a.iter().chain(&m).cloned().collect();
    nv - (rank(all) - rank(m))
}

/// The numeric rank of the matrix with these columns: Gaussian elimination
/// with complete pivoting, pivots below `1e-8` of the largest entry (or
/// of 1) counted as zero (the entries are finite differences, good to
/// about `1e-12`).
fn rank(mut columns: Vec<Vec<f64>>) -> usize {
    let largest = columns
        .iter()
        .flatten()
        .fold(1.0_f64, |m, x| m.max(x.abs()));
    let floor = 1e-8 * largest;
    let height = columns.first().map_or(0, Vec::len);
    let mut rank = 0;
    while rank < columns.len() && rank < height {
        let mut pivot = (rank, rank, 0.0);
        for (c, column) in columns.iter().enumerate().skip(rank) {
            for (r, x) in column.iter().enumerate().skip(rank) {
                if x.abs() > pivot.2 {
                    pivot = (c, r, x.abs());
                }
            }
        }
        if pivot.2 <= floor {
            break;
        }
        columns.swap(rank, pivot.0);
        for column in columns.iter_mut() {
            column.swap(rank, pivot.1);
        }
        let head = columns[rank].clone();
        for column in columns.iter_mut().skip(rank + 1) {
            let factor = column[rank] / head[rank];
            for (x, h) in column.iter_mut().zip(&head).skip(rank) {
                *x -= factor * h;
            }
        }
        rank += 1;
    }
    rank
}

/// The `[initial]` table that starts `spec` (the tree) at `q`, every
/// position coordinate by name (quaternions by their components), so that
/// the mobility is taken at the assembled configuration.
fn initial_text(spec: &Spec, q: &[f64]) -> String {
    let names: Vec<String> = spec
        .joints
        .iter()
        .flat_map(|j| j.position_names())
        .collect();
    assert_eq!(names.len(), q.len(), "positions of the random loop tree");
    let entries: Vec<String> = names
        .iter()
        .zip(q)
        .map(|(name, &x)| format!("{name} = {}", number(x)))
        .collect();
    format!("[initial]\nq = {{ {} }}\n", entries.join(", "))
}

/// `{ xyz = [...], rpy = [...] }` (exact zeros stay exact: a rotation
/// about z has roll 0 and pitch ±0), or with `matrix` when the pitch is too
/// near ±90° for roll and yaw to be recovered to full precision (or the
/// rotation is the identity, which needs no key).
fn frame_text(frame: &Frame) -> String {
    let xyz = format!("xyz = {}", vector(&frame.translation.map(number)));
    let r = &frame.rotation;
    if *r == IDENTITY {
        return format!("{{ {xyz} }}");
    }
    if r[2][0].abs() > 0.9 {
        return format!("{{ {xyz}, matrix = {} }}", matrix_text(r));
    }
    let pitch = (-r[2][0]).atan2((r[0][0] * r[0][0] + r[1][0] * r[1][0]).sqrt());
    let yaw = r[1][0].atan2(r[0][0]);
    let roll = r[2][1].atan2(r[2][2]);
    let angles = [roll, pitch, yaw].map(number);
    format!("{{ {xyz}, rpy = {} }}", vector(&angles))
}

fn matrix_text(r: &Mat3) -> String {
    let rows: Vec<String> = r.iter().map(|row| vector(&row.map(number))).collect();
    format!("[{}]", rows.join(", "))
}

/// A number with 17 significant digits, which reads back to the same
/// `f64`.
fn number(x: f64) -> String {
    format!("{x:.16e}")
}

fn vector(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}
