//! Physical consistency of a rigid body's inertial parameters, and the
//! conversions between the forms they are written in.
//!
//! A body's ten standard parameters (Pinocchio's order: `m`, `m·c`, then the
//! inertia about the body origin `xx, xy, yy, xz, yz, zz`) are what the
//! regressors are linear in; a spec writes the mass, the centre of mass and
//! the inertia about the centre of mass instead ([`MassProperties`]). The
//! parameters are those of a real mass distribution exactly when the
//! pseudo-inertia matrix `J = [[Σ, h], [hᵀ, m]]`, `Σ = ½ tr(I_o) 1 − I_o`
//! (the second moment `∫ r rᵀ dm`), is positive definite (Wensing, Kim and
//! Slotine, 2017): a positive mass, and an inertia about the centre of mass
//! whose principal moments satisfy the triangle inequalities strictly, which
//! makes it positive definite. [`violations`] says which of these fail, by
//! the rule spec validation applies (`docs/spec-format.md`), and
//! [`PseudoInertia`] projects a body onto the set of consistent ones.

use std::fmt;

/// Relative tolerance of the triangle inequality, as spec validation's: a
/// flat body (`I₁ + I₂ = I₃`) passes.
const TRIANGLE_TOLERANCE: f64 = 1e-9;

/// A body's mass properties as a spec writes them: what `--write-spec`
/// prints and what the consistency rules read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassProperties {
    /// Mass, kg.
    pub(crate) mass: f64,
    /// Centre of mass in the body frame, m.
    pub(crate) com: [f64; 3],
    /// Inertia about the centre of mass, body axes, kg·m².
    pub(crate) inertia: [[f64; 3]; 3],
}

impl MassProperties {
    /// The ten standard parameters: `m`, `m·c`, and the inertia about the
    /// body origin, `I_o = I_c + m (|c|² 1 − c cᵀ)`, in Pinocchio's order.
    pub(crate) fn standard(&self) -> [f64; 10] {
        let (m, c) = (self.mass, self.com);
        let squared = c.iter().map(|x| x * x).sum::<f64>();
        let origin = |i: usize, k: usize| {
            let delta = if i == k { squared } else { 0.0 };
            self.inertia[i][k] + m * (delta - c[i] * c[k])
        };
        [
            m,
            m * c[0],
            m * c[1],
            m * c[2],
            origin(0, 0),
            origin(0, 1),
            origin(1, 1),
            origin(0, 2),
            origin(1, 2),
            origin(2, 2),
        ]
    }

    /// The inverse of [`MassProperties::standard`]: `c = (m c) / m` and
    /// `I_c = I_o − m (|c|² 1 − c cᵀ)`. A zero mass has no centre of mass:
    /// the origin stands in for it (and the first moment is lost, which
    /// [`violations`] reports as the mass).
    pub(crate) fn from_standard(p: &[f64; 10]) -> MassProperties {
        let m = p[0];
        let com = if m == 0.0 {
            [0.0; 3]
        } else {
            [p[1] / m, p[2] / m, p[3] / m]
        };
        let origin = symmetric([p[4], p[6], p[9], p[5], p[7], p[8]]);
        let squared = com.iter().map(|x| x * x).sum::<f64>();
        let inertia = std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                let delta = if i == k { squared } else { 0.0 };
                origin[i][k] - m * (delta - com[i] * com[k])
            })
        });
        MassProperties {
            mass: m,
            com,
            inertia,
        }
    }

    /// The same body seen from an outer frame in which its own frame is
    /// placed at `translation` with orientation `rotation`
    /// (`p_outer = translation + rotation · p_own`).
    pub(crate) fn placed(&self, rotation: &[[f64; 3]; 3], translation: [f64; 3]) -> MassProperties {
        let turned = rotate(rotation, self.com);
        MassProperties {
            mass: self.mass,
            com: std::array::from_fn(|i| translation[i] + turned[i]),
            inertia: congruence(rotation, &self.inertia),
        }
    }

    /// The inverse of [`MassProperties::placed`].
    pub(crate) fn unplaced(
        &self,
        rotation: &[[f64; 3]; 3],
        translation: [f64; 3],
    ) -> MassProperties {
        let transposed = transpose(rotation);
        let shifted = std::array::from_fn(|i| self.com[i] - translation[i]);
        MassProperties {
            mass: self.mass,
            com: rotate(&transposed, shifted),
            inertia: congruence(&transposed, &self.inertia),
        }
    }

    /// Whether every number is finite.
    fn is_finite(&self) -> bool {
        self.mass.is_finite()
            && self.com.iter().all(|x| x.is_finite())
            && self.inertia.iter().flatten().all(|x| x.is_finite())
    }
}

/// One way a body's parameters fail to be those of a real body.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Violation {
    /// A number is infinite or not a number.
    NotFinite,
    /// The mass is not positive.
    Mass(f64),
    /// The inertia about the centre of mass has a principal moment that is
    /// not positive (the moments, ascending).
    NotPositiveDefinite([f64; 3]),
    /// The principal moments (ascending) break `I₁ + I₂ ≥ I₃`.
    Triangle([f64; 3]),
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::NotFinite => write!(f, "a mass property is not a finite number"),
            Violation::Mass(m) => write!(f, "mass {m:.6e} is not positive"),
            Violation::NotPositiveDefinite([a, b, c]) => write!(
                f,
                "inertia about the centre of mass is not positive definite \
                 (principal moments {a:.6e}, {b:.6e}, {c:.6e})"
            ),
            Violation::Triangle([a, b, c]) => write!(
                f,
                "principal moments {a:.6e} + {b:.6e} < {c:.6e} break the triangle inequality"
            ),
        }
    }
}

/// What makes `body` inconsistent, by spec validation's rules (a positive
/// mass; a positive definite inertia about the centre of mass whose
/// principal moments satisfy the triangle inequality to a relative 1e-9);
/// empty for a real body.
pub(crate) fn violations(body: &MassProperties) -> Vec<Violation> {
    if !body.is_finite() {
        return vec![Violation::NotFinite];
    }
    let mut found = Vec::new();
    if body.mass <= 0.0 {
        found.push(Violation::Mass(body.mass));
    }
    let moments = principal_moments(&body.inertia);
    let [smallest, middle, largest] = moments;
    if smallest <= 0.0 {
        found.push(Violation::NotPositiveDefinite(moments));
    } else if largest - (smallest + middle) > TRIANGLE_TOLERANCE * largest {
        found.push(Violation::Triangle(moments));
    }
    found
}

/// The principal moments of a symmetric inertia, ascending.
pub(crate) fn principal_moments(inertia: &[[f64; 3]; 3]) -> [f64; 3] {
    let mut a = [[0.0; 4]; 4];
    for i in 0..3 {
        for k in 0..3 {
            a[i][k] = inertia[i][k];
        }
    }
    let (values, _) = crate::eigen::symmetric_eigen::<4>(a, 3);
    let mut moments = [values[0], values[1], values[2]];
    moments.sort_by(f64::total_cmp);
    moments
}

/// A body's pseudo-inertia matrix scaled by its mass `m₀` and length `ℓ`,
/// `J̃ = S J S` with `S = diag(1/ℓ, 1/ℓ, 1/ℓ, 1) / √m₀`, so that its entries
/// are of order one for a body of about that mass and size: the scale in
/// which `--write-spec` measures how far a body is from consistency.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PseudoInertia {
    /// `m₀`, kg.
    pub(crate) mass: f64,
    /// `ℓ`, m.
    pub(crate) length: f64,
}

impl PseudoInertia {
    /// `J̃` of the ten standard parameters `p`.
    fn scaled(&self, p: &[f64; 10]) -> [[f64; 4]; 4] {
        let origin = symmetric([p[4], p[6], p[9], p[5], p[7], p[8]]);
        let half_trace = 0.5 * (origin[0][0] + origin[1][1] + origin[2][2]);
        let (m0, l) = (self.mass, self.length);
        let mut j = [[0.0; 4]; 4];
        for i in 0..3 {
            for k in 0..3 {
                let delta = if i == k { half_trace } else { 0.0 };
                j[i][k] = (delta - origin[i][k]) / (m0 * l * l);
            }
            j[i][3] = p[1 + i] / (m0 * l);
            j[3][i] = j[i][3];
        }
        j[3][3] = p[0] / m0;
        j
    }

    /// The standard parameters of a scaled pseudo-inertia `j`:
    /// `I_o = tr(Σ) 1 − Σ`.
    fn standard(&self, j: &[[f64; 4]; 4]) -> [f64; 10] {
        let (m0, l) = (self.mass, self.length);
        let sigma: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|k| j[i][k] * m0 * l * l));
        let trace = sigma[0][0] + sigma[1][1] + sigma[2][2];
        let origin = |i: usize, k: usize| {
            let delta = if i == k { trace } else { 0.0 };
            delta - sigma[i][k]
        };
        [
            j[3][3] * m0,
            j[0][3] * m0 * l,
            j[1][3] * m0 * l,
            j[2][3] * m0 * l,
            origin(0, 0),
            origin(0, 1),
            origin(1, 1),
            origin(0, 2),
            origin(1, 2),
            origin(2, 2),
        ]
    }

    /// `‖J̃(p)‖²` in the Frobenius norm: the squared distance between two
    /// bodies whose standard parameters differ by `p` (`J̃` is linear).
    pub(crate) fn norm_squared(&self, p: &[f64; 10]) -> f64 {
        self.scaled(p).iter().flatten().map(|x| x * x).sum()
    }

    /// `G^{-1/2}` of `G` the Gram matrix of `J̃` on the ten standard
    /// parameters (`‖J̃(p)‖² = pᵀ G p`): what turns the projection onto an
    /// affine set of parameters into one in this norm.
    pub(crate) fn inverse_metric_root(&self) -> [[f64; 10]; 10] {
        let unit = |i: usize| -> [f64; 10] { std::array::from_fn(|k| f64::from(u8::from(i == k))) };
        let columns: [[[f64; 4]; 4]; 10] = std::array::from_fn(|i| self.scaled(&unit(i)));
        let gram: [[f64; 10]; 10] = std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                let (a, b) = (&columns[i], &columns[k]);
                (0..4)
                    .flat_map(|r| (0..4).map(move |c| (r, c)))
                    .map(|(r, c)| a[r][c] * b[r][c])
                    .sum()
            })
        });
        let (values, vectors) = crate::eigen::symmetric_eigen::<10>(gram, 10);
        std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                (0..10)
                    .map(|e| vectors[i][e] * vectors[k][e] / values[e].sqrt())
                    .sum()
            })
        })
    }

    /// The smallest eigenvalue of `J̃` of the standard parameters `p`:
    /// positive exactly for a consistent body.
    pub(crate) fn smallest_eigenvalue(&self, p: &[f64; 10]) -> f64 {
        let (values, _) = crate::eigen::symmetric_eigen::<4>(self.scaled(p), 4);
        values.into_iter().fold(f64::INFINITY, f64::min)
    }

    /// The nearest parameters (in the Frobenius norm of `J̃`) whose scaled
    /// pseudo-inertia has no eigenvalue below `margin`: the eigenvalues
    /// below it raised to it, the eigenvectors kept. Parameters already
    /// there come back unchanged.
    pub(crate) fn project(&self, p: &[f64; 10], margin: f64) -> [f64; 10] {
        let (values, vectors) = crate::eigen::symmetric_eigen::<4>(self.scaled(p), 4);
        if values.iter().all(|&v| v >= margin) {
            return *p;
        }
        let clipped = values.map(|v| v.max(margin));
        let j: [[f64; 4]; 4] = std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                (0..4)
                    .map(|e| vectors[i][e] * clipped[e] * vectors[k][e])
                    .sum()
            })
        });
        self.standard(&j)
    }
}

/// The symmetric matrix of `[xx, yy, zz, xy, xz, yz]`.
pub(crate) fn symmetric([xx, yy, zz, xy, xz, yz]: [f64; 6]) -> [[f64; 3]; 3] {
    [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
}

/// `R v`.
fn rotate(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| (0..3).map(|k| r[i][k] * v[k]).sum())
}

/// `Rᵀ`.
fn transpose(r: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|k| r[k][i]))
}

/// `R A Rᵀ`.
fn congruence(r: &[[f64; 3]; 3], a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| {
        std::array::from_fn(|k| {
            (0..3)
                .flat_map(|p| (0..3).map(move |q| (p, q)))
                .map(|(p, q)| r[i][p] * a[p][q] * r[k][q])
                .sum()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> MassProperties {
        MassProperties {
            mass: 2.0,
            com: [0.3, 0.01, -0.02],
            inertia: symmetric([0.01, 0.05, 0.05, 0.002, -0.001, 0.003]),
        }
    }

    fn close(a: &[f64], b: &[f64], tolerance: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
    }

    #[test]
    fn standard_parameters_round_trip() {
        let b = body();
        let p = b.standard();
        // m c and the parallel-axis shift of xx: m (cy² + cz²).
        assert!((p[1] - 0.6).abs() < 1e-15);
        assert!((p[4] - (0.01 + 2.0 * (0.01f64.powi(2) + 0.02f64.powi(2)))).abs() < 1e-15);
        let back = MassProperties::from_standard(&p);
        assert!((back.mass - b.mass).abs() < 1e-15);
        assert!(close(&back.com, &b.com, 1e-15));
        assert!(close(
            back.inertia.as_flattened(),
            b.inertia.as_flattened(),
            1e-15
        ));
    }

    #[test]
    fn placing_and_unplacing_are_inverse_and_keep_the_moments() {
        let (s, c) = 0.7_f64.sin_cos();
        let r = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let t = [0.1, -0.2, 0.3];
        let b = body();
        let placed = b.placed(&r, t);
        let moments = principal_moments(&b.inertia);
        assert!(close(&principal_moments(&placed.inertia), &moments, 1e-15));
        let back = placed.unplaced(&r, t);
        assert!(close(&back.com, &b.com, 1e-15));
        assert!(close(
            back.inertia.as_flattened(),
            b.inertia.as_flattened(),
            1e-15
        ));
    }

    #[test]
    fn principal_moments_of_a_rotated_diagonal() {
        let (s, c) = 0.4_f64.sin_cos();
        let r = [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]];
        let diagonal = symmetric([1.0, 2.0, 2.5, 0.0, 0.0, 0.0]);
        let moments = principal_moments(&congruence(&r, &diagonal));
        assert!(close(&moments, &[1.0, 2.0, 2.5], 1e-14), "{moments:?}");
    }

    #[test]
    fn violations_name_mass_definiteness_and_triangle() {
        assert!(violations(&body()).is_empty());
        let mut light = body();
        light.mass = -0.1;
        assert_eq!(violations(&light), vec![Violation::Mass(-0.1)]);
        let mut flat = body();
        flat.inertia = symmetric([1.0, 1.0, 2.0, 0.0, 0.0, 0.0]);
        assert!(violations(&flat).is_empty(), "a flat body passes");
        flat.inertia = symmetric([1.0, 1.0, 2.1, 0.0, 0.0, 0.0]);
        assert!(matches!(violations(&flat)[..], [Violation::Triangle(_)]));
        flat.inertia = symmetric([1.0, -1.0, 0.5, 0.0, 0.0, 0.0]);
        let found = violations(&flat);
        assert!(matches!(found[..], [Violation::NotPositiveDefinite(_)]));
        assert!(found[0].to_string().contains("not positive definite"));
        flat.mass = f64::NAN;
        assert_eq!(violations(&flat), vec![Violation::NotFinite]);
    }

    /// The projection leaves a real body alone, and makes an inconsistent
    /// one consistent: a positive definite `J̃` is a positive mass and
    /// triangle inequalities that hold strictly.
    #[test]
    fn the_pseudo_inertia_projection_makes_a_body_consistent() {
        let scale = PseudoInertia {
            mass: 2.0,
            length: 0.3,
        };
        let p = body().standard();
        assert_eq!(scale.project(&p, 1e-6), p);
        let mut bad = body();
        bad.inertia = symmetric([0.01, 0.05, 0.08, 0.0, 0.0, 0.0]);
        assert!(!violations(&bad).is_empty());
        let fixed = scale.project(&bad.standard(), 1e-6);
        let fixed = MassProperties::from_standard(&fixed);
        assert!(violations(&fixed).is_empty(), "{fixed:?}");
        // The mass and the centre of mass are hardly touched.
        assert!((fixed.mass - 2.0).abs() < 1e-2, "{fixed:?}");
        // A negative mass comes back positive.
        let mut negative = body();
        negative.mass = -0.5;
        let fixed = MassProperties::from_standard(&scale.project(&negative.standard(), 1e-6));
        assert!(violations(&fixed).is_empty(), "{fixed:?}");
    }
}
