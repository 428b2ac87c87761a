//! The Coriolis matrix `C(q, q̇)` with `C q̇ = bias − g` and `Ṁ − 2C`
//! skew-symmetric, the factorisation passivity-based and adaptive
//! controllers need.
//!
//! For a mechanism whose velocities are the rates of its coordinates
//! (revolute and prismatic joints, and the chains built from them) this is
//! the Christoffel matrix `C_ij = Σ_k Γ_ijk q̇_k`,
//! `Γ_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)`. It is not assembled
//! from the Γ: the velocity-dependent forces `h = bias − g = Σ_jk Γ_ijk q̇_j q̇_k`
//! are a quadratic form with Γ symmetric in `j, k`, so `∂h_i/∂q̇_m = 2 C_im`
//! and `C` is half the rate Jacobian of the bias, sharing its subexpressions.
//!
//! Spherical and free joints have quasi-velocities (angular velocities are
//! not rates of any coordinate), the Christoffel construction does not apply,
//! and `C` is built per body instead: with `Jₖ` the body's spatial Jacobian
//! (body frame, about its origin), `vₖ = Jₖ q̇` its spatial velocity and `Iₖ`
//! its spatial inertia, constant in the body frame,
//! ```text
//! C = Σₖ Jₖᵀ (Iₖ J̇ₖ + Bₖ Jₖ),   Bₖ s = s ×* (Iₖ vₖ)
//! ```
//! where `×*` is the spatial cross product of a motion with a force and `J̇ₖ`
//! the derivative of `Jₖ(q)` along `q̇ = coordinate_rates(q, v)`. Then
//! `C q̇ = Σ Jᵀ(I J̇ q̇ + v ×* I v)` is the velocity part of the Newton–Euler
//! forces, and `Ṁ − 2C = Σ (J̇ᵀIJ − JᵀIJ̇) − 2 Σ JᵀBJ` is skew because `B`
//! is (`s ↦ s ×* f` is skew for any force `f`). This is the body-frame form
//! of Niemeyer and Slotine's factorisation, in which the `v ×* I − I v×`
//! terms that account for `İ` in the ground frame vanish.

use crate::geometry::kinematics::{coordinate_rates, twists};
use crate::model::inputs::Input;
use crate::model::vec3::{Vec3, Vec3Ops};
use crate::model::{JointKind, Mechanism, TreeBody};
use sharnir_cas::{Coeff, Id, Pool, Summation};

/// `C(q, q̇)`, row-major, for `mechanism` with symbolic bias forces `bias`.
pub fn coriolis_matrix(mechanism: &mut Mechanism, bias: &[Id]) -> Vec<Vec<Id>> {
    coriolis_matrix_summed(mechanism, bias, Summation::PerSymbol)
}

/// [`coriolis_matrix`] with the time derivatives of the factorised form
/// (spherical and free joints) summed as `summation` says: equal values,
/// different code, so the plan derives both. The Christoffel form has no
/// time derivative and is the same either way.
pub fn coriolis_matrix_summed(
    mechanism: &mut Mechanism,
    bias: &[Id],
    summation: Summation,
) -> Vec<Vec<Id>> {
    if is_factorised(mechanism) {
        factorised(mechanism, summation)
    } else {
        christoffel(&mut mechanism.pool, bias)
    }
}

/// Whether the Coriolis matrix takes the factorised form, whose time
/// derivatives [`Summation`] sums: a spherical or free joint, whose
/// velocities are no coordinate rates, rules out Christoffel's symbols.
pub fn is_factorised(mechanism: &Mechanism) -> bool {
    !mechanism
        .bodies
        .iter()
        .all(|b| matches!(b.kind, JointKind::Revolute | JointKind::Prismatic))
}

/// Half the rate Jacobian of the bias.
fn christoffel(pool: &mut Pool, bias: &[Id]) -> Vec<Vec<Id>> {
    let n = bias.len();
    let mut c = vec![Vec::with_capacity(n); n];
    for m in 0..n {
        let qd = pool.input(Input::Velocity(m));
        for (row, derivative) in c.iter_mut().zip(pool.diff_all(bias, qd)) {
            row.push(pool.scale(Coeff::ratio(1, 2), derivative));
        }
    }
    c
}

/// A spatial motion `(ω; v)` or force `(n; f)` in body coordinates.
type Spatial = (Vec3, Vec3);

/// Niemeyer–Slotine: `Σₖ Jₖᵀ (Iₖ J̇ₖ + Bₖ Jₖ)`.
fn factorised(mechanism: &mut Mechanism, summation: Summation) -> Vec<Vec<Id>> {
    let twists = twists(mechanism);
    let rates = coordinate_rates(mechanism);
    let (n, nq) = (mechanism.dof(), mechanism.nq());
    let Mechanism { pool, bodies, .. } = mechanism;
    let velocities: Vec<Id> = (0..n).map(|j| pool.input(Input::Velocity(j))).collect();
    let positions: Vec<Id> = (0..nq).map(|i| pool.input(Input::Position(i))).collect();
    let zero = pool.zero();
    let mut c = vec![vec![zero; n]; n];
    for (body, twist) in bodies.iter().zip(&twists) {
        if body.auxiliary {
            continue;
        }
        let entries = [twist.angular, twist.linear].concat();
        let columns: Vec<Spatial> = velocities
            .iter()
            .map(|&v| {
                let d = pool.diff_all(&entries, v);
                ([d[0], d[1], d[2]], [d[3], d[4], d[5]])
            })
            .collect();
        let velocity: Spatial = (twist.angular, twist.linear);
        let momentum = inertia_apply(pool, body, velocity);
        let terms: Vec<Spatial> = columns
            .iter()
            .map(|&s| {
                let s_dot = time_derivative(pool, s, &positions, &rates, summation);
                let a = inertia_apply(pool, body, s_dot);
                let b = force_cross(pool, s, momentum);
                (pool.add3(a.0, b.0), pool.add3(a.1, b.1))
            })
            .collect();
        for (i, &si) in columns.iter().enumerate() {
            if is_zero(pool, si) {
                continue;
            }
            for (j, &tj) in terms.iter().enumerate() {
                let angular = pool.dot3(si.0, tj.0);
                let linear = pool.dot3(si.1, tj.1);
                let contribution = pool.add(angular, linear);
                c[i][j] = pool.add(c[i][j], contribution);
            }
        }
    }
    c
}

fn is_zero(pool: &Pool, s: Spatial) -> bool {
    s.0.iter().chain(&s.1).all(|&e| pool.is_zero(e))
}

/// `Σᵢ ∂s/∂qᵢ q̇ᵢ`.
fn time_derivative(
    pool: &mut Pool,
    s: Spatial,
    positions: &[Id],
    rates: &[Id],
    summation: Summation,
) -> Spatial {
    let total = pool.along_motion_by(&[s.0, s.1].concat(), positions, rates, summation);
    (
        [total[0], total[1], total[2]],
        [total[3], total[4], total[5]],
    )
}

/// `I s` for the body's spatial inertia about its origin: the momentum
/// `(I_c ω + c × m(v + ω × c); m(v + ω × c))`.
fn inertia_apply(pool: &mut Pool, body: &TreeBody, s: Spatial) -> Spatial {
    let (omega, v) = s;
    let spin = pool.cross3(omega, body.com);
    let com_velocity = pool.add3(v, spin);
    let linear = pool.scale3(body.mass, com_velocity);
    let own = pool.mat_vec(&body.inertia, omega);
    let lever = pool.cross3(body.com, linear);
    (pool.add3(own, lever), linear)
}

/// `v ×* f` for a motion and a force: `(ω × n + v × f; ω × f)`.
fn force_cross(pool: &mut Pool, v: Spatial, f: Spatial) -> Spatial {
    let a = pool.cross3(v.0, f.0);
    let b = pool.cross3(v.1, f.1);
    (pool.add3(a, b), pool.cross3(v.0, f.1))
}
