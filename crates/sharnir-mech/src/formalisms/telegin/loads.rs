//! The loads of Telegin's formalism: the rates of the bodies' angular
//! momenta (with the shortcut for bodies symmetric about their axis) and
//! the forces and moments each subsystem carries, Statements 1 and 2.

use super::motion::{Link, Motion, Pair, Spin, Subsystems};
use crate::model::vec3::{Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Pool};

/// The vector of (4) for one body, `J_o ω̇ + ω × J_o ω` about its pole.
pub(super) enum MomentumRate {
    /// In the body's own frame.
    Own(Vec3),
    /// In the parent frame: the last body, symmetric about its axis.
    InParent(Vec3),
}

impl MomentumRate {
    /// The vector if it is in the body's own frame, else zero.
    pub(super) fn own(&self, pool: &mut Pool) -> Vec3 {
        match self {
            MomentumRate::Own(v) => *v,
            MomentumRate::InParent(_) => pool.zero3(),
        }
    }

    /// The vector if it is in the parent frame, else zero.
    pub(super) fn in_parent(&self, pool: &mut Pool) -> Vec3 {
        match self {
            MomentumRate::Own(_) => pool.zero3(),
            MomentumRate::InParent(v) => *v,
        }
    }
}

/// The (4) vector of every body; the last one in its parent's frame when it
/// is symmetric about its axis.
pub(super) fn momentum_rates(
    pool: &mut Pool,
    links: &[Link],
    motion: &Motion,
) -> Vec<MomentumRate> {
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
pub(super) fn symmetric_axis(pool: &Pool, link: &Link) -> Option<usize> {
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
pub(super) fn rotor(pool: &mut Pool, link: &Link, parent: &Spin, i: usize) -> Vec3 {
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
pub(super) struct Loads {
    /// `F⃗_k = m_k A_k + m̈⃗_k`, the force on subsystem `k` (Statement 1),
    /// in the parent frame `k − 1`.
    pub(super) forces: Vec<Vec3>,
    /// `a_k c_k × A_k + R_{k+1} × F⃗_{k+1} + K⃗_kk`: what Statement 2 adds to
    /// `M⃗_{k+1}` to make `M⃗_k`.
    pub(super) increments: Vec<Vec3>,
    /// `M⃗_k`, the moment about `O_k` that body `k − 1` exerts on subsystem `k`.
    pub(super) moments: Vec<Vec3>,
    /// `Σ_{i≥k}` of the (4) vectors.
    pub(super) momentum_rates: Vec<Vec3>,
}

impl Loads {
    pub(super) fn carry(
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
pub(super) fn parallel(pool: &mut Pool, link: &Link, next: &Link) -> Option<Coeff> {
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
