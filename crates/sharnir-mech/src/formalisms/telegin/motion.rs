//! The chain's kinematics for Telegin's formalism: the formal description
//! of every link (pair code, placement, axis, inertia), the absolute
//! motion of every frame (6), the subsystems' static moments and their
//! accelerations, (7) and (8).

use super::TeleginError;
use crate::formalisms::base_parameters::RigidInertia;
use crate::geometry::kinematics::placement;
use crate::model::inputs::Input;
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{JointKind, TreeBody};
use sharnir_cas::{Coeff, Derivative, Id, Pool, Program};

/// The paper's pair code КП: a revolute (1) or a prismatic (0) joint.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pair {
    Revolute,
    Prismatic,
}

/// One row of the formal description: the joint and body data every formula
/// reads, in the body's frame or its parent's.
pub(super) struct Link {
    pub(super) pair: Pair,
    /// `E`: body frame to parent frame, at the joint coordinate.
    pub(super) to_parent: Mat3,
    /// The placement rotation alone (joint frame to parent frame).
    pub(super) placement: Mat3,
    /// `R_i`: the pole in the parent frame (with the slide of a prismatic joint).
    pub(super) origin: Vec3,
    /// `q_i` or `p_i` in the body frame (the same vector in the joint frame).
    pub(super) axis: Vec3,
    /// The axis in the parent frame.
    pub(super) axis_in_parent: Vec3,
    /// Index of the joint's coordinate in `q̇`, `q̈` and `τ`.
    pub(super) velocity: usize,
    pub(super) rate: Id,
    pub(super) acceleration: Id,
    pub(super) mass: Id,
    pub(super) com: Vec3,
    /// `J_o`: the inertia tensor about the pole, body axes.
    pub(super) inertia: Mat3,
}

impl Link {
    pub(super) fn describe(pool: &mut Pool, body: &TreeBody) -> Result<Link, TeleginError> {
        if body.coupling.is_some() {
            return Err(TeleginError::CoupledJoint {
                body: body.name.clone(),
                joint: body.joint.clone(),
            });
        }
        let pair = match body.kind {
            JointKind::Revolute => Pair::Revolute,
            JointKind::Prismatic => Pair::Prismatic,
            JointKind::Spherical | JointKind::Free => {
                return Err(TeleginError::MultiDofJoint {
                    body: body.name.clone(),
                    joint: body.joint.clone(),
                    kind: body.kind,
                })
            }
        };
        let (to_parent, origin) = placement(pool, body);
        Ok(Link {
            pair,
            to_parent,
            placement: body.rotation,
            origin,
            axis: body.axis,
            axis_in_parent: pool.mat_vec(&body.rotation, body.axis),
            velocity: body.velocity,
            rate: pool.input(Input::Velocity(body.velocity)),
            acceleration: pool.input(Input::Acceleration(body.velocity)),
            mass: body.mass,
            com: body.com,
            inertia: RigidInertia::of_body(pool, body).rotational,
        })
    }

    /// `a_i c_i`, the static moment of the body alone.
    pub(super) fn own_moment(&self, pool: &mut Pool) -> Vec3 {
        pool.scale3(self.mass, self.com)
    }
}

/// Angular velocity and acceleration of a frame, in its own components.
#[derive(Clone, Copy)]
pub(super) struct Spin {
    pub(super) omega: Vec3,
    pub(super) omega_dot: Vec3,
}

/// The absolute kinematics every formula reads: `ω_k`, `ω̇_k` (6) and the pole
/// accelerations.
pub(super) struct Motion {
    pub(super) spins: Vec<Spin>,
    /// `A_k = Σ_{l≤k} R̈_l − g⃗` in frame `k`.
    pub(super) poles: Vec<Vec3>,
    /// `R̈_k` in the parent frame `k − 1`.
    pub(super) relative: Vec<Vec3>,
    pub(super) ground: Spin,
    /// `A_0 = −g⃗`, the fictitious acceleration of the ground.
    pub(super) lift: Vec3,
}

impl Motion {
    /// The forward recursion from the ground.
    pub(super) fn absolute(pool: &mut Pool, links: &[Link], gravity: Vec3) -> Motion {
        let ground = Spin {
            omega: pool.zero3(),
            omega_dot: pool.zero3(),
        };
        let mut motion = Motion {
            spins: Vec::with_capacity(links.len()),
            poles: Vec::with_capacity(links.len()),
            relative: Vec::with_capacity(links.len()),
            ground,
            lift: pool.scale3c(Coeff::MINUS_ONE, gravity),
        };
        for (k, link) in links.iter().enumerate() {
            let parent = motion.parent_spin(k);
            let parent_pole = motion.parent_pole(k);
            let mut relative = fixed_acceleration(pool, &parent, link.origin);
            let carried = Spin {
                omega: pool.mat_t_vec(&link.to_parent, parent.omega),
                omega_dot: pool.mat_t_vec(&link.to_parent, parent.omega_dot),
            };
            let spin = match link.pair {
                Pair::Revolute => {
                    let rate = pool.scale3(link.rate, link.axis);
                    let acceleration = pool.scale3(link.acceleration, link.axis);
                    let gyroscopic = pool.cross3(carried.omega, rate);
                    let own = pool.add3(acceleration, gyroscopic);
                    Spin {
                        omega: pool.add3(carried.omega, rate),
                        omega_dot: pool.add3(carried.omega_dot, own),
                    }
                }
                Pair::Prismatic => {
                    let p = link.axis_in_parent;
                    let slide = pool.scale3(link.acceleration, p);
                    let turn = pool.cross3(parent.omega, p);
                    let twice = pool.scale3c(Coeff::int(2), turn);
                    let coriolis = pool.scale3(link.rate, twice);
                    let own = pool.add3(slide, coriolis);
                    relative = pool.add3(relative, own);
                    carried
                }
            };
            let pole = pool.add3(parent_pole, relative);
            motion.poles.push(pool.mat_t_vec(&link.to_parent, pole));
            motion.relative.push(relative);
            motion.spins.push(spin);
        }
        motion
    }

    /// The spin of body `k − 1`, or of the ground.
    pub(super) fn parent_spin(&self, k: usize) -> Spin {
        k.checked_sub(1)
            .and_then(|p| self.spins.get(p))
            .copied()
            .unwrap_or(self.ground)
    }

    /// `A_{k−1}` in frame `k − 1`, or `−g⃗` at the ground.
    pub(super) fn parent_pole(&self, k: usize) -> Vec3 {
        k.checked_sub(1)
            .and_then(|p| self.poles.get(p))
            .copied()
            .unwrap_or(self.lift)
    }
}

/// `ü = ω̇ × u + ω × (ω × u)` for a vector `u` fixed in a frame with `spin`.
pub(super) fn fixed_acceleration(pool: &mut Pool, spin: &Spin, u: Vec3) -> Vec3 {
    let tangential = pool.cross3(spin.omega_dot, u);
    let inner = pool.cross3(spin.omega, u);
    let centripetal = pool.cross3(spin.omega, inner);
    pool.add3(tangential, centripetal)
}

/// Subsystem masses and static moments by (1), each static moment in its own
/// body's frame; index `N` holds the empty subsystem.
pub(super) struct Subsystems {
    pub(super) masses: Vec<Id>,
    pub(super) moments: Vec<Vec3>,
}

impl Subsystems {
    pub(super) fn static_moments(pool: &mut Pool, links: &[Link]) -> Subsystems {
        let n = links.len();
        let zero = pool.zero();
        let mut masses = vec![zero; n + 1];
        let mut moments = vec![pool.zero3(); n + 1];
        for (k, link) in links.iter().enumerate().rev() {
            masses[k] = pool.add(link.mass, masses[k + 1]);
            let own = link.own_moment(pool);
            moments[k] = match links.get(k + 1) {
                Some(next) => {
                    let lever = pool.scale3(masses[k + 1], next.origin);
                    let carried = pool.mat_vec(&next.to_parent, moments[k + 1]);
                    let sum = pool.add3(own, lever);
                    pool.add3(sum, carried)
                }
                None => own,
            };
        }
        Subsystems { masses, moments }
    }
}

/// Differentiation along the motion, `q → q̇ → q̈`: (7) and (8) as a chain
/// rule, the algebra core's [`Derivative`] with the positions moving at the
/// velocities and the velocities at the accelerations. Only expressions in
/// `q` and `q̇` are differentiated, so `q̈` never needs a derivative.
pub(super) struct TimeDerivative {
    pub(super) derivative: Derivative,
}

impl TimeDerivative {
    pub(super) fn new(pool: &mut Pool, bodies: &[TreeBody]) -> TimeDerivative {
        let mut rates = Vec::with_capacity(2 * bodies.len());
        for body in bodies {
            let symbol = |pool: &mut Pool, input: Input| pool.input(input);
            let q = symbol(pool, Input::Position(body.position));
            let qd = symbol(pool, Input::Velocity(body.velocity));
            let qdd = symbol(pool, Input::Acceleration(body.velocity));
            rates.push((q, qd));
            rates.push((qd, qdd));
        }
        TimeDerivative {
            derivative: Derivative::new(rates),
        }
    }

    pub(super) fn of(&mut self, pool: &mut Pool, e: Id) -> Id {
        self.derivative.of(pool, e)
    }

    pub(super) fn of3(&mut self, pool: &mut Pool, v: Vec3) -> Vec3 {
        v.map(|e| self.of(pool, e))
    }

    /// `v̈ = v'' + 2 ω × v' + ω̇ × v + ω × (ω × v)` for `v(q)` given in a
    /// frame with `spin`.
    pub(super) fn second(&mut self, pool: &mut Pool, spin: &Spin, v: Vec3) -> Vec3 {
        let rate = self.of3(pool, v);
        let acceleration = self.of3(pool, rate);
        let turn = pool.cross3(spin.omega, rate);
        let coriolis = pool.scale3c(Coeff::int(2), turn);
        let fixed = fixed_acceleration(pool, spin, v);
        let relative = pool.add3(acceleration, coriolis);
        pool.add3(relative, fixed)
    }
}

/// `m̈⃗_k` in frame `k` for every subsystem (index `N`: zero), each by the way
/// that adds fewer operations (see the module documentation).
pub(super) fn static_moment_accelerations(
    pool: &mut Pool,
    derivative: &mut TimeDerivative,
    links: &[Link],
    motion: &Motion,
    subsystems: &Subsystems,
) -> Vec<Vec3> {
    let mut accelerations = vec![pool.zero3(); links.len() + 1];
    for k in (0..links.len()).rev() {
        let outboard = accelerations[k + 1];
        let [explicit, recursive] = static_moment_acceleration_ways(
            pool, derivative, links, motion, subsystems, k, outboard,
        );
        // What is computed anyway: the spin, the next subsystem's m̈⃗ and R̈.
        let spin = motion.spins[k];
        let mut known: Vec<Id> = [spin.omega, spin.omega_dot, outboard].concat();
        if let Some(r) = motion.relative.get(k + 1) {
            known.extend(r);
        }
        let cost_with = |pool: &Pool, candidate: &Vec3| {
            let roots: Vec<Id> = known.iter().chain(candidate).copied().collect();
            Program::lower(pool, &roots).op_count().weight()
        };
        accelerations[k] = if cost_with(pool, &explicit) <= cost_with(pool, &recursive) {
            explicit
        } else {
            recursive
        };
    }
    accelerations
}

/// `m̈⃗_k` in frame `k` both ways, `[explicit, recursive]`: by differentiating
/// (1) with (7)–(8), and as `a_k c̈_k + m_{k+1} R̈_{k+1} + m̈⃗_{k+1}` from
/// `outboard = m̈⃗_{k+1}` (frame `k + 1`).
pub(super) fn static_moment_acceleration_ways(
    pool: &mut Pool,
    derivative: &mut TimeDerivative,
    links: &[Link],
    motion: &Motion,
    subsystems: &Subsystems,
    k: usize,
    outboard: Vec3,
) -> [Vec3; 2] {
    let spin = motion.spins[k];
    let explicit = derivative.second(pool, &spin, subsystems.moments[k]);
    let own_moment = links[k].own_moment(pool);
    let own = fixed_acceleration(pool, &spin, own_moment);
    let recursive = match links.get(k + 1) {
        Some(next) => {
            let lever = pool.scale3(subsystems.masses[k + 1], motion.relative[k + 1]);
            let carried = pool.mat_vec(&next.to_parent, outboard);
            let rest = pool.add3(lever, carried);
            pool.add3(own, rest)
        }
        None => own,
    };
    [explicit, recursive]
}
