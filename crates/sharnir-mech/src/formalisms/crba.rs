//! The joint-space mass matrix by the composite-rigid-body algorithm (CRBA),
//! unrolled symbolically over the tree in body coordinates.
//!
//! Reading `M` off Newton–Euler as its Jacobian in q̈ (see
//! [`crate::formalisms::joint_space`]) repeats, column by column, what the columns
//! share: the inertia of everything beyond a joint. The CRBA forms that
//! once per body, from the leaves, and then walks each column to the root
//! along the path only:
//! ```text
//! I^c_k = I_k + Σ_children X_ch I^c_ch X_chᵀ           (composite inertia, body k coordinates)
//! F     = I^c_j S_j                                    (a unit acceleration of joint j)
//! M_ij  = S_iᵀ F,  F ← X_i F  for i = j, parent(j), …, root
//! ```
//! The first carry, into the parent, is skipped for one-axis joints about
//! or along a coordinate axis whose frame is placed by a signed
//! permutation (most robots' joints): the composite already stands in the
//! parent's coordinates (it was carried there to be added to the
//! parent's), and the joint's subspace is constant there, so
//! `X_j I^c_j S_j = (X_j I^c_j X_jᵀ)(X_j S_j)` takes the carried inertia's
//! entries instead of two rotations and a lever. (With any other axis or
//! rotation the constants of `X_j S_j` are rounded, and a product that is
//! zero by the tree's structure, `m (t × ω) + ω × m t`, would no longer
//! cancel exactly.)
//! An inertia is a [`RigidInertia`] about the body origin (mass `m`, first
//! moment `h`, rotational `I`), carried into the parent by the joint's
//! motion then the constant placement: a rotation `E` (`h ← E h`,
//! `I ← E I Eᵀ`) and a shift `t` (`h ← h + m t`,
//! `I ← I + 2(t·h)1 − t hᵀ − h tᵀ + m(|t|²1 − t tᵀ)`). A revolute joint about
//! a coordinate axis rotates the inertia with `s²` and `s c` only (its axial
//! entry stays), and a composite mass is a constant, so `m t tᵀ` for a
//! constant `t` is a parameter group. A spatial force `(f; n)` about the
//! child origin moves to the parent as `(E f; E n + o × E f)`. Every motion
//! subspace is constant in body coordinates ([`crate::geometry::kinematics`]), so the
//! projections `S_iᵀ F` pick entries of `F`; entries of joints on different
//! branches are exactly zero and are never formed.
//!
//! A follower joint (`q = k q_leader + offset`, see [`crate::model::Coupling`])
//! contributes `k` times its column and row to its leader's: `M = Gᵀ M_tree
//! G`, as Newton–Euler's `k Sᵀ (f; n)` gives. Cut joints play no part (the
//! tree's `M` is wanted), and auxiliary bodies are massless bodies like any
//! other. With the base inertias of [`crate::formalisms::base_parameters`] the result
//! is the same matrix (a regrouped part of a body's inertia has no momentum
//! under its own joint's motion, `P S = 0`, and stays within every other
//! composite that contains it), usually from fewer nonzero parameters.
//! The drives' armature is added to the diagonal last
//! ([`crate::formalisms::armature`]).

use crate::formalisms::armature;
use crate::formalisms::base_parameters::{base_inertias, RigidInertia};
use crate::geometry::kinematics::{parent_subspace, placement, position_symbols, subspace};
use crate::model::rotation::{quaternion_rotation, rodrigues};
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{JointKind, Mechanism, TreeBody};
use sharnir_cas::{Coeff, Id, Pool};

/// How a column of `M` takes its first step, from its joint's body into the
/// parent. Neither is always cheaper (the carried force shares more with
/// the composite inertias on some trees, the carried inertia on most), so
/// the code generator derives both and keeps the cheaper code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstStep {
    /// The force `I^c_j S_j` carried into the parent like every later step.
    Carried,
    /// The momentum of the composite inertia already carried into the
    /// parent under the joint's parent-frame subspace, where that is exact
    /// (see the module documentation); carried elsewhere.
    InParent,
}

/// `M(q)` by the CRBA from the bodies' own inertias: symmetric, row-major,
/// in velocity-coordinate order, the same matrix as
/// [`crate::formalisms::joint_space::joint_space`] reads off Newton–Euler, usually in
/// far fewer operations on trees with long paths or many branches.
pub fn mass_matrix(mechanism: &mut Mechanism, first_step: FirstStep) -> Vec<Vec<Id>> {
    let inertias: Vec<RigidInertia> = {
        let Mechanism { pool, bodies, .. } = mechanism;
        bodies
            .iter()
            .map(|b| RigidInertia::of_body(pool, b))
            .collect()
    };
    crba(mechanism, &inertias, first_step)
}

/// The same matrix from the base inertias of [`crate::formalisms::base_parameters`]:
/// fewer nonzero parameters to carry, though not always cheaper (unit
/// masses are free in the bodies' own inertias and not in the regrouped
/// ones), so the code generator keeps whichever costs less.
pub fn mass_matrix_regrouped(mechanism: &mut Mechanism, first_step: FirstStep) -> Vec<Vec<Id>> {
    let inertias = base_inertias(mechanism);
    crba(mechanism, &inertias, first_step)
}

/// How a joint rotates its body relative to the joint frame.
enum JointRotation {
    /// No rotation (prismatic joints).
    None,
    /// About the coordinate axis `axis` (`±e_axis`, `sign` the sign) by an
    /// angle with sine `s` and cosine `c`.
    Coordinate {
        axis: usize,
        sign: Coeff,
        s: Id,
        c: Id,
    },
    /// Any other rotation matrix (a general axis, a quaternion).
    Matrix(Mat3),
}

/// A body's placement in its parent, split as the carry of an inertia
/// wants it: first the joint's motion in the joint frame (rotation, then
/// shift), then the constant placement of the joint frame.
struct Carry {
    joint_rotation: JointRotation,
    joint_shift: Vec3,
    /// Joint-frame orientation in the parent (`TreeBody::rotation`).
    rotation: Mat3,
    /// Joint-frame origin in the parent (`TreeBody::translation`).
    translation: Vec3,
    /// Whether `rotation` is a signed permutation: then rotating an inertia
    /// by it is free, and the two-step carry is the cheaper one. Otherwise
    /// the inertia is rotated once by the whole `E` (one dense rotation
    /// rather than a sparse one followed by a dense one).
    sparse: bool,
    /// Body-to-parent rotation `E` and body origin `o` (see
    /// [`crate::geometry::kinematics::placement`]), for spatial forces and the
    /// one-step carry.
    to_parent: Mat3,
    origin: Vec3,
}

impl Carry {
    fn of(pool: &mut Pool, body: &TreeBody) -> Carry {
        let q = position_symbols(pool, body);
        let zero = pool.zero();
        let at = |i: usize| q.get(i).copied().unwrap_or(zero);
        let (joint_rotation, joint_shift) = match body.kind {
            JointKind::Revolute => {
                let rotation = match coordinate_axis(pool, body.axis) {
                    Some((axis, sign)) => JointRotation::Coordinate {
                        axis,
                        sign,
                        s: pool.sin(at(0)),
                        c: pool.cos(at(0)),
                    },
                    None => JointRotation::Matrix(rodrigues(pool, body.axis, at(0))),
                };
                (rotation, pool.zero3())
            }
            JointKind::Prismatic => (JointRotation::None, pool.scale3(at(0), body.axis)),
            JointKind::Spherical => (
                JointRotation::Matrix(quaternion_rotation(pool, [at(0), at(1), at(2), at(3)])),
                pool.zero3(),
            ),
            JointKind::Free => (
                JointRotation::Matrix(quaternion_rotation(pool, [at(3), at(4), at(5), at(6)])),
                [at(0), at(1), at(2)],
            ),
        };
        let (to_parent, origin) = placement(pool, body);
        let sparse = body.rotation.iter().flatten().all(|&e| {
            pool.as_num(e)
                .is_some_and(|c| c.is_zero() || c.is_one() || c.is_minus_one())
        });
        Carry {
            joint_rotation,
            joint_shift,
            rotation: body.rotation,
            translation: body.translation,
            sparse,
            to_parent,
            origin,
        }
    }

    /// `inertia`, given about the body origin in body axes, about the
    /// parent origin in parent axes.
    fn inertia(&self, pool: &mut Pool, inertia: &RigidInertia) -> RigidInertia {
        if !self.sparse {
            let turned = rotate(pool, inertia, &self.to_parent);
            return shift(pool, &turned, self.origin);
        }
        let turned = match &self.joint_rotation {
            JointRotation::None => *inertia,
            JointRotation::Coordinate { axis, sign, s, c } => {
                rotate_about_axis(pool, inertia, *axis, *sign, *s, *c)
            }
            JointRotation::Matrix(e) => rotate(pool, inertia, e),
        };
        let moved = shift(pool, &turned, self.joint_shift);
        let placed = rotate(pool, &moved, &self.rotation);
        shift(pool, &placed, self.translation)
    }

    /// A spatial force `(f; n)` about the body origin in body axes, about
    /// the parent origin in parent axes: `(E f; E n + o × E f)`.
    fn force(&self, pool: &mut Pool, (f, n): (Vec3, Vec3)) -> (Vec3, Vec3) {
        let f_parent = pool.mat_vec(&self.to_parent, f);
        let n_turned = pool.mat_vec(&self.to_parent, n);
        let lever = pool.cross3(self.origin, f_parent);
        (f_parent, pool.add3(n_turned, lever))
    }
}

/// `Some((k, ±1))` when `axis` is `±e_k`.
fn coordinate_axis(pool: &Pool, axis: Vec3) -> Option<(usize, Coeff)> {
    (0..3).find_map(|k| {
        let others_zero = (0..3).all(|i| i == k || pool.is_zero(axis[i]));
        let sign = pool
            .as_num(axis[k])
            .filter(|c| c.is_one() || c.is_minus_one())?;
        others_zero.then_some((k, sign))
    })
}

/// `E h` and `E I Eᵀ` (mass unchanged).
fn rotate(pool: &mut Pool, inertia: &RigidInertia, e: &Mat3) -> RigidInertia {
    RigidInertia {
        mass: inertia.mass,
        first_moment: pool.mat_vec(e, inertia.first_moment),
        rotational: pool.rotate_symmetric(e, &inertia.rotational),
    }
}

/// [`rotate`] about `sign · e_k` by the angle with sine `s` and cosine
/// `c`, with `(i, j, k)` cyclic: the axial entry `I_kk` and `h_k` stay,
/// `(I_ik, I_jk)` and `(h_i, h_j)` turn as vectors, and the `(i, j)` block
/// changes by `u = Δ s² + 2 I_ij s c` (`Δ = I_ii − I_jj`):
/// `I_ii − u`, `I_jj + u`, `I_ij + Δ s c − 2 I_ij s²`.
fn rotate_about_axis(
    pool: &mut Pool,
    inertia: &RigidInertia,
    k: usize,
    sign: Coeff,
    s: Id,
    c: Id,
) -> RigidInertia {
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let s = pool.scale(sign, s);
    let turn = |pool: &mut Pool, x: Id, y: Id| {
        let cx = pool.mul(c, x);
        let sy = pool.mul(s, y);
        let sx = pool.mul(s, x);
        let cy = pool.mul(c, y);
        (pool.sub(cx, sy), pool.add(sx, cy))
    };
    let h = inertia.first_moment;
    let mut first_moment = h;
    (first_moment[i], first_moment[j]) = turn(pool, h[i], h[j]);
    let r = &inertia.rotational;
    let mut rotational = *r;
    let (ik, jk) = turn(pool, r[i][k], r[j][k]);
    let ss = pool.mul(s, s);
    let sc = pool.mul(s, c);
    let delta = pool.sub(r[i][i], r[j][j]);
    let u = {
        let a = pool.mul(delta, ss);
        let b = pool.mul(r[i][j], sc);
        pool.linear(&[(a, Coeff::ONE), (b, Coeff::int(2))], Coeff::ZERO)
    };
    let ij = {
        let a = pool.mul(delta, sc);
        let b = pool.mul(r[i][j], ss);
        pool.linear(
            &[(r[i][j], Coeff::ONE), (a, Coeff::ONE), (b, Coeff::int(-2))],
            Coeff::ZERO,
        )
    };
    rotational[i][i] = pool.sub(r[i][i], u);
    rotational[j][j] = pool.add(r[j][j], u);
    rotational[i][j] = ij;
    rotational[j][i] = ij;
    rotational[i][k] = ik;
    rotational[k][i] = ik;
    rotational[j][k] = jk;
    rotational[k][j] = jk;
    RigidInertia {
        mass: inertia.mass,
        first_moment,
        rotational,
    }
}

/// The same inertia about the origin of a frame with the same axes in
/// which the old origin is at `t` (`p_new = t + p_old`): `h + m t`,
/// `I + 2(t·h)1 − t hᵀ − h tᵀ + m(|t|²1 − t tᵀ)`.
fn shift(pool: &mut Pool, inertia: &RigidInertia, t: Vec3) -> RigidInertia {
    if t.iter().all(|&x| pool.is_zero(x)) {
        return *inertia;
    }
    let (m, h) = (inertia.mass, inertia.first_moment);
    let carried_mass = pool.scale3(m, t);
    let first_moment = pool.add3(h, carried_mass);
    let mut rotational = inertia.rotational;
    let t_dot_h = pool.dot3(t, h);
    let t_squared = pool.dot3(t, t);
    let t_squared_m = pool.mul(m, t_squared);
    let diagonal = {
        let twice = pool.scale(Coeff::int(2), t_dot_h);
        pool.add(twice, t_squared_m)
    };
    for a in 0..3 {
        for b in a..3 {
            let cross = {
                let th = pool.mul(t[a], h[b]);
                let ht = pool.mul(h[a], t[b]);
                let tt = pool.mul(t[a], t[b]);
                let mtt = pool.mul(m, tt);
                pool.sum(&[th, ht, mtt])
            };
            let change = if a == b {
                pool.sub(diagonal, cross)
            } else {
                pool.neg(cross)
            };
            rotational[a][b] = pool.add(rotational[a][b], change);
            rotational[b][a] = rotational[a][b];
        }
    }
    RigidInertia {
        mass: m,
        first_moment,
        rotational,
    }
}

/// `(p; L)`: the momentum of `inertia` moving with the twist `(v; ω)` at
/// the origin, `p = m v + ω × h`, `L = I ω + h × v`.
fn momentum(pool: &mut Pool, inertia: &RigidInertia, (v, omega): (Vec3, Vec3)) -> (Vec3, Vec3) {
    let mv = pool.scale3(inertia.mass, v);
    let turn = pool.cross3(omega, inertia.first_moment);
    let spin = pool.mat_vec(&inertia.rotational, omega);
    let lever = pool.cross3(inertia.first_moment, v);
    (pool.add3(mv, turn), pool.add3(spin, lever))
}

/// One velocity coordinate of a tree body: its slot in `M`, the factor of
/// a follower (`None` for 1) and its motion-subspace column.
#[derive(Clone, Copy)]
struct Dof {
    index: usize,
    multiplier: Option<Id>,
    column: (Vec3, Vec3),
}

/// Symmetric accumulation of `Gᵀ M_tree G` into the upper triangle.
struct Upper {
    entries: Vec<Vec<Id>>,
}

impl Upper {
    /// Adds the tree entry `x` of the unordered pair of tree coordinates
    /// `a`, `b` (`same` when they are one coordinate): `k_a k_b x` to
    /// `(a, b)` and to `(b, a)`, twice to a diagonal entry that two
    /// distinct tree coordinates share (a leader and its follower).
    fn add(&mut self, pool: &mut Pool, a: &Dof, b: &Dof, x: Id, same: bool) {
        if pool.is_zero(x) {
            return;
        }
        let (r, c) = (a.index.min(b.index), a.index.max(b.index));
        let mut term = x;
        for k in [a.multiplier, b.multiplier].into_iter().flatten() {
            term = pool.mul(k, term);
        }
        if !same && r == c {
            term = pool.scale(Coeff::int(2), term);
        }
        if let Some(slot) = self.entries.get_mut(r).and_then(|row| row.get_mut(c)) {
            *slot = pool.add(*slot, term);
        }
    }
}

/// The CRBA with `inertias[k]` standing for body `k`, each column's first
/// step taken as `first_step` says.
fn crba(
    mechanism: &mut Mechanism,
    inertias: &[RigidInertia],
    first_step: FirstStep,
) -> Vec<Vec<Id>> {
    let Mechanism {
        pool,
        bodies,
        coordinates,
        ..
    } = mechanism;
    let n = coordinates.len();
    let carries: Vec<Carry> = bodies.iter().map(|b| Carry::of(pool, b)).collect();
    let dofs: Vec<Vec<Dof>> = bodies
        .iter()
        .map(|b| {
            subspace(pool, b)
                .into_iter()
                .enumerate()
                .map(|(i, column)| Dof {
                    index: b.velocity + i,
                    multiplier: b.coupling.as_ref().map(|c| c.multiplier),
                    column,
                })
                .collect()
        })
        .collect();
    let mut composite: Vec<RigidInertia> = inertias.to_vec();
    let mut in_parent: Vec<Option<RigidInertia>> = vec![None; bodies.len()];
    for k in (0..bodies.len()).rev() {
        if let (Some(parent), Some(carry)) = (bodies[k].parent, carries.get(k)) {
            let carried = carry.inertia(pool, &composite[k]);
            composite[parent] = composite[parent].add(pool, &carried);
            in_parent[k] = Some(carried);
        }
    }
    let zero = pool.zero();
    let mut upper = Upper {
        entries: vec![vec![zero; n]; n],
    };
    let project = |pool: &mut Pool, dof: &Dof, (f, n): (Vec3, Vec3)| {
        let (l, a) = dof.column;
        let along = pool.dot3(l, f);
        let about = pool.dot3(a, n);
        pool.add(along, about)
    };
    for j in 0..bodies.len() {
        // The first step of a column from a joint about or along a
        // coordinate axis whose frame is placed by a signed permutation:
        // see the module documentation.
        let exact = first_step == FirstStep::InParent
            && carries[j].sparse
            && coordinate_axis(pool, bodies[j].axis).is_some();
        let parent_column = exact.then(|| parent_subspace(pool, &bodies[j])).flatten();
        for (c, dof) in dofs[j].iter().enumerate() {
            let own = momentum(pool, &composite[j], dof.column);
            for (r, other) in dofs[j].iter().enumerate().take(c + 1) {
                let x = project(pool, other, own);
                upper.add(pool, other, dof, x, r == c);
            }
            let Some(mut at) = bodies[j].parent else {
                continue;
            };
            let mut force = match (&in_parent[j], parent_column) {
                (Some(inertia), Some(column)) => momentum(pool, inertia, column),
                _ => carries[j].force(pool, own),
            };
            loop {
                for other in &dofs[at] {
                    let x = project(pool, other, force);
                    upper.add(pool, other, dof, x, false);
                }
                let Some(parent) = bodies[at].parent else {
                    break;
                };
                force = carries[at].force(pool, force);
                at = parent;
            }
        }
    }
    let mut mass: Vec<Vec<Id>> = (0..n)
        .map(|i| (0..n).map(|j| upper.entries[i.min(j)][i.max(j)]).collect())
        .collect();
    armature::add_to_mass_matrix(pool, bodies, &mut mass);
    mass
}

#[cfg(test)]
mod tests;
