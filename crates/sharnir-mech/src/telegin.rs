//! Telegin's formalism (draft).

use crate::inputs::Input;
use crate::kinematics::placement;
use crate::mechanism::{JointKind, Mechanism, TreeBody};
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Node, Pool};
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
    to_parent: Mat3,
    origin: Vec3,
    axis: Vec3,
    rate: Id,
    accel: Id,
    /// R̈ in the parent frame.
    pole_accel: Vec3,
}

/// `v̈` (inertial, frame components) of an explicit vector `v(q)` given in a frame that spins.
fn transport(pool: &mut Pool, dt: &mut TimeDerivative, spin: &Spin, v: Vec3) -> Vec3 {
    let v1 = dt.rate3(pool, v);
    let v2 = dt.rate3(pool, v1);
    let coriolis = pool.cross3(spin.omega, v1);
    let coriolis2 = pool.scale3c(Coeff::int(2), coriolis);
    let ang = pool.cross3(spin.omega_dot, v);
    let inner = pool.cross3(spin.omega, v);
    let centripetal = pool.cross3(spin.omega, inner);
    let a = pool.add3(v2, coriolis2);
    let b = pool.add3(ang, centripetal);
    pool.add3(a, b)
}

fn pole_inertia(pool: &mut Pool, body: &TreeBody) -> Mat3 {
    let c = body.com;
    let cc = pool.dot3(c, c);
    let mut j = body.inertia;
    for (i, row) in j.iter_mut().enumerate() {
        for (k, entry) in row.iter_mut().enumerate() {
            let outer = pool.mul(c[i], c[k]);
            let shift = if i == k {
                pool.sub(cc, outer)
            } else {
                pool.neg(outer)
            };
            let m_shift = pool.mul(body.mass, shift);
            *entry = pool.add(*entry, m_shift);
        }
    }
    j
}

/// If the body's mass distribution is symmetric about its joint axis (a
/// coordinate axis), the index of that axis.
fn symmetric_axis(pool: &Pool, body: &TreeBody) -> Option<usize> {
    if body.kind != JointKind::Revolute {
        return None;
    }
    let value = |id: Id| pool.as_num(id).map(Coeff::to_f64);
    let i = (0..3).find(|&i| value(body.axis[i]).is_some_and(|v| v.abs() == 1.0))?;
    let others: Vec<usize> = (0..3).filter(|&l| l != i).collect();
    let zero = |id: Id| pool.is_zero(id);
    if !others
        .iter()
        .all(|&l| zero(body.axis[l]) && zero(body.com[l]))
    {
        return None;
    }
    let j = &body.inertia;
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
    // Absolute kinematics.
    let ground = Spin {
        omega: pool.zero3(),
        omega_dot: pool.zero3(),
    };
    let lift = pool.scale3c(Coeff::MINUS_ONE, *gravity);
    let mut spins: Vec<Spin> = Vec::with_capacity(n);
    let mut pole: Vec<Vec3> = Vec::with_capacity(n);
    let mut links: Vec<Link> = Vec::with_capacity(n);
    for (k, body) in bodies.iter().enumerate() {
        let (to_parent, origin) = placement(pool, body);
        let rate = pool.symbol(&Input::Velocity(body.velocity).symbol_name());
        let accel = pool.symbol(&Input::Acceleration(body.velocity).symbol_name());
        let parent = k
            .checked_sub(1)
            .and_then(|p| spins.get(p))
            .copied()
            .unwrap_or(ground);
        let a_parent = k
            .checked_sub(1)
            .and_then(|p| pole.get(p))
            .copied()
            .unwrap_or(lift);
        let mut rdd = {
            let ang = pool.cross3(parent.omega_dot, origin);
            let inner = pool.cross3(parent.omega, origin);
            let cen = pool.cross3(parent.omega, inner);
            pool.add3(ang, cen)
        };
        let axis_parent = pool.mat_vec(&body.rotation, body.axis);
        let omega_c = pool.mat_t_vec(&to_parent, parent.omega);
        let omega_dot_c = pool.mat_t_vec(&to_parent, parent.omega_dot);
        let spin = match body.kind {
            JointKind::Prismatic => {
                let slide = pool.scale3(accel, axis_parent);
                let cor = pool.cross3(parent.omega, axis_parent);
                let twice = pool.scale3c(Coeff::int(2), cor);
                let cor = pool.scale3(rate, twice);
                let extra = pool.add3(slide, cor);
                rdd = pool.add3(rdd, extra);
                Spin {
                    omega: omega_c,
                    omega_dot: omega_dot_c,
                }
            }
            _ => {
                let w = pool.scale3(rate, body.axis);
                let e = pool.scale3(accel, body.axis);
                let gyro = pool.cross3(omega_c, w);
                let od = pool.add3(omega_dot_c, e);
                Spin {
                    omega: pool.add3(omega_c, w),
                    omega_dot: pool.add3(od, gyro),
                }
            }
        };
        let total = pool.add3(a_parent, rdd);
        pole.push(pool.mat_t_vec(&to_parent, total));
        spins.push(spin);
        links.push(Link {
            to_parent,
            origin,
            axis: body.axis,
            rate,
            accel,
            pole_accel: rdd,
        });
    }
    // Subsystem masses and static moments, (1).
    let zero = pool.zero();
    let mut mass = vec![zero; n + 1];
    let mut moment: Vec<Vec3> = vec![pool.zero3(); n + 1];
    let mut carried: Vec<Vec3> = vec![pool.zero3(); n + 1];
    for k in (0..n).rev() {
        let body = &bodies[k];
        mass[k] = pool.add(body.mass, mass[k + 1]);
        let own = pool.scale3(body.mass, body.com);
        let (lever, child) = match links.get(k + 1) {
            Some(next) => {
                let lever = pool.scale3(mass[k + 1], next.origin);
                let child = pool.mat_vec(&next.to_parent, moment[k + 1]);
                (lever, child)
            }
            None => (pool.zero3(), pool.zero3()),
        };
        carried[k + 1] = child;
        let s = pool.add3(own, lever);
        moment[k] = pool.add3(s, child);
    }
    // Direction cosines of every axis in every later frame.
    let mut cosines: Vec<Vec<Vec3>> = Vec::with_capacity(n);
    for j in 0..n {
        let mut row = vec![pool.zero3(); n];
        row[j] = links[j].axis;
        for k in j + 1..n {
            row[k] = pool.mat_t_vec(&links[k].to_parent, row[k - 1]);
        }
        cosines.push(row);
    }
    // Lever terms L_k (frame k-1) and Euler terms.
    // s̈_k by recursion (alpha) in frame k.
    let mut sdd_own: Vec<Vec3> = vec![pool.zero3(); n + 1];
    for k in (0..n).rev() {
        let body = &bodies[k];
        let spin = spins[k];
        let cdd = {
            let ang = pool.cross3(spin.omega_dot, body.com);
            let inner = pool.cross3(spin.omega, body.com);
            let cen = pool.cross3(spin.omega, inner);
            pool.add3(ang, cen)
        };
        let own = pool.scale3(body.mass, cdd);
        let rest = match links.get(k + 1) {
            Some(next) => {
                let a = pool.scale3(mass[k + 1], next.pole_accel);
                let b = pool.mat_vec(&next.to_parent, sdd_own[k + 1]);
                pool.add3(a, b)
            }
            None => pool.zero3(),
        };
        sdd_own[k] = pool.add3(own, rest);
    }
    let alpha = std::env::var("ALPHA").is_ok();
    let mut lever_terms: Vec<Vec3> = vec![pool.zero3(); n];
    for k in 1..n {
        let spin = spins[k - 1];
        let s = carried[k];
        let sdd = if alpha { pool.mat_vec(&links[k].to_parent, sdd_own[k]) } else { transport(pool, &mut dt, &spin, s) };
        let r = links[k].origin;
        let rdd = links[k].pole_accel;
        let a = pool.cross3(r, rdd);
        let a = pool.scale3(mass[k], a);
        let b = pool.cross3(r, sdd);
        let c = pool.cross3(s, rdd);
        let ab = pool.add3(a, b);
        lever_terms[k] = pool.add3(ab, c);
    }
    // Euler vector of each body: (frame index, vector) where frame k-1 when rotor.
    let mut euler: Vec<(Option<usize>, Vec3)> = Vec::with_capacity(n);
    for (k, body) in bodies.iter().enumerate() {
        let jo = pole_inertia(pool, body);
        if let Some(i) = symmetric_axis(pool, body) {
            let parent = k
                .checked_sub(1)
                .and_then(|p| spins.get(p))
                .copied()
                .unwrap_or(ground);
            let rot = body.rotation;
            let rt = [
                [rot[0][0], rot[1][0], rot[2][0]],
                [rot[0][1], rot[1][1], rot[2][1]],
                [rot[0][2], rot[1][2], rot[2][2]],
            ];
            let pj = pool.mat_mul(&rot, &jo);
            let jp = pool.mat_mul(&pj, &rt);
            let ap = pool.mat_vec(&rot, body.axis);
            let ia = jo[i][i];
            let jw = pool.mat_vec(&jp, parent.omega);
            let spin_part = pool.mul(ia, links[k].rate);
            let spin_v = pool.scale3(spin_part, ap);
            let h = pool.add3(jw, spin_v);
            let jwd = pool.mat_vec(&jp, parent.omega_dot);
            let acc_part = pool.mul(ia, links[k].accel);
            let acc_v = pool.scale3(acc_part, ap);
            let gyro = pool.cross3(parent.omega, h);
            let x = pool.add3(jwd, acc_v);
            euler.push((k.checked_sub(1), pool.add3(x, gyro)));
        } else {
            let s = spins[k];
            let jwd = pool.mat_vec(&jo, s.omega_dot);
            let jw = pool.mat_vec(&jo, s.omega);
            let gyro = pool.cross3(s.omega, jw);
            euler.push((Some(k), pool.add3(jwd, gyro)));
        }
    }
    let mut tau = vec![zero; coordinates.len()];
    for (j, body) in bodies.iter().enumerate() {
        let value = match body.kind {
            JointKind::Prismatic => {
                let sdd = if alpha { sdd_own[j] } else { transport(pool, &mut dt, &spins[j], moment[j]) };
                let ma = pool.scale3(mass[j], pole[j]);
                let f = pool.add3(ma, sdd);
                pool.dot3(links[j].axis, f)
            }
            _ => {
                let mut terms = Vec::new();
                let sa = pool.cross3(moment[j], pole[j]);
                terms.push(pool.dot3(links[j].axis, sa));
                for k in j + 1..n {
                    terms.push(pool.dot3(cosines[j][k - 1], lever_terms[k]));
                }
                for (k, (frame, e)) in euler.iter().enumerate().skip(j) {
                    let direction = match frame {
                        Some(f) if *f >= j => cosines[j][*f],
                        _ => pool.mat_vec(&body.rotation, body.axis),
                    };
                    let _ = k;
                    terms.push(pool.dot3(direction, *e));
                }
                pool.sum(&terms)
            }
        };
        if let Some(slot) = tau.get_mut(body.velocity) {
            *slot = value;
        }
    }
    Ok(tau)
}
