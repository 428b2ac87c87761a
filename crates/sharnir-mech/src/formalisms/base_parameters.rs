//! Base inertial parameters: the part of a body's inertia that its own joint
//! cannot feel is regrouped into the parent (Khalil and Kleinfinger).
//!
//! Joint forces are linear in the bodies' inertias, and some combinations of
//! a body's inertia move with the parent no matter what the joint does. Take
//! a revolute joint with unit axis `a` through the body origin. The part
//! ```text
//! mass m,   first moment (a·h) a,   rotational inertia A (1 − a aᵀ)
//! ```
//! (`h = m c` the body's first moment, `A` any number) is unchanged by a
//! rotation about `a` and has no momentum when the body spins about `a`: its
//! mass sits on the axis and its inertia about the axis is zero. It therefore
//! has the same kinetic and potential energy whether it is welded to the body
//! or to the parent, and moving it there leaves every joint force unchanged.
//! After the move the body keeps no mass, a first moment perpendicular to the
//! axis and, with `A` one of the diagonal entries across the axis, one zero
//! moment of inertia — Khalil's `XXR = XX − YY`, `MZ` and `M` grouped into
//! the parent. A prismatic joint moves its body's whole rotational inertia to
//! the parent (a translation cannot excite it), and a spherical joint its
//! mass (a point mass at the centre of rotation).
//!
//! Bodies are processed from the leaves, so what a body receives from its
//! children is regrouped further towards the root. A body on a fixed ground
//! drops what it would move there, and a revolute one keeps only its moment
//! of inertia about the axis and, when gravity has a component across the
//! axis, its first moment across it: nothing else reaches its joint force.
//! The result reproduces `τ(q, q̇, q̈)` (and so `M`, the bias and gravity)
//! exactly with many inertial parameters zero; it does not reproduce the
//! individual bodies' momenta or the constant part of the potential energy,
//! so only the joint-force derivations use it.

use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{JointKind, Mechanism, TreeBody};
use sharnir_cas::{Coeff, Id, Pool};

/// A body's inertia about its frame origin, body axes: mass, first moment
/// `m c` and rotational inertia about the origin.
///
/// This is the form in which inertias add and regroup: it needs no centre of
/// mass, so a body whose mass has been regrouped into its parent still has
/// one.
#[derive(Clone, Copy, Debug)]
pub struct RigidInertia {
    /// Mass.
    pub mass: Id,
    /// First moment of mass about the origin, `m c`.
    pub first_moment: Vec3,
    /// Inertia tensor about the origin, `I_c + m (|c|² 1 − c cᵀ)`.
    pub rotational: Mat3,
}

impl RigidInertia {
    /// The body's own inertia, from its mass, centre of mass and central
    /// inertia.
    pub fn of_body(pool: &mut Pool, body: &TreeBody) -> RigidInertia {
        let (m, c, j) = (body.mass, body.com, body.inertia);
        let h = pool.scale3(m, c);
        let mut rotational = j;
        for i in 0..3 {
            for k in i..3 {
                let shift = if i == k {
                    let (b, d) = ((i + 1) % 3, (i + 2) % 3);
                    let cb = pool.mul(h[b], c[b]);
                    let cd = pool.mul(h[d], c[d]);
                    pool.add(cb, cd)
                } else {
                    let p = pool.mul(h[i], c[k]);
                    pool.neg(p)
                };
                rotational[i][k] = pool.add(j[i][k], shift);
                rotational[k][i] = rotational[i][k];
            }
        }
        RigidInertia {
            mass: m,
            first_moment: h,
            rotational,
        }
    }

    /// No inertia at all: what a massless auxiliary body has.
    pub fn zero(pool: &mut Pool) -> RigidInertia {
        let z = pool.zero();
        RigidInertia {
            mass: z,
            first_moment: [z; 3],
            rotational: [[z; 3]; 3],
        }
    }

    /// The inertia of the two bodies welded together (both about the same
    /// origin, same axes): what regrouping and composite inertias sum.
    pub(crate) fn add(&self, pool: &mut Pool, other: &RigidInertia) -> RigidInertia {
        let mut rotational = self.rotational;
        for (row, other_row) in rotational.iter_mut().zip(&other.rotational) {
            for (entry, &o) in row.iter_mut().zip(other_row) {
                *entry = pool.add(*entry, o);
            }
        }
        RigidInertia {
            mass: pool.add(self.mass, other.mass),
            first_moment: pool.add3(self.first_moment, other.first_moment),
            rotational,
        }
    }

    /// The same inertia in a frame where this one sits at `rotation` and
    /// `origin` (`p_new = origin + rotation · p`):
    /// `I' = E I Eᵀ + 2 (t·h') 1 − t h'ᵀ − h' tᵀ + m (|t|² 1 − t tᵀ)`, `h' = E h`.
    fn carried(&self, pool: &mut Pool, rotation: &Mat3, origin: Vec3) -> RigidInertia {
        let turned = pool.mat_vec(rotation, self.first_moment);
        let carried_mass = pool.scale3(self.mass, origin);
        let first_moment = pool.add3(turned, carried_mass);
        let mut rotational = pool.rotate_symmetric(rotation, &self.rotational);
        let t_dot_h = pool.dot3(origin, turned);
        let t_squared = pool.dot3(origin, origin);
        let t_squared_m = pool.mul(self.mass, t_squared);
        let diagonal = {
            let twice = pool.scale(Coeff::int(2), t_dot_h);
            pool.add(twice, t_squared_m)
        };
        for i in 0..3 {
            for k in i..3 {
                let cross = {
                    let a = pool.mul(origin[i], turned[k]);
                    let b = pool.mul(turned[i], origin[k]);
                    let tt = pool.mul(origin[i], origin[k]);
                    let mtt = pool.mul(self.mass, tt);
                    let ab = pool.add(a, b);
                    pool.add(ab, mtt)
                };
                let shift = if i == k {
                    pool.sub(diagonal, cross)
                } else {
                    pool.neg(cross)
                };
                rotational[i][k] = pool.add(rotational[i][k], shift);
                rotational[k][i] = rotational[i][k];
            }
        }
        RigidInertia {
            mass: self.mass,
            first_moment,
            rotational,
        }
    }
}

/// Every body's inertia after regrouping, in [`Mechanism::bodies`] order:
/// inertias with which Newton–Euler gives the same joint forces as with the
/// bodies' own, and with as many parameters zero as the rules above allow.
pub fn base_inertias(mechanism: &mut Mechanism) -> Vec<RigidInertia> {
    let own: Vec<RigidInertia> = {
        let Mechanism { pool, bodies, .. } = mechanism;
        bodies
            .iter()
            .map(|body| RigidInertia::of_body(pool, body))
            .collect()
    };
    regroup(mechanism, own)
}

/// `inertias` (one per tree body, in [`Mechanism::bodies`] order) after
/// regrouping by the rules above: the same joint forces, with as many
/// parameters zero as the rules allow. The inertias may be any expressions,
/// symbols included: the rules read only the geometry and gravity, and
/// every step is linear in the inertias, so regrouping symbols gives each
/// regrouped parameter as a linear combination of the bodies' own, exact
/// for every value of the geometric parameters.
pub fn regroup(mechanism: &mut Mechanism, inertias: Vec<RigidInertia>) -> Vec<RigidInertia> {
    let Mechanism {
        pool,
        bodies,
        gravity,
        ..
    } = mechanism;
    let mut inertias = inertias;
    for (k, body) in bodies.iter().enumerate().rev() {
        let (kept, moved) = split(pool, body, &inertias[k]);
        inertias[k] = match body.parent {
            Some(parent) => {
                let carried = moved.carried(pool, &body.rotation, body.translation);
                inertias[parent] = inertias[parent].add(pool, &carried);
                kept
            }
            None => on_ground(pool, body, &kept, *gravity),
        };
    }
    inertias
}

/// `(kept, moved)`: the body's inertia split into what its joint's motion
/// excites and what moves with the parent anyway.
fn split(pool: &mut Pool, body: &TreeBody, inertia: &RigidInertia) -> (RigidInertia, RigidInertia) {
    let mut kept = *inertia;
    let mut moved = RigidInertia::zero(pool);
    match body.kind {
        JointKind::Revolute => {
            let a = body.axis;
            let along = pool.dot3(a, inertia.first_moment);
            let axial_moment = pool.scale3(along, a);
            let across = match coordinate_axis(pool, a) {
                Some(k) => {
                    let l = (k + 2) % 3;
                    inertia.rotational[l][l]
                }
                None => pool.zero(),
            };
            moved.mass = inertia.mass;
            moved.first_moment = axial_moment;
            for i in 0..3 {
                for j in 0..3 {
                    let aa = pool.mul(a[i], a[j]);
                    let projector = if i == j {
                        let one = pool.one();
                        pool.sub(one, aa)
                    } else {
                        pool.neg(aa)
                    };
                    moved.rotational[i][j] = pool.mul(across, projector);
                    kept.rotational[i][j] =
                        pool.sub(inertia.rotational[i][j], moved.rotational[i][j]);
                }
            }
            kept.mass = pool.zero();
            let minus = pool.scale3c(Coeff::MINUS_ONE, axial_moment);
            kept.first_moment = pool.add3(inertia.first_moment, minus);
        }
        JointKind::Prismatic => {
            moved.rotational = inertia.rotational;
            kept.rotational = [[pool.zero(); 3]; 3];
        }
        JointKind::Spherical => {
            moved.mass = inertia.mass;
            kept.mass = pool.zero();
        }
        JointKind::Free => {}
    }
    (kept, moved)
}

/// What a body on the fixed ground keeps: only what its own joint force
/// feels. A revolute body keeps its moment of inertia about the axis and,
/// unless gravity is along the axis, its first moment across the axis; a
/// prismatic body keeps its mass. Spherical and free bodies keep everything.
fn on_ground(pool: &mut Pool, body: &TreeBody, kept: &RigidInertia, gravity: Vec3) -> RigidInertia {
    let mut trimmed = RigidInertia::zero(pool);
    match body.kind {
        JointKind::Revolute => {
            let a = body.axis;
            let spin = pool.mat_vec(&kept.rotational, a);
            let axial = pool.dot3(a, spin);
            for i in 0..3 {
                for j in 0..3 {
                    let aa = pool.mul(a[i], a[j]);
                    trimmed.rotational[i][j] = pool.mul(axial, aa);
                }
            }
            let local_gravity = pool.mat_t_vec(&body.rotation, gravity);
            let lever = pool.cross3(a, local_gravity);
            if !lever.iter().all(|&g| pool.is_zero(g)) {
                trimmed.first_moment = kept.first_moment;
            }
        }
        JointKind::Prismatic => trimmed.mass = kept.mass,
        JointKind::Spherical | JointKind::Free => trimmed = *kept,
    }
    trimmed
}

/// `Some(k)` when `axis` is `±e_k`.
fn coordinate_axis(pool: &Pool, axis: Vec3) -> Option<usize> {
    let unit = |id: Id| {
        pool.as_num(id)
            .is_some_and(|c| c.is_one() || c.is_minus_one())
    };
    (0..3).find(|&k| unit(axis[k]) && (0..3).all(|i| i == k || pool.is_zero(axis[i])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParameterMode;

    /// A planar double pendulum about z with gravity along −y: the upper
    /// rod's centre of mass is off the plane (`h1`, which must vanish).
    const DOUBLE_PENDULUM: &str = r#"
        [mechanism]
        name = "double_pendulum"
        gravity = [0, -9.81, 0]

        [[body]]
        name = "upper"
        mass = 1.5
        com = [0.2, 0, 0.1]
        inertia = [0.01, 0.02, 0.03]

        [[body]]
        name = "lower"
        mass = 0.7
        com = [0.3, 0, 0]
        inertia = [0.004, 0.005, 0.006]

        [[joint]]
        name = "shoulder"
        type = "revolute"
        parent = "ground"
        child = "upper"
        axis = [0, 0, 1]

        [[joint]]
        name = "elbow"
        type = "revolute"
        parent = "upper"
        child = "lower"
        origin = { xyz = [0.5, 0, 0] }
        axis = [0, 0, 1]
    "#;

    /// The base inertias of the double pendulum, as numbers.
    fn regrouped() -> Vec<(f64, [f64; 3], [[f64; 3]; 3])> {
        let source = sharnir_spec::Source {
            name: "test.spec".to_owned(),
            text: DOUBLE_PENDULUM.to_owned(),
        };
        let spec = sharnir_spec::parse(source).expect("test spec is valid");
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Folded).expect("test spec is a tree");
        let inertias = base_inertias(&mut mechanism);
        let pool = &mechanism.pool;
        let value = |id: Id| {
            pool.as_num(id)
                .expect("folded parameters are numbers")
                .to_f64()
        };
        inertias
            .iter()
            .map(|i| {
                (
                    value(i.mass),
                    i.first_moment.map(value),
                    i.rotational.map(|row| row.map(value)),
                )
            })
            .collect()
    }

    fn assert_close(what: &str, got: f64, want: f64) {
        assert!((got - want).abs() < 1e-12, "{what}: {got}, want {want}");
    }

    #[test]
    fn double_pendulum_regroups_as_khalil() {
        let (m1, c1, j1) = (1.5, 0.2, 0.03);
        let (m2, c2, l1) = (0.7, 0.3, 0.5);
        let (a2, b2, j2) = (0.004, 0.005, 0.006);
        let inertias = regrouped();
        // Lower rod: its mass and YY about the pivot (b2 + m2 c2²) go to the
        // upper rod; XXR = XX − YY, MX and ZZ stay (Khalil's rules at α = 0).
        let (mass, h, rotational) = inertias[1];
        let yy = b2 + m2 * c2 * c2;
        assert_close("lower mass", mass, 0.0);
        assert_close("lower MX", h[0], m2 * c2);
        assert_close("lower XXR", rotational[0][0], a2 - yy);
        assert_close("lower YY", rotational[1][1], 0.0);
        assert_close("lower ZZ", rotational[2][2], j2 + m2 * c2 * c2);
        // Upper rod on the ground: only ZZ about the axis and the first
        // moment across it (gravity is across the axis) reach the shoulder.
        let (mass, h, rotational) = inertias[0];
        assert_close("upper mass", mass, 0.0);
        assert_close("upper MX", h[0], m1 * c1 + m2 * l1);
        assert_close("upper MZ", h[2], 0.0);
        // The lower rod's YY went into the upper rod's XX and YY (`A (1 − a aᵀ)`
        // has no ZZ), which the ground then drops.
        let zz = j1 + m1 * c1 * c1 + m2 * l1 * l1;
        for (i, row) in rotational.iter().enumerate() {
            for (k, &entry) in row.iter().enumerate() {
                let want = if (i, k) == (2, 2) { zz } else { 0.0 };
                assert_close(&format!("upper I[{i}][{k}]"), entry, want);
            }
        }
    }
}
