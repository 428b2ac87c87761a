//! Assembly of a validated spec into a kinematic tree of symbolic bodies.
//!
//! This is where the spec's names become structure: bodies are numbered
//! regularly along a spanning tree of the mechanism graph (`topology`),
//! every number becomes a runtime parameter symbol or a folded constant
//! (`lowering`), each joint becomes one or more primitive joints (`joints`),
//! and the bodies of fixed joints are lumped into their parents (`lumping`).

use crate::cut_joints::{cut_joints, CutJoint};
use crate::detachment::{detachments, Detachment};
use crate::inputs::Input;
use crate::joint_forces::{self, Contact};
use crate::joints::assemble;
use crate::loop_closure::{loop_closure, ClosedLoops};
use crate::lowering::ExprLowering;
use crate::mobility::mobility;
use crate::topology::spanning_tree;
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Id, Pool};
use sharnir_spec::{AppliedForce, ParameterValue, Span, Spec, SpecError};

/// How spec parameters appear in derived expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterMode {
    /// Numeric parameters stay symbols, read from `Params` at run time.
    Runtime,
    /// Parameter values are folded into the expressions as constants.
    Folded,
}

/// A primitive joint: every joint type of the format is one of these or a
/// chain of them through massless auxiliary bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about the axis; one coordinate.
    Revolute,
    /// Translation along the axis; one coordinate.
    Prismatic,
    /// Any rotation: a unit quaternion `[x, y, z, w]`, velocity the angular
    /// velocity in the body frame.
    Spherical,
    /// Position `[x, y, z]` in the joint frame and a unit quaternion;
    /// velocity `[linear, angular]`, both in the body frame.
    Free,
}

impl JointKind {
    /// Number of position coordinates.
    pub fn nq(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 4,
            JointKind::Free => 7,
        }
    }

    /// Number of velocity coordinates.
    pub fn nv(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Spherical => 3,
            JointKind::Free => 6,
        }
    }
}

/// A parameter that the generated module reads from `Params` at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeParameter {
    /// Field name (the spec's parameter name).
    pub name: String,
    /// The spec's value, used by `Params::default()`.
    pub default: f64,
}

/// How a follower joint's coordinate derives from its leader's:
/// `q = multiplier · q_leader + offset` (the spec's `mimic`).
///
/// The follower reads the leader's coordinates (its `position` and
/// `velocity` indices are the leader's), so every formalism that builds on
/// [`crate::kinematics`] sees the follower move with the true degrees of
/// freedom, and Newton–Euler adds `multiplier` times the follower's joint
/// force to the leader's (virtual work).
#[derive(Clone, Debug)]
pub struct Coupling {
    /// The leader's spec joint, for documentation of the generated module.
    pub leader: String,
    /// Ratio of the follower's motion to the leader's.
    pub multiplier: Id,
    /// Follower coordinate at a zero leader coordinate.
    pub offset: Id,
}

/// One moving body of the spanning tree with its inboard primitive joint.
#[derive(Clone, Debug)]
pub struct TreeBody {
    /// The body's name in the spec; auxiliary bodies are named after the
    /// body they lead to and their place in the chain (`link.1`).
    pub name: String,
    /// The name of the spec joint this primitive joint belongs to.
    pub joint: String,
    /// Index of the parent in [`Mechanism::bodies`]; `None` for ground.
    pub parent: Option<usize>,
    /// Index of the joint's first position coordinate in `q` (the leader's
    /// for a follower).
    pub position: usize,
    /// Index of the joint's first velocity coordinate in `qd`, `qdd`, `tau`
    /// (the leader's for a follower).
    pub velocity: usize,
    /// Set for a follower joint, which has no coordinate of its own.
    pub coupling: Option<Coupling>,
    /// Joint type.
    pub kind: JointKind,
    /// Unit joint axis in the joint frame (revolute and prismatic joints).
    pub axis: Vec3,
    /// Joint-frame orientation in the parent frame (`p_parent = translation + rotation · p_joint`).
    pub rotation: Mat3,
    /// Joint-frame origin in the parent frame.
    pub translation: Vec3,
    /// Mass (with every body lumped into it by fixed joints).
    pub mass: Id,
    /// Centre of mass in the body frame.
    pub com: Vec3,
    /// Inertia tensor about the centre of mass, body axes.
    pub inertia: Mat3,
    /// True for the massless bodies between the primitive joints of a
    /// cylindrical, universal or planar joint; they have no spec body.
    pub auxiliary: bool,
    /// Where the spec body's own frame is in this body's frame (the joint
    /// frame after the motion), when the inboard joint has a
    /// `child_origin`; `None` when the two coincide. Mass properties are
    /// already expressed in the joint frame; only the reported poses and
    /// Jacobians of the body read this.
    pub body_frame: Option<Placement>,
}

/// A frame fixed in a body: `p_body = translation + rotation · p_frame`.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Orientation of the frame in the body.
    pub rotation: Mat3,
    /// Origin of the frame in the body.
    pub translation: Vec3,
}

impl Placement {
    /// The body's own frame.
    pub fn identity(pool: &mut Pool) -> Placement {
        Placement {
            rotation: pool.identity3(),
            translation: pool.zero3(),
        }
    }

    /// The frame placed at `offset` in this one, in the body.
    pub fn then(&self, pool: &mut Pool, offset: &Placement) -> Placement {
        let shift = pool.mat_vec(&self.rotation, offset.translation);
        Placement {
            rotation: pool.mat_mul(&self.rotation, &offset.rotation),
            translation: pool.add3(self.translation, shift),
        }
    }

    /// The placement of the body in a frame placed at `(rotation,
    /// translation)`: `(Rᵀ, −Rᵀ t)`.
    pub fn inverse_of(pool: &mut Pool, rotation: &Mat3, translation: Vec3) -> Placement {
        let back = pool.mat_t_vec(rotation, translation);
        Placement {
            rotation: [0, 1, 2].map(|i| [0, 1, 2].map(|j| rotation[j][i])),
            translation: pool.scale3c(sharnir_cas::Coeff::MINUS_ONE, back),
        }
    }

    /// A centre of mass and central inertia given in the placed frame,
    /// expressed in the body's frame.
    pub fn carry_mass_properties(
        &self,
        pool: &mut Pool,
        com: Vec3,
        inertia: &Mat3,
    ) -> (Vec3, Mat3) {
        let rotated = pool.mat_vec(&self.rotation, com);
        (
            pool.add3(self.translation, rotated),
            pool.rotate_symmetric(&self.rotation, inertia),
        )
    }
}

/// A frame fixed in a tree body or in the ground: where a spec body's frame
/// is (a body welded by fixed joints, or one placed by a `child_origin`),
/// and the two sides of a cut joint.
#[derive(Clone, Copy, Debug)]
pub struct AttachedFrame {
    /// Index of the tree body (in [`Mechanism::bodies`]) it moves with;
    /// `None` for the ground.
    pub host: Option<usize>,
    /// Where it is in the host's frame.
    pub placement: Placement,
}

impl AttachedFrame {
    /// The ground frame itself.
    pub fn ground(pool: &mut Pool) -> AttachedFrame {
        AttachedFrame {
            host: None,
            placement: Placement::identity(pool),
        }
    }

    /// The frame of tree body `index` itself.
    pub fn of_body(pool: &mut Pool, index: usize) -> AttachedFrame {
        AttachedFrame {
            host: Some(index),
            placement: Placement::identity(pool),
        }
    }

    /// The frame placed at `offset` in this one, in the same host.
    pub fn then(&self, pool: &mut Pool, offset: &Placement) -> AttachedFrame {
        AttachedFrame {
            host: self.host,
            placement: self.placement.then(pool, offset),
        }
    }
}

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
    /// The joints' unilateral contacts (stops, clearances, gear flanks), in
    /// spec order; empty when no joint has any.
    pub contacts: Vec<Contact>,
    /// The joints' damping and dry-friction forces, one per velocity
    /// coordinate; `None` when no joint has either.
    pub friction_forces: Option<Vec<Id>>,
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

/// Derives the loop equations of `mechanism` and checks that its loops can
/// close and leave it free to move, reporting at the cut joint otherwise.
fn closed_loops(spec: &Spec, mechanism: &mut Mechanism) -> Result<ClosedLoops, SpecError> {
    let span_of = |mechanism: &Mechanism, name: &str| {
        mechanism
            .cut_joints
            .iter()
            .find(|c| c.name == name)
            .map_or(Span::default(), |c| c.span)
    };
    let closure = loop_closure(mechanism).map_err(|e| {
        spec.error_at(
            span_of(mechanism, &e.joint),
            e.to_string(),
            "this joint's two placements never meet",
            "check `origin`, `child_origin` and the axes of the joints around the loop",
        )
    })?;
    let mobility = mobility(mechanism, &closure).map_err(|e| {
        spec.error_at(
            Span::default(),
            format!("the loop constraints read {e}"),
            "",
            "this is a bug in sharnir; please report it",
        )
    })?;
    if mobility.degrees_of_freedom() == 0 {
        let first = mechanism
            .cut_joints
            .first()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        return Err(spec.error_at(
            span_of(mechanism, &first),
            format!(
                "the loops lock the mechanism: {} independent constraints hold its {} \
                 coordinates at the initial configuration, so nothing can move",
                mobility.rank, mobility.coordinates
            ),
            "this joint closes a loop",
            "remove a joint from a loop or give a joint more freedom; if [initial] is a \
             singular configuration, start from a general one",
        ));
    }
    Ok(ClosedLoops { closure, mobility })
}

/// The `[forces]` expressions lowered with `t`, the position coordinates
/// and the velocities (`<name>_dot`) as symbols.
fn applied_forces(spec: &Spec, lowering: &mut ExprLowering) -> Result<Option<Vec<Id>>, SpecError> {
    if spec.forces.is_empty() {
        return Ok(None);
    }
    let positions: Vec<String> = spec
        .joints
        .iter()
        .flat_map(|j| j.position_names())
        .collect();
    let velocities: Vec<String> = spec
        .joints
        .iter()
        .flat_map(|j| j.velocity_names())
        .collect();
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
    /// rooted at ground.
    pub fn from_spec(spec: &Spec, mode: ParameterMode) -> Result<Mechanism, SpecError> {
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
        let contacts = joint_forces::contacts(spec, &mut lowering)?;
        let friction_forces = joint_forces::friction_forces(spec, &mut lowering)?;
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
            contacts,
            friction_forces,
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
        if mechanism.has_loops() {
            let loops = closed_loops(spec, &mut mechanism)?;
            if mechanism.independent.is_empty() {
                mechanism.independent = loops.mobility.partition.clone();
                mechanism.independent_chosen = true;
            }
            mechanism.loops = Some(loops);
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
