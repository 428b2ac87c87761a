//! Generated forward dynamics (Vereshchagin's separate-bodies method) for
//! every bundled spec, and its folded twin where the spec has one
//! (`folded_twin`): it inverts the generated
//! inverse dynamics, agrees with the numeric articulated-body algorithm of
//! `sharnir-numeric`, and reproduces the textbook's triple-pendulum example.
//!
//! Tolerance: 1e-10 relative to `max(1, ‖q̈‖∞)` on 50 seeded random states
//! per spec; the textbook example is exact to 1e-12.

use sharnir_tests::oracle::{relative_error, Oracle, States};

const TOLERANCE: f64 = 1e-10;

macro_rules! forward_dynamics_agrees {
    ($test:ident, $runtime:ident, $($folded:ident,)? $stem:literal) => {
        #[test]
        fn $test() {
            use sharnir_generated::$runtime as generated;
            const N: usize = generated::NV;
            const NQ: usize = generated::NQ;
            let oracle = Oracle::for_spec($stem);
            let p = generated::Params::default();
            let mut states = States::seeded(0x0F0D_0000 + N as u64);
            for _ in 0..50 {
                let (q, qd, qdd) = oracle.sample::<NQ, N>(&mut states);
                let tau = generated::inverse_dynamics(&p, &q, &qd, &qdd);
                let got = generated::forward_dynamics(&p, &q, &qd, &tau);
                let err = relative_error(&got, &qdd);
                assert!(
                    err < TOLERANCE,
                    "{}: forward_dynamics(inverse_dynamics(q̈)) off by {err:e} at q={q:?}\n got {got:?}\nwant {qdd:?}",
                    $stem
                );
                $({
                    use sharnir_generated::$folded as folded;
                    let got = folded::forward_dynamics(&folded::Params::default(), &q, &qd, &tau);
                    let err = relative_error(&got, &qdd);
                    assert!(
                        err < TOLERANCE,
                        "{}: folded forward_dynamics(inverse_dynamics(q̈)) off by {err:e} at q={q:?}",
                        $stem
                    );
                })?
                // An independent joint-force vector: the sampled q̈ reused as τ.
                let tau = qdd;
                let want = oracle.forward_dynamics(&q, &qd, &tau);
                let got = generated::forward_dynamics(&p, &q, &qd, &tau);
                let err = relative_error(&got, &want);
                assert!(
                    err < TOLERANCE,
                    "{}: differs from the numeric ABA by {err:e} at q={q:?}\n got {got:?}\nwant {want:?}",
                    $stem
                );
                $({
                    use sharnir_generated::$folded as folded;
                    let got = folded::forward_dynamics(&folded::Params::default(), &q, &qd, &tau);
                    let err = relative_error(&got, &want);
                    assert!(
                        err < TOLERANCE,
                        "{}: folded module differs from the numeric ABA by {err:e} at q={q:?}",
                        $stem
                    );
                })?
            }
        }
    };
}

forward_dynamics_agrees!(telegin6, telegin6, telegin6_folded, "telegin6");
forward_dynamics_agrees!(
    telegin3_cartesian,
    telegin3_cartesian,
    telegin3_cartesian_folded,
    "telegin3_cartesian"
);
forward_dynamics_agrees!(
    telegin3_cylindrical,
    telegin3_cylindrical,
    telegin3_cylindrical_folded,
    "telegin3_cylindrical"
);
forward_dynamics_agrees!(
    triple_pendulum,
    triple_pendulum,
    triple_pendulum_folded,
    "triple_pendulum"
);
forward_dynamics_agrees!(chain10, chain10, chain10_folded, "chain10");
forward_dynamics_agrees!(puma560, puma560, puma560_folded, "puma560");
forward_dynamics_agrees!(
    puma560_symbolic,
    puma560_symbolic,
    puma560_symbolic_folded,
    "puma560_symbolic"
);
forward_dynamics_agrees!(
    double_pendulum,
    double_pendulum,
    double_pendulum_folded,
    "double_pendulum"
);
forward_dynamics_agrees!(ur5, ur5, ur5_folded, "ur5");
forward_dynamics_agrees!(panda, panda, panda_folded, "panda");
forward_dynamics_agrees!(
    solo12_fixed,
    solo12_fixed,
    solo12_fixed_folded,
    "solo12_fixed"
);
forward_dynamics_agrees!(panda_gripper, panda_gripper, "panda_gripper");
forward_dynamics_agrees!(joint_zoo, joint_zoo, "joint_zoo");
forward_dynamics_agrees!(floating_chain, floating_chain, "floating_chain");
forward_dynamics_agrees!(solar_array, solar_array, solar_array_folded, "solar_array");

/// The triple pendulum at rest with all rods along +x, where the textbook's
/// closed-form Lagrange equations in absolute angles q (digest §3.7) reduce
/// to `a q̈ + (5, 3, 1) = Q` with `a = [[10, 6, 2], [6, 6, 2], [2, 2, 2]]`.
/// The spec's coordinates are relative angles, θ₁ = q₁, θ₂ = q₂ − q₁,
/// θ₃ = q₃ − q₂, and its joint torques are `τ_k = Q_k + … + Q_3`. Returns
/// θ̈ from the runtime-parameter and the folded module.
fn triple_pendulum_at_rest(tau: [f64; 3]) -> [[f64; 3]; 2] {
    use sharnir_generated::{triple_pendulum, triple_pendulum_folded};
    let rest = [0.0; 3];
    [
        triple_pendulum::forward_dynamics(&triple_pendulum::Params::default(), &rest, &rest, &tau),
        triple_pendulum_folded::forward_dynamics(
            &triple_pendulum_folded::Params::default(),
            &rest,
            &rest,
            &tau,
        ),
    ]
}

/// Absolute-angle accelerations `(q̈₁, q̈₂, q̈₃)` as relative ones `θ̈`.
fn relative(absolute: [f64; 3]) -> [f64; 3] {
    [
        absolute[0],
        absolute[1] - absolute[0],
        absolute[2] - absolute[1],
    ]
}

/// Yudintsev (2008), Sec. 3.5, the separate-bodies MATLAB example: released
/// from rest, the pendulum starts with q̈ = (−0.5, 0, 0) (digest verification
/// case 4a). Gravity enters here as a ground acceleration, not as the book's
/// loads `Q_k`, so this case does not see the sign of (3.177); the driven
/// case below and the random states above do.
#[test]
fn triple_pendulum_released_from_rest_matches_the_textbook() {
    let want = relative([-0.5, 0.0, 0.0]);
    for got in triple_pendulum_at_rest([0.0; 3]) {
        for i in 0..3 {
            assert!(
                (got[i] - want[i]).abs() < 1e-12,
                "θ̈{} = {}, textbook {}",
                i + 1,
                got[i],
                want[i]
            );
        }
    }
}

/// Driven from rest: for q̈ = (1, −1, 2), `a q̈ = (8, 4, 4)`, so
/// Q = (13, 7, 5) and τ = (25, 12, 5). Joint forces reach the parents only
/// through the load recursion (3.177), so its sign decides this case.
#[test]
fn triple_pendulum_driven_from_rest_matches_the_lagrange_equations() {
    let want = relative([1.0, -1.0, 2.0]);
    for got in triple_pendulum_at_rest([25.0, 12.0, 5.0]) {
        for i in 0..3 {
            assert!(
                (got[i] - want[i]).abs() < 1e-12,
                "θ̈{} = {}, Lagrange {}",
                i + 1,
                got[i],
                want[i]
            );
        }
    }
}
