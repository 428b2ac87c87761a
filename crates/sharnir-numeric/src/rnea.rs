//! Inverse dynamics by the recursive Newton–Euler algorithm (RNEA) in
//! spatial form: velocities and accelerations outward, forces inward.

use crate::error::TreeError;
use crate::spatial::Force;
use crate::tree::Tree;

impl Tree {
    /// The joint forces `τ = M(q) q̈ + C(q, q̇) q̇ + g(q)` that produce the
    /// accelerations `qdd` at state (`q`, `qd`), in O(n).
    ///
    /// This is what the generated inverse-dynamics code is checked against.
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
    ) -> Result<Vec<f64>, TreeError> {
        self.check(q, &[("qd", qd), ("qdd", qdd)])?;
        Ok(self.rnea_unchecked(q, qd, qdd))
    }

    /// The bias forces `C(q, q̇) q̇ + g(q)`: the joint forces needed for zero
    /// acceleration, so that `M q̈ + bias = τ`. Forward dynamics by
    /// `M⁻¹ (τ − bias)` starts from here.
    pub fn bias(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, TreeError> {
        self.check(q, &[("qd", qd)])?;
        Ok(self.rnea_unchecked(q, qd, &vec![0.0; self.nv()]))
    }

    /// RNEA after [`Tree::check`].
    fn rnea_unchecked(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let transforms = self.joint_transforms(q);
        let velocities = self.velocities(&transforms, qd);
        let ground = self.ground_acceleration();
        let mut accelerations = Vec::with_capacity(self.bodies.len());
        let mut forces: Vec<Force> = Vec::with_capacity(self.bodies.len());
        let outward = self
            .bodies
            .iter()
            .zip(&transforms)
            .zip(&velocities)
            .zip(self.v_chunks(qd).zip(self.v_chunks(qdd)));
        for (((body, transform), &v), (qdi, qddi)) in outward {
            let s = body.motion_subspace();
            // `check` guarantees p < this body's index, so `accelerations[p]` exists.
            let parent = body.parent.map_or(ground, |p| accelerations[p]);
            let a = transform.apply_motion(parent) + s.motion(qddi) + v.cross_motion(s.motion(qdi));
            accelerations.push(a);
            let inertia = body.spatial_inertia();
            forces.push(inertia.apply(a) + v.cross_force(inertia.apply(v)));
        }
        // Inward: children come after their parents, so walking backwards
        // completes each body's force before it is carried to the parent.
        for (i, body) in self.bodies.iter().enumerate().rev() {
            if let Some(p) = body.parent {
                let carried = transforms[i].transpose_force(forces[i]);
                forces[p] += carried;
            }
        }
        let mut tau = Vec::with_capacity(qd.len());
        for (body, &f) in self.bodies.iter().zip(&forces) {
            tau.extend_from_slice(&body.motion_subspace().project(f));
        }
        for (i, (t, a)) in tau.iter_mut().zip(qdd).enumerate() {
            *t += self.armature_at(i) * a;
        }
        tau
    }
}
