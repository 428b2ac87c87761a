//! The loop equations a mechanism with cut joints carries, and the
//! mobility they leave: the data only.
//!
//! [`crate::geometry::loop_closure`] derives them and
//! [`crate::geometry::mobility`] measures them; the types live in the model
//! because [`Mechanism::loops`](crate::model::Mechanism::loops) keeps them,
//! and the model must not read the geometry built on it.

use crate::model::vec3::{Mat3, Vec3};
use sharnir_cas::Id;

/// One kept constraint row.
#[derive(Clone, Debug)]
pub struct ConstraintRow {
    /// `<cut joint>.<component>`: `fx`, `fy`, `fz` for forces along the
    /// joint frame's axes, `mx`, `my`, `mz` for moments about them, `f1`,
    /// `f2`, `m1`, `m2` along the directions across an oblique axis, `m` for
    /// the universal joint's moment.
    pub name: String,
    /// Index of its cut joint in `Mechanism::cut_joints`.
    pub cut_joint: usize,
    /// The reaction force direction of the row, in the parent side's axes.
    pub force: Vec3,
    /// The reaction moment direction of the row, in the parent side's axes.
    pub moment: Vec3,
}

/// The loop-closure equations of a mechanism, rows in cut-joint order.
#[derive(Clone, Debug)]
pub struct LoopClosure {
    /// The kept rows.
    pub rows: Vec<ConstraintRow>,
    /// `Ψ(q)`, one per row.
    pub constraints: Vec<Id>,
    /// `J`, `rows × NV`.
    pub jacobian: Vec<Vec<Id>>,
    /// `J̇ q̇`, one per row, each coordinate's contribution summed apart
    /// ([`sharnir_cas::Pool::along_motion`]).
    pub bias: Vec<Id>,
    /// The same `J̇ q̇` by one derivative walk with every coordinate moving
    /// ([`sharnir_cas::Derivative`]): equal values, another expression,
    /// which lowers to far less code for some mechanisms (a delta robot's
    /// half) and to more for others; the plan keeps the cheaper.
    pub bias_by_one_walk: Vec<Id>,
    /// The orientation of every cut joint's parent side in the ground frame,
    /// which turns reactions into ground axes.
    pub parent_rotations: Vec<Mat3>,
}

/// The loop equations of a mechanism with the mobility they leave, as
/// [`Mechanism::loops`](crate::model::Mechanism::loops) keeps them.
#[derive(Clone, Debug)]
pub struct ClosedLoops {
    /// `Ψ`, `J`, `J̇ q̇` and the rows.
    pub closure: LoopClosure,
    /// Constraint count and rank at the initial configuration.
    pub mobility: Mobility,
}

/// The constraint count and rank of a mechanism with loops at its initial
/// configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Mobility {
    /// Velocity coordinates of the spanning tree, `NV`.
    pub coordinates: usize,
    /// Kept constraint rows, `NC`.
    pub constraints: usize,
    /// Rank of the constraint Jacobian there.
    pub rank: usize,
    /// The largest `|Ψᵢ|` there: zero when the spec starts assembled.
    pub residual: f64,
    /// Coordinate partitioning there: velocity indices, ascending, of
    /// `NV − rank` coordinates whose columns of `J` the elimination did not
    /// pivot on, so the others (the pivots, the largest available) are
    /// determined by them. The independent coordinates when the spec names
    /// none.
    pub partition: Vec<usize>,
}

impl Mobility {
    /// `NV − rank`: the degrees of freedom of the closed mechanism.
    pub fn degrees_of_freedom(&self) -> usize {
        self.coordinates.saturating_sub(self.rank)
    }

    /// `NC − rank`: constraint rows that repeat others (a planar loop of
    /// spatial joints, a parallelogram).
    pub fn redundant(&self) -> usize {
        self.constraints.saturating_sub(self.rank)
    }
}
