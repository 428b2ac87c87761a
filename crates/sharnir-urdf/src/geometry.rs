//! Rigid placements: URDF's roll–pitch–yaw, rotation matrices and their
//! composition, kept both as numbers (for lumping inertias) and as the chain
//! of elementary rotations the URDF wrote (so the spec keeps exact angles).

/// A 3-vector.
pub(crate) type Vec3 = [f64; 3];
/// A 3×3 matrix by rows.
pub(crate) type Mat3 = [[f64; 3]; 3];

/// The identity matrix.
pub(crate) const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A coordinate axis of an elementary rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    /// The spec's name of the axis.
    pub fn letter(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// The rotation by `angle` radians about a coordinate axis.
pub(crate) fn elementary(axis: Axis, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    match axis {
        Axis::X => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        Axis::Y => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        Axis::Z => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

/// `a · b`.
pub(crate) fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|k| (0..3).map(|j| a[i][j] * b[j][k]).sum()))
}

/// `m · v`.
pub(crate) fn mul_vec(m: &Mat3, v: Vec3) -> Vec3 {
    std::array::from_fn(|i| (0..3).map(|j| m[i][j] * v[j]).sum())
}

/// `mᵀ`.
pub(crate) fn transpose(m: &Mat3) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|k| m[k][i]))
}

/// `a + b`.
pub(crate) fn add(a: Vec3, b: Vec3) -> Vec3 {
    std::array::from_fn(|i| a[i] + b[i])
}

/// `s · v`.
pub(crate) fn scale(s: f64, v: Vec3) -> Vec3 {
    v.map(|x| s * x)
}

/// A frame placed in another: `p_outer = translation + R · p_inner`, with
/// `R` the product of `rotations` in order (about the moving axes).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placement {
    /// Origin of the inner frame in the outer frame.
    pub translation: Vec3,
    /// The rotation as written: elementary rotations with non-zero angles.
    pub rotations: Vec<(Axis, f64)>,
    /// The same rotation as a matrix.
    pub matrix: Mat3,
}

impl Placement {
    /// The identity placement.
    pub fn identity() -> Placement {
        Placement {
            translation: [0.0; 3],
            rotations: Vec::new(),
            matrix: IDENTITY,
        }
    }

    /// URDF's `<origin xyz rpy>`: fixed-axis roll, pitch, yaw, that is
    /// `R = Rz(yaw) · Ry(pitch) · Rx(roll)`.
    pub fn from_xyz_rpy(xyz: Vec3, [roll, pitch, yaw]: Vec3) -> Placement {
        Placement::from_rotations(xyz, &[(Axis::Z, yaw), (Axis::Y, pitch), (Axis::X, roll)])
    }

    /// Elementary rotations about the moving axes, multiplied in order;
    /// zero angles are left out.
    fn from_rotations(translation: Vec3, rotations: &[(Axis, f64)]) -> Placement {
        let rotations: Vec<(Axis, f64)> = rotations
            .iter()
            .copied()
            .filter(|&(_, angle)| angle != 0.0)
            .collect();
        let matrix = rotations.iter().fold(IDENTITY, |r, &(axis, angle)| {
            mul(&r, &elementary(axis, angle))
        });
        Placement {
            translation,
            rotations,
            matrix,
        }
    }

    /// A pure rotation `Rz(φ) · Ry(θ)` that turns the z axis onto the
    /// direction of `axis` (non-zero; its length does not matter): `θ` is
    /// the angle between z and the axis, `φ` the azimuth of the axis. The
    /// spec's planar joint moves in its frame's x–y plane, URDF's in the
    /// plane normal to the axis; this is the turn between the two. The
    /// coordinate axes come out with exact angles (`x`: `Ry(π/2)`, `−z`:
    /// `Ry(π)`, `z`: the identity).
    pub fn z_onto(axis: Vec3) -> Placement {
        let [x, y, z] = axis;
        let across = x.hypot(y);
        let tilt = across.atan2(z);
        let azimuth = if across == 0.0 { 0.0 } else { y.atan2(x) };
        Placement::from_rotations([0.0; 3], &[(Axis::Z, azimuth), (Axis::Y, tilt)])
    }

    /// The placement of the outer frame in the inner one:
    /// `p_inner = −Rᵀ t + Rᵀ p_outer`, its rotations reversed and negated.
    pub fn inverse(&self) -> Placement {
        let matrix = transpose(&self.matrix);
        Placement {
            translation: scale(-1.0, mul_vec(&matrix, self.translation)),
            rotations: self
                .rotations
                .iter()
                .rev()
                .map(|&(axis, angle)| (axis, -angle))
                .collect(),
            matrix,
        }
    }

    /// `self ∘ inner`: the placement of a frame given in `inner`'s outer
    /// frame, which is itself placed by `self`.
    pub fn then(&self, inner: &Placement) -> Placement {
        let mut rotations = self.rotations.clone();
        rotations.extend_from_slice(&inner.rotations);
        Placement {
            translation: add(self.translation, mul_vec(&self.matrix, inner.translation)),
            rotations,
            matrix: mul(&self.matrix, &inner.matrix),
        }
    }

    /// The rotation as URDF roll, pitch, yaw when it is written as one
    /// (its axes are z, y, x in this order, each at most once), which reads
    /// better in the spec than a chain of rotations.
    pub fn as_rpy(&self) -> Option<Vec3> {
        let mut rpy = [0.0; 3];
        let mut slots = [(Axis::Z, 2), (Axis::Y, 1), (Axis::X, 0)].into_iter();
        for &(axis, angle) in &self.rotations {
            let (_, index) = slots.by_ref().find(|&(a, _)| a == axis)?;
            rpy[index] = angle;
        }
        Some(rpy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Mat3, b: &Mat3, tolerance: f64) -> bool {
        a.iter()
            .flatten()
            .zip(b.iter().flatten())
            .all(|(x, y)| (x - y).abs() <= tolerance)
    }

    #[test]
    fn rpy_is_fixed_axis_roll_pitch_yaw() {
        // Roll π/2 about x turns y into z; then yaw π/2 about the fixed z turns
        // x into y. So the body x axis ends on world y and body y on world z.
        let p = Placement::from_xyz_rpy(
            [0.0; 3],
            [
                std::f64::consts::FRAC_PI_2,
                0.0,
                std::f64::consts::FRAC_PI_2,
            ],
        );
        let x = mul_vec(&p.matrix, [1.0, 0.0, 0.0]);
        let y = mul_vec(&p.matrix, [0.0, 1.0, 0.0]);
        for (got, want) in [(x, [0.0, 1.0, 0.0]), (y, [0.0, 0.0, 1.0])] {
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-15, "{got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn rpy_matches_the_closed_form() {
        // R = Rz(y) Ry(p) Rx(r) written out (e.g. ROS tf's getRPY inverse).
        let (r, p, y) = (0.3_f64, -0.7_f64, 1.9_f64);
        let (sr, cr) = r.sin_cos();
        let (sp, cp) = p.sin_cos();
        let (sy, cy) = y.sin_cos();
        let expected = [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ];
        let placement = Placement::from_xyz_rpy([0.0; 3], [r, p, y]);
        assert!(
            close(&placement.matrix, &expected, 1e-15),
            "{:?}",
            placement.matrix
        );
        assert_eq!(placement.as_rpy(), Some([r, p, y]));
    }

    #[test]
    fn zero_angles_are_dropped_and_identity_is_empty() {
        let p = Placement::from_xyz_rpy([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]);
        assert!(p.rotations.is_empty());
        assert_eq!(p.matrix, IDENTITY);
        let yaw = Placement::from_xyz_rpy([0.0; 3], [0.0, 0.0, 0.5]);
        assert_eq!(yaw.rotations, vec![(Axis::Z, 0.5)]);
        assert_eq!(yaw.as_rpy(), Some([0.0, 0.0, 0.5]));
    }

    #[test]
    fn z_turns_onto_the_axis_and_back() {
        let z = [0.0, 0.0, 1.0];
        for axis in [
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.3, -0.4, 0.5],
            [-1e-9, 0.0, 1.0],
        ] {
            let length = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            let turn = Placement::z_onto(axis);
            let onto = mul_vec(&turn.matrix, z);
            for (got, want) in onto.iter().zip(axis) {
                assert!((got - want / length).abs() < 1e-15, "{axis:?}: {onto:?}");
            }
            let back = turn.then(&turn.inverse());
            assert!(close(&back.matrix, &IDENTITY, 1e-15), "{axis:?}");
            let chain = back.rotations.iter().fold(IDENTITY, |r, &(axis, angle)| {
                mul(&r, &elementary(axis, angle))
            });
            assert!(close(&chain, &IDENTITY, 1e-15), "{axis:?}");
        }
        let half = std::f64::consts::FRAC_PI_2;
        assert_eq!(Placement::z_onto(z).rotations, []);
        assert_eq!(
            Placement::z_onto([1.0, 0.0, 0.0]).rotations,
            [(Axis::Y, half)]
        );
        assert_eq!(
            Placement::z_onto([0.0, 0.0, -1.0]).rotations,
            [(Axis::Y, std::f64::consts::PI)]
        );
    }

    #[test]
    fn inverse_undoes_a_placement() {
        let p = Placement::from_xyz_rpy([1.0, -2.0, 0.5], [0.2, -0.3, 1.1]);
        let point = [0.4, 0.1, -0.7];
        let there = add(p.translation, mul_vec(&p.matrix, point));
        let inverse = p.inverse();
        let back = add(inverse.translation, mul_vec(&inverse.matrix, there));
        for (b, x) in back.iter().zip(point) {
            assert!((b - x).abs() < 1e-15, "{back:?} vs {point:?}");
        }
    }

    #[test]
    fn composition_places_points_through_both_frames() {
        let outer = Placement::from_xyz_rpy([1.0, 0.0, 0.5], [0.2, 0.0, -1.0]);
        let inner = Placement::from_xyz_rpy([0.0, 0.3, 0.0], [0.0, 0.4, 0.1]);
        let both = outer.then(&inner);
        let point = [0.1, -0.2, 0.7];
        let via_inner = mul_vec(&inner.matrix, point);
        let via_outer = mul_vec(&outer.matrix, add(inner.translation, via_inner));
        let expected = add(outer.translation, via_outer);
        let got = add(both.translation, mul_vec(&both.matrix, point));
        for (g, e) in got.iter().zip(expected) {
            assert!((g - e).abs() < 1e-15, "{got:?} vs {expected:?}");
        }
        // The chain keeps both rotations, so it is no longer a single rpy.
        assert_eq!(both.rotations.len(), 4);
        assert_eq!(both.as_rpy(), None);
        let chain = both.rotations.iter().fold(IDENTITY, |r, &(axis, angle)| {
            mul(&r, &elementary(axis, angle))
        });
        assert!(close(&chain, &both.matrix, 1e-15));
        assert!(close(
            &mul(&both.matrix, &transpose(&both.matrix)),
            &IDENTITY,
            1e-15
        ));
    }
}
