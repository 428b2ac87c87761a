//! Small mechanisms whose equations of motion are known in closed form,
//! written out by hand here and compared with every algorithm of the crate.

use sharnir_runtime::{Body, JointKind, Tree, TreeError};

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
    assert_eq!(
        message,
        "`q` has length 2, not the tree's number of joints, 1"
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
fn a_tree_without_bodies_has_empty_results() {
    let tree = Tree {
        bodies: Vec::new(),
        gravity: [0.0, 0.0, -G],
    };
    assert_eq!(tree.inverse_dynamics(&[], &[], &[]), Ok(Vec::new()));
    assert_eq!(tree.forward_dynamics(&[], &[], &[]), Ok(Vec::new()));
    assert_eq!(tree.mass_matrix(&[]), Ok(Vec::new()));
    assert_eq!(tree.energy(&[], &[]), Ok((0.0, 0.0)));
}
