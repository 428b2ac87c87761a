//! Forward dynamics by the articulated-body algorithm (ABA) in O(n).

use crate::cholesky::Cholesky;
use crate::error::TreeError;
use crate::joint::{self, Subspace};
use crate::spatial::{ArticulatedInertia, Force, Motion};
use crate::tree::Tree;

/// What the inward pass leaves at an N-degree-of-freedom joint for the
/// outward pass, with `U = Aᵢ Sᵢ`, `D = Sᵢᵀ Aᵢ Sᵢ = L Lᵀ` and
/// `u = τᵢ − Sᵢᵀ pᵢ`.
struct Projection<const N: usize> {
    /// The columns of `S`.
    columns: [Motion; N],
    /// The columns of `W = U L⁻ᵀ` (so that `U D⁻¹ Uᵀ = W Wᵀ`), found by
    /// forward substitution in `L Wᵀ = Uᵀ`.
    whitened: [Force; N],
    /// `L⁻¹ u`.
    whitened_u: [f64; N],
    /// The Cholesky factor `L` of `D`.
    factor: Cholesky<N>,
}

impl<const N: usize> Projection<N> {
    /// The projection of the articulated inertia `inertia` with bias force
    /// `bias` onto the joint with subspace `columns`, joint forces `tau` and
    /// the drives' `armature` on `D`'s diagonal; `None` if `D` is not
    /// positive definite.
    fn new(
        columns: [Motion; N],
        inertia: &ArticulatedInertia,
        bias: Force,
        tau: &[f64],
        armature: &[f64],
    ) -> Option<Projection<N>> {
        let u_columns = columns.map(|s| inertia.apply(s));
        let mut d = u_columns.map(|uk| columns.map(|sl| sl.dot(uk)));
        for (k, row) in d.iter_mut().enumerate() {
            row[k] += armature.get(k).copied().unwrap_or(0.0);
        }
        let factor = Cholesky::factor(&d)?;
        let u = std::array::from_fn(|k| tau.get(k).copied().unwrap_or(0.0) - columns[k].dot(bias));
        Some(Projection {
            columns,
            whitened: factor.forward(u_columns),
            whitened_u: factor.forward(u),
            factor,
        })
    }

    /// Removes the joint's free directions from `inertia`
    /// (`Iᵃ = Iᴬ − U D⁻¹ Uᵀ`) and returns `U D⁻¹ u`, the part of the bias
    /// force the joint forces transmit.
    fn project_out(&self, inertia: &mut ArticulatedInertia) -> Force {
        let mut transmitted = Force::default();
        for (&w, &y) in self.whitened.iter().zip(&self.whitened_u) {
            inertia.subtract_outer(w);
            transmitted += w.scaled(y);
        }
        transmitted
    }

    /// Appends the joint accelerations
    /// `q̈ᵢ = D⁻¹ (u − Uᵀ a) = L⁻ᵀ (L⁻¹ u − Wᵀ a)` to `qdd`, given the body's
    /// acceleration `a` before the joint moves, and returns the relative
    /// acceleration `S q̈ᵢ` they add.
    fn accelerations(&self, a: Motion, qdd: &mut Vec<f64>) -> Motion {
        let rhs = std::array::from_fn(|k| self.whitened_u[k] - a.dot(self.whitened[k]));
        let joint = self.factor.backward(rhs);
        qdd.extend(joint);
        self.columns
            .iter()
            .zip(joint)
            .fold(Motion::default(), |sum, (&s, x)| sum + s.scaled(x))
    }
}

/// A [`Projection`] of the size of the joint's subspace: one, three or six
/// free directions. The larger two are boxed so that trees of revolute and
/// prismatic joints (the common case, and the benchmarked one) store a small
/// record per body and allocate nothing per body.
enum JointProjection {
    /// A revolute or prismatic joint.
    One(Projection<1>),
    /// A spherical joint.
    Three(Box<Projection<3>>),
    /// A free joint.
    Six(Box<Projection<6>>),
}

impl JointProjection {
    /// [`Projection::new`] for the joint with subspace `subspace`.
    fn new(
        subspace: Subspace,
        inertia: &ArticulatedInertia,
        bias: Force,
        tau: &[f64],
        armature: &[f64],
    ) -> Option<JointProjection> {
        Some(match subspace {
            Subspace::Column(s) => {
                JointProjection::One(Projection::new([s], inertia, bias, tau, armature)?)
            }
            Subspace::Angular => JointProjection::Three(Box::new(Projection::new(
                joint::spherical_columns(),
                inertia,
                bias,
                tau,
                armature,
            )?)),
            Subspace::Free => JointProjection::Six(Box::new(Projection::new(
                joint::free_columns(),
                inertia,
                bias,
                tau,
                armature,
            )?)),
        })
    }

    /// [`Projection::project_out`].
    fn project_out(&self, inertia: &mut ArticulatedInertia) -> Force {
        match self {
            JointProjection::One(p) => p.project_out(inertia),
            JointProjection::Three(p) => p.project_out(inertia),
            JointProjection::Six(p) => p.project_out(inertia),
        }
    }

    /// [`Projection::accelerations`].
    fn accelerations(&self, a: Motion, qdd: &mut Vec<f64>) -> Motion {
        match self {
            JointProjection::One(p) => p.accelerations(a, qdd),
            JointProjection::Three(p) => p.accelerations(a, qdd),
            JointProjection::Six(p) => p.accelerations(a, qdd),
        }
    }
}

impl Tree {
    /// The accelerations `q̈ = M(q)⁻¹ (τ − C(q, q̇) q̇ − g(q))` produced by the
    /// joint forces `tau`, without forming `M`.
    ///
    /// Exists as the O(n) baseline simulations and benchmarks compare
    /// against, and to close the loop `ABA(RNEA(q̈)) = q̈` in tests. Fails
    /// with [`TreeError::SingularJoint`] if some joint has no inertia to
    /// accelerate in one of its free directions.
    pub fn forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
    ) -> Result<Vec<f64>, TreeError> {
        self.check(q, &[("qd", qd), ("tau", tau)])?;
        let transforms = self.joint_transforms(q);
        let velocities = self.velocities(&transforms, qd);
        // Outward: velocity-product accelerations c, rigid articulated
        // inertias and bias forces.
        let mut bias_accelerations = Vec::with_capacity(self.bodies.len());
        let mut inertias = Vec::with_capacity(self.bodies.len());
        let mut bias_forces = Vec::with_capacity(self.bodies.len());
        for ((body, &v), qdi) in self.bodies.iter().zip(&velocities).zip(self.v_chunks(qd)) {
            let inertia = body.spatial_inertia();
            bias_accelerations.push(v.cross_motion(body.motion_subspace().motion(qdi)));
            inertias.push(ArticulatedInertia::from(&inertia));
            bias_forces.push(v.cross_force(inertia.apply(v)));
        }
        // Inward: project each joint's free directions out of its articulated
        // inertia and hand the rest to the parent. `check` guarantees p < i
        // and one chunk of `tau` per body. The projections are stored in
        // reverse body order.
        let tau_chunks: Vec<&[f64]> = self.v_chunks(tau).collect();
        let offsets = self.v_offsets();
        let armature: Vec<Vec<f64>> = self
            .bodies
            .iter()
            .zip(&offsets)
            .map(|(body, &first)| {
                (first..first + body.joint.nv())
                    .map(|i| self.armature_at(i))
                    .collect()
            })
            .collect();
        let mut projections = Vec::with_capacity(self.bodies.len());
        for (i, body) in self.bodies.iter().enumerate().rev() {
            let projection = JointProjection::new(
                body.motion_subspace(),
                &inertias[i],
                bias_forces[i],
                tau_chunks[i],
                &armature[i],
            )
            .ok_or(TreeError::SingularJoint { body: i })?;
            if let Some(p) = body.parent {
                let mut projected = inertias[i];
                let transmitted = projection.project_out(&mut projected);
                let force = bias_forces[i] + transmitted + projected.apply(bias_accelerations[i]);
                inertias[p] += transforms[i].transpose_articulated(&projected);
                bias_forces[p] += transforms[i].transpose_force(force);
            }
            projections.push(projection);
        }
        // Outward: accelerations.
        let ground = self.ground_acceleration();
        let mut accelerations: Vec<Motion> = Vec::with_capacity(self.bodies.len());
        let mut qdd = Vec::with_capacity(qd.len());
        let outward = self
            .bodies
            .iter()
            .zip(&transforms)
            .zip(&bias_accelerations)
            .zip(projections.iter().rev());
        for (((body, transform), &c), projection) in outward {
            let parent = body.parent.map_or(ground, |p| accelerations[p]);
            let a = transform.apply_motion(parent) + c;
            let relative = projection.accelerations(a, &mut qdd);
            accelerations.push(a + relative);
        }
        Ok(qdd)
    }
}
