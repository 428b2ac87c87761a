//! The joint-space mass matrix by the composite-rigid-body algorithm (CRBA).

use crate::error::TreeError;
use crate::tree::Tree;

impl Tree {
    /// The symmetric positive-definite joint-space inertia matrix `M(q)`
    /// ([`Tree::nv`] × [`Tree::nv`]), as rows, in O(n·d) for tree depth d.
    ///
    /// Exists next to the O(n) algorithms because the generated mass-matrix
    /// code is checked against it and because `½ vᵀ M v` ties it to the
    /// kinetic energy. The drives' armature is on its diagonal.
    pub fn mass_matrix(&self, q: &[f64]) -> Result<Vec<Vec<f64>>, TreeError> {
        self.check(q, &[])?;
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
        let offsets = self.v_offsets();
        let n = self.nv();
        let mut m = vec![vec![0.0; n]; n];
        // Every index below is an offset plus a column number of that body's
        // subspace, so it is smaller than `n` by construction of `offsets`.
        for (i, body) in self.bodies.iter().enumerate() {
            let subspace = body.motion_subspace();
            for (k, &s) in subspace.columns().iter().enumerate() {
                let row = offsets[i] + k;
                // The force that accelerating coordinate `row` alone exerts
                // across joint i, carried inward to every ancestor joint j:
                // M[row][col] = S_col · F for each column of joint j.
                let mut f = composite[i].apply(s);
                for (l, value) in subspace.project(f).iter().enumerate() {
                    m[row][offsets[i] + l] = *value;
                }
                let mut j = i;
                while let Some(p) = self.bodies[j].parent {
                    f = transforms[j].transpose_force(f);
                    j = p;
                    let entries = self.bodies[j].motion_subspace().project(f);
                    for (l, &entry) in entries.iter().enumerate() {
                        let col = offsets[j] + l;
                        m[row][col] = entry;
                        m[col][row] = entry;
                    }
                }
            }
        }
        for (i, row) in m.iter_mut().enumerate() {
            row[i] += self.armature_at(i);
        }
        Ok(m)
    }
}
