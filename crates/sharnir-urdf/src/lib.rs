//! URDF import: a robot description converted to the `.spec` format.
//!
//! Robots are usually published as URDF; sharnir compiles specs. [`convert`]
//! turns URDF text into spec **text** (readable, with a header naming the
//! URDF and every conversion choice) and parses that text with
//! `sharnir-spec`, so an imported robot goes through exactly the same
//! pipeline as a hand-written spec. Conversion choices are documented in
//! `docs/urdf.md`:
//!
//! - the root link is the ground (a fixed base); `continuous` joints are
//!   revolute joints; joint limits, damping and friction are carried over;
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
//! `merge` (fixed joints, masses), `inertia` and `geometry` (the numerics),
//! `emit` (spec text).

mod emit;
mod error;
mod geometry;
mod inertia;
mod merge;
mod read;
mod tree;

pub use error::UrdfError;

use error::Problem;
use sharnir_spec::{Source, Spec};

/// How to convert: the choices a user can make on the command line.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The mechanism (and generated module) name; by default the robot's
    /// name in lower snake case.
    pub name: Option<String>,
    /// Make the root link a free-floating base instead of the ground. Not
    /// supported yet: the spec format has no free joint, so this is an
    /// error that says so.
    pub floating: bool,
    /// Replace inertia tensors that no rigid body can have by the nearest
    /// physical ones instead of rejecting them (many published URDFs have a
    /// few); each replacement is reported in [`Conversion::warnings`] and in
    /// the spec header.
    pub fix_inertia: bool,
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
    if options.floating {
        let root = &robot.links[tree.root];
        return Err(Problem::new(
            root.span,
            format!(
                "a floating base (the root link `{}` moving freely) is not supported yet",
                root.name
            ),
            "the root link",
            "the spec format has no free joint yet; convert without --floating to fix this link \
             to the ground",
        ));
    }
    let model = merge::merge(&robot, &tree, options.fix_inertia)?;
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| mechanism_name(&robot.name));
    let mut flags = String::new();
    if let Some(name) = &options.name {
        flags.push_str(&format!(" --name {name}"));
    }
    if options.fix_inertia {
        flags.push_str(" --fix-inertia");
    }
    let text = emit::spec_text(&emit::Context {
        robot: &robot,
        tree: &tree,
        model: &model,
        source_name: &source.name,
        name: &name,
        flags: &flags,
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

    #[test]
    fn mechanism_names_are_snake_case_identifiers() {
        assert_eq!(mechanism_name("ur5"), "ur5");
        assert_eq!(mechanism_name("2dof_planar"), "robot_2dof_planar");
        assert_eq!(mechanism_name("FrankaPanda"), "franka_panda");
        assert_eq!(mechanism_name("my-robot v2"), "my_robot_v2");
        assert_eq!(mechanism_name("--"), "robot");
    }
}
