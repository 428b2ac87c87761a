//! Identities every correct rigid-body algorithm satisfies, checked on
//! seeded random trees: random parents (several roots, or a free-floating
//! base carrying the whole tree), all four joint kinds, axes, placements,
//! masses, centres of mass, physically valid inertias, and random unit
//! quaternions in the configurations.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_numeric::{Body, JointKind, Tree};

type Mat3 = [[f64; 3]; 3];

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

/// The rotation matrix of the unit quaternion `[x, y, z, w]` (scalar last,
/// the crate's order). Used to draw placements and, independently of the
/// crate, to rebuild joint rotations for the pose check.
fn quaternion_matrix([x, y, z, w]: [f64; 4]) -> Mat3 {
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

/// Revolute 40 %, prismatic 20 %, spherical 30 %, free 10 %.
fn joint_kind(rng: &mut SmallRng) -> JointKind {
    match rng.gen_range(0..10) {
        0..=3 => JointKind::Revolute,
        4..=5 => JointKind::Prismatic,
        6..=8 => JointKind::Spherical,
        _ => JointKind::Free,
    }
}

/// A random tree; half of them are free-floating: body 0 hangs from the
/// ground by a free joint and every other body descends from it.
fn random_tree(rng: &mut SmallRng) -> Tree {
    let n = rng.gen_range(1..=MAX_BODIES);
    let floating = rng.gen_bool(0.5);
    let bodies = (0..n)
        .map(|i| Body {
            parent: if i == 0 || (!floating && rng.gen_bool(0.15)) {
                None
            } else {
                Some(rng.gen_range(0..i))
            },
            joint: if i == 0 && floating {
                JointKind::Free
            } else {
                joint_kind(rng)
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
        armature: Vec::new(),
    }
}

/// A joint state: angles in ±π, slides and free positions in ±0.5 m,
/// uniformly random unit quaternions, rates in ±2, accelerations (or joint
/// forces) in ±5.
fn random_state(rng: &mut SmallRng, tree: &Tree) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut q = Vec::with_capacity(tree.nq());
    for body in &tree.bodies {
        match body.joint {
            JointKind::Revolute => {
                q.push(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI));
            }
            JointKind::Prismatic => q.push(rng.gen_range(-0.5..0.5)),
            JointKind::Spherical => q.extend(unit_vector::<4>(rng)),
            JointKind::Free => {
                q.extend([(); 3].map(|_| rng.gen_range(-0.5..0.5)));
                q.extend(unit_vector::<4>(rng));
            }
        }
    }
    let qd = (0..tree.nv()).map(|_| rng.gen_range(-2.0..2.0)).collect();
    let qdd = (0..tree.nv()).map(|_| rng.gen_range(-5.0..5.0)).collect();
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

#[test]
fn random_trees_cover_every_joint_kind_and_floating_bases() {
    // Guards the generator: the identities below are only as strong as the
    // trees they run on.
    let mut rng = SmallRng::seed_from_u64(10);
    let mut kinds = [0usize; 4];
    let mut floating = 0;
    for _ in 0..TREES {
        let tree = random_tree(&mut rng);
        for body in &tree.bodies {
            kinds[body.joint as usize] += 1;
        }
        let first = &tree.bodies[0];
        if first.joint == JointKind::Free && tree.bodies[1..].iter().all(|b| b.parent.is_some()) {
            floating += 1;
        }
    }
    assert!(
        kinds.iter().all(|&k| k >= 10),
        "joint kinds drawn: {kinds:?}"
    );
    assert!(floating >= 15, "{floating} free-floating trees");
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

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
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

/// The fourth-order central difference `f'(0) ≈ (8(f(h) − f(−h)) −
/// (f(2h) − f(−2h))) / 12h`, entry by entry.
fn derivative(f: impl Fn(f64) -> Vec<f64>, h: f64) -> Vec<f64> {
    let (p1, m1, p2, m2) = (f(h), f(-h), f(2.0 * h), f(-2.0 * h));
    (0..p1.len())
        .map(|i| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * h))
        .collect()
}

/// Finite-difference step of the derivative checks.
const STEP: f64 = 2e-4;

/// Tolerance of the finite-difference checks, relative to `max(1, ‖·‖∞)`.
/// With step 2e-4 the difference errs by O(h⁴) ≈ 2e-15 times the fifth
/// derivative, and by rounding of ≈ 1e-16 · |f| / h ≈ 5e-13 · |f|. The
/// truncation term dominates when ABA turns random joint forces into large
/// accelerations (up to 140 rad/s² for a free body on a free body on these
/// seeds): the largest error seen is 3e-9, and it shrinks sixteenfold when
/// the step is halved.
const DIFFERENCE_TOLERANCE: f64 = 1e-8;

#[test]
fn layout_counts_position_and_velocity_coordinates() {
    for_random_cases(18, |tree, q, qd, _| {
        assert_eq!(q.len(), tree.nq());
        assert_eq!(qd.len(), tree.nv());
        assert_eq!(tree.dof(), tree.nv());
        let (q_offsets, v_offsets) = (tree.q_offsets(), tree.v_offsets());
        let (mut nq, mut nv) = (0, 0);
        for ((body, &qo), &vo) in tree.bodies.iter().zip(&q_offsets).zip(&v_offsets) {
            assert_eq!((qo, vo), (nq, nv));
            nq += body.joint.nq();
            nv += body.joint.nv();
        }
        assert_eq!((nq, nv), (tree.nq(), tree.nv()));
    });
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_is_the_rnea_jacobian() {
    // Column j of M is RNEA(q, q̇, eⱼ) − RNEA(q, q̇, 0): computed this way, M
    // is not symmetric by construction, so symmetry is a real check.
    for_random_cases(11, |tree, q, qd, _| {
        let m = tree.mass_matrix(q).unwrap();
        let bias = tree.bias(q, qd).unwrap();
        let n = qd.len();
        assert_eq!(m.len(), n);
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
        let quadratic = 0.5 * dot(qd, &mat_vec(&tree.mass_matrix(q).unwrap(), qd));
        let error = relative_error(&[kinetic], &[quadratic]);
        assert!(error < 1e-12, "T vs ½ vᵀ M v: relative error {error:e}");
    });
}

/// `d(T + V)/dt` at the state (`q`, `v`) moving with accelerations `a`, by
/// the fourth-order central difference of step `h` along the curve
/// `q(t) = q ⊕ (v t + ½ a t²)`, `v(t) = v + a t`. The curve's velocity at 0
/// is `v` (its derivative is `coordinate_rates(q, v)`, checked below) and
/// `v̇(0) = a`, and the first derivative of the energy depends on nothing
/// else.
fn energy_rate(tree: &Tree, q: &[f64], v: &[f64], a: &[f64], h: f64) -> f64 {
    let total = |t: f64| {
        let displacement: Vec<f64> = v
            .iter()
            .zip(a)
            .map(|(v, a)| v * t + 0.5 * a * t * t)
            .collect();
        let qt = tree.integrate(q, &displacement, 1.0).unwrap();
        let vt: Vec<f64> = v.iter().zip(a).map(|(v, a)| v + a * t).collect();
        let (kinetic, potential) = tree.energy(&qt, &vt).unwrap();
        vec![kinetic + potential]
    };
    derivative(total, h)[0]
}

#[test]
fn power_balance_holds_under_forward_dynamics() {
    // Joint forces in, accelerations from ABA: the energy must change at the
    // rate the joint forces do work.
    for_random_cases(15, |tree, q, qd, tau| {
        let qdd = tree.forward_dynamics(q, qd, tau).unwrap();
        let power = dot(qd, tau);
        let rate = energy_rate(tree, q, qd, &qdd, STEP);
        let error = relative_error(&[rate], &[power]);
        assert!(
            error < DIFFERENCE_TOLERANCE,
            "d(T+V)/dt = {rate} vs vᵀτ = {power}: {error:e}"
        );
    });
}

#[test]
fn power_balance_holds_under_inverse_dynamics() {
    for_random_cases(16, |tree, q, qd, qdd| {
        let tau = tree.inverse_dynamics(q, qd, qdd).unwrap();
        let power = dot(qd, &tau);
        let rate = energy_rate(tree, q, qd, qdd, STEP);
        let error = relative_error(&[rate], &[power]);
        assert!(
            error < DIFFERENCE_TOLERANCE,
            "d(T+V)/dt = {rate} vs vᵀτ = {power}: {error:e}"
        );
    });
}

#[test]
fn coordinate_rates_are_the_derivative_of_integrate() {
    for_random_cases(19, |tree, q, qd, _| {
        let rates = tree.coordinate_rates(q, qd).unwrap();
        let difference = derivative(|t| tree.integrate(q, qd, t).unwrap(), STEP);
        let error = relative_error(&rates, &difference);
        assert!(
            error < DIFFERENCE_TOLERANCE,
            "q̇ vs d/dt (q ⊕ v t): relative error {error:e}"
        );
    });
}

#[test]
fn integrate_follows_one_parameter_subgroups_and_stays_unit() {
    // Every joint's step is the exponential of a constant velocity, so
    // (q ⊕ v s) ⊕ v t = q ⊕ v (s + t) holds exactly, up to rounding.
    for_random_cases(20, |tree, q, qd, _| {
        let (s, t) = (0.37, -0.81);
        let two_steps = tree
            .integrate(&tree.integrate(q, qd, s).unwrap(), qd, t)
            .unwrap();
        let one_step = tree.integrate(q, qd, s + t).unwrap();
        let error = relative_error(&two_steps, &one_step);
        assert!(error < 1e-13, "(q ⊕ vs) ⊕ vt vs q ⊕ v(s+t): {error:e}");
        let still = tree.integrate(q, qd, 0.0).unwrap();
        assert!(relative_error(&still, q) < 1e-15, "q ⊕ 0 moved q");
        for (body, offset) in tree.bodies.iter().zip(tree.q_offsets()) {
            let quaternion = match body.joint {
                JointKind::Spherical => &one_step[offset..offset + 4],
                JointKind::Free => &one_step[offset + 3..offset + 7],
                JointKind::Revolute | JointKind::Prismatic => continue,
            };
            let norm = dot(quaternion, quaternion).sqrt();
            assert!((norm - 1.0).abs() < 1e-15, "|quat| = {norm}");
        }
    });
}

/// `R` and the origin of a pose, flattened into twelve numbers.
fn flatten((rotation, origin): &([[f64; 3]; 3], [f64; 3])) -> Vec<f64> {
    rotation.iter().flatten().chain(origin).copied().collect()
}

#[test]
fn body_velocities_are_the_derivative_of_body_poses() {
    for_random_cases(21, |tree, q, qd, _| {
        let velocities = tree.body_velocities(q, qd).unwrap();
        let poses = tree.body_poses(q).unwrap();
        let rates = derivative(
            |t| {
                let qt = tree.integrate(q, qd, t).unwrap();
                tree.body_poses(&qt)
                    .unwrap()
                    .iter()
                    .flat_map(flatten)
                    .collect()
            },
            STEP,
        );
        for (k, ((angular, linear), (rotation, _))) in velocities.iter().zip(&poses).enumerate() {
            let rate = &rates[12 * k..12 * (k + 1)];
            // [ω]× = Ṙ Rᵀ; its skew part read off twice and averaged.
            let spin = |i: usize, j: usize| -> f64 {
                (0..3).map(|l| rate[3 * i + l] * rotation[j][l]).sum()
            };
            let omega = [
                0.5 * (spin(2, 1) - spin(1, 2)),
                0.5 * (spin(0, 2) - spin(2, 0)),
                0.5 * (spin(1, 0) - spin(0, 1)),
            ];
            let angular_error = relative_error(angular, &omega);
            let linear_error = relative_error(linear, &rate[9..12]);
            assert!(
                angular_error < DIFFERENCE_TOLERANCE && linear_error < DIFFERENCE_TOLERANCE,
                "body {k}: ω error {angular_error:e}, origin velocity error {linear_error:e}"
            );
        }
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
    let quaternion = |x: &[f64]| [x[0], x[1], x[2], x[3]];
    let identity = quaternion_matrix([0.0, 0.0, 0.0, 1.0]);
    for_random_cases(17, |tree, q, _, _| {
        let poses = tree.body_poses(q).unwrap();
        let mut ground_from_body: Vec<Homogeneous> = Vec::new();
        let bodies = tree.bodies.iter().zip(tree.q_offsets()).zip(&poses);
        for ((body, offset), (rotation, origin)) in bodies {
            let qi = &q[offset..offset + body.joint.nq()];
            // Parent ← joint placement, then joint ← body motion.
            let placement = homogeneous(&body.rotation, body.translation);
            let motion = match body.joint {
                JointKind::Revolute => {
                    let (s, c) = (0.5 * qi[0]).sin_cos();
                    let [x, y, z] = body.axis;
                    homogeneous(&quaternion_matrix([s * x, s * y, s * z, c]), [0.0; 3])
                }
                JointKind::Prismatic => homogeneous(&identity, body.axis.map(|a| a * qi[0])),
                JointKind::Spherical => homogeneous(&quaternion_matrix(quaternion(qi)), [0.0; 3]),
                JointKind::Free => homogeneous(
                    &quaternion_matrix(quaternion(&qi[3..])),
                    [qi[0], qi[1], qi[2]],
                ),
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
