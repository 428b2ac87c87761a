//! How near a closed mechanism is to a singular configuration: one where
//! its constraint Jacobian `J` loses rank (a four-bar folded flat, a Delta
//! leg stretched), and the constrained dynamics divide by nearly zero.
//!
//! Rows that are redundant everywhere (a planar loop of spatial joints, a
//! parallelogram) make `J` rank-deficient in every configuration, so the
//! measure is the singular value of `J` at the mechanism's generic rank
//! `NV − (degrees of freedom)`, relative to the largest: one in a
//! well-conditioned configuration, zero at a singular one. The singular
//! values are the square roots of the eigenvalues of `J Jᵀ` (`NC × NC`),
//! found by Jacobi rotations, without an allocator.
//!
//! A tree whose bodies have positive-definite inertias has a positive
//! definite mass matrix everywhere, but one far from it in scale (a point
//! mass on a spherical joint, a massless base carrying a feather) divides
//! the forward dynamics by nearly zero just the same: the mass matrix's
//! smallest eigenvalue relative to its largest says how near, and its
//! eigenvector along which coordinate.

use crate::{LoopClosure, Model, Real};

/// `σ_r / σ_1` of the constraint Jacobian at `q`, `r` the generic rank
/// (`NV` less the independent coordinates; `NC` for a model that names
/// none): how far `q` is from a singular configuration of the loops.
pub fn closure_conditioning<M, const NQ: usize, const NV: usize, const NC: usize>(
    model: &M,
    q: &[M::Real; NQ],
) -> M::Real
where
    M: LoopClosure<NQ, NV, NC>,
{
    let jacobian = model.constraint_jacobian(q);
    let mut gram: [[M::Real; NC]; NC] = core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            (0..NV).fold(M::Real::ZERO, |s, k| s + jacobian[i][k] * jacobian[j][k])
        })
    });
    let mut eigenvalues = symmetric_eigenvalues(&mut gram, None);
    eigenvalues.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap_or(core::cmp::Ordering::Equal));
    let rank = if M::INDEPENDENT.is_empty() {
        NC
    } else {
        NV.saturating_sub(M::INDEPENDENT.len()).min(NC)
    };
    match (
        eigenvalues.first(),
        rank.checked_sub(1).and_then(|r| eigenvalues.get(r)),
    ) {
        (Some(&largest), Some(&at_rank)) if largest > M::Real::ZERO => {
            let ratio = at_rank / largest;
            if ratio > M::Real::ZERO {
                ratio.sqrt()
            } else {
                M::Real::ZERO
            }
        }
        _ => M::Real::ONE,
    }
}

/// `λ_min / λ_max` of the mass matrix at `q` over the coordinates a run
/// integrates (the prescribed ones left out), and the velocity coordinate
/// with the largest component in the eigenvector of `λ_min`: how near the
/// forward dynamics is to dividing by zero, and along what. One for a
/// model whose coordinates are all prescribed; `NV³` work, for a check
/// at the start of a run and where it fails, not at every step.
pub fn mass_matrix_conditioning<M, const NQ: usize, const NV: usize>(
    model: &M,
    q: &[M::Real; NQ],
) -> (M::Real, usize)
where
    M: Model<NQ, NV>,
{
    let free = |k: usize| !M::PRESCRIBED.contains(&k);
    if !(0..NV).any(free) {
        return (M::Real::ONE, 0);
    }
    let mut mass = model.mass_matrix(q);
    let largest = (0..NV).filter(|&k| free(k)).fold(M::Real::ZERO, |m, k| {
        if mass[k][k] > m {
            mass[k][k]
        } else {
            m
        }
    });
    // A prescribed coordinate's row and column decoupled, with the free
    // block's largest diagonal entry: between its eigenvalues, so neither
    // extreme changes.
    for k in (0..NV).filter(|&k| !free(k)) {
        mass[k] = [M::Real::ZERO; NV];
        for row in mass.iter_mut() {
            row[k] = M::Real::ZERO;
        }
        mass[k][k] = largest;
    }
    let mut vectors: [[M::Real; NV]; NV] = core::array::from_fn(|i| {
        core::array::from_fn(|j| if i == j { M::Real::ONE } else { M::Real::ZERO })
    });
    let values = symmetric_eigenvalues(&mut mass, Some(&mut vectors));
    let (Some(low), Some(high)) = (
        (0..NV).reduce(|a, b| if values[b] < values[a] { b } else { a }),
        (0..NV).reduce(|a, b| if values[b] > values[a] { b } else { a }),
    ) else {
        return (M::Real::ONE, 0);
    };
    if values[high] <= M::Real::ZERO || largest <= M::Real::ZERO {
        return (M::Real::ZERO, low);
    }
    let leading = (0..NV)
        .reduce(|a, b| {
            if vectors[b][low].abs() > vectors[a][low].abs() {
                b
            } else {
                a
            }
        })
        .unwrap_or(0);
    let ratio = values[low] / values[high];
    (
        if ratio > M::Real::ZERO {
            ratio
        } else {
            M::Real::ZERO
        },
        leading,
    )
}

/// The eigenvalues of the symmetric matrix `a` (destroyed), by cyclic
/// Jacobi rotations; with `vectors` (the identity on entry), the
/// eigenvectors as its columns, in the eigenvalues' order.
fn symmetric_eigenvalues<R: Real, const N: usize>(
    a: &mut [[R; N]; N],
    mut vectors: Option<&mut [[R; N]; N]>,
) -> [R; N] {
    let two = R::from_f64(2.0);
    for _sweep in 0..50 {
        let off = (0..N)
            .flat_map(|i| (0..N).filter(move |&j| j != i).map(move |j| (i, j)))
            .fold(R::ZERO, |s, (i, j)| s + a[i][j] * a[i][j]);
        let scale = (0..N).fold(R::ZERO, |s, i| s + a[i][i] * a[i][i]);
        if off <= R::EPSILON * R::EPSILON * scale || off == R::ZERO {
            break;
        }
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q] == R::ZERO {
                    continue;
                }
                // t = tan of the rotation angle, the smaller root.
                let theta = (a[q][q] - a[p][p]) / (two * a[p][q]);
                let root = (theta * theta + R::ONE).sqrt();
                let t = if theta >= R::ZERO {
                    R::ONE / (theta + root)
                } else {
                    -R::ONE / (-theta + root)
                };
                let c = R::ONE / (t * t + R::ONE).sqrt();
                let s = t * c;
                let rows = a
                    .iter_mut()
                    .chain(vectors.iter_mut().flat_map(|v| v.iter_mut()));
                for row in rows {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (row_p, row_q) = (a[p], a[q]);
                for (k, (&apk, &aqk)) in row_p.iter().zip(&row_q).enumerate() {
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
        }
    }
    core::array::from_fn(|i| a[i][i])
}

#[cfg(test)]
mod tests {
    use super::{mass_matrix_conditioning, symmetric_eigenvalues};
    use crate::Model;

    /// The coordinates [`TwoMasses`]`<P>` drives by their laws: none, the
    /// light one, both.
    const DRIVEN: [&[usize]; 3] = [&[], &[0], &[0, 1]];

    /// Two uncoupled coordinates with inertias `light` and 1, the
    /// coordinates `DRIVEN[P]` lists driven by their laws.
    struct TwoMasses<const P: usize> {
        light: f64,
    }

    impl<const P: usize> Model<2, 2> for TwoMasses<P> {
        type Real = f64;
        type Params = ();
        const NAME: &'static str = "two_masses";
        const POSITION_NAMES: [&'static str; 2] = ["a", "b"];
        const VELOCITY_NAMES: [&'static str; 2] = ["a", "b"];
        const QUATERNIONS: &'static [usize] = &[];
        const HAS_APPLIED_FORCES: bool = false;
        const PRESCRIBED: &'static [usize] = DRIVEN[P];
        fn params(&self) -> &() {
            &()
        }
        fn initial_positions(&self) -> [f64; 2] {
            [0.0; 2]
        }
        fn initial_velocities(&self) -> [f64; 2] {
            [0.0; 2]
        }
        fn forward_dynamics(&self, _: &[f64; 2], _: &[f64; 2], tau: &[f64; 2]) -> [f64; 2] {
            [tau[0] / self.light, tau[1]]
        }
        fn coordinate_rates(&self, _: &[f64; 2], qd: &[f64; 2]) -> [f64; 2] {
            *qd
        }
        fn energy(&self, _: &[f64; 2], qd: &[f64; 2]) -> (f64, f64) {
            (0.5 * (self.light * qd[0] * qd[0] + qd[1] * qd[1]), 0.0)
        }
        fn mass_matrix(&self, _: &[f64; 2]) -> [[f64; 2]; 2] {
            [[self.light, 0.0], [0.0, 1.0]]
        }
        fn coriolis_matrix(&self, _: &[f64; 2], _: &[f64; 2]) -> [[f64; 2]; 2] {
            [[0.0; 2]; 2]
        }
        fn gravity(&self, _: &[f64; 2]) -> [f64; 2] {
            [0.0; 2]
        }
    }

    #[test]
    fn the_conditioning_covers_the_free_coordinates_only() {
        let light = 1e-12;
        let (ratio, leading) = mass_matrix_conditioning(&TwoMasses::<0> { light }, &[0.0; 2]);
        assert!((ratio - light).abs() < 1e-24, "{ratio}");
        assert_eq!(leading, 0);
        // The light coordinate driven by its law: nothing left to divide by it.
        let (ratio, _) = mass_matrix_conditioning(&TwoMasses::<1> { light }, &[0.0; 2]);
        assert_eq!(ratio, 1.0);
        // Every coordinate driven: no forward dynamics, so nothing near-singular.
        let (ratio, _) = mass_matrix_conditioning(&TwoMasses::<2> { light: 0.0 }, &[0.0; 2]);
        assert_eq!(ratio, 1.0);
    }

    #[test]
    fn jacobi_finds_the_eigenvalues() {
        let mut a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 1.0]];
        let original = a;
        let mut vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let mut values = symmetric_eigenvalues(&mut a, Some(&mut vectors));
        // A v = λ v for every column.
        for (j, &l) in values.iter().enumerate() {
            for i in 0..3 {
                let av: f64 = (0..3).map(|k| original[i][k] * vectors[k][j]).sum();
                assert!((av - l * vectors[i][j]).abs() < 1e-12, "column {j}");
            }
        }
        values.sort_by(f64::total_cmp);
        let trace: f64 = values.iter().sum();
        assert!((trace - 8.0).abs() < 1e-12);
        for &l in &values {
            // det(A − λ I) = 0.
            let m = |i: usize, j: usize| original[i][j] - if i == j { l } else { 0.0 };
            let det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
                - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
                + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
            assert!(det.abs() < 1e-10, "λ = {l}: det {det}");
        }
    }
}
