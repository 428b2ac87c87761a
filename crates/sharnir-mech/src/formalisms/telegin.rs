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
//!
//! The code follows the paper's two halves: `motion` (the formal
//! description of the links, the absolute motion (6), the subsystems' static
//! moments and their accelerations (7), (8)) and `loads` (the momentum
//! rates (4) and the loads Statements 1 and 2 carry down the chain); this
//! file checks that the mechanism is a chain and assembles the two.

use crate::formalisms::armature;
use crate::model::vec3::{Vec3, Vec3Ops};
use crate::model::{JointKind, Mechanism, TreeBody};
use loads::{momentum_rates, parallel, Loads, MomentumRate};
use motion::{static_moment_accelerations, Link, Motion, Pair, Subsystems, TimeDerivative};
use sharnir_cas::{Id, Pool};
use std::fmt;

mod loads;
mod motion;
#[cfg(test)]
mod tests;

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
/// [`crate::formalisms::rnea::inverse_dynamics`] for every chain it accepts, written the
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
    armature::add_to_forces(pool, bodies, &mut tau);
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
