//! URDF import: a robot description converted to the `.spec` format.
//!
//! Robots are usually published as URDF; sharnir compiles specs. [`convert`]
//! turns URDF text into spec **text** (readable, with a header naming the
//! URDF and every conversion choice) and parses that text with
//! `sharnir-spec`, so an imported robot goes through exactly the same
//! pipeline as a hand-written spec. Conversion choices are documented in
//! `docs/urdf.md`:
//!
//! - the root link is the ground (a fixed base), or with
//!   [`Options::floating`] a body on a free joint named
//!   [`FLOATING_BASE_JOINT`]; `continuous` joints are revolute joints,
//!   `floating` joints free joints, `planar` joints planar joints with their
//!   frames turned so that the URDF axis is z; joint limits, damping and
//!   friction are carried over; `<mimic>` joints become followers coupled
//!   to their leader's coordinate (chains composed, `mimic`);
//! - links attached by `fixed` joints are merged into their parent: masses
//!   lumped with the parallel-axis theorem, children's placements composed;
//! - massless leaf links are dropped; the coordinates are the moving joints
//!   in Pinocchio's depth-first order.
//!
//! Problems are reported as [`UrdfError`]s at `file.urdf:line:col` with a
//! hint, checked while reading (the spec parser would only be able to point
//! into the generated text).
//!
//! Inside: `read` (XML → links and joints), `tree` (structure and order),
//! `merge` (fixed joints, masses), `mimic` (coupled joints), `inertia` and
//! `geometry` (the numerics), `emit` (spec text).

mod emit;
mod error;
mod geometry;
mod inertia;
mod merge;
mod mimic;
mod nesting;
mod read;
mod tree;

pub use error::UrdfError;

/// The name of the free joint that attaches a floating base
/// ([`Options::floating`]) to the ground. It is Pinocchio's name for the
/// same joint, so that its coordinates (`root_joint_x` … `root_joint_qw`,
/// `root_joint_vx` … `root_joint_wz`) can be matched to Pinocchio's by name;
/// a URDF joint with this name is rejected when floating.
pub const FLOATING_BASE_JOINT: &str = merge::FLOATING_BASE_JOINT;

use error::Problem;
use sharnir_spec::{Source, Spec};

/// How to convert: the choices a user can make on the command line.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The mechanism (and generated module) name; by default the robot's
    /// name in lower snake case.
    pub name: Option<String>,
    /// Make the root link a free-floating base instead of the ground: a body
    /// attached to the ground by a free joint named [`FLOATING_BASE_JOINT`],
    /// for legged robots, humanoids and anything not bolted down (URDF
    /// itself cannot say so: its root is just the link no joint moves).
    pub floating: bool,
    /// Replace inertia tensors that no rigid body can have by the nearest
    /// physical ones instead of rejecting them (many published URDFs have a
    /// few); each replacement is reported in [`Conversion::warnings`] and in
    /// the spec header.
    pub fix_inertia: bool,
    /// Make the position limits of revolute and prismatic joints stops
    /// (`limits` with a contact law, the generated `limit_forces`) instead
    /// of storing them only; the coefficients are [`StopDefaults`].
    pub stops: bool,
}

/// The contact law given to URDF position limits with [`Options::stops`]:
/// URDF has no stop model, so these are stated here and in docs/urdf.md.
///
/// At the bound the stop pushes with the joint's effort limit (a motor at
/// full effort rests at the bound), 100 N·m or N without one; the force
/// grows tenfold every 2.3 mrad (revolute) or 0.23 mm (prismatic) of
/// penetration; the dissipation is 5 % of the stiffness per unit rate.
pub struct StopDefaults;

impl StopDefaults {
    /// The stop force at zero gap when the joint has no effort limit.
    pub const STIFFNESS: f64 = 100.0;
    /// Decay rate of a revolute joint's stop, 1/rad.
    pub const REVOLUTE_DECAY: f64 = 1000.0;
    /// Decay rate of a prismatic joint's stop, 1/m.
    pub const PRISMATIC_DECAY: f64 = 10000.0;
    /// Dissipation per unit of stiffness, s/rad or s/m.
    pub const DISSIPATION_PER_STIFFNESS: f64 = 0.05;
}

/// A converted robot.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The spec file, ready to be written out or read.
    pub text: String,
    /// `text` parsed and validated. Its source is named after the URDF, so
    /// that generated modules say which file they come from.
    pub spec: Spec,
    /// Where every kept URDF link ended up, so that frames such as a tool
    /// centre point can be located on the spec's bodies.
    pub frames: Vec<Frame>,
    /// What the user should know about the conversion (one line each, with
    /// the URDF location): replaced inertias. The command line prints them on
    /// stderr.
    pub warnings: Vec<String>,
}

/// A URDF link's frame as a fixed placement in a spec body's frame: every
/// link merged away by fixed joints survives as one of these.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The URDF link's name.
    pub link: String,
    /// The spec body carrying it, or `ground`.
    pub body: String,
    /// The link frame's axes in the body frame (rows):
    /// `p_body = translation + rotation · p_link`.
    pub rotation: [[f64; 3]; 3],
    /// The link frame's origin in the body frame, m.
    pub translation: [f64; 3],
}

impl Conversion {
    /// The frame of a URDF link, if the link was kept.
    pub fn frame(&self, link: &str) -> Option<&Frame> {
        self.frames.iter().find(|f| f.link == link)
    }
}

/// Converts the URDF in `source` to a spec. `source.name` is the path as the
/// user knows it: it starts every error message and appears in the spec's
/// header.
pub fn convert(source: &Source, options: &Options) -> Result<Conversion, UrdfError> {
    convert_located(source, options).map_err(|p| p.into_error(source))
}

fn convert_located(source: &Source, options: &Options) -> Result<Conversion, Problem> {
    let robot = read::read(&source.text)?;
    let tree = tree::build(&robot)?;
    let model = merge::merge(&robot, &tree, options.floating, options.fix_inertia)?;
    let couplings = mimic::resolve(&robot, &model)?;
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| mechanism_name(&robot.name));
    let mut flags = String::new();
    if let Some(name) = &options.name {
        flags.push_str(&format!(" --name {name}"));
    }
    if options.floating {
        flags.push_str(" --floating");
    }
    if options.fix_inertia {
        flags.push_str(" --fix-inertia");
    }
    if options.stops {
        flags.push_str(" --stops");
    }
    let text = emit::spec_text(&emit::Context {
        robot: &robot,
        tree: &tree,
        model: &model,
        couplings: &couplings,
        source_name: &source.name,
        name: &name,
        flags: &flags,
        stops: options.stops,
    });
    let spec = sharnir_spec::parse(Source {
        name: source.name.clone(),
        text: text.clone(),
    })
    .map_err(|e| {
        Problem::new(
            robot.name_span,
            format!("the converted spec is rejected: {}", e.message()),
            "converted from this robot",
            format!(
                "{} (the mechanism name can be chosen with --name)",
                e.hint()
            ),
        )
    })?;
    let warnings = model
        .fixes
        .iter()
        .map(|fix| {
            let link = &robot.links[fix.link];
            let at = link.inertial.as_ref().map_or(link.span, |i| i.inertia_span);
            let (line, column) = source.line_column(at.offset);
            format!(
                "{}:{line}:{column}: inertia of link `{}` replaced by the nearest physical one \
                 (--fix-inertia): principal moments {} -> {}",
                source.name,
                link.name,
                emit::moments(&fix.before),
                emit::moments(&fix.after)
            )
        })
        .collect();
    Ok(Conversion {
        text,
        spec,
        frames: frames(&robot, &model),
        warnings,
    })
}

/// Every kept link's placement in its body.
fn frames(robot: &read::Robot, model: &merge::Model) -> Vec<Frame> {
    robot
        .links
        .iter()
        .zip(&model.owners)
        .filter_map(|(link, owner)| {
            let owner = owner.as_ref()?;
            let body = match owner.body {
                Some(b) => robot.links.get(model.bodies.get(b)?.link)?.name.clone(),
                None => "ground".to_owned(),
            };
            Some(Frame {
                link: link.name.clone(),
                body,
                rotation: owner.placement.matrix,
                translation: owner.placement.translation,
            })
        })
        .collect()
}

/// The default mechanism name: the robot's name in lower snake case, made
/// a valid module name (`2dof_planar` → `robot_2dof_planar`).
fn mechanism_name(robot: &str) -> String {
    let mut name = String::new();
    let mut previous_lower = false;
    for c in robot.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            name.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if !(c == '_' && name.ends_with('_')) {
            name.push(c);
        }
    }
    let name = name.trim_matches('_');
    if name.is_empty() {
        "robot".into()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("robot_{name}")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_spec::JointKind;

    /// A body with its mass, or a massless link, as URDF text.
    fn link(name: &str, mass: Option<f64>) -> String {
        match mass {
            Some(m) => format!(
                "<link name=\"{name}\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"{m}\"/>\
                 <inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"/>\
                 </inertial></link>\n"
            ),
            None => format!("<link name=\"{name}\"/>\n"),
        }
    }

    fn joint(name: &str, kind: &str, parent: &str, child: &str, extra: &str) -> String {
        format!(
            "<joint name=\"{name}\" type=\"{kind}\"><parent link=\"{parent}\"/>\
             <child link=\"{child}\"/>{extra}</joint>\n"
        )
    }

    fn run(parts: &[String], floating: bool) -> Result<Conversion, UrdfError> {
        let source = Source {
            name: "robot.urdf".into(),
            text: format!("<robot name=\"r\">\n{}</robot>\n", parts.concat()),
        };
        let options = Options {
            floating,
            ..Options::default()
        };
        convert(&source, &options)
    }

    fn converted(parts: &[String], floating: bool) -> Conversion {
        run(parts, floating).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A torso with a fixed-on battery and one leg.
    fn walker() -> Vec<String> {
        vec![
            link("torso", Some(4.0)),
            link("battery", Some(1.0)),
            link("leg", Some(0.5)),
            joint(
                "bolt",
                "fixed",
                "torso",
                "battery",
                "<origin xyz=\"0 0 0.2\"/>",
            ),
            joint("hip", "revolute", "torso", "leg", "<axis xyz=\"0 1 0\"/>"),
        ]
    }

    #[test]
    fn floating_base_is_a_body_on_the_root_joint() {
        let conversion = converted(&walker(), true);
        let spec = &conversion.spec;
        let bodies: Vec<&str> = spec.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(bodies, ["torso", "leg"]);
        let root = &spec.joints[0];
        assert_eq!(
            (
                root.name.as_str(),
                root.kind,
                root.parent.as_str(),
                root.child.as_str()
            ),
            (FLOATING_BASE_JOINT, JointKind::Free, "ground", "torso")
        );
        assert_eq!(spec.joints[1].parent, "torso");
        let names: Vec<String> = spec
            .joints
            .iter()
            .flat_map(|j| j.position_names())
            .collect();
        assert_eq!(
            names,
            [
                "root_joint_x",
                "root_joint_y",
                "root_joint_z",
                "root_joint_qx",
                "root_joint_qy",
                "root_joint_qz",
                "root_joint_qw",
                "hip"
            ]
        );
        // The battery is lumped into the floating torso: 4 kg at x = 0.1 and
        // 1 kg at (0.1, 0, 0.2) make 5 kg at (0.1, 0, 0.04).
        assert!(
            conversion.text.contains("mass = 5\ncom = [0.1, 0, 0.04"),
            "{}",
            conversion.text
        );
        let battery = conversion.frame("battery").expect("battery kept");
        assert_eq!(
            (battery.body.as_str(), battery.translation),
            ("torso", [0.0, 0.0, 0.2])
        );
        assert_eq!(
            conversion.frame("torso").map(|f| f.body.as_str()),
            Some("torso")
        );
        assert!(
            conversion.text.contains("--floating`."),
            "{}",
            conversion.text
        );
        // Fixed, the same URDF has the torso as its ground.
        let fixed = converted(&walker(), false);
        assert_eq!(fixed.spec.bodies.len(), 1);
        assert_eq!(
            fixed.frame("battery").map(|f| f.body.as_str()),
            Some("ground")
        );
    }

    #[test]
    fn floating_base_errors() {
        let message = |parts: &[String]| run(parts, true).err().map(|e| e.message().to_owned());
        let mut massless = walker();
        massless[0] = link("torso", None);
        massless[1] = link("battery", None);
        assert_eq!(
            message(&massless).as_deref(),
            Some("the floating base `torso` has no mass")
        );
        let mut clash = walker();
        clash[4] = joint("root_joint", "revolute", "torso", "leg", "");
        assert_eq!(
            message(&clash).as_deref(),
            Some("joint name `root_joint` is reserved with --floating")
        );
        let mut ground = walker();
        ground[0] = link("ground", Some(4.0));
        ground[3] = joint("bolt", "fixed", "ground", "battery", "");
        ground[4] = joint("hip", "revolute", "ground", "leg", "");
        assert_eq!(
            message(&ground).as_deref(),
            Some("link name `ground` is reserved")
        );
        assert!(
            run(&ground, false).is_ok(),
            "a fixed base may be called ground"
        );
    }

    #[test]
    fn stops_are_given_the_stated_contact_law_on_request() {
        let parts = [
            link("base", None),
            link("arm", Some(1.0)),
            link("slide", Some(1.0)),
            joint(
                "shoulder",
                "revolute",
                "base",
                "arm",
                "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"40\" velocity=\"2\"/>",
            ),
            joint(
                "rail",
                "prismatic",
                "arm",
                "slide",
                "<axis xyz=\"1 0 0\"/><limit lower=\"0\" upper=\"0.5\"/>",
            ),
        ];
        let stored = converted(&parts, false);
        assert!(stored
            .spec
            .joints
            .iter()
            .all(|j| j.limits.as_ref().is_some_and(|l| l.stops.is_none())));
        let source = Source {
            name: "robot.urdf".into(),
            text: format!("<robot name=\"r\">\n{}</robot>\n", parts.concat()),
        };
        let options = Options {
            stops: true,
            ..Options::default()
        };
        let conversion = convert(&source, &options).expect("converts");
        for line in [
            "limits = { lower = -1, upper = 1, effort = 40, velocity = 2, stiffness = 40, dissipation = 2, decay = 1000 }",
            "limits = { lower = 0, upper = 0.5, stiffness = 100, dissipation = 5, decay = 10000 }",
            "--stops",
        ] {
            assert!(conversion.text.contains(line), "{line}\n{}", conversion.text);
        }
        assert!(conversion
            .spec
            .joints
            .iter()
            .all(|j| j.limits.as_ref().is_some_and(|l| l.stops.is_some())));
    }

    #[test]
    fn floating_and_planar_urdf_joints() {
        let parts = [
            link("base", None),
            link("puck", Some(1.0)),
            link("drone", Some(2.0)),
            joint(
                "table",
                "planar",
                "base",
                "puck",
                "<origin xyz=\"0 0 1\"/><axis xyz=\"1 0 0\"/><limit effort=\"1\"/>",
            ),
            joint("air", "floating", "puck", "drone", "<axis xyz=\"0 0 0\"/>"),
        ];
        let conversion = converted(&parts, false);
        let joints = &conversion.spec.joints;
        assert_eq!(
            joints.iter().map(|j| j.kind).collect::<Vec<_>>(),
            [JointKind::Planar, JointKind::Free]
        );
        // The plane normal x becomes the joint frame's z by Ry(π/2); the
        // puck's own frame is turned back by Ry(−π/2) inside its body, and
        // the drone's joint is placed through that turn.
        for line in [
            "origin = { xyz = [0, 0, 1], rpy = [0, \"pi/2\", 0] }",
            "origin = { rpy = [0, \"-pi/2\", 0] }",
            "# URDF type `planar`, plane normal [1, 0, 0]: the joint frame's z",
            "# URDF type `floating`",
        ] {
            assert!(
                conversion.text.contains(line),
                "no `{line}` in:\n{}",
                conversion.text
            );
        }
        assert!(joints[0].limits.is_none(), "limits are for one coordinate");
        let puck = conversion.frame("puck").expect("puck kept");
        let want = [[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        for (got, want) in puck.rotation.iter().flatten().zip(want.iter().flatten()) {
            assert!((got - want).abs() < 1e-15, "{:?}", puck.rotation);
        }
        // The puck's centre of mass, 0.1 along its link's x, is 0.1 along
        // the body's z: Ry(−π/2) x = z.
        let com = conversion.spec.bodies[0].com.clone().map(|c| match c.kind {
            sharnir_spec::ExprKind::Number(x) => x,
            _ => f64::NAN,
        });
        for (got, want) in com.iter().zip([0.0, 0.0, 0.1]) {
            assert!((got - want).abs() < 1e-15, "{com:?}");
        }
    }

    /// An arm link driven by `drive`, and two fingers: `a` mimics the
    /// drive, `b` mimics `a` (a chain URDF allows and the spec format does
    /// not), each with `extra_b` appended to `b`.
    fn gripper(extra_b: &str) -> Vec<String> {
        vec![
            link("base", None),
            link("palm", Some(1.0)),
            link("finger_a", Some(0.1)),
            link("finger_b", Some(0.1)),
            joint("drive", "revolute", "base", "palm", "<axis xyz=\"0 0 1\"/>"),
            joint(
                "a",
                "prismatic",
                "palm",
                "finger_a",
                "<axis xyz=\"0 1 0\"/><mimic joint=\"drive\" multiplier=\"0.01\" offset=\"0.002\"/>",
            ),
            joint(
                "b",
                "prismatic",
                "palm",
                "finger_b",
                &format!("<axis xyz=\"0 -1 0\"/>{extra_b}"),
            ),
        ]
    }

    #[test]
    fn mimic_chains_compose_into_one_coupling() {
        let conversion = converted(
            &gripper("<mimic joint=\"a\" multiplier=\"-1\" offset=\"0.001\"/>"),
            false,
        );
        let spec = &conversion.spec;
        let coordinates: Vec<String> = spec
            .joints
            .iter()
            .flat_map(|j| j.velocity_names())
            .collect();
        assert_eq!(coordinates, ["drive"]);
        let value = |e: &sharnir_spec::Expr| match e.kind {
            sharnir_spec::ExprKind::Number(x) => x,
            _ => f64::NAN,
        };
        let coupling = |name: &str| {
            let joint = spec.joints.iter().find(|j| j.name == name).expect(name);
            let mimic = joint.mimic.as_ref().expect("a follower");
            (
                mimic.joint.clone(),
                value(&mimic.multiplier),
                value(&mimic.offset),
            )
        };
        assert_eq!(coupling("a"), ("drive".to_owned(), 0.01, 0.002));
        // q_b = −(0.01 q + 0.002) + 0.001.
        let (leader, multiplier, offset) = coupling("b");
        assert_eq!(leader, "drive");
        assert!((multiplier + 0.01).abs() < 1e-18 && (offset + 0.001).abs() < 1e-18);
        assert!(conversion
            .text
            .contains("# * <mimic> joints follow their leader's coordinate"));
    }

    #[test]
    fn bad_mimics_are_located() {
        let error = |extra: &str| {
            run(&gripper(extra), false)
                .err()
                .map(|e| (e.message().to_owned(), e.line()))
        };
        assert_eq!(
            error("<mimic joint=\"c\"/>"),
            Some(("joint `b` mimics an unknown joint `c`".to_owned(), 8))
        );
        assert_eq!(
            error("<mimic joint=\"b\"/>"),
            Some(("the <mimic> tags of joint `b` form a cycle".to_owned(), 8))
        );
        assert_eq!(
            error("<mimic/>"),
            Some(("<mimic> has no `joint` attribute".to_owned(), 8))
        );
        assert_eq!(
            error("<mimic joint=\"a\" multiplier=\"two\"/>").map(|(m, _)| m.contains("multiplier")),
            Some(true)
        );
        let mut fixed_leader = gripper("<mimic joint=\"a\"/>");
        fixed_leader[5] = joint("a", "fixed", "palm", "finger_a", "");
        assert_eq!(
            run(&fixed_leader, false)
                .err()
                .map(|e| e.message().to_owned()),
            Some("joint `b` mimics `a`, a fixed joint".to_owned())
        );
        let mut dropped_leader = gripper("<mimic joint=\"a\"/>");
        dropped_leader[2] = link("finger_a", None);
        dropped_leader[5] = joint(
            "a",
            "prismatic",
            "palm",
            "finger_a",
            "<axis xyz=\"0 1 0\"/>",
        );
        assert_eq!(
            run(&dropped_leader, false)
                .err()
                .map(|e| e.message().to_owned()),
            Some(
                "joint `b` mimics `a`, which moves a massless leaf link and is dropped".to_owned()
            )
        );
    }

    #[test]
    fn mechanism_names_are_snake_case_identifiers() {
        assert_eq!(mechanism_name("ur5"), "ur5");
        assert_eq!(mechanism_name("2dof_planar"), "robot_2dof_planar");
        assert_eq!(mechanism_name("FrankaPanda"), "franka_panda");
        assert_eq!(mechanism_name("my-robot v2"), "my_robot_v2");
        assert_eq!(mechanism_name("--"), "robot");
    }
}
