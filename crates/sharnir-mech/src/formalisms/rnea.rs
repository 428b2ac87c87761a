//! Symbolic recursive Newton–Euler inverse dynamics in body frames.
//!
//! The forward pass propagates angular velocity ω, angular acceleration ω̇
//! and the linear acceleration v̇ of each body-frame origin from ground to
//! the leaves; gravity enters as the fictitious ground acceleration −g. The
//! backward pass accumulates the force f and the moment n (about the body
//! origin) that each inboard joint transmits, and projects them on the
//! joint's motion subspace. All vectors are in body coordinates, so the
//! numeric zeros of axes, placements and centres of mass remove most products
//! as the pool canonicalises them — the "customised" form of Newton–Euler.
//!
//! With `E` the rotation from body to parent coordinates (placement times
//! joint rotation), `o` the body origin in parent coordinates, `(v_j; ω_j) =
//! S q̇` and `(v̇_j; ω̇_j) = S q̈` the joint's relative velocity and
//! acceleration in body coordinates (`S` constant, see
//! [`crate::geometry::kinematics`]):
//! ```text
//! ω  = Eᵀω_p + ω_j
//! ω̇  = Eᵀω̇_p + ω̇_j + (Eᵀω_p) × ω_j
//! v̇  = Eᵀ(v̇_p + ω̇_p × o + ω_p × (ω_p × o)) + v̇_j + ω_j × v_j + 2 (Eᵀω_p) × v_j
//! F  = m (v̇ + ω̇ × c + ω × (ω × c))
//! f  = F + Σ_children E_ch f_ch
//! n  = I_c ω̇ + ω × I_c ω + c × F + Σ_children (E_ch n_ch + o_ch × E_ch f_ch)
//! τ  = Sᵀ (f; n)
//! ```
//! [`inverse_dynamics_regrouped`] uses the base inertias of
//! [`crate::formalisms::base_parameters`] instead, about the body origin (`h` the first
//! moment): `F = m v̇ + ω̇ × h + ω × (ω × h)`, `n = I ω̇ + ω × I ω + h × v̇ + …`;
//! its joint forces are the same, its `f` and `n` are not the bodies' true
//! joint reactions.
//! The drives' armature adds `a q̈` to its joint's force
//! ([`crate::formalisms::armature`]); the joint reactions leave it out.
//! `ω̇ × r + ω × (ω × r)`, the acceleration of a body point relative to the
//! body origin, appears for the centre of mass and for every child origin;
//! [`PointAcceleration`] chooses between computing it with two cross
//! products per point and Khalil's `U = ω̇̃ + ω̃ω̃` built once per body.
//! A follower joint (`q = k q_leader + offset`, see [`crate::model::Coupling`])
//! moves with `k q̇_leader` and `k q̈_leader`, and adds `k Sᵀ (f; n)` to its
//! leader's τ: the virtual work of the coupled coordinates.
//! (`v̇` is the classical acceleration of the body origin; `v̇_j` the time
//! derivative of the body-frame components of `v_j`, which for a free joint
//! is Pinocchio's `a`.)

use crate::formalisms::armature;
use crate::formalisms::base_parameters::{base_inertias, RigidInertia};
use crate::geometry::kinematics::{joint_symbols, placement, relative_motion, subspace};
use crate::model::inputs::Input;
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{Mechanism, TreeBody};
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
    /// `U = ω̇̃ + ω̃ω̃` (see [`Vec3Ops::acceleration_field`]), shared by the
    /// body's own wrench and its children's origin accelerations, in the
    /// [`PointAcceleration::AccelerationField`] form.
    field: Option<Mat3>,
}

/// How the recursion forms `ω̇ × r + ω × (ω × r)`, the acceleration of a
/// body point `r` relative to the body origin, which it needs for the
/// centre of mass (or first moment) and for every child's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointAcceleration {
    /// Two cross products per point: the cheaper form where a body has one
    /// point to carry, and where ω is zero (the mass matrix, gravity).
    CrossProducts,
    /// Khalil's `U = ω̇̃ + ω̃ω̃`, built once per body and multiplied by each
    /// point: its products `ωᵢωⱼ` are shared by the centre of mass and the
    /// children's origins, which usually makes inverse dynamics and the
    /// bias cheaper.
    AccelerationField,
}

impl Motion {
    /// `ω̇ × r + ω × (ω × r)` in the chosen form.
    fn point_acceleration(&self, pool: &mut Pool, r: Vec3) -> Vec3 {
        match &self.field {
            Some(field) => pool.mat_vec(field, r),
            None => {
                let ang = pool.cross3(self.omega_dot, r);
                let inner = pool.cross3(self.omega, r);
                let centripetal = pool.cross3(self.omega, inner);
                pool.add3(ang, centripetal)
            }
        }
    }
}

/// Joint forces `τ(q, q̇, q̈)` in velocity-coordinate order (torques for
/// rotations, forces for translations), as expressions in `mechanism.pool`,
/// from the bodies' own inertias.
pub fn inverse_dynamics(mechanism: &mut Mechanism, form: PointAcceleration) -> Vec<Id> {
    inverse_dynamics_with(mechanism, None, form)
}

/// The same joint forces from the base inertias of
/// [`crate::formalisms::base_parameters`], where most inertial parameters are zero:
/// usually much cheaper, but not always (unit masses are free in the
/// bodies' own inertias and not in the regrouped ones).
pub fn inverse_dynamics_regrouped(mechanism: &mut Mechanism, form: PointAcceleration) -> Vec<Id> {
    let inertias = base_inertias(mechanism);
    inverse_dynamics_with(mechanism, Some(&inertias), form)
}

/// The joint forces with every tree body's inertia given (`inertias`, in
/// the order of the bodies): symbols, for the regressor
/// ([`crate::formalisms::regressor`]).
pub fn inverse_dynamics_of_inertias(
    mechanism: &mut Mechanism,
    inertias: &[RigidInertia],
    form: PointAcceleration,
) -> Vec<Id> {
    inverse_dynamics_with(mechanism, Some(inertias), form)
}

/// The bodies' share of the joint forces, every tree body's inertia given
/// (`inertias`), without the drives' armature: the joint forces of a
/// mechanism whose armature is carried by the bodies' inertias or by
/// parameters of its own
/// ([`crate::formalisms::customised_newton_euler`]).
pub fn body_forces_of_inertias(
    mechanism: &mut Mechanism,
    inertias: &[RigidInertia],
    form: PointAcceleration,
) -> Vec<Id> {
    newton_euler(mechanism, Some(inertias), form, &[]).tau
}

/// A wrench applied to a tree body from outside the tree (a cut joint's
/// reaction): force and moment about the body origin, in body coordinates.
#[derive(Clone, Copy, Debug)]
pub struct ExternalWrench {
    /// The tree body (index in [`Mechanism::bodies`]) it acts on.
    pub body: usize,
    /// The force.
    pub force: Vec3,
    /// The moment about the body origin.
    pub moment: Vec3,
}

/// The force `f` and the moment `n` (about the body origin, in body
/// coordinates) that the inboard joint of a tree body transmits from the
/// parent to the child, from the bodies' own inertias with `external`
/// wrenches acting on the bodies besides the joints: the joints'
/// reactions. For every spec joint named in `joints` (in that order),
/// `[f, n]` at its child body, whose frame is the joint frame after the
/// joint's motion (for a composite joint, after its last primitive); zeros
/// for a name that is no tree joint.
pub fn joint_reactions(
    mechanism: &mut Mechanism,
    joints: &[&str],
    external: &[ExternalWrench],
) -> Vec<[Id; 6]> {
    let wrenches = newton_euler(mechanism, None, PointAcceleration::CrossProducts, external);
    let zero = mechanism.pool.zero();
    joints
        .iter()
        .map(|name| {
            mechanism
                .bodies
                .iter()
                .rposition(|b| b.joint == *name)
                .map_or([zero; 6], |k| {
                    let (f, n) = (wrenches.force[k], wrenches.moment[k]);
                    [f[0], f[1], f[2], n[0], n[1], n[2]]
                })
        })
        .collect()
}

/// What the backward pass leaves: the joint forces, and per body the
/// wrench its inboard joint transmits.
struct Wrenches {
    tau: Vec<Id>,
    force: Vec<Vec3>,
    moment: Vec<Vec3>,
}

/// Newton–Euler with `base[k]` standing for body `k`, or with the bodies'
/// own central inertias when `base` is `None`.
fn inverse_dynamics_with(
    mechanism: &mut Mechanism,
    base: Option<&[RigidInertia]>,
    form: PointAcceleration,
) -> Vec<Id> {
    let mut tau = newton_euler(mechanism, base, form, &[]).tau;
    armature::add_to_forces(&mut mechanism.pool, &mechanism.bodies, &mut tau);
    tau
}

fn newton_euler(
    mechanism: &mut Mechanism,
    base: Option<&[RigidInertia]>,
    form: PointAcceleration,
    external: &[ExternalWrench],
) -> Wrenches {
    let Mechanism {
        pool,
        bodies,
        gravity,
        coordinates,
        ..
    } = mechanism;
    let motions = forward_pass(pool, bodies, *gravity, form);
    let mut force: Vec<Vec3> = Vec::with_capacity(bodies.len());
    let mut moment: Vec<Vec3> = Vec::with_capacity(bodies.len());
    for (k, (body, motion)) in bodies.iter().zip(&motions).enumerate() {
        let (f, n) = match base {
            Some(inertias) => origin_wrench(pool, &inertias[k], motion),
            None => central_wrench(pool, body, motion),
        };
        force.push(f);
        moment.push(n);
    }
    for wrench in external {
        if let (Some(f), Some(n)) = (force.get_mut(wrench.body), moment.get_mut(wrench.body)) {
            let minus_f = pool.scale3c(Coeff::MINUS_ONE, wrench.force);
            let minus_n = pool.scale3c(Coeff::MINUS_ONE, wrench.moment);
            *f = pool.add3(*f, minus_f);
            *n = pool.add3(*n, minus_n);
        }
    }
    let zero = pool.zero();
    let mut tau = vec![zero; coordinates.len()];
    for k in (0..bodies.len()).rev() {
        let body = &bodies[k];
        let columns = subspace(pool, body);
        for (i, (linear, angular)) in columns.into_iter().enumerate() {
            let along = pool.dot3(linear, force[k]);
            let about = pool.dot3(angular, moment[k]);
            let projection = pool.add(along, about);
            let generalised = match &body.coupling {
                Some(c) => pool.mul(c.multiplier, projection),
                None => projection,
            };
            if let Some(slot) = tau.get_mut(body.velocity + i) {
                *slot = pool.add(*slot, generalised);
            }
        }
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
    Wrenches { tau, force, moment }
}

fn forward_pass(
    pool: &mut Pool,
    bodies: &[TreeBody],
    gravity: Vec3,
    form: PointAcceleration,
) -> Vec<Motion> {
    let mut motions: Vec<Motion> = Vec::with_capacity(bodies.len());
    let ground_accel = pool.scale3c(Coeff::MINUS_ONE, gravity);
    for body in bodies {
        let (omega_p, omega_dot_p, accel_p) = match body.parent.and_then(|p| motions.get(p)) {
            Some(parent) => (parent.omega, parent.omega_dot, parent.accel),
            None => (pool.zero3(), pool.zero3(), ground_accel),
        };
        let (to_parent, origin) = placement(pool, body);
        let rates = joint_symbols(pool, body, Input::Velocity);
        let accelerations = joint_symbols(pool, body, Input::Acceleration);
        let (v_joint, omega_joint) = relative_motion(pool, body, &rates);
        let (a_joint, omega_dot_joint) = relative_motion(pool, body, &accelerations);
        let omega_carried = pool.mat_t_vec(&to_parent, omega_p);
        let omega_dot_carried = pool.mat_t_vec(&to_parent, omega_dot_p);
        let transport = match body.parent.and_then(|p| motions.get(p)) {
            Some(parent) => {
                let relative = parent.point_acceleration(pool, origin);
                pool.add3(accel_p, relative)
            }
            None => accel_p,
        };
        let accel_carried = pool.mat_t_vec(&to_parent, transport);
        let omega = pool.add3(omega_carried, omega_joint);
        let spin = pool.cross3(omega_carried, omega_joint);
        let omega_dot = {
            let w = pool.add3(omega_dot_carried, omega_dot_joint);
            pool.add3(w, spin)
        };
        let accel = {
            let own = pool.cross3(omega_joint, v_joint);
            let coriolis = pool.cross3(omega_carried, v_joint);
            let twice = pool.scale3c(Coeff::int(2), coriolis);
            let a = pool.add3(accel_carried, a_joint);
            let b = pool.add3(own, twice);
            pool.add3(a, b)
        };
        let field = (form == PointAcceleration::AccelerationField)
            .then(|| pool.acceleration_field(omega, omega_dot));
        motions.push(Motion {
            to_parent,
            origin,
            omega,
            omega_dot,
            accel,
            field,
        });
    }
    motions
}

/// The force and the moment about the body origin needed to produce the
/// body's own motion, from its centre of mass and central inertia:
/// `F = m (v̇ + ω̇ × c + ω × (ω × c))`, `n = I_c ω̇ + ω × I_c ω + c × F`.
/// Cheaper than [`origin_wrench`] for a body's own inertia, which is often
/// diagonal about the centre of mass and full about the origin.
fn central_wrench(pool: &mut Pool, body: &TreeBody, m: &Motion) -> (Vec3, Vec3) {
    let relative = m.point_acceleration(pool, body.com);
    let com_accel = pool.add3(m.accel, relative);
    let force = pool.scale3(body.mass, com_accel);
    let i_omega_dot = pool.mat_vec(&body.inertia, m.omega_dot);
    let i_omega = pool.mat_vec(&body.inertia, m.omega);
    let gyroscopic = pool.cross3(m.omega, i_omega);
    let lever = pool.cross3(body.com, force);
    let n = pool.add3(i_omega_dot, gyroscopic);
    (force, pool.add3(n, lever))
}

/// The same from an inertia about the body origin, which a base inertia
/// without mass needs:
/// `F = m v̇ + ω̇ × h + ω × (ω × h)`, `n = I ω̇ + ω × I ω + h × v̇`.
fn origin_wrench(pool: &mut Pool, inertia: &RigidInertia, m: &Motion) -> (Vec3, Vec3) {
    let h = inertia.first_moment;
    let linear = pool.scale3(inertia.mass, m.accel);
    let relative = m.point_acceleration(pool, h);
    let force = pool.add3(linear, relative);
    let i_omega_dot = pool.mat_vec(&inertia.rotational, m.omega_dot);
    let i_omega = pool.mat_vec(&inertia.rotational, m.omega);
    let gyroscopic = pool.cross3(m.omega, i_omega);
    let lever = pool.cross3(h, m.accel);
    let n = pool.add3(i_omega_dot, gyroscopic);
    (force, pool.add3(n, lever))
}
