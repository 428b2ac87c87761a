//! Small mechanisms whose equations of motion are known in closed form,
//! written out by hand here and compared with every algorithm of the crate:
//! one-degree-of-freedom mechanisms, a free rigid body, a spherical pendulum,
//! and the momentum balance of a free-floating chain.

use sharnir_numeric::{Body, JointKind, Tree, TreeError};

type Vec3 = [f64; 3];
type Mat3 = [[f64; 3]; 3];

/// Relative tolerance against the closed forms: both sides are a handful of
/// floating-point operations on O(1) numbers.
const TOLERANCE: f64 = 1e-12;

const G: f64 = 9.81;

/// Sample joint states `(q, q̇, q̈)` covering all four quadrants.
const STATES: [(f64, f64, f64); 5] = [
    (0.0, 0.0, 0.0),
    (0.3, -1.2, 2.5),
    (1.9, 0.7, -4.0),
    (-2.6, 1.5, 0.8),
    (-0.9, -2.0, -1.1),
];

fn assert_close(got: f64, want: f64, what: &str) {
    let error = (got - want).abs() / want.abs().max(1.0);
    assert!(
        error < TOLERANCE,
        "{what}: got {got}, want {want} (relative error {error:e})"
    );
}

fn assert_all_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_close(*g, *w, &format!("{what}[{k}]"));
    }
}

/// A pendulum about the ground z axis, hanging along −y, with its joint
/// frame deliberately rotated (joint x = ground z) and offset, and an
/// inertia with products of inertia (which a fixed-axis rotation must ignore).
fn pendulum(mass: f64, length: f64, axial_inertia: f64, offset: [f64; 3]) -> Tree {
    Tree {
        bodies: vec![Body {
            parent: None,
            joint: JointKind::Revolute,
            axis: [1.0, 0.0, 0.0],
            // Columns: joint x → ground z, joint y → ground x, joint z → ground y.
            rotation: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
            translation: offset,
            mass,
            com: [0.0, 0.0, -length],
            inertia: [
                [axial_inertia, 0.02, -0.03],
                [0.02, 0.4, 0.05],
                [-0.03, 0.05, 0.3],
            ],
        }],
        gravity: [0.0, -G, 0.0],
        armature: Vec::new(),
    }
}

#[test]
fn pendulum_matches_its_closed_form() {
    let (m, l, i, offset) = (2.0, 0.7, 0.15, [0.3, -0.2, 1.0]);
    let tree = pendulum(m, l, i, offset);
    for (q, qd, qdd) in STATES {
        // τ = (I + m l²) q̈ + m g l sin q;  T = ½ (I + m l²) q̇²;  V = m g (y₀ − l cos q).
        let inertia = i + m * l * l;
        let tau = inertia * qdd + m * G * l * q.sin();
        assert_all_close(
            &tree.inverse_dynamics(&[q], &[qd], &[qdd]).unwrap(),
            &[tau],
            "τ",
        );
        assert_all_close(
            &tree.bias(&[q], &[qd]).unwrap(),
            &[m * G * l * q.sin()],
            "bias",
        );
        assert_all_close(&tree.mass_matrix(&[q]).unwrap()[0], &[inertia], "M");
        assert_all_close(
            &tree.forward_dynamics(&[q], &[qd], &[tau]).unwrap(),
            &[qdd],
            "q̈",
        );
        let (kinetic, potential) = tree.energy(&[q], &[qd]).unwrap();
        assert_close(kinetic, 0.5 * inertia * qd * qd, "T");
        assert_close(potential, m * G * (offset[1] - l * q.cos()), "V");
        let poses = tree.body_poses(&[q]).unwrap();
        let (rotation, origin) = poses[0];
        assert_all_close(&origin, &offset, "origin");
        // The body's z axis (where the rod points, reversed) in the ground frame.
        let rod = [-rotation[0][2], -rotation[1][2], -rotation[2][2]];
        assert_all_close(&rod, &[q.sin(), -q.cos(), 0.0], "rod direction");
    }
}

#[test]
fn inclined_slider_matches_its_closed_form() {
    // A block sliding up a slope of angle θ: τ = m q̈ + m g sin θ.
    let (m, theta) = (3.0_f64, 0.4_f64);
    let tree = Tree {
        bodies: vec![Body {
            parent: None,
            joint: JointKind::Prismatic,
            axis: [theta.cos(), 0.0, theta.sin()],
            rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            translation: [0.0, 0.0, 0.5],
            mass: m,
            com: [0.1, -0.2, 0.05],
            inertia: [[0.2, 0.01, 0.0], [0.01, 0.3, 0.0], [0.0, 0.0, 0.25]],
        }],
        gravity: [0.0, 0.0, -G],
        armature: Vec::new(),
    };
    for (q, qd, qdd) in STATES {
        let tau = m * qdd + m * G * theta.sin();
        assert_all_close(
            &tree.inverse_dynamics(&[q], &[qd], &[qdd]).unwrap(),
            &[tau],
            "τ",
        );
        assert_all_close(&tree.mass_matrix(&[q]).unwrap()[0], &[m], "M");
        assert_all_close(
            &tree.forward_dynamics(&[q], &[qd], &[tau]).unwrap(),
            &[qdd],
            "q̈",
        );
        let (kinetic, potential) = tree.energy(&[q], &[qd]).unwrap();
        assert_close(kinetic, 0.5 * m * qd * qd, "T");
        assert_close(potential, m * G * (0.5 + 0.05 + q * theta.sin()), "V");
    }
}

#[test]
fn polar_arm_matches_its_closed_form() {
    // A turntable (revolute about z) carrying a radial slider (prismatic
    // along the turntable's x), gravity along −y in the plane of motion:
    //   τ₁ = (I₀ + I₁ + m r²) θ̈ + 2 m r ṙ θ̇ + m g r cos θ
    //   τ₂ = m r̈ − m r θ̇² + m g sin θ
    let (i0, i1, m1) = (0.5, 0.08, 1.7);
    let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let tree = Tree {
        bodies: vec![
            Body {
                parent: None,
                joint: JointKind::Revolute,
                axis: [0.0, 0.0, 1.0],
                rotation: identity,
                translation: [0.0; 3],
                mass: 4.0,
                com: [0.0; 3],
                inertia: [[0.9, 0.0, 0.0], [0.0, 0.7, 0.0], [0.0, 0.0, i0]],
            },
            Body {
                parent: Some(0),
                joint: JointKind::Prismatic,
                axis: [1.0, 0.0, 0.0],
                rotation: identity,
                translation: [0.0; 3],
                mass: m1,
                // Out of the plane of motion: changes neither T nor V's q-dependence.
                com: [0.0, 0.0, 0.2],
                inertia: [[0.05, 0.01, 0.0], [0.01, 0.06, 0.0], [0.0, 0.0, i1]],
            },
        ],
        gravity: [0.0, -G, 0.0],
        armature: Vec::new(),
    };
    let states = STATES.iter().zip(STATES.iter().rev());
    for (&(theta, thetad, thetadd), &(r, rd, rdd)) in states {
        let (q, qd, qdd) = ([theta, r], [thetad, rd], [thetadd, rdd]);
        let m11 = i0 + i1 + m1 * r * r;
        let tau = [
            m11 * thetadd + 2.0 * m1 * r * rd * thetad + m1 * G * r * theta.cos(),
            m1 * rdd - m1 * r * thetad * thetad + m1 * G * theta.sin(),
        ];
        assert_all_close(&tree.inverse_dynamics(&q, &qd, &qdd).unwrap(), &tau, "τ");
        let mass = tree.mass_matrix(&q).unwrap();
        assert_all_close(&mass[0], &[m11, 0.0], "M row 0");
        assert_all_close(&mass[1], &[0.0, m1], "M row 1");
        assert_all_close(&tree.forward_dynamics(&q, &qd, &tau).unwrap(), &qdd, "q̈");
        let (kinetic, potential) = tree.energy(&q, &qd).unwrap();
        assert_close(
            kinetic,
            0.5 * m11 * thetad * thetad + 0.5 * m1 * rd * rd,
            "T",
        );
        assert_close(potential, m1 * G * r * theta.sin(), "V");
    }
}

#[test]
fn planar_two_link_arm_matches_the_textbook_matrices() {
    // Two links turning about parallel z axes, gravity along −y; link i has
    // length lᵢ, centre of mass at lcᵢ along its x axis, inertia Iᵢ about z:
    //   M₁₁ = I₁ + I₂ + m₁lc₁² + m₂(l₁² + lc₂² + 2 l₁ lc₂ cos q₂)
    //   M₁₂ = I₂ + m₂(lc₂² + l₁ lc₂ cos q₂),  M₂₂ = I₂ + m₂ lc₂²
    //   C q̇ = h [−(2 q̇₁q̇₂ + q̇₂²), q̇₁²],  h = m₂ l₁ lc₂ sin q₂
    //   g = [(m₁lc₁ + m₂l₁) g cos q₁ + m₂ lc₂ g cos(q₁+q₂), m₂ lc₂ g cos(q₁+q₂)]
    let (m1, m2, l1, lc1, lc2, i1, i2) = (2.0, 1.5, 0.8, 0.35, 0.3, 0.12, 0.07);
    let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let link = |parent, translation, mass, lc, izz| Body {
        parent,
        joint: JointKind::Revolute,
        axis: [0.0, 0.0, 1.0],
        rotation: identity,
        translation,
        mass,
        com: [lc, 0.0, 0.0],
        inertia: [[0.01, 0.0, 0.0], [0.0, izz + 0.01, 0.0], [0.0, 0.0, izz]],
    };
    let tree = Tree {
        bodies: vec![
            link(None, [0.0; 3], m1, lc1, i1),
            link(Some(0), [l1, 0.0, 0.0], m2, lc2, i2),
        ],
        gravity: [0.0, -G, 0.0],
        armature: Vec::new(),
    };
    let states = STATES.iter().zip(STATES.iter().rev());
    for (&(q1, qd1, _), &(q2, qd2, _)) in states {
        let (q, qd) = ([q1, q2], [qd1, qd2]);
        let m11 = i1 + i2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * q2.cos());
        let m12 = i2 + m2 * (lc2 * lc2 + l1 * lc2 * q2.cos());
        let m22 = i2 + m2 * lc2 * lc2;
        let mass = tree.mass_matrix(&q).unwrap();
        assert_all_close(&mass[0], &[m11, m12], "M row 0");
        assert_all_close(&mass[1], &[m12, m22], "M row 1");
        let h = m2 * l1 * lc2 * q2.sin();
        let coriolis = [-h * (2.0 * qd1 * qd2 + qd2 * qd2), h * qd1 * qd1];
        let c12 = (q1 + q2).cos();
        let gravity = [
            (m1 * lc1 + m2 * l1) * G * q1.cos() + m2 * lc2 * G * c12,
            m2 * lc2 * G * c12,
        ];
        let static_bias = tree.bias(&q, &[0.0, 0.0]).unwrap();
        assert_all_close(&static_bias, &gravity, "g(q)");
        let full_bias = tree.bias(&q, &qd).unwrap();
        let velocity_terms: Vec<f64> = full_bias
            .iter()
            .zip(&static_bias)
            .map(|(b, g)| b - g)
            .collect();
        assert_all_close(&velocity_terms, &coriolis, "C(q, q̇) q̇");
    }
}

#[test]
fn wrong_lengths_are_reported_by_name() {
    let tree = pendulum(1.0, 0.5, 0.1, [0.0; 3]);
    assert_eq!(
        tree.inverse_dynamics(&[0.0], &[0.0, 1.0], &[0.0]),
        Err(TreeError::WrongLength {
            argument: "qd",
            expected: 1,
            found: 2
        })
    );
    assert_eq!(
        tree.forward_dynamics(&[0.0], &[0.0], &[]),
        Err(TreeError::WrongLength {
            argument: "tau",
            expected: 1,
            found: 0
        })
    );
    assert_eq!(
        tree.mass_matrix(&[]),
        Err(TreeError::WrongLength {
            argument: "q",
            expected: 1,
            found: 0
        })
    );
    let message = tree.energy(&[0.0, 0.0], &[0.0]).unwrap_err().to_string();
    assert_eq!(message, "`q` has length 2, but the tree's joints need 1");
}

#[test]
fn wrong_lengths_count_quaternions_in_q_and_three_rates_per_ball_joint() {
    let tree = spherical_pendulum(1.0, [0.0, 0.0, -0.5], [0.0; 3], [0.0, 0.0, -G]);
    let q = [0.0, 0.0, 0.0, 1.0];
    assert_eq!((tree.nq(), tree.nv(), tree.dof()), (4, 3, 3));
    assert_eq!(
        tree.inverse_dynamics(&q[..3], &[0.0; 3], &[0.0; 3]),
        Err(TreeError::WrongLength {
            argument: "q",
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        tree.bias(&q, &[0.0; 4]),
        Err(TreeError::WrongLength {
            argument: "qd",
            expected: 3,
            found: 4
        })
    );
    assert_eq!(
        tree.integrate(&q, &[0.0; 2], 0.1),
        Err(TreeError::WrongLength {
            argument: "v",
            expected: 3,
            found: 2
        })
    );
    assert_eq!(
        tree.coordinate_rates(&[0.0; 7], &[0.0; 3]),
        Err(TreeError::WrongLength {
            argument: "q",
            expected: 4,
            found: 7
        })
    );
    assert_eq!(
        tree.body_velocities(&q, &[]),
        Err(TreeError::WrongLength {
            argument: "v",
            expected: 3,
            found: 0
        })
    );
}

#[test]
fn parents_after_children_are_rejected() {
    let mut tree = pendulum(1.0, 0.5, 0.1, [0.0; 3]);
    let mut second = tree.bodies[0].clone();
    second.parent = Some(1);
    tree.bodies.push(second);
    assert_eq!(
        tree.body_poses(&[0.0, 0.0]),
        Err(TreeError::ParentOrder { body: 1, parent: 1 })
    );
    tree.bodies[1].parent = Some(7);
    assert_eq!(
        tree.bias(&[0.0, 0.0], &[0.0, 0.0]),
        Err(TreeError::ParentOrder { body: 1, parent: 7 })
    );
}

#[test]
fn a_joint_with_nothing_to_move_is_singular() {
    let mut tree = pendulum(1.0, 0.5, 0.1, [0.0; 3]);
    let mut ghost = tree.bodies[0].clone();
    ghost.parent = Some(0);
    ghost.mass = 0.0;
    ghost.inertia = [[0.0; 3]; 3];
    tree.bodies.push(ghost);
    assert_eq!(
        tree.forward_dynamics(&[0.1, 0.2], &[0.0, 0.0], &[0.0, 0.0]),
        Err(TreeError::SingularJoint { body: 1 })
    );
}

#[test]
fn multi_degree_of_freedom_joints_without_inertia_are_singular() {
    // A massless ball on a pendulum: D = Sᵀ Iᴬ S is the 3×3 zero matrix.
    let mut tree = pendulum(1.0, 0.5, 0.1, [0.0; 3]);
    tree.bodies.push(Body {
        parent: Some(0),
        joint: JointKind::Spherical,
        mass: 0.0,
        inertia: [[0.0; 3]; 3],
        ..tree.bodies[0].clone()
    });
    let q = [0.1, 0.0, 0.0, 0.0, 1.0];
    assert_eq!(
        tree.forward_dynamics(&q, &[0.0; 4], &[0.0; 4]),
        Err(TreeError::SingularJoint { body: 1 })
    );
    // A point mass on a free joint: it translates, but nothing resists
    // turning about its own origin, so D (6×6) has rank 3.
    let mut point = free_body(2.0, [[0.0; 3]; 3], [0.0; 3]);
    point.bodies[0].inertia = [[0.0; 3]; 3];
    assert_eq!(
        point.forward_dynamics(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], &[0.0; 6], &[0.0; 6]),
        Err(TreeError::SingularJoint { body: 0 })
    );
}

#[test]
fn a_tree_without_bodies_has_empty_results() {
    let tree = Tree {
        bodies: Vec::new(),
        gravity: [0.0, 0.0, -G],
        armature: Vec::new(),
    };
    assert_eq!(tree.inverse_dynamics(&[], &[], &[]), Ok(Vec::new()));
    assert_eq!(tree.forward_dynamics(&[], &[], &[]), Ok(Vec::new()));
    assert_eq!(tree.mass_matrix(&[]), Ok(Vec::new()));
    assert_eq!(tree.energy(&[], &[]), Ok((0.0, 0.0)));
    assert_eq!(tree.integrate(&[], &[], 0.5), Ok(Vec::new()));
    assert_eq!(tree.coordinate_rates(&[], &[]), Ok(Vec::new()));
    assert_eq!((tree.nq(), tree.nv()), (0, 0));
}

fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(s: f64, a: Vec3) -> Vec3 {
    a.map(|x| s * x)
}

fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn mat_vec(m: &Mat3, v: Vec3) -> Vec3 {
    m.map(|row| dot(row, v))
}

fn transpose(m: &Mat3) -> Mat3 {
    [0, 1, 2].map(|j| [0, 1, 2].map(|i| m[i][j]))
}

fn mat_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let bt = transpose(b);
    a.map(|row| bt.map(|column| dot(row, column)))
}

/// `q / |q|` for the literal quaternions below.
fn normalised(q: [f64; 4]) -> [f64; 4] {
    let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / norm)
}

/// The rotation matrix of the unit quaternion `[x, y, z, w]` (scalar last).
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

/// The rotational inertia with products of inertia used by the bodies below.
const INERTIA: Mat3 = [[0.3, 0.02, -0.01], [0.02, 0.5, 0.03], [-0.01, 0.03, 0.4]];

/// The joint frame of the bodies below: turned and offset, so that the
/// closed forms must go through the placement.
fn placement_rotation() -> Mat3 {
    quaternion_matrix(normalised([0.2, -0.4, 0.1, 0.9]))
}

const PLACEMENT: Vec3 = [0.3, -0.2, 1.0];

/// One body on a free joint from the ground, centre of mass at `com`.
fn free_body(mass: f64, inertia: Mat3, com: Vec3) -> Tree {
    Tree {
        bodies: vec![Body {
            parent: None,
            joint: JointKind::Free,
            axis: [1.0, 0.0, 0.0],
            rotation: placement_rotation(),
            translation: PLACEMENT,
            mass,
            com,
            inertia,
        }],
        gravity: [0.0; 3],
        armature: Vec::new(),
    }
}

/// Sample free-joint states: position, orientation, `v_lin`, `ω`, `a_lin`,
/// `ω̇` (all body components).
fn free_states() -> [(Vec3, [f64; 4], Vec3, Vec3, Vec3, Vec3); 4] {
    [
        (
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
            [0.0; 3],
            [0.0; 3],
            [0.0; 3],
            [0.0; 3],
        ),
        (
            [0.4, -0.3, 0.2],
            normalised([0.5, 0.1, -0.3, 0.7]),
            [1.2, -0.4, 0.9],
            [0.8, 1.5, -0.6],
            [-2.0, 0.5, 1.1],
            [0.3, -1.7, 2.2],
        ),
        (
            [-1.1, 0.6, 0.0],
            normalised([-0.6, 0.6, 0.2, -0.1]),
            [-0.7, 2.0, 0.1],
            [-2.1, 0.2, 1.4],
            [0.9, -1.3, -0.4],
            [-1.0, 0.6, 0.8],
        ),
        (
            [0.0, 0.2, -0.8],
            normalised([0.0, 0.0, 1.0, 0.2]),
            [0.0, 0.0, 1.5],
            [0.0, 2.5, 0.0],
            [0.4, 0.0, -0.6],
            [1.2, 0.0, -0.3],
        ),
    ]
}

#[test]
fn free_rigid_body_obeys_the_newton_euler_equations() {
    // With the centre of mass at the body origin and everything in body
    // coordinates, the force on the body is m times the absolute
    // acceleration of its origin, d/dt(R v)·Rᵀ = v̇ + ω × v, less its weight
    // mRᵀg, and the moment about the centre of mass is the Euler equation:
    //   τ = [m(a_lin + ω × v_lin − Rᵀg); I ω̇ + ω × I ω],
    // with M = diag(m 1, I), T = ½ m |v|² + ½ ωᵀIω and V = −m g · origin.
    let m = 2.5;
    for gravity in [[0.0; 3], [0.0, -0.6 * G, -0.8 * G]] {
        let tree = Tree {
            gravity,
            ..free_body(m, INERTIA, [0.0; 3])
        };
        for (position, orientation, v_lin, omega, a_lin, omega_dot) in free_states() {
            let [qx, qy, qz, qw] = orientation;
            let q = [position[0], position[1], position[2], qx, qy, qz, qw];
            let v = [v_lin, omega].concat();
            let a = [a_lin, omega_dot].concat();
            let rotation = mat_mul(&placement_rotation(), &quaternion_matrix(orientation));
            let weight = scale(m, mat_vec(&transpose(&rotation), gravity));
            let i_omega = mat_vec(&INERTIA, omega);
            let force = |a_lin: Vec3| {
                add(
                    scale(m, add(a_lin, cross(omega, v_lin))),
                    scale(-1.0, weight),
                )
            };
            let moment = |omega_dot: Vec3| add(mat_vec(&INERTIA, omega_dot), cross(omega, i_omega));
            let tau = [force(a_lin), moment(omega_dot)].concat();
            let bias = [force([0.0; 3]), moment([0.0; 3])].concat();
            assert_all_close(&tree.inverse_dynamics(&q, &v, &a).unwrap(), &tau, "τ");
            assert_all_close(&tree.bias(&q, &v).unwrap(), &bias, "bias");
            assert_all_close(&tree.forward_dynamics(&q, &v, &tau).unwrap(), &a, "v̇");
            let mass = tree.mass_matrix(&q).unwrap();
            for (k, row) in mass.iter().enumerate() {
                let want: Vec<f64> = (0..6)
                    .map(|l| match (k < 3, l < 3) {
                        (true, true) if k == l => m,
                        (false, false) => INERTIA[k - 3][l - 3],
                        _ => 0.0,
                    })
                    .collect();
                assert_all_close(row, &want, &format!("M row {k}"));
            }
            let origin = add(PLACEMENT, mat_vec(&placement_rotation(), position));
            let (kinetic, potential) = tree.energy(&q, &v).unwrap();
            assert_close(
                kinetic,
                0.5 * m * dot(v_lin, v_lin) + 0.5 * dot(omega, i_omega),
                "T",
            );
            assert_close(potential, -m * dot(gravity, origin), "V");
            let (pose_rotation, pose_origin) = tree.body_poses(&q).unwrap()[0];
            assert_all_close(&pose_origin, &origin, "origin");
            assert_all_close(&pose_rotation.concat(), &rotation.concat(), "rotation");
            // ṗ = R(quat) v_lin in the joint frame; q̇_quat = ½ quat ⊗ (ω, 0).
            let position_rate = mat_vec(&quaternion_matrix(orientation), v_lin);
            let vector_part = [qx, qy, qz];
            let quaternion_rate = scale(0.5, add(scale(qw, omega), cross(vector_part, omega)));
            let scalar_rate = -0.5 * dot(vector_part, omega);
            let rates = [&position_rate[..], &quaternion_rate[..], &[scalar_rate][..]].concat();
            assert_all_close(&tree.coordinate_rates(&q, &v).unwrap(), &rates, "q̇");
        }
    }
}

/// A ball-jointed pendulum at the turned and offset joint frame, with its
/// centre of mass at `com` (body frame) and the inertia [`INERTIA`] about it.
fn spherical_pendulum(mass: f64, com: Vec3, translation: Vec3, gravity: Vec3) -> Tree {
    Tree {
        bodies: vec![Body {
            parent: None,
            joint: JointKind::Spherical,
            axis: [0.0, 0.0, 1.0],
            rotation: placement_rotation(),
            translation,
            mass,
            com,
            inertia: INERTIA,
        }],
        gravity,
        armature: Vec::new(),
    }
}

#[test]
fn spherical_pendulum_matches_its_closed_form() {
    // About the fixed pivot O, in body coordinates, with I_O = I_c +
    // m(|c|²1 − c cᵀ) and g_b = Rᵀ g the gravity in body axes:
    //   τ = I_O ω̇ + ω × I_O ω + m g_b × c
    // (the last term holds the weight's moment c × m g_b); M = I_O,
    // T = ½ ωᵀ I_O ω and V = −m g · (pivot + R c).
    let (m, c) = (1.8, [0.1, -0.05, -0.6]);
    let gravity = [0.0, 0.0, -G];
    let tree = spherical_pendulum(m, c, PLACEMENT, gravity);
    let c_squared = dot(c, c);
    let pivot_inertia: Mat3 = [0, 1, 2].map(|i| {
        [0, 1, 2].map(|j| {
            let delta = if i == j { c_squared } else { 0.0 };
            INERTIA[i][j] + m * (delta - c[i] * c[j])
        })
    });
    for (_, orientation, _, omega, _, omega_dot) in free_states() {
        let q = orientation;
        let rotation = mat_mul(&placement_rotation(), &quaternion_matrix(orientation));
        let gravity_body = mat_vec(&transpose(&rotation), gravity);
        let gravity_torque = scale(m, cross(gravity_body, c));
        let i_omega = mat_vec(&pivot_inertia, omega);
        let bias = add(cross(omega, i_omega), gravity_torque);
        let tau = add(mat_vec(&pivot_inertia, omega_dot), bias);
        assert_all_close(
            &tree.inverse_dynamics(&q, &omega, &omega_dot).unwrap(),
            &tau,
            "τ",
        );
        assert_all_close(&tree.bias(&q, &omega).unwrap(), &bias, "bias");
        assert_all_close(
            &tree.bias(&q, &[0.0; 3]).unwrap(),
            &gravity_torque,
            "m g × c",
        );
        assert_all_close(
            &tree.forward_dynamics(&q, &omega, &tau).unwrap(),
            &omega_dot,
            "ω̇",
        );
        assert_all_close(
            &tree.mass_matrix(&q).unwrap().concat(),
            &pivot_inertia.concat(),
            "M",
        );
        let (kinetic, potential) = tree.energy(&q, &omega).unwrap();
        assert_close(kinetic, 0.5 * dot(omega, i_omega), "T");
        let centre = add(PLACEMENT, mat_vec(&rotation, c));
        assert_close(potential, -m * dot(gravity, centre), "V");
        let (_, origin) = tree.body_poses(&q).unwrap()[0];
        assert_all_close(&origin, &PLACEMENT, "pivot");
    }
}

/// A free-floating chain: a free base carrying a ball-jointed arm with a
/// hinge and a ball at its end, and a slider, all with offset centres of
/// mass and inertias with products of inertia.
fn floating_chain(gravity: Vec3) -> Tree {
    let body = |parent, joint, axis, translation, mass, com| Body {
        parent,
        joint,
        axis,
        rotation: placement_rotation(),
        translation,
        mass,
        com,
        inertia: INERTIA,
    };
    Tree {
        bodies: vec![
            body(
                None,
                JointKind::Free,
                [1.0, 0.0, 0.0],
                [0.0; 3],
                4.0,
                [0.05, -0.02, 0.1],
            ),
            body(
                Some(0),
                JointKind::Spherical,
                [1.0, 0.0, 0.0],
                [0.3, 0.0, 0.2],
                1.5,
                [0.0, 0.0, -0.3],
            ),
            body(
                Some(1),
                JointKind::Revolute,
                [0.0, 0.6, 0.8],
                [0.0, 0.1, -0.6],
                1.0,
                [0.2, 0.0, 0.0],
            ),
            body(
                Some(0),
                JointKind::Prismatic,
                [0.0, 1.0, 0.0],
                [-0.2, 0.1, 0.0],
                0.8,
                [0.0, 0.1, 0.05],
            ),
            body(
                Some(2),
                JointKind::Spherical,
                [1.0, 0.0, 0.0],
                [0.4, 0.0, 0.0],
                0.5,
                [0.1, 0.1, 0.0],
            ),
        ],
        gravity,
        armature: Vec::new(),
    }
}

/// The linear momentum `Σ mᵢ ċᵢ` and the angular momentum about the ground
/// origin `Σ (cᵢ × mᵢ ċᵢ + Rᵢ Iᵢ Rᵢᵀ ωᵢ)`, from the bodies' poses and
/// ground-frame velocities; with the total mass and centre of mass.
fn momentum(tree: &Tree, q: &[f64], v: &[f64]) -> (Vec3, Vec3, f64, Vec3) {
    let poses = tree.body_poses(q).unwrap();
    let velocities = tree.body_velocities(q, v).unwrap();
    let (mut linear, mut angular, mut mass, mut first_moment) = ([0.0; 3], [0.0; 3], 0.0, [0.0; 3]);
    for ((body, (rotation, origin)), (omega, origin_velocity)) in
        tree.bodies.iter().zip(&poses).zip(&velocities)
    {
        let offset = mat_vec(rotation, body.com);
        let centre = add(*origin, offset);
        let p = scale(body.mass, add(*origin_velocity, cross(*omega, offset)));
        let spin = mat_vec(
            rotation,
            mat_vec(&body.inertia, mat_vec(&transpose(rotation), *omega)),
        );
        linear = add(linear, p);
        angular = add(angular, add(cross(centre, p), spin));
        mass += body.mass;
        first_moment = add(first_moment, scale(body.mass, centre));
    }
    (linear, angular, mass, scale(1.0 / mass, first_moment))
}

/// One classical Runge–Kutta step of `q̇ = coordinate_rates(q, v)`,
/// `v̇ = ABA(q, v, 0)`, treated as an ODE in (q, v). The exact flow keeps
/// quaternions unit (q ⊗ (ω, 0) is orthogonal to q), so the stages may
/// leave the unit sphere by O(h⁵) without losing the method's order.
fn rk4_step(tree: &Tree, q: &[f64], v: &[f64], h: f64) -> (Vec<f64>, Vec<f64>) {
    let zero = vec![0.0; tree.nv()];
    let slope = |q: &[f64], v: &[f64]| {
        (
            tree.coordinate_rates(q, v).unwrap(),
            tree.forward_dynamics(q, v, &zero).unwrap(),
        )
    };
    let shifted = |x: &[f64], dx: &[f64], s: f64| -> Vec<f64> {
        x.iter().zip(dx).map(|(x, d)| x + s * d).collect()
    };
    let (k1q, k1v) = slope(q, v);
    let (k2q, k2v) = slope(&shifted(q, &k1q, h / 2.0), &shifted(v, &k1v, h / 2.0));
    let (k3q, k3v) = slope(&shifted(q, &k2q, h / 2.0), &shifted(v, &k2v, h / 2.0));
    let (k4q, k4v) = slope(&shifted(q, &k3q, h), &shifted(v, &k3v, h));
    let combine = |x: &[f64], k1: &[f64], k2: &[f64], k3: &[f64], k4: &[f64]| -> Vec<f64> {
        (0..x.len())
            .map(|i| x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
            .collect()
    };
    (
        combine(q, &k1q, &k2q, &k3q, &k4q),
        combine(v, &k1v, &k2v, &k3v, &k4v),
    )
}

/// Integrates the unactuated floating chain for `STEPS` steps of `H` and
/// checks, after every step, the momenta against `P(t) = P₀ + M g t` and
/// `L(t) = L₀ + M (c₀ × g) t + ½ (P₀ × g) t²` (gravity is the only external
/// force; its moment about the origin is `M c(t) × g` with
/// `c(t) = c₀ + P₀ t / M + ½ g t²`). Returns the largest relative errors.
fn momentum_drift(gravity: Vec3) -> (f64, f64) {
    const H: f64 = 2e-3;
    const STEPS: usize = 300;
    let tree = floating_chain(gravity);
    let mut q = [
        &[0.1, -0.2, 0.3][..],
        &normalised([0.3, -0.1, 0.2, 0.9]),
        &normalised([-0.2, 0.4, 0.1, 0.8]),
        &[0.7],
        &[0.15],
        &normalised([0.5, 0.2, -0.4, 0.6]),
    ]
    .concat();
    let mut v = vec![
        0.4, -0.3, 0.2, 0.5, -0.8, 0.3, 1.2, -0.6, 0.9, -1.5, 0.4, 0.7, 1.1, -0.9,
    ];
    let (p0, l0, mass, c0) = momentum(&tree, &q, &v);
    let scale_p = dot(p0, p0).sqrt().max(1.0);
    let scale_l = dot(l0, l0).sqrt().max(1.0);
    let (mut linear_error, mut angular_error) = (0.0_f64, 0.0_f64);
    for step in 1..=STEPS {
        (q, v) = rk4_step(&tree, &q, &v, H);
        let t = step as f64 * H;
        let (p, l, _, _) = momentum(&tree, &q, &v);
        let p_want = add(p0, scale(mass * t, gravity));
        let l_want = add(
            add(l0, scale(mass * t, cross(c0, gravity))),
            scale(0.5 * t * t, cross(p0, gravity)),
        );
        for k in 0..3 {
            linear_error = linear_error.max((p[k] - p_want[k]).abs() / scale_p);
            angular_error = angular_error.max((l[k] - l_want[k]).abs() / scale_l);
        }
    }
    (linear_error, angular_error)
}

/// Momentum tolerance, relative to `max(1, |P₀|)` and `max(1, |L₀|)`: RK4
/// with step 2e-3 over 0.6 s errs by O(h⁴) ≈ 1e-11 times the state's fifth
/// derivative; the largest drift seen is 3e-12, while the momenta themselves
/// change by O(10) under gravity.
const MOMENTUM_TOLERANCE: f64 = 1e-9;

#[test]
fn floating_chain_conserves_momentum_without_gravity() {
    let (linear, angular) = momentum_drift([0.0; 3]);
    assert!(
        linear < MOMENTUM_TOLERANCE && angular < MOMENTUM_TOLERANCE,
        "momentum drift: linear {linear:e}, angular {angular:e}"
    );
}

#[test]
fn floating_chain_momentum_follows_gravity() {
    let (linear, angular) = momentum_drift([0.0, -0.6 * G, -0.8 * G]);
    assert!(
        linear < MOMENTUM_TOLERANCE && angular < MOMENTUM_TOLERANCE,
        "momentum drift: linear {linear:e}, angular {angular:e}"
    );
}
