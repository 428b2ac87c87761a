//! Derivatives of dynamics outputs with respect to the state, and the
//! inverse of the mass matrix: what optimal control, implicit integrators
//! and identification need of a model.
//!
//! **Convention (Pinocchio's).** A derivative with respect to the
//! configuration is taken in velocity coordinates: column `j` of `∂f/∂q` is
//! `d/dε f(q ⊕ ε eⱼ)` at `ε = 0`, where `q ⊕ δ` moves a revolute or
//! prismatic coordinate by `δ`, turns a spherical joint's quaternion on the
//! right, in the body frame (`Q ⊗ exp(δ/2)`), and moves a free joint's
//! position along its body axes (`p + R δ_linear`). So every derivative is
//! `NV × NV` (row: output, column: coordinate), and `∂f/∂q · v` is the rate
//! of `f` along the velocity `v`: column `j` is the derivative along the
//! motion in which the coordinates move at the rates
//! [`coordinate_rates`] of
//! the unit velocity `eⱼ`, which is how it is computed — one forward walk of
//! the expression DAG per column ([`Derivative`]), shared subexpressions
//! differentiated once.
//!
//! The mass matrix is inverted and solved with by an `L Δ Lᵀ` factorisation
//! whose pivots are taken leaves first: the coordinates of outboard bodies
//! before their ancestors', so that the factor of a tree's mass matrix has
//! no fill-in (Featherstone's `LTDL`) and the pool drops every product with
//! a structural zero.

use crate::formalisms::spd::{spd_inverse_in_order, spd_solve_in_order};
use crate::geometry::kinematics::coordinate_rates;
use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::{Derivative, Id};
use std::collections::HashMap;

/// `∂e/∂q` in velocity coordinates (see the module documentation): one row
/// per expression of `outputs`, one column per velocity coordinate.
/// Velocities, accelerations and forces are held.
pub fn configuration_jacobian(mechanism: &mut Mechanism, outputs: &[Id]) -> Vec<Vec<Id>> {
    let nv = mechanism.dof();
    let rates = coordinate_rates(mechanism);
    let pool = &mut mechanism.pool;
    let positions: Vec<Id> = (0..rates.len())
        .map(|i| pool.input(Input::Position(i)))
        .collect();
    let velocities: Vec<Id> = (0..nv).map(|i| pool.input(Input::Velocity(i))).collect();
    let (zero, one) = (pool.zero(), pool.one());
    let columns: Vec<Vec<Id>> = (0..nv)
        .map(|j| {
            let unit: HashMap<Id, Id> = velocities
                .iter()
                .enumerate()
                .map(|(i, &v)| (v, if i == j { one } else { zero }))
                .collect();
            let direction = pool.substitute(&rates, &unit);
            let moving = positions
                .iter()
                .copied()
                .zip(direction)
                .filter(|&(_, rate)| !pool.is_zero(rate));
            Derivative::new(moving.collect::<Vec<_>>()).of_all(pool, outputs)
        })
        .collect();
    transposed(&columns, outputs.len(), zero)
}

/// `∂e/∂q̇`: one row per expression of `outputs`, one column per velocity
/// coordinate; positions, accelerations and forces are held.
pub fn velocity_jacobian(mechanism: &mut Mechanism, outputs: &[Id]) -> Vec<Vec<Id>> {
    by_symbol(mechanism, outputs, Input::Velocity)
}

/// The outputs at rest: velocities and accelerations zero (the gravity
/// forces, from the inverse dynamics).
pub fn at_rest(mechanism: &mut Mechanism, outputs: &[Id]) -> Vec<Id> {
    let nv = mechanism.dof();
    let pool = &mut mechanism.pool;
    let zero = pool.zero();
    let rest: HashMap<Id, Id> = (0..nv)
        .flat_map(|i| [Input::Velocity(i), Input::Acceleration(i)])
        .map(|symbol| (pool.input(symbol), zero))
        .collect();
    pool.substitute(outputs, &rest)
}

/// `outputs` with the accelerations replaced by `accelerations` (one
/// expression per velocity coordinate): an inverse-dynamics derivative
/// evaluated along the forward dynamics.
pub fn at_accelerations(
    mechanism: &mut Mechanism,
    outputs: &[Id],
    accelerations: &[Id],
) -> Vec<Id> {
    let pool = &mut mechanism.pool;
    let map: HashMap<Id, Id> = accelerations
        .iter()
        .enumerate()
        .map(|(i, &a)| (pool.input(Input::Acceleration(i)), a))
        .collect();
    pool.substitute(outputs, &map)
}

/// `M⁻¹`, symmetric entry for entry, for the mass matrix `mass` of this
/// mechanism (only its lower triangle is read).
pub fn mass_matrix_inverse(mechanism: &mut Mechanism, mass: &[Vec<Id>]) -> Vec<Vec<Id>> {
    let order = leaves_first(mechanism);
    spd_inverse_in_order(&mut mechanism.pool, mass, &order)
}

/// `M⁻¹ B` for the mass matrix `mass` and a matrix `b` (rows as given),
/// by one factorisation and a solve per column: cheaper than multiplying
/// by [`mass_matrix_inverse`].
pub fn mass_matrix_solve(
    mechanism: &mut Mechanism,
    mass: &[Vec<Id>],
    b: &[Vec<Id>],
) -> Vec<Vec<Id>> {
    let order = leaves_first(mechanism);
    let zero = mechanism.pool.zero();
    let width = b.first().map_or(0, Vec::len);
    let columns = transposed(b, width, zero);
    let solved = spd_solve_in_order(&mut mechanism.pool, mass, &columns, &order);
    transposed(&solved, b.len(), zero)
}

/// The velocity coordinates in an order that takes every body's before
/// its ancestors': by body, outboard first (bodies are numbered regularly,
/// parents before children), then the coordinates of that body's joint.
fn leaves_first(mechanism: &Mechanism) -> Vec<usize> {
    let nv = mechanism.dof();
    let mut order: Vec<usize> = mechanism
        .bodies
        .iter()
        .rev()
        .filter(|b| b.coupling.is_none())
        .flat_map(|b| b.velocity..b.velocity + b.kind.nv())
        .filter(|&i| i < nv)
        .collect();
    // Every coordinate belongs to exactly one body without a coupling; the
    // check keeps the order a permutation whatever the model says.
    let mut seen = vec![false; nv];
    order.retain(|&i| !std::mem::replace(&mut seen[i], true));
    order.extend((0..nv).filter(|&i| !seen[i]));
    order
}

/// `∂e/∂s` for the symbols `input(0..NV)`.
fn by_symbol(mechanism: &mut Mechanism, outputs: &[Id], input: fn(usize) -> Input) -> Vec<Vec<Id>> {
    let nv = mechanism.dof();
    let pool = &mut mechanism.pool;
    let zero = pool.zero();
    let columns: Vec<Vec<Id>> = (0..nv)
        .map(|j| {
            let symbol = pool.input(input(j));
            pool.diff_all(outputs, symbol)
        })
        .collect();
    transposed(&columns, outputs.len(), zero)
}

/// The transpose of `columns` (each of `rows` entries).
pub(crate) fn transposed(columns: &[Vec<Id>], rows: usize, zero: Id) -> Vec<Vec<Id>> {
    (0..rows)
        .map(|i| {
            columns
                .iter()
                .map(|c| c.get(i).copied().unwrap_or(zero))
                .collect()
        })
        .collect()
}
