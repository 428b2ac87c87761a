//! Assembly of a validated spec into a kinematic tree of symbolic bodies.
//!
//! This is where the spec's names become structure: bodies are numbered
//! regularly along a spanning tree of the mechanism graph (`topology`),
//! every number becomes a runtime parameter symbol or a folded constant
//! (`lowering`), each joint becomes one or more primitive joints (`joints`),
//! and the bodies of fixed joints are lumped into their parents (`lumping`).
//!
//! It reads the parts of [`crate::model::body`] and the steps that make them;
//! none of those reads this file. The loops are left open here: closing them
//! reads the geometry built on this model, so `Mechanism::from_spec` lives
//! in [`crate::geometry::closing`].

use crate::model::body::{RuntimeParameter, TreeBody};
use crate::model::cut_joints::{cut_joints, CutJoint};
use crate::model::detachment::{detachments, Detachment};
use crate::model::drives::{drive_parameters, DriveParameter};
use crate::model::inputs::Input;
use crate::model::joint_forces::{self, Contact};
use crate::model::joints::assemble;
use crate::model::loops::ClosedLoops;
use crate::model::lowering::{ExprLowering, ParameterMode};
use crate::model::motion::{prescribed, Prescribed};
use crate::model::topology::spanning_tree;
use crate::model::vec3::Vec3;
use sharnir_cas::{Id, Pool};
use sharnir_spec::{AppliedForce, ParameterValue, Spec, SpecError};

/// A mechanism ready for derivations: a regularly numbered tree of symbolic
/// bodies sharing one expression pool.
#[derive(Debug)]
pub struct Mechanism {
    /// Module name.
    pub name: String,
    /// Free-text description from the spec.
    pub description: Option<String>,
    /// The spec file the mechanism came from, as the user named it.
    pub source_name: String,
    /// The digest of the spec's text ([`sharnir_spec::Source::digest`]),
    /// recorded in module headers.
    pub source_digest: u64,
    /// The spec asks for a fused multiply–add twin of its module
    /// (`fused_multiply_add = true`).
    pub fused_multiply_add: bool,
    /// The spec asks for single-precision twins of its module
    /// (`single_precision = true`).
    pub single_precision: bool,
    /// The standard functions the spec asks its module to have (`outputs`,
    /// checked names); `None` for `gen`'s automatic rule.
    pub outputs: Option<Vec<String>>,
    /// How parameters were treated.
    pub mode: ParameterMode,
    /// The pool owning every expression below.
    pub pool: Pool,
    /// Parameters read at run time, in spec order (empty when folded).
    pub parameters: Vec<RuntimeParameter>,
    /// Velocity coordinate names (`qd`, `qdd`, `tau` order), in the order of
    /// the spec's joints.
    pub coordinates: Vec<String>,
    /// Position coordinate names (`q` order).
    pub positions: Vec<String>,
    /// The index in `q` of every unit quaternion's first component.
    pub quaternions: Vec<usize>,
    /// The spec's initial positions (`[initial]`), `q` order.
    pub initial_positions: Vec<f64>,
    /// The spec's initial velocities (`[initial]`), `qd` order.
    pub initial_velocities: Vec<f64>,
    /// The applied joint forces of `[forces]`, one per velocity coordinate
    /// (zero where the spec gives none), in terms of `t`, `q[i]`, `qd[i]`
    /// and the parameters; `None` when the spec has no `[forces]`.
    pub applied_forces: Option<Vec<Id>>,
    /// The coordinates `[motion]` drives along laws of time, in spec order;
    /// empty when every coordinate moves under the forces.
    pub motion: Vec<Prescribed>,
    /// The joints' unilateral contacts (stops, clearances, gear flanks), in
    /// spec order; empty when no joint has any.
    pub contacts: Vec<Contact>,
    /// The joints' damping and dry-friction forces, one per velocity
    /// coordinate; `None` when no joint has either.
    pub friction_forces: Option<Vec<Id>>,
    /// The drive parameters the spec declares (armature, damping,
    /// friction), the standard regressor's columns after the bodies'.
    pub drives: Vec<DriveParameter>,
    /// Bodies in regular numbering: parents come before children.
    pub bodies: Vec<TreeBody>,
    /// The joints that close kinematic loops, in spec order; empty for a
    /// tree.
    pub cut_joints: Vec<CutJoint>,
    /// The velocity indices of the independent coordinates of a mechanism
    /// with loops: the spec's `independent`, in its order, or when it names
    /// none those chosen by coordinate partitioning (see
    /// [`Mechanism::independent_chosen`]); empty for a tree.
    pub independent: Vec<usize>,
    /// Whether [`Mechanism::independent`] was chosen by the compiler.
    pub independent_chosen: bool,
    /// The loop-closure equations and the mobility they leave, derived when
    /// the mechanism is built (a loop that cannot close or that locks the
    /// mechanism is a spec error); `None` for a tree.
    pub loops: Option<ClosedLoops>,
    /// Gravitational acceleration in the ground frame.
    pub gravity: Vec3,
    /// The joints that let go during a simulation, in spec order; empty
    /// when none does.
    pub detachments: Vec<Detachment>,
}

/// The `[forces]` expressions lowered with `t`, the position coordinates
/// and the velocities (`<name>_dot`) as symbols.
fn applied_forces(spec: &Spec, lowering: &mut ExprLowering) -> Result<Option<Vec<Id>>, SpecError> {
    if spec.forces.is_empty() {
        return Ok(None);
    }
    let (positions, velocities) = spec.coordinate_names();
    let pool = &mut lowering.pool;
    let mut variables = vec![(AppliedForce::TIME.to_owned(), pool.input(Input::Time))];
    for (i, name) in positions.iter().enumerate() {
        variables.push((name.clone(), pool.input(Input::Position(i))));
    }
    for (i, name) in velocities.iter().enumerate() {
        variables.push((
            format!("{name}{}", AppliedForce::RATE_SUFFIX),
            pool.input(Input::Velocity(i)),
        ));
    }
    let zero = lowering.pool.zero();
    let mut forces = vec![zero; velocities.len()];
    for force in &spec.forces {
        if let Some(i) = velocities.iter().position(|v| *v == force.coordinate) {
            forces[i] = lowering.expr_with(spec, &force.value, &variables)?;
        }
    }
    Ok(Some(forces))
}

impl Mechanism {
    /// Builds the tree for `spec`, or reports why the graph is not a tree
    /// rooted at ground; its loops are left open ([`Mechanism::loops`] is
    /// `None`) for [`Mechanism::from_spec`] to close, since closing them
    /// takes the geometry layer, which reads this model.
    pub(crate) fn tree_from_spec(spec: &Spec, mode: ParameterMode) -> Result<Mechanism, SpecError> {
        let mut lowering = ExprLowering::new(spec, mode);
        let tree = spanning_tree(spec)?;
        let gravity = lowering.vec3(spec, &spec.gravity)?;
        let (bodies, frames) = assemble(spec, &tree, &mut lowering)?;
        let cut_joints = cut_joints(spec, &tree, &frames, &mut lowering)?;
        let coordinates: Vec<String> = spec
            .joints
            .iter()
            .flat_map(|j| j.velocity_names())
            .collect();
        let independent = spec
            .independent
            .iter()
            .filter_map(|c| coordinates.iter().position(|name| *name == c.name))
            .collect();
        let applied_forces = applied_forces(spec, &mut lowering)?;
        let motion = prescribed(spec, &mut lowering)?;
        let contacts = joint_forces::contacts(spec, &mut lowering)?;
        let friction_forces = joint_forces::friction_forces(spec, &mut lowering)?;
        let drives = drive_parameters(spec, &mut lowering)?;
        let parameters = match mode {
            ParameterMode::Folded => Vec::new(),
            ParameterMode::Runtime => spec
                .parameters
                .iter()
                .filter_map(|p| match p.value {
                    ParameterValue::Number(default) => Some(RuntimeParameter {
                        name: p.name.clone(),
                        default,
                    }),
                    ParameterValue::Derived(_) => None,
                })
                .collect(),
        };
        let mut mechanism = Mechanism {
            name: spec.name.clone(),
            description: spec.description.clone(),
            source_name: spec.source.name.clone(),
            source_digest: spec.source.digest(),
            fused_multiply_add: spec.fused_multiply_add,
            single_precision: spec.single_precision,
            outputs: spec.outputs.clone(),
            mode,
            pool: lowering.pool,
            parameters,
            coordinates,
            positions: spec
                .joints
                .iter()
                .flat_map(|j| j.position_names())
                .collect(),
            quaternions: spec.quaternion_starts(),
            initial_positions: spec.initial_positions.clone(),
            initial_velocities: spec.initial_velocities.clone(),
            applied_forces,
            motion,
            contacts,
            friction_forces,
            drives,
            bodies,
            cut_joints,
            independent,
            loops: None,
            independent_chosen: false,
            gravity,
            detachments: Vec::new(),
        };
        let body_names: Vec<String> = mechanism
            .spec_bodies()
            .map(|(_, b)| b.name.clone())
            .collect();
        mechanism.detachments = detachments(spec, &body_names)?;
        if mode == ParameterMode::Folded {
            for detachment in &mut mechanism.detachments {
                detachment.variant.push_str("_folded");
            }
        }
        Ok(mechanism)
    }

    /// Number of position coordinates, `NQ`.
    pub fn nq(&self) -> usize {
        self.positions.len()
    }

    /// Number of velocity coordinates, `NV`: the degrees of freedom.
    pub fn dof(&self) -> usize {
        self.coordinates.len()
    }

    /// Whether the mechanism has closed loops (cut joints).
    pub fn has_loops(&self) -> bool {
        !self.cut_joints.is_empty()
    }

    /// Whether some joint follows another: the joints are then not
    /// independent, which the separate-bodies forward dynamics and Telegin's
    /// formalism assume.
    pub fn has_couplings(&self) -> bool {
        self.bodies.iter().any(|b| b.coupling.is_some())
    }

    /// The bodies of the spec (no auxiliary bodies), in tree order, with
    /// their indices in [`Mechanism::bodies`].
    pub fn spec_bodies(&self) -> impl Iterator<Item = (usize, &TreeBody)> {
        self.bodies.iter().enumerate().filter(|(_, b)| !b.auxiliary)
    }
}
