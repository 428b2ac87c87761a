//! Forward dynamics by the articulated-body algorithm (ABA) in O(n).

use crate::error::TreeError;
use crate::spatial::{ArticulatedInertia, Force, Motion};
use crate::tree::Tree;

/// What the inward pass leaves at a joint for the final outward pass.
struct JointProjection {
    /// `U = Aᵢ Sᵢ`.
    u_vector: Force,
    /// `D = Sᵢᵀ Aᵢ Sᵢ`, positive.
    d: f64,
    /// `u = τᵢ − Sᵢᵀ pᵢ`.
    u: f64,
}

impl Tree {
    /// The accelerations `q̈ = M(q)⁻¹ (τ − C(q, q̇) q̇ − g(q))` produced by the
    /// joint forces `tau`, without forming `M`.
    ///
    /// Exists as the O(n) baseline simulations and benchmarks compare
    /// against, and to close the loop `ABA(RNEA(q̈)) = q̈` in tests. Fails
    /// with [`TreeError::SingularJoint`] if some joint has no inertia to
    /// accelerate.
    pub fn forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
    ) -> Result<Vec<f64>, TreeError> {
        self.check(&[("q", q), ("qd", qd), ("tau", tau)])?;
        let transforms = self.joint_transforms(q);
        let velocities = self.velocities(&transforms, qd);
        // Outward: velocity-product accelerations c, rigid articulated
        // inertias and bias forces.
        let mut bias_accelerations = Vec::with_capacity(self.dof());
        let mut inertias = Vec::with_capacity(self.dof());
        let mut bias_forces = Vec::with_capacity(self.dof());
        for ((body, &v), &qdi) in self.bodies.iter().zip(&velocities).zip(qd) {
            let inertia = body.spatial_inertia();
            bias_accelerations.push(v.cross_motion(body.motion_subspace().scaled(qdi)));
            inertias.push(ArticulatedInertia::from(&inertia));
            bias_forces.push(v.cross_force(inertia.apply(v)));
        }
        // Inward: project each joint's free direction out of its articulated
        // inertia and hand the rest to the parent. `check` guarantees p < i.
        let mut projections = Vec::with_capacity(self.dof());
        for (i, body) in self.bodies.iter().enumerate().rev() {
            let s = body.motion_subspace();
            let inertia = inertias[i];
            let u_vector = inertia.apply(s);
            let d = s.dot(u_vector);
            if d.is_nan() || d <= 0.0 {
                return Err(TreeError::SingularJoint { body: i });
            }
            let u = tau[i] - s.dot(bias_forces[i]);
            if let Some(p) = body.parent {
                let projected = inertia.minus_outer(u_vector, 1.0 / d);
                let force = bias_forces[i]
                    + projected.apply(bias_accelerations[i])
                    + u_vector.scaled(u / d);
                inertias[p] += transforms[i].transpose_articulated(&projected);
                bias_forces[p] += transforms[i].transpose_force(force);
            }
            projections.push(JointProjection { u_vector, d, u });
        }
        projections.reverse();
        // Outward: accelerations.
        let ground = self.ground_acceleration();
        let mut accelerations: Vec<Motion> = Vec::with_capacity(self.dof());
        let mut qdd = Vec::with_capacity(self.dof());
        let outward = self
            .bodies
            .iter()
            .zip(&transforms)
            .zip(&bias_accelerations)
            .zip(&projections);
        for (((body, transform), &c), projection) in outward {
            let parent = body.parent.map_or(ground, |p| accelerations[p]);
            let a = transform.apply_motion(parent) + c;
            let qddi = (projection.u - a.dot(projection.u_vector)) / projection.d;
            qdd.push(qddi);
            accelerations.push(a + body.motion_subspace().scaled(qddi));
        }
        Ok(qdd)
    }
}
