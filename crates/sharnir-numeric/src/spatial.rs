//! Featherstone's spatial vector algebra: 6D motion and force vectors,
//! Plücker coordinate transforms and spatial inertias.
//!
//! Every rigid-body algorithm of the crate is written in this algebra, so the
//! numeric oracle shares no formula with the 3D Newton–Euler recursion of the
//! symbolic side. Conventions follow Featherstone, *Rigid Body Dynamics
//! Algorithms* (2008): a motion vector is `[ω; v]` (angular velocity, velocity
//! of the body point at the frame origin), a force vector is `[n; f]` (moment
//! about the frame origin, resultant force).

use crate::linalg::{self, Mat3, Vec3};
use std::ops::{Add, AddAssign};

/// A spatial motion vector (velocity, acceleration, joint motion subspace).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Motion {
    /// Angular part ω.
    pub angular: Vec3,
    /// Linear part: velocity of the body-fixed point at the frame origin.
    pub linear: Vec3,
}

/// A spatial force vector (momentum, force, articulated bias force).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Force {
    /// Moment about the frame origin.
    pub moment: Vec3,
    /// Resultant force.
    pub force: Vec3,
}

impl Motion {
    /// The zero motion: the ground's velocity.
    pub const ZERO: Motion = Motion {
        angular: [0.0; 3],
        linear: [0.0; 3],
    };

    /// `s · self`.
    pub fn scaled(self, s: f64) -> Motion {
        Motion {
            angular: linalg::scale(s, self.angular),
            linear: linalg::scale(s, self.linear),
        }
    }

    /// The motion cross product `self ×ₘ m`: the rate of change of a motion
    /// vector `m` fixed in a frame moving with velocity `self`.
    pub fn cross_motion(self, m: Motion) -> Motion {
        Motion {
            angular: linalg::cross(self.angular, m.angular),
            linear: linalg::add(
                linalg::cross(self.angular, m.linear),
                linalg::cross(self.linear, m.angular),
            ),
        }
    }

    /// The force cross product `self ×* f`: the rate of change of a force
    /// vector `f` fixed in a frame moving with velocity `self`.
    pub fn cross_force(self, f: Force) -> Force {
        Force {
            moment: linalg::add(
                linalg::cross(self.angular, f.moment),
                linalg::cross(self.linear, f.force),
            ),
            force: linalg::cross(self.angular, f.force),
        }
    }

    /// The power pairing `self · f` of a motion and a force.
    pub fn dot(self, f: Force) -> f64 {
        linalg::dot(self.angular, f.moment) + linalg::dot(self.linear, f.force)
    }

    /// The `k`-th unit motion vector (`k` in `0..6`, angular parts first).
    pub fn unit(k: usize) -> Motion {
        let e = |i: usize| if i == k { 1.0 } else { 0.0 };
        Motion {
            angular: [e(0), e(1), e(2)],
            linear: [e(3), e(4), e(5)],
        }
    }
}

impl Add for Motion {
    type Output = Motion;

    fn add(self, other: Motion) -> Motion {
        Motion {
            angular: linalg::add(self.angular, other.angular),
            linear: linalg::add(self.linear, other.linear),
        }
    }
}

impl Force {
    /// `s · self`.
    pub fn scaled(self, s: f64) -> Force {
        Force {
            moment: linalg::scale(s, self.moment),
            force: linalg::scale(s, self.force),
        }
    }

    /// The six coordinates `[n; f]`.
    fn to_array(self) -> [f64; 6] {
        let [n0, n1, n2] = self.moment;
        let [f0, f1, f2] = self.force;
        [n0, n1, n2, f0, f1, f2]
    }
}

impl Add for Force {
    type Output = Force;

    fn add(self, other: Force) -> Force {
        Force {
            moment: linalg::add(self.moment, other.moment),
            force: linalg::add(self.force, other.force),
        }
    }
}

impl AddAssign for Force {
    fn add_assign(&mut self, other: Force) {
        *self = *self + other;
    }
}

/// A Plücker coordinate transform from a frame A to a frame B.
///
/// Stored compactly as the rotation `E` taking A coordinates to B coordinates
/// and the position `r` of B's origin in A coordinates; as a 6×6 matrix it is
/// `X = [E 0; −E r× E]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Transform {
    /// `E`: A coordinates → B coordinates.
    pub rotation: Mat3,
    /// `r`: origin of B in A coordinates.
    pub origin: Vec3,
}

impl Transform {
    /// `X m`: a motion in A coordinates re-expressed in B coordinates.
    pub fn apply_motion(&self, m: Motion) -> Motion {
        Motion {
            angular: linalg::mul_vec(&self.rotation, m.angular),
            linear: linalg::mul_vec(
                &self.rotation,
                linalg::sub(m.linear, linalg::cross(self.origin, m.angular)),
            ),
        }
    }

    /// `Xᵀ f`: a force in B coordinates re-expressed in A coordinates (the
    /// direction in which forces travel from a child to its parent).
    pub fn transpose_force(&self, f: Force) -> Force {
        let force = linalg::transpose_mul_vec(&self.rotation, f.force);
        Force {
            moment: linalg::add(
                linalg::transpose_mul_vec(&self.rotation, f.moment),
                linalg::cross(self.origin, force),
            ),
            force,
        }
    }

    /// `Xᵀ I X`: a rigid-body inertia in B coordinates re-expressed in A
    /// coordinates, in closed form (no 6×6 products).
    pub fn transpose_rigid(&self, inertia: &RigidInertia) -> RigidInertia {
        let e = &self.rotation;
        let r = self.origin;
        let m = inertia.mass;
        // First moment about B's origin, in A axes, then about A's origin.
        let h_b = linalg::transpose_mul_vec(e, inertia.first_moment);
        let first_moment = linalg::add(h_b, linalg::scale(m, r));
        let rotated = linalg::mul(&linalg::transpose(e), &linalg::mul(&inertia.rotational, e));
        // Parallel-axis shift from B's origin to A's origin:
        // m(|r|²1 − rrᵀ) + 2(r·h_B)1 − r h_Bᵀ − h_B rᵀ.
        let shift = linalg::mat_add(
            &linalg::diagonal_minus_outer(
                m * linalg::dot(r, r) + 2.0 * linalg::dot(r, h_b),
                r,
                first_moment,
            ),
            &linalg::diagonal_minus_outer(0.0, h_b, r),
        );
        RigidInertia {
            mass: m,
            first_moment,
            rotational: linalg::mat_add(&rotated, &shift),
        }
    }

    /// `Xᵀ A X`: an articulated-body inertia in B coordinates re-expressed in
    /// A coordinates, column by column (`(XᵀAX) eⱼ = Xᵀ(A(X eⱼ))`).
    pub fn transpose_articulated(&self, inertia: &ArticulatedInertia) -> ArticulatedInertia {
        let mut out = [[0.0; 6]; 6];
        for k in 0..6 {
            let column = self
                .transpose_force(inertia.apply(self.apply_motion(Motion::unit(k))))
                .to_array();
            for (row, value) in out.iter_mut().zip(column) {
                row[k] = value;
            }
        }
        ArticulatedInertia(out)
    }
}

/// The spatial inertia of a rigid body (or of a rigid composite of bodies)
/// about a frame origin, in the compact form `(m, h = m c, Ī_O)`.
///
/// The compact form is closed under addition and under coordinate
/// transforms, which is what the composite-rigid-body algorithm needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RigidInertia {
    /// Mass `m`.
    pub mass: f64,
    /// First moment of mass `h = m c` about the frame origin.
    pub first_moment: Vec3,
    /// Rotational inertia about the frame origin (not the centre of mass).
    pub rotational: Mat3,
}

impl RigidInertia {
    /// The inertia of a body of mass `mass` whose centre of mass is at `com`
    /// and whose rotational inertia about the centre of mass is
    /// `inertia_com`, all in the frame's coordinates.
    pub fn from_centre_of_mass(mass: f64, com: Vec3, inertia_com: &Mat3) -> RigidInertia {
        let shift = linalg::diagonal_minus_outer(
            mass * linalg::dot(com, com),
            linalg::scale(mass, com),
            com,
        );
        RigidInertia {
            mass,
            first_moment: linalg::scale(mass, com),
            rotational: linalg::mat_add(inertia_com, &shift),
        }
    }

    /// `I v`: the spatial momentum of the body moving with velocity `v`
    /// (or the inertial force of acceleration `v`).
    pub fn apply(&self, v: Motion) -> Force {
        let h = self.first_moment;
        Force {
            moment: linalg::add(
                linalg::mul_vec(&self.rotational, v.angular),
                linalg::cross(h, v.linear),
            ),
            force: linalg::sub(
                linalg::scale(self.mass, v.linear),
                linalg::cross(h, v.angular),
            ),
        }
    }
}

impl Add for RigidInertia {
    type Output = RigidInertia;

    fn add(self, other: RigidInertia) -> RigidInertia {
        RigidInertia {
            mass: self.mass + other.mass,
            first_moment: linalg::add(self.first_moment, other.first_moment),
            rotational: linalg::mat_add(&self.rotational, &other.rotational),
        }
    }
}

impl AddAssign for RigidInertia {
    fn add_assign(&mut self, other: RigidInertia) {
        *self = *self + other;
    }
}

/// An articulated-body inertia: a symmetric 6×6 matrix mapping motion
/// coordinates `[ω; v]` to force coordinates `[n; f]`.
///
/// Unlike a rigid inertia it has no compact form, because projecting out a
/// joint's freedom (`A − U Uᵀ / D`) leaves a general symmetric matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ArticulatedInertia(pub [[f64; 6]; 6]);

impl ArticulatedInertia {
    /// `A v`.
    pub fn apply(&self, v: Motion) -> Force {
        let [w0, w1, w2] = v.angular;
        let [v0, v1, v2] = v.linear;
        let x = [w0, w1, w2, v0, v1, v2];
        let y = self
            .0
            .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>());
        Force {
            moment: [y[0], y[1], y[2]],
            force: [y[3], y[4], y[5]],
        }
    }

    /// `self ← self − w wᵀ`: removes one whitened free direction of a joint from an
    /// articulated inertia. Subtracting every column `w` of `W = U L⁻ᵀ`
    /// (`U = A S`, `Sᵀ A S = L Lᵀ`) removes `U (Sᵀ A S)⁻¹ Uᵀ`, the stiffness
    /// the joint does not transmit.
    pub fn subtract_outer(&mut self, w: Force) {
        let w = w.to_array();
        for (row, wi) in self.0.iter_mut().zip(w) {
            for (a, wj) in row.iter_mut().zip(w) {
                *a -= wi * wj;
            }
        }
    }
}

impl From<&RigidInertia> for ArticulatedInertia {
    /// The 6×6 matrix of a rigid inertia, column by column.
    fn from(inertia: &RigidInertia) -> ArticulatedInertia {
        let mut out = [[0.0; 6]; 6];
        for k in 0..6 {
            let column = inertia.apply(Motion::unit(k)).to_array();
            for (row, value) in out.iter_mut().zip(column) {
                row[k] = value;
            }
        }
        ArticulatedInertia(out)
    }
}

impl AddAssign for ArticulatedInertia {
    fn add_assign(&mut self, other: ArticulatedInertia) {
        for (row, other_row) in self.0.iter_mut().zip(other.0) {
            for (a, b) in row.iter_mut().zip(other_row) {
                *a += b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Absolute tolerance of the identities below: all inputs are O(1), so
    /// only a few roundings separate the two sides.
    const TOLERANCE: f64 = 1e-12;

    fn vector(rng: &mut SmallRng) -> Vec3 {
        [(); 3].map(|_| rng.gen_range(-1.0..1.0))
    }

    fn transform(rng: &mut SmallRng) -> Transform {
        let axis = vector(rng);
        let norm = linalg::dot(axis, axis).sqrt().max(1e-3);
        let rotation =
            linalg::rotation_about(linalg::scale(1.0 / norm, axis), rng.gen_range(-3.0..3.0));
        Transform {
            rotation,
            origin: vector(rng),
        }
    }

    fn motion(rng: &mut SmallRng) -> Motion {
        Motion {
            angular: vector(rng),
            linear: vector(rng),
        }
    }

    fn force(rng: &mut SmallRng) -> Force {
        Force {
            moment: vector(rng),
            force: vector(rng),
        }
    }

    fn rigid(rng: &mut SmallRng) -> (f64, Vec3, Mat3) {
        let [a, b, c] = vector(rng);
        let [d, e, f] = vector(rng);
        let inertia = [
            [2.0 + a, 0.1 * d, 0.1 * e],
            [0.1 * d, 2.0 + b, 0.1 * f],
            [0.1 * e, 0.1 * f, 2.0 + c],
        ];
        (rng.gen_range(0.5..5.0), vector(rng), inertia)
    }

    #[test]
    fn rigid_transform_matches_the_six_by_six_congruence() {
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..100 {
            let x = transform(&mut rng);
            let (mass, com, inertia) = rigid(&mut rng);
            let body = RigidInertia::from_centre_of_mass(mass, com, &inertia);
            let compact = ArticulatedInertia::from(&x.transpose_rigid(&body));
            let general = x.transpose_articulated(&ArticulatedInertia::from(&body));
            for (row, other) in compact.0.iter().zip(general.0) {
                for (a, b) in row.iter().zip(other) {
                    assert!((a - b).abs() < 1e-11, "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn transforms_preserve_power() {
        let mut rng = SmallRng::seed_from_u64(2);
        for _ in 0..100 {
            let (x, m, f) = (transform(&mut rng), motion(&mut rng), force(&mut rng));
            let in_b = x.apply_motion(m).dot(f);
            let in_a = m.dot(x.transpose_force(f));
            assert!((in_b - in_a).abs() < TOLERANCE, "{in_b} vs {in_a}");
        }
    }

    #[test]
    fn cross_products_are_dual() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..100 {
            let (v, m, f) = (motion(&mut rng), motion(&mut rng), force(&mut rng));
            let lhs = v.cross_motion(m).dot(f);
            let rhs = -m.dot(v.cross_force(f));
            assert!((lhs - rhs).abs() < TOLERANCE, "{lhs} vs {rhs}");
        }
    }

    #[test]
    fn spatial_kinetic_energy_matches_the_centre_of_mass_form() {
        let mut rng = SmallRng::seed_from_u64(4);
        for _ in 0..100 {
            let (mass, com, inertia) = rigid(&mut rng);
            let v = motion(&mut rng);
            let spatial =
                0.5 * v.dot(RigidInertia::from_centre_of_mass(mass, com, &inertia).apply(v));
            let v_com = linalg::add(v.linear, linalg::cross(v.angular, com));
            let classic = 0.5 * mass * linalg::dot(v_com, v_com)
                + 0.5 * linalg::dot(v.angular, linalg::mul_vec(&inertia, v.angular));
            assert!(
                (spatial - classic).abs() < TOLERANCE,
                "{spatial} vs {classic}"
            );
        }
    }
}
