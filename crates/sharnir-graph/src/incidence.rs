//! The textbook's structure matrices of a regularly numbered tree: incidence `S`, its
//! ground row `S₀`, and the path matrix `T`.
//!
//! Definitions (Yudintsev, §1.1.2, after Wittenburg), with `i⁺(a)` the body arc `a`
//! leaves and `i⁻(a)` the body it enters:
//! * `S(i, a) = +1` if `i = i⁺(a)`, `-1` if `i = i⁻(a)`, 0 otherwise (1.1); row 0 is `S₀`
//!   (1.2), rows `1..=n` form the square `S` (1.3);
//! * `T(a, i) = +1` if arc `a` is on the path from the ground to body `i` and points
//!   towards the ground, `-1` if it is on that path and points towards body `i`, 0 if it
//!   is not on the path.
//!
//! Then `T·S = S·T = E` (1.5) and `S₀·T = −1ᵀ` (the transpose of (1.4),
//! `Tᵀ·S₀ᵀ = −1_n`). In a regular numbering both `S` and `T` are upper triangular with
//! `T(a, i) = S(a, a)` for every arc `a` on the path to `i`.

use crate::matrix::Matrix;
use crate::SpanningTree;

/// The square incidence matrix `S` (rows bodies `1..=n`, columns arcs `1..=n`, both in
/// regular numbering), the textbook's bookkeeping of which joint connects which bodies
/// and in which direction; entry `(i - 1, a - 1)` is `S(i, a)`.
pub fn incidence_of(tree: &SpanningTree) -> Matrix {
    let n = tree.bodies();
    let mut s = Matrix::zeros(n, n);
    for k in 1..=n {
        let (child_sign, parent_sign) = arc_signs(tree, k);
        s.set(k - 1, k - 1, child_sign);
        if let Some(parent_row) = tree.parent_number(k).checked_sub(1) {
            s.set(parent_row, k - 1, parent_sign);
        }
    }
    s
}

/// The ground row `S₀` of the incidence matrix as a `1 × n` matrix: nonzero for the arcs
/// incident to the ground, whose motion is prescribed and so kept apart from `S`.
pub fn ground_incidence_of(tree: &SpanningTree) -> Matrix {
    let n = tree.bodies();
    let mut s0 = Matrix::zeros(1, n);
    for k in 1..=n {
        if tree.parent_number(k) == 0 {
            s0.set(0, k - 1, arc_signs(tree, k).1);
        }
    }
    s0
}

/// The path matrix `T` (rows arcs `1..=n`, columns bodies `1..=n`, regular numbering),
/// the inverse of `S`: column `i` marks the arcs between the ground and body `i`, signed
/// by their direction; entry `(a - 1, i - 1)` is `T(a, i)`.
pub fn path_matrix_of(tree: &SpanningTree) -> Matrix {
    let n = tree.bodies();
    let mut t = Matrix::zeros(n, n);
    for i in 1..=n {
        for a in trace_path(tree, i) {
            // Arc `a` enters body `a` unless reversed: then it points towards the ground.
            t.set(a - 1, i - 1, arc_signs(tree, a).0);
        }
    }
    t
}

/// Regular numbers of the arcs on the path from body number `body_number` down to the
/// ground, in that order (so decreasing); empty for the ground itself or a number outside
/// `1..=n`. In a regular numbering arc `k` is the inboard arc of body `k`, so these are
/// also the numbers of the body and its ancestors.
pub fn trace_path(tree: &SpanningTree, body_number: usize) -> Vec<usize> {
    let mut path = Vec::new();
    if body_number > tree.bodies() {
        return path;
    }
    let mut k = body_number;
    while k > 0 {
        path.push(k);
        k = tree.parent_number(k);
    }
    path
}

/// Signs of arc number `k` in the rows of its outboard body `k` and of its parent:
/// `(-1, +1)` when the arc points away from the ground, `(+1, -1)` when reversed.
fn arc_signs(tree: &SpanningTree, k: usize) -> (i32, i32) {
    if tree.arc_reversed(k) {
        (1, -1)
    } else {
        (-1, 1)
    }
}
