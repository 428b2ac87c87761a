//! Mixed dynamics: some coordinates prescribed as functions of time, the
//! others free. The textbook's controlled variables (Sec. 3.3.1, (3.90)–
//! (3.92)): with the coordinates split into free `f` and prescribed `p`,
//! ```text
//! M_ff q̈_f = τ_f − bias_f − M_fp q̈_p          (the reduced system)
//! τ_drive  = M_pf q̈_f + M_pp q̈_p + bias_p − τ_p (what the drives supply)
//! ```
//! where `q_p`, `q̇_p` and `q̈_p` are the laws of `[motion]` and their
//! derivatives at `t`, substituted into `M(q)` and `bias(q, q̇)` before the
//! solve, so that the result depends on `t` and the free coordinates only.
//! The reduced system is solved by the symbolic `L D Lᵀ` of
//! [`crate::formalisms::lagrange`]'s forward dynamics; with every
//! coordinate prescribed it is empty and `τ_drive` is the inverse dynamics
//! along the laws, with none it is the forward dynamics.

use crate::formalisms::joint_space::JointSpace;
use crate::formalisms::spd::spd_solve;
use crate::model::inputs::Input;
use crate::model::motion::Prescribed;
use sharnir_cas::{Id, Pool};
use std::collections::HashMap;

/// Every acceleration (`NV`, the prescribed ones the laws' `q̈`), then the
/// drive force of every prescribed coordinate (`[motion]` order), as
/// expressions of `t`, the parameters, the free coordinates' `q` and `q̇`,
/// and the joint forces `τ` (`Input::Force`).
pub fn mixed_dynamics(pool: &mut Pool, terms: &JointSpace, motion: &[Prescribed]) -> Vec<Id> {
    let n = terms.bias.len();
    let mut laws = HashMap::new();
    for prescribed in motion {
        let [position, rate, _] = prescribed.law;
        laws.insert(pool.input(Input::Position(prescribed.position)), position);
        laws.insert(pool.input(Input::Velocity(prescribed.velocity)), rate);
    }
    let mass: Vec<Vec<Id>> = terms
        .mass_matrix
        .iter()
        .map(|row| pool.substitute(row, &laws))
        .collect();
    let bias = pool.substitute(&terms.bias, &laws);
    let known = |i: usize| motion.iter().find(|m| m.velocity == i).map(|m| m.law[2]);
    let free: Vec<usize> = (0..n).filter(|&i| known(i).is_none()).collect();
    // τ_i − bias_i − Σ_p M_ip q̈_p, for every row.
    let right: Vec<Id> = (0..n)
        .map(|i| {
            let tau = pool.input(Input::Force(i));
            let mut sum = pool.sub(tau, bias[i]);
            for prescribed in motion {
                let term = pool.mul(mass[i][prescribed.velocity], prescribed.law[2]);
                sum = pool.sub(sum, term);
            }
            sum
        })
        .collect();
    let reduced: Vec<Vec<Id>> = free
        .iter()
        .map(|&i| free.iter().map(|&j| mass[i][j]).collect())
        .collect();
    let reduced_right: Vec<Id> = free.iter().map(|&i| right[i]).collect();
    let solved = spd_solve(pool, &reduced, &reduced_right);
    let mut accelerations: Vec<Id> = (0..n).map(|i| known(i).unwrap_or(pool.zero())).collect();
    for (&i, &a) in free.iter().zip(&solved) {
        accelerations[i] = a;
    }
    // The drive force closes row p: M_p· q̈ − (τ_p − bias_p) = τ_drive.
    let drives: Vec<Id> = motion
        .iter()
        .map(|prescribed| {
            let p = prescribed.velocity;
            let mut sum = pool.neg(right[p]);
            for &f in &free {
                let term = pool.mul(mass[p][f], accelerations[f]);
                sum = pool.add(sum, term);
            }
            sum
        })
        .collect();
    accelerations.extend(drives);
    accelerations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formalisms::rnea::{self, PointAcceleration};
    use crate::formalisms::{joint_space, lagrange};
    use crate::model::{Mechanism, ParameterMode};
    use crate::test_support::{positions, specs, Lcg};

    /// UR5 with its parameters folded: six spatial revolute joints.
    fn arm() -> Mechanism {
        let (_, spec) = specs()
            .into_iter()
            .find(|(name, _)| name.ends_with("ur5.spec"))
            .expect("specs/ur5.spec");
        Mechanism::from_spec(&spec, ParameterMode::Folded).expect("a tree")
    }

    /// Laws `a sin(b t) + c` on the coordinates `which`.
    fn laws(mechanism: &mut Mechanism, which: &[usize], rng: &mut Lcg) -> Vec<Prescribed> {
        let pool = &mut mechanism.pool;
        let time = pool.input(Input::Time);
        which
            .iter()
            .map(|&i| {
                // Rationals k/64 with k from the generator.
                let [a, b, c] = [rng.next(), 2.0 * rng.next(), rng.next()]
                    .map(|x| pool.num(sharnir_cas::Coeff::ratio((64.0 * x).round() as i128, 64)));
                let bt = pool.mul(b, time);
                let sine = pool.sin(bt);
                let scaled = pool.mul(a, sine);
                let value = pool.add(scaled, c);
                let rate = pool.diff(value, time);
                let acceleration = pool.diff(rate, time);
                Prescribed {
                    name: format!("q{i}"),
                    velocity: i,
                    position: i,
                    law: [value, rate, acceleration],
                }
            })
            .collect()
    }

    /// `M q̈ + bias = τ + drives` at random states, the prescribed rows'
    /// accelerations their laws', for none, some and all coordinates
    /// prescribed; with none, the accelerations are the forward dynamics'.
    #[test]
    fn the_equations_of_motion_hold_with_any_coordinates_prescribed() {
        let mut mechanism = arm();
        let n = mechanism.dof();
        let tau_ne = rnea::inverse_dynamics(&mut mechanism, PointAcceleration::AccelerationField);
        let terms = joint_space::joint_space(&mut mechanism.pool, &tau_ne);
        let forward = lagrange::forward_dynamics(&mut mechanism.pool, &terms);
        let mut rng = Lcg(7);
        for which in [vec![], vec![1, 4], (0..n).collect::<Vec<_>>()] {
            let motion = laws(&mut mechanism, &which, &mut rng);
            let mixed = mixed_dynamics(&mut mechanism.pool, &terms, &motion);
            let t = 1.3;
            let mut q = positions(&mechanism, &mut rng);
            let mut v: Vec<f64> = (0..n).map(|_| rng.next()).collect();
            let tau: Vec<f64> = (0..n).map(|_| 5.0 * rng.next()).collect();
            let pool = &mechanism.pool;
            let env = |s: &Input| match s {
                Input::Time => Some(t),
                Input::Position(i) => q.get(*i).copied(),
                Input::Velocity(i) => v.get(*i).copied(),
                Input::Force(i) => tau.get(*i).copied(),
                _ => None,
            };
            let values = pool.eval(&mixed, &env).expect("bound");
            let (qdd, drives) = values.split_at(n);
            if which.is_empty() {
                let expected = pool.eval(&forward, &env).expect("bound");
                for (a, b) in qdd.iter().zip(&expected) {
                    assert!(
                        (a - b).abs() < 1e-10 * b.abs().max(1.0),
                        "{qdd:?} vs {expected:?}"
                    );
                }
            }
            // The full state along the laws, then Newton–Euler.
            let on_laws: Vec<Vec<f64>> = motion
                .iter()
                .map(|m| pool.eval(&m.law, &env).expect("bound"))
                .collect();
            for (m, law) in motion.iter().zip(&on_laws) {
                q[m.position] = law[0];
                v[m.velocity] = law[1];
                assert_eq!(qdd[m.velocity], law[2]);
            }
            let env = |s: &Input| match s {
                Input::Position(i) => q.get(*i).copied(),
                Input::Velocity(i) => v.get(*i).copied(),
                Input::Acceleration(i) => qdd.get(*i).copied(),
                _ => None,
            };
            let needed = pool.eval(&tau_ne, &env).expect("bound");
            let mut given = tau.clone();
            for (m, d) in motion.iter().zip(drives) {
                given[m.velocity] += d;
            }
            for (a, b) in needed.iter().zip(&given) {
                assert!(
                    (a - b).abs() < 1e-9 * b.abs().max(1.0),
                    "prescribed {which:?}: {needed:?} vs {given:?}"
                );
            }
        }
    }
}

#[cfg(test)]
mod moving_base {
    use super::*;
    use crate::formalisms::rnea::{self, PointAcceleration};
    use crate::formalisms::{joint_space, lagrange};
    use crate::model::{Mechanism, ParameterMode};

    /// Two links on revolute joints about x and y; `base` is a `[base]`
    /// table (or nothing) and `origin` the hip's placement on what it
    /// hangs from.
    fn links(base: &str, origin: &str) -> Mechanism {
        let text = format!(
            r#"
[mechanism]
name = "links"
gravity = [0, 0, -9.81]

{base}

[[body]]
name = "link"
mass = 1.5
com = [0.1, 0, -0.4]
inertia = [0.09, 0.08, 0.02, 0.001, 0.002, 0.003]

[[body]]
name = "rod"
mass = 0.7
com = [0, 0.05, -0.3]
inertia = [0.03, 0.02, 0.01]

[[joint]]
name = "hip"
type = "revolute"
parent = "ground"
child = "link"
axis = [1, 0, 0]
origin = {origin}

[[joint]]
name = "knee"
type = "revolute"
parent = "link"
child = "rod"
axis = [0, 1, 0]
origin = {{ xyz = [0, 0, -0.8] }}
"#
        );
        let source = sharnir_spec::Source {
            name: "links.spec".into(),
            text,
        };
        let spec = sharnir_spec::parse(source).expect("valid spec");
        Mechanism::from_spec(&spec, ParameterMode::Folded).expect("a tree")
    }

    /// The two links' accelerations at one state: from `mixed_dynamics`
    /// aboard a base, from the forward dynamics on a fixed one.
    fn accelerations(mut mechanism: Mechanism) -> [f64; 2] {
        let tau = rnea::inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
        let terms = joint_space::joint_space(&mut mechanism.pool, &tau);
        let motion = mechanism.motion.clone();
        let outputs = if motion.is_empty() {
            lagrange::forward_dynamics(&mut mechanism.pool, &terms)
        } else {
            mixed_dynamics(&mut mechanism.pool, &terms, &motion)
        };
        let n = mechanism.dof();
        let (q, v, f) = ([0.4, -0.7], [1.1, -0.6], [0.3, -0.2]);
        let link = |values: &[f64; 2], i: usize| i.checked_sub(n - 2).map_or(0.0, |k| values[k]);
        let env = |s: &Input| match s {
            Input::Time => Some(0.8),
            Input::Position(i) => Some(link(&q, *i)),
            Input::Velocity(i) => Some(link(&v, *i)),
            Input::Force(i) => Some(link(&f, *i)),
            _ => None,
        };
        let values = mechanism.pool.eval(&outputs, &env).expect("bound");
        [values[n - 2], values[n - 1]]
    }

    /// A base standing still at a pose moves the links as a fixed base
    /// whose hip is placed by the same pose composed with its own
    /// placement through `origin` (another path through the rotations):
    /// for `rpy` and for `rotations`.
    #[test]
    fn a_base_at_rest_is_a_fixed_placement() {
        let (p, [roll, pitch, yaw]) = ([0.2, -0.1, 0.3], [0.3, -0.2, 0.5]);
        let hip = [0.2, 0.1, 0.5];
        // R = Rz(yaw) Ry(pitch) Rx(roll), the hip at p + R hip.
        let (sr, cr, sp, cp, sy, cy) = (
            f64::sin(roll),
            f64::cos(roll),
            f64::sin(pitch),
            f64::cos(pitch),
            f64::sin(yaw),
            f64::cos(yaw),
        );
        let r = [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ];
        let at: Vec<f64> = (0..3)
            .map(|i| p[i] + (0..3).map(|k| r[i][k] * hip[k]).sum::<f64>())
            .collect();
        let base_xyz = format!("xyz = [{}, {}, {}]", p[0], p[1], p[2]);
        let fixed = accelerations(links(
            "",
            &format!(
                "{{ xyz = [{}, {}, {}], rpy = [{roll}, {pitch}, {yaw}] }}",
                at[0], at[1], at[2]
            ),
        ));
        let hip_origin = format!("{{ xyz = [{}, {}, {}] }}", hip[0], hip[1], hip[2]);
        for orientation in [
            format!("rpy = [{roll}, {pitch}, {yaw}]"),
            format!("rotations = [[\"z\", {yaw}], [\"y\", {pitch}], [\"x\", {roll}]]"),
        ] {
            let aboard = accelerations(links(
                &format!("[base]\n{base_xyz}\n{orientation}"),
                &hip_origin,
            ));
            for (a, b) in aboard.iter().zip(&fixed) {
                assert!(
                    (a - b).abs() < 1e-12 * b.abs().max(1.0),
                    "{aboard:?} vs {fixed:?}"
                );
            }
        }
        assert!(
            fixed.iter().all(|a| a.abs() > 1e-3),
            "the links move: {fixed:?}"
        );
    }
}
