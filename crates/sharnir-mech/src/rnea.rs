//! Symbolic recursive Newton–Euler inverse dynamics in body frames.
//!
//! The forward pass propagates angular velocity ω, angular acceleration ω̇
//! and the linear acceleration v̇ of each body-frame origin from ground to
//! the leaves; gravity enters as the fictitious ground acceleration −g. The
//! backward pass accumulates the force f and the moment n (about the body
//! origin) that each inboard joint transmits, and projects them on the joint
//! axis. All vectors are in body coordinates, so the numeric zeros of axes,
//! placements and centres of mass remove most products as the pool
//! canonicalises them — the "customised" form of Newton–Euler.
//!
//! With `E` the rotation from body to parent coordinates (placement times
//! joint rotation), `o` the body origin in parent coordinates and `a` the
//! joint axis:
//! ```text
//! ω  = Eᵀω_p + a q̇                                   (revolute)
//! ω̇  = Eᵀω̇_p + a q̈ + (Eᵀω_p) × a q̇                  (revolute)
//! v̇  = Eᵀ(v̇_p + ω̇_p × o + ω_p × (ω_p × o))
//!      + a q̈ + 2 ω × a q̇                              (prismatic)
//! F  = m (v̇ + ω̇ × c + ω × (ω × c))
//! f  = F + Σ_children E_ch f_ch
//! n  = I_c ω̇ + ω × I_c ω + c × F + Σ_children (E_ch n_ch + o_ch × E_ch f_ch)
//! τ  = a · n (revolute),  a · f (prismatic)
//! ```

use crate::inputs::Input;
use crate::kinematics::placement;
use crate::mechanism::{JointKind, Mechanism, TreeBody};
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Pool};

/// Per-body kinematics from the forward pass, in body coordinates.
struct Motion {
    /// Body-to-parent rotation `E`.
    to_parent: Mat3,
    /// Body origin in parent coordinates.
    origin: Vec3,
    omega: Vec3,
    omega_dot: Vec3,
    accel: Vec3,
}

/// Joint torques (forces for prismatic joints) `τ(q, q̇, q̈)`, in coordinate
/// order, as expressions in `mechanism.pool`.
pub fn inverse_dynamics(mechanism: &mut Mechanism) -> Vec<Id> {
    let Mechanism {
        pool,
        bodies,
        gravity,
        coordinates,
        ..
    } = mechanism;
    let motions = forward_pass(pool, bodies, *gravity);
    let mut force: Vec<Vec3> = Vec::with_capacity(bodies.len());
    let mut moment: Vec<Vec3> = Vec::with_capacity(bodies.len());
    for (body, motion) in bodies.iter().zip(&motions) {
        let (f, n) = body_wrench(pool, body, motion);
        force.push(f);
        moment.push(n);
    }
    let zero = pool.zero();
    let mut tau = vec![zero; coordinates.len()];
    for k in (0..bodies.len()).rev() {
        let body = &bodies[k];
        tau[body.coordinate] = match body.kind {
            JointKind::Revolute => pool.dot3(body.axis, moment[k]),
            JointKind::Prismatic => pool.dot3(body.axis, force[k]),
        };
        if let Some(parent) = body.parent {
            let e = &motions[k].to_parent;
            let f_in_parent = pool.mat_vec(e, force[k]);
            let n_in_parent = pool.mat_vec(e, moment[k]);
            let lever = pool.cross3(motions[k].origin, f_in_parent);
            force[parent] = pool.add3(force[parent], f_in_parent);
            let n = pool.add3(moment[parent], n_in_parent);
            moment[parent] = pool.add3(n, lever);
        }
    }
    tau
}

fn forward_pass(pool: &mut Pool, bodies: &[TreeBody], gravity: Vec3) -> Vec<Motion> {
    let mut motions: Vec<Motion> = Vec::with_capacity(bodies.len());
    let ground_accel = pool.scale3c(Coeff::MINUS_ONE, gravity);
    for body in bodies {
        let i = body.coordinate;
        let q = pool.symbol(&Input::Position(i).symbol_name());
        let qd = pool.symbol(&Input::Velocity(i).symbol_name());
        let qdd = pool.symbol(&Input::Acceleration(i).symbol_name());
        let (omega_p, omega_dot_p, accel_p) = match body.parent {
            Some(p) => (motions[p].omega, motions[p].omega_dot, motions[p].accel),
            None => (pool.zero3(), pool.zero3(), ground_accel),
        };
        let (to_parent, origin) = placement(pool, body, q);
        let omega_carried = pool.mat_t_vec(&to_parent, omega_p);
        let omega_dot_carried = pool.mat_t_vec(&to_parent, omega_dot_p);
        let transport = {
            let ang = pool.cross3(omega_dot_p, origin);
            let inner = pool.cross3(omega_p, origin);
            let centripetal = pool.cross3(omega_p, inner);
            let sum = pool.add3(accel_p, ang);
            pool.add3(sum, centripetal)
        };
        let accel_carried = pool.mat_t_vec(&to_parent, transport);
        let axis_rate = pool.scale3(qd, body.axis);
        let axis_accel = pool.scale3(qdd, body.axis);
        let motion = match body.kind {
            JointKind::Revolute => {
                let omega = pool.add3(omega_carried, axis_rate);
                let coriolis = pool.cross3(omega_carried, axis_rate);
                let w = pool.add3(omega_dot_carried, axis_accel);
                let omega_dot = pool.add3(w, coriolis);
                Motion {
                    to_parent,
                    origin,
                    omega,
                    omega_dot,
                    accel: accel_carried,
                }
            }
            JointKind::Prismatic => {
                let coriolis = pool.cross3(omega_carried, axis_rate);
                let coriolis2 = pool.scale3c(Coeff::int(2), coriolis);
                let a = pool.add3(accel_carried, axis_accel);
                let accel = pool.add3(a, coriolis2);
                Motion {
                    to_parent,
                    origin,
                    omega: omega_carried,
                    omega_dot: omega_dot_carried,
                    accel,
                }
            }
        };
        motions.push(motion);
    }
    motions
}

/// The inertial force at the centre of mass and the moment about the body
/// origin needed to produce the body's own motion.
fn body_wrench(pool: &mut Pool, body: &TreeBody, m: &Motion) -> (Vec3, Vec3) {
    let ang = pool.cross3(m.omega_dot, body.com);
    let inner = pool.cross3(m.omega, body.com);
    let centripetal = pool.cross3(m.omega, inner);
    let a = pool.add3(m.accel, ang);
    let com_accel = pool.add3(a, centripetal);
    let force = pool.scale3(body.mass, com_accel);
    let i_omega_dot = pool.mat_vec(&body.inertia, m.omega_dot);
    let i_omega = pool.mat_vec(&body.inertia, m.omega);
    let gyroscopic = pool.cross3(m.omega, i_omega);
    let lever = pool.cross3(body.com, force);
    let n = pool.add3(i_omega_dot, gyroscopic);
    (force, pool.add3(n, lever))
}
