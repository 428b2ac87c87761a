//! The joint-coordinate (Lagrange) formalism of E.A. Sukhov and E.A. Chekina
//! (2024, vol. 16, no. 1, pp. 161–174,
//! after Kim–Vanderploeg and Gim–Nikravesh): the equations of motion of the
//! separate bodies, projected on the joint coordinates by the Jacobian of the
//! body velocities.
//!
//! The paper writes the bodies' equations in absolute coordinates, `M v̇ = g`
//! (block-diagonal `M`, `g` the gyroscopic terms and the applied forces),
//! expresses the body velocities through the joint velocities, `v = B θ̇`,
//! and obtains (its equation (16) without cut joints)
//! ```text
//! 𝓜 θ̈ = f,   𝓜 = Bᵀ M B,   f = Bᵀ (g − M Ḃ θ̇)
//! ```
//! Here every body `k` contributes in its own axes rather than in axes
//! parallel to the ground: its velocity is `νₖ = (v_c; ω)`, the velocity of
//! the centre of mass and the angular velocity in body coordinates, so that
//! `Mₖ = diag(m 1, J_c)` is constant and the zeros of centres of mass and
//! inertias survive, as in [`crate::formalisms::rnea`]. The price is the velocity-product
//! term of the rotating frame in Newton's law. With `(v; ω)` the twist of
//! the body origin ([`crate::geometry::kinematics::twists`]), `c` the centre of mass,
//! `g_k = Rₖᵀ g` gravity in body coordinates and `v` the velocity coordinates:
//! ```text
//! νₖ     = (v + ω × c; ω) = Bₖ(q) v                 Bₖ = ∂νₖ/∂v   (6 × NV)
//! ν̇ₖ     = Bₖ v̇ + Ḃₖ v,   Ḃₖ v = Σᵢ ∂νₖ/∂qᵢ q̇ᵢ      q̇ = coordinate_rates(q, v)
//! m (v̇_c + ω × v_c) = F + m g_k,   J_c ω̇ + ω × J_c ω = N   (body axes)
//! M      = Σₖ Bₖᵀ Mₖ Bₖ
//! bias   = Σₖ Bₖᵀ (Mₖ Ḃₖ v + (m ω × v_c; ω × J_c ω) − (m g_k; 0))
//! gravity = bias at v = 0 = −Σₖ Bₖ,linearᵀ m g_k
//! ```
//! so `M v̇ + bias = τ`, and `bias = −f` at zero joint forces. Projecting the
//! body-axes force and moment with `Bₖᵀ` is the principle of virtual power:
//! `F·v_c + N·ω` does not depend on the axes both are written in, so the
//! body-axes and the paper's ground-axes forms give the same `M` and `f`.
//!
//! `Ḃₖ v` is the derivative of `νₖ(q, v)` along the motion with `v` held
//! fixed (`νₖ` is linear in `v`, so `Ḃₖ v = Σᵢ ∂(Bₖ v)/∂qᵢ q̇ᵢ`), with the
//! position rates of [`crate::geometry::kinematics::coordinate_rates`]. That is what
//! makes the formula hold for spherical and free joints, whose velocities
//! are quasi-velocities (body-axes angular and linear velocities, not the
//! rates of the quaternion): no step assumes `v = q̇`. The derivative is
//! the algebra core's [`sharnir_cas::Pool::along_motion`], the one the
//! Coriolis matrix and the loops' `J̇ q̇` take (differentiating per
//! coordinate gave cheaper code than the forward-mode substitution this
//! file once had).
//!
//! The drives' armature adds `½ a ẋ²` to the kinetic energy, so `M` gains
//! its diagonal ([`crate::formalisms::armature`]) and the bias nothing.
//!
//! The formalism produces the joint-space form itself, so inverse dynamics is
//! `M q̈ + bias` and forward dynamics a symbolic `L D Lᵀ` solve of
//! `M q̈ = τ − bias`: O(n³) where Newton–Euler and the separate-bodies method
//! are O(n), which the operation counts of the generated code show.

use crate::formalisms::armature;
use crate::formalisms::joint_space::JointSpace;
use crate::formalisms::spd::spd_solve;
use crate::geometry::kinematics::{coordinate_rates, placement, twists};
use crate::model::inputs::Input;
use crate::model::vec3::{Vec3, Vec3Ops};
use crate::model::{Mechanism, TreeBody};
use sharnir_cas::{Id, Pool};
use std::collections::HashMap;

/// A 6-vector `(linear; angular)` in body coordinates.
type Six = [Id; 6];

/// `M(q)`, `bias(q, v)` and `gravity(q)` by the joint-coordinate formalism,
/// as expressions in `mechanism.pool`, in velocity-coordinate order.
pub fn joint_space(mechanism: &mut Mechanism) -> JointSpace {
    let twists = twists(mechanism);
    let rates = coordinate_rates(mechanism);
    let (n, nq) = (mechanism.dof(), mechanism.nq());
    let Mechanism {
        pool,
        bodies,
        gravity,
        ..
    } = mechanism;
    let weights = body_gravity(pool, bodies, *gravity);
    let massive: Vec<usize> = (0..bodies.len())
        .filter(|&k| has_inertia(pool, &bodies[k]))
        .collect();
    let velocities: Vec<Six> = massive
        .iter()
        .map(|&k| {
            let twist = &twists[k];
            let spin = pool.cross3(twist.angular, bodies[k].com);
            let v_com = pool.add3(twist.linear, spin);
            six(v_com, twist.angular)
        })
        .collect();
    let flat: Vec<Id> = velocities.concat();
    // columns[j][6·b + r]: row r of body b's Jacobian column j.
    let columns: Vec<Vec<Id>> = (0..n)
        .map(|j| {
            let v = pool.input(Input::Velocity(j));
            pool.diff_all(&flat, v)
        })
        .collect();
    let positions: Vec<Id> = (0..nq).map(|i| pool.input(Input::Position(i))).collect();
    let drift = pool.along_motion(&flat, &positions, &rates);
    let zero = pool.zero();
    let mut mass_matrix = vec![vec![zero; n]; n];
    let mut bias = vec![zero; n];
    for (b, (&k, nu)) in massive.iter().zip(&velocities).enumerate() {
        let body = &bodies[k];
        let jacobian: Vec<Six> = columns.iter().map(|c| slice6(c, b, zero)).collect();
        let momenta: Vec<Six> = jacobian
            .iter()
            .map(|&column| apply_inertia(pool, body, column))
            .collect();
        let load = body_load(pool, body, *nu, slice6(&drift, b, zero), weights[k]);
        for (i, column_i) in jacobian.iter().enumerate() {
            if column_i.iter().all(|&e| pool.is_zero(e)) {
                continue;
            }
            for (j, momentum) in momenta.iter().enumerate().skip(i) {
                let entry = dot6(pool, *column_i, *momentum);
                mass_matrix[i][j] = pool.add(mass_matrix[i][j], entry);
            }
            let power = dot6(pool, *column_i, load);
            bias[i] = pool.add(bias[i], power);
        }
    }
    // Only the upper triangle was summed; mirror it so M is symmetric to the bit.
    let mut mass_matrix: Vec<Vec<Id>> = (0..n)
        .map(|i| (0..n).map(|j| mass_matrix[i.min(j)][i.max(j)]).collect())
        .collect();
    armature::add_to_mass_matrix(pool, bodies, &mut mass_matrix);
    let at_rest: HashMap<Id, Id> = (0..n)
        .map(|j| (pool.input(Input::Velocity(j)), zero))
        .collect();
    let gravity = pool.substitute(&bias, &at_rest);
    JointSpace {
        mass_matrix,
        bias,
        gravity,
    }
}

/// Joint forces `τ = M q̈ + bias`: the inverse dynamics of the
/// joint-coordinate formalism, from its joint-space terms.
pub fn inverse_dynamics(pool: &mut Pool, terms: &JointSpace) -> Vec<Id> {
    terms
        .mass_matrix
        .iter()
        .zip(&terms.bias)
        .map(|(row, &bias)| {
            let mut total = bias;
            for (j, &m) in row.iter().enumerate() {
                let qdd = pool.input(Input::Acceleration(j));
                let term = pool.mul(m, qdd);
                total = pool.add(total, term);
            }
            total
        })
        .collect()
}

/// Joint accelerations `q̈ = M⁻¹ (τ − bias)` by a symbolic `L D Lᵀ`
/// factorisation of the mass matrix: the forward dynamics of the
/// joint-coordinate formalism, which forms `M` where the separate-bodies
/// method never does.
pub fn forward_dynamics(pool: &mut Pool, terms: &JointSpace) -> Vec<Id> {
    let rhs: Vec<Id> = terms
        .bias
        .iter()
        .enumerate()
        .map(|(i, &bias)| {
            let tau = pool.input(Input::Force(i));
            pool.sub(tau, bias)
        })
        .collect();
    spd_solve(pool, &terms.mass_matrix, &rhs)
}

/// Gravity in every body's own axes, `g_k = E_kᵀ g_parent` from the ground
/// down, in body order.
fn body_gravity(pool: &mut Pool, bodies: &[TreeBody], gravity: Vec3) -> Vec<Vec3> {
    let mut out: Vec<Vec3> = Vec::with_capacity(bodies.len());
    for body in bodies {
        let above = body.parent.and_then(|p| out.get(p)).copied();
        let (to_parent, _) = placement(pool, body);
        let g = pool.mat_t_vec(&to_parent, above.unwrap_or(gravity));
        out.push(g);
    }
    out
}

/// False for the massless auxiliary bodies of composite joints, which
/// contribute nothing and are skipped to save derivation time.
fn has_inertia(pool: &Pool, body: &TreeBody) -> bool {
    !pool.is_zero(body.mass) || body.inertia.iter().flatten().any(|&e| !pool.is_zero(e))
}

/// `(a; b)` as one 6-vector.
fn six(a: Vec3, b: Vec3) -> Six {
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

/// Entries `6·b … 6·b + 5` of a flattened list of 6-vectors.
fn slice6(flat: &[Id], b: usize, zero: Id) -> Six {
    std::array::from_fn(|r| flat.get(6 * b + r).copied().unwrap_or(zero))
}

fn split(x: Six) -> (Vec3, Vec3) {
    ([x[0], x[1], x[2]], [x[3], x[4], x[5]])
}

fn dot6(pool: &mut Pool, a: Six, b: Six) -> Id {
    let (a_lin, a_ang) = split(a);
    let (b_lin, b_ang) = split(b);
    let linear = pool.dot3(a_lin, b_lin);
    let angular = pool.dot3(a_ang, b_ang);
    pool.add(linear, angular)
}

/// `Mₖ x = (m x_linear; J_c x_angular)`.
fn apply_inertia(pool: &mut Pool, body: &TreeBody, x: Six) -> Six {
    let (linear, angular) = split(x);
    let momentum = pool.scale3(body.mass, linear);
    let spin = pool.mat_vec(&body.inertia, angular);
    six(momentum, spin)
}

/// `Mₖ Ḃₖ v + (m ω × v_c; ω × J_c ω) − (m g_k; 0)`: the force and moment,
/// in body axes, that the body needs at zero joint accelerations.
fn body_load(pool: &mut Pool, body: &TreeBody, nu: Six, drift: Six, weight: Vec3) -> Six {
    let (v_com, omega) = split(nu);
    let inertial = apply_inertia(pool, body, drift);
    let (force, moment) = split(inertial);
    let turning = pool.cross3(omega, v_com);
    let transport = pool.scale3(body.mass, turning);
    let heavy = pool.scale3(body.mass, weight);
    let with_transport = pool.add3(force, transport);
    let minus_heavy = pool.scale3c(sharnir_cas::Coeff::MINUS_ONE, heavy);
    let force = pool.add3(with_transport, minus_heavy);
    let j_omega = pool.mat_vec(&body.inertia, omega);
    let gyroscopic = pool.cross3(omega, j_omega);
    six(force, pool.add3(moment, gyroscopic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParameterMode;

    /// One free body with its centre of mass at the body origin: the
    /// Newton–Euler equations of a rigid body in its own axes, written out
    /// by hand, `m (v̇ + ω × v − Rᵀ g) = F`, `J ω̇ + ω × J ω = N`.
    const FREE_BODY: &str = r#"
[mechanism]
name = "brick"
gravity = [0, 0, -9.81]

[[body]]
name = "brick"
mass = 2.0
com = [0, 0, 0]
inertia = [0.3, 0.5, 0.7, 0.01, -0.02, 0.03]

[[joint]]
name = "float"
type = "free"
parent = "ground"
child = "brick"
"#;

    #[test]
    fn free_body_matches_eulers_equations() {
        let source = sharnir_spec::Source {
            name: "brick.spec".into(),
            text: FREE_BODY.into(),
        };
        let spec = sharnir_spec::parse(source).expect("valid spec");
        let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Folded).expect("a tree");
        let terms = joint_space(&mut mechanism);
        let half = 0.5_f64.sqrt();
        // q = (p, quaternion of a quarter turn about x); v = (v, ω).
        let q = [0.1, -0.2, 0.3, half, 0.0, 0.0, half];
        let v = [0.4, -0.5, 0.6, 1.1, -0.7, 0.9];
        let env = |name: &Input| match name {
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            _ => None,
        };
        let pool = &mechanism.pool;
        let m = pool.eval(&terms.mass_matrix.concat(), &env).expect("bound");
        let bias = pool.eval(&terms.bias, &env).expect("bound");
        let mass = 2.0;
        // Inertia tensor [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
        // from the spec's [ixx, iyy, izz, ixy, ixz, iyz].
        let j = [[0.3, 0.01, -0.02], [0.01, 0.5, 0.03], [-0.02, 0.03, 0.7]];
        for r in 0..6 {
            for c in 0..6 {
                let expected = match (r, c) {
                    (r, c) if r < 3 && r == c => mass,
                    (r, c) if r >= 3 && c >= 3 => j[r - 3][c - 3],
                    _ => 0.0,
                };
                let got = m[6 * r + c];
                assert!((got - expected).abs() < 1e-14, "M[{r}][{c}] = {got}");
            }
        }
        // Rᵀ g for a quarter turn about x: body z is ground −y, body y is
        // ground z, so gravity (0, 0, −9.81) reads (0, −9.81, 0).
        let g_body = [0.0, -9.81, 0.0];
        let (lin, ang) = ([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
        let cross = |a: [f64; 3], b: [f64; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let j_omega = j.map(|row| row.iter().zip(&ang).map(|(a, b)| a * b).sum::<f64>());
        let turning = cross(ang, lin);
        let gyroscopic = cross(ang, j_omega);
        let expected: Vec<f64> = (0..3)
            .map(|i| mass * (turning[i] - g_body[i]))
            .chain(gyroscopic)
            .collect();
        for (i, (got, want)) in bias.iter().zip(&expected).enumerate() {
            assert!(
                (got - want).abs() < 1e-13,
                "bias[{i}] = {got}, expected {want}"
            );
        }
    }
}
