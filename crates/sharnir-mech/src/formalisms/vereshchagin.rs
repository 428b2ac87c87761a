//! Symbolic forward dynamics by Vereshchagin's separate-bodies method.
//!
//! The method (A. F. Vereshchagin, 1974; Yudintsev's textbook, Sec. 3.5,
//! equations (3.170)–(3.177)) never forms the system mass matrix: every body
//! is treated separately, and its joint reaction is eliminated from the
//! outermost body inwards, so each body carries an *apparent* inertia `M*_k`
//! and an *apparent* load `Q*_k` that already account for everything outboard
//! of it. The cost is linear in the number of bodies. It is the method
//! Featherstone later named the articulated-body algorithm; the textbook
//! writes it for a chain, and here the backward pass sums the contributions
//! of all children of a body, which generalises it to trees.
//!
//! Every quantity is in the body's own frame and refers to the body origin
//! (a point of the inboard joint axis), not to the centre of mass as in the
//! book, so that the zeros of axes, placements and centres of mass propagate
//! as in [`crate::formalisms::rnea`]. Six-vectors are split into 3-vectors: an
//! acceleration is `w = (a; ε)`, the linear acceleration of the body origin
//! and the angular acceleration; a load is `(f; n)`, a force and a moment
//! about the body origin. With `E_k` the rotation from body `k` to its parent
//! `p`, `o_k` the body origin in parent coordinates, `e` the joint axis, `c`
//! the centre of mass, `J_c` the central inertia, `ω` the angular velocity,
//! `1` the 3×3 identity and `x̃` the cross-product matrix of `x`:
//!
//! ```text
//! w_k  = C_k w_p + S_k q̈_k + w'_k                                   (3.172)
//! C_k  = [Eᵀ  −Eᵀõ; 0  Eᵀ]          C_k w_p = (Eᵀ(a_p + ε_p × o); Eᵀε_p)
//! S_k  = (0; e) revolute,  (e; 0) prismatic
//! w'_k = (Eᵀ(ω_p × (ω_p × o)); Eᵀω_p × e q̇)                         (revolute)
//!        (Eᵀ(ω_p × (ω_p × o)) + 2 Eᵀω_p × e q̇; 0)                  (prismatic)
//! M_k  = [m 1  −h̃; h̃  I]                 the rigid body about its origin
//! Q_k  = −(ω × (ω × h); ω × I ω)        velocity loads (3.170), h = m c, I = J_c − m c̃c̃
//! ```
//!
//! Gravity enters as the fictitious acceleration of the ground, `w_0 = (−g; 0)`,
//! so `Q_k` holds only the velocity terms. The backward pass, `k = n … 1`,
//! starts from `M*_k = M_k`, `Q*_k = Q_k` and, once every child of `k` has
//! been added, computes
//!
//! ```text
//! U_k  = M*_k S_k                       (the column M*_k S_k)
//! D_k  = S_kᵀ U_k                       (the book's scalar U_k = S_kᵀ M*_k S_k, (3.174))
//! ν_k  = τ_k + S_kᵀ Q*_k
//! P_k  = M*_k − U_k D_k⁻¹ U_kᵀ
//! M*_p += C_kᵀ P_k C_k                                               (3.176)
//! Q*_p += C_kᵀ (Q*_k − P_k w'_k − U_k D_k⁻¹ ν_k)                     (3.177)
//! ```
//!
//! and the forward pass, `k = 1 … n`, the accelerations (3.174):
//!
//! ```text
//! ŵ_k  = C_k w_p + w'_k
//! q̈_k  = D_k⁻¹ (ν_k − U_kᵀ ŵ_k)
//! w_k  = ŵ_k + S_k q̈_k
//! ```
//!
//! `C_kᵀ (f; n) = (E f; E n + o × E f)` carries a load to the parent, and
//! `C_kᵀ P C_k` rotates each 3×3 block by `E` and shifts the reference point
//! by `o`. The load update is (3.177) with the joint force `τ_k` added and the
//! projector multiplied out: `Q*_p = Q_p − C_kᵀ(M*_k(S_k D_k⁻¹ (S_kᵀ(Q*_k −
//! M*_k w'_k) + τ_k) + w'_k) − Q*_k)`. **The sign in front of `C_kᵀ` is a
//! minus**, as in the book's MATLAB function `GetQk`; the printed (3.177),
//! and formula (18) of the lecture slides, have a plus, which gives wrong
//! accelerations (in the book's formulation, where gravity is part of `Q_k`,
//! the triple pendulum released from rest gets `(0, 0, −0.5)` instead of
//! `(−0.5, 0, 0)`).
//!
//! A drive's armature `a` (see [`crate::formalisms::armature`]) adds to the
//! diagonal of `D_k` only: the rotor's inertia acts on the joint's own
//! acceleration and is not part of `P_k`.
//!
//! The only divisor is `D_k`, which is positive whenever the joint moves
//! some mass or inertia. Its reciprocal is built once per joint, but the
//! pool's canonical products fold `x · D_k⁻¹` into `x / D_k`, so the emitted
//! code divides once per distinct product with `D_k⁻¹` (a few per joint).

use crate::formalisms::base_parameters::{base_inertias, RigidInertia};
use crate::formalisms::spd::spd_inverse;
use crate::geometry::kinematics::{joint_symbols, placement, relative_motion, subspace};
use crate::model::inputs::Input;
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{Mechanism, TreeBody};
use sharnir_cas::{Coeff, Id, Pool};

/// A mechanism outside the separate-bodies method: a follower joint
/// (`mimic`) couples two joints, but the method solves for each joint's
/// acceleration on its own, from the outermost body in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoupledJoint {
    /// The follower's spec joint.
    pub joint: String,
}

impl std::fmt::Display for CoupledJoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Vereshchagin's separate-bodies method needs independent joints, but joint `{}` \
             follows another; solve M(q) q̈ = τ − bias (method `lagrange`) instead",
            self.joint
        )
    }
}

impl std::error::Error for CoupledJoint {}

/// Joint accelerations `q̈(q, q̇, τ)` in coordinate order, as expressions in
/// `mechanism.pool`, by the separate-bodies method.
///
/// This is the form a simulator integrates: it costs O(n) and divides only
/// by one scalar per joint, where solving `M(q) q̈ = τ − bias(q, q̇)` costs
/// O(n³) for the factorisation. Mechanisms with coupled joints are refused.
pub fn forward_dynamics(mechanism: &mut Mechanism) -> Result<Vec<Id>, CoupledJoint> {
    let own: Vec<RigidInertia> = {
        let Mechanism { pool, bodies, .. } = &mut *mechanism;
        bodies
            .iter()
            .map(|body| RigidInertia::of_body(pool, body))
            .collect()
    };
    forward_dynamics_with(mechanism, &own)
}

/// The same accelerations with the bodies' inertias regrouped into base
/// inertias ([`crate::formalisms::base_parameters`]): the mass matrix, and with it every
/// pivot `D_k`, is unchanged, and the many zero parameters usually make the
/// code cheaper.
pub fn forward_dynamics_regrouped(mechanism: &mut Mechanism) -> Result<Vec<Id>, CoupledJoint> {
    let base = base_inertias(mechanism);
    forward_dynamics_with(mechanism, &base)
}

/// The separate-bodies method with `inertias[k]` standing for body `k`.
fn forward_dynamics_with(
    mechanism: &mut Mechanism,
    inertias: &[RigidInertia],
) -> Result<Vec<Id>, CoupledJoint> {
    if let Some(follower) = mechanism.bodies.iter().find(|b| b.coupling.is_some()) {
        return Err(CoupledJoint {
            joint: follower.joint.clone(),
        });
    }
    let Mechanism {
        pool,
        bodies,
        gravity,
        coordinates,
        ..
    } = mechanism;
    let joints: Vec<JointMotion> = velocity_pass(pool, bodies);
    let projections = backward_pass(pool, bodies, inertias, &joints);
    let ground = Accel {
        linear: pool.scale3c(Coeff::MINUS_ONE, *gravity),
        angular: pool.zero3(),
    };
    let zero = pool.zero();
    let mut qdd = vec![zero; coordinates.len()];
    let mut accelerations: Vec<Accel> = Vec::with_capacity(bodies.len());
    for ((body, joint), projection) in bodies.iter().zip(&joints).zip(&projections) {
        let parent = body.parent.map_or(ground, |p| accelerations[p]);
        let carried = joint.carry_accel(pool, parent);
        let without_joint = carried.add(pool, joint.bias_accel);
        let free: Vec<Id> = projection
            .u
            .iter()
            .zip(&projection.nu)
            .map(|(u, &nu)| {
                let power = u.power(pool, without_joint);
                pool.sub(nu, power)
            })
            .collect();
        let mut acceleration = without_joint;
        for (i, row) in projection.inv_d.iter().enumerate() {
            let terms: Vec<Id> = row
                .iter()
                .zip(&free)
                .map(|(&k, &f)| pool.mul(k, f))
                .collect();
            let qdd_i = pool.sum(&terms);
            if let Some(slot) = qdd.get_mut(body.velocity + i) {
                *slot = qdd_i;
            }
            if let Some(&column) = joint.subspace.get(i) {
                let along_joint = column.scale(pool, qdd_i);
                acceleration = acceleration.add(pool, along_joint);
            }
        }
        accelerations.push(acceleration);
    }
    Ok(qdd)
}

/// A linear and an angular acceleration `(a; ε)` of a body origin, or a
/// joint's motion direction `S_k`, in body coordinates.
#[derive(Clone, Copy)]
struct Accel {
    linear: Vec3,
    angular: Vec3,
}

impl Accel {
    fn add(self, pool: &mut Pool, other: Accel) -> Accel {
        Accel {
            linear: pool.add3(self.linear, other.linear),
            angular: pool.add3(self.angular, other.angular),
        }
    }

    fn scale(self, pool: &mut Pool, s: Id) -> Accel {
        Accel {
            linear: pool.scale3(s, self.linear),
            angular: pool.scale3(s, self.angular),
        }
    }
}

/// A force and a moment `(f; n)` about a body origin, in body coordinates.
#[derive(Clone, Copy)]
struct Wrench {
    force: Vec3,
    moment: Vec3,
}

impl Wrench {
    fn add(self, pool: &mut Pool, other: Wrench) -> Wrench {
        Wrench {
            force: pool.add3(self.force, other.force),
            moment: pool.add3(self.moment, other.moment),
        }
    }

    fn sub(self, pool: &mut Pool, other: Wrench) -> Wrench {
        let minus = Wrench {
            force: pool.scale3c(Coeff::MINUS_ONE, other.force),
            moment: pool.scale3c(Coeff::MINUS_ONE, other.moment),
        };
        self.add(pool, minus)
    }

    fn scale(self, pool: &mut Pool, s: Id) -> Wrench {
        Wrench {
            force: pool.scale3(s, self.force),
            moment: pool.scale3(s, self.moment),
        }
    }

    /// The power `fᵀa + nᵀε` of this load on an acceleration.
    fn power(self, pool: &mut Pool, w: Accel) -> Id {
        let linear = pool.dot3(self.force, w.linear);
        let angular = pool.dot3(self.moment, w.angular);
        pool.add(linear, angular)
    }
}

/// A symmetric 6×6 inertia in 3×3 blocks, `[ll la; laᵀ aa]`, mapping an
/// acceleration `(a; ε)` to the load `(ll a + la ε; laᵀ a + aa ε)`.
#[derive(Clone, Copy)]
struct Inertia {
    ll: Mat3,
    la: Mat3,
    aa: Mat3,
}

impl Inertia {
    /// `M_k`: the rigid body about its origin, `[m 1, −h̃; h̃, I]` with `h`
    /// its first moment and `I` its inertia about the origin.
    fn rigid(pool: &mut Pool, body: &RigidInertia) -> Inertia {
        let (m, h) = (body.mass, body.first_moment);
        let zero = pool.zero();
        let ll = [[m, zero, zero], [zero, m, zero], [zero, zero, m]];
        // −h̃, the cross-product matrix of −h.
        let [x, y, z] = h;
        let [nx, ny, nz] = h.map(|v| pool.neg(v));
        let la = [[zero, z, ny], [nz, zero, x], [y, nx, zero]];
        Inertia {
            ll,
            la,
            aa: body.rotational,
        }
    }

    fn apply(&self, pool: &mut Pool, w: Accel) -> Wrench {
        let ll_a = pool.mat_vec(&self.ll, w.linear);
        let la_e = pool.mat_vec(&self.la, w.angular);
        let la_t_a = pool.mat_t_vec(&self.la, w.linear);
        let aa_e = pool.mat_vec(&self.aa, w.angular);
        Wrench {
            force: pool.add3(ll_a, la_e),
            moment: pool.add3(la_t_a, aa_e),
        }
    }

    /// `P = M* − U D⁻¹ Uᵀ`, the inertia left after the joint's free
    /// directions are projected out.
    fn project_out(&self, pool: &mut Pool, u: &[Wrench], inv_d: &[Vec<Id>]) -> Inertia {
        let minus_outer = |pool: &mut Pool,
                           m: &Mat3,
                           x: &dyn Fn(&Wrench) -> Vec3,
                           y: &dyn Fn(&Wrench) -> Vec3| {
            let mut out = *m;
            for (i, row) in out.iter_mut().enumerate() {
                for (k, entry) in row.iter_mut().enumerate() {
                    let mut terms = Vec::with_capacity(u.len() * u.len());
                    for (a, ua) in u.iter().enumerate() {
                        for (b, ub) in u.iter().enumerate() {
                            let kab = inv_d.get(a).and_then(|r| r.get(b)).copied();
                            if let Some(kab) = kab {
                                terms.push(pool.mul_all(&[x(ua)[i], y(ub)[k], kab]));
                            }
                        }
                    }
                    let projected = pool.sum(&terms);
                    *entry = pool.sub(*entry, projected);
                }
            }
            out
        };
        let force = |w: &Wrench| w.force;
        let moment = |w: &Wrench| w.moment;
        Inertia {
            ll: minus_outer(pool, &self.ll, &force, &force),
            la: minus_outer(pool, &self.la, &force, &moment),
            aa: minus_outer(pool, &self.aa, &moment, &moment),
        }
    }

    fn add(&self, pool: &mut Pool, other: &Inertia) -> Inertia {
        let add = |pool: &mut Pool, a: &Mat3, b: &Mat3| {
            let mut out = *a;
            for (row, b_row) in out.iter_mut().zip(b) {
                *row = pool.add3(*row, *b_row);
            }
            out
        };
        Inertia {
            ll: add(pool, &self.ll, &other.ll),
            la: add(pool, &self.la, &other.la),
            aa: add(pool, &self.aa, &other.aa),
        }
    }
}

/// What the backward pass leaves at a joint for the forward pass.
struct Projection {
    /// `U_k = M*_k S_k`, one load per joint velocity coordinate.
    u: Vec<Wrench>,
    /// `D_k⁻¹`, with `D_k = S_kᵀ M*_k S_k`.
    inv_d: Vec<Vec<Id>>,
    /// `ν_k = τ_k + S_kᵀ Q*_k`.
    nu: Vec<Id>,
}

/// A body's placement, velocity and velocity-product terms from the
/// outward velocity pass.
struct JointMotion {
    /// Body-to-parent rotation `E_k`.
    to_parent: Mat3,
    /// Body origin in parent coordinates, `o_k`.
    origin: Vec3,
    /// Angular velocity, body coordinates.
    omega: Vec3,
    /// `S_k`, the accelerations unit joint accelerations produce, one per
    /// velocity coordinate.
    subspace: Vec<Accel>,
    /// `w'_k`, the acceleration at `q̈ = 0` and zero parent acceleration.
    bias_accel: Accel,
}

impl JointMotion {
    /// `C_k w_p`: the parent's acceleration carried to this body's origin.
    fn carry_accel(&self, pool: &mut Pool, parent: Accel) -> Accel {
        let tangential = pool.cross3(parent.angular, self.origin);
        let at_origin = pool.add3(parent.linear, tangential);
        Accel {
            linear: pool.mat_t_vec(&self.to_parent, at_origin),
            angular: pool.mat_t_vec(&self.to_parent, parent.angular),
        }
    }

    /// `C_kᵀ (f; n) = (E f; E n + o × E f)`: a load moved to the parent.
    fn carry_wrench(&self, pool: &mut Pool, w: Wrench) -> Wrench {
        let force = pool.mat_vec(&self.to_parent, w.force);
        let rotated = pool.mat_vec(&self.to_parent, w.moment);
        let lever = pool.cross3(self.origin, force);
        Wrench {
            force,
            moment: pool.add3(rotated, lever),
        }
    }

    /// `C_kᵀ P C_k`: an inertia rotated into the parent frame and referred
    /// to the parent origin.
    fn carry_inertia(&self, pool: &mut Pool, inertia: &Inertia) -> Inertia {
        let e = &self.to_parent;
        let a = pool.rotate_symmetric(e, &inertia.ll);
        let b = rotate(pool, e, &inertia.la);
        let c = pool.rotate_symmetric(e, &inertia.aa);
        let o = self.origin;
        // With õ the cross-product matrix of o:
        //   ll' = A,  la' = B − A õ,  aa' = C + õB − Bᵀõ − õAõ = C + X + Xᵀ − õ(Aõ), X = õB.
        let a_o = times_cross(pool, &a, o);
        let la = sub_mat(pool, &b, &a_o);
        let x = cross_times(pool, o, &b);
        let o_a_o = cross_times(pool, o, &a_o);
        let mut aa = c;
        for i in 0..3 {
            for k in i..3 {
                let sum = pool.sum(&[c[i][k], x[i][k], x[k][i]]);
                aa[i][k] = pool.sub(sum, o_a_o[i][k]);
                aa[k][i] = aa[i][k];
            }
        }
        Inertia { ll: a, la, aa }
    }
}

/// `E B Eᵀ`.
fn rotate(pool: &mut Pool, e: &Mat3, b: &Mat3) -> Mat3 {
    let b_et = b.map(|row| e.map(|e_row| pool.dot3(row, e_row)));
    let mut out = *b;
    for (i, row) in out.iter_mut().enumerate() {
        for (k, entry) in row.iter_mut().enumerate() {
            let column = [b_et[0][k], b_et[1][k], b_et[2][k]];
            *entry = pool.dot3(e[i], column);
        }
    }
    out
}

/// `õ M`: the cross product of `o` with each column of `M`.
fn cross_times(pool: &mut Pool, o: Vec3, m: &Mat3) -> Mat3 {
    let mut out = *m;
    for k in 0..3 {
        let column = pool.cross3(o, [m[0][k], m[1][k], m[2][k]]);
        for (row, value) in out.iter_mut().zip(column) {
            row[k] = value;
        }
    }
    out
}

/// `M õ`: row `i` is `M_i × o`, the `i`-th row crossed with `o`.
fn times_cross(pool: &mut Pool, m: &Mat3, o: Vec3) -> Mat3 {
    m.map(|row| pool.cross3(row, o))
}

fn sub_mat(pool: &mut Pool, a: &Mat3, b: &Mat3) -> Mat3 {
    let mut out = *a;
    for (row, b_row) in out.iter_mut().zip(b) {
        let minus = pool.scale3c(Coeff::MINUS_ONE, *b_row);
        *row = pool.add3(*row, minus);
    }
    out
}

/// Outward pass: placements, angular velocities, motion directions and
/// velocity-product accelerations of every body.
fn velocity_pass(pool: &mut Pool, bodies: &[TreeBody]) -> Vec<JointMotion> {
    let mut joints: Vec<JointMotion> = Vec::with_capacity(bodies.len());
    for body in bodies {
        let omega_p = match body.parent.and_then(|p| joints.get(p)) {
            Some(parent) => parent.omega,
            None => pool.zero3(),
        };
        let (to_parent, origin) = placement(pool, body);
        let omega_carried = pool.mat_t_vec(&to_parent, omega_p);
        let inner = pool.cross3(omega_p, origin);
        let centripetal = pool.cross3(omega_p, inner);
        let centripetal = pool.mat_t_vec(&to_parent, centripetal);
        let rates = joint_symbols(pool, body, Input::Velocity);
        let (v_joint, omega_joint) = relative_motion(pool, body, &rates);
        let own = pool.cross3(omega_joint, v_joint);
        let coriolis = pool.cross3(omega_carried, v_joint);
        let twice = pool.scale3c(Coeff::int(2), coriolis);
        let linear = {
            let a = pool.add3(centripetal, own);
            pool.add3(a, twice)
        };
        let subspace = subspace(pool, body)
            .into_iter()
            .map(|(linear, angular)| Accel { linear, angular })
            .collect();
        joints.push(JointMotion {
            to_parent,
            origin,
            omega: pool.add3(omega_carried, omega_joint),
            subspace,
            bias_accel: Accel {
                linear,
                angular: pool.cross3(omega_carried, omega_joint),
            },
        });
    }
    joints
}

/// Inward pass: apparent inertias `M*_k` and loads `Q*_k`, projected at each
/// joint and accumulated in the parent. Returns the projections in body order.
fn backward_pass(
    pool: &mut Pool,
    bodies: &[TreeBody],
    rigid: &[RigidInertia],
    joints: &[JointMotion],
) -> Vec<Projection> {
    let mut inertias: Vec<Inertia> = rigid.iter().map(|r| Inertia::rigid(pool, r)).collect();
    let mut loads: Vec<Wrench> = rigid
        .iter()
        .zip(joints)
        .map(|(r, j)| velocity_load(pool, r, j.omega))
        .collect();
    let mut projections = Vec::with_capacity(bodies.len());
    for (k, (body, joint)) in bodies.iter().zip(joints).enumerate().rev() {
        let taus = joint_symbols(pool, body, Input::Force);
        let inertia = inertias[k];
        let load = loads[k];
        let u: Vec<Wrench> = joint
            .subspace
            .iter()
            .map(|&s| inertia.apply(pool, s))
            .collect();
        let mut d: Vec<Vec<Id>> = joint
            .subspace
            .iter()
            .map(|&s| u.iter().map(|uj| uj.power(pool, s)).collect())
            .collect();
        // The rotor turns with the joint alone: its armature adds to `D_k`
        // and to nothing carried inwards.
        for (i, &a) in body.armature.iter().enumerate() {
            if let Some(entry) = d.get_mut(i).and_then(|row| row.get_mut(i)) {
                if !pool.is_zero(a) {
                    *entry = pool.add(*entry, a);
                }
            }
        }
        let inv_d = spd_inverse(pool, &d);
        let nu: Vec<Id> = joint
            .subspace
            .iter()
            .zip(&taus)
            .map(|(&s, &tau)| {
                let driving = load.power(pool, s);
                pool.add(tau, driving)
            })
            .collect();
        if let Some(p) = body.parent {
            let articulated = inertia.project_out(pool, &u, &inv_d);
            let bias = articulated.apply(pool, joint.bias_accel);
            let mut passed = load.sub(pool, bias);
            for (row, ui) in inv_d.iter().zip(&u) {
                let terms: Vec<Id> = row.iter().zip(&nu).map(|(&k, &n)| pool.mul(k, n)).collect();
                let weight = pool.sum(&terms);
                let share = ui.scale(pool, weight);
                passed = passed.sub(pool, share);
            }
            let carried = joint.carry_inertia(pool, &articulated);
            inertias[p] = inertias[p].add(pool, &carried);
            let carried_load = joint.carry_wrench(pool, passed);
            loads[p] = loads[p].add(pool, carried_load);
        }
        projections.push(Projection { u, inv_d, nu });
    }
    projections.reverse();
    projections
}

/// `Q_k`: the loads that the velocities alone require, with the sign of an
/// applied load, about the body origin.
fn velocity_load(pool: &mut Pool, body: &RigidInertia, omega: Vec3) -> Wrench {
    let inner = pool.cross3(omega, body.first_moment);
    let force = pool.cross3(omega, inner);
    let spin = pool.mat_vec(&body.rotational, omega);
    let moment = pool.cross3(omega, spin);
    Wrench {
        force: pool.scale3c(Coeff::MINUS_ONE, force),
        moment: pool.scale3c(Coeff::MINUS_ONE, moment),
    }
}

#[cfg(test)]
mod tests;
