//! The joint-space mass matrix by the composite-rigid-body algorithm (CRBA).

use crate::error::TreeError;
use crate::tree::Tree;

impl Tree {
    /// The symmetric positive-definite joint-space inertia matrix `M(q)`, as
    /// rows, in O(n·d) for tree depth d.
    ///
    /// Exists next to the O(n) algorithms because the generated mass-matrix
    /// code is checked against it and because `½ q̇ᵀ M q̇` ties it to the
    /// kinetic energy.
    pub fn mass_matrix(&self, q: &[f64]) -> Result<Vec<Vec<f64>>, TreeError> {
        self.check(&[("q", q)])?;
        let transforms = self.joint_transforms(q);
        // Composite inertias: each body plus everything outboard of it.
        let mut composite: Vec<_> = self.bodies.iter().map(|b| b.spatial_inertia()).collect();
        for (i, body) in self.bodies.iter().enumerate().rev() {
            if let Some(p) = body.parent {
                // `check` guarantees p < i < n.
                let carried = transforms[i].transpose_rigid(&composite[i]);
                composite[p] += carried;
            }
        }
        let n = self.dof();
        let mut m = vec![vec![0.0; n]; n];
        for (i, body) in self.bodies.iter().enumerate() {
            // The force that accelerating joint i alone exerts across joint i,
            // carried inward to every ancestor joint j: M[i][j] = Sⱼ · F.
            let mut f = composite[i].apply(body.motion_subspace());
            m[i][i] = body.motion_subspace().dot(f);
            let mut j = i;
            while let Some(p) = self.bodies[j].parent {
                f = transforms[j].transpose_force(f);
                j = p;
                let entry = self.bodies[j].motion_subspace().dot(f);
                m[i][j] = entry;
                m[j][i] = entry;
            }
        }
        Ok(m)
    }
}
