//! The mechanism after a detachable joint lets go: the spec of a variant
//! module.
//!
//! A tree joint that lets go is replaced, in place, by a free joint from
//! the ground to the same child, so the coordinates before it keep their
//! indices, the released body's motion is six free coordinates, and every
//! coordinate after it keeps its meaning. When the child still hangs on a
//! loop, the cut joint closes it from the free body: the loop stays, with
//! the same spanning tree and cut joints. A cut joint that lets go is
//! removed with its constraints; no coordinate changes. Either way every
//! body's pose and velocity at the release map onto the variant exactly
//! (see the runtime's `release_state`). The variant's `[initial]` is that
//! map of the parent's initial state: the released body's free joint starts
//! where the body is and as it moves when the parent starts, a
//! [`ReleasedStart`] that the caller computes (the kinematics live in the
//! compiler, not here).

use crate::error::SpecError;
use crate::expr::Expr;
use crate::model::{Joint, JointKind, Spec};

/// Where a released body starts in its variant module: the coordinates of
/// the free joint from the ground that carries it (see the runtime's
/// `free_joint_state`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReleasedStart {
    /// The body frame's origin in the ground frame and its orientation, a
    /// unit quaternion `[x, y, z, w]`.
    pub positions: [f64; 7],
    /// The origin's velocity and the angular velocity, in the body's axes.
    pub velocities: [f64; 6],
}

impl ReleasedStart {
    /// At the ground frame, at rest.
    pub const AT_GROUND: ReleasedStart = ReleasedStart {
        positions: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        velocities: [0.0; 6],
    };
}

/// What the name of a variant module adds to its base's: the released
/// joints, sorted, after this.
const WITHOUT: &str = "_without_";

impl Spec {
    /// The name of the module generated from [`Spec::release`] of `joint`:
    /// the base mechanism's name, `_without_`, and every released joint
    /// (sorted, joined by `_and_`), so that releasing the same joints in
    /// any order gives one module.
    pub fn variant_name(&self, joint: &str) -> String {
        let suffix = if self.released.is_empty() {
            String::new()
        } else {
            format!("{WITHOUT}{}", self.released.join("_and_"))
        };
        let base = self.name.strip_suffix(&suffix).unwrap_or(&self.name);
        let mut released = self.released.clone();
        released.push(joint.to_owned());
        released.sort();
        format!("{base}{WITHOUT}{}", released.join("_and_"))
    }

    /// The value of `expr` at the parameters' spec values: what a
    /// release condition is compiled to.
    pub fn evaluate(&self, expr: &Expr) -> Result<f64, SpecError> {
        crate::expr::evaluate(expr, &self.parameter_values())
            .map_err(|problem| problem.into_error(&self.source))
    }

    /// This spec and the spec of every mechanism it becomes as its
    /// detachable joints let go, in any order and combination (each
    /// generated as its own module, so a simulation derives nothing): this
    /// spec first, the rest in the order they are first reached. `start`
    /// gives, for a spec and one of its detachable tree joints, where the
    /// joint's child is and how it moves at that spec's initial state.
    pub fn with_variants<E: From<SpecError>>(
        self,
        mut start: impl FnMut(&Spec, &Joint) -> Result<ReleasedStart, E>,
    ) -> Result<Vec<Spec>, E> {
        let mut specs = vec![self];
        let mut next = 0;
        while let Some(current) = specs.get(next) {
            let mut reached = Vec::new();
            for joint in current.detachable_joints() {
                let name = current.variant_name(&joint.name);
                if !specs.iter().chain(&reached).any(|s: &Spec| s.name == name) {
                    let placed = if joint.cut {
                        ReleasedStart::AT_GROUND
                    } else {
                        start(current, joint)?
                    };
                    reached.push(current.release(&joint.name, &placed)?);
                }
            }
            specs.extend(reached);
            next += 1;
        }
        Ok(specs)
    }

    /// The joints of this spec that can let go, in spec order.
    pub fn detachable_joints(&self) -> impl Iterator<Item = &Joint> {
        self.joints.iter().filter(|j| j.detach.is_some())
    }

    /// The mechanism after the detachable `joint` lets go: the spec of the
    /// variant module named [`Spec::variant_name`]. Its `[initial]` is this
    /// spec's with the released body's free joint at `start` (a simulation
    /// maps the state at the release instead; a cut joint that lets go
    /// changes no coordinate and ignores it), its `independent` coordinates
    /// are chosen again, and forces on the released joint's coordinates go
    /// with it.
    pub fn release(&self, joint: &str, start: &ReleasedStart) -> Result<Spec, SpecError> {
        let Some(index) = self
            .joints
            .iter()
            .position(|j| j.name == joint && j.detach.is_some())
        else {
            return Err(self.error_at(
                Default::default(),
                format!("`{joint}` is not a detachable joint of `{}`", self.name),
                "",
                "give the joint `detach = { time = .. }` or `detach = { reaction = .., above = .. }`",
            ));
        };
        let released = &self.joints[index];
        let mut variant = self.clone();
        variant.name = self.variant_name(joint);
        variant.description = Some(format!(
            "{} — after joint `{joint}` lets go",
            self.description.as_deref().unwrap_or(&self.name)
        ));
        variant.released.push(joint.to_owned());
        variant.released.sort();
        variant.independent.clear();
        if released.cut {
            variant.joints.remove(index);
            return Ok(variant);
        }
        let free = free_joint(released);
        let clash = free
            .position_names()
            .into_iter()
            .chain(free.velocity_names());
        let taken: Vec<String> = self
            .joints
            .iter()
            .flat_map(|j| j.position_names().into_iter().chain(j.velocity_names()))
            .collect();
        if let Some(name) = clash.into_iter().find(|n| taken.contains(n)) {
            return Err(self.error_at(
                released.detach.as_ref().map_or(released.span, |d| d.span),
                format!(
                    "once `{joint}` lets go, body `{}` moves on a free joint whose coordinate \
                     `{name}` is already taken",
                    released.child
                ),
                "the released body's coordinates clash",
                "rename the coordinate: the released body's are named after it",
            ));
        }
        let (position, velocity) = self.first_coordinates()[index];
        let dropped: Vec<String> = released.velocity_names();
        splice(
            &mut variant.initial_positions,
            position,
            released.nq(),
            &start.positions,
        );
        splice(
            &mut variant.initial_velocities,
            velocity,
            released.nv(),
            &start.velocities,
        );
        variant.forces.retain(|f| !dropped.contains(&f.coordinate));
        variant.motion.retain(|m| !dropped.contains(&m.coordinate));
        variant.joints[index] = free;
        Ok(variant)
    }
}

/// The free joint from the ground that carries the child of `released`:
/// its frame is the ground's and the child's own frame moves on it, so its
/// coordinates are the child's pose and body-frame velocity.
fn free_joint(released: &Joint) -> Joint {
    let mut joint = Joint::written(
        &format!("{}_free", released.child),
        JointKind::Free,
        [0.0, 0.0, 1.0],
        ("ground", &released.child),
        &released.child,
        released.span,
    );
    joint.child_span = released.child_span;
    joint
}

/// Replaces `values[start..start + len]` by `with`.
fn splice(values: &mut Vec<f64>, start: usize, len: usize, with: &[f64]) {
    let end = (start + len).min(values.len());
    let start = start.min(end);
    values.splice(start..end, with.iter().copied());
}
