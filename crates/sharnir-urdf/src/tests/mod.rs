//! Conversion tests of whole URDFs: floating bases, stops, planar and
//! floating joints, mimic chains, names.

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
        Some("joint `b` mimics `a`, which moves a massless leaf link and is dropped".to_owned())
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
