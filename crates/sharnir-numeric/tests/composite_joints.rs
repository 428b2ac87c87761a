//! The format's composite joints — cylindrical, universal, planar — built
//! by hand as chains of this crate's revolute and prismatic joints through
//! massless auxiliary bodies (how the end-to-end oracle builds them from a
//! spec), each against its equations of motion in closed form. Spherical
//! and free joints are the crate's own and have theirs in `closed_forms.rs`.
//!
//! Each mechanism is checked by every algorithm: `τ = M q̈ + bias` (RNEA),
//! `M` (CRBA), `q̈` back from `τ` (ABA), bias and energy.

use sharnir_numeric::{Body, JointKind, Tree};

type Vec3 = [f64; 3];
type Mat3 = [[f64; 3]; 3];

/// Relative tolerance against the closed forms: both sides are a few dozen
/// floating-point operations on O(1) numbers.
const TOLERANCE: f64 = 1e-12;

const G: f64 = 9.81;

const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// An inertia about the centre of mass with products of inertia, which the
/// closed forms below show where they must not matter.
const INERTIA: Mat3 = [[0.3, 0.02, -0.01], [0.02, 0.25, 0.03], [-0.01, 0.03, 0.2]];

/// Sample coordinates: three values per coordinate slot, positions, rates
/// and accelerations, covering every quadrant.
const SAMPLES: [[f64; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [0.3, -1.2, 2.5],
    [1.9, 0.7, -4.0],
    [-2.6, 1.5, 0.8],
    [-0.9, -2.0, -1.1],
];

/// A body with nothing but its inboard joint: the auxiliary bodies between
/// the primitive joints of a composite joint.
fn massless(parent: Option<usize>, joint: JointKind, axis: Vec3, translation: Vec3) -> Body {
    Body {
        parent,
        joint,
        axis,
        rotation: IDENTITY,
        translation,
        mass: 0.0,
        com: [0.0; 3],
        inertia: [[0.0; 3]; 3],
    }
}

/// The states of an `n`-coordinate mechanism: coordinate `k` of state `s`
/// takes sample `s + k` (cyclically), so coordinates differ within a state.
fn states(n: usize) -> Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    (0..SAMPLES.len())
        .map(|s| {
            let pick = |i: usize| {
                (0..n)
                    .map(|k| SAMPLES[(s + k) % SAMPLES.len()][i])
                    .collect()
            };
            (pick(0), pick(1), pick(2))
        })
        .collect()
}

fn assert_all_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let error = (g - w).abs() / w.abs().max(1.0);
        assert!(
            error < TOLERANCE,
            "{what}[{k}]: got {g}, want {w} (relative error {error:e})"
        );
    }
}

/// Checks every algorithm on `tree` against the closed forms `mass(q)`,
/// `bias(q, q̇)` and `potential(q)` (the kinetic energy is `½ q̇ᵀ M q̇`).
fn check(
    tree: &Tree,
    mass: impl Fn(&[f64]) -> Vec<Vec<f64>>,
    bias: impl Fn(&[f64], &[f64]) -> Vec<f64>,
    potential: impl Fn(&[f64]) -> f64,
) {
    let n = tree.nv();
    for (q, qd, qdd) in states(n) {
        let m = mass(&q);
        let b = bias(&q, &qd);
        let times = |v: &[f64]| -> Vec<f64> {
            m.iter()
                .map(|row| row.iter().zip(v).map(|(a, x)| a * x).sum())
                .collect()
        };
        let tau: Vec<f64> = times(&qdd).iter().zip(&b).map(|(a, c)| a + c).collect();
        let what = |name: &str| format!("{name} at q = {q:?}, q̇ = {qd:?}");
        assert_all_close(
            &tree.mass_matrix(&q).unwrap().concat(),
            &m.concat(),
            &what("M"),
        );
        assert_all_close(&tree.bias(&q, &qd).unwrap(), &b, &what("bias"));
        let rnea = tree.inverse_dynamics(&q, &qd, &qdd).unwrap();
        assert_all_close(&rnea, &tau, &what("τ"));
        let aba = tree.forward_dynamics(&q, &qd, &tau).unwrap();
        assert_all_close(&aba, &qdd, &what("q̈"));
        let kinetic = 0.5 * times(&qd).iter().zip(&qd).map(|(a, x)| a * x).sum::<f64>();
        let (t, v) = tree.energy(&q, &qd).unwrap();
        assert_all_close(&[t, v], &[kinetic, potential(&q)], &what("T, V"));
    }
}

#[test]
fn cylindrical_joint_matches_its_closed_form() {
    // A slide along z, with gravity along −y across it, then a turn about
    // z: q = [s, θ]. The centre of mass sits (rx, ry) off the axis and h
    // along it.
    let (m, rx, ry, h) = (2.0, 0.4, -0.15, 0.3);
    let t = [0.1, -0.5, 0.2];
    let z = [0.0, 0.0, 1.0];
    let tree = Tree {
        bodies: vec![
            massless(None, JointKind::Prismatic, z, t),
            Body {
                com: [rx, ry, h],
                mass: m,
                inertia: INERTIA,
                ..massless(Some(0), JointKind::Revolute, z, [0.0; 3])
            },
        ],
        gravity: [0.0, -G, 0.0],
        armature: Vec::new(),
    };
    // M = diag(m, I_zz + m ρ²); V = m g (t_y + rx sin θ + ry cos θ).
    let rho2 = rx * rx + ry * ry;
    check(
        &tree,
        |_| vec![vec![m, 0.0], vec![0.0, INERTIA[2][2] + m * rho2]],
        |q, _| vec![0.0, m * G * (rx * q[1].cos() - ry * q[1].sin())],
        |q| m * G * (t[1] + rx * q[1].sin() + ry * q[1].cos()),
    );
}

#[test]
fn universal_joint_matches_its_closed_form() {
    // A pendulum on a Cardan joint: about x by q₁, then about the turned y
    // by q₂, the centre of mass l below the joint, gravity along −z.
    let (m, l, z0) = (1.5, 0.8, 0.4);
    let (a, b, c) = (0.3, 0.25, 0.1);
    let tree = Tree {
        bodies: vec![
            massless(None, JointKind::Revolute, [1.0, 0.0, 0.0], [0.0, 0.0, z0]),
            Body {
                com: [0.0, 0.0, -l],
                mass: m,
                inertia: [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]],
                ..massless(Some(0), JointKind::Revolute, [0.0, 1.0, 0.0], [0.0; 3])
            },
        ],
        gravity: [0.0, 0.0, -G],
        armature: Vec::new(),
    };
    // Body angular velocity (q̇₁ cos q₂, q̇₂, q̇₁ sin q₂): about the joint,
    // T = ½ [(A + m l²) cos² q₂ + C sin² q₂] q̇₁² + ½ (B + m l²) q̇₂²;
    // V = m g (z₀ − l cos q₁ cos q₂).
    let (ax, by) = (a + m * l * l, b + m * l * l);
    let m11 = |q2: f64| ax * q2.cos().powi(2) + c * q2.sin().powi(2);
    let dm11 = |q2: f64| 2.0 * (c - ax) * q2.sin() * q2.cos();
    check(
        &tree,
        |q| vec![vec![m11(q[1]), 0.0], vec![0.0, by]],
        |q, qd| {
            vec![
                dm11(q[1]) * qd[0] * qd[1] + m * G * l * q[0].sin() * q[1].cos(),
                -0.5 * dm11(q[1]) * qd[0] * qd[0] + m * G * l * q[0].cos() * q[1].sin(),
            ]
        },
        |q| m * G * (z0 - l * q[0].cos() * q[1].cos()),
    );
}

#[test]
fn planar_joint_matches_its_closed_form() {
    // A body moving in a vertical plane: the joint frame turned by +90°
    // about x (joint y = ground z, gravity along −z), translated by x and y,
    // then turned about z by θ; the centre of mass r along the body's x and
    // h out of the plane.
    let (m, r, h) = (1.2, 0.35, 0.25);
    let t = [0.2, 0.1, -0.3];
    let tree = Tree {
        bodies: vec![
            Body {
                rotation: [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]],
                ..massless(None, JointKind::Prismatic, [1.0, 0.0, 0.0], t)
            },
            massless(Some(0), JointKind::Prismatic, [0.0, 1.0, 0.0], [0.0; 3]),
            Body {
                com: [r, 0.0, h],
                mass: m,
                inertia: INERTIA,
                ..massless(Some(1), JointKind::Revolute, [0.0, 0.0, 1.0], [0.0; 3])
            },
        ],
        gravity: [0.0, 0.0, -G],
        armature: Vec::new(),
    };
    // Centre of mass (x + r cos θ, y + r sin θ, h) in the joint frame:
    // M = [[m, 0, −m r s], [0, m, m r c], [−m r s, m r c, I_zz + m r²]],
    // bias = (−m r c θ̇², −m r s θ̇² + m g, m g r c), V = m g (t_z + y + r s).
    let izz = INERTIA[2][2];
    check(
        &tree,
        |q| {
            let (s, c) = q[2].sin_cos();
            vec![
                vec![m, 0.0, -m * r * s],
                vec![0.0, m, m * r * c],
                vec![-m * r * s, m * r * c, izz + m * r * r],
            ]
        },
        |q, qd| {
            let (s, c) = q[2].sin_cos();
            let w2 = qd[2] * qd[2];
            vec![-m * r * c * w2, -m * r * s * w2 + m * G, m * G * r * c]
        },
        |q| m * G * (t[2] + q[1] + r * q[2].sin()),
    );
}
