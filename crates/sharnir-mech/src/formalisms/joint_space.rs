//! The joint-space form of the equations of motion, `M(q) q̈ + b(q, q̇) = τ`,
//! read off a symbolic inverse dynamics.
//!
//! Inverse dynamics is affine in q̈, so the mass matrix is its exact Jacobian
//! with respect to q̈, the bias is its value at q̈ = 0 and the gravity term its
//! value at q̇ = q̈ = 0. Derived this way the three share every subexpression
//! with the inverse dynamics they come from, and an entry `M[i][j]` is exactly
//! zero when joints `i` and `j` are on different branches of the tree (the
//! torque of one does not depend on the acceleration of the other).

use crate::model::inputs::Input;
use sharnir_cas::{Id, Pool};
use std::collections::HashMap;

/// `M(q)`, `b(q, q̇)` and `g(q)` as expressions in the pool of the inverse
/// dynamics they were read from.
#[derive(Clone, Debug)]
pub struct JointSpace {
    /// The mass matrix, symmetric, row-major, in coordinate order.
    pub mass_matrix: Vec<Vec<Id>>,
    /// `C(q, q̇) q̇ + g(q)`: the joint forces needed for zero acceleration.
    pub bias: Vec<Id>,
    /// `g(q)`: the joint forces needed to hold the mechanism still.
    pub gravity: Vec<Id>,
}

/// Splits `tau`, the inverse dynamics of a mechanism with `tau.len()`
/// coordinates, into its joint-space terms.
pub fn joint_space(pool: &mut Pool, tau: &[Id]) -> JointSpace {
    let n = tau.len();
    // Zero is interned first, as it always was: node numbers order the
    // terms of canonical sums, and so the emitted text.
    pool.zero();
    let symbol = |pool: &mut Pool, input: Input| pool.input(input);
    // Column j is ∂τ/∂q̈_j; the lower triangle is mirrored so that M is
    // symmetric to the bit.
    let columns: Vec<Vec<Id>> = (0..n)
        .map(|j| {
            let qdd = symbol(pool, Input::Acceleration(j));
            pool.diff_all(tau, qdd)
        })
        .collect();
    let mass_matrix: Vec<Vec<Id>> = (0..n)
        .map(|i| (0..n).map(|j| columns[i.min(j)][i.max(j)]).collect())
        .collect();
    JointSpace {
        mass_matrix,
        ..bias_and_gravity(pool, tau)
    }
}

/// The bias and gravity terms of `tau` without the mass matrix (left
/// empty): what a module without `mass_matrix` and `joint_space` needs,
/// in time linear in the size of `tau` where the `n` columns of `M` would
/// take `n` walks of it.
pub fn bias_and_gravity(pool: &mut Pool, tau: &[Id]) -> JointSpace {
    let n = tau.len();
    let zero = pool.zero();
    let symbol = |pool: &mut Pool, input: Input| pool.input(input);
    let at_rest_acceleration: HashMap<Id, Id> = (0..n)
        .map(|j| (symbol(pool, Input::Acceleration(j)), zero))
        .collect();
    let bias = pool.substitute(tau, &at_rest_acceleration);
    let at_rest: HashMap<Id, Id> = (0..n)
        .map(|j| (symbol(pool, Input::Velocity(j)), zero))
        .collect();
    let gravity = pool.substitute(&bias, &at_rest);
    JointSpace {
        mass_matrix: Vec::new(),
        bias,
        gravity,
    }
}
