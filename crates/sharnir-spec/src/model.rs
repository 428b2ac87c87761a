//! The typed, spanned description of a mechanism that [`parse`](crate::parse)
//! produces: what later stages consume instead of TOML.

use crate::error::SpecError;
use crate::expr::{evaluate_parameters, Expr};
use crate::source::{Source, Span};
use std::collections::BTreeMap;

/// A parsed and validated mechanism: everything that can be checked without
/// building the mechanism graph has been checked.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Module name of the generated code (a lower snake case Rust identifier).
    pub name: String,
    /// Free text copied into the generated module's header.
    pub description: Option<String>,
    /// The text the spec was parsed from, so later stages can report errors
    /// against it.
    pub source: Source,
    /// Gravitational acceleration in the ground frame, m/s².
    pub gravity: [Expr; 3],
    /// Whether `cargo xtask gen --all` also emits a single-precision twin
    /// (`<name>_f32`, `Real = f32`) for 32-bit floating-point units.
    pub single_precision: bool,
    /// Whether `cargo xtask gen --all` also emits a fused multiply–add twin
    /// (`<name>_fma`, sums of products through `libm`'s `fma`) for
    /// floating-point units with a fused multiply–add instruction.
    pub fused_multiply_add: bool,
    /// The standard functions the generated module has (`outputs`, the
    /// names of [`OUTPUT_NAMES`](crate::OUTPUT_NAMES), `all` or `linear`,
    /// checked), as `sharnir gen --outputs` would ask; `None` leaves the
    /// choice to `gen`'s automatic rule for big mechanisms.
    pub outputs: Option<Vec<String>>,
    /// Parameters in spec order, which is the field order of the generated
    /// `Params`.
    pub parameters: Vec<Parameter>,
    /// Moving bodies in spec order (`ground` is implicit).
    pub bodies: Vec<Body>,
    /// Joints in spec order, which is the order of the coordinates.
    pub joints: Vec<Joint>,
    /// The state a simulation starts from (`[initial]`), in the order of
    /// the position coordinates: zeros and identity quaternions unless the
    /// spec says otherwise, evaluated at the parameters' values.
    pub initial_positions: Vec<f64>,
    /// The initial velocities (`[initial]`), in the order of the velocity
    /// coordinates; zeros unless the spec says otherwise.
    pub initial_velocities: Vec<f64>,
    /// Applied joint forces (`[forces]`), in spec order; empty when the
    /// spec has none, and then the module has no `applied_forces`.
    pub forces: Vec<AppliedForce>,
    /// Prescribed coordinates (`[motion]`), in spec order; empty when every
    /// coordinate moves under the forces.
    pub motion: Vec<PrescribedMotion>,
    /// The massless bodies of a moving base's chain (`[base]`; each named
    /// after its coordinate, `base_x` … `base_roll`), in chain order: the
    /// only bodies whose mass and inertia are zero. Empty for a fixed base.
    pub moving_base: Vec<String>,
    /// The joints this spec's mechanism has already let go of, in the order
    /// of the spec it was derived from (see [`Spec::release`]); empty for
    /// a spec read from a file.
    pub released: Vec<String>,
    /// The velocity coordinates that parametrise a mechanism with loops
    /// (`independent` under `[mechanism]`): the actuated joints of a
    /// parallel robot, held by assembly and driven by the constrained
    /// inverse dynamics. Empty when the spec names none.
    pub independent: Vec<Independent>,
}

/// One name of `independent = [...]`: a velocity coordinate of a tree joint.
#[derive(Clone, Debug)]
pub struct Independent {
    /// The velocity coordinate's name.
    pub name: String,
    /// The span of the name in the array.
    pub span: Span,
}

/// One entry of `[forces]`: the generalized force on a velocity coordinate
/// as an expression of parameters, time, positions and velocities, so that
/// springs, dampers and drive profiles are compiled into the module instead
/// of written by hand around it.
#[derive(Clone, Debug)]
pub struct AppliedForce {
    /// The velocity coordinate the force acts on.
    pub coordinate: String,
    /// The span of the key.
    pub span: Span,
    /// The force; its names are parameters, [`AppliedForce::TIME`],
    /// position coordinates, and velocity coordinates with
    /// [`AppliedForce::RATE_SUFFIX`].
    pub value: Expr,
}

/// One entry of `[motion]`: a velocity coordinate driven along a known law
/// of time, as an electric drive or a cam would drive it. The compiler
/// differentiates the law for its rate and acceleration; the module's
/// `mixed_dynamics` then gives the other coordinates' accelerations and the
/// force the drive must supply.
#[derive(Clone, Debug)]
pub struct PrescribedMotion {
    /// The velocity coordinate the law drives (of a revolute, prismatic or
    /// other joint whose positions' rates are its velocities).
    pub coordinate: String,
    /// The span of the key.
    pub span: Span,
    /// The law: an expression of parameters and [`AppliedForce::TIME`].
    pub law: Expr,
}

impl AppliedForce {
    /// The name of time in force expressions.
    pub const TIME: &'static str = "t";
    /// The suffix that makes a velocity coordinate's name stand for its
    /// value (`theta1_dot`).
    pub const RATE_SUFFIX: &'static str = "_dot";
}

impl Spec {
    /// A diagnostic at `span` of this spec's source: message, label at the
    /// span, help text. Lets later stages (the mechanism graph) report
    /// problems in the same form as the parser.
    pub fn error_at(
        &self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> SpecError {
        SpecError::new(&self.source, span, message, label, help)
    }

    /// Every parameter (numbers and derived ones) evaluated, by name: the
    /// values numeric oracles and reports use. For a spec returned by
    /// [`parse`](crate::parse) every parameter is present; a hand-built spec
    /// whose definitions cannot be evaluated gets only those evaluated before
    /// the first failure.
    pub fn parameter_values(&self) -> BTreeMap<String, f64> {
        evaluate_parameters(&self.parameters).0
    }

    /// The names of the position and of the velocity coordinates, in
    /// coordinate order: what `[initial]`, `[forces]` and `[motion]` name.
    pub fn coordinate_names(&self) -> (Vec<String>, Vec<String>) {
        let positions = self.joints.iter().flat_map(Joint::position_names).collect();
        let velocities = self.joints.iter().flat_map(Joint::velocity_names).collect();
        (positions, velocities)
    }

    /// Per joint, in spec order, the indices in `q` and in `q̇` of its first
    /// coordinate (where its coordinates would start for a joint without
    /// any): the offsets every derivation reads coordinates at.
    pub fn first_coordinates(&self) -> Vec<(usize, usize)> {
        let mut next = (0, 0);
        self.joints
            .iter()
            .map(|joint| {
                let first = next;
                next = (next.0 + joint.nq(), next.1 + joint.nv());
                first
            })
            .collect()
    }

    /// The index in `q` of the first component (`qx`) of every unit
    /// quaternion (spherical and free joints), which integration must keep
    /// unit.
    pub fn quaternion_starts(&self) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut offset = 0;
        for joint in &self.joints {
            if !joint.coordinateless() {
                match joint.kind {
                    JointKind::Spherical => starts.push(offset),
                    JointKind::Free => starts.push(offset + 3),
                    _ => {}
                }
            }
            offset += joint.nq();
        }
        starts
    }
}

/// A named value the generated code can read at run time (or fold).
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Its name: a field of the generated `Params`.
    pub name: String,
    /// The span of the name (the TOML key).
    pub span: Span,
    /// A number or a definition in terms of other parameters.
    pub value: ParameterValue,
}

/// What a parameter is: a runtime input or a shorthand for an expression.
#[derive(Clone, Debug)]
pub enum ParameterValue {
    /// A runtime parameter with this default.
    Number(f64),
    /// A derived parameter: an expression over other parameters.
    Derived(Expr),
}

/// A moving rigid body with its mass properties.
#[derive(Clone, Debug)]
pub struct Body {
    /// Its name, referenced by joints.
    pub name: String,
    /// The span of the name value.
    pub span: Span,
    /// Mass, kg.
    pub mass: Expr,
    /// Centre of mass in the body frame, m.
    pub com: [Expr; 3],
    /// Inertia tensor about the centre of mass in body axes, kg·m².
    pub inertia: Inertia,
    /// The shapes an animation draws for the body (`visual`); none draws
    /// the default shapes (`docs/animation.md`). They do not enter the
    /// dynamics.
    pub visuals: Vec<Visual>,
}

/// One shape drawn for a body, placed in the body frame.
#[derive(Clone, Debug)]
pub struct Visual {
    /// What is drawn.
    pub shape: Shape,
    /// A mesh's scale along its own x, y, z (`None`: 1).
    pub scale: Option<[Expr; 3]>,
    /// Where the shape's own frame is in the body frame (`origin`, the keys
    /// of a joint's).
    pub origin: Origin,
    /// Red, green, blue from 0 to 1 (`None`: the page's default for the
    /// body).
    pub color: Option<[f64; 3]>,
    /// The span of the shape's key, where problems with it are reported.
    pub span: Span,
}

/// A visual's geometry, in its own frame: boxes, spheres and ellipsoids
/// centred on the origin, cylinders and capsules along z.
#[derive(Clone, Debug)]
pub enum Shape {
    /// Edge lengths along x, y, z, m.
    Box([Expr; 3]),
    /// A cylinder along z, centred on the origin, m.
    Cylinder {
        /// Radius.
        radius: Expr,
        /// Length along z.
        length: Expr,
    },
    /// A sphere of this radius, m.
    Sphere(Expr),
    /// A cylinder along z with hemispherical ends, m.
    Capsule {
        /// Radius of the cylinder and of the ends.
        radius: Expr,
        /// Length of the cylindrical part.
        length: Expr,
    },
    /// A triangle mesh (binary or ASCII STL), the path relative to the
    /// spec's directory.
    Mesh {
        /// The file, as written.
        path: String,
    },
}

/// The six independent entries of a symmetric inertia tensor; the products
/// are the off-diagonal tensor entries themselves (URDF convention).
#[derive(Clone, Debug)]
pub struct Inertia {
    /// Moment about x.
    pub xx: Expr,
    /// Moment about y.
    pub yy: Expr,
    /// Moment about z.
    pub zz: Expr,
    /// Tensor entry (x, y).
    pub xy: Expr,
    /// Tensor entry (x, z).
    pub xz: Expr,
    /// Tensor entry (y, z).
    pub yz: Expr,
    /// The span of the whole inertia value, where tensor-level problems are
    /// reported.
    pub span: Span,
}

/// A joint between a parent and a child body and the coordinates it adds.
#[derive(Clone, Debug)]
pub struct Joint {
    /// Its name.
    pub name: String,
    /// The span of the name value.
    pub span: Span,
    /// The name of its coordinate (the joint name unless given); a joint with
    /// several coordinates names them with suffixes (see
    /// [`Joint::velocity_names`]).
    pub coordinate: String,
    /// The span of the coordinate value (the name's span when defaulted).
    pub coordinate_span: Span,
    /// The motion it allows.
    pub kind: JointKind,
    /// Parent body name, or `ground`.
    pub parent: String,
    /// The span of the parent value.
    pub parent_span: Span,
    /// Child body name.
    pub child: String,
    /// The span of the child value.
    pub child_span: Span,
    /// Unit joint axis in the joint frame; `[0, 0, 1]` for the types without
    /// one (see [`JointKind::has_axis`]).
    pub axis: [f64; 3],
    /// The universal joint's second unit axis, in the frame after the first
    /// rotation; `None` for every other type.
    pub axis2: Option<[f64; 3]>,
    /// The span of the axis value.
    pub axis_span: Span,
    /// Placement of the joint frame in the parent frame.
    pub origin: Origin,
    /// Placement of the joint frame in the child body's frame (`child_origin`),
    /// when the child's frame is not at the joint: always where a joint closes
    /// a loop, since both of its bodies have their own frames. `None` is the
    /// identity.
    pub child_origin: Option<Origin>,
    /// Whether this joint is a cut joint: left out of the spanning tree and
    /// enforced by loop-closure constraints, with no coordinates of its own.
    /// Set by validation for the joints the spec marks (`cut = true`) and
    /// for those the spanning tree leaves out.
    pub cut: bool,
    /// The span of `cut = true`, when the spec marks the joint.
    pub cut_mark: Option<Span>,
    /// Position, force and speed limits. The bounds become stops (the
    /// generated `limit_forces`) when the limits give a contact law; the
    /// rest is stored for controllers.
    pub limits: Option<Limits>,
    /// Viscous damping coefficient (N·m·s/rad or N·s/m): a force `−c ẋ` on
    /// every velocity coordinate of the joint (the generated
    /// `friction_forces`).
    pub damping: Option<Expr>,
    /// Dry (Coulomb) friction (N·m or N): a force of this magnitude against
    /// the motion, regularised below [`Joint::friction_speed`] (the
    /// generated `friction_forces`).
    pub friction: Option<Expr>,
    /// The speed (rad/s or m/s) below which dry friction is regularised:
    /// `F = −F_c ẋ / √(ẋ² + v²)`; [`DEFAULT_FRICTION_SPEED`] when not given.
    pub friction_speed: Option<Expr>,
    /// Rotor inertia reflected to the joint (kg·m² on a rotation, kg on a
    /// translation), Pinocchio's `model.armature`: `M += diag(armature)` on
    /// the joint's velocity coordinates. Empty when not given, one value for
    /// every coordinate of the joint, or one per coordinate in order.
    pub armature: Vec<Expr>,
    /// A circular clearance of a planar joint: a pin in an oversized hole.
    pub clearance: Option<Clearance>,
    /// A gear mesh with backlash to another joint.
    pub gear: Option<Gear>,
    /// When set, the joint has no coordinate of its own: it follows another
    /// joint (URDF's `<mimic>`, a gear or a symmetric gripper).
    pub mimic: Option<Mimic>,
    /// When set, the joint lets go during a simulation: a latch that
    /// releases, a payload that separates (see [`Spec::release`]).
    pub detach: Option<Detach>,
}

/// When a detachable joint lets go. The mechanism then continues without
/// it, in a variant module generated ahead of time.
#[derive(Clone, Debug)]
pub struct Detach {
    /// The condition that releases the joint.
    pub release: Release,
    /// The span of the whole `detach` value.
    pub span: Span,
}

/// The condition of a [`Detach`]: a time, or a component of the joint's
/// reaction crossing a threshold.
#[derive(Clone, Debug)]
pub enum Release {
    /// At this time (s) after the start of the simulation.
    At(Expr),
    /// When a component of the reaction crosses a threshold.
    Reaction {
        /// Which component: 0–2 the force, 3–5 the moment (see
        /// [`Release::COMPONENTS`]).
        component: usize,
        /// The threshold (N or N·m).
        threshold: Expr,
        /// `true` when the joint releases as the component rises through
        /// the threshold (`above`), `false` as it falls through it
        /// (`below`).
        rising: bool,
    },
}

impl Release {
    /// The names of the reaction's components in a spec: the force the
    /// parent exerts on the child and its moment about the joint frame's
    /// origin, both in the joint frame on the child's side.
    pub const COMPONENTS: [&'static str; 6] = ["fx", "fy", "fz", "mx", "my", "mz"];

    /// The condition's number: the time, or the threshold.
    pub fn value(&self) -> &Expr {
        match self {
            Release::At(time) => time,
            Release::Reaction { threshold, .. } => threshold,
        }
    }
}

/// A joint driven by another one: `q = multiplier · q_leader + offset`.
///
/// Gears, belt drives and parallel grippers move two joints with one motor.
/// Modelling the follower as a coupled coordinate instead of a free one keeps
/// the equations in the true degrees of freedom; its joint force acts on the
/// leader's coordinate, scaled by `multiplier` (virtual work).
#[derive(Clone, Debug)]
pub struct Mimic {
    /// The leader joint's name: a revolute or prismatic joint that is not
    /// itself a follower.
    pub joint: String,
    /// The span of the leader's name.
    pub joint_span: Span,
    /// Ratio of the follower's motion to the leader's (1 when not given).
    pub multiplier: Expr,
    /// Follower coordinate when the leader's is zero, rad or m (0 when not
    /// given).
    pub offset: Expr,
    /// The span of the whole `mimic` value.
    pub span: Span,
}

/// The regularisation speed of dry friction when a joint gives none (rad/s
/// or m/s): small against the speeds of a moving mechanism, large enough
/// that an adaptive integrator does not crawl through every reversal.
pub const DEFAULT_FRICTION_SPEED: f64 = 1e-3;

/// Where the contact law is dropped: `a·g` beyond which `e^{−a g}` is below
/// `1e-12` (`e^{−27.7} ≈ 9.3e-13`). The emitted law skips a contact there,
/// and a clearance must be wide enough that its contact does not reach the
/// hole's centre.
pub const CONTACT_REACH: f64 = 27.7;

/// The contact law of a stop, a clearance or a gear mesh (the
/// joint-coordinate package's law for non-holding constraints): on a gap
/// `g` (positive while the surfaces are apart) the contact pushes the gap
/// open with `F = max(0, k − μ ġ) · e^{−a g}`: a stiffness `k` that decays
/// with the gap at the rate `a`, and a dissipation `μ` that acts only while
/// the surfaces approach (it never pulls).
#[derive(Clone, Debug)]
pub struct ContactLaw {
    /// `k`, the force at zero gap and zero speed (N·m or N).
    pub stiffness: Expr,
    /// `μ`, the dissipation (N·m·s/rad or N·s/m); zero when not given.
    pub dissipation: Expr,
    /// `a`, how fast the force decays with the gap (1/rad or 1/m).
    pub decay: Expr,
    /// The span of the table that gives the law.
    pub span: Span,
}

/// A pin in an oversized hole: a planar joint whose translation is free
/// inside a circle of `radius` around the joint frame's origin and meets
/// the contact law on its boundary.
#[derive(Clone, Debug)]
pub struct Clearance {
    /// Radial clearance (m): the hole's radius less the pin's.
    pub radius: Expr,
    /// The contact law on the boundary.
    pub law: ContactLaw,
    /// The span of the whole `clearance` value.
    pub span: Span,
}

/// A gear mesh with backlash: the joint keeps its own coordinate `x`, and
/// the mesh holds `s = x − (ratio · x_leader + offset)` inside
/// `[−backlash/2, backlash/2]` by the contact law on both flanks.
#[derive(Clone, Debug)]
pub struct Gear {
    /// The driving joint: revolute or prismatic, with a coordinate.
    pub joint: String,
    /// The span of the driving joint's name.
    pub joint_span: Span,
    /// Ratio of this joint's motion to the driver's (1 when not given).
    pub ratio: Expr,
    /// This joint's coordinate at the mesh's centre when the driver's is
    /// zero (0 when not given).
    pub offset: Expr,
    /// The total play of the mesh (rad or m), not negative.
    pub backlash: Expr,
    /// The contact law on the flanks.
    pub law: ContactLaw,
    /// The span of the whole `gear` value.
    pub span: Span,
}

/// A joint's limits as URDF states them, each optional, so that models
/// imported from URDF keep what the runtime will need to clamp commands and
/// states.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Lowest coordinate value (rad or m).
    pub lower: Option<Expr>,
    /// Highest coordinate value (rad or m); not below `lower`.
    pub upper: Option<Expr>,
    /// Largest joint force magnitude (N·m or N); not negative.
    pub effort: Option<Expr>,
    /// Largest coordinate rate magnitude (rad/s or m/s); not negative.
    pub velocity: Option<Expr>,
    /// The contact law that makes the bounds stops; `None` keeps them
    /// stored only.
    pub stops: Option<ContactLaw>,
    /// The span of the whole `limits` value.
    pub span: Span,
}

/// The joint types of the format. Each moves the body frame relative to the
/// joint frame; [`JointKind::nq`] and [`JointKind::nv`] give its numbers of
/// position and velocity coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation by q about `axis`.
    Revolute,
    /// Translation by q along `axis`.
    Prismatic,
    /// Translation along and rotation about the same `axis`:
    /// q = [slide, angle].
    Cylindrical,
    /// Rotation by q₁ about `axis`, then by q₂ about `axis2` (given in the
    /// frame after the first rotation); the axes intersect at the origin.
    Universal,
    /// Any rotation about the origin: q a unit quaternion `[x, y, z, w]`,
    /// velocity the angular velocity in the body frame.
    Spherical,
    /// Motion in the joint frame's x–y plane: q = [x, y, angle about z].
    Planar,
    /// Unconstrained motion (a floating base): q = [x, y, z] of the body
    /// origin in the joint frame and a unit quaternion `[x, y, z, w]`;
    /// velocity = [linear, angular], both in the body frame (Pinocchio's
    /// convention).
    Free,
    /// No motion: the child is rigidly attached to the parent.
    Fixed,
}

impl JointKind {
    /// Every type with its spelling in a spec.
    pub const ALL: [(JointKind, &'static str); 8] = [
        (JointKind::Revolute, "revolute"),
        (JointKind::Prismatic, "prismatic"),
        (JointKind::Cylindrical, "cylindrical"),
        (JointKind::Universal, "universal"),
        (JointKind::Spherical, "spherical"),
        (JointKind::Planar, "planar"),
        (JointKind::Free, "free"),
        (JointKind::Fixed, "fixed"),
    ];

    /// The spelling in a spec.
    pub fn name(self) -> &'static str {
        JointKind::ALL
            .iter()
            .find(|(kind, _)| *kind == self)
            .map_or("revolute", |(_, name)| name)
    }

    /// Number of position coordinates.
    pub fn nq(self) -> usize {
        self.position_suffixes().len()
    }

    /// Number of velocity coordinates.
    pub fn nv(self) -> usize {
        self.velocity_suffixes().len()
    }

    /// Whether the type needs `axis`.
    pub fn has_axis(self) -> bool {
        matches!(
            self,
            JointKind::Revolute
                | JointKind::Prismatic
                | JointKind::Cylindrical
                | JointKind::Universal
        )
    }

    /// Suffixes appended to the coordinate name to name the position
    /// coordinates; `""` means the bare name.
    pub fn position_suffixes(self) -> &'static [&'static str] {
        match self {
            JointKind::Spherical => &["_qx", "_qy", "_qz", "_qw"],
            JointKind::Free => &["_x", "_y", "_z", "_qx", "_qy", "_qz", "_qw"],
            other => other.velocity_suffixes(),
        }
    }

    /// Suffixes appended to the coordinate name to name the velocity
    /// coordinates; `""` means the bare name.
    pub fn velocity_suffixes(self) -> &'static [&'static str] {
        match self {
            JointKind::Revolute | JointKind::Prismatic => &[""],
            JointKind::Cylindrical => &["_slide", "_angle"],
            JointKind::Universal => &["_1", "_2"],
            JointKind::Spherical => &["_wx", "_wy", "_wz"],
            JointKind::Planar => &["_x", "_y", "_angle"],
            JointKind::Free => &["_vx", "_vy", "_vz", "_wx", "_wy", "_wz"],
            JointKind::Fixed => &[],
        }
    }
}

impl Joint {
    /// A joint the compiler writes itself (a released body's free joint, a
    /// moving base's chain): `kind` about `axis` from `parent` to `child`
    /// at the parent's frame, its coordinate named `coordinate`, with no
    /// limits, drives or other options, every span `span`.
    pub(crate) fn written(
        name: &str,
        kind: JointKind,
        axis: [f64; 3],
        (parent, child): (&str, &str),
        coordinate: &str,
        span: Span,
    ) -> Joint {
        let zero = || Expr::number(0.0, span);
        Joint {
            name: name.to_owned(),
            span,
            coordinate: coordinate.to_owned(),
            coordinate_span: span,
            kind,
            parent: parent.to_owned(),
            parent_span: span,
            child: child.to_owned(),
            child_span: span,
            axis,
            axis2: None,
            axis_span: span,
            origin: Origin {
                translation: [zero(), zero(), zero()],
                rotation: Vec::new(),
            },
            child_origin: None,
            cut: false,
            cut_mark: None,
            limits: None,
            damping: None,
            friction: None,
            friction_speed: None,
            armature: Vec::new(),
            clearance: None,
            gear: None,
            mimic: None,
            detach: None,
        }
    }

    /// Whether `name` is one of the names this joint's type would give its
    /// position or velocity coordinates, whether or not it has them: what
    /// tells a user naming a follower's or cut joint's coordinate why it
    /// does not exist.
    pub fn spells_coordinate(&self, name: &str) -> bool {
        let suffixes = self.kind.position_suffixes().iter();
        suffixes
            .chain(self.kind.velocity_suffixes())
            .any(|suffix| name.strip_prefix(self.coordinate.as_str()) == Some(suffix))
    }

    /// Whether the joint has no coordinates of its own: a follower or a cut
    /// joint.
    pub fn coordinateless(&self) -> bool {
        self.mimic.is_some() || self.cut
    }

    /// Number of position coordinates this joint adds to `q`: none for a
    /// follower or a cut joint.
    pub fn nq(&self) -> usize {
        if self.coordinateless() {
            0
        } else {
            self.kind.nq()
        }
    }

    /// Number of velocity coordinates (degrees of freedom) this joint adds:
    /// none for a follower or a cut joint.
    pub fn nv(&self) -> usize {
        if self.coordinateless() {
            0
        } else {
            self.kind.nv()
        }
    }

    /// Names of this joint's position coordinates, in order (none for a
    /// follower or a cut joint).
    pub fn position_names(&self) -> Vec<String> {
        if self.coordinateless() {
            return Vec::new();
        }
        self.kind
            .position_suffixes()
            .iter()
            .map(|suffix| format!("{}{suffix}", self.coordinate))
            .collect()
    }

    /// Names of this joint's velocity coordinates, in order (none for a
    /// follower or a cut joint).
    pub fn velocity_names(&self) -> Vec<String> {
        if self.coordinateless() {
            return Vec::new();
        }
        self.kind
            .velocity_suffixes()
            .iter()
            .map(|suffix| format!("{}{suffix}", self.coordinate))
            .collect()
    }
}

/// Placement of a joint frame in its parent frame:
/// `p_parent = translation + R · p_joint`, `R` the product of `rotation`.
#[derive(Clone, Debug)]
pub struct Origin {
    /// Joint-frame origin in the parent frame, m.
    pub translation: [Expr; 3],
    /// Rotations multiplied in order (about the moving axes); empty is the
    /// identity.
    pub rotation: Vec<ElementaryRotation>,
}

/// One factor of a placement rotation, kept in the form the user wrote so
/// that exact angles (`pi/2`) stay exact downstream.
// The matrix variant is large, but rotations are few and the unboxed form
// is the documented API that consumers match on.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum ElementaryRotation {
    /// Rotation about x by the angle, radians.
    X(Expr),
    /// Rotation about y by the angle, radians.
    Y(Expr),
    /// Rotation about z by the angle, radians.
    Z(Expr),
    /// Rotation by `angle` about a unit axis.
    AxisAngle {
        /// Unit axis.
        axis: [f64; 3],
        /// Angle, radians.
        angle: Expr,
    },
    /// A rotation matrix given by rows (validated to be a rotation).
    Matrix([[Expr; 3]; 3]),
}
