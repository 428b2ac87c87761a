//! [`Model`] → spec text: a readable `.spec` file whose header says where it
//! came from and which conversion choices were made, with the URDF's numbers
//! written inline.

use crate::geometry::Placement;
use crate::mimic::Coupling;
use crate::model::{Body, Inboard, Model, FLOATING_BASE_JOINT};
use crate::read::{JointType, Robot};
use crate::tree::Tree;
use crate::StopDefaults;
use std::fmt::Write as _;

/// What the header needs besides the model.
pub(crate) struct Context<'a> {
    pub robot: &'a Robot,
    pub tree: &'a Tree,
    pub model: &'a Model,
    /// Per URDF joint, its coupling when it is a kept follower.
    pub couplings: &'a [Option<Coupling>],
    /// The URDF as the user named it.
    pub source_name: &'a str,
    /// The mechanism name.
    pub name: &'a str,
    /// The command-line flags that reproduce this conversion.
    pub flags: &'a str,
    /// Whether position limits become stops ([`crate::Options::stops`]).
    pub stops: bool,
    /// Whether rpy angles are written as the URDF gives them
    /// ([`crate::Options::keep_angles`]).
    pub keep_angles: bool,
    /// Whether the spec asks for a folded twin
    /// ([`crate::Options::folded_twin`]).
    pub folded_twin: bool,
}

/// The whole spec file.
pub(crate) fn spec_text(context: &Context) -> String {
    let mut out = String::new();
    header(&mut out, context);
    let robot = context.robot;
    let _ = writeln!(out, "[mechanism]");
    let _ = writeln!(out, "name = {}", string(context.name));
    let _ = writeln!(
        out,
        "description = {}",
        string(&format!(
            "URDF robot `{}` from {}, converted by sharnir-urdf",
            robot.name, context.source_name
        ))
    );
    let _ = writeln!(out, "gravity = [0, 0, \"-g\"]");
    if context.folded_twin {
        let _ = writeln!(out, "folded_twin = true");
    }
    let _ = writeln!(out, "\n[parameters]\ng = 9.81  # m/s²");
    for body in &context.model.bodies {
        body_table(&mut out, context, body);
    }
    for body in &context.model.bodies {
        joint_table(&mut out, context, body);
    }
    out
}

fn header(out: &mut String, context: &Context) {
    let robot = context.robot;
    let model = context.model;
    let link = |l: usize| format!("`{}`", robot.links[l].name);
    let joint = |j: usize| format!("`{}`", robot.joints[j].name);
    let child_of = |j: usize| context.tree.ends[j].1;
    let mut lines = vec![
        format!(
            "`{}`, converted from the URDF robot `{}` ({})",
            context.name, robot.name, context.source_name
        ),
        format!(
            "by `cargo xtask urdf2spec {}{}`.",
            context.source_name, context.flags
        ),
        "Edit the URDF and convert again rather than editing this file.".into(),
        String::new(),
        "Conversion choices (docs/urdf.md):".into(),
    ];
    if model.floating() {
        lines.extend([
            format!(
                "* floating base (--floating): the root link {} is a body on the",
                link(context.tree.root)
            ),
            format!(
                "  free joint `{FLOATING_BASE_JOINT}` (Pinocchio's name): q = [x y z qx qy qz qw], the"
            ),
            "  body origin in the ground frame and a unit quaternion, scalar last;".into(),
            "  v = [linear, angular], both in the body frame.".into(),
        ]);
    } else {
        lines.push(format!(
            "* fixed base: the root link {} is the ground; its mass does not matter.",
            link(context.tree.root)
        ));
    }
    lines.extend([
        "* gravity is (0, 0, -g), g = 9.81 m/s², as URDF tools assume.".into(),
        "* numbers are the URDF's, written inline; inertias are turned from each".into(),
    ]);
    lines.extend(if context.keep_angles {
        [
            "  <inertial> frame into the link frame (I = R I Rᵀ). rpy angles are written".into(),
            "  as the URDF gives them (--keep-angles).".into(),
        ]
    } else {
        [
            "  <inertial> frame into the link frame (I = R I Rᵀ). An rpy angle within".into(),
            "  1e-9 rad of a multiple of pi/2 is written as that multiple (\"pi/2\", ...).".into(),
        ]
    });
    lines.extend([
        "* coordinates are the moving joints' names, in Pinocchio's order: depth first".into(),
        "  from the root, each link's children in joint-name order.".into(),
        "* continuous joints are revolute joints without position limits; damping".into(),
        "  and friction are forces of the joints (the module's friction_forces).".into(),
    ]);
    lines.push(if context.stops {
        "* position limits are stops (--stops): the contact law of docs/urdf.md.".into()
    } else {
        "* position limits are stored, not enforced (convert with --stops for stops).".into()
    });
    let kinds = |kind: JointType| {
        model.bodies.iter().any(|b| match b.inboard {
            Inboard::Joint(j) => robot.joints[j].kind == kind,
            Inboard::FloatingBase => false,
        })
    };
    if kinds(JointType::Floating) {
        lines.push(
            "* floating joints are free joints (the convention of the floating base).".into(),
        );
    }
    if kinds(JointType::Planar) {
        lines.extend([
            "* planar joints move in the plane normal to the URDF axis, spec planar joints".into(),
            "  in their frame's x-y plane: the joint frame is turned by Rz·Ry after the URDF"
                .into(),
            "  origin so that the axis is its z, and the link frame is turned back inside".into(),
            "  the body (its mass properties and children are rotated accordingly).".into(),
        ]);
    }
    let mut merged: Vec<String> = model
        .ground_merged
        .iter()
        .map(|&j| format!("{} ({} into the ground)", joint(j), link(child_of(j))))
        .collect();
    for body in &model.bodies {
        merged.extend(body.merged.iter().map(|&j| {
            format!(
                "{} ({} into {})",
                joint(j),
                link(child_of(j)),
                link(body.link)
            )
        }));
    }
    if !merged.is_empty() {
        lines.push("* fixed joints merged, masses lumped by the parallel-axis theorem:".into());
        lines.extend(merged.iter().map(|m| format!("  {m}")));
    }
    let followers: Vec<String> = context
        .couplings
        .iter()
        .enumerate()
        .filter_map(|(j, c)| {
            c.as_ref()
                .map(|c| format!("  {} follows {}", joint(j), joint(c.leader)))
        })
        .collect();
    if !followers.is_empty() {
        lines.push("* <mimic> joints follow their leader's coordinate (chains composed):".into());
        lines.extend(followers);
    }
    if !model.dropped.is_empty() {
        lines.push("* massless leaf links dropped with their joints:".into());
        lines.extend(
            model
                .dropped
                .iter()
                .map(|&j| format!("  {} (joint {})", link(child_of(j)), joint(j))),
        );
    }
    for fix in &model.fixes {
        lines.push(format!(
            "* --fix-inertia: inertia of the moving body of link {} replaced by the nearest \
             physical one,",
            link(fix.body_link)
        ));
        lines.push(format!(
            "  principal moments {} -> {}.",
            moments(&fix.before),
            moments(&fix.after)
        ));
    }
    for line in lines {
        let _ = writeln!(out, "{}", format!("# {line}").trim_end());
    }
    out.push('\n');
}

/// Principal moments for messages and the header, six significant digits.
pub(crate) fn moments(m: &[f64; 3]) -> String {
    format!("({}, {}, {})", short(m[0]), short(m[1]), short(m[2]))
}

/// A number for people: six significant digits, no trailing zeros.
fn short(x: f64) -> String {
    let text = format!("{x:.5e}");
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return text;
    };
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    match exponent.parse::<i32>() {
        Ok(0) => mantissa.to_owned(),
        Ok(e) if (-3..6).contains(&e) => {
            let decimals = usize::try_from(5 - e).unwrap_or(0);
            let fixed = format!("{x:.decimals$}");
            if fixed.contains('.') {
                fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
            } else {
                fixed
            }
        }
        _ => format!("{mantissa}e{exponent}"),
    }
}

fn body_table(out: &mut String, context: &Context, body: &Body) {
    let robot = context.robot;
    let link = &robot.links[body.link];
    let _ = writeln!(out);
    if !body.merged.is_empty() {
        let lumped: Vec<String> = body
            .merged
            .iter()
            .map(|&j| format!("`{}`", robot.joints[j].child))
            .collect();
        let _ = writeln!(
            out,
            "# link `{}` with {} lumped in",
            link.name,
            lumped.join(", ")
        );
    }
    let m = &body.mass;
    let i = &m.inertia;
    let _ = writeln!(out, "[[body]]");
    let _ = writeln!(out, "name = {}", string(&link.name));
    let _ = writeln!(out, "mass = {}", number(m.mass));
    let _ = writeln!(out, "com = {}", vector(m.com));
    let diagonal = [i[0][0], i[1][1], i[2][2]];
    let products = [i[0][1], i[0][2], i[1][2]];
    if products.iter().all(|&p| p == 0.0) {
        let _ = writeln!(out, "inertia = {}", vector(diagonal));
    } else {
        let _ = writeln!(
            out,
            "inertia = {{ xx = {}, yy = {}, zz = {}, xy = {}, xz = {}, yz = {} }}",
            number(diagonal[0]),
            number(diagonal[1]),
            number(diagonal[2]),
            number(products[0]),
            number(products[1]),
            number(products[2])
        );
    }
}

fn joint_table(out: &mut String, context: &Context, body: &Body) {
    let robot = context.robot;
    let (j, joint) = match body.inboard {
        Inboard::Joint(j) => (j, &robot.joints[j]),
        Inboard::FloatingBase => {
            let _ = writeln!(out, "\n# floating base (--floating)");
            let _ = writeln!(out, "[[joint]]");
            let _ = writeln!(out, "name = {}", string(FLOATING_BASE_JOINT));
            let _ = writeln!(out, "type = \"free\"");
            let _ = writeln!(out, "parent = \"ground\"");
            let _ = writeln!(out, "child = {}", string(&robot.links[body.link].name));
            return;
        }
    };
    let parent = match body.parent {
        Some(p) => context
            .model
            .bodies
            .get(p)
            .map_or("ground", |b| robot.links[b.link].name.as_str()),
        None => "ground",
    };
    let _ = writeln!(out);
    if joint.parent != parent {
        let root = &robot.links[context.tree.root].name;
        let _ = if &joint.parent == root {
            writeln!(out, "# URDF parent link `{root}` is the ground")
        } else {
            writeln!(
                out,
                "# URDF parent link `{}` is merged into `{parent}`",
                joint.parent
            )
        };
    }
    let Some(kind) = joint.kind.spec_type() else {
        return;
    };
    match joint.kind {
        JointType::Continuous => {
            let _ = writeln!(out, "# URDF type `continuous`");
        }
        JointType::Floating => {
            let _ = writeln!(out, "# URDF type `floating`");
        }
        JointType::Planar => {
            let _ = writeln!(
                out,
                "# URDF type `planar`, plane normal {}: the joint frame's z",
                vector(joint.axis)
            );
        }
        JointType::Revolute | JointType::Prismatic | JointType::Fixed => {}
    }
    let _ = writeln!(out, "[[joint]]");
    let _ = writeln!(out, "name = {}", string(&joint.name));
    let _ = writeln!(out, "type = \"{kind}\"");
    let _ = writeln!(out, "parent = {}", string(parent));
    let _ = writeln!(out, "child = {}", string(&joint.child));
    if joint.kind.single_coordinate() {
        let _ = writeln!(out, "axis = {}", vector(joint.axis));
    }
    if let Some(origin) = origin(&body.origin, context.keep_angles) {
        let _ = writeln!(out, "origin = {origin}");
    }
    if !joint.kind.single_coordinate() {
        return;
    }
    if let Some(Some(coupling)) = context.couplings.get(j) {
        let _ = writeln!(
            out,
            "mimic = {{ joint = {}, multiplier = {}, offset = {} }}",
            string(&robot.joints[coupling.leader].name),
            number(coupling.multiplier),
            number(coupling.offset)
        );
    }
    if let Some(limit) = &joint.limit {
        let position = joint.kind != JointType::Continuous;
        let entries: Vec<String> = [
            ("lower", limit.lower.filter(|_| position)),
            ("upper", limit.upper.filter(|_| position)),
            ("effort", limit.effort),
            ("velocity", limit.velocity),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| format!("{key} = {}", number(v))))
        .collect();
        let mut entries = entries;
        let bounded = position && (limit.lower.is_some() || limit.upper.is_some());
        if context.stops && bounded {
            let stiffness = limit
                .effort
                .filter(|e| *e > 0.0)
                .unwrap_or(StopDefaults::STIFFNESS);
            let decay = if joint.kind == JointType::Prismatic {
                StopDefaults::PRISMATIC_DECAY
            } else {
                StopDefaults::REVOLUTE_DECAY
            };
            let dissipation = StopDefaults::DISSIPATION_PER_STIFFNESS * stiffness;
            entries.extend([
                format!("stiffness = {}", number(stiffness)),
                format!("dissipation = {}", number(dissipation)),
                format!("decay = {}", number(decay)),
            ]);
        }
        if !entries.is_empty() {
            let _ = writeln!(out, "limits = {{ {} }}", entries.join(", "));
        }
    }
    if let Some(damping) = joint.damping {
        let _ = writeln!(out, "damping = {}", number(damping));
    }
    if let Some(friction) = joint.friction {
        let _ = writeln!(out, "friction = {}", number(friction));
    }
}

/// `{ xyz = [..], rpy = [..] }` (or `rotations = [..]` for a composed
/// rotation), `None` for the identity. Angles near right angles become
/// exact ([`angle`]) unless `keep_angles`.
fn origin(placement: &Placement, keep_angles: bool) -> Option<String> {
    let angle = |a: f64| if keep_angles { number(a) } else { angle(a) };
    let mut keys = Vec::new();
    if placement.translation.iter().any(|&x| x != 0.0) {
        keys.push(format!("xyz = {}", vector(placement.translation)));
    }
    if !placement.rotations.is_empty() {
        match placement.as_rpy() {
            Some(rpy) => keys.push(format!("rpy = [{}]", rpy.map(angle).join(", "))),
            None => {
                let chain: Vec<String> = placement
                    .rotations
                    .iter()
                    .map(|&(axis, a)| format!("[\"{}\", {}]", axis.letter(), angle(a)))
                    .collect();
                keys.push(format!("rotations = [{}]", chain.join(", ")));
            }
        }
    }
    (!keys.is_empty()).then(|| format!("{{ {} }}", keys.join(", ")))
}

/// A number as TOML: whole numbers as integers (`0`, `150`), others as
/// the shortest text that reads back as the same `f64`.
fn number(x: f64) -> String {
    /// Below 2⁵³ every whole `f64` is exactly an `i64`.
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < EXACT_INTEGERS {
        format!("{}", x as i64)
    } else {
        format!("{x:?}")
    }
}

/// How far an rpy angle may be from a multiple of π/2 and still be written
/// as that multiple: URDF files round right angles (the UR5's
/// `1.57079632679` is π/2 − 4.9e-12), and 1e-9 rad changes no result beyond
/// a relative 1e-9, while coarser roundings (`1.5708`, 4e-6 away) are kept.
const RIGHT_ANGLE_TOLERANCE: f64 = 1e-9;

/// An angle: within [`RIGHT_ANGLE_TOLERANCE`] of a multiple of π/2 as that
/// multiple, an exact expression (`"pi/2"`, `"-pi"`, …), so that the
/// compiler's exact trigonometry turns its sine and cosine into 0 and ±1
/// and drops the products they would cost; other angles as numbers.
fn angle(x: f64) -> String {
    use std::f64::consts::FRAC_PI_2;
    let quarter_turns = (x / FRAC_PI_2).round();
    if (x - quarter_turns * FRAC_PI_2).abs() > RIGHT_ANGLE_TOLERANCE {
        return number(x);
    }
    match quarter_turns as i64 {
        0 => "0".into(),
        1 => "\"pi/2\"".into(),
        -1 => "\"-pi/2\"".into(),
        2 => "\"pi\"".into(),
        -2 => "\"-pi\"".into(),
        k if k % 2 == 0 => format!("\"{} * pi\"", k / 2),
        k => format!("\"{k} * pi/2\""),
    }
}

fn vector(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", number(v[0]), number(v[1]), number(v[2]))
}

/// A TOML basic string.
pub(crate) fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number as a URDF file writes it.
    fn urdf(text: &str) -> f64 {
        text.parse().unwrap_or(f64::NAN)
    }

    #[test]
    fn numbers_read_back_exactly() {
        for x in [
            0.089159,
            urdf("-6.28318530718"),
            2.6279e-13,
            4.0,
            1e16,
            0.1 + 0.2,
        ] {
            let text = number(x);
            assert_eq!(text.parse::<f64>().ok(), Some(x), "{text}");
        }
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(4.0), "4");
        assert_eq!(number(-150.0), "-150");
        assert_eq!(number(2.6279e-13), "2.6279e-13");
    }

    #[test]
    fn right_angles_become_expressions() {
        assert_eq!(angle(urdf("1.5707963267948966")), "\"pi/2\"");
        assert_eq!(angle(-std::f64::consts::PI), "\"-pi\"");
        // Rounded to 12 digits, 4.9e-12 from π/2: a right angle.
        assert_eq!(angle(urdf("1.57079632679")), "\"pi/2\"");
        assert_eq!(angle(urdf("-4.71238898038")), "\"-3 * pi/2\"");
        assert_eq!(angle(urdf("6.28318530718")), "\"2 * pi\"");
        assert_eq!(angle(urdf("1e-12")), "0");
        // Rounded to 5 digits, 3.7e-6 away: a different angle, kept.
        assert_eq!(angle(urdf("1.5708")), "1.5708");
        assert_eq!(angle(0.0), "0");
        assert_eq!(angle(0.25), "0.25");
    }

    #[test]
    fn moments_read_well() {
        assert_eq!(
            moments(&[0.05, 1.0 / 12.0, 2.5e-7]),
            "(0.05, 0.0833333, 2.5e-7)"
        );
        assert_eq!(moments(&[-0.01, 123456.7, 0.0]), "(-0.01, 123457, 0)");
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\td"), "\"a\\\"b\\\\c\\u0009d\"");
    }

    #[test]
    fn origins_use_rpy_when_they_can() {
        assert_eq!(origin(&Placement::identity(), false), None);
        let rpy = Placement::from_xyz_rpy([0.0, 0.0, 0.5], [0.25, 0.0, 0.0]);
        assert_eq!(
            origin(&rpy, false).as_deref(),
            Some("{ xyz = [0, 0, 0.5], rpy = [0.25, 0, 0] }")
        );
        let chain = rpy.then(&Placement::from_xyz_rpy([0.0; 3], [0.0, 0.0, 1.0]));
        assert_eq!(
            origin(&chain, false).as_deref(),
            Some("{ xyz = [0, 0, 0.5], rotations = [[\"x\", 0.25], [\"z\", 1]] }")
        );
    }

    #[test]
    fn kept_angles_are_the_urdf_numbers() {
        let right = Placement::from_xyz_rpy([0.0; 3], [urdf("1.57079632679"), 0.0, 0.0]);
        assert_eq!(
            origin(&right, false).as_deref(),
            Some("{ rpy = [\"pi/2\", 0, 0] }")
        );
        assert_eq!(
            origin(&right, true).as_deref(),
            Some("{ rpy = [1.57079632679, 0, 0] }")
        );
    }
}
