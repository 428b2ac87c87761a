//! Geometric Jacobians of the body frames.
//!
//! A controller maps joint rates to the velocity of a tool or a foot with
//! them: `[v; ω] = J(q) q̇`, with `v` the velocity of the body-frame origin
//! and `ω` the angular velocity, both in ground coordinates. The twist is
//! linear in the joint rates for every joint type, so column `k` of a
//! body's Jacobian is the twist the body has when only rate `k` is one:
//! the twist recursion of [`crate::geometry::kinematics::twists`] run per
//! column, carrying a parent's columns outward and adding the joint's own.
//! Each column costs a constant number of operations whatever the depth
//! of the body, so the Jacobians of a chain of `n` bodies are built in
//! `O(n²)`, the size of the output (differentiating each body's twist
//! by each rate walks the twist once per column: `O(n³)`). The velocity of
//! another point `p` of the body (ground coordinates, relative to the
//! origin) is `v + ω × p`.

use crate::geometry::kinematics::{placement, poses, relative_motion, Twist};
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{Mechanism, Placement};
use sharnir_cas::{Id, Pool};

/// For every body (regular order), the 6 × NV Jacobian: rows 0–2 the
/// velocity of the origin of the body's own frame (see
/// [`crate::model::TreeBody::body_frame`]), rows 3–5 the angular velocity, in
/// ground coordinates.
pub fn body_jacobians(mechanism: &mut Mechanism) -> Vec<[Vec<Id>; 6]> {
    let poses = poses(mechanism);
    let n = mechanism.dof();
    let Mechanism { pool, bodies, .. } = mechanism;
    let zero = pool.zero();
    // For every body, its twist (body coordinates) per unit rate of each
    // velocity coordinate; `None` where the rate does not move the body.
    let mut columns: Vec<Vec<Option<Twist>>> = Vec::with_capacity(bodies.len());
    let mut jacobians = Vec::with_capacity(bodies.len());
    for (body, pose) in bodies.iter().zip(&poses) {
        let (to_parent, origin) = placement(pool, body);
        let mut own: Vec<Option<Twist>> = match body.parent.and_then(|p| columns.get(p)) {
            Some(parent) => parent
                .iter()
                .map(|column| column.map(|twist| carried(pool, &to_parent, origin, twist)))
                .collect(),
            None => vec![None; n],
        };
        let nv = body.kind.nv();
        for e in 0..nv {
            // A follower's rate is its leader's times the multiplier.
            let rate = body
                .coupling
                .as_ref()
                .map_or_else(|| pool.one(), |c| c.multiplier);
            let mut unit = vec![zero; nv];
            unit[e] = rate;
            let (linear, angular) = relative_motion(pool, body, &unit);
            let Some(slot) = own.get_mut(body.velocity + e) else {
                continue;
            };
            *slot = Some(match *slot {
                Some(twist) => Twist {
                    angular: pool.add3(twist.angular, angular),
                    linear: pool.add3(twist.linear, linear),
                },
                None => Twist { angular, linear },
            });
        }
        let mut rows: [Vec<Id>; 6] = Default::default();
        for column in &own {
            let entries = match column {
                Some(twist) => in_ground(pool, body.body_frame.as_ref(), &pose.rotation, twist),
                None => [zero; 6],
            };
            for (row, entry) in rows.iter_mut().zip(entries) {
                row.push(entry);
            }
        }
        jacobians.push(rows);
        columns.push(own);
    }
    jacobians
}

/// A parent's twist seen in the child's coordinates (`ω = Eᵀω_p`,
/// `v = Eᵀ(v_p + ω_p × o)`), the child's joint at rest.
fn carried(pool: &mut Pool, to_parent: &Mat3, origin: Vec3, parent: Twist) -> Twist {
    let lever = pool.cross3(parent.angular, origin);
    let at_origin = pool.add3(parent.linear, lever);
    Twist {
        angular: pool.mat_t_vec(to_parent, parent.angular),
        linear: pool.mat_t_vec(to_parent, at_origin),
    }
}

/// One column of the Jacobian: a twist in body coordinates as the velocity
/// of the body frame's origin and the angular velocity, in ground
/// coordinates.
fn in_ground(
    pool: &mut Pool,
    body_frame: Option<&Placement>,
    rotation: &Mat3,
    twist: &Twist,
) -> [Id; 6] {
    let origin_velocity = match body_frame {
        Some(offset) => {
            let lever = pool.cross3(twist.angular, offset.translation);
            pool.add3(twist.linear, lever)
        }
        None => twist.linear,
    };
    let linear = pool.mat_vec(rotation, origin_velocity);
    let angular = pool.mat_vec(rotation, twist.angular);
    [
        linear[0], linear[1], linear[2], angular[0], angular[1], angular[2],
    ]
}

#[cfg(test)]
mod tests {
    use super::body_jacobians;
    use crate::geometry::kinematics::{poses, twists};
    use crate::model::inputs::Input;
    use crate::model::vec3::Vec3Ops;
    use crate::model::{Mechanism, ParameterMode};
    use crate::test_support::{positions, specs, Lcg};
    use sharnir_cas::Id;

    /// The Jacobians by definition: each body's twist in ground
    /// coordinates differentiated by each joint rate.
    fn derivatives_of_the_twists(mechanism: &mut Mechanism) -> Vec<Vec<Id>> {
        let poses = poses(mechanism);
        let twists = twists(mechanism);
        let n = mechanism.dof();
        let pool = &mut mechanism.pool;
        let rates: Vec<Id> = (0..n).map(|j| pool.input(Input::Velocity(j))).collect();
        let mut jacobians = Vec::new();
        for ((pose, twist), body) in poses.iter().zip(&twists).zip(&mechanism.bodies) {
            let origin_velocity = match &body.body_frame {
                Some(offset) => {
                    let lever = pool.cross3(twist.angular, offset.translation);
                    pool.add3(twist.linear, lever)
                }
                None => twist.linear,
            };
            let linear = pool.mat_vec(&pose.rotation, origin_velocity);
            let angular = pool.mat_vec(&pose.rotation, twist.angular);
            let rows = linear.into_iter().chain(angular);
            jacobians.push(
                rows.flat_map(|row| {
                    rates
                        .iter()
                        .map(|&qd| pool.diff(row, qd))
                        .collect::<Vec<_>>()
                })
                .collect(),
            );
        }
        jacobians
    }

    #[test]
    fn the_columns_are_the_derivatives_of_the_twists_on_every_bundled_spec() {
        let mut rng = Lcg(0x0004_AC0B);
        for (name, spec) in specs() {
            let mut mechanism =
                Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec builds");
            let got: Vec<Vec<Id>> = body_jacobians(&mut mechanism)
                .into_iter()
                .map(|rows| rows.concat())
                .collect();
            let want = derivatives_of_the_twists(&mut mechanism);
            assert_eq!(got.len(), want.len(), "{name}: one Jacobian per body");
            for _ in 0..3 {
                let q = positions(&mechanism, &mut rng);
                let env = |symbol: &Input| match symbol {
                    Input::Position(i) => q.get(*i).copied(),
                    _ => None,
                };
                for (body, (got, want)) in got.iter().zip(&want).enumerate() {
                    let got = mechanism.pool.eval(got, &env).expect("reads positions");
                    let want = mechanism.pool.eval(want, &env).expect("reads positions");
                    let err = got
                        .iter()
                        .zip(&want)
                        .fold(0.0_f64, |m, (g, w)| m.max((g - w).abs()));
                    let scale = want.iter().fold(1.0_f64, |m, w| m.max(w.abs()));
                    assert!(
                        err <= 1e-13 * scale,
                        "{name}: Jacobian of body {body} off by {err:e}"
                    );
                }
            }
        }
    }
}
