//! The contacts of the spec: the contact law of stops, clearances and gear
//! meshes with backlash.

use crate::expr::Expr;
use crate::source::Span;

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
