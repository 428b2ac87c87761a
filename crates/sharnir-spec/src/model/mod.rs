//! The typed, spanned description of a mechanism that [`parse`](crate::parse)
//! produces: what later stages consume instead of TOML.

use crate::error::SpecError;
use crate::expr::{evaluate_parameters, Expr};
use crate::source::{Source, Span};
use std::collections::BTreeMap;

mod body;
mod contact;
mod joint;
mod placement;

pub use body::{Body, Inertia, Shape, Visual};
pub use contact::{Clearance, ContactLaw, Gear, CONTACT_REACH};
pub use joint::{Detach, Joint, JointKind, Limits, Mimic, Release, DEFAULT_FRICTION_SPEED};
pub use placement::{ElementaryRotation, Origin};

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
    /// Whether `gen` also emits the folded twin (`<name>_folded`, the
    /// spec's parameter values compiled in) beside the runtime module:
    /// what `--fold` alone writes, kept for the specs whose folded code is
    /// tested or benchmarked.
    pub folded_twin: bool,
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
