//! Inverse dynamics by Telegin's direction-cosine formalism for serial chains.
//!
//! A. I. Telegin, "Формализм выписывания уравнения динамики манипуляторов"
//! (Вестник ЮУрГУ, сер. «Компьютерные технологии, управление,
//! радиоэлектроника», 2021, т. 21, № 4, с. 52–68, DOI 10.14529/ctcr210405)
//! writes the driving forces of a manipulator
//! by hand with few operations. Newton–Euler sums the forces of single bodies;
//! Telegin works with *subsystems* — body `i` and everything outboard of it —
//! through two subsystem quantities: the mass `m_i` and the static moment `m⃗_i`
//! about the pole `O_i`. The force a joint transmits then needs only the
//! acceleration of its pole and the second derivative of one static moment,
//! and whatever lies on a joint axis or in a pole drops out. This module
//! derives `τ(q, q̇, q̈)` that way, in symbolic form, and lets the pool's canonical
//! forms do the cancellations Telegin does by hand.
//!
//! # Formal description (§ 1)
//!
//! Body `i` of the chain (`i = 1 … N`, Telegin's numbering; `k = i − 1` in
//! code) has its pole `O_i` at the origin of its frame, on its joint axis `q_i`
//! (revolute) or `p_i` (prismatic); `R_i = O_{i−1}O_i` is the inter-pole vector
//! (for a prismatic joint it includes the slide `q_i p_i`), `a_i c_i = m0_i ·
//! O_iC_i` the static moment of the body alone and `J_oi` its inertia tensor
//! about the pole. These are the rows of the paper's tables 1–3; here they are
//! read off the mechanism (`placement`, the spec's centres of mass and central
//! inertias shifted to the pole).
//!
//! The subsystem masses and static moments follow from the backward recursion
//! ```text
//! m_i = m0_i + m_{i+1},   m⃗_i = a_i c_i + m_{i+1} R_{i+1} + m⃗_{i+1}          (1)
//! ```
//! with `m_{N+1} = 0`, `m⃗_{N+1} = 0`.
//!
//! # Driving forces (Statements 1 and 2)
//!
//! With `A_j = Σ_{l≤j} R̈_l − g⃗` the acceleration of pole `O_j` with gravity
//! moved to the ground as a fictitious acceleration (so that the paper's
//! gravity terms `m_j g p^y_j` of (2) and `G_j` of (5) are the `−g⃗` part of
//! `A_j`), Statement 1 gives the driving force of a prismatic joint and the
//! driving moment of a revolute one:
//! ```text
//! F_j = p_j · (m_j A_j + m̈⃗_j)                                               (2)
//! M_j = q_j · (m⃗_j × A_j + Σ_{k>j} (m_k R_k × R̈_k + R_k × m̈⃗_k + m⃗_k × R̈_k)) + K_j   (3)
//! K_j = Σ_{k≥j} K_jk,   K_jk = q_j · (J_ok ω̇_k + ω_k × J_ok ω_k)            (4)
//! G_j = q_j · (m⃗_j × g ŷ) = g (q^z_j m^x_j − q^x_j m^z_j)   for g⃗ = −g ŷ   (5)
//! ```
//! (4) is the paper's `K_jk = q^x_jk (J^x ω̇^x + A_k ω^y ω^z) + …` with the
//! direction cosines `q^ξ_jk` of axis `j` in the frame of body `k`, written
//! for any inertia tensor, not only in principal axes. Statement 2 is the
//! backward recursion for consecutive parallel axes `q_{j−1} = q_j`:
//! ```text
//! M_{j−1} = M_j + q_j · ((a_{j−1}c_{j−1} + m_j R_j) × A_{j−1} + m_j R_j × R̈_j + R_j × m̈⃗_j) + K_{j−1,j−1}
//! ```
//! which is the projection of the vector identity (the proof of Statement 2)
//! ```text
//! M⃗_{j−1} = M⃗_j + a_{j−1}c_{j−1} × A_{j−1} + R_j × F⃗_j + K⃗_{j−1,j−1},   F⃗_j = m_j A_j + m̈⃗_j
//! ```
//! where `F⃗_j` is the force body `j − 1` exerts on subsystem `j` (Statement 1
//! before projection). Each revolute joint takes the form the paper would:
//!
//! 1. Statement 2 when the next joint is revolute about the same axis (or the
//!    opposite one: then `M_j` enters with a minus sign, a case the paper's
//!    statement does not spell out);
//! 2. else (3) when its lever terms `q_j · (…)_k` vanish for every `k > j` —
//!    every later pole on the axis or coincident, as in the paper's joints 3,
//!    5 and 6 — so that `M_j = q_j · (m⃗_j × A_j) + K_j`, one cross product
//!    with the subsystem's static moment instead of one per body;
//! 3. else the vector identity above, carried from the tip, which is what
//!    Statement 2 becomes for axes that are not parallel.
//!
//! Statement 2 is evaluated in the grouping of the vector identity,
//! `q_j · (a_{j−1}c_{j−1} × A_{j−1} + R_j × F⃗_j)`: `F⃗_j` is shared with the
//! vector recursion, and its components enter the flattened sums of the pool
//! as single terms with one coefficient each. Where every pole outboard of
//! `O_k` coincides with it (a wrist), the carried vector is (3) itself,
//! `M⃗_k = m⃗_k × A_k + K⃗_k`, so that the pole accelerations of the wrist
//! bodies are never formed.
//!
//! # Direction cosines and relative angles, (6)–(8)
//!
//! Telegin writes every vector in the ground frame through direction cosines,
//! differentiates them, and passes to relative angles with
//! ```text
//! ω^x_k = z_k · ẏ_k,   ω^y_k = x_k · ż_k,   ω^z_k = y_k · ẋ_k                 (6)
//! s̈ = c q̈ − s q̇²,   c̈ = −s q̈ − c q̇²,   c ṡ − s ċ = q̇                        (7)
//! c s̈ − s c̈ = q̈,   s s̈ + c c̈ = −q̇²                                         (8)
//! ```
//! for `s = sin q`, `c = cos q` (`ṡ = c q̇`, `ċ = −s q̇`); that is what makes
//! his equations contain `q2, q3, q2 + q3, q5` and not `q1`. (The OCR keeps
//! the equation numbers but not the dots; the reading above is the one the
//! worked examples use: Example 1 turns `s̈3` into `c3 q̈3 − s3 q̇3²` "by (7)",
//! Example 2 turns `c1 ṡ1 − s1 ċ1` into `q̇1` and `c1 c̈1 + s1 s̈1` into
//! `−q̇1²`.) Here every vector is written in the frame of a body, so the relative
//! angles appear directly: a frame-`k` vector is the ground one with the
//! direction cosines of body `k` factored out. What (6) provides — the
//! absolute angular velocities and accelerations `ω_k, ω̇_k` — is the forward
//! recursion `ω_k = E_kᵀ ω_{k−1} + q̇_k q_k`, which for parallel axes is
//! `ω = q̇1 + q̇2 + …` about the common axis. The second derivative of a
//! vector `v` given in a frame spinning with `ω, ω̇` is
//! ```text
//! v̈ = v'' + 2 ω × v' + ω̇ × v + ω × (ω × v)
//! ```
//! with `v'`, `v''` the derivatives of its components, taken by the chain rule
//! with (7) and (8) (`sin q → cos q · q̇`, …). Of the static-moment
//! accelerations `m̈⃗_i` there are two ways, and the derivation keeps, subsystem
//! by subsystem, the one that adds fewer operations to what is computed
//! anyway (the angular motion of body `i` and `m̈⃗_{i+1}`), measured by
//! lowering both to straight-line code (a sine or cosine weighs ten
//! operations):
//!
//! - differentiate the explicit direction-cosine form of (1) in frame `i`, as
//!   the paper does (cheap when `m⃗_i` depends on few coordinates: for the
//!   paper's manipulator `m⃗_3 = (a s5, m_q, 0)` in frame 3);
//! - or recurse, `m̈⃗_i = a_i c̈_i + m_{i+1} R̈_{i+1} + m̈⃗_{i+1}` (cheap along a
//!   long chain, where the explicit form grows with every joint).
//!
//! The last body, when its mass distribution is symmetric about its revolute
//! axis (`c ∥ q`, `J_o` with equal moments about two perpendicular axes), has
//! a constant static moment and inertia in its parent's frame, like Telegin's
//! body 6 merged into `Ix56`, `Iy56`: its `K` is written there, `Ḣ = J ω̇_p +
//! J^q q̈ q + ω_p × (J ω_p + J^q q̇ q)`, and its own angle never appears.
//!
//! # Misprints and restrictions
//!
//! Each formula above was checked numerically against the independent
//! Newton–Euler oracle and the paper's Listing 2
//! (`tests/telegin_formalism.rs`). Where the paper differs:
//!
//! - the continuation of Example 2 says «см. рис. 3»; the manipulator is the
//!   one of Fig. 2;
//! - Listing 2's closed forms M3 and M5 use `La = L1·a` for both the `q23` and
//!   the `q3` terms; they are exact only for the paper's stated case `L1 = L2`
//!   (the `q3` terms carry `L2`);
//! - Statement 2 is stated for `q_{j−1} = q_j`; for opposite axes the same
//!   identity holds with `−M_j`;
//! - (4) is written for principal axes at the pole (`J^x_ok`, `A_k = J^z_ok −
//!   J^y_ok`, …), while Listing 2 passes central tensors and shifts them
//!   (`Ix5 = Icx5 + m05·B5²`); here the full tensor `J_o = J_c + m0 (|c|² 1 −
//!   c cᵀ)` is used, which is the same for principal axes and also holds
//!   otherwise;
//! - the OCR damage of Listings 1 and 2 is documented, reading by reading, in
//!   `tests/support/telegin.rs`; in the formulas the OCR loses the overdots and
//!   the super- and subscripts, which are restored above from the examples
//!   (Table 3 and the worked equations of Examples 1–3 reproduce (1)–(5)).

use crate::base_parameters::RigidInertia;
use crate::inputs::Input;
use crate::kinematics::placement;
use crate::mechanism::{JointKind, Mechanism, TreeBody};
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Node, Pool, Program};
use std::collections::HashMap;
use std::fmt;

/// Why a mechanism is outside Telegin's formalism, which the paper writes for
/// manipulators "with one open branch" of revolute and prismatic joints.
/// Auxiliary bodies are fine: a cylindrical, universal or planar joint is a
/// chain of 1-DOF primitive joints and stays a serial chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TeleginError {
    /// The ground or a body carries more than one body: the mechanism is a
    /// tree, not a chain.
    Branching {
        /// The body with several children (`ground` for the ground).
        parent: String,
        /// Its children, in tree order.
        children: Vec<String>,
    },
    /// A spherical or free joint: its motion is not one angle or one slide
    /// along a fixed axis, so it has no direction-cosine row in the tables.
    MultiDofJoint {
        /// The body the joint moves.
        body: String,
        /// The spec joint it belongs to.
        joint: String,
        /// Its primitive kind.
        kind: JointKind,
    },
    /// A follower joint (`mimic`): the tables give every joint its own
    /// coordinate.
    CoupledJoint {
        /// The body the joint moves.
        body: String,
        /// The follower's spec joint.
        joint: String,
    },
}

impl fmt::Display for TeleginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeleginError::Branching { parent, children } => write!(
                f,
                "Telegin's formalism needs a serial chain, but `{parent}` carries {}",
                children
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TeleginError::MultiDofJoint { body, joint, kind } => write!(
                f,
                "Telegin's formalism needs revolute and prismatic joints, but joint `{joint}` \
                 of `{body}` is {kind:?}"
            ),
            TeleginError::CoupledJoint { body, joint } => write!(
                f,
                "Telegin's formalism needs independent joints, but joint `{joint}` of `{body}` \
                 follows another"
            ),
        }
    }
}

impl std::error::Error for TeleginError {}

/// Whether Telegin's formalism applies to `mechanism` — a serial chain of
/// independent revolute and prismatic joints — and why not otherwise: what
/// a caller that tries every formalism checks before deriving, so that only
/// "not applicable" is skipped and a failure of the derivation itself is
/// not mistaken for it.
pub fn applies(mechanism: &Mechanism) -> Result<(), TeleginError> {
    check_chain(&mechanism.bodies)?;
    for body in &mechanism.bodies {
        if body.coupling.is_some() {
            return Err(TeleginError::CoupledJoint {
                body: body.name.clone(),
                joint: body.joint.clone(),
            });
        }
        if matches!(body.kind, JointKind::Spherical | JointKind::Free) {
            return Err(TeleginError::MultiDofJoint {
                body: body.name.clone(),
                joint: body.joint.clone(),
                kind: body.kind,
            });
        }
    }
    Ok(())
}

/// Joint forces `τ(q, q̇, q̈)` by Telegin's formalism, in velocity-coordinate
/// order (torques for revolute joints, forces for prismatic ones), as
/// expressions in `mechanism.pool`: the same functions as
/// [`crate::rnea::inverse_dynamics`] for every chain it accepts, written the
/// way the paper writes them, which usually costs fewer operations.
pub fn inverse_dynamics(mechanism: &mut Mechanism) -> Result<Vec<Id>, TeleginError> {
    applies(mechanism)?;
    let Mechanism {
        pool,
        bodies,
        gravity,
        coordinates,
        ..
    } = mechanism;
    let links = bodies
        .iter()
        .map(|b| Link::describe(pool, b))
        .collect::<Result<Vec<Link>, TeleginError>>()?;
    let chain = Chain::derive(pool, bodies, links, *gravity);
    let zero = pool.zero();
    let mut tau = vec![zero; coordinates.len()];
    for (link, force) in chain.links.iter().zip(chain.driving_forces(pool)) {
        if let Some(slot) = tau.get_mut(link.velocity) {
            *slot = force;
        }
    }
    Ok(tau)
}

/// Everything the driving forces are read from, in the order the paper
/// derives it.
struct Chain {
    links: Vec<Link>,
    motion: Motion,
    subsystems: Subsystems,
    /// `m̈⃗_k` in frame `k`.
    moment_accelerations: Vec<Vec3>,
    momentum_rates: Vec<MomentumRate>,
    loads: Loads,
}

impl Chain {
    fn derive(pool: &mut Pool, bodies: &[TreeBody], links: Vec<Link>, gravity: Vec3) -> Chain {
        let motion = Motion::absolute(pool, &links, gravity);
        let subsystems = Subsystems::static_moments(pool, &links);
        let mut derivative = TimeDerivative::new(pool, bodies);
        let moment_accelerations =
            static_moment_accelerations(pool, &mut derivative, &links, &motion, &subsystems);
        let momentum_rates = momentum_rates(pool, &links, &motion);
        let loads = Loads::carry(
            pool,
            &links,
            &motion,
            &subsystems,
            &moment_accelerations,
            &momentum_rates,
        );
        Chain {
            links,
            motion,
            subsystems,
            moment_accelerations,
            momentum_rates,
            loads,
        }
    }

    /// `F_j` by (2), `M_j` by Statement 2, (3) or the vector identity, in
    /// chain order; computed from the tip because Statement 2 reads `M_{j+1}`.
    fn driving_forces(&self, pool: &mut Pool) -> Vec<Id> {
        let zero = pool.zero();
        let mut forces = vec![zero; self.links.len()];
        let mut outboard: Option<(&Link, Id)> = None;
        for (j, (link, rate)) in self
            .links
            .iter()
            .zip(&self.momentum_rates)
            .enumerate()
            .rev()
        {
            let force = match link.pair {
                Pair::Prismatic => {
                    let inertial = pool.scale3(self.subsystems.masses[j], self.motion.poles[j]);
                    let total = pool.add3(inertial, self.moment_accelerations[j]);
                    pool.dot3(link.axis, total)
                }
                Pair::Revolute => {
                    let statement2 =
                        outboard.and_then(|(next, m)| parallel(pool, link, next).map(|s| (s, m)));
                    let projected = match statement2 {
                        Some((sign, outboard_moment)) => {
                            let increment = pool.dot3(link.axis, self.loads.increments[j]);
                            let carried = pool.scale(sign, outboard_moment);
                            pool.add(carried, increment)
                        }
                        None if self.levers_vanish(pool, j) => {
                            let weight =
                                pool.cross3(self.subsystems.moments[j], self.motion.poles[j]);
                            let total = pool.add3(weight, self.loads.momentum_rates[j]);
                            pool.dot3(link.axis, total)
                        }
                        None => pool.dot3(link.axis, self.loads.moments[j]),
                    };
                    let own = match rate {
                        MomentumRate::InParent(v) => pool.dot3(link.axis_in_parent, *v),
                        MomentumRate::Own(_) => zero,
                    };
                    pool.add(projected, own)
                }
            };
            forces[j] = force;
            outboard = Some((link, force));
        }
        forces
    }

    /// Whether every lever term of (3), `q_j · (m_k R_k × R̈_k + R_k × m̈⃗_k +
    /// m⃗_k × R̈_k)` for `k > j`, is identically zero (each written in frame
    /// `k − 1`).
    fn levers_vanish(&self, pool: &mut Pool, j: usize) -> bool {
        let Some(link) = self.links.get(j) else {
            return true;
        };
        let mut axis = link.axis;
        for (k, next) in self.links.iter().enumerate().skip(j + 1) {
            let relative = self.motion.relative[k];
            let moment = pool.mat_vec(&next.to_parent, self.subsystems.moments[k]);
            let moment_rate = pool.mat_vec(&next.to_parent, self.moment_accelerations[k]);
            let inertial = pool.scale3(self.subsystems.masses[k], relative);
            let force = pool.add3(inertial, moment_rate);
            let arm = pool.cross3(next.origin, force);
            let carried = pool.cross3(moment, relative);
            let lever = pool.add3(arm, carried);
            let projected = pool.dot3(axis, lever);
            if !pool.is_zero(projected) {
                return false;
            }
            axis = pool.mat_t_vec(&next.to_parent, axis);
        }
        true
    }
}

/// Accepts only a chain: body `k`'s parent is body `k − 1` (regular
/// numbering puts a chain in that order).
fn check_chain(bodies: &[TreeBody]) -> Result<(), TeleginError> {
    for (k, body) in bodies.iter().enumerate() {
        if body.parent != k.checked_sub(1) {
            let parent = body.parent;
            return Err(TeleginError::Branching {
                parent: parent
                    .and_then(|p| bodies.get(p))
                    .map_or_else(|| "ground".to_owned(), |p| p.name.clone()),
                children: bodies
                    .iter()
                    .filter(|b| b.parent == parent)
                    .map(|b| b.name.clone())
                    .collect(),
            });
        }
    }
    Ok(())
}

/// The paper's pair code КП: a revolute (1) or a prismatic (0) joint.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pair {
    Revolute,
    Prismatic,
}

/// One row of the formal description: the joint and body data every formula
/// reads, in the body's frame or its parent's.
struct Link {
    pair: Pair,
    /// `E`: body frame to parent frame, at the joint coordinate.
    to_parent: Mat3,
    /// The placement rotation alone (joint frame to parent frame).
    placement: Mat3,
    /// `R_i`: the pole in the parent frame (with the slide of a prismatic joint).
    origin: Vec3,
    /// `q_i` or `p_i` in the body frame (the same vector in the joint frame).
    axis: Vec3,
    /// The axis in the parent frame.
    axis_in_parent: Vec3,
    /// Index of the joint's coordinate in `q̇`, `q̈` and `τ`.
    velocity: usize,
    rate: Id,
    acceleration: Id,
    mass: Id,
    com: Vec3,
    /// `J_o`: the inertia tensor about the pole, body axes.
    inertia: Mat3,
}

impl Link {
    fn describe(pool: &mut Pool, body: &TreeBody) -> Result<Link, TeleginError> {
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
    fn own_moment(&self, pool: &mut Pool) -> Vec3 {
        pool.scale3(self.mass, self.com)
    }
}

/// Angular velocity and acceleration of a frame, in its own components.
#[derive(Clone, Copy)]
struct Spin {
    omega: Vec3,
    omega_dot: Vec3,
}

/// The absolute kinematics every formula reads: `ω_k`, `ω̇_k` (6) and the pole
/// accelerations.
struct Motion {
    spins: Vec<Spin>,
    /// `A_k = Σ_{l≤k} R̈_l − g⃗` in frame `k`.
    poles: Vec<Vec3>,
    /// `R̈_k` in the parent frame `k − 1`.
    relative: Vec<Vec3>,
    ground: Spin,
    /// `A_0 = −g⃗`, the fictitious acceleration of the ground.
    lift: Vec3,
}

impl Motion {
    /// The forward recursion from the ground.
    fn absolute(pool: &mut Pool, links: &[Link], gravity: Vec3) -> Motion {
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
    fn parent_spin(&self, k: usize) -> Spin {
        k.checked_sub(1)
            .and_then(|p| self.spins.get(p))
            .copied()
            .unwrap_or(self.ground)
    }

    /// `A_{k−1}` in frame `k − 1`, or `−g⃗` at the ground.
    fn parent_pole(&self, k: usize) -> Vec3 {
        k.checked_sub(1)
            .and_then(|p| self.poles.get(p))
            .copied()
            .unwrap_or(self.lift)
    }
}

/// `ü = ω̇ × u + ω × (ω × u)` for a vector `u` fixed in a frame with `spin`.
fn fixed_acceleration(pool: &mut Pool, spin: &Spin, u: Vec3) -> Vec3 {
    let tangential = pool.cross3(spin.omega_dot, u);
    let inner = pool.cross3(spin.omega, u);
    let centripetal = pool.cross3(spin.omega, inner);
    pool.add3(tangential, centripetal)
}

/// Subsystem masses and static moments by (1), each static moment in its own
/// body's frame; index `N` holds the empty subsystem.
struct Subsystems {
    masses: Vec<Id>,
    moments: Vec<Vec3>,
}

impl Subsystems {
    fn static_moments(pool: &mut Pool, links: &[Link]) -> Subsystems {
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
/// rule. Only expressions in `q` and `q̇` are differentiated, so `q̈` never
/// needs a derivative.
struct TimeDerivative {
    next: HashMap<Id, Id>,
    memo: HashMap<Id, Id>,
}

impl TimeDerivative {
    fn new(pool: &mut Pool, bodies: &[TreeBody]) -> TimeDerivative {
        let mut next = HashMap::new();
        for body in bodies {
            let symbol = |pool: &mut Pool, input: Input| pool.input(input);
            let q = symbol(pool, Input::Position(body.position));
            let qd = symbol(pool, Input::Velocity(body.velocity));
            let qdd = symbol(pool, Input::Acceleration(body.velocity));
            next.insert(q, qd);
            next.insert(qd, qdd);
        }
        TimeDerivative {
            next,
            memo: HashMap::new(),
        }
    }

    fn of(&mut self, pool: &mut Pool, e: Id) -> Id {
        if let Some(&d) = self.memo.get(&e) {
            return d;
        }
        let d = match pool.node(e).clone() {
            Node::Num(_) | Node::Pi => pool.zero(),
            Node::Symbol(_) => match self.next.get(&e) {
                Some(&rate) => rate,
                None => pool.zero(),
            },
            Node::Add(terms, _) => {
                let parts: Vec<(Id, Coeff)> =
                    terms.iter().map(|&(t, c)| (self.of(pool, t), c)).collect();
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Mul(factors) => {
                let mut parts = Vec::with_capacity(factors.len());
                for (i, &(base, exponent)) in factors.iter().enumerate() {
                    let rate = self.of(pool, base);
                    if pool.is_zero(rate) {
                        continue;
                    }
                    let mut rest: Vec<(Id, i32)> = factors.to_vec();
                    if let Some(factor) = rest.get_mut(i) {
                        factor.1 = exponent - 1;
                    }
                    rest.push((rate, 1));
                    parts.push((pool.product(&rest), Coeff::int(i64::from(exponent))));
                }
                pool.linear(&parts, Coeff::ZERO)
            }
            Node::Sin(u) => {
                let rate = self.of(pool, u);
                let c = pool.cos(u);
                pool.mul(c, rate)
            }
            Node::Cos(u) => {
                let rate = self.of(pool, u);
                let s = pool.sin(u);
                let minus_s = pool.neg(s);
                pool.mul(minus_s, rate)
            }
            Node::Sqrt(u) => {
                let rate = self.of(pool, u);
                let half = pool.num(Coeff::ratio(1, 2));
                pool.product(&[(half, 1), (rate, 1), (e, -1)])
            }
        };
        self.memo.insert(e, d);
        d
    }

    fn of3(&mut self, pool: &mut Pool, v: Vec3) -> Vec3 {
        v.map(|e| self.of(pool, e))
    }

    /// `v̈ = v'' + 2 ω × v' + ω̇ × v + ω × (ω × v)` for `v(q)` given in a
    /// frame with `spin`.
    fn second(&mut self, pool: &mut Pool, spin: &Spin, v: Vec3) -> Vec3 {
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
fn static_moment_accelerations(
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
fn static_moment_acceleration_ways(
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

/// The vector of (4) for one body, `J_o ω̇ + ω × J_o ω` about its pole.
enum MomentumRate {
    /// In the body's own frame.
    Own(Vec3),
    /// In the parent frame: the last body, symmetric about its axis.
    InParent(Vec3),
}

impl MomentumRate {
    /// The vector if it is in the body's own frame, else zero.
    fn own(&self, pool: &mut Pool) -> Vec3 {
        match self {
            MomentumRate::Own(v) => *v,
            MomentumRate::InParent(_) => pool.zero3(),
        }
    }

    /// The vector if it is in the parent frame, else zero.
    fn in_parent(&self, pool: &mut Pool) -> Vec3 {
        match self {
            MomentumRate::Own(_) => pool.zero3(),
            MomentumRate::InParent(v) => *v,
        }
    }
}

/// The (4) vector of every body; the last one in its parent's frame when it
/// is symmetric about its axis.
fn momentum_rates(pool: &mut Pool, links: &[Link], motion: &Motion) -> Vec<MomentumRate> {
    let last = links.len().checked_sub(1);
    links
        .iter()
        .zip(&motion.spins)
        .enumerate()
        .map(|(k, (link, spin))| match symmetric_axis(pool, link) {
            Some(i) if Some(k) == last => {
                let parent = motion.parent_spin(k);
                MomentumRate::InParent(rotor(pool, link, &parent, i))
            }
            _ => {
                let acceleration = pool.mat_vec(&link.inertia, spin.omega_dot);
                let momentum = pool.mat_vec(&link.inertia, spin.omega);
                let gyroscopic = pool.cross3(spin.omega, momentum);
                MomentumRate::Own(pool.add3(acceleration, gyroscopic))
            }
        })
        .collect()
}

/// The coordinate axis `i` of a revolute body whose centre of mass lies on
/// its axis `±e_i` and whose pole inertia is diagonal with equal moments
/// about the other two axes: such a body looks the same at every angle.
fn symmetric_axis(pool: &Pool, link: &Link) -> Option<usize> {
    if link.pair != Pair::Revolute {
        return None;
    }
    let unit = |id: Id| {
        pool.as_num(id)
            .is_some_and(|c| c.is_one() || c.is_minus_one())
    };
    let i = (0..3).find(|&i| unit(link.axis[i]))?;
    let [l, m] = match i {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    };
    let zero = |id: Id| pool.is_zero(id);
    let on_axis = [l, m]
        .iter()
        .all(|&a| zero(link.axis[a]) && zero(link.com[a]));
    let diagonal = (0..3).all(|r| (0..3).all(|c| r == c || zero(link.inertia[r][c])));
    (on_axis && diagonal && link.inertia[l][l] == link.inertia[m][m]).then_some(i)
}

/// `Ḣ = J ω̇_p + J^q q̈ q + ω_p × (J ω_p + J^q q̇ q)` in the parent frame for a
/// body symmetric about its axis `e_i` (`J = P J_o Pᵀ`, constant there).
fn rotor(pool: &mut Pool, link: &Link, parent: &Spin, i: usize) -> Vec3 {
    let p = link.placement;
    let transposed = [
        [p[0][0], p[1][0], p[2][0]],
        [p[0][1], p[1][1], p[2][1]],
        [p[0][2], p[1][2], p[2][2]],
    ];
    let rotated = pool.mat_mul(&p, &link.inertia);
    let inertia = pool.mat_mul(&rotated, &transposed);
    let axial = link.inertia[i][i];
    let axis = link.axis_in_parent;
    let spin_rate = pool.mul(axial, link.rate);
    let spin_acceleration = pool.mul(axial, link.acceleration);
    let carried = pool.mat_vec(&inertia, parent.omega);
    let own = pool.scale3(spin_rate, axis);
    let momentum = pool.add3(carried, own);
    let gyroscopic = pool.cross3(parent.omega, momentum);
    let carried_rate = pool.mat_vec(&inertia, parent.omega_dot);
    let own_rate = pool.scale3(spin_acceleration, axis);
    let rate = pool.add3(carried_rate, own_rate);
    pool.add3(rate, gyroscopic)
}

/// The vectors carried from the tip to the base, index `k` in frame `k`.
struct Loads {
    /// `F⃗_k = m_k A_k + m̈⃗_k`, the force on subsystem `k` (Statement 1),
    /// in the parent frame `k − 1`.
    forces: Vec<Vec3>,
    /// `a_k c_k × A_k + R_{k+1} × F⃗_{k+1} + K⃗_kk`: what Statement 2 adds to
    /// `M⃗_{k+1}` to make `M⃗_k`.
    increments: Vec<Vec3>,
    /// `M⃗_k`, the moment about `O_k` that body `k − 1` exerts on subsystem `k`.
    moments: Vec<Vec3>,
    /// `Σ_{i≥k}` of the (4) vectors.
    momentum_rates: Vec<Vec3>,
}

impl Loads {
    fn carry(
        pool: &mut Pool,
        links: &[Link],
        motion: &Motion,
        subsystems: &Subsystems,
        moment_accelerations: &[Vec3],
        rates: &[MomentumRate],
    ) -> Loads {
        let n = links.len();
        let mut loads = Loads {
            forces: Vec::with_capacity(n),
            increments: vec![pool.zero3(); n],
            moments: vec![pool.zero3(); n + 1],
            momentum_rates: vec![pool.zero3(); n + 1],
        };
        for (k, link) in links.iter().enumerate() {
            let parent_pole = motion.parent_pole(k);
            let pole = pool.add3(parent_pole, motion.relative[k]);
            let inertial = pool.scale3(subsystems.masses[k], pole);
            let moment_rate = pool.mat_vec(&link.to_parent, moment_accelerations[k]);
            loads.forces.push(pool.add3(inertial, moment_rate));
        }
        let mut poles_meet = true;
        for (k, (link, rate)) in links.iter().zip(rates).enumerate().rev() {
            let own_rate = rate.own(pool);
            let own_static = link.own_moment(pool);
            let weight = pool.cross3(own_static, motion.poles[k]);
            let mut increment = pool.add3(weight, own_rate);
            let mut momentum_rate = own_rate;
            let mut carried = pool.zero3();
            if let (Some(next), Some(next_rate)) = (links.get(k + 1), rates.get(k + 1)) {
                let in_parent = next_rate.in_parent(pool);
                let lever = pool.cross3(next.origin, loads.forces[k + 1]);
                increment = pool.add3(increment, lever);
                let moment = pool.mat_vec(&next.to_parent, loads.moments[k + 1]);
                carried = pool.add3(moment, in_parent);
                let rates_carried = pool.mat_vec(&next.to_parent, loads.momentum_rates[k + 1]);
                momentum_rate = pool.add3(momentum_rate, rates_carried);
                momentum_rate = pool.add3(momentum_rate, in_parent);
                poles_meet = poles_meet && next.origin.iter().all(|&x| pool.is_zero(x));
            }
            loads.moments[k] = if poles_meet {
                let weight = pool.cross3(subsystems.moments[k], motion.poles[k]);
                pool.add3(weight, momentum_rate)
            } else {
                pool.add3(carried, increment)
            };
            loads.increments[k] = increment;
            loads.momentum_rates[k] = momentum_rate;
        }
        loads
    }
}

/// `Some(±1)` when `next` is revolute about `link`'s axis or its opposite
/// (Statement 2).
fn parallel(pool: &mut Pool, link: &Link, next: &Link) -> Option<Coeff> {
    if next.pair != Pair::Revolute {
        return None;
    }
    let opposite = pool.scale3c(Coeff::MINUS_ONE, next.axis_in_parent);
    if next.axis_in_parent == link.axis {
        Some(Coeff::ONE)
    } else if opposite == link.axis {
        Some(Coeff::MINUS_ONE)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanism::ParameterMode;

    /// A deterministic stream of numbers in ±1.5 (xorshift), so the test
    /// needs no random-number crate.
    struct Stream(u64);

    impl Stream {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % 3_000_001) as f64 / 1_000_000.0 - 1.5
        }
    }

    /// (7)–(8) as a chain rule, on `f = q0² sin q1 + cos(q0 + q1) + √(1 + q0²)` whose
    /// derivatives are written out by hand, to 1e-13 at a few states.
    #[test]
    fn time_derivative_is_the_chain_rule() {
        let mut pool = Pool::new();
        let symbol = |pool: &mut Pool, input: Input| pool.input(input);
        let (q0, q1) = (
            symbol(&mut pool, Input::Position(0)),
            symbol(&mut pool, Input::Position(1)),
        );
        let square = pool.powi(q0, 2);
        let sine = pool.sin(q1);
        let product = pool.mul(square, sine);
        let sum = pool.add(q0, q1);
        let cosine = pool.cos(sum);
        let one = pool.one();
        let radicand = pool.add(one, square);
        let root = pool.sqrt(radicand);
        let f = pool.sum(&[product, cosine, root]);
        let revolute = |pool: &mut Pool, body: usize| TreeBody {
            name: format!("b{body}"),
            joint: format!("j{body}"),
            parent: body.checked_sub(1),
            position: body,
            velocity: body,
            coupling: None,
            kind: JointKind::Revolute,
            axis: [pool.zero(), pool.zero(), pool.one()],
            rotation: pool.identity3(),
            translation: pool.zero3(),
            mass: pool.one(),
            com: pool.zero3(),
            inertia: pool.identity3(),
            auxiliary: false,
            body_frame: None,
        };
        let bodies = [revolute(&mut pool, 0), revolute(&mut pool, 1)];
        let mut derivative = TimeDerivative::new(&mut pool, &bodies);
        let rate = derivative.of(&mut pool, f);
        let acceleration = derivative.of(&mut pool, rate);
        let mut stream = Stream(17);
        for _ in 0..5 {
            let [x, y, xd, yd, xdd, ydd] = [(); 6].map(|_| stream.next());
            let env = |name: &Input| match name {
                Input::Position(0) => Some(x),
                Input::Position(1) => Some(y),
                Input::Velocity(0) => Some(xd),
                Input::Velocity(1) => Some(yd),
                Input::Acceleration(0) => Some(xdd),
                Input::Acceleration(1) => Some(ydd),
                _ => None,
            };
            let got = pool.eval(&[rate, acceleration], &env).expect("bound");
            let (s, c) = y.sin_cos();
            let (s_sum, c_sum) = (x + y).sin_cos();
            let (w, wd) = (xd + yd, xdd + ydd);
            let r = (1.0 + x * x).sqrt();
            let want_rate = 2.0 * x * xd * s + x * x * c * yd - s_sum * w + x * xd / r;
            let want_acceleration = 2.0 * (xd * xd + x * xdd) * s
                + 4.0 * x * xd * c * yd
                + x * x * (c * ydd - s * yd * yd)
                - c_sum * w * w
                - s_sum * wd
                + (xd * xd + x * xdd) / r
                - x * x * xd * xd / (r * r * r);
            assert!((got[0] - want_rate).abs() < 1e-13, "{got:?} vs {want_rate}");
            assert!(
                (got[1] - want_acceleration).abs() < 1e-13,
                "{got:?} vs {want_acceleration}"
            );
        }
    }

    fn folded(name: &str, text: &str) -> Mechanism {
        let source = sharnir_spec::Source {
            name: name.to_owned(),
            text: text.to_owned(),
        };
        let spec = sharnir_spec::parse(source).expect("bundled spec is valid");
        Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec is valid")
    }

    /// The two ways to `m̈⃗_k` must agree for every subsystem, not only for
    /// the ones the cost comparison happens to pick: differentiating the
    /// direction cosines with (7)–(8) and the transport terms on one side, the
    /// recursion over body accelerations on the other. Checked on chains with
    /// prismatic joints (telegin6), placement rotations and offsets
    /// (puma560) and ten parallel axes (chain10), to 1e-12 relative, at 20
    /// states each.
    #[test]
    fn both_ways_to_the_static_moment_accelerations_agree() {
        let specs = [
            ("telegin6", include_str!("../../../specs/telegin6.spec")),
            ("puma560", include_str!("../../../specs/puma560.spec")),
            ("chain10", include_str!("../../../specs/chain10.spec")),
        ];
        let mut stream = Stream(0x7E1E_61A5);
        for (name, text) in specs {
            let mut mechanism = folded(name, text);
            let Mechanism {
                pool,
                bodies,
                gravity,
                ..
            } = &mut mechanism;
            let links: Vec<Link> = bodies
                .iter()
                .map(|b| Link::describe(pool, b))
                .collect::<Result<_, _>>()
                .expect("a chain of 1-DOF joints");
            let motion = Motion::absolute(pool, &links, *gravity);
            let subsystems = Subsystems::static_moments(pool, &links);
            let mut derivative = TimeDerivative::new(pool, bodies);
            let mut outboard = pool.zero3();
            let mut pairs = Vec::new();
            for k in (0..links.len()).rev() {
                let [explicit, recursive] = static_moment_acceleration_ways(
                    pool,
                    &mut derivative,
                    &links,
                    &motion,
                    &subsystems,
                    k,
                    outboard,
                );
                pairs.push((k, explicit, recursive));
                outboard = recursive;
            }
            let n = links.len();
            for _ in 0..20 {
                let state: Vec<f64> = (0..3 * n).map(|_| stream.next()).collect();
                let env = |symbol: &Input| match symbol {
                    Input::Position(i) => state.get(*i).copied(),
                    Input::Velocity(i) => state.get(n + *i).copied(),
                    Input::Acceleration(i) => state.get(2 * n + *i).copied(),
                    _ => None,
                };
                for &(k, explicit, recursive) in &pairs {
                    let a = pool.eval(&explicit, &env).expect("only q, q̇, q̈");
                    let b = pool.eval(&recursive, &env).expect("only q, q̇, q̈");
                    let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                    for (x, y) in a.iter().zip(&b) {
                        assert!(
                            (x - y).abs() < 1e-12 * scale,
                            "{name}, subsystem {k}: {a:?} vs {b:?} at {state:?}"
                        );
                    }
                }
            }
        }
    }
}
