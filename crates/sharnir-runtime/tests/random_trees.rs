//! Identities every correct rigid-body algorithm satisfies, checked on
//! seeded random trees: random parents (several roots included), joint kinds,
//! axes, placements, masses, centres of mass and physically valid inertias.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_runtime::{Body, JointKind, Tree};

type Mat3 = [[f64; 3]; 3];

const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// How many random trees each property is checked on.
const TREES: u64 = 60;

/// Random trees have 1 to this many bodies.
const MAX_BODIES: usize = 9;

/// A unit vector drawn uniformly from the sphere (rejection in the ball).
fn unit_vector<const N: usize>(rng: &mut SmallRng) -> [f64; N] {
    loop {
        let v = [(); N].map(|_| rng.gen_range(-1.0..1.0));
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (0.1..=1.0).contains(&norm) {
            return v.map(|x| x / norm);
        }
    }
}

/// The rotation matrix of the unit quaternion `[w, x, y, z]`. Used both to
/// draw placements and, independently of the crate's Rodrigues formula, to
/// rebuild joint rotations for the pose check.
fn quaternion_matrix([w, x, y, z]: [f64; 4]) -> Mat3 {
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// A valid inertia about the centre of mass: `Q diag(s₂+s₃, s₁+s₃, s₁+s₂) Qᵀ`
/// for positive second moments `sₖ`, so the triangle inequalities hold.
fn inertia(rng: &mut SmallRng) -> Mat3 {
    let s = [(); 3].map(|_| rng.gen_range(0.005..0.2));
    let principal = [s[1] + s[2], s[0] + s[2], s[0] + s[1]];
    let q = quaternion_matrix(unit_vector(rng));
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| q[i][k] * principal[k] * q[j][k]).sum();
        }
    }
    out
}

fn random_tree(rng: &mut SmallRng) -> Tree {
    let n = rng.gen_range(1..=MAX_BODIES);
    let bodies = (0..n)
        .map(|i| Body {
            parent: if i == 0 || rng.gen_bool(0.15) {
                None
            } else {
                Some(rng.gen_range(0..i))
            },
            joint: if rng.gen_bool(0.3) {
                JointKind::Prismatic
            } else {
                JointKind::Revolute
            },
            axis: unit_vector(rng),
            rotation: quaternion_matrix(unit_vector(rng)),
            translation: [(); 3].map(|_| rng.gen_range(-0.5..0.5)),
            mass: rng.gen_range(0.5..5.0),
            com: [(); 3].map(|_| rng.gen_range(-0.3..0.3)),
            inertia: inertia(rng),
        })
        .collect();
    let g: [f64; 3] = unit_vector(rng);
    Tree {
        bodies,
        gravity: g.map(|x| 9.81 * x),
    }
}

/// A joint state: angles in ±π, slides in ±0.5 m, rates in ±2, accelerations
/// (or joint forces) in ±5.
fn random_state(rng: &mut SmallRng, tree: &Tree) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let q = tree
        .bodies
        .iter()
        .map(|b| match b.joint {
            JointKind::Revolute => rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI),
            JointKind::Prismatic => rng.gen_range(-0.5..0.5),
        })
        .collect();
    let qd = tree
        .bodies
        .iter()
        .map(|_| rng.gen_range(-2.0..2.0))
        .collect();
    let qdd = tree
        .bodies
        .iter()
        .map(|_| rng.gen_range(-5.0..5.0))
        .collect();
    (q, qd, qdd)
}

/// Runs `check` on `TREES` seeded random trees, one random state each.
fn for_random_cases(seed: u64, mut check: impl FnMut(&Tree, &[f64], &[f64], &[f64])) {
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..TREES {
        let tree = random_tree(&mut rng);
        let (q, qd, qdd) = random_state(&mut rng, &tree);
        check(&tree, &q, &qd, &qdd);
    }
}

/// Largest entry-wise difference relative to `max(1, ‖want‖∞)`.
fn relative_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max)
        / scale
}

fn mat_vec(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

/// The pivots `dₖ` of the Cholesky factorisation `M = L D Lᵀ`; all positive
/// exactly when `M` (assumed symmetric) is positive definite.
fn cholesky_pivots(m: &[Vec<f64>]) -> Vec<f64> {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    let mut pivots = vec![0.0; n];
    for j in 0..n {
        pivots[j] = m[j][j] - (0..j).map(|k| l[j][k] * l[j][k] * pivots[k]).sum::<f64>();
        l[j][j] = 1.0;
        for i in j + 1..n {
            l[i][j] =
                (m[i][j] - (0..j).map(|k| l[i][k] * l[j][k] * pivots[k]).sum::<f64>()) / pivots[j];
        }
    }
    pivots
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_is_the_rnea_jacobian() {
    // Column j of M is RNEA(q, q̇, eⱼ) − RNEA(q, q̇, 0): computed this way, M
    // is not symmetric by construction, so symmetry is a real check.
    for_random_cases(11, |tree, q, qd, _| {
        let m = tree.mass_matrix(q).unwrap();
        let bias = tree.bias(q, qd).unwrap();
        let n = q.len();
        let columns: Vec<Vec<f64>> = (0..n)
            .map(|j| {
                let unit: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
                let tau = tree.inverse_dynamics(q, qd, &unit).unwrap();
                tau.iter().zip(&bias).map(|(t, b)| t - b).collect()
            })
            .collect();
        for (j, column) in columns.iter().enumerate() {
            let m_column: Vec<f64> = m.iter().map(|row| row[j]).collect();
            let error = relative_error(&m_column, column);
            assert!(
                error < 1e-10,
                "CRBA column {j} vs RNEA: relative error {error:e}"
            );
            let row: Vec<f64> = columns.iter().map(|c| c[j]).collect();
            let asymmetry = relative_error(&row, column);
            assert!(
                asymmetry < 1e-10,
                "RNEA mass matrix asymmetric at {j}: {asymmetry:e}"
            );
        }
        let pivots = cholesky_pivots(&m);
        assert!(
            pivots.iter().all(|&d| d > 0.0),
            "M not positive definite: pivots {pivots:?}"
        );
    });
}

#[test]
fn mass_matrix_and_bias_reproduce_inverse_dynamics() {
    for_random_cases(12, |tree, q, qd, qdd| {
        let bias = tree.bias(q, qd).unwrap();
        let split: Vec<f64> = mat_vec(&tree.mass_matrix(q).unwrap(), qdd)
            .iter()
            .zip(&bias)
            .map(|(a, b)| a + b)
            .collect();
        let tau = tree.inverse_dynamics(q, qd, qdd).unwrap();
        let error = relative_error(&split, &tau);
        assert!(
            error < 1e-10,
            "M q̈ + bias vs RNEA: relative error {error:e}"
        );
    });
}

#[test]
fn articulated_body_algorithm_inverts_inverse_dynamics() {
    for_random_cases(13, |tree, q, qd, qdd| {
        let tau = tree.inverse_dynamics(q, qd, qdd).unwrap();
        let back = tree.forward_dynamics(q, qd, &tau).unwrap();
        let error = relative_error(&back, qdd);
        assert!(error < 1e-9, "ABA(RNEA(q̈)) vs q̈: relative error {error:e}");
    });
}

#[test]
fn kinetic_energy_is_the_mass_matrix_quadratic_form() {
    for_random_cases(14, |tree, q, qd, _| {
        let (kinetic, _) = tree.energy(q, qd).unwrap();
        let m_qd = mat_vec(&tree.mass_matrix(q).unwrap(), qd);
        let quadratic = 0.5 * qd.iter().zip(&m_qd).map(|(a, b)| a * b).sum::<f64>();
        let error = relative_error(&[kinetic], &[quadratic]);
        assert!(error < 1e-12, "T vs ½ q̇ᵀ M q̇: relative error {error:e}");
    });
}

/// `d(T + V)/dt` at the state (`q`, `qd`) moving with accelerations `qdd`,
/// by the fourth-order central difference of step `h` along
/// `q(t) = q + q̇ t + ½ q̈ t²` (whose derivative at 0 is the state's).
fn energy_rate(tree: &Tree, q: &[f64], qd: &[f64], qdd: &[f64], h: f64) -> f64 {
    let total = |t: f64| {
        let qt: Vec<f64> = q
            .iter()
            .zip(qd)
            .zip(qdd)
            .map(|((x, v), a)| x + v * t + 0.5 * a * t * t)
            .collect();
        let qdt: Vec<f64> = qd.iter().zip(qdd).map(|(v, a)| v + a * t).collect();
        let (kinetic, potential) = tree.energy(&qt, &qdt).unwrap();
        kinetic + potential
    };
    (8.0 * (total(h) - total(-h)) - (total(2.0 * h) - total(-2.0 * h))) / (12.0 * h)
}

/// Finite-difference step of the power-balance checks.
const STEP: f64 = 1e-3;

/// Power-balance tolerance, relative to `max(1, |q̇ᵀτ|)`: with step 1e-3 the
/// difference errs by O(h⁴) ≈ 1e-12 times the energy's fifth time
/// derivative, and by rounding of ≈ 1e-16 · E / h ≈ 1e-13 · E (the largest
/// error seen on these seeds is 2e-10).
const POWER_TOLERANCE: f64 = 1e-8;

#[test]
fn power_balance_holds_under_forward_dynamics() {
    // Joint forces in, accelerations from ABA: the energy must change at the
    // rate the joint forces do work.
    for_random_cases(15, |tree, q, qd, tau| {
        let qdd = tree.forward_dynamics(q, qd, tau).unwrap();
        let power: f64 = qd.iter().zip(tau).map(|(v, t)| v * t).sum();
        let rate = energy_rate(tree, q, qd, &qdd, STEP);
        let error = relative_error(&[rate], &[power]);
        assert!(
            error < POWER_TOLERANCE,
            "d(T+V)/dt = {rate} vs q̇ᵀτ = {power}: {error:e}"
        );
    });
}

#[test]
fn power_balance_holds_under_inverse_dynamics() {
    for_random_cases(16, |tree, q, qd, qdd| {
        let tau = tree.inverse_dynamics(q, qd, qdd).unwrap();
        let power: f64 = qd.iter().zip(&tau).map(|(v, t)| v * t).sum();
        let rate = energy_rate(tree, q, qd, qdd, STEP);
        let error = relative_error(&[rate], &[power]);
        assert!(
            error < POWER_TOLERANCE,
            "d(T+V)/dt = {rate} vs q̇ᵀτ = {power}: {error:e}"
        );
    });
}

#[test]
fn body_poses_compose_homogeneous_transforms() {
    type Homogeneous = [[f64; 4]; 4];
    let homogeneous = |rotation: &Mat3, translation: [f64; 3]| -> Homogeneous {
        let mut h = [[0.0; 4]; 4];
        for i in 0..3 {
            h[i][..3].copy_from_slice(&rotation[i]);
            h[i][3] = translation[i];
        }
        h[3][3] = 1.0;
        h
    };
    let product = |a: &Homogeneous, b: &Homogeneous| -> Homogeneous {
        let mut c = [[0.0; 4]; 4];
        for (i, row) in c.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = (0..4).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        c
    };
    for_random_cases(17, |tree, q, _, _| {
        let poses = tree.body_poses(q).unwrap();
        let mut ground_from_body: Vec<Homogeneous> = Vec::new();
        for ((body, &qi), (rotation, origin)) in tree.bodies.iter().zip(q).zip(&poses) {
            // Parent ← joint placement, then joint ← body motion.
            let placement = homogeneous(&body.rotation, body.translation);
            let motion = match body.joint {
                JointKind::Revolute => {
                    let (s, c) = (0.5 * qi).sin_cos();
                    let [x, y, z] = body.axis;
                    homogeneous(&quaternion_matrix([c, s * x, s * y, s * z]), [0.0; 3])
                }
                JointKind::Prismatic => homogeneous(&IDENTITY, body.axis.map(|a| a * qi)),
            };
            let local = product(&placement, &motion);
            let h = match body.parent {
                Some(p) => product(&ground_from_body[p], &local),
                None => local,
            };
            for i in 0..3 {
                let scale = h[i][3].abs().max(1.0);
                assert!(
                    (origin[i] - h[i][3]).abs() < 1e-12 * scale,
                    "origin {origin:?} vs {h:?}"
                );
                for j in 0..3 {
                    assert!(
                        (rotation[i][j] - h[i][j]).abs() < 1e-12,
                        "rotation {rotation:?} vs {h:?}"
                    );
                }
            }
            ground_from_body.push(h);
        }
    });
}
