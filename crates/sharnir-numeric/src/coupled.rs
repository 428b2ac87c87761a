//! Coupled ("mimic") coordinates: a tree in which some one-degree-of-freedom
//! joints follow others, reduced to its independent coordinates.
//!
//! URDF mimic joints, gear trains, belts and the two fingers of a parallel
//! gripper all tie one scalar joint coordinate to another by
//! `θ_follower = multiplier · θ_leader + offset`. The independent
//! coordinates are those of every body that is not a follower, in body
//! order. With `G` the constant `nv_full × nv` matrix that copies each
//! independent velocity and scales each leader's velocity into its
//! followers, `q_full` is an affine function of `q`, `v_full = G v` and,
//! because `G` is constant, `a_full = G a`. The dynamics in the independent
//! coordinates are then `Gᵀ` times the full tree's (the principle of virtual
//! power), computed here with the full tree's own algorithms.

use crate::error::TreeError;
use crate::joint_kind::JointKind;
use crate::kinematics::Pose;
use crate::tree::Tree;

/// One follower joint driven by a leader joint, both revolute or prismatic:
/// `q_follower = multiplier · q_leader + offset` (radians or metres), hence
/// `q̇_follower = multiplier · q̇_leader`.
///
/// Exists to describe URDF mimic joints and mechanical couplings (gears,
/// belts, symmetric grippers) without a constraint solver: the follower
/// simply stops being a degree of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coupling {
    /// Index in [`Tree::bodies`] of the body whose inboard joint follows.
    pub follower: usize,
    /// Index in [`Tree::bodies`] of the body whose inboard joint leads; it
    /// must not itself be a follower, and may come before or after the
    /// follower in body order.
    pub leader: usize,
    /// `∂q_follower / ∂q_leader`, unitless when both joints are of the same
    /// kind (m/rad or rad/m otherwise); negative for opposite motion.
    pub multiplier: f64,
    /// The follower's coordinate when the leader's is zero, in the
    /// follower's units.
    pub offset: f64,
}

/// Where one coordinate of the full tree comes from:
/// `full = weight · reduced[index] + offset`.
///
/// Each row of `G` has exactly one such entry, so `G` is stored as one
/// source per full coordinate instead of as a dense matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Source {
    /// The independent coordinate.
    index: usize,
    /// Its factor: 1 for an independent coordinate, the multiplier for a
    /// follower.
    weight: f64,
    /// Added to positions only; 0 for velocity-like rows.
    offset: f64,
}

impl Source {
    /// An independent coordinate copied unchanged.
    fn copy(index: usize) -> Source {
        Source {
            index,
            weight: 1.0,
            offset: 0.0,
        }
    }
}

/// A [`Tree`] together with its couplings, seen in its independent
/// coordinates.
///
/// Exists so that models with mimic joints get their inverse dynamics, mass
/// matrix, forward dynamics and energy in the coordinates a simulator
/// actually integrates, checked once for consistency at construction.
/// Position vectors have [`CoupledTree::nq`] entries and velocity-like
/// vectors [`CoupledTree::nv`], laid out like the tree's with every
/// follower's coordinate removed. The fields are private because the
/// layout is derived from them once, in [`CoupledTree::new`]; use
/// [`CoupledTree::into_parts`] to change them and build anew.
#[derive(Clone, Debug, PartialEq)]
pub struct CoupledTree {
    /// The full tree, every joint with its own coordinates.
    tree: Tree,
    /// The couplings, as given.
    couplings: Vec<Coupling>,
    /// One source per position coordinate of the full tree.
    positions: Vec<Source>,
    /// One source per velocity coordinate of the full tree: the rows of `G`.
    velocities: Vec<Source>,
    /// Number of independent position coordinates.
    nq: usize,
    /// Number of independent velocity coordinates.
    nv: usize,
}

impl CoupledTree {
    /// Checks the couplings against `tree` and derives the independent
    /// coordinates.
    ///
    /// Fails if a coupling names a body the tree does not have
    /// ([`TreeError::CouplingBodyOutOfRange`]), joins a joint that is not
    /// revolute or prismatic ([`TreeError::CoupledJointKind`]), has a
    /// non-finite multiplier or offset ([`TreeError::CouplingNotFinite`]),
    /// drives a body that another coupling already drives
    /// ([`TreeError::FollowedTwice`]) or is led by a follower
    /// ([`TreeError::LeaderIsFollower`]). A leader may have any number of
    /// followers. The tree's own parent numbering is checked by each
    /// algorithm, as for [`Tree`].
    pub fn new(tree: Tree, couplings: Vec<Coupling>) -> Result<CoupledTree, TreeError> {
        let drivers = drivers(&tree, &couplings)?;
        // Where each independent body's coordinates start in the reduced
        // vectors; `None` for followers.
        let mut starts = Vec::with_capacity(tree.bodies.len());
        let (mut nq, mut nv) = (0, 0);
        for (body, driver) in tree.bodies.iter().zip(&drivers) {
            if driver.is_some() {
                starts.push(None);
            } else {
                starts.push(Some((nq, nv)));
                nq += body.joint.nq();
                nv += body.joint.nv();
            }
        }
        let mut positions = Vec::with_capacity(tree.nq());
        let mut velocities = Vec::with_capacity(tree.nv());
        for ((body, driver), start) in tree.bodies.iter().zip(&drivers).zip(&starts) {
            match (driver, start) {
                (Some((index, c)), _) => {
                    // `drivers` has checked that the leader exists and is not
                    // a follower, so it has a start; its joint has one
                    // coordinate, so the start is that coordinate.
                    let Some(Some((q_leader, v_leader))) = starts.get(c.leader).copied() else {
                        return Err(TreeError::LeaderIsFollower {
                            coupling: *index,
                            leader: c.leader,
                        });
                    };
                    positions.push(Source {
                        index: q_leader,
                        weight: c.multiplier,
                        offset: c.offset,
                    });
                    velocities.push(Source {
                        index: v_leader,
                        weight: c.multiplier,
                        offset: 0.0,
                    });
                }
                (None, Some((q0, v0))) => {
                    positions.extend((0..body.joint.nq()).map(|k| Source::copy(q0 + k)));
                    velocities.extend((0..body.joint.nv()).map(|k| Source::copy(v0 + k)));
                }
                // Every body without a driver got a start above.
                (None, None) => {}
            }
        }
        Ok(CoupledTree {
            tree,
            couplings,
            positions,
            velocities,
            nq,
            nv,
        })
    }

    /// The full tree, for the quantities this type does not wrap (e.g.
    /// [`Tree::body_velocities`] of [`CoupledTree::expand_velocities`]).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The couplings, in the order given to [`CoupledTree::new`], which is
    /// the order error messages number them in.
    pub fn couplings(&self) -> &[Coupling] {
        &self.couplings
    }

    /// The tree and the couplings back, to edit them and build a new
    /// [`CoupledTree`] (the layout depends on both).
    pub fn into_parts(self) -> (Tree, Vec<Coupling>) {
        (self.tree, self.couplings)
    }

    /// Number of independent position coordinates: the length of `q`.
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// Number of independent velocity coordinates (degrees of freedom): the
    /// length of velocities, accelerations and joint forces, and the size of
    /// the mass matrix.
    pub fn nv(&self) -> usize {
        self.nv
    }

    /// The full tree's configuration (length [`Tree::nq`]) at independent
    /// configuration `q`: every follower placed at
    /// `multiplier · q_leader + offset`.
    ///
    /// Exists so that callers can hand a coupled state to anything written
    /// for plain trees, such as drawing code or generated functions.
    pub fn expand_positions(&self, q: &[f64]) -> Result<Vec<f64>, TreeError> {
        check_length("q", q, self.nq)?;
        Ok(expand(&self.positions, q))
    }

    /// `G qd`: the full tree's velocities (length [`Tree::nv`]) at
    /// independent velocities `qd`. Because `G` is constant this also maps
    /// accelerations, `qdd_full = G qdd`.
    pub fn expand_velocities(&self, qd: &[f64]) -> Result<Vec<f64>, TreeError> {
        check_length("qd", qd, self.nv)?;
        Ok(expand(&self.velocities, qd))
    }

    /// `Gᵀ tau_full`: the generalised forces on the independent coordinates
    /// that do the same virtual work as the full tree's joint forces
    /// `tau_full` (length [`Tree::nv`]).
    ///
    /// Exists for actuators that act on a follower joint: their torque
    /// reaches the leader scaled by the multiplier.
    pub fn project_forces(&self, tau_full: &[f64]) -> Result<Vec<f64>, TreeError> {
        check_length("tau_full", tau_full, self.tree.nv())?;
        Ok(self.project(tau_full))
    }

    /// The generalised forces `τ = Gᵀ τ_full(q_full, G qd, G qdd)` that
    /// produce the independent accelerations `qdd` at state (`q`, `qd`).
    ///
    /// The full tree's RNEA gives the joint forces for the expanded motion;
    /// projecting them by `Gᵀ` removes the work-less coupling forces.
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
    ) -> Result<Vec<f64>, TreeError> {
        check_length("qdd", qdd, self.nv)?;
        let (q_full, qd_full) = self.expand_state(q, qd)?;
        let qdd_full = expand(&self.velocities, qdd);
        let tau_full = self.tree.inverse_dynamics(&q_full, &qd_full, &qdd_full)?;
        Ok(self.project(&tau_full))
    }

    /// The bias forces `Gᵀ bias_full`: the generalised forces needed for
    /// zero independent acceleration, so that `M qdd + bias = τ`. No `Ġ qd`
    /// term appears because `G` is constant.
    pub fn bias(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, TreeError> {
        let (q_full, qd_full) = self.expand_state(q, qd)?;
        Ok(self.project(&self.tree.bias(&q_full, &qd_full)?))
    }

    /// The mass matrix in independent coordinates, `Gᵀ M_full G`
    /// ([`CoupledTree::nv`] square, as rows), from the tree's CRBA.
    ///
    /// Symmetric positive definite whenever the full one is, because `G`
    /// has full column rank (every independent coordinate has a row of its
    /// own); the result is symmetrised so that the symmetry is exact.
    pub fn mass_matrix(&self, q: &[f64]) -> Result<Vec<Vec<f64>>, TreeError> {
        check_length("q", q, self.nq)?;
        let full = self.tree.mass_matrix(&expand(&self.positions, q))?;
        let mut reduced = vec![vec![0.0; self.nv]; self.nv];
        // Every `Source::index` is below `nv` by construction in `new`.
        for (row, r) in full.iter().zip(&self.velocities) {
            for (&entry, c) in row.iter().zip(&self.velocities) {
                reduced[r.index][c.index] += r.weight * c.weight * entry;
            }
        }
        // Entries (i, j) and (j, i) summed the same products in different
        // orders; their mean is the same number both ways.
        let symmetric = (0..self.nv)
            .map(|i| {
                (0..self.nv)
                    .map(|j| 0.5 * (reduced[i][j] + reduced[j][i]))
                    .collect()
            })
            .collect();
        Ok(symmetric)
    }

    /// The independent accelerations `qdd = M⁻¹ (tau − bias)` produced by
    /// the generalised forces `tau`, with `M` and `bias` as above and a
    /// Cholesky factorisation of `M`.
    ///
    /// The articulated-body algorithm cannot be used directly, since a
    /// coupling ties joints across the tree; this O(n³) route is meant as an
    /// oracle and for small models. Fails with
    /// [`TreeError::SingularMassMatrix`] if `M` is not positive definite.
    pub fn forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
    ) -> Result<Vec<f64>, TreeError> {
        check_length("tau", tau, self.nv)?;
        let bias = self.bias(q, qd)?;
        let mass = self.mass_matrix(q)?;
        let rhs = tau.iter().zip(&bias).map(|(t, b)| t - b).collect();
        solve_positive_definite(mass, rhs)
            .map_err(|coordinate| TreeError::SingularMassMatrix { coordinate })
    }

    /// `(T, V)`, the kinetic and potential energy of the expanded state, in
    /// joules (see [`Tree::energy`]).
    ///
    /// Exists for the same power-balance and Lagrangian checks as on a plain
    /// tree, now in the independent coordinates.
    pub fn energy(&self, q: &[f64], qd: &[f64]) -> Result<(f64, f64), TreeError> {
        let (q_full, qd_full) = self.expand_state(q, qd)?;
        self.tree.energy(&q_full, &qd_full)
    }

    /// Every body's pose in the ground frame at independent configuration
    /// `q`, followers included (see [`Tree::body_poses`]).
    pub fn body_poses(&self, q: &[f64]) -> Result<Vec<Pose>, TreeError> {
        check_length("q", q, self.nq)?;
        self.tree.body_poses(&expand(&self.positions, q))
    }

    /// The expanded configuration and velocities, after checking `q` and
    /// `qd` against the independent lengths.
    fn expand_state(&self, q: &[f64], qd: &[f64]) -> Result<(Vec<f64>, Vec<f64>), TreeError> {
        check_length("q", q, self.nq)?;
        check_length("qd", qd, self.nv)?;
        Ok((expand(&self.positions, q), expand(&self.velocities, qd)))
    }

    /// `Gᵀ x` for a full velocity-like `x` of length [`Tree::nv`].
    fn project(&self, x: &[f64]) -> Vec<f64> {
        let mut reduced = vec![0.0; self.nv];
        // Every `Source::index` is below `nv` by construction in `new`.
        for (source, value) in self.velocities.iter().zip(x) {
            reduced[source.index] += source.weight * value;
        }
        reduced
    }
}

/// For each body, the coupling that drives it (its index in `couplings` and
/// the coupling itself), after checking every coupling against the tree.
fn drivers(
    tree: &Tree,
    couplings: &[Coupling],
) -> Result<Vec<Option<(usize, Coupling)>>, TreeError> {
    let bodies = tree.bodies.len();
    let mut drivers: Vec<Option<(usize, Coupling)>> = vec![None; bodies];
    for (index, c) in couplings.iter().enumerate() {
        for body in [c.follower, c.leader] {
            let joint = tree
                .bodies
                .get(body)
                .ok_or(TreeError::CouplingBodyOutOfRange {
                    coupling: index,
                    body,
                    bodies,
                })?
                .joint;
            if !matches!(joint, JointKind::Revolute | JointKind::Prismatic) {
                return Err(TreeError::CoupledJointKind {
                    coupling: index,
                    body,
                    joint,
                });
            }
        }
        if !(c.multiplier.is_finite() && c.offset.is_finite()) {
            return Err(TreeError::CouplingNotFinite { coupling: index });
        }
        if let Some(slot) = drivers.get_mut(c.follower) {
            if let Some((first, _)) = slot.replace((index, *c)) {
                return Err(TreeError::FollowedTwice {
                    body: c.follower,
                    first,
                    second: index,
                });
            }
        }
    }
    // Only once every follower is known can a leader be recognised as one.
    for (index, c) in couplings.iter().enumerate() {
        if matches!(drivers.get(c.leader), Some(Some(_))) {
            return Err(TreeError::LeaderIsFollower {
                coupling: index,
                leader: c.leader,
            });
        }
    }
    Ok(drivers)
}

/// Refuses `values` unless it has `expected` entries.
fn check_length(argument: &'static str, values: &[f64], expected: usize) -> Result<(), TreeError> {
    if values.len() == expected {
        Ok(())
    } else {
        Err(TreeError::WrongLength {
            argument,
            expected,
            found: values.len(),
        })
    }
}

/// The full vector `weight · reduced[index] + offset`, one entry per source,
/// for a `reduced` of the length the sources were built for.
fn expand(sources: &[Source], reduced: &[f64]) -> Vec<f64> {
    sources
        .iter()
        .map(|s| s.weight * reduced[s.index] + s.offset)
        .collect()
}

/// Solves `matrix · x = rhs` for a symmetric positive-definite `matrix`
/// (square, of the length of `rhs`; only its lower triangle is read) by
/// `matrix = L Lᵀ`, overwriting the lower triangle with `L`.
///
/// `Err` carries the first row whose pivot is not positive (or NaN): the
/// factorisation doubles as the positive-definiteness test. The joint-block
/// [`crate::cholesky::Cholesky`] has a compile-time size; the coupled mass
/// matrix's size is only known at run time.
fn solve_positive_definite(
    mut matrix: Vec<Vec<f64>>,
    mut rhs: Vec<f64>,
) -> Result<Vec<f64>, usize> {
    let n = rhs.len();
    for i in 0..n {
        for j in 0..=i {
            let partial: f64 = (0..j).map(|k| matrix[i][k] * matrix[j][k]).sum();
            let rest = matrix[i][j] - partial;
            if i == j {
                if rest.is_nan() || rest <= 0.0 {
                    return Err(i);
                }
                matrix[i][i] = rest.sqrt();
            } else {
                matrix[i][j] = rest / matrix[j][j];
            }
        }
    }
    // L y = rhs, then Lᵀ x = y, both in place.
    for i in 0..n {
        let partial: f64 = (0..i).map(|k| matrix[i][k] * rhs[k]).sum();
        rhs[i] = (rhs[i] - partial) / matrix[i][i];
    }
    for i in (0..n).rev() {
        let partial: f64 = (i + 1..n).map(|k| matrix[k][i] * rhs[k]).sum();
        rhs[i] = (rhs[i] - partial) / matrix[i][i];
    }
    Ok(rhs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Body;

    type Mat3 = [[f64; 3]; 3];

    /// `v / |v|`.
    fn unit<const N: usize>(v: [f64; N]) -> [f64; N] {
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.map(|x| x / norm)
    }

    /// Rotation by `angle` about x, to give joint frames a non-trivial
    /// orientation.
    fn rot_x(angle: f64) -> Mat3 {
        let (s, c) = angle.sin_cos();
        [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
    }

    /// A body with a tilted joint frame, an offset centre of mass and a full
    /// (non-diagonal, physically valid) inertia, so that no term of the
    /// dynamics vanishes by symmetry.
    fn body(
        parent: Option<usize>,
        joint: JointKind,
        axis: [f64; 3],
        translation: [f64; 3],
        mass: f64,
    ) -> Body {
        Body {
            parent,
            joint,
            axis: unit(axis),
            rotation: rot_x(0.3 + 0.1 * mass),
            translation,
            mass,
            com: [0.1 * mass, -0.05, 0.08],
            inertia: [
                [0.05 * mass, 0.004, -0.002],
                [0.004, 0.07 * mass, 0.003],
                [-0.002, 0.003, 0.06 * mass],
            ],
        }
    }

    const GRAVITY: [f64; 3] = [0.4, -0.3, -9.7];

    /// Five one-degree-of-freedom joints with a branch at body 0:
    /// 0 → 1 → 2 and 0 → 3 → 4.
    fn chain_tree() -> Tree {
        use JointKind::{Prismatic, Revolute};
        Tree {
            bodies: vec![
                body(None, Revolute, [0.0, 0.0, 1.0], [0.0, 0.0, 0.1], 2.0),
                body(Some(0), Revolute, [0.0, 1.0, 0.0], [0.5, 0.0, 0.0], 1.5),
                body(Some(1), Prismatic, [1.0, 0.0, 0.0], [0.4, 0.1, 0.0], 1.0),
                body(Some(0), Revolute, [1.0, 1.0, 0.0], [0.0, 0.3, 0.2], 1.2),
                body(Some(3), Prismatic, [0.0, 1.0, 1.0], [0.2, 0.0, 0.0], 0.8),
            ],
            gravity: GRAVITY,
            armature: Vec::new(),
        }
    }

    /// Body 3 leads two followers: body 1, which comes before it (revolute
    /// from revolute), and body 4 (prismatic from revolute). Independent
    /// coordinates: bodies 0, 2 and 3.
    fn chain() -> CoupledTree {
        let couplings = vec![
            Coupling {
                follower: 1,
                leader: 3,
                multiplier: -0.7,
                offset: 0.2,
            },
            Coupling {
                follower: 4,
                leader: 3,
                multiplier: 0.05,
                offset: 0.1,
            },
        ];
        CoupledTree::new(chain_tree(), couplings).unwrap()
    }

    /// An independent state of [`chain`]: `(q, qd, qdd)`.
    fn chain_state() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        (
            vec![0.4, -0.15, 1.1],
            vec![0.7, -1.3, 0.9],
            vec![1.5, 0.4, -2.0],
        )
    }

    /// A free-floating base (0) carrying 1 (revolute) → 2 (spherical) → 3
    /// (prismatic) and 4 (revolute) → 5 (revolute), so that `nq ≠ nv`.
    fn mixed_tree() -> Tree {
        use JointKind::{Free, Prismatic, Revolute, Spherical};
        Tree {
            bodies: vec![
                body(None, Free, [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], 3.0),
                body(Some(0), Revolute, [1.0, 0.0, 0.0], [0.3, 0.1, 0.0], 1.4),
                body(Some(1), Spherical, [0.0, 0.0, 1.0], [0.0, 0.4, 0.0], 1.1),
                body(Some(2), Prismatic, [0.0, 0.0, 1.0], [0.1, 0.0, 0.3], 0.7),
                body(Some(0), Revolute, [0.0, 1.0, 0.0], [-0.3, 0.0, 0.1], 1.3),
                body(Some(4), Revolute, [0.0, 1.0, 1.0], [0.0, 0.0, -0.4], 0.9),
            ],
            gravity: GRAVITY,
            armature: Vec::new(),
        }
    }

    /// Body 5 follows body 1 and body 3 (prismatic) follows body 4
    /// (revolute). Independent bodies: 0, 1, 2, 4 (nq 13, nv 11).
    fn mixed() -> CoupledTree {
        let couplings = vec![
            Coupling {
                follower: 5,
                leader: 1,
                multiplier: 1.5,
                offset: 0.0,
            },
            Coupling {
                follower: 3,
                leader: 4,
                multiplier: -0.3,
                offset: 0.05,
            },
        ];
        CoupledTree::new(mixed_tree(), couplings).unwrap()
    }

    /// An independent state of [`mixed`]: free base, revolute, spherical,
    /// revolute.
    fn mixed_state() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut q = vec![0.1, -0.2, 0.3];
        q.extend(unit([0.1, 0.2, -0.3, 0.9]));
        q.push(0.6);
        q.extend(unit([-0.4, 0.1, 0.2, 0.8]));
        q.push(-0.9);
        let qd = vec![0.3, -0.5, 0.2, 0.8, -0.4, 1.1, -0.6, 0.5, 0.9, -0.2, 1.2];
        let qdd = vec![1.0, 0.5, -1.5, 0.3, 2.0, -0.7, 1.4, -0.8, 0.6, 1.9, -1.1];
        (q, qd, qdd)
    }

    /// Asserts `|actual − expected|∞ ≤ tolerance · max(1, |expected|∞)`.
    fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64) {
        assert_eq!(actual.len(), expected.len());
        let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        let error = actual
            .iter()
            .zip(expected)
            .fold(0.0_f64, |m, (a, e)| m.max((a - e).abs()));
        assert!(
            error <= tolerance * scale,
            "error {error:e} > {tolerance:e} · {scale}\n  actual   {actual:?}\n  expected {expected:?}"
        );
    }

    /// `x + h · e_i`.
    fn nudged(x: &[f64], i: usize, h: f64) -> Vec<f64> {
        let mut y = x.to_vec();
        y[i] += h;
        y
    }

    /// `x + h · d`.
    fn moved(x: &[f64], d: &[f64], h: f64) -> Vec<f64> {
        x.iter().zip(d).map(|(x, d)| x + h * d).collect()
    }

    #[test]
    fn without_couplings_the_tree_is_unchanged() {
        let tree = mixed_tree();
        let coupled = CoupledTree::new(tree.clone(), Vec::new()).unwrap();
        let (q, qd, qdd) = mixed_state();
        // Pad the state with the coordinates of the no-longer followers.
        let mut q_full = q.clone();
        q_full.insert(12, 0.15); // body 3, after the spherical quaternion
        q_full.push(0.35); // body 5
        let mut qd_full = qd.clone();
        qd_full.insert(10, -0.45);
        qd_full.push(0.25);
        let mut qdd_full = qdd.clone();
        qdd_full.insert(10, 0.85);
        qdd_full.push(-1.3);
        assert_eq!((coupled.nq(), coupled.nv()), (tree.nq(), tree.nv()));
        assert_eq!(coupled.expand_positions(&q_full).unwrap(), q_full);
        assert_eq!(coupled.expand_velocities(&qd_full).unwrap(), qd_full);
        let tau = tree.inverse_dynamics(&q_full, &qd_full, &qdd_full).unwrap();
        assert_eq!(
            coupled
                .inverse_dynamics(&q_full, &qd_full, &qdd_full)
                .unwrap(),
            tau
        );
        // Equal up to the symmetrisation: the tree's CRBA fills a
        // multi-coordinate joint's own block entry by entry, symmetric only
        // to rounding.
        let mass = coupled.mass_matrix(&q_full).unwrap();
        for (row, expected) in mass.iter().zip(tree.mass_matrix(&q_full).unwrap()) {
            assert_close(row, &expected, 1e-15);
        }
        // Cholesky against the articulated-body algorithm.
        assert_close(
            &coupled.forward_dynamics(&q_full, &qd_full, &tau).unwrap(),
            &tree.forward_dynamics(&q_full, &qd_full, &tau).unwrap(),
            1e-10,
        );
    }

    #[test]
    fn inverse_dynamics_is_lagrange_equations_of_the_reduced_energy() {
        // With independent coordinates that are all angles and slides,
        // q̇ = qd and τ = d/dt ∂T/∂qd − ∂T/∂q + ∂V/∂q. T is quadratic in qd,
        // so a central difference of step 1 in qd is exact; the others use
        // step ε.
        let coupled = chain();
        let (q, qd, qdd) = chain_state();
        let kinetic = |q: &[f64], qd: &[f64]| coupled.energy(q, qd).unwrap().0;
        let potential = |q: &[f64]| coupled.energy(q, &[0.0; 3]).unwrap().1;
        let momentum = |q: &[f64], qd: &[f64], i: usize| {
            0.5 * (kinetic(q, &nudged(qd, i, 1.0)) - kinetic(q, &nudged(qd, i, -1.0)))
        };
        let eps = 1e-5;
        let lagrange: Vec<f64> = (0..coupled.nv())
            .map(|i| {
                let forward = momentum(&moved(&q, &qd, eps), &moved(&qd, &qdd, eps), i);
                let backward = momentum(&moved(&q, &qd, -eps), &moved(&qd, &qdd, -eps), i);
                let rate = (forward - backward) / (2.0 * eps);
                let dt_dq = (kinetic(&nudged(&q, i, eps), &qd)
                    - kinetic(&nudged(&q, i, -eps), &qd))
                    / (2.0 * eps);
                let dv_dq = (potential(&nudged(&q, i, eps)) - potential(&nudged(&q, i, -eps)))
                    / (2.0 * eps);
                rate - dt_dq + dv_dq
            })
            .collect();
        let tau = coupled.inverse_dynamics(&q, &qd, &qdd).unwrap();
        assert_close(&tau, &lagrange, 1e-8);
        // The coupling matters: the uncoupled tree at the expanded state
        // gives other forces on the independent joints.
        let q_full = coupled.expand_positions(&q).unwrap();
        let qd_full = coupled.expand_velocities(&qd).unwrap();
        let qdd_full = coupled.expand_velocities(&qdd).unwrap();
        let tau_full = coupled
            .tree()
            .inverse_dynamics(&q_full, &qd_full, &qdd_full)
            .unwrap();
        let independent = [tau_full[0], tau_full[2], tau_full[3]];
        assert!(
            (independent[2] - tau[2]).abs() > 1e-3,
            "{independent:?} vs {tau:?}"
        );
    }

    #[test]
    fn mass_matrix_is_the_hessian_of_the_kinetic_energy() {
        // For T = ½ vᵀ M v: M_ii = 2 T(e_i), M_ij = T(e_i + e_j) − T(e_i) − T(e_j).
        for (coupled, (q, _, _)) in [(chain(), chain_state()), (mixed(), mixed_state())] {
            let n = coupled.nv();
            let kinetic = |v: &[f64]| coupled.energy(&q, v).unwrap().0;
            let e = |i: usize| nudged(&vec![0.0; n], i, 1.0);
            let mass = coupled.mass_matrix(&q).unwrap();
            for i in 0..n {
                let mut hessian: Vec<f64> = (0..n)
                    .map(|j| kinetic(&moved(&e(i), &e(j), 1.0)) - kinetic(&e(i)) - kinetic(&e(j)))
                    .collect();
                hessian[i] = 2.0 * kinetic(&e(i));
                assert_close(&mass[i], &hessian, 1e-12);
            }
        }
    }

    #[test]
    fn forward_dynamics_inverts_inverse_dynamics() {
        for (coupled, (q, qd, qdd)) in [(chain(), chain_state()), (mixed(), mixed_state())] {
            let tau = coupled.inverse_dynamics(&q, &qd, &qdd).unwrap();
            let back = coupled.forward_dynamics(&q, &qd, &tau).unwrap();
            assert_close(&back, &qdd, 1e-10);
            // And M qdd + bias = τ ties the three routines together.
            let mass = coupled.mass_matrix(&q).unwrap();
            let bias = coupled.bias(&q, &qd).unwrap();
            let sum: Vec<f64> = mass
                .iter()
                .zip(&bias)
                .map(|(row, b)| row.iter().zip(&qdd).map(|(m, a)| m * a).sum::<f64>() + b)
                .collect();
            assert_close(&sum, &tau, 1e-12);
        }
    }

    #[test]
    fn mass_matrix_is_symmetric_positive_definite() {
        for (coupled, (q, qd, _)) in [(chain(), chain_state()), (mixed(), mixed_state())] {
            let mass = coupled.mass_matrix(&q).unwrap();
            for (i, row) in mass.iter().enumerate() {
                for (j, &entry) in row.iter().enumerate() {
                    assert_eq!(entry, mass[j][i], "M[{i}][{j}]");
                }
            }
            // Positive definite: the Cholesky factorisation succeeds, and
            // vᵀ M v = 2 T > 0.
            let n = coupled.nv();
            assert!(solve_positive_definite(mass.clone(), vec![1.0; n]).is_ok());
            let quadratic: f64 = mass
                .iter()
                .zip(&qd)
                .map(|(row, vi)| vi * row.iter().zip(&qd).map(|(m, v)| m * v).sum::<f64>())
                .sum();
            let kinetic = coupled.energy(&q, &qd).unwrap().0;
            assert!(kinetic > 0.0);
            assert!(
                (quadratic - 2.0 * kinetic).abs() < 1e-12 * kinetic,
                "{quadratic} vs {kinetic}"
            );
        }
    }

    #[test]
    fn reduced_and_full_forces_do_the_same_virtual_power() {
        for (coupled, (q, qd, qdd)) in [(chain(), chain_state()), (mixed(), mixed_state())] {
            let tau = coupled.inverse_dynamics(&q, &qd, &qdd).unwrap();
            let q_full = coupled.expand_positions(&q).unwrap();
            let qd_full = coupled.expand_velocities(&qd).unwrap();
            let qdd_full = coupled.expand_velocities(&qdd).unwrap();
            let tau_full = coupled
                .tree()
                .inverse_dynamics(&q_full, &qd_full, &qdd_full)
                .unwrap();
            let reduced: f64 = qd.iter().zip(&tau).map(|(v, t)| v * t).sum();
            let full: f64 = qd_full.iter().zip(&tau_full).map(|(v, t)| v * t).sum();
            assert!(
                (reduced - full).abs() < 1e-12 * full.abs().max(1.0),
                "{reduced} vs {full}"
            );
            assert_eq!(coupled.project_forces(&tau_full).unwrap(), tau);
        }
    }

    #[test]
    fn stacked_sliders_match_their_closed_form() {
        // Two vertical sliders, the upper following the lower with factor k:
        // heights x and (1 + k) x + c, so M = m₀ + m₁ (1 + k)² and the
        // weight on the leader is g (m₀ + m₁ (1 + k)).
        let (m0, m1, k, c, g) = (2.0, 0.5, 3.0, 0.25, 9.81);
        let slider = |parent, mass| Body {
            parent,
            joint: JointKind::Prismatic,
            axis: [0.0, 0.0, 1.0],
            rotation: rot_x(0.0),
            translation: [0.0; 3],
            mass,
            com: [0.0; 3],
            inertia: [[0.01, 0.0, 0.0], [0.0, 0.01, 0.0], [0.0, 0.0, 0.01]],
        };
        let tree = Tree {
            bodies: vec![slider(None, m0), slider(Some(0), m1)],
            gravity: [0.0, 0.0, -g],
            armature: Vec::new(),
        };
        let coupling = Coupling {
            follower: 1,
            leader: 0,
            multiplier: k,
            offset: c,
        };
        let coupled = CoupledTree::new(tree, vec![coupling]).unwrap();
        assert_eq!((coupled.nq(), coupled.nv()), (1, 1));
        let (x, v, a) = (0.4, -1.2, 0.7);
        assert_close(
            &coupled.expand_positions(&[x]).unwrap(),
            &[x, k * x + c],
            1e-15,
        );
        let mass = m0 + m1 * (1.0 + k) * (1.0 + k);
        let weight = g * (m0 + m1 * (1.0 + k));
        assert_close(&coupled.mass_matrix(&[x]).unwrap()[0], &[mass], 1e-14);
        let tau = coupled.inverse_dynamics(&[x], &[v], &[a]).unwrap();
        assert_close(&tau, &[mass * a + weight], 1e-14);
        let (kinetic, potential) = coupled.energy(&[x], &[v]).unwrap();
        assert!((kinetic - 0.5 * mass * v * v).abs() < 1e-13, "{kinetic}");
        let height = m0 * x + m1 * ((1.0 + k) * x + c);
        assert!((potential - g * height).abs() < 1e-13, "{potential}");
    }

    #[test]
    fn followers_are_placed_by_the_coupling() {
        // A planar two-link arm whose elbow follows its shoulder:
        // θ₁ = −2 θ₀ + 0.3, so the forearm's absolute angle is 0.3 − θ₀.
        let link = |parent, translation| Body {
            parent,
            joint: JointKind::Revolute,
            axis: [0.0, 0.0, 1.0],
            rotation: rot_x(0.0),
            translation,
            mass: 1.0,
            com: [0.5, 0.0, 0.0],
            inertia: [[0.01, 0.0, 0.0], [0.0, 0.08, 0.0], [0.0, 0.0, 0.08]],
        };
        let tree = Tree {
            bodies: vec![link(None, [0.0; 3]), link(Some(0), [1.0, 0.0, 0.0])],
            gravity: [0.0, -9.81, 0.0],
            armature: Vec::new(),
        };
        let coupling = Coupling {
            follower: 1,
            leader: 0,
            multiplier: -2.0,
            offset: 0.3,
        };
        let coupled = CoupledTree::new(tree, vec![coupling]).unwrap();
        let theta = 0.7;
        let poses = coupled.body_poses(&[theta]).unwrap();
        let (rotation, origin) = poses[1];
        let absolute = 0.3 - theta;
        assert_close(
            &[rotation[0][0], rotation[1][0], rotation[0][1]],
            &[absolute.cos(), absolute.sin(), -absolute.sin()],
            1e-15,
        );
        assert_close(&origin, &[theta.cos(), theta.sin(), 0.0], 1e-15);
        assert_close(
            &coupled.expand_velocities(&[1.5]).unwrap(),
            &[1.5, -3.0],
            1e-15,
        );
        // A torque on the follower reaches the leader scaled by −2.
        assert_close(
            &coupled.project_forces(&[0.5, 1.0]).unwrap(),
            &[-1.5],
            1e-15,
        );
    }

    #[test]
    fn invalid_couplings_are_refused() {
        let couple = |follower, leader| Coupling {
            follower,
            leader,
            multiplier: 1.0,
            offset: 0.0,
        };
        let build = |couplings: Vec<Coupling>| CoupledTree::new(mixed_tree(), couplings);
        assert_eq!(
            build(vec![couple(1, 4), couple(9, 4)]),
            Err(TreeError::CouplingBodyOutOfRange {
                coupling: 1,
                body: 9,
                bodies: 6
            })
        );
        assert_eq!(
            build(vec![couple(1, 6)]),
            Err(TreeError::CouplingBodyOutOfRange {
                coupling: 0,
                body: 6,
                bodies: 6
            })
        );
        assert_eq!(
            build(vec![couple(2, 1)]),
            Err(TreeError::CoupledJointKind {
                coupling: 0,
                body: 2,
                joint: JointKind::Spherical
            })
        );
        assert_eq!(
            build(vec![couple(1, 0)]),
            Err(TreeError::CoupledJointKind {
                coupling: 0,
                body: 0,
                joint: JointKind::Free
            })
        );
        let mut nan = couple(5, 1);
        nan.multiplier = f64::NAN;
        assert_eq!(
            build(vec![nan]),
            Err(TreeError::CouplingNotFinite { coupling: 0 })
        );
        nan.multiplier = 1.0;
        nan.offset = f64::INFINITY;
        assert_eq!(
            build(vec![nan]),
            Err(TreeError::CouplingNotFinite { coupling: 0 })
        );
        assert_eq!(
            build(vec![couple(5, 1), couple(3, 4), couple(5, 4)]),
            Err(TreeError::FollowedTwice {
                body: 5,
                first: 0,
                second: 2
            })
        );
        // A chain 5 ← 4 ← 1, in either order, and a joint following itself.
        assert_eq!(
            build(vec![couple(5, 4), couple(4, 1)]),
            Err(TreeError::LeaderIsFollower {
                coupling: 0,
                leader: 4
            })
        );
        assert_eq!(
            build(vec![couple(4, 1), couple(5, 4)]),
            Err(TreeError::LeaderIsFollower {
                coupling: 1,
                leader: 4
            })
        );
        assert_eq!(
            build(vec![couple(4, 4)]),
            Err(TreeError::LeaderIsFollower {
                coupling: 0,
                leader: 4
            })
        );
        // Every message names the offending coupling or body.
        let error = build(vec![couple(4, 1), couple(5, 4)]).unwrap_err();
        assert!(error.to_string().contains("body 4"), "{error}");
    }

    #[test]
    fn wrong_lengths_are_refused() {
        let coupled = mixed();
        let (q, qd, qdd) = mixed_state();
        let wrong = |argument, expected, found| {
            Err::<(), _>(TreeError::WrongLength {
                argument,
                expected,
                found,
            })
        };
        let short = &q[..12];
        assert_eq!(
            coupled.expand_positions(short).map(drop),
            wrong("q", 13, 12)
        );
        assert_eq!(coupled.expand_velocities(&q).map(drop), wrong("qd", 11, 13));
        assert_eq!(
            coupled.project_forces(&qd).map(drop),
            wrong("tau_full", 13, 11)
        );
        assert_eq!(
            coupled.inverse_dynamics(short, &qd, &qdd).map(drop),
            wrong("q", 13, 12)
        );
        assert_eq!(
            coupled.inverse_dynamics(&q, &q, &qdd).map(drop),
            wrong("qd", 11, 13)
        );
        assert_eq!(
            coupled.inverse_dynamics(&q, &qd, &q).map(drop),
            wrong("qdd", 11, 13)
        );
        assert_eq!(coupled.bias(&q, &[]).map(drop), wrong("qd", 11, 0));
        assert_eq!(coupled.mass_matrix(&qd).map(drop), wrong("q", 13, 11));
        assert_eq!(
            coupled.forward_dynamics(&q, &qd, &q).map(drop),
            wrong("tau", 11, 13)
        );
        assert_eq!(
            coupled.forward_dynamics(&qd, &qd, &qd).map(drop),
            wrong("q", 13, 11)
        );
        assert_eq!(coupled.energy(&q, &qdd[1..]).map(drop), wrong("qd", 11, 10));
        assert_eq!(coupled.body_poses(&[]).map(drop), wrong("q", 13, 0));
    }

    #[test]
    fn degenerate_models_are_reported() {
        // Massless bodies: the mass matrix is zero, not positive definite.
        let mut tree = chain_tree();
        for body in &mut tree.bodies {
            body.mass = 0.0;
            body.inertia = [[0.0; 3]; 3];
        }
        let coupled = CoupledTree::new(tree, chain().into_parts().1).unwrap();
        let (q, qd, tau) = chain_state();
        assert_eq!(
            coupled.forward_dynamics(&q, &qd, &tau),
            Err(TreeError::SingularMassMatrix { coordinate: 0 })
        );
        // A badly numbered tree is reported by the tree's own check.
        let mut tree = chain_tree();
        tree.bodies[2].parent = Some(4);
        let coupled = CoupledTree::new(tree, chain().into_parts().1).unwrap();
        assert_eq!(
            coupled.inverse_dynamics(&q, &qd, &tau),
            Err(TreeError::ParentOrder { body: 2, parent: 4 })
        );
    }
}
