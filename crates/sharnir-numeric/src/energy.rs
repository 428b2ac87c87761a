//! Kinetic and potential energy of the whole tree.

use crate::error::TreeError;
use crate::linalg;
use crate::tree::Tree;

impl Tree {
    /// `(T, V)`: the kinetic energy `Σ ½ vᵢ · Iᵢ vᵢ` and the gravitational
    /// potential energy `−Σ mᵢ g · cᵢ` (centres of mass in the ground frame,
    /// zero at the ground origin), in joules; the kinetic energy includes
    /// the rotors' `½ aᵢ q̇ᵢ²` ([`Tree::armature`]).
    ///
    /// Exists for the power-balance check `d(T + V)/dt = vᵀ τ`, which tests
    /// every dynamics routine against a quantity computed without them.
    pub fn energy(&self, q: &[f64], qd: &[f64]) -> Result<(f64, f64), TreeError> {
        self.check(q, &[("qd", qd)])?;
        let velocities = self.velocities(&self.joint_transforms(q), qd);
        let kinetic = self
            .bodies
            .iter()
            .zip(&velocities)
            .map(|(body, &v)| 0.5 * v.dot(body.spatial_inertia().apply(v)))
            .sum::<f64>()
            + qd.iter()
                .enumerate()
                .map(|(i, v)| 0.5 * self.armature_at(i) * v * v)
                .sum::<f64>();
        let potential = self
            .bodies
            .iter()
            .zip(self.poses_unchecked(q))
            .map(|(body, (rotation, origin))| {
                let com = linalg::add(origin, linalg::mul_vec(&rotation, body.com));
                -body.mass * linalg::dot(self.gravity, com)
            })
            .sum();
        Ok((kinetic, potential))
    }
}
