//! Telegin's formalism (draft).

use crate::inputs::Input;
use crate::kinematics::placement;
use crate::mechanism::{JointKind, Mechanism, TreeBody};
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Node, Pool, Program};
use std::collections::HashMap;
use std::fmt;

/// Why a mechanism is outside the formalism.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TeleginError {
    /// A body (or the ground) carries more than one body.
    Branching {
        /// The body with several children (`ground` for the ground).
        parent: String,
        /// Its children.
        children: Vec<String>,
    },
    /// A joint with more than one degree of freedom.
    MultiDofJoint {
        /// The body the joint moves.
        body: String,
        /// The spec joint.
        joint: String,
        /// Its primitive kind.
        kind: JointKind,
    },
}

impl fmt::Display for TeleginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeleginError::Branching { parent, children } => write!(
                f,
                "Telegin's formalism needs a serial chain, but `{parent}` carries {}",
                children.join(", ")
            ),
            TeleginError::MultiDofJoint { body, joint, kind } => write!(
                f,
                "Telegin's formalism needs revolute and prismatic joints, but joint `{joint}` of `{body}` is {kind:?}"
            ),
        }
    }
}

impl std::error::Error for TeleginError {}

/// Checks that `bodies` form one chain of 1-DOF joints.
fn check_chain(bodies: &[TreeBody]) -> Result<(), TeleginError> {
    for body in bodies {
        if !matches!(body.kind, JointKind::Revolute | JointKind::Prismatic) {
            return Err(TeleginError::MultiDofJoint {
                body: body.name.clone(),
                joint: body.joint.clone(),
                kind: body.kind,
            });
        }
    }
    for (k, body) in bodies.iter().enumerate() {
        let expected = k.checked_sub(1);
        if body.parent != expected {
            let parent = body.parent;
            let name = parent
                .and_then(|p| bodies.get(p))
                .map_or_else(|| "ground".to_owned(), |p| p.name.clone());
            let children = bodies
                .iter()
                .filter(|b| b.parent == parent)
                .map(|b| b.name.clone())
                .collect();
            return Err(TeleginError::Branching {
                parent: name,
                children,
            });
        }
    }
    Ok(())
}

/// Forward-mode time derivative along the motion: `q → q̇ → q̈`.
struct TimeDerivative {
    next: HashMap<Id, Id>,
    memo: HashMap<Id, Id>,
}

impl TimeDerivative {
    fn new(pool: &mut Pool, bodies: &[TreeBody]) -> TimeDerivative {
        let mut next = HashMap::new();
        for b in bodies {
            let q = pool.symbol(&Input::Position(b.position).symbol_name());
            let qd = pool.symbol(&Input::Velocity(b.velocity).symbol_name());
            let qdd = pool.symbol(&Input::Acceleration(b.velocity).symbol_name());
            next.insert(q, qd);
            next.insert(qd, qdd);
        }
        TimeDerivative {
            next,
            memo: HashMap::new(),
        }
    }

    fn rate(&mut self, pool: &mut Pool, e: Id) -> Id {
        if let Some(&d) = self.memo.get(&e) {
            return d;
        }
        let d = match pool.node(e).clone() {
            Node::Num(_) | Node::Pi => pool.zero(),
            Node::Symbol(_) => match self.next.get(&e) {
                Some(&n) => n,
                None => pool.zero(),
            },
            Node::Add(terms, _) => {
                let parts: Vec<(Id, Coeff)> = terms
                    .iter()
                    .map(|&(t, c)| (self.rate(pool, t), c))
                    .collect();
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Mul(factors) => {
                let mut parts = Vec::with_capacity(factors.len());
                for (i, &(base, exp)) in factors.iter().enumerate() {
                    let db = self.rate(pool, base);
                    if pool.is_zero(db) {
                        continue;
                    }
                    let mut rest: Vec<(Id, i32)> = factors.to_vec();
                    if let Some(f) = rest.get_mut(i) {
                        f.1 = exp - 1;
                    }
                    rest.push((db, 1));
                    let term = pool.product(&rest);
                    parts.push((term, Coeff::int(i64::from(exp))));
                }
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Sin(u) => {
                let du = self.rate(pool, u);
                let c = pool.cos(u);
                pool.mul(c, du)
            }
            Node::Cos(u) => {
                let du = self.rate(pool, u);
                let s = pool.sin(u);
                let ms = pool.neg(s);
                pool.mul(ms, du)
            }
            Node::Sqrt(u) => {
                let du = self.rate(pool, u);
                let half = pool.num(Coeff::ratio(1, 2));
                pool.product(&[(half, 1), (du, 1), (e, -1)])
            }
        };
        self.memo.insert(e, d);
        d
    }

    fn rate3(&mut self, pool: &mut Pool, v: Vec3) -> Vec3 {
        v.map(|e| self.rate(pool, e))
    }
}

/// Motion of a frame: angular velocity and acceleration, own components.
#[derive(Clone, Copy)]
struct Spin {
    omega: Vec3,
    omega_dot: Vec3,
}

struct Link {
    kind: JointKind,
    to_parent: Mat3,
    origin: Vec3,
    axis: Vec3,
    axis_in_parent: Vec3,
    rate: Id,
    accel: Id,
    mass: Id,
    com: Vec3,
    inertia: Mat3,
    placement: Mat3,
}

fn describe(pool: &mut Pool, bodies: &[TreeBody]) -> Vec<Link> {
    bodies
        .iter()
        .map(|body| {
            let (to_parent, origin) = placement(pool, body);
            Link {
                kind: body.kind,
                to_parent,
                origin,
                axis: body.axis,
                axis_in_parent: pool.mat_vec(&body.rotation, body.axis),
                rate: pool.symbol(&Input::Velocity(body.velocity).symbol_name()),
                accel: pool.symbol(&Input::Acceleration(body.velocity).symbol_name()),
                mass: body.mass,
                com: body.com,
                inertia: pole_inertia(pool, body),
                placement: body.rotation,
            }
        })
        .collect()
}

struct Kinematics {
    spin: Vec<Spin>,
    /// A_k: pole acceleration minus gravity, frame k.
    pole: Vec<Vec3>,
    /// R̈_k: inertial second derivative of the inter-pole vector, frame k-1.
    relative: Vec<Vec3>,
    ground: Spin,
}

impl Kinematics {
    fn parent_spin(&self, k: usize) -> Spin {
        k.checked_sub(1)
            .and_then(|p| self.spin.get(p))
            .copied()
            .unwrap_or(self.ground)
    }
}

/// `ü = ω̇ × u + ω × (ω × u)` for a vector fixed in a frame spinning with `spin`.
fn fixed_accel(pool: &mut Pool, spin: &Spin, u: Vec3) -> Vec3 {
    let ang = pool.cross3(spin.omega_dot, u);
    let inner = pool.cross3(spin.omega, u);
    let cen = pool.cross3(spin.omega, inner);
    pool.add3(ang, cen)
}

fn absolute_kinematics(pool: &mut Pool, links: &[Link], gravity: Vec3) -> Kinematics {
    let ground = Spin {
        omega: pool.zero3(),
        omega_dot: pool.zero3(),
    };
    let lift = pool.scale3c(Coeff::MINUS_ONE, gravity);
    let mut kin = Kinematics {
        spin: Vec::with_capacity(links.len()),
        pole: Vec::with_capacity(links.len()),
        relative: Vec::with_capacity(links.len()),
        ground,
    };
    for (k, link) in links.iter().enumerate() {
        let parent = kin.parent_spin(k);
        let a_parent = k
            .checked_sub(1)
            .and_then(|p| kin.pole.get(p))
            .copied()
            .unwrap_or(lift);
        let mut rdd = fixed_accel(pool, &parent, link.origin);
        let omega_c = pool.mat_t_vec(&link.to_parent, parent.omega);
        let omega_dot_c = pool.mat_t_vec(&link.to_parent, parent.omega_dot);
        let spin = match link.kind {
            JointKind::Revolute => {
                let w = pool.scale3(link.rate, link.axis);
                let e = pool.scale3(link.accel, link.axis);
                let gyro = pool.cross3(omega_c, w);
                let od = pool.add3(omega_dot_c, e);
                Spin {
                    omega: pool.add3(omega_c, w),
                    omega_dot: pool.add3(od, gyro),
                }
            }
            _ => {
                let p = link.axis_in_parent;
                let slide = pool.scale3(link.accel, p);
                let cor = pool.cross3(parent.omega, p);
                let twice = pool.scale3c(Coeff::int(2), cor);
                let cor = pool.scale3(link.rate, twice);
                let extra = pool.add3(slide, cor);
                rdd = pool.add3(rdd, extra);
                Spin {
                    omega: omega_c,
                    omega_dot: omega_dot_c,
                }
            }
        };
        let total = pool.add3(a_parent, rdd);
        kin.pole.push(pool.mat_t_vec(&link.to_parent, total));
        kin.relative.push(rdd);
        kin.spin.push(spin);
    }
    kin
}

/// `v̈` (inertial, frame components) of an explicit vector `v(q)` given in a frame that spins.
fn transport(pool: &mut Pool, dt: &mut TimeDerivative, spin: &Spin, v: Vec3) -> Vec3 {
    let v1 = dt.rate3(pool, v);
    let v2 = dt.rate3(pool, v1);
    let coriolis = pool.cross3(spin.omega, v1);
    let coriolis2 = pool.scale3c(Coeff::int(2), coriolis);
    let fixed = fixed_accel(pool, spin, v);
    let a = pool.add3(v2, coriolis2);
    pool.add3(a, fixed)
}

fn pole_inertia(pool: &mut Pool, body: &TreeBody) -> Mat3 {
    let c = body.com;
    let cc = pool.dot3(c, c);
    let mut j = body.inertia;
    for (i, row) in j.iter_mut().enumerate() {
        for (k, entry) in row.iter_mut().enumerate() {
            let outer = pool.mul(c[i], c[k]);
            let shift = if i == k { pool.sub(cc, outer) } else { pool.neg(outer) };
            let m_shift = pool.mul(body.mass, shift);
            *entry = pool.add(*entry, m_shift);
        }
    }
    j
}

/// If the body's mass distribution is symmetric about its joint axis (a
/// coordinate axis), the index of that axis.
fn symmetric_axis(pool: &Pool, link: &Link) -> Option<usize> {
    if link.kind != JointKind::Revolute {
        return None;
    }
    let value = |id: Id| pool.as_num(id).map(Coeff::to_f64);
    let i = (0..3).find(|&i| value(link.axis[i]).is_some_and(|v| v.abs() == 1.0))?;
    let others: Vec<usize> = (0..3).filter(|&l| l != i).collect();
    let zero = |id: Id| pool.is_zero(id);
    if !others.iter().all(|&l| zero(link.axis[l]) && zero(link.com[l])) {
        return None;
    }
    let j = &link.inertia;
    for r in 0..3 {
        for c in 0..3 {
            if r != c && !zero(j[r][c]) {
                return None;
            }
        }
    }
    let (l, m) = (others[0], others[1]);
    (j[l][l] == j[m][m]).then_some(i)
}

fn transpose(m: &Mat3) -> Mat3 {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// Euler vector of body k (moment of its momentum about its pole): in frame k,
/// or in frame k-1 for a rotor (`true`).
fn euler(pool: &mut Pool, link: &Link, own: &Spin, parent: &Spin, rotor: Option<usize>) -> (bool, Vec3) {
    let jo = link.inertia;
    match rotor {
        Some(i) => {
            // rotation part of placement: E = P Rot(axis), and J' = P J Pᵀ
            let p = link.placement;
            let pj = pool.mat_mul(&p, &jo);
            let jp = pool.mat_mul(&pj, &transpose(&p));
            let ap = link.axis_in_parent;
            let ia = jo[i][i];
            let jw = pool.mat_vec(&jp, parent.omega);
            let spin_part = pool.mul(ia, link.rate);
            let spin_v = pool.scale3(spin_part, ap);
            let h = pool.add3(jw, spin_v);
            let jwd = pool.mat_vec(&jp, parent.omega_dot);
            let acc_part = pool.mul(ia, link.accel);
            let acc_v = pool.scale3(acc_part, ap);
            let gyro = pool.cross3(parent.omega, h);
            let x = pool.add3(jwd, acc_v);
            (true, pool.add3(x, gyro))
        }
        None => {
            let jwd = pool.mat_vec(&jo, own.omega_dot);
            let jw = pool.mat_vec(&jo, own.omega);
            let gyro = pool.cross3(own.omega, jw);
            (false, pool.add3(jwd, gyro))
        }
    }
}


fn cost(pool: &Pool, v: &[Id]) -> u32 {
    let ops = Program::lower(pool, v).op_count();
    ops.mul + ops.add
}

/// Joint forces by Telegin's formalism.
pub fn inverse_dynamics(mechanism: &mut Mechanism) -> Result<Vec<Id>, TeleginError> {
    check_chain(&mechanism.bodies)?;
    let Mechanism {
        pool,
        bodies,
        gravity,
        coordinates,
        ..
    } = mechanism;
    let n = bodies.len();
    let mut dt = TimeDerivative::new(pool, bodies);
    let links = describe(pool, bodies);
    let kin = absolute_kinematics(pool, &links, *gravity);
    // Subsystem masses and static moments, (1).
    let zero = pool.zero();
    let mut mass = vec![zero; n + 1];
    let mut moment: Vec<Vec3> = vec![pool.zero3(); n + 1];
    for k in (0..n).rev() {
        let link = &links[k];
        mass[k] = pool.add(link.mass, mass[k + 1]);
        let own = pool.scale3(link.mass, link.com);
        let (lever, child) = match links.get(k + 1) {
            Some(next) => {
                let lever = pool.scale3(mass[k + 1], next.origin);
                let child = pool.mat_vec(&next.to_parent, moment[k + 1]);
                (lever, child)
            }
            None => (pool.zero3(), pool.zero3()),
        };
        let s = pool.add3(own, lever);
        moment[k] = pool.add3(s, child);
    }
    // s̈_k in frame k: the cheaper of recursion (alpha) and (7)-(8) (beta).
    let mode = std::env::var("SDD").unwrap_or_default();
    let mut sdd: Vec<Vec3> = vec![pool.zero3(); n + 1];
    for k in (0..n).rev() {
        let link = &links[k];
        let spin = kin.spin[k];
        let cdd = fixed_accel(pool, &spin, link.com);
        let own = pool.scale3(link.mass, cdd);
        let rest = match links.get(k + 1) {
            Some(next) => {
                let a = pool.scale3(mass[k + 1], kin.relative[k + 1]);
                let b = pool.mat_vec(&next.to_parent, sdd[k + 1]);
                pool.add3(a, b)
            }
            None => pool.zero3(),
        };
        let alpha = pool.add3(own, rest);
        let beta = transport(pool, &mut dt, &spin, moment[k]);
        sdd[k] = match mode.as_str() {
            "alpha" => alpha,
            "beta" => beta,
            _ => {
                if cost(pool, &beta) <= cost(pool, &alpha) { beta } else { alpha }
            }
        };
    }
    // Euler vectors.
    let eulers: Vec<(bool, Vec3)> = (0..n)
        .map(|k| {
            let rotor = if std::env::var("NOROTOR").is_ok() { None } else { symmetric_axis(pool, &links[k]) };
            let parent = kin.parent_spin(k);
            euler(pool, &links[k], &kin.spin[k], &parent, rotor)
        })
        .collect();
    // Relative moments N_k (frame k), recursively.
    let mut relative: Vec<Vec3> = vec![pool.zero3(); n + 1];
    for k in (0..n).rev() {
        let mut acc = if eulers[k].0 { pool.zero3() } else { eulers[k].1 };
        if let Some(next) = links.get(k + 1) {
            let carried = pool.mat_vec(&next.to_parent, relative[k + 1]);
            acc = pool.add3(acc, carried);
            if eulers[k + 1].0 {
                acc = pool.add3(acc, eulers[k + 1].1);
            }
            let r = next.origin;
            let rdd = kin.relative[k + 1];
            let s = pool.mat_vec(&next.to_parent, moment[k + 1]);
            let sdd_p = pool.mat_vec(&next.to_parent, sdd[k + 1]);
            let a = pool.scale3(mass[k + 1], rdd);
            let f = pool.add3(a, sdd_p);
            let l1 = pool.cross3(r, f);
            let l2 = pool.cross3(s, rdd);
            let l = pool.add3(l1, l2);
            acc = pool.add3(acc, l);
        }
        relative[k] = acc;
    }
    let statement2 = std::env::var("NOS2").is_err();
    let mut forces = vec![zero; n];
    for j in (0..n).rev() {
        let link = &links[j];
        let value = match link.kind {
            JointKind::Prismatic => {
                let ma = pool.scale3(mass[j], kin.pole[j]);
                let f = pool.add3(ma, sdd[j]);
                pool.dot3(link.axis, f)
            }
            _ => {
                let rotor_self = if eulers[j].0 {
                    pool.dot3(link.axis_in_parent, eulers[j].1)
                } else {
                    zero
                };
                let parallel = links.get(j + 1).and_then(|next| {
                    if next.kind != JointKind::Revolute || !statement2 {
                        return None;
                    }
                    let minus = pool.scale3c(Coeff::MINUS_ONE, next.axis_in_parent);
                    if next.axis_in_parent == link.axis {
                        Some(Coeff::ONE)
                    } else if minus == link.axis {
                        Some(Coeff::MINUS_ONE)
                    } else {
                        None
                    }
                });
                match (parallel, links.get(j + 1)) {
                    (Some(sign), Some(next)) => {
                        let own = pool.scale3(link.mass, link.com);
                        let lever = pool.scale3(mass[j + 1], next.origin);
                        let arm = pool.add3(own, lever);
                        let sa = pool.cross3(arm, kin.pole[j]);
                        let a = pool.scale3(mass[j + 1], kin.relative[j + 1]);
                        let sdd_p = pool.mat_vec(&next.to_parent, sdd[j + 1]);
                        let f = pool.add3(a, sdd_p);
                        let rf = pool.cross3(next.origin, f);
                        let v = pool.add3(sa, rf);
                        let v = if eulers[j].0 { v } else { pool.add3(v, eulers[j].1) };
                        let delta = pool.dot3(link.axis, v);
                        let carried = pool.scale(sign, forces[j + 1]);
                        pool.sum(&[carried, delta, rotor_self])
                    }
                    _ => {
                        let sa = pool.cross3(moment[j], kin.pole[j]);
                        let v = pool.add3(sa, relative[j]);
                        let d = pool.dot3(link.axis, v);
                        pool.add(d, rotor_self)
                    }
                }
            }
        };
        forces[j] = value;
    }
    let mut tau = vec![zero; coordinates.len()];
    for (body, f) in bodies.iter().zip(forces) {
        if let Some(slot) = tau.get_mut(body.velocity) {
            *slot = f;
        }
    }
    Ok(tau)
}
