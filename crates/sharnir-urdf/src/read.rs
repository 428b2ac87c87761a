//! XML → [`Robot`]: the links and joints of a URDF with the positions they
//! were read from, checked element by element (required attributes,
//! numbers, joint types, limits, duplicates). Meshes, visuals, collisions,
//! transmissions, Gazebo tags and anything else unknown are skipped.

use crate::error::Problem;
use crate::geometry::{Mat3, Placement, Vec3};
use roxmltree::Node;
use sharnir_spec::Span;
use std::collections::HashMap;

/// A URDF robot as written: links and joints in document order.
#[derive(Clone, Debug)]
pub(crate) struct Robot {
    pub name: String,
    /// The `name` attribute's value (or the `<robot` tag if it has none).
    pub name_span: Span,
    pub links: Vec<Link>,
    pub joints: Vec<Joint>,
}

/// A `<link>`.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    pub name: String,
    /// The `<link` tag.
    pub span: Span,
    pub inertial: Option<Inertial>,
}

/// A link's `<inertial>`: mass properties in the inertial frame.
#[derive(Clone, Debug)]
pub(crate) struct Inertial {
    /// The inertial frame in the link frame (centre of mass and principal
    /// axes, usually).
    pub origin: Placement,
    pub mass: f64,
    /// The `value` of `<mass>`.
    pub mass_span: Span,
    /// Inertia about the centre of mass in the inertial frame's axes.
    pub inertia: Mat3,
    /// The `<inertia` tag.
    pub inertia_span: Span,
}

/// The joint types of URDF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JointType {
    Revolute,
    /// A revolute joint without position limits.
    Continuous,
    Prismatic,
    Fixed,
    /// Six degrees of freedom: the spec's free joint.
    Floating,
    /// Motion in the plane normal to the axis: the spec's planar joint, whose
    /// plane is its frame's x–y plane.
    Planar,
}

impl JointType {
    /// The URDF spelling, for messages.
    pub fn urdf_name(self) -> &'static str {
        match self {
            JointType::Revolute => "revolute",
            JointType::Continuous => "continuous",
            JointType::Prismatic => "prismatic",
            JointType::Fixed => "fixed",
            JointType::Floating => "floating",
            JointType::Planar => "planar",
        }
    }

    /// The spec's joint type, `None` for a fixed joint (merged away by the
    /// converter, as Pinocchio does).
    pub fn spec_type(self) -> Option<&'static str> {
        match self {
            JointType::Revolute | JointType::Continuous => Some("revolute"),
            JointType::Prismatic => Some("prismatic"),
            JointType::Floating => Some("free"),
            JointType::Planar => Some("planar"),
            JointType::Fixed => None,
        }
    }

    /// Whether the URDF `<axis>` means something for this type (URDF ignores
    /// it on fixed and floating joints).
    pub fn uses_axis(self) -> bool {
        !matches!(self, JointType::Fixed | JointType::Floating)
    }

    /// Whether the joint has one coordinate, the only kind URDF's `<limit>`
    /// and `<dynamics>` are defined for; on other types they are not carried.
    pub fn single_coordinate(self) -> bool {
        matches!(
            self,
            JointType::Revolute | JointType::Continuous | JointType::Prismatic
        )
    }
}

/// A `<joint>`.
#[derive(Clone, Debug)]
pub(crate) struct Joint {
    pub name: String,
    /// The `name` attribute's value.
    pub span: Span,
    pub kind: JointType,
    pub parent: String,
    pub parent_span: Span,
    pub child: String,
    pub child_span: Span,
    /// The joint frame (and child link frame at q = 0) in the parent link
    /// frame.
    pub origin: Placement,
    /// The axis in the joint frame as written (not normalised).
    pub axis: Vec3,
    pub limit: Option<Limit>,
    pub damping: Option<f64>,
    pub friction: Option<f64>,
    pub mimic: Option<Mimic>,
}

/// `<mimic joint=".." multiplier=".." offset=".."/>`: this joint's value is
/// `multiplier · leader + offset`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mimic {
    pub joint: String,
    /// The `joint` attribute's value.
    pub joint_span: Span,
    pub multiplier: f64,
    pub offset: f64,
    /// The `<mimic` tag.
    pub span: Span,
}

/// `<limit>`, every attribute optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Limit {
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub effort: Option<f64>,
    pub velocity: Option<f64>,
}

/// Parses the XML and reads the robot, returning the first problem.
pub(crate) fn read(text: &str) -> Result<Robot, Problem> {
    crate::nesting::check(text)?;
    let document = crate::input::parse(text)?;
    let robot = document.root_element();
    if robot.tag_name().name() != "robot" {
        return Err(Problem::new(
            tag(robot),
            format!(
                "not a URDF: the root element is <{}>, not <robot>",
                robot.tag_name().name()
            ),
            "expected <robot>",
            "a URDF file has one <robot name=\"...\"> element holding its <link>s and <joint>s",
        ));
    }
    let (name, name_span) = required(robot, "name", "the robot")?;
    let mut links = Vec::new();
    let mut joints = Vec::new();
    for element in robot.children().filter(Node::is_element) {
        match element.tag_name().name() {
            "link" => links.push(link(element)?),
            "joint" => joints.push(joint(element)?),
            _ => {}
        }
    }
    unique(
        text,
        "link",
        links.iter().map(|l| (l.name.as_str(), l.span)),
    )?;
    unique(
        text,
        "joint",
        joints.iter().map(|j| (j.name.as_str(), j.span)),
    )?;
    Ok(Robot {
        name: name.to_owned(),
        name_span,
        links,
        joints,
    })
}

fn link(element: Node) -> Result<Link, Problem> {
    let (name, _) = required(element, "name", "a <link>")?;
    let inertial = match child(element, "inertial") {
        Some(inertial) => Some(self::inertial(inertial, name)?),
        None => None,
    };
    Ok(Link {
        name: name.to_owned(),
        span: tag(element),
        inertial,
    })
}

fn inertial(element: Node, link: &str) -> Result<Inertial, Problem> {
    let what = format!("the <inertial> of link `{link}`");
    let origin = origin(element)?;
    let mass = child(element, "mass").ok_or_else(|| missing_element(element, "mass", &what))?;
    let (mass_text, mass_span) = required(mass, "value", "<mass>")?;
    let mass_value = number(mass_text, mass_span, "the mass")?;
    let inertia =
        child(element, "inertia").ok_or_else(|| missing_element(element, "inertia", &what))?;
    let mut entries = [0.0; 6];
    for (value, key) in entries
        .iter_mut()
        .zip(["ixx", "ixy", "ixz", "iyy", "iyz", "izz"])
    {
        let (text, span) = required(inertia, key, "<inertia>")?;
        *value = number(text, span, key)?;
    }
    let [xx, xy, xz, yy, yz, zz] = entries;
    Ok(Inertial {
        origin,
        mass: mass_value,
        mass_span,
        inertia: [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
        inertia_span: tag(inertia),
    })
}

fn joint(element: Node) -> Result<Joint, Problem> {
    let (name, span) = required(element, "name", "a <joint>")?;
    let what = format!("joint `{name}`");
    let (kind_text, kind_span) = required(element, "type", &what)?;
    let kind = joint_type(kind_text, kind_span, name)?;
    let parent =
        child(element, "parent").ok_or_else(|| missing_element(element, "parent", &what))?;
    let (parent_name, parent_span) = required(parent, "link", "<parent>")?;
    let child_element =
        child(element, "child").ok_or_else(|| missing_element(element, "child", &what))?;
    let (child_name, child_span) = required(child_element, "link", "<child>")?;
    let axis = match child(element, "axis") {
        Some(axis) => {
            let (text, span) = required(axis, "xyz", "<axis>")?;
            let axis = vector(text, span, "the axis")?;
            if kind.uses_axis() && axis.iter().all(|&a| a == 0.0) {
                return Err(Problem::new(
                    span,
                    format!("the axis of joint `{name}` is zero"),
                    "zero vector",
                    "give the joint's direction in the joint frame, e.g. xyz=\"0 0 1\"",
                ));
            }
            axis
        }
        None => [1.0, 0.0, 0.0],
    };
    let limit = match child(element, "limit") {
        Some(limit) => Some(self::limit(limit, name)?),
        None => None,
    };
    let (damping, friction) = match child(element, "dynamics") {
        Some(dynamics) => (
            magnitude(dynamics, "damping", name)?,
            magnitude(dynamics, "friction", name)?,
        ),
        None => (None, None),
    };
    Ok(Joint {
        name: name.to_owned(),
        span,
        kind,
        parent: parent_name.to_owned(),
        parent_span,
        child: child_name.to_owned(),
        child_span,
        origin: origin(element)?,
        axis,
        limit,
        damping,
        friction,
        mimic: match child(element, "mimic") {
            Some(mimic) => Some(self::mimic(mimic)?),
            None => None,
        },
    })
}

/// `<mimic>`: `joint` is required, `multiplier` defaults to 1 and `offset`
/// to 0 (the URDF specification's defaults).
fn mimic(element: Node) -> Result<Mimic, Problem> {
    let (joint, joint_span) = required(element, "joint", "<mimic>")?;
    let value = |key: &str, default: f64| match attribute(element, key) {
        Some((text, span)) => number(text, span, key),
        None => Ok(default),
    };
    Ok(Mimic {
        joint: joint.to_owned(),
        joint_span,
        multiplier: value("multiplier", 1.0)?,
        offset: value("offset", 0.0)?,
        span: tag(element),
    })
}

fn joint_type(text: &str, span: Span, joint: &str) -> Result<JointType, Problem> {
    match text {
        "revolute" => Ok(JointType::Revolute),
        "continuous" => Ok(JointType::Continuous),
        "prismatic" => Ok(JointType::Prismatic),
        "fixed" => Ok(JointType::Fixed),
        "floating" => Ok(JointType::Floating),
        "planar" => Ok(JointType::Planar),
        other => Err(Problem::new(
            span,
            format!("unknown joint type `{other}` of joint `{joint}`"),
            "unknown joint type",
            "URDF joint types are revolute, continuous, prismatic, fixed, floating and planar",
        )),
    }
}

fn limit(element: Node, joint: &str) -> Result<Limit, Problem> {
    let mut limit = Limit::default();
    let mut upper_span = tag(element);
    for (slot, key) in [(&mut limit.lower, "lower"), (&mut limit.upper, "upper")] {
        if let Some((text, span)) = attribute(element, key) {
            *slot = Some(number(text, span, key)?);
            if key == "upper" {
                upper_span = span;
            }
        }
    }
    if let (Some(lower), Some(upper)) = (limit.lower, limit.upper) {
        if lower > upper {
            return Err(Problem::new(
                upper_span,
                format!(
                    "upper limit of joint `{joint}` is below its lower limit: {upper} < {lower}"
                ),
                "below `lower`",
                "limits are lower ≤ upper; check their order and signs",
            ));
        }
    }
    limit.effort = magnitude(element, "effort", joint)?;
    limit.velocity = magnitude(element, "velocity", joint)?;
    Ok(limit)
}

/// An optional non-negative attribute (effort, velocity, damping, friction).
fn magnitude(element: Node, key: &str, joint: &str) -> Result<Option<f64>, Problem> {
    let Some((text, span)) = attribute(element, key) else {
        return Ok(None);
    };
    let value = number(text, span, key)?;
    if value < 0.0 {
        return Err(Problem::new(
            span,
            format!("{key} of joint `{joint}` is negative: {value}"),
            "negative",
            format!("the {key} is a magnitude: give a value ≥ 0"),
        ));
    }
    Ok(Some(value))
}

/// An optional `<origin xyz rpy>` child; identity when absent.
fn origin(element: Node) -> Result<Placement, Problem> {
    let Some(origin) = child(element, "origin") else {
        return Ok(Placement::identity());
    };
    let read = |key: &str| match attribute(origin, key) {
        Some((text, span)) => vector(text, span, key),
        None => Ok([0.0; 3]),
    };
    Ok(Placement::from_xyz_rpy(read("xyz")?, read("rpy")?))
}

/// The first child element called `name`.
fn child<'a, 'input>(element: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    element
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// An attribute's value and the span of the value.
fn attribute<'a>(element: Node<'a, '_>, key: &str) -> Option<(&'a str, Span)> {
    element.attributes().find(|a| a.name() == key).map(|a| {
        let range = a.range_value();
        (a.value(), Span::new(range.start, range.end - range.start))
    })
}

fn required<'a>(element: Node<'a, '_>, key: &str, what: &str) -> Result<(&'a str, Span), Problem> {
    attribute(element, key).ok_or_else(|| {
        let name = element.tag_name().name();
        Problem::new(
            tag(element),
            format!("<{name}> has no `{key}` attribute"),
            format!("needs {key}=\"...\""),
            format!("add {key}=\"...\" to {what}"),
        )
    })
}

fn missing_element(element: Node, name: &str, what: &str) -> Problem {
    Problem::new(
        tag(element),
        format!("{what} has no <{name}>"),
        format!("needs a <{name}> element"),
        format!(
            "add the <{name}> element (see the URDF specification of <{}>)",
            element.tag_name().name()
        ),
    )
}

/// The `<name` of an element's start tag: where element-level problems are
/// underlined (the whole element may span many lines).
fn tag(element: Node) -> Span {
    Span::new(element.range().start, 1 + element.tag_name().name().len())
}

/// One finite number.
fn number(text: &str, span: Span, what: &str) -> Result<f64, Problem> {
    let value: f64 = text.trim().parse().map_err(|_| {
        Problem::new(
            span,
            format!("{what} must be a number, found `{text}`"),
            "not a number",
            if crate::input::is_xacro_expression(text) {
                crate::input::RUN_XACRO
            } else {
                "write a decimal number such as 0.25 or 1e-3"
            },
        )
    })?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Problem::new(
            span,
            format!("{what} must be finite, found `{text}`"),
            "not finite",
            "write a finite decimal number",
        ))
    }
}

/// Three numbers separated by spaces (`xyz`, `rpy`); a bad component is
/// reported at its own characters.
fn vector(text: &str, span: Span, what: &str) -> Result<Vec3, Problem> {
    let parts = words(text);
    let [x, y, z] = parts.as_slice() else {
        return Err(Problem::new(
            span,
            format!("{what} must be three numbers, found {}", parts.len()),
            "expected \"x y z\"",
            "write three numbers separated by spaces, e.g. \"0 0 1\"",
        ));
    };
    // Offsets into the decoded value are offsets into the file only if no
    // entity (`&#32;`) was decoded.
    let at = |(offset, word): (usize, &str)| {
        if text.len() == span.len {
            Span::new(span.offset + offset, word.len())
        } else {
            span
        }
    };
    Ok([
        number(x.1, at(*x), what)?,
        number(y.1, at(*y), what)?,
        number(z.1, at(*z), what)?,
    ])
}

/// The whitespace-separated words of `text` with their byte offsets.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                found.push((s, text.get(s..i).unwrap_or_default()));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    found
}

/// Rejects the second of two links (or joints) with the same name.
fn unique<'a>(
    text: &str,
    what: &str,
    names: impl Iterator<Item = (&'a str, Span)>,
) -> Result<(), Problem> {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for (name, span) in names {
        if let Some(first) = seen.insert(name, span) {
            let line = text
                .get(..first.offset)
                .map_or(0, |before| before.matches('\n').count() + 1);
            return Err(Problem::new(
                span,
                format!("duplicate {what} name `{name}`"),
                format!("`{name}` is already a {what} on line {line}"),
                format!("every {what} needs its own name; rename one of them"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{offset_of, RUN_XACRO};

    #[test]
    fn xacro_properties_without_xacro_elements_are_caught_at_the_value() {
        let used = "<robot name=\"r\"><link name=\"a\"><inertial><mass value=\"${m}\"/>\
                    <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>\
                    </inertial></link></robot>";
        let problem = read(used).map(|_| ()).expect_err("not a number");
        assert_eq!(problem.message, "the mass must be a number, found `${m}`");
        assert_eq!(problem.help, RUN_XACRO);
    }

    #[test]
    fn positions_convert_to_offsets() {
        let text = "ab\nπcd\n";
        assert_eq!(offset_of(text, 1, 1), 0);
        assert_eq!(offset_of(text, 2, 1), 3);
        assert_eq!(offset_of(text, 2, 2), 5);
        assert_eq!(offset_of(text, 9, 9), text.len());
    }

    #[test]
    fn words_keep_their_offsets() {
        assert_eq!(words(" 0  1.5\tx "), [(1, "0"), (4, "1.5"), (8, "x")]);
        assert_eq!(words(""), []);
    }

    #[test]
    fn reads_links_joints_and_defaults() {
        let text = r#"<robot name="r">
  <link name="a"/>
  <link name="b">
    <inertial>
      <origin xyz="0 0 0.5" rpy="0 0 1"/>
      <mass value="2"/>
      <inertia ixx="1" ixy="0.1" ixz="0.2" iyy="3" iyz="0.3" izz="4"/>
    </inertial>
    <visual><geometry><mesh filename="x.stl"/></geometry></visual>
  </link>
  <joint name="j" type="continuous">
    <parent link="a"/><child link="b"/>
    <limit effort="5" velocity="2"/>
  </joint>
  <transmission name="t"><joint name="j"/></transmission>
</robot>"#;
        let robot = read(text).unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(robot.name, "r");
        assert_eq!(robot.links.len(), 2);
        assert!(robot.links[0].inertial.is_none());
        let inertial = robot.links[1].inertial.as_ref().expect("inertial");
        assert_eq!(inertial.mass, 2.0);
        assert_eq!(inertial.origin.translation, [0.0, 0.0, 0.5]);
        assert_eq!(inertial.inertia[0], [1.0, 0.1, 0.2]);
        assert_eq!(inertial.inertia[2], [0.2, 0.3, 4.0]);
        assert_eq!(
            robot.joints.len(),
            1,
            "the transmission's <joint> is not a joint"
        );
        let joint = &robot.joints[0];
        assert_eq!(joint.kind, JointType::Continuous);
        assert_eq!(joint.axis, [1.0, 0.0, 0.0]);
        assert_eq!(joint.origin, Placement::identity());
        assert_eq!(
            joint.limit,
            Some(Limit {
                effort: Some(5.0),
                velocity: Some(2.0),
                ..Limit::default()
            })
        );
        assert_eq!(
            &text[joint.parent_span.offset..joint.parent_span.end()],
            "a"
        );
    }
}
