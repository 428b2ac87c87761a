//! The outputs of every generated module against each other, against the
//! numeric oracle, and against finite differences:
//!
//! - `joint_space` equals `mass_matrix`, `bias` and `gravity` (1e-12);
//! - `C q̇ + g = bias` and `Ṁ − 2C` skew-symmetric (Ṁ by central differences
//!   along q̇), to 1e-12 and 1e-6 relative;
//! - energy against the numeric oracle (1e-12), `T = ½ q̇ᵀ M q̇` (1e-12), and
//!   the power balance `d/dt (T + V) = q̇ᵀ τ` by a fourth-order central
//!   difference along the motion (1e-7);
//! - body poses against the numeric oracle's forward kinematics (1e-12);
//! - body Jacobians against finite differences of the poses: `J_v q̇ = ṙ`
//!   and `[J_ω q̇]× = Ṙ Rᵀ` (1e-7).
//!
//! Tolerances are relative to `max(1, ‖expected‖∞)`; each property runs on
//! 20 seeded random states per spec.

use sharnir_tests::oracle::{relative_error, Oracle, States};

/// Central difference of `f` at `s = 0` with step `h`, fourth order.
fn derivative(f: impl Fn(f64) -> Vec<f64>, h: f64) -> Vec<f64> {
    let (p1, m1, p2, m2) = (f(h), f(-h), f(2.0 * h), f(-2.0 * h));
    (0..p1.len())
        .map(|i| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * h))
        .collect()
}

/// `x + s·dx`, entrywise.
fn along<const N: usize>(x: &[f64; N], dx: &[f64; N], s: f64) -> [f64; N] {
    core::array::from_fn(|i| x[i] + s * dx[i])
}

macro_rules! identities_hold {
    ($test:ident, $module:ident, $stem:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$module as m;
            const N: usize = m::NV;
            const NQ: usize = m::NQ;
            let oracle = Oracle::for_spec($stem);
            let p = m::Params::default();
            let mut states = States::seeded(0x1DE7_0000 + N as u64);
            for _ in 0..20 {
                let (q, qd, qdd) = oracle.sample::<NQ, N>(&mut states);
                // The configuration moves along q̇ = coordinate_rates(q, q̇): for a
                // quaternion the path leaves the unit sphere only at second order,
                // which central differences cancel.
                let rates = m::coordinate_rates(&p, &q, &qd);
                let stem = $stem;

                let c = m::coriolis_matrix(&p, &q, &qd);
                let g = m::gravity(&p, &q);
                let c_qd_g: Vec<f64> = (0..N)
                    .map(|i| (0..N).map(|j| c[i][j] * qd[j]).sum::<f64>() + g[i])
                    .collect();
                let err = relative_error(&c_qd_g, &m::bias(&p, &q, &qd));
                assert!(err < 1e-12, "{stem}: C q̇ + g ≠ bias by {err:e}");

                let together = m::joint_space(&p, &q, &qd);
                let apart = [
                    m::mass_matrix(&p, &q).concat(),
                    m::bias(&p, &q, &qd).to_vec(),
                    g.to_vec(),
                ]
                .concat();
                let joint = [
                    together.mass_matrix.concat(),
                    together.bias.to_vec(),
                    together.gravity.to_vec(),
                ]
                .concat();
                let err = relative_error(&joint, &apart);
                assert!(err < 1e-12, "{stem}: joint_space ≠ (M, bias, g) by {err:e}");
                let m_dot =
                    derivative(|s| m::mass_matrix(&p, &along(&q, &rates, s)).concat(), 1e-4);
                let skew: Vec<f64> = (0..N * N)
                    .map(|k| {
                        let (i, j) = (k / N, k % N);
                        (m_dot[i * N + j] - 2.0 * c[i][j]) + (m_dot[j * N + i] - 2.0 * c[j][i])
                    })
                    .collect();
                let err = relative_error(&skew, &[0.0; N * N]);
                assert!(
                    err < 1e-6,
                    "{stem}: Ṁ − 2C not skew, symmetric part {err:e}"
                );

                let (t, v) = m::energy(&p, &q, &qd);
                let (t_want, v_want) = oracle.energy(&q, &qd);
                let err = relative_error(&[t, v], &[t_want, v_want]);
                assert!(err < 1e-12, "{stem}: energy off by {err:e}");
                let mass = m::mass_matrix(&p, &q);
                let quadratic: f64 = (0..N)
                    .map(|i| {
                        (0..N)
                            .map(|j| 0.5 * qd[i] * mass[i][j] * qd[j])
                            .sum::<f64>()
                    })
                    .sum();
                let err = relative_error(&[t], &[quadratic]);
                assert!(err < 1e-12, "{stem}: T ≠ ½ q̇ᵀMq̇ by {err:e}");
                let tau = m::inverse_dynamics(&p, &q, &qd, &qdd);
                let power: f64 = (0..N).map(|i| qd[i] * tau[i]).sum();
                let total = |s: f64| {
                    let (t, v) = m::energy(&p, &along(&q, &rates, s), &along(&qd, &qdd, s));
                    vec![t + v]
                };
                let err = relative_error(&derivative(total, 1e-3), &[power]);
                assert!(err < 1e-7, "{stem}: d/dt (T + V) ≠ q̇ᵀτ by {err:e}");

                let poses = m::body_poses(&p, &q);
                let want = oracle.body_poses_named(&q, &m::BODY_NAMES);
                assert_eq!(poses.len(), want.len());
                for (k, (pose, (rotation, position))) in poses.iter().zip(&want).enumerate() {
                    let got = [pose.rotation.concat(), pose.position.to_vec()].concat();
                    let expected = [rotation.concat(), position.to_vec()].concat();
                    let err = relative_error(&got, &expected);
                    assert!(
                        err < 1e-12,
                        "{stem}: pose of {} off by {err:e}",
                        m::BODY_NAMES[k]
                    );
                }

                let jacobians = m::body_jacobians(&p, &q);
                for (k, jacobian) in jacobians.iter().enumerate() {
                    let rate = |row: &[f64; N]| (0..N).map(|j| row[j] * qd[j]).sum::<f64>();
                    let position = |s: f64| {
                        m::body_poses(&p, &along(&q, &rates, s))[k]
                            .position
                            .to_vec()
                    };
                    let velocity = derivative(position, 1e-4);
                    let linear: Vec<f64> = jacobian[..3].iter().map(rate).collect();
                    let err = relative_error(&linear, &velocity);
                    assert!(
                        err < 1e-7,
                        "{stem}: J_v of {} off by {err:e}",
                        m::BODY_NAMES[k]
                    );
                    let rotation = |s: f64| {
                        m::body_poses(&p, &along(&q, &rates, s))[k]
                            .rotation
                            .concat()
                    };
                    let r_dot = derivative(rotation, 1e-4);
                    let r = poses[k].rotation;
                    // Ṙ Rᵀ = [ω]×: read ω from its entries (2,1), (0,2), (1,0).
                    let spin = |i: usize, j: usize| {
                        (0..3).map(|l| r_dot[i * 3 + l] * r[j][l]).sum::<f64>()
                    };
                    let omega = [spin(2, 1), spin(0, 2), spin(1, 0)];
                    let angular: Vec<f64> = jacobian[3..].iter().map(rate).collect();
                    let err = relative_error(&angular, &omega);
                    assert!(
                        err < 1e-7,
                        "{stem}: J_ω of {} off by {err:e}",
                        m::BODY_NAMES[k]
                    );
                }
            }
        }
    };
}

identities_hold!(telegin6, telegin6, "telegin6");
identities_hold!(telegin6_folded, telegin6_folded, "telegin6");
identities_hold!(telegin3_cartesian, telegin3_cartesian, "telegin3_cartesian");
identities_hold!(
    telegin3_cylindrical,
    telegin3_cylindrical,
    "telegin3_cylindrical"
);
identities_hold!(triple_pendulum, triple_pendulum, "triple_pendulum");
identities_hold!(chain10, chain10, "chain10");
identities_hold!(chain10_folded, chain10_folded, "chain10");
identities_hold!(puma560, puma560, "puma560");
identities_hold!(puma560_folded, puma560_folded, "puma560");
identities_hold!(double_pendulum, double_pendulum, "double_pendulum");
identities_hold!(ur5, ur5, "ur5");
identities_hold!(panda, panda, "panda");
identities_hold!(solo12_fixed, solo12_fixed, "solo12_fixed");
identities_hold!(panda_gripper, panda_gripper, "panda_gripper");
identities_hold!(joint_zoo, joint_zoo, "joint_zoo");
identities_hold!(floating_chain, floating_chain, "floating_chain");
identities_hold!(solar_array, solar_array, "solar_array");
