//! The drives' parameters and joint friction of a spec, from the parsed
//! spec alone (`docs/spec-format.md`, `docs/identification.md`): what the
//! standard regressor's drive columns multiply, and the damping and dry
//! friction forces, for checking `Y π = τ_motor = inverse_dynamics −
//! friction_forces` without the compiler's model.

use crate::geometry::evaluate;
use sharnir_spec::{Spec, DEFAULT_FRICTION_SPEED};
use std::collections::BTreeMap;

/// One joint's damping and friction: the motions (velocity index, weight)
/// they act on, the coefficients and the regularisation speed.
struct Resisting {
    motions: Vec<Vec<(usize, f64)>>,
    damping: f64,
    friction: f64,
    speed: f64,
}

/// The drive parameters and friction forces of one spec.
pub struct Drives {
    /// Every drive parameter by its name (`<joint>.armature`,
    /// `<joint>.armature.<k>`, `<joint>.damping`, `<joint>.friction`).
    values: BTreeMap<String, f64>,
    resisting: Vec<Resisting>,
    nv: usize,
}

impl Drives {
    /// The drives of a validated spec at its parameters' values.
    pub fn of(spec: &Spec) -> Drives {
        let values = spec.parameter_values();
        let eval = |e| evaluate(e, &values);
        // The coordinate layout: spec joint order, none for cut joints and
        // followers.
        let mut first = BTreeMap::new();
        let mut velocity = 0;
        for joint in &spec.joints {
            first.insert(joint.name.as_str(), velocity);
            if !joint.cut && joint.mimic.is_none() {
                velocity += joint.kind.nv();
            }
        }
        let mut drives = Drives {
            values: BTreeMap::new(),
            resisting: Vec::new(),
            nv: velocity,
        };
        for joint in spec.joints.iter().filter(|j| !j.cut) {
            let motions: Vec<Vec<(usize, f64)>> = match &joint.mimic {
                Some(mimic) => vec![vec![(first[mimic.joint.as_str()], eval(&mimic.multiplier))]],
                None => (0..joint.kind.nv())
                    .map(|k| vec![(first[joint.name.as_str()] + k, 1.0)])
                    .collect(),
            };
            match joint.armature.as_slice() {
                [] => {}
                [all] => {
                    drives
                        .values
                        .insert(format!("{}.armature", joint.name), eval(all));
                }
                each => {
                    for (k, a) in each.iter().enumerate() {
                        drives
                            .values
                            .insert(format!("{}.armature.{}", joint.name, k + 1), eval(a));
                    }
                }
            }
            let damping = joint.damping.as_ref().map(eval);
            let friction = joint.friction.as_ref().map(eval);
            if let Some(c) = damping {
                drives.values.insert(format!("{}.damping", joint.name), c);
            }
            if let Some(f) = friction {
                drives.values.insert(format!("{}.friction", joint.name), f);
            }
            if damping.is_some() || friction.is_some() {
                drives.resisting.push(Resisting {
                    motions,
                    damping: damping.unwrap_or(0.0),
                    friction: friction.unwrap_or(0.0),
                    speed: joint
                        .friction_speed
                        .as_ref()
                        .map_or(DEFAULT_FRICTION_SPEED, eval),
                });
            }
        }
        drives
    }

    /// The values of the drive parameters `names`, in that order.
    ///
    /// # Panics
    /// On a name the spec does not declare.
    pub fn parameters(&self, names: &[String]) -> Vec<f64> {
        names
            .iter()
            .map(|name| {
                *self
                    .values
                    .get(name)
                    .unwrap_or_else(|| panic!("no drive parameter `{name}` in the spec"))
            })
            .collect()
    }

    /// The joints' damping and dry-friction forces at velocities `qd`:
    /// `−w (c ẋ + F_c ẋ / √(ẋ² + v²))` for every motion `ẋ = wᵀ q̇`.
    pub fn friction_forces(&self, qd: &[f64]) -> Vec<f64> {
        let mut forces = vec![0.0; self.nv];
        for joint in &self.resisting {
            for weights in &joint.motions {
                let rate: f64 = weights.iter().map(|&(i, w)| w * qd[i]).sum();
                let resisting = joint.damping * rate
                    + joint.friction * rate / (rate * rate + joint.speed * joint.speed).sqrt();
                for &(i, w) in weights {
                    forces[i] -= w * resisting;
                }
            }
        }
        forces
    }
}
