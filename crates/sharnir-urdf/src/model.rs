//! The robot as spec bodies: what `merge` builds from links and joints,
//! `lumping` fills in with mass, `mimic` couples and `emit` writes. Every
//! step reads these types from here, so none depends on another's file for
//! them.

use crate::geometry::Placement;
use crate::inertia::MassProperties;

/// What attaches a body to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inboard {
    /// A moving URDF joint (index into `Robot::joints`).
    Joint(usize),
    /// The free joint `--floating` adds between the ground and the root link.
    FloatingBase,
}

/// A moving body of the spec: a link attached by a moving joint, with every
/// link fixed to it lumped in.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    /// The link that names the body. Its frame is the body frame, except
    /// behind a planar joint (see [`Owner::placement`]).
    pub link: usize,
    /// Its moving joint.
    pub inboard: Inboard,
    /// The body the joint's parent link belongs to (`None`: the ground).
    pub parent: Option<usize>,
    /// The joint frame in the parent body's frame (URDF origin composed
    /// through any fixed joints between the two).
    pub origin: Placement,
    /// Lumped mass properties in the body frame.
    pub mass: MassProperties,
    /// The fixed joints merged into this body, in depth-first order.
    pub merged: Vec<usize>,
}

/// Where a link ended up: in which body (`None`: the ground) and where.
#[derive(Clone, Debug)]
pub(crate) struct Owner {
    pub body: Option<usize>,
    /// The link frame in the body frame: the identity for a body's own link
    /// unless its joint is planar, whose joint (and body) frame is turned by
    /// [`Placement::z_onto`] the axis.
    pub placement: Placement,
}

/// The robot as spec bodies, in the depth-first joint order.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    /// Kept bodies, parents before children.
    pub bodies: Vec<Body>,
    /// The fixed joints merged into the ground.
    pub ground_merged: Vec<usize>,
    /// For every link, where it ended up (`None` for dropped links).
    pub owners: Vec<Option<Owner>>,
    /// Moving joints dropped with their massless leaf links.
    pub dropped: Vec<usize>,
    /// Inertias replaced by `--fix-inertia`.
    pub fixes: Vec<InertiaFix>,
}

/// The name of the free joint `--floating` adds: Pinocchio's name for the
/// joint of a floating base, so that coordinates compare by name.
pub(crate) const FLOATING_BASE_JOINT: &str = "root_joint";

impl Model {
    /// Whether the root link is a floating base (the first body, on the
    /// free joint `--floating` adds) rather than the ground.
    pub fn floating(&self) -> bool {
        self.bodies
            .first()
            .is_some_and(|b| b.inboard == Inboard::FloatingBase)
    }
}

/// A body inertia that `--fix-inertia` replaced.
#[derive(Clone, Debug)]
pub(crate) struct InertiaFix {
    /// The link the replacement is reported at
    /// ([`culprit`](crate::lumping::culprit)).
    pub link: usize,
    /// The link that names the body.
    pub body_link: usize,
    /// Principal moments of the lumped inertia before and after, ascending.
    pub before: [f64; 3],
    pub after: [f64; 3],
}
