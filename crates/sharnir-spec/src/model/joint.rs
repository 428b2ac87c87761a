//! A joint of the spec: its kind, placement, coordinates, and what may
//! couple it to another joint, limit it or let it go.

use crate::expr::Expr;
use crate::source::Span;

use super::contact::{Clearance, ContactLaw, Gear};
use super::placement::Origin;

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
    /// releases, a payload that separates (see [`crate::Spec::release`]).
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
