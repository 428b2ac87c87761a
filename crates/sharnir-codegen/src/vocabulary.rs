//! The words planning and rendering share: a function's arguments and
//! result [`Shape`], the [`FunctionSpec`] a plan lowers, the facts of the
//! mechanism a module prints ([`Facts`], [`LoopFacts`], [`ContactFacts`],
//! [`HeaderFacts`]) and the [`GeneratedModule`] that comes out.
//!
//! The ground floor of the crate: it names no other file of it, so the
//! planning stage and every renderer read it without reading each other.

use sharnir_cas::{Id, OpCount};
use sharnir_mech::model::detachment::Detachment;
use sharnir_mech::model::loops::Mobility;
use std::collections::HashMap;

/// An argument of a generated function after `p: &Params`; each is a
/// fixed-size array read by constant indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    /// `q: &[Real; NQ]`, joint positions.
    Position,
    /// `qd: &[Real; NV]`, joint velocities.
    Velocity,
    /// `qdd: &[Real; NV]`, joint accelerations.
    Acceleration,
    /// `tau: &[Real; NV]`, joint forces.
    Force,
    /// `t: Real`, time (read by the applied forces of `[forces]`).
    Time,
    /// `lambda: &[Real; NC]`, the multipliers of the loop-closure
    /// constraints.
    Multipliers,
    /// `beta: &[Real; NBP]`, the base parameters (an identified `β`, or
    /// `base_parameters(p)`).
    BaseParameters,
}

/// The Rust type a function returns, filled from its outputs in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `[Real; NV]`: one entry per velocity coordinate.
    JointVector,
    /// `[Real; NQ]`: one entry per position coordinate.
    PositionVector,
    /// `[[Real; NV]; NV]`, row-major.
    JointMatrix,
    /// `([[Real; NV]; NV], [[Real; NV]; NV])`: two joint matrices, each
    /// row-major, the first's entries first.
    JointMatrixPair,
    /// `([[Real; NV]; NV], [[Real; NV]; NV], [[Real; NV]; NV])`: three
    /// joint matrices, likewise.
    JointMatrixTriple,
    /// `[[Real; 10 * NB]; NV]`, row-major: one row per velocity coordinate,
    /// ten columns per body.
    Regressor,
    /// `[[Real; 10 * NB + ND]; NV]`: [`Shape::Regressor`] with a column per
    /// drive parameter after the bodies'.
    DriveRegressor,
    /// `[Real; NBP]`: one entry per base parameter.
    BaseParameters,
    /// `[[Real; NBP]; NV]`, row-major: one row per velocity coordinate,
    /// one column per base parameter.
    BaseRegressor,
    /// `(JointMatrix, JointMatrix, ConstraintMatrix, ConstraintMatrix)`:
    /// two `NV × NV` then two `NC × NV` matrices, each row-major.
    ResidualDerivatives,
    /// `(Real, Real)`.
    Pair,
    /// `([Real; NP], [Real; NP], [Real; NP])`: the prescribed coordinates'
    /// positions, rates and accelerations, in the order of `PRESCRIBED`.
    Motion,
    /// `([Real; NV], [Real; NP])`: every acceleration, then the drive force
    /// of every prescribed coordinate.
    MixedDynamics,
    /// `[Pose; NB]`: per body, 9 rotation entries (row-major) then 3
    /// position entries.
    Poses,
    /// `[[[Real; NV]; 6]; NB]`: per body, six rows of NV entries.
    BodyJacobians,
    /// `JointSpace`: the mass matrix (row-major), then the bias, then the
    /// gravity forces.
    JointSpace,
    /// `[Real; NC]`: one entry per loop-closure constraint.
    ConstraintVector,
    /// `[[Real; NV]; NC]`, row-major: one row per constraint.
    ConstraintJacobian,
    /// `[[Real; 6]; N_CUT]`: per cut joint, force then moment.
    Reactions,
    /// `[Real; N_CONTACTS]`: one entry per contact.
    ContactVector,
    /// `[[Real; 6]; N_DETACHABLE]`: per detachable joint, force then
    /// moment.
    JointReactions,
    /// `[Real; NV]` from the contact law written around the outputs (per
    /// contact: gap, gap rate, stiffness, dissipation, decay, then the
    /// gradient weights that are not signs; see `contacts.rs`).
    LimitForces,
}

/// A function to plan: its name, arguments, doc text and outputs.
#[derive(Clone, Debug)]
pub(crate) struct FunctionSpec {
    /// Rust name, e.g. `inverse_dynamics`.
    pub name: String,
    /// Doc comment for the emitted function.
    pub doc: String,
    /// Arguments after `p: &Params`, in order.
    pub arguments: Vec<Argument>,
    /// The returned type.
    pub shape: Shape,
    /// Every entry of the result in order (row-major for matrices), as
    /// expressions in `mechanism.pool`.
    pub outputs: Vec<Id>,
}

/// The text of a generated module and what it costs to run.
#[derive(Clone, Debug)]
pub struct GeneratedModule {
    /// Module name (the file is `<name>.rs`).
    pub name: String,
    /// Formatted Rust source.
    pub source: String,
    /// Operation count of every function, in emission order.
    pub op_counts: Vec<(String, OpCount)>,
    /// The loops of a mechanism with cut joints; `None` for a tree.
    pub(crate) loops: Option<LoopFacts>,
}

impl GeneratedModule {
    /// The loops of a module of a mechanism with cut joints (`None` for a
    /// tree).
    pub fn loops(&self) -> Option<&LoopFacts> {
        self.loops.as_ref()
    }
}

/// What the preamble and the result shapes read from the mechanism.
#[derive(Debug)]
pub(crate) struct Facts {
    pub(crate) dof: usize,
    pub(crate) nq: usize,
    pub(crate) coordinates: Vec<String>,
    pub(crate) positions: Vec<String>,
    pub(crate) quaternions: Vec<usize>,
    pub(crate) initial_positions: Vec<f64>,
    pub(crate) initial_velocities: Vec<f64>,
    pub(crate) body_names: Vec<String>,
    /// The drive parameters (`<joint>.armature`, …) after the bodies' in
    /// `standard_regressor`, where the module has it; empty otherwise.
    pub(crate) drive_parameters: Vec<String>,
    /// Runtime parameters: name and spec value.
    pub(crate) parameters: Vec<(String, f64)>,
    /// The loops' constants; `None` for a tree, whose module has none.
    pub(crate) loops: Option<LoopFacts>,
    /// The joints' contacts, in the order of `CONTACT_NAMES`.
    pub(crate) contacts: Vec<ContactFacts>,
    /// Whether any joint applies a force of its own (a contact, damping or
    /// friction).
    pub(crate) joint_forces: bool,
    /// The joints that let go, in the order of `DETACHMENTS`.
    pub(crate) detachments: Vec<Detachment>,
    /// The joints whose orientation is a quaternion, in velocity order.
    pub(crate) rotations: Vec<Rotation>,
    /// Whether the spec has `[forces]`.
    pub(crate) applied_forces: bool,
    /// The coordinates `[motion]` prescribes: `(velocity, position)`
    /// indices, in its order.
    pub(crate) prescribed: Vec<(usize, usize)>,
    /// The base parameters, where the module has `base_parameters` or
    /// `regressor`.
    pub(crate) base_parameters: Option<BaseParameterFacts>,
    /// Renamings of one isomorphic branch's inputs to another's, under
    /// which the functions' statements may pair (`plan/branches.rs`,
    /// `render/lanes.rs`); empty where the tree has no such branches.
    pub(crate) branch_renamings: Vec<HashMap<sharnir_mech::Input, sharnir_mech::Input>>,
}

/// The base parameters of a module: what `NBP`, `BASE_PARAMETER_NAMES` and
/// the header's regrouping formulas print, and what `sharnir
/// base-parameters` and the tests read.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseParameterFacts {
    /// The standard parameters (`<body>.<m, mx, …>`, then the drive
    /// parameters `<joint>.armature`, …), in the order of
    /// `standard_regressor`'s columns.
    pub standard: Vec<String>,
    /// Every base parameter's name, in the order of `regressor`'s columns.
    pub names: Vec<String>,
    /// Every base parameter's regrouping formula, the right-hand side:
    /// `link1.zz + d3²·link3.m`.
    pub formulas: Vec<String>,
    /// Every formula's coefficients at the spec's parameter values:
    /// `(k, c)` for `c πₖ`, `k` an index into [`BaseParameterFacts::standard`].
    pub coefficients: Vec<Vec<(usize, f64)>>,
    /// The base parameters kept although their columns depend on others
    /// (with coefficients that change with the runtime parameters).
    pub inexact: Vec<String>,
    /// The rank of the sampled regressor: the number of identifiable
    /// combinations, below the number of base parameters where they are
    /// not all identifiable apart.
    pub rank: usize,
}

/// A joint whose orientation is a quaternion, by its first velocity index:
/// what the linearization's velocity-dependent chart blocks are written
/// for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rotation {
    /// A spherical joint: angular velocity at `velocity..velocity + 3`.
    Spherical { velocity: usize },
    /// A free joint: linear velocity at `velocity..velocity + 3`, angular
    /// velocity after it.
    Free { velocity: usize },
}

/// The names a module with loops declares.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopFacts {
    /// The cut joints, in spec order.
    pub cut_joints: Vec<String>,
    /// The kept constraint rows (`<cut joint>.<component>`), in order.
    pub constraint_names: Vec<String>,
    /// The velocity indices of the independent coordinates.
    pub independent: Vec<usize>,
    /// The joints around each loop, starting with its cut joint.
    pub loops: Vec<Vec<String>>,
    /// Constraint count, rank and residual at the initial configuration.
    pub mobility: Mobility,
}

/// What the emitted law needs to know about one contact beyond its program
/// outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactFacts {
    /// `<joint>.lower`, `<joint>.clearance`, …
    pub name: String,
    /// The gradient's entries: velocity index, and `Some(±1)` for a unit
    /// weight written as a sign, `None` for a weight the program computes.
    pub weights: Vec<(usize, Option<i8>)>,
    /// Whether the law's `μ` may be nonzero: without it the law is
    /// `F = k e^{−a g}`, and `k − μ ġ` is neither printed nor counted.
    pub dissipative: bool,
}

/// What the header says of the mechanism beyond the module's constants.
#[derive(Clone, Debug)]
pub(crate) struct HeaderFacts {
    /// The spec file, as the user named it.
    pub(crate) source_name: String,
    /// The digest of the spec's text.
    pub(crate) source_digest: u64,
    /// The spec's free text.
    pub(crate) description: Option<String>,
    /// Every coupled joint with its leader.
    pub(crate) followers: Vec<(String, String)>,
    /// Whether the independent coordinates were chosen by partitioning
    /// rather than named by the spec.
    pub(crate) independent_chosen: bool,
}
