//! Mass properties: rotating inertia tensors between frames, lumping rigidly
//! joined links into one body (parallel-axis theorem), checking that a
//! tensor is physical, and projecting a bad one to the nearest physical one.

use crate::geometry::{add, mul, mul_vec, scale, transpose, Mat3, Vec3};

/// Relative tolerance of the triangle-inequality check; the spec format's,
/// so that whatever passes here passes `sharnir-spec` too.
const TRIANGLE_TOLERANCE: f64 = 1e-9;

/// Smallest principal moment `--fix-inertia` leaves, relative to the largest.
const FLOOR_RELATIVE: f64 = 1e-6;

/// Smallest principal moment `--fix-inertia` leaves for a tensor that is zero
/// or nearly so, kg·m².
const FLOOR_ABSOLUTE: f64 = 1e-12;

/// A rigid mass distribution in some frame: mass, centre of mass, and the
/// inertia tensor about the centre of mass in that frame's axes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MassProperties {
    /// kg.
    pub mass: f64,
    /// m.
    pub com: Vec3,
    /// kg·m², about `com`.
    pub inertia: Mat3,
}

impl MassProperties {
    /// Nothing: the neutral element of [`MassProperties::lump`].
    pub fn zero() -> MassProperties {
        MassProperties {
            mass: 0.0,
            com: [0.0; 3],
            inertia: [[0.0; 3]; 3],
        }
    }

    /// The same distribution seen from an outer frame in which this frame
    /// has rotation `r` and origin `t`: `c' = t + R c`, `I' = R I Rᵀ`.
    pub fn placed(&self, r: &Mat3, t: Vec3) -> MassProperties {
        MassProperties {
            mass: self.mass,
            com: add(t, mul_vec(r, self.com)),
            inertia: rotate(r, &self.inertia),
        }
    }

    /// Two distributions in the same frame as one rigid body: masses add,
    /// the centre of mass is the weighted mean, and each inertia is carried
    /// to the common centre by the parallel-axis theorem,
    /// `I = Σ Iᵢ + mᵢ (|dᵢ|² E − dᵢ dᵢᵀ)` with `dᵢ = cᵢ − c`.
    pub fn lump(&self, other: &MassProperties) -> MassProperties {
        // A massless part needs no parallel-axis term and must not move the
        // centre by rounding.
        if other.mass == 0.0 || self.mass == 0.0 {
            let massive = if other.mass == 0.0 { self } else { other };
            return MassProperties {
                mass: massive.mass,
                com: massive.com,
                inertia: sum(&self.inertia, &other.inertia),
            };
        }
        let mass = self.mass + other.mass;
        let com = scale(
            1.0 / mass,
            add(scale(self.mass, self.com), scale(other.mass, other.com)),
        );
        let shifted = |part: &MassProperties| {
            let d = add(part.com, scale(-1.0, com));
            sum(&part.inertia, &point_inertia(part.mass, d))
        };
        MassProperties {
            mass,
            com,
            inertia: sum(&shifted(self), &shifted(other)),
        }
    }
}

/// `R I Rᵀ`: a tensor given in a frame rotated by `r`, in the outer axes.
pub(crate) fn rotate(r: &Mat3, inertia: &Mat3) -> Mat3 {
    mul(&mul(r, inertia), &transpose(r))
}

/// The inertia of a point mass `m` at `d`: `m (|d|² E − d dᵀ)`.
fn point_inertia(m: f64, d: Vec3) -> Mat3 {
    let d2: f64 = d.iter().map(|x| x * x).sum();
    std::array::from_fn(|i| {
        std::array::from_fn(|k| m * (if i == k { d2 } else { 0.0 } - d[i] * d[k]))
    })
}

fn sum(a: &Mat3, b: &Mat3) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|k| a[i][k] + b[i][k]))
}

/// Why a tensor cannot be a rigid body's inertia about its centre of mass.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Defect {
    /// Some principal moment is zero or negative (moments ascending).
    NotPositiveDefinite([f64; 3]),
    /// `I₁ + I₂ < I₃` for the ascending principal moments.
    Triangle([f64; 3]),
}

/// Checks the tensor the way `sharnir-spec` does: positive definite, and
/// principal moments meeting the triangle inequality within
/// [`TRIANGLE_TOLERANCE`].
pub(crate) fn defect(inertia: &Mat3) -> Option<Defect> {
    let (moments, _) = principal_axes(inertia);
    let [smallest, middle, largest] = moments;
    if smallest <= 0.0 {
        Some(Defect::NotPositiveDefinite(moments))
    } else if largest - (smallest + middle) > TRIANGLE_TOLERANCE * largest {
        Some(Defect::Triangle(moments))
    } else {
        None
    }
}

/// The nearest physical tensor with the same principal axes: principal
/// moments clamped up to a small positive floor, then, if `I₁ + I₂ < I₃`,
/// moved by the least amount onto `I₁ + I₂ = I₃` (the Euclidean projection
/// onto that plane adds `v/3` to `I₁` and `I₂` and takes it from `I₃`, for
/// the violation `v`). Returns the tensor and its new principal moments.
pub(crate) fn project(inertia: &Mat3) -> (Mat3, [f64; 3]) {
    let (moments, axes) = principal_axes(inertia);
    let largest = moments.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let floor = (FLOOR_RELATIVE * largest).max(FLOOR_ABSOLUTE);
    let [a, b, c] = moments.map(|x| x.max(floor));
    let violation = (c - a - b).max(0.0);
    let fixed = [
        a + violation / 3.0,
        b + violation / 3.0,
        c - violation / 3.0,
    ];
    // axes has the principal directions as columns: I = V diag(λ) Vᵀ.
    let tensor = std::array::from_fn(|i| {
        std::array::from_fn(|k| (0..3).map(|j| axes[i][j] * fixed[j] * axes[k][j]).sum())
    });
    (tensor, fixed)
}

/// Principal moments (ascending) and axes (the matching unit eigenvectors
/// as columns) of a symmetric tensor, by cyclic Jacobi rotations: simple and
/// accurate to rounding for 3×3 tensors.
pub(crate) fn principal_axes(m: &Mat3) -> ([f64; 3], Mat3) {
    let mut a = *m;
    let mut v = crate::geometry::IDENTITY;
    let norm = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..64 {
        let off = (a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]).sqrt();
        if off <= f64::EPSILON * 1e-3 * norm {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if let Some(j) = jacobi_rotation(&a, p, q) {
                a = mul(&mul(&transpose(&j), &a), &j);
                v = mul(&v, &j);
            }
        }
    }
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &k| a[i][i].total_cmp(&a[k][k]));
    let moments = order.map(|i| a[i][i]);
    let axes = std::array::from_fn(|row| order.map(|column| v[row][column]));
    (moments, axes)
}

/// The rotation `J` such that `(Jᵀ A J)[p][q] = 0`, or `None` if it is zero
/// already.
fn jacobi_rotation(a: &Mat3, p: usize, q: usize) -> Option<Mat3> {
    let apq = a[p][q];
    if apq == 0.0 {
        return None;
    }
    let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    let t = theta.signum() / (theta.abs() + theta.hypot(1.0));
    let c = 1.0 / t.hypot(1.0);
    let s = t * c;
    let mut j = crate::geometry::IDENTITY;
    j[p][p] = c;
    j[q][q] = c;
    j[p][q] = s;
    j[q][p] = -s;
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{elementary, Axis};

    fn assert_close(got: &Mat3, want: &Mat3, tolerance: f64) {
        for (g, w) in got.iter().flatten().zip(want.iter().flatten()) {
            assert!((g - w).abs() <= tolerance, "{got:?}\n vs {want:?}");
        }
    }

    #[test]
    fn rotating_a_rod_moves_its_long_axis() {
        // A thin rod along x: I = diag(0, 1, 1)·k. Rotated by +90° about z the
        // rod lies along y, so the small moment moves to yy.
        let rod = [[0.01, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let r = elementary(Axis::Z, std::f64::consts::FRAC_PI_2);
        let rotated = rotate(&r, &rod);
        assert_close(
            &rotated,
            &[[1.0, 0.0, 0.0], [0.0, 0.01, 0.0], [0.0, 0.0, 1.0]],
            1e-15,
        );
    }

    #[test]
    fn rotation_by_an_angle_mixes_moments_into_products() {
        // diag(a, b, c) rotated by θ about z: xx = a cos² + b sin², xy = (a − b) sin cos.
        let (a, b, c, theta) = (1.0, 3.0, 2.0, 0.4_f64);
        let rotated = rotate(
            &elementary(Axis::Z, theta),
            &[[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]],
        );
        let (s, co) = theta.sin_cos();
        let want = [
            [a * co * co + b * s * s, (a - b) * s * co, 0.0],
            [(a - b) * s * co, a * s * s + b * co * co, 0.0],
            [0.0, 0.0, c],
        ];
        assert_close(&rotated, &want, 1e-15);
    }

    #[test]
    fn lumping_two_point_masses_by_hand() {
        // 1 kg at (0, 0, 0) and 3 kg at (4, 0, 0), each with I = diag(1, 1, 1):
        // centre at x = 3; distances 3 and 1 along x, so
        // I = 2·E + diag(0, 1·9 + 3·1, 1·9 + 3·1) = diag(2, 14, 14).
        let a = MassProperties {
            mass: 1.0,
            com: [0.0; 3],
            inertia: crate::geometry::IDENTITY,
        };
        let b = MassProperties {
            mass: 3.0,
            com: [4.0, 0.0, 0.0],
            inertia: crate::geometry::IDENTITY,
        };
        let both = a.lump(&b);
        assert_eq!(both.mass, 4.0);
        assert_close(&[both.com; 3], &[[3.0, 0.0, 0.0]; 3], 1e-15);
        assert_close(
            &both.inertia,
            &[[2.0, 0.0, 0.0], [0.0, 14.0, 0.0], [0.0, 0.0, 14.0]],
            1e-14,
        );
    }

    #[test]
    fn lumping_an_offset_mass_gives_products_of_inertia() {
        // A 2 kg point at (1, 2, 0) lumped with a 2 kg point at (−1, −2, 0):
        // centre at 0, I = Σ m (|d|² E − d dᵀ) = 2·2·[[4, −2, 0], [−2, 1, 0], [0, 0, 5]].
        let point = |x: f64, y: f64| MassProperties {
            mass: 2.0,
            com: [x, y, 0.0],
            inertia: [[0.0; 3]; 3],
        };
        let both = point(1.0, 2.0).lump(&point(-1.0, -2.0));
        assert_close(
            &both.inertia,
            &[[16.0, -8.0, 0.0], [-8.0, 4.0, 0.0], [0.0, 0.0, 20.0]],
            1e-14,
        );
        assert_eq!(
            MassProperties::zero().lump(&point(1.0, 2.0)),
            point(1.0, 2.0)
        );
    }

    #[test]
    fn placed_moves_the_centre_and_rotates_the_tensor() {
        let part = MassProperties {
            mass: 1.5,
            com: [1.0, 0.0, 0.0],
            inertia: [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]],
        };
        let r = elementary(Axis::Z, std::f64::consts::FRAC_PI_2);
        let placed = part.placed(&r, [0.0, 0.0, 2.0]);
        assert_close(&[placed.com; 3], &[[0.0, 1.0, 2.0]; 3], 1e-15);
        assert_close(
            &placed.inertia,
            &[[0.2, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.3]],
            1e-15,
        );
    }

    #[test]
    fn principal_axes_diagonalise() {
        let m = rotate(
            &mul(&elementary(Axis::Z, 0.3), &elementary(Axis::X, 1.1)),
            &[[1.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 2.0]],
        );
        let (moments, axes) = principal_axes(&m);
        for (got, want) in moments.iter().zip([1.0, 2.0, 4.0]) {
            assert!((got - want).abs() < 1e-14, "{moments:?}");
        }
        let back = std::array::from_fn(|i| {
            std::array::from_fn(|k| (0..3).map(|j| axes[i][j] * moments[j] * axes[k][j]).sum())
        });
        assert_close(&back, &m, 1e-14);
    }

    #[test]
    fn defects_are_detected_like_the_spec_does() {
        let diag = |a: f64, b: f64, c: f64| [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]];
        assert_eq!(defect(&diag(1.0, 2.0, 3.0)), None, "flat bodies pass");
        assert_eq!(
            defect(&diag(1.0, 1.0, 3.0)),
            Some(Defect::Triangle([1.0, 1.0, 3.0]))
        );
        assert_eq!(
            defect(&diag(0.0, 1.0, 1.0)),
            Some(Defect::NotPositiveDefinite([0.0, 1.0, 1.0]))
        );
    }

    #[test]
    fn projection_fixes_with_the_least_change() {
        // Triangle violation v = 3 − 1 − 1 = 1: moments move by v/3 each.
        let (fixed, moments) = project(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]);
        let third = 1.0 / 3.0;
        for (got, want) in moments.iter().zip([1.0 + third, 1.0 + third, 3.0 - third]) {
            assert!((got - want).abs() < 1e-15, "{moments:?}");
        }
        assert_eq!(defect(&fixed), None);
        // A zero tensor (a point mass) becomes a tiny sphere.
        let (fixed, moments) = project(&[[0.0; 3]; 3]);
        assert_eq!(moments, [FLOOR_ABSOLUTE; 3]);
        assert_eq!(defect(&fixed), None);
        // A negative moment is clamped to the floor relative to the largest,
        // keeping the principal axes of a rotated tensor.
        let r = elementary(Axis::Y, 0.7);
        let bad = rotate(&r, &[[-0.1, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]);
        let (fixed, moments) = project(&bad);
        assert_eq!(defect(&fixed), None);
        let want = rotate(&r, &[[2e-6, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]);
        assert_close(&fixed, &want, 1e-14);
        assert!((moments[0] - 2e-6).abs() < 1e-15, "{moments:?}");
        // A valid tensor is unchanged.
        let good = rotate(&r, &[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.5]]);
        assert_close(&project(&good).0, &good, 1e-14);
    }
}
