//! The CRBA's `M` against the one read off Newton–Euler, on every bundled
//! spec with folded parameters, evaluated by `Pool::eval` at seeded states.
//! (The end-to-end comparison with the numeric oracle and random
//! mechanisms is `tests/crba.rs`.)

use super::{mass_matrix, mass_matrix_regrouped, FirstStep};
use crate::formalisms::joint_space::joint_space;
use crate::formalisms::rnea::{inverse_dynamics, PointAcceleration};
use crate::model::inputs::Input;
use crate::model::{Mechanism, ParameterMode};
use crate::test_support::{positions, specs, Lcg};
use sharnir_cas::Id;

fn evaluate(mechanism: &Mechanism, roots: &[Id], q: &[f64]) -> Vec<f64> {
    let env = |symbol: &Input| match symbol {
        Input::Position(i) => q.get(*i).copied(),
        _ => None,
    };
    mechanism
        .pool
        .eval(roots, &env)
        .expect("M reads positions only")
}

#[test]
fn crba_matches_newton_euler_on_every_bundled_spec() {
    let mut rng = Lcg(0x00C0_FFEE);
    for (name, spec) in specs() {
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec builds");
        let tau = inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
        let reference = joint_space(&mut mechanism.pool, &tau).mass_matrix.concat();
        let mut variants = Vec::new();
        for first_step in [FirstStep::Carried, FirstStep::InParent] {
            variants.push((
                "own",
                first_step,
                mass_matrix(&mut mechanism, first_step).concat(),
            ));
            variants.push((
                "regrouped",
                first_step,
                mass_matrix_regrouped(&mut mechanism, first_step).concat(),
            ));
        }
        for (what, first_step, got) in &variants {
            for (a, b) in reference.iter().zip(got) {
                // Branch-induced zeros are exact in the CRBA too (it may find
                // more: the base block of a free body, `m 1`, is diagonal).
                assert!(
                    !mechanism.pool.is_zero(*a) || mechanism.pool.is_zero(*b),
                    "{name} ({what}, {first_step:?}): a zero of Newton–Euler's M is not \
                     zero in the CRBA's"
                );
            }
        }
        for _ in 0..5 {
            let q = positions(&mechanism, &mut rng);
            let want = evaluate(&mechanism, &reference, &q);
            let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            for (what, first_step, got) in &variants {
                let got = evaluate(&mechanism, got, &q);
                let err = got
                    .iter()
                    .zip(&want)
                    .fold(0.0_f64, |m, (g, w)| m.max((g - w).abs()));
                assert!(
                    err <= 1e-12 * scale,
                    "{name} ({what}, {first_step:?}): CRBA off by {err:e} at q = {q:?}"
                );
            }
        }
    }
}
