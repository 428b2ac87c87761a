//! The constrained dynamics of a module with loops: small dense solves in
//! fixed-size arrays, written once here and emitted into every loop module
//! after its straight-line functions.
//!
//! `M q̈ + bias = τ + Jᵀλ` with `J q̈ + J̇ q̇ = 0` is solved from the
//! module's own `joint_space`, `constraint_jacobian` and `constraint_bias`:
//! a Cholesky factorisation of `M`, then `A = J M⁻¹ Jᵀ` factorised by
//! Cholesky with diagonal pivoting, which reveals its rank. Pivots below
//! `1e-10` of the largest (redundant constraint rows: a planar loop of
//! spatial joints, a parallelogram) are dropped with their multipliers set
//! to zero, after checking that the dropped equations hold; an inconsistent
//! system or a mass matrix that is not positive definite is `Err(Singular)`,
//! never a panic or a NaN. The operation counts are those of the loops as
//! written, for full rank, plus the functions they call.

use crate::print::printer::op_count_literal;
use crate::vocabulary::LoopFacts;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_cas::OpCount;

/// Operations of `cholesky::<N>` on a positive definite matrix.
pub(crate) fn cholesky_ops(n: u32) -> OpCount {
    let products: u32 = (0..n).map(|j| j + (n - 1 - j) * j).sum();
    OpCount {
        mul: products,
        add: products,
        div: n * n.saturating_sub(1) / 2,
        sqrt: n,
        ..OpCount::default()
    }
}

/// Operations of `cholesky_solve::<N>`.
pub(crate) fn solve_ops(n: u32) -> OpCount {
    let products = n * n.saturating_sub(1);
    OpCount {
        mul: products,
        add: products,
        div: 2 * n,
        ..OpCount::default()
    }
}

/// Operations of `semidefinite_solve::<N>` at full rank (the pivoted
/// factorisation's rank-one updates, then the two triangular solves).
pub(crate) fn semidefinite_ops(n: u32) -> OpCount {
    let updates: u32 = (0..n).map(|j| (n - 1 - j) * (n - j) / 2).sum();
    let factor = OpCount {
        mul: updates,
        add: updates,
        div: n * n.saturating_sub(1) / 2,
        sqrt: n,
        ..OpCount::default()
    };
    factor + solve_ops(n)
}

/// The count of a function already emitted, by name.
/// Operations of the emitted `closed_solve` for `n` coordinates and `c`
/// constraint rows at full rank: the Cholesky factor of `M`, `c + 1`
/// solves, the coupling `J M⁻¹ Jᵀ` and its right-hand side, its
/// semidefinite solve, and `q̈` from `λ`.
pub(crate) fn closed_solve_ops(n: u32, c: u32) -> OpCount {
    cholesky_ops(n)
        + solve_ops(n) * (c + 1)
        + OpCount {
            mul: c * c * n + c * n + n * c,
            add: c * c * n.saturating_sub(1) + c * n + c + n * c,
            ..OpCount::default()
        }
        + semidefinite_ops(c)
}

pub(crate) fn count_of(counts: &[(String, OpCount)], name: &str) -> OpCount {
    counts
        .iter()
        .find(|(n, _)| n == name)
        .map_or_else(OpCount::default, |(_, ops)| *ops)
}

/// The emitted items (helpers, `constrained_forward_dynamics`,
/// `cut_joint_reactions`, and with independent coordinates
/// `dependent_velocities` and `constrained_inverse_dynamics`) with the
/// operation counts of the public functions, given the counts of the
/// functions emitted before them.
pub(crate) fn items(
    loops: &LoopFacts,
    nv: usize,
    counts: &[(String, OpCount)],
    fma: bool,
) -> (TokenStream, Vec<(String, OpCount)>) {
    let (nv32, nc) = (
        u32::try_from(nv).unwrap_or(u32::MAX),
        u32::try_from(loops.constraint_names.len()).unwrap_or(u32::MAX),
    );
    let forward = count_of(counts, "joint_space")
        + count_of(counts, "constraint_jacobian")
        + count_of(counts, "constraint_bias")
        + OpCount {
            add: nv32,
            ..OpCount::default()
        }
        + closed_solve_ops(nv32, nc);
    let reactions = forward + count_of(counts, "reactions_of_multipliers");
    let mut ops = vec![
        ("constrained_forward_dynamics".to_owned(), forward),
        ("cut_joint_reactions".to_owned(), reactions),
    ];
    let independent_items = if loops.independent.is_empty() {
        TokenStream::new()
    } else {
        let ni = u32::try_from(loops.independent.len()).unwrap_or(u32::MAX);
        let nd = nv32.saturating_sub(ni);
        let partition = count_of(counts, "constraint_jacobian")
            + OpCount {
                mul: nd * nd * nc + nd * ni * nc,
                add: nd * nd * nc + nd * ni * nc,
                ..OpCount::default()
            }
            + cholesky_ops(nd)
            + solve_ops(nd) * ni;
        let velocities = partition
            + OpCount {
                mul: nd * ni,
                add: nd * ni,
                ..OpCount::default()
            };
        let inverse = partition
            + count_of(counts, "inverse_dynamics")
            + OpCount {
                mul: ni * nd,
                add: ni * (nd + 1),
                ..OpCount::default()
            };
        ops.push(("dependent_velocities".to_owned(), velocities));
        ops.push(("constrained_inverse_dynamics".to_owned(), inverse));
        independent(loops, nv, &ops, fma)
    };
    let [forward_ops, reaction_ops] = [0, 1].map(|i| op_count_literal(ops[i].1, fma));
    let items = quote! {
        /// Why the constrained dynamics has no answer at a state: the mass
        /// matrix is not positive definite, the constraints' accelerations
        /// are inconsistent (a configuration the loops cannot take), or the
        /// independent coordinates do not parametrise the motion there.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Singular;

        /// `L` with `A = L Lᵀ`, in the lower triangle of `a`; `false` when
        /// `A` is not positive definite.
        fn cholesky<const N: usize>(a: &mut [[Real; N]; N]) -> bool {
            for j in 0..N {
                let mut diagonal = a[j][j];
                for k in 0..j {
                    diagonal -= a[j][k] * a[j][k];
                }
                if !(diagonal > 0.0) {
                    return false;
                }
                let pivot = libm::Libm::<Real>::sqrt(diagonal);
                a[j][j] = pivot;
                for i in j + 1..N {
                    let mut sum = a[i][j];
                    for k in 0..j {
                        sum -= a[i][k] * a[j][k];
                    }
                    a[i][j] = sum / pivot;
                }
            }
            true
        }

        /// `b ← (L Lᵀ)⁻¹ b` for the factor `l` of [`cholesky`].
        fn cholesky_solve<const N: usize>(l: &[[Real; N]; N], b: &mut [Real; N]) {
            for i in 0..N {
                let mut sum = b[i];
                for k in 0..i {
                    sum -= l[i][k] * b[k];
                }
                b[i] = sum / l[i][i];
            }
            for i in (0..N).rev() {
                let mut sum = b[i];
                for k in i + 1..N {
                    sum -= l[k][i] * b[k];
                }
                b[i] = sum / l[i][i];
            }
        }

        /// A solution of `A x = b` for a symmetric positive semi-definite
        /// `A`: Cholesky with diagonal pivoting; the unknowns of pivots below
        /// `1e-10` of the largest are zero, provided their equations hold
        /// (when `consistent` asks; otherwise the equations of the dropped
        /// pivots are dropped with them).
        fn semidefinite_solve<const N: usize>(
            mut a: [[Real; N]; N],
            mut b: [Real; N],
            consistent: bool,
        ) -> Result<[Real; N], Singular> {
            let mut order: [usize; N] = core::array::from_fn(|i| i);
            let largest = (0..N).fold(0.0, |m: Real, i| libm::Libm::<Real>::fmax(m, a[i][i]));
            let floor = 1e-10 * largest;
            let mut rank = 0;
            while rank < N {
                let j = rank;
                let mut p = j;
                for i in j + 1..N {
                    if a[i][i] > a[p][p] {
                        p = i;
                    }
                }
                if !(a[p][p] > floor) {
                    break;
                }
                a.swap(j, p);
                for row in a.iter_mut() {
                    row.swap(j, p);
                }
                b.swap(j, p);
                order.swap(j, p);
                let pivot = libm::Libm::<Real>::sqrt(a[j][j]);
                a[j][j] = pivot;
                for i in j + 1..N {
                    a[i][j] /= pivot;
                    a[j][i] = a[i][j];
                }
                for i in j + 1..N {
                    for k in j + 1..=i {
                        a[i][k] -= a[i][j] * a[k][j];
                        a[k][i] = a[i][k];
                    }
                }
                rank += 1;
            }
            for i in 0..rank {
                let mut sum = b[i];
                for k in 0..i {
                    sum -= a[i][k] * b[k];
                }
                b[i] = sum / a[i][i];
            }
            let scale = b
                .iter()
                .fold(1.0, |m: Real, &x| libm::Libm::<Real>::fmax(m, libm::Libm::<Real>::fabs(x)));
            for i in rank..N {
                let mut rest = b[i];
                for k in 0..rank {
                    rest -= a[i][k] * b[k];
                }
                if consistent && !(libm::Libm::<Real>::fabs(rest) <= libm::Libm::<Real>::sqrt(Real::EPSILON) * scale) {
                    return Err(Singular);
                }
                b[i] = 0.0;
            }
            for i in (0..rank).rev() {
                let mut sum = b[i];
                for k in i + 1..rank {
                    sum -= a[k][i] * b[k];
                }
                b[i] = sum / a[i][i];
            }
            let mut x = [0.0; N];
            for (slot, &k) in order.iter().enumerate() {
                for (i, xi) in x.iter_mut().enumerate() {
                    if i == k {
                        *xi = b[slot];
                    }
                }
            }
            if x.iter().all(|v| v.is_finite()) {
                Ok(x)
            } else {
                Err(Singular)
            }
        }

        /// The closed solve of `M q̈ = f + Jᵀλ`, `J q̈ = −b`: `q̈` and `λ`
        /// from the mass matrix `factor` (factored in place; for a mixed
        /// solve its free block, the prescribed rows and columns the
        /// identity), the free forces `f` and the constraint rows `J`, `b`.
        fn closed_solve(
            mut factor: [[Real; NV]; NV],
            mut free: [Real; NV],
            jacobian: &[[Real; NV]; NC],
            bias: &[Real; NC],
        ) -> Result<([Real; NV], [Real; NC]), Singular> {
            if !cholesky(&mut factor) {
                return Err(Singular);
            }
            cholesky_solve(&factor, &mut free);
            let mut mobility = *jacobian;
            for row in mobility.iter_mut() {
                cholesky_solve(&factor, row);
            }
            let dot = |a: &[Real; NV], b: &[Real; NV]| {
                let mut sum = a[0] * b[0];
                for k in 1..NV {
                    sum += a[k] * b[k];
                }
                sum
            };
            let coupling: [[Real; NC]; NC] = core::array::from_fn(|i| {
                core::array::from_fn(|j| dot(&jacobian[i], &mobility[j]))
            });
            let rhs: [Real; NC] = core::array::from_fn(|i| {
                let mut sum = bias[i];
                for k in 0..NV {
                    sum += jacobian[i][k] * free[k];
                }
                -sum
            });
            let lambda = semidefinite_solve(coupling, rhs, true)?;
            let mut qdd = free;
            for (row, &l) in mobility.iter().zip(&lambda) {
                for (a, &m) in qdd.iter_mut().zip(row) {
                    *a += m * l;
                }
            }
            Ok((qdd, lambda))
        }

        /// Operation count of [`constrained_forward_dynamics_with`] at full
        /// constraint rank (the called functions included; see the module's
        /// table).
        pub const OPS_CONSTRAINED_FORWARD_DYNAMICS: OpCount = #forward_ops;

        /// The accelerations q̈ and multipliers λ of the closed mechanism:
        /// `M q̈ + bias = τ + Jᵀλ` with `J q̈ + J̇ q̇ = 0` (exactly; integrate
        /// with drift control). λ are the cut joints' reactions in the rows
        /// of `CONSTRAINT_NAMES`; those of redundant rows are zero. `Err`
        /// when the state admits no solution.
        pub fn constrained_forward_dynamics(
            p: &Params,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<([Real; NV], [Real; NC]), Singular> {
            constrained_forward_dynamics_with(&p.derived(), q, qd, tau)
        }

        /// [`constrained_forward_dynamics`] with the parameter groups already
        /// computed by [`Params::derived`].
        pub fn constrained_forward_dynamics_with(
            d: &Derived,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<([Real; NV], [Real; NC]), Singular> {
            let terms = joint_space_with(d, q, qd);
            let jacobian = constraint_jacobian_with(d, q);
            let bias = constraint_bias_with(d, q, qd);
            let free: [Real; NV] = core::array::from_fn(|i| tau[i] - terms.bias[i]);
            let (qdd, lambda) = closed_solve(terms.mass_matrix, free, &jacobian, &bias)?;
            Ok((qdd, lambda))
        }

        /// Operation count of [`cut_joint_reactions_with`] at full constraint
        /// rank.
        pub const OPS_CUT_JOINT_REACTIONS: OpCount = #reaction_ops;

        /// For every cut joint (order of `CUT_JOINTS`), the force (first
        /// three) and moment (last three) its parent body exerts on its child
        /// body, in ground axes, the moment about the joint frame's origin on
        /// the child side: from the multipliers of
        /// [`constrained_forward_dynamics`] (components of redundant rows,
        /// which the loop leaves statically indeterminate, are zero).
        pub fn cut_joint_reactions(
            p: &Params,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<[[Real; 6]; N_CUT], Singular> {
            cut_joint_reactions_with(&p.derived(), q, qd, tau)
        }

        /// [`cut_joint_reactions`] with the parameter groups already computed
        /// by [`Params::derived`].
        pub fn cut_joint_reactions_with(
            d: &Derived,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> Result<[[Real; 6]; N_CUT], Singular> {
            let (_, lambda) = constrained_forward_dynamics_with(d, q, qd, tau)?;
            Ok(reactions_of_multipliers_with(d, q, &lambda))
        }

        #independent_items
    };
    (items, ops)
}

/// `dependent_velocities` and `constrained_inverse_dynamics`, for the
/// spec's independent coordinates.
fn independent(loops: &LoopFacts, nv: usize, ops: &[(String, OpCount)], fma: bool) -> TokenStream {
    let ni = loops.independent.len();
    let dependent: Vec<Literal> = (0..nv)
        .filter(|i| !loops.independent.contains(i))
        .map(Literal::usize_unsuffixed)
        .collect();
    let nd = Literal::usize_unsuffixed(dependent.len());
    let ni_literal = Literal::usize_unsuffixed(ni);
    let [velocity_ops, inverse_ops] = [2, 3].map(|i| op_count_literal(ops[i].1, fma));
    quote! {
        /// Number of independent coordinates.
        pub const N_INDEPENDENT: usize = #ni_literal;
        /// Number of dependent coordinates: the velocity coordinates that
        /// are not in `INDEPENDENT`.
        pub const N_DEPENDENT: usize = #nd;
        /// Velocity indices of the dependent coordinates, ascending.
        pub const DEPENDENT: [usize; N_DEPENDENT] = [#(#dependent),*];

        /// `X` with `q̇_dependent = X q̇_independent` on `J q̇ = 0`: the
        /// least-squares solution of `J_d X = −J_i` (exact on a closed
        /// mechanism; redundant rows allowed). `Err` where the independent
        /// coordinates do not determine the others (`J_d` loses rank).
        fn dependent_map(
            d: &Derived,
            q: &[Real; NQ],
        ) -> Result<[[Real; N_DEPENDENT]; N_INDEPENDENT], Singular> {
            let jacobian = constraint_jacobian_with(d, q);
            let column = |row: &[Real; NV], k: usize| {
                let mut value = 0.0;
                for (i, &entry) in row.iter().enumerate() {
                    if i == k {
                        value = entry;
                    }
                }
                value
            };
            let dependent: [[Real; N_DEPENDENT]; NC] =
                core::array::from_fn(|r| core::array::from_fn(|c| column(&jacobian[r], DEPENDENT[c])));
            let independent: [[Real; N_INDEPENDENT]; NC] =
                core::array::from_fn(|r| core::array::from_fn(|c| column(&jacobian[r], INDEPENDENT[c])));
            let mut normal: [[Real; N_DEPENDENT]; N_DEPENDENT] = core::array::from_fn(|i| {
                core::array::from_fn(|j| {
                    let mut sum = 0.0;
                    for row in &dependent {
                        sum += row[i] * row[j];
                    }
                    sum
                })
            });
            if !cholesky(&mut normal) {
                return Err(Singular);
            }
            let mut map = [[0.0; N_DEPENDENT]; N_INDEPENDENT];
            for (c, slot) in map.iter_mut().enumerate() {
                let mut rhs = [0.0; N_DEPENDENT];
                for (i, value) in rhs.iter_mut().enumerate() {
                    for (row, own) in dependent.iter().zip(&independent) {
                        *value -= row[i] * own[c];
                    }
                }
                cholesky_solve(&normal, &mut rhs);
                *slot = rhs;
            }
            if map.iter().flatten().all(|v| v.is_finite()) {
                Ok(map)
            } else {
                Err(Singular)
            }
        }

        /// Operation count of [`dependent_velocities_with`].
        pub const OPS_DEPENDENT_VELOCITIES: OpCount = #velocity_ops;

        /// Every velocity coordinate from the independent ones
        /// (`INDEPENDENT` order), so that `J q̇ = 0`: `q̇ = G(q) q̇_independent`.
        pub fn dependent_velocities(
            p: &Params,
            q: &[Real; NQ],
            qd_independent: &[Real; N_INDEPENDENT],
        ) -> Result<[Real; NV], Singular> {
            dependent_velocities_with(&p.derived(), q, qd_independent)
        }

        /// [`dependent_velocities`] with the parameter groups already
        /// computed by [`Params::derived`].
        pub fn dependent_velocities_with(
            d: &Derived,
            q: &[Real; NQ],
            qd_independent: &[Real; N_INDEPENDENT],
        ) -> Result<[Real; NV], Singular> {
            let map = dependent_map(d, q)?;
            let mut qd = [0.0; NV];
            for (i, slot) in qd.iter_mut().enumerate() {
                for (c, &k) in INDEPENDENT.iter().enumerate() {
                    if k == i {
                        *slot = qd_independent[c];
                    }
                }
                for (r, &k) in DEPENDENT.iter().enumerate() {
                    if k == i {
                        let mut sum = 0.0;
                        for (c, row) in map.iter().enumerate() {
                            sum += row[r] * qd_independent[c];
                        }
                        *slot = sum;
                    }
                }
            }
            Ok(qd)
        }

        /// Operation count of [`constrained_inverse_dynamics_with`].
        pub const OPS_CONSTRAINED_INVERSE_DYNAMICS: OpCount = #inverse_ops;

        /// The forces of the independent (actuated) coordinates, in
        /// `INDEPENDENT` order, that move the closed mechanism with `q̈`
        /// (a motion consistent with the constraints: `J q̇ = 0`,
        /// `J q̈ + J̇ q̇ = 0`), every other joint passive: `Gᵀ τ_tree` with
        /// `τ_tree` the tree's inverse dynamics and `G` the velocity map of
        /// [`dependent_velocities`] (the constraint forces do no work).
        pub fn constrained_inverse_dynamics(
            p: &Params,
            q: &[Real; NQ],
            qd: &[Real; NV],
            qdd: &[Real; NV],
        ) -> Result<[Real; N_INDEPENDENT], Singular> {
            constrained_inverse_dynamics_with(&p.derived(), q, qd, qdd)
        }

        /// [`constrained_inverse_dynamics`] with the parameter groups already
        /// computed by [`Params::derived`].
        pub fn constrained_inverse_dynamics_with(
            d: &Derived,
            q: &[Real; NQ],
            qd: &[Real; NV],
            qdd: &[Real; NV],
        ) -> Result<[Real; N_INDEPENDENT], Singular> {
            let map = dependent_map(d, q)?;
            let tau = inverse_dynamics_with(d, q, qd, qdd);
            let mut forces = [0.0; N_INDEPENDENT];
            for (c, force) in forces.iter_mut().enumerate() {
                for (i, &t) in tau.iter().enumerate() {
                    if INDEPENDENT[c] == i {
                        *force += t;
                    }
                    for (r, &k) in DEPENDENT.iter().enumerate() {
                        if k == i {
                            *force += map[c][r] * t;
                        }
                    }
                }
            }
            Ok(forces)
        }
    }
}
