//! Motion along the configuration manifold: position-coordinate rates from
//! velocities, and the exponential step `q ⊕ v·dt`.
//!
//! Spherical and free joints have more position than velocity coordinates
//! (a quaternion for three rotational freedoms), so `q̇ ≠ v` and `q + v·dt`
//! is meaningless for them; tests and simulators move through these two
//! functions instead.

use crate::error::TreeError;
use crate::joint::{self, coordinates};
use crate::joint_kind::JointKind;
use crate::linalg;
use crate::quaternion;
use crate::tree::{Body, Tree};

impl Tree {
    /// The time derivative `q̇` (length [`Tree::nq`]) of the configuration
    /// `q` of a tree moving with velocity `v` (length [`Tree::nv`]):
    /// revolute and prismatic `q̇ = v`; spherical `q̇ = ½ quat ⊗ (ω, 0)` with
    /// `ω` in body coordinates; free `ṗ = R(quat) v_lin` and the quaternion
    /// rate as for a spherical joint.
    ///
    /// Exists so that an integrator can treat `(q, v)` as an ordinary
    /// differential equation, and so that finite differences in `q` can be
    /// compared with velocities.
    pub fn coordinate_rates(&self, q: &[f64], v: &[f64]) -> Result<Vec<f64>, TreeError> {
        self.check(q, &[("v", v)])?;
        let mut rates = Vec::with_capacity(q.len());
        for ((body, qi), vi) in self
            .bodies
            .iter()
            .zip(self.q_chunks(q))
            .zip(self.v_chunks(v))
        {
            body.push_coordinate_rates(qi, vi, &mut rates);
        }
        Ok(rates)
    }

    /// The configuration reached from `q` by moving with the constant
    /// velocity `v` for a time `dt`, `q ⊕ v·dt`: revolute and prismatic
    /// coordinates add `v·dt`; a spherical joint turns by the exact
    /// exponential, `quat ⊗ exp(ω dt)`; a free joint follows the exact SE(3)
    /// exponential of its constant body-frame twist (Pinocchio's
    /// `integrate`), `quat ⊗ exp(ω dt)` and `p + R(quat) V(ω dt) v_lin dt`
    /// with `V` the left Jacobian of SO(3). Quaternions are renormalised.
    ///
    /// Exists so that tests and simulators can step along the configuration
    /// manifold without leaving it.
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64) -> Result<Vec<f64>, TreeError> {
        self.check(q, &[("v", v)])?;
        let mut next = Vec::with_capacity(q.len());
        for ((body, qi), vi) in self
            .bodies
            .iter()
            .zip(self.q_chunks(q))
            .zip(self.v_chunks(v))
        {
            body.push_integrated(qi, vi, dt, &mut next);
        }
        Ok(next)
    }
}

impl Body {
    /// Appends this joint's `q̇` for its chunks `q` and `v`.
    fn push_coordinate_rates(&self, q: &[f64], v: &[f64], out: &mut Vec<f64>) {
        match self.joint {
            JointKind::Revolute | JointKind::Prismatic => out.extend_from_slice(v),
            JointKind::Spherical => {
                out.extend(quaternion::rate(
                    joint::spherical_quaternion(q),
                    coordinates(v),
                ));
            }
            JointKind::Free => {
                let (_, orientation) = joint::free_position(q);
                let [vx, vy, vz, wx, wy, wz] = coordinates(v);
                let position_rate =
                    linalg::mul_vec(&quaternion::rotation(orientation), [vx, vy, vz]);
                out.extend(position_rate);
                out.extend(quaternion::rate(orientation, [wx, wy, wz]));
            }
        }
    }

    /// Appends this joint's `q ⊕ v·dt` for its chunks `q` and `v`.
    fn push_integrated(&self, q: &[f64], v: &[f64], dt: f64, out: &mut Vec<f64>) {
        match self.joint {
            JointKind::Revolute | JointKind::Prismatic => {
                out.extend(q.iter().zip(v).map(|(x, rate)| x + rate * dt));
            }
            JointKind::Spherical => {
                let turn = quaternion::exp(linalg::scale(dt, coordinates(v)));
                let orientation = joint::spherical_quaternion(q);
                out.extend(quaternion::normalised(quaternion::product(
                    orientation,
                    turn,
                )));
            }
            JointKind::Free => {
                let (position, orientation) = joint::free_position(q);
                let [vx, vy, vz, wx, wy, wz] = coordinates(v);
                let phi = linalg::scale(dt, [wx, wy, wz]);
                let displacement =
                    quaternion::left_jacobian_apply(phi, linalg::scale(dt, [vx, vy, vz]));
                out.extend(linalg::add(
                    position,
                    linalg::mul_vec(&quaternion::rotation(orientation), displacement),
                ));
                let turn = quaternion::exp(phi);
                out.extend(quaternion::normalised(quaternion::product(
                    orientation,
                    turn,
                )));
            }
        }
    }
}
