//! The drive parameters of the regressors: the armature, viscous damping
//! and dry friction a spec declares on its joints, each a parameter the
//! joint forces are linear in, like the bodies' inertial parameters.
//!
//! With `ẋ = wᵀ q̇` a joint's motion (`w` a unit vector on its own
//! coordinate, the multiplier `k` on the leader's for a follower), the
//! force the drive must supply besides the bodies' inverse dynamics is
//! ```text
//! τ_motor = inverse_dynamics − friction_forces
//!         = inverse_dynamics(π, a) + w (c ẋ + F_c ẋ / √(ẋ² + v²))
//! ```
//! (`inverse_dynamics` holds the armature's `a w (wᵀ q̈)`,
//! `friction_forces` is `−w (c ẋ + F_c …)`), so each declared coefficient
//! has a column: `w (wᵀ q̈)` for the armature, `w ẋ` for the damping,
//! `w ẋ / √(ẋ² + v²)` for the friction, `v` the joint's `friction_speed`.
//! A joint's columns exist where the spec declares the coefficient, even
//! as zero: `armature = 0` asks for the column without changing the
//! dynamics. One parameter per value written: an armature array has one
//! per coordinate, a scalar one for all the joint's coordinates, damping
//! and friction one per joint.
//!
//! The mechanism keeps only the values and weights (expressions the
//! dynamics already lowered); [`DriveParameter::column`] builds a column
//! when a regressor is derived, so that a module without one has the
//! pool, and so the code, it has without drive parameters.

use crate::model::inputs::Input;
use crate::model::lowering::ExprLowering;
use sharnir_cas::{Coeff, Id, Pool};
use sharnir_spec::{Spec, SpecError, DEFAULT_FRICTION_SPEED};

/// Which coefficient a drive parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriveKind {
    /// Rotor inertia reflected to the joint: column `w (wᵀ q̈)`.
    Armature,
    /// Viscous damping: column `w ẋ`.
    Damping,
    /// Dry friction regularised below `speed`: column `w ẋ / √(ẋ² + v²)`.
    Friction {
        /// The joint's `friction_speed`.
        speed: Id,
    },
}

/// One drive parameter: a column of the standard regressor after the
/// bodies' ten each.
#[derive(Clone, Debug)]
pub struct DriveParameter {
    /// `<joint>.armature` (`<joint>.armature.<k>` for the `k`-th value of
    /// an array, from 1), `<joint>.damping`, `<joint>.friction`.
    pub name: String,
    /// Its value in the spec.
    pub value: Id,
    /// The coefficient it is.
    pub kind: DriveKind,
    /// The motions it acts on, each as `(velocity index, weight)` pairs:
    /// one per coordinate of the joint, or the leader's scaled for a
    /// follower.
    pub motions: Vec<Vec<(usize, Id)>>,
}

impl DriveParameter {
    /// `∂τ_motor/∂value`, one entry per velocity coordinate (`nv`).
    pub fn column(&self, pool: &mut Pool, nv: usize) -> Vec<Id> {
        let zero = pool.zero();
        let mut column = vec![zero; nv];
        let input = match self.kind {
            DriveKind::Armature => Input::Acceleration,
            DriveKind::Damping | DriveKind::Friction { .. } => Input::Velocity,
        };
        for weights in &self.motions {
            let terms: Vec<Id> = weights
                .iter()
                .map(|&(i, w)| {
                    let x = pool.input(input(i));
                    pool.mul(w, x)
                })
                .collect();
            let motion = pool.sum(&terms);
            let f = match self.kind {
                DriveKind::Armature | DriveKind::Damping => motion,
                DriveKind::Friction { speed } => {
                    // ẋ / √(ẋ² + v²), as `friction_forces` writes it.
                    let rate2 = pool.powi(motion, 2);
                    let speed2 = pool.powi(speed, 2);
                    let norm2 = pool.add(rate2, speed2);
                    let norm = pool.sqrt(norm2);
                    pool.div(motion, norm)
                }
            };
            for &(i, w) in weights {
                let term = pool.mul(w, f);
                if let Some(entry) = column.get_mut(i) {
                    *entry = pool.add(*entry, term);
                }
            }
        }
        column
    }
}

/// The drive parameters the spec declares, joint by joint in spec order,
/// each joint's armature, damping then friction.
pub(crate) fn drive_parameters(
    spec: &Spec,
    lowering: &mut ExprLowering,
) -> Result<Vec<DriveParameter>, SpecError> {
    let firsts = spec.first_coordinates();
    let mut parameters = Vec::new();
    for (index, joint) in spec.joints.iter().enumerate() {
        let declared =
            !joint.armature.is_empty() || joint.damping.is_some() || joint.friction.is_some();
        if joint.cut || !declared {
            continue;
        }
        let motions: Vec<Vec<(usize, Id)>> = match &joint.mimic {
            Some(mimic) => {
                let leader = spec
                    .joints
                    .iter()
                    .position(|j| j.name == mimic.joint)
                    .unwrap_or(index);
                let multiplier = lowering.expr(spec, &mimic.multiplier)?;
                vec![vec![(firsts[leader].1, multiplier)]]
            }
            None => {
                let one = lowering.pool.one();
                (0..joint.nv())
                    .map(|k| vec![(firsts[index].1 + k, one)])
                    .collect()
            }
        };
        let mut push = |name: String, value: Id, kind: DriveKind, motions: Vec<Vec<_>>| {
            parameters.push(DriveParameter {
                name,
                value,
                kind,
                motions,
            });
        };
        match joint.armature.as_slice() {
            [] => {}
            [all] => {
                let value = lowering.expr(spec, all)?;
                let name = format!("{}.armature", joint.name);
                push(name, value, DriveKind::Armature, motions.clone());
            }
            each => {
                for (k, (a, motion)) in each.iter().zip(&motions).enumerate() {
                    let value = lowering.expr(spec, a)?;
                    let name = format!("{}.armature.{}", joint.name, k + 1);
                    push(name, value, DriveKind::Armature, vec![motion.clone()]);
                }
            }
        }
        if let Some(damping) = &joint.damping {
            let value = lowering.expr(spec, damping)?;
            let name = format!("{}.damping", joint.name);
            push(name, value, DriveKind::Damping, motions.clone());
        }
        if let Some(friction) = &joint.friction {
            let value = lowering.expr(spec, friction)?;
            let speed = match &joint.friction_speed {
                Some(v) => lowering.expr(spec, v)?,
                None => lowering
                    .pool
                    .num(Coeff::from_decimal_f64(DEFAULT_FRICTION_SPEED)),
            };
            let name = format!("{}.friction", joint.name);
            push(name, value, DriveKind::Friction { speed }, motions);
        }
    }
    Ok(parameters)
}
