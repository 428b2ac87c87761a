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
//! Inside: `input` (UTF-8, XML, not xacro), `read` (XML → links and
//! joints), `tree` (structure and order), `merge` (fixed joints), `lumping`
//! (masses, checked per moving body), `mimic` (coupled joints), `inertia`
//! and `geometry` (the numerics), `emit` (spec text).

mod emit;
mod error;
mod geometry;
mod inertia;
mod input;
mod lumping;
mod merge;
mod mimic;
mod model;
mod nesting;
mod read;
mod tree;
mod visual;

pub use error::UrdfError;
pub use input::decode;
pub use visual::{link_visuals, Geometry, LinkVisual};

/// The name of the free joint that attaches a floating base
/// ([`Options::floating`]) to the ground. It is Pinocchio's name for the
/// same joint, so that its coordinates (`root_joint_x` … `root_joint_qw`,
/// `root_joint_vx` … `root_joint_wz`) can be matched to Pinocchio's by name;
/// a URDF joint with this name is rejected when floating.
pub const FLOATING_BASE_JOINT: &str = model::FLOATING_BASE_JOINT;

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
    /// Replace the lumped inertia of a moving body that no rigid body can
    /// have (not positive definite, or `I₁ + I₂ < I₃`) by the nearest
    /// physical one instead of rejecting it: same principal axes, mass and
    /// centre of mass, moments raised to at least 1e-6 × the largest (at
    /// least 1e-12 kg·m²), then a triangle violation `v` removed by `v/3`
    /// on each moment. Bodies that pass the check are not touched, so this
    /// changes nothing for a URDF that converts without it. Each replacement
    /// is reported in [`Conversion::warnings`] and in the spec header.
    pub fix_inertia: bool,
    /// Make the position limits of revolute and prismatic joints stops
    /// (`limits` with a contact law, the generated `limit_forces`) instead
    /// of storing them only; the coefficients are [`StopDefaults`].
    pub stops: bool,
    /// Write every rpy angle as the URDF gives it. By default an angle
    /// within 1e-9 rad of a multiple of π/2 is written as that multiple, so
    /// that its sine and cosine are exactly 0 and ±1 and the products they
    /// would cost vanish: a change of model (the robot's right angles made
    /// exact) that moves the results by about the relative size of the
    /// rounding (Talos's forward dynamics by 2.6e-12 normwise; see
    /// docs/urdf.md). With this option the spec is the URDF as written, the
    /// model Pinocchio builds, at the price of those products.
    pub keep_angles: bool,
    /// Write `folded_twin = true` under `[mechanism]`, so that `gen` also
    /// emits the module with the parameter values compiled in: a choice of
    /// the repository's build, not of the robot.
    pub folded_twin: bool,
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
    if options.keep_angles {
        flags.push_str(" --keep-angles");
    }
    if options.folded_twin {
        flags.push_str(" --folded-twin");
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
        keep_angles: options.keep_angles,
        folded_twin: options.folded_twin,
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
            let (line, column) = source.line_column(lumping::inertia_span(&robot, fix.link).offset);
            format!(
                "{}:{line}:{column}: inertia of the moving body of link `{}` replaced by the \
                 nearest physical one (--fix-inertia): principal moments {} -> {}",
                source.name,
                robot.links[fix.body_link].name,
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
fn frames(robot: &read::Robot, model: &model::Model) -> Vec<Frame> {
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
mod tests;
