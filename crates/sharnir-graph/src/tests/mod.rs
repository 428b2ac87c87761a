//! Tests of the graph layer against the textbook's examples (V.V. Yudintsev,
//! «Динамика систем твёрдых тел», lecture notes, 2008, §1.1.2 and §3.6) and on
//! generated graphs.
//!
//! All matrices are integer matrices and are compared exactly (tolerance 0).

use super::*;
use crate::incidence::{ground_incidence_of, incidence_of, path_matrix_of, trace_path};
use crate::matrix::Matrix;

/// Arcs from a textbook table of `i⁺(a)` and `i⁻(a)` (arcs numbered from 1 in the book,
/// from 0 here; bodies keep their numbers, 0 being the ground in both).
fn arcs_from_table(leaves: &[usize], enters: &[usize]) -> Vec<Arc> {
    assert_eq!(
        leaves.len(),
        enters.len(),
        "table rows of different lengths"
    );
    leaves
        .iter()
        .zip(enters)
        .map(|(&from, &to)| Arc::new(from, to))
        .collect()
}

/// Table 1.1: the oriented tree of Fig. 1.3, 8 vertices and 7 arcs, not regularly numbered.
fn fig_1_3() -> Vec<Arc> {
    arcs_from_table(&[1, 6, 4, 6, 4, 6, 7], &[6, 2, 3, 4, 5, 7, 0])
}

/// The oriented incidence matrix printed for Fig. 1.3 (rows vertices 0..7, columns arcs
/// 1..7); it agrees with Table 1.1.
const FIG_1_3_S: [[i32; 7]; 8] = [
    [0, 0, 0, 0, 0, 0, -1],
    [1, 0, 0, 0, 0, 0, 0],
    [0, -1, 0, 0, 0, 0, 0],
    [0, 0, -1, 0, 0, 0, 0],
    [0, 0, 1, -1, 1, 0, 0],
    [0, 0, 0, 0, -1, 0, 0],
    [-1, 1, 0, 1, 0, 1, 0],
    [0, 0, 0, 0, 0, -1, 1],
];

/// `T` of Fig. 1.3 in the figure's own numbering (rows arcs 1..7, columns vertices 1..7).
/// The book does not print it; this is the digest's computed matrix.
const FIG_1_3_T: [[i32; 7]; 7] = [
    [1, 0, 0, 0, 0, 0, 0],
    [0, -1, 0, 0, 0, 0, 0],
    [0, 0, -1, 0, 0, 0, 0],
    [0, 0, -1, -1, -1, 0, 0],
    [0, 0, 0, 0, -1, 0, 0],
    [1, 1, 1, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 1, 1],
];

/// `T` printed for Fig. 1.6 (the tree of Fig. 1.3 in the book's regular numbering).
const FIG_1_6_T: [[i32; 7]; 7] = [
    [1, 1, 1, 1, 1, 1, 1],
    [0, 1, 1, 1, 1, 1, 1],
    [0, 0, -1, 0, -1, -1, 0],
    [0, 0, 0, 1, 0, 0, 0],
    [0, 0, 0, 0, -1, 0, 0],
    [0, 0, 0, 0, 0, -1, 0],
    [0, 0, 0, 0, 0, 0, -1],
];

/// `S` for Fig. 1.6 exactly as printed. Row 2 is a misprint: it reads
/// `0 0 1 1 −1 0 +1`, which is not upper triangular and breaks `T·S = E`.
const FIG_1_6_S_PRINTED: [[i32; 7]; 7] = [
    [1, -1, 0, 0, 0, 0, 0],
    [0, 0, 1, 1, -1, 0, 1],
    [0, 0, -1, 0, 1, 1, 0],
    [0, 0, 0, 1, 0, 0, 0],
    [0, 0, 0, 0, -1, 0, 0],
    [0, 0, 0, 0, 0, -1, 0],
    [0, 0, 0, 0, 0, 0, -1],
];

/// `S` for Fig. 1.6 with row 2 corrected to `0 1 1 −1 0 0 1` (the entries shifted one
/// column to the right in print).
const FIG_1_6_S: [[i32; 7]; 7] = [
    [1, -1, 0, 0, 0, 0, 0],
    [0, 1, 1, -1, 0, 0, 1],
    [0, 0, -1, 0, 1, 1, 0],
    [0, 0, 0, 1, 0, 0, 0],
    [0, 0, 0, 0, -1, 0, 0],
    [0, 0, 0, 0, 0, -1, 0],
    [0, 0, 0, 0, 0, 0, -1],
];

/// The book's renumbering from Fig. 1.3 to Fig. 1.6: `FIG_1_6_OLD_BODY[k]` is the
/// Fig. 1.3 vertex that becomes vertex `k` (its inboard arc becomes arc `k`). The book
/// only draws the figure; this mapping is the one under which its printed `T` holds
/// (vertices 5 and 6, both leaves under vertex 3, may be swapped).
const FIG_1_6_OLD_BODY: [usize; 8] = [0, 7, 6, 4, 1, 3, 5, 2];

/// Table 3.2: the closed-loop system of Fig. 3.22 (tree arcs 1..7, cut arcs 8..10 in
/// the book's choice of tree).
fn fig_3_22() -> Vec<Arc> {
    arcs_from_table(
        &[5, 6, 0, 1, 1, 3, 0, 4, 0, 5],
        &[0, 4, 2, 2, 7, 2, 4, 3, 7, 6],
    )
}

/// The full incidence matrix (3.180) of Fig. 3.22 (rows vertices 0..7, columns arcs 1..10).
const FIG_3_22_S: [[i32; 10]; 8] = [
    [-1, 0, 1, 0, 0, 0, 1, 0, 1, 0],
    [0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
    [0, 0, -1, -1, 0, -1, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 1, 0, -1, 0, 0],
    [0, -1, 0, 0, 0, 0, -1, 1, 0, 0],
    [1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0, 1, 0, 0, 0, 0, 0, 0, 0, -1],
    [0, 0, 0, 0, -1, 0, 0, 0, -1, 0],
];

/// `T` of the book's reduced tree of Fig. 3.22 (arcs 1..7) in the book's (irregular)
/// numbering, rows arcs, columns vertices 1..7; computed in the digest, not printed.
const FIG_3_22_T: [[i32; 7]; 7] = [
    [0, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 1, 0],
    [-1, -1, -1, 0, 0, 0, -1],
    [1, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0, -1],
    [0, 0, 1, 0, 0, 0, 0],
    [0, 0, 0, -1, 0, -1, 0],
];

fn tree_of(body_count: usize, arcs: &[Arc]) -> SpanningTree {
    match spanning_tree(body_count, arcs) {
        Ok(tree) => tree,
        Err(error) => panic!("expected a spanning tree, got {error}"),
    }
}

fn entry(m: &Matrix, row: usize, col: usize) -> i32 {
    m.get(row, col)
        .unwrap_or_else(|| panic!("({row}, {col}) outside {m:?}"))
}

fn product(a: &Matrix, b: &Matrix) -> Matrix {
    a.mul(b)
        .unwrap_or_else(|| panic!("shapes do not match: {a:?} · {b:?}"))
}

/// A matrix from a function of its (0-based) indices.
fn tabulate(rows: usize, cols: usize, f: impl Fn(usize, usize) -> i32) -> Matrix {
    let mut m = Matrix::zeros(rows, cols);
    for r in 0..rows {
        for c in 0..cols {
            m.set(r, c, f(r, c));
        }
    }
    m
}

/// Our `S` and `S₀` and `T` expressed in the input's own numbering must agree entry by
/// entry with matrices given in that numbering: `S(i, a)` of ours is
/// `S_input(body_of_number(i), inboard_arc(a))`, and `T` likewise.
fn assert_matches_input_numbering<const A: usize, const B: usize>(
    tree: &SpanningTree,
    s_full: &[[i32; A]],
    t_input: Option<&[[i32; B]]>,
) {
    let n = tree.bodies();
    let s = incidence_of(tree);
    let s0 = ground_incidence_of(tree);
    let t = path_matrix_of(tree);
    for a in 1..=n {
        let arc = tree.inboard_arc(a);
        assert_eq!(entry(&s0, 0, a - 1), s_full[0][arc], "S₀ at arc {a}");
        for i in 1..=n {
            let body = tree.body_of_number(i);
            assert_eq!(entry(&s, i - 1, a - 1), s_full[body][arc], "S({i}, {a})");
            if let Some(t_input) = t_input {
                assert_eq!(
                    entry(&t, a - 1, i - 1),
                    t_input[arc][body - 1],
                    "T({a}, {i})"
                );
            }
        }
    }
}

/// `T·S = S·T = E` (1.5) and `S₀·T = −1ᵀ` (1.4), exactly.
fn assert_inverse_pair(tree: &SpanningTree) {
    let n = tree.bodies();
    let (s, t) = (incidence_of(tree), path_matrix_of(tree));
    assert_eq!(product(&t, &s), Matrix::identity(n), "T·S");
    assert_eq!(product(&s, &t), Matrix::identity(n), "S·T");
    let minus_ones = tabulate(1, n, |_, _| -1);
    assert_eq!(product(&ground_incidence_of(tree), &t), minus_ones, "S₀·T");
}

/// Regular numbering: parents before children, body `k` reached through arc `k`, and
/// every tree arc really joins body `k` to its parent, in the reported direction.
fn assert_regular(tree: &SpanningTree, arcs: &[Arc]) {
    let n = tree.bodies();
    let mut seen_arcs = vec![false; arcs.len()];
    for k in 1..=n {
        let parent = tree.parent_number(k);
        assert!(
            parent < k,
            "parent {parent} of body {k} is not numbered before it"
        );
        let arc = arcs[tree.inboard_arc(k)];
        assert!(!seen_arcs[tree.inboard_arc(k)], "arc used twice");
        seen_arcs[tree.inboard_arc(k)] = true;
        let (body, parent_body) = (tree.body_of_number(k), body_or_ground(tree, parent));
        let expected = if tree.arc_reversed(k) {
            Arc::new(body, parent_body)
        } else {
            Arc::new(parent_body, body)
        };
        assert_eq!(arc, expected, "inboard arc of body {k}");
        assert_eq!(tree.number_of_body(body), Some(k));
        assert!(tree.children_numbers(parent).contains(&k));
    }
    for k in 0..=n {
        for &child in tree.children_numbers(k) {
            assert_eq!(tree.parent_number(child), k, "child {child} of {k}");
        }
    }
    assert_eq!(tree.number_of_body(0), Some(0));
    let cut: Vec<usize> = (0..arcs.len()).filter(|&a| !seen_arcs[a]).collect();
    assert_eq!(
        tree.cut_arcs(),
        cut.as_slice(),
        "cut arcs are the arcs outside the tree"
    );
    let (s, t) = (incidence_of(tree), path_matrix_of(tree));
    for row in 0..n {
        for col in 0..row {
            assert_eq!(
                entry(&s, row, col),
                0,
                "S below the diagonal at ({row}, {col})"
            );
            assert_eq!(
                entry(&t, row, col),
                0,
                "T below the diagonal at ({row}, {col})"
            );
        }
        assert_ne!(entry(&s, row, row), 0, "S diagonal at {row}");
    }
}

/// The original body of a number, the ground included.
fn body_or_ground(tree: &SpanningTree, k: usize) -> usize {
    if k == 0 {
        0
    } else {
        tree.body_of_number(k)
    }
}

/// The loop starts with the cut arc, then walks from its `to` end around back to its
/// `from` end through distinct tree arcs.
fn assert_closed_loop(tree: &SpanningTree, arcs: &[Arc], cut: usize) -> Vec<usize> {
    let cycle = tree
        .fundamental_loop(cut)
        .expect("a cut arc has a loop")
        .to_vec();
    assert_eq!(cycle.first(), Some(&cut), "loop starts with its cut arc");
    let mut at = arcs[cut].to;
    for &arc in &cycle[1..] {
        assert!(
            !tree.cut_arcs().contains(&arc),
            "loop {cycle:?} uses another cut arc"
        );
        at = arcs[arc]
            .other_end(at)
            .unwrap_or_else(|| panic!("loop {cycle:?} breaks at {arc}"));
    }
    assert_eq!(at, arcs[cut].from, "loop {cycle:?} does not close");
    let mut sorted = cycle.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), cycle.len(), "loop {cycle:?} repeats an arc");
    cycle
}

/// The digest (§1.4, §7): column `c` of `T·S*` marks, with ±1, the tree arcs of the
/// fundamental loop of cut arc `c`. `S*` is built here from definition (1.1).
fn assert_loops_match_t_s_star(tree: &SpanningTree, arcs: &[Arc]) {
    let n = tree.bodies();
    let cuts = tree.cut_arcs();
    let s_star = tabulate(n, cuts.len(), |row, c| {
        let arc = arcs[cuts[c]];
        let body = tree.body_of_number(row + 1);
        i32::from(arc.from == body) - i32::from(arc.to == body)
    });
    let t_s_star = product(&path_matrix_of(tree), &s_star);
    for (c, &cut) in cuts.iter().enumerate() {
        let mut marked: Vec<usize> = (1..=n)
            .filter(|&a| entry(&t_s_star, a - 1, c) != 0)
            .map(|a| tree.inboard_arc(a))
            .collect();
        marked.sort_unstable();
        let mut in_loop = tree.fundamental_loop(cut).expect("cut arc")[1..].to_vec();
        in_loop.sort_unstable();
        assert_eq!(marked, in_loop, "T·S* column of cut arc {cut}");
    }
}

#[test]
fn fig_1_3_printed_incidence_matrix_and_computed_path_matrix() {
    let arcs = fig_1_3();
    let tree = tree_of(8, &arcs);
    assert_regular(&tree, &arcs);
    assert_matches_input_numbering(&tree, &FIG_1_3_S, Some(&FIG_1_3_T[..]));
    assert_inverse_pair(&tree);
    // Our rule (earliest inboard arc first among ready bodies) numbers vertices
    // 7, 6, 1, 2, 4, 3, 5 of the figure as 1..7.
    let order: Vec<usize> = (1..=7).map(|k| tree.body_of_number(k)).collect();
    assert_eq!(order, [7, 6, 1, 2, 4, 3, 5]);
    // The path from vertex 3 to the ground is u3, u4, u6, u7 (digest §8, case 1).
    let three = tree.number_of_body(3).expect("vertex 3 is numbered");
    let path: Vec<usize> = trace_path(&tree, three)
        .iter()
        .map(|&a| tree.inboard_arc(a) + 1)
        .collect();
    assert_eq!(path, [3, 4, 6, 7]);
}

#[test]
fn fig_1_6_printed_path_matrix_and_corrected_incidence_matrix() {
    // Fig. 1.6 is Fig. 1.3 renumbered regularly, arc directions unchanged: relabel
    // Table 1.1 with the book's mapping instead of transcribing the figure by hand.
    let old = fig_1_3();
    let new_of_old = |v: usize| {
        FIG_1_6_OLD_BODY
            .iter()
            .position(|&o| o == v)
            .expect("vertex")
    };
    let arcs: Vec<Arc> = (1..=7)
        .map(|k| {
            let old_body = FIG_1_6_OLD_BODY[k];
            let arc = old.iter().find(|a| {
                let other = a.other_end(old_body);
                other.is_some_and(|o| new_of_old(o) < k)
            });
            let arc = arc.expect("inboard arc");
            Arc::new(new_of_old(arc.from), new_of_old(arc.to))
        })
        .collect();
    let tree = tree_of(8, &arcs);
    // Already regular, so the numbering is kept.
    for k in 1..=7 {
        assert_eq!((tree.body_of_number(k), tree.inboard_arc(k)), (k, k - 1));
    }
    let (s, t) = (incidence_of(&tree), path_matrix_of(&tree));
    assert_eq!(t, Matrix::from_rows(&FIG_1_6_T));
    assert_eq!(s, Matrix::from_rows(&FIG_1_6_S));
    assert_eq!(
        ground_incidence_of(&tree),
        Matrix::from_rows(&[[-1, 0, 0, 0, 0, 0, 0]])
    );
    assert_inverse_pair(&tree);
    // The misprinted row 2 of the printed S is what breaks T·S = E.
    let printed = Matrix::from_rows(&FIG_1_6_S_PRINTED);
    assert_ne!(product(&t, &printed), Matrix::identity(7));
    for row in 0..7 {
        for col in 0..7 {
            let same = entry(&printed, row, col) == entry(&s, row, col);
            assert!(
                same || row == 1,
                "printed S differs outside row 2 at ({row}, {col})"
            );
        }
    }
    // With n' = 4 boundary vertices (the book says "n' = 3", a misprint), T has
    // nonzeros above the diagonal only in its first n − n' = 3 rows.
    let leaves = (1..=7)
        .filter(|&k| tree.children_numbers(k).is_empty())
        .count();
    assert_eq!(leaves, 4);
    for row in 7 - leaves..7 {
        for col in row + 1..7 {
            assert_eq!(entry(&t, row, col), 0, "T({}, {})", row + 1, col + 1);
        }
    }
}

#[test]
fn fig_3_22_breadth_first_tree_cut_arcs_and_loops() {
    const LOOPS: [[usize; 4]; 3] = [[2, 7, 1, 10], [5, 9, 3, 4], [6, 3, 7, 8]];
    let arcs = fig_3_22();
    let tree = tree_of(8, &arcs);
    assert_regular(&tree, &arcs);
    assert_matches_input_numbering::<10, 7>(&tree, &FIG_3_22_S, None);
    assert_inverse_pair(&tree);
    // Vertex 7 hangs directly on the ground through u9, so the shallowest tree keeps u9
    // (the book's tree cuts u8, u9 and u10). Among the arcs that reach a vertex from the
    // level above, those pointing away from the ground win: vertex 3 hangs on u8
    // (4 → 3) rather than u6 (3 → 2), vertex 6 on u10 (5 → 6) rather than u2 (6 → 4);
    // vertex 1 can only hang on a reversed arc and takes the first, u4. Cut: u2, u5, u6.
    assert_eq!(tree.cut_arcs(), [1, 4, 5]);
    let loops: Vec<Vec<usize>> = [1, 4, 5]
        .iter()
        .map(|&cut| {
            assert_closed_loop(&tree, &arcs, cut)
                .iter()
                .map(|a| a + 1)
                .collect()
        })
        .collect();
    assert_eq!(loops, LOOPS);
    assert_loops_match_t_s_star(&tree, &arcs);
}

#[test]
fn fig_3_22_book_tree_matches_computed_path_matrix() {
    let arcs: Vec<Arc> = fig_3_22().into_iter().take(7).collect();
    let tree = tree_of(8, &arcs);
    assert_regular(&tree, &arcs);
    assert!(tree.cut_arcs().is_empty());
    assert_matches_input_numbering(&tree, &FIG_3_22_S, Some(&FIG_3_22_T[..]));
    assert_inverse_pair(&tree);
    // Three arcs (u1, u3, u7) leave the ground: three subsystems.
    assert_eq!(tree.children_numbers(0).len(), 3);
}

#[test]
fn scrambled_tree_is_numbered_parents_first_by_inboard_arc_order() {
    // Ground → 2 → {5 → 1, 3 → 4}, arcs listed out of order.
    let arcs = [
        Arc::new(3, 4),
        Arc::new(0, 2),
        Arc::new(2, 5),
        Arc::new(2, 3),
        Arc::new(5, 1),
    ];
    let tree = tree_of(6, &arcs);
    assert_regular(&tree, &arcs);
    let numbered: Vec<(usize, usize, usize)> = (1..=5)
        .map(|k| {
            (
                tree.body_of_number(k),
                tree.inboard_arc(k),
                tree.parent_number(k),
            )
        })
        .collect();
    assert_eq!(
        numbered,
        [(2, 1, 0), (5, 2, 1), (3, 3, 1), (4, 0, 3), (1, 4, 2)]
    );
    assert_eq!(tree.children_numbers(1), [2, 3]);
    assert_eq!(tree.children_numbers(5), [] as [usize; 0]);
    assert_eq!(trace_path(&tree, 5), [5, 2, 1]);
    assert_eq!(trace_path(&tree, 0), [] as [usize; 0]);
    assert_eq!(trace_path(&tree, 6), [] as [usize; 0]);
    assert_eq!(tree.number_of_body(6), None);
    assert_inverse_pair(&tree);
}

#[test]
fn reversed_arcs_are_reported_and_signed() {
    // Arc 0 points from body 1 to the ground, arc 1 from body 2 to body 1: both towards
    // the ground. Arc 2 points away from it.
    let arcs = [Arc::new(1, 0), Arc::new(2, 1), Arc::new(2, 3)];
    let tree = tree_of(4, &arcs);
    assert_regular(&tree, &arcs);
    let reversed: Vec<bool> = (1..=3).map(|k| tree.arc_reversed(k)).collect();
    assert_eq!(reversed, [true, true, false]);
    assert_eq!(
        incidence_of(&tree),
        Matrix::from_rows(&[[1, -1, 0], [0, 1, 1], [0, 0, -1]])
    );
    assert_eq!(ground_incidence_of(&tree), Matrix::from_rows(&[[-1, 0, 0]]));
    assert_eq!(
        path_matrix_of(&tree),
        Matrix::from_rows(&[[1, 1, 1], [0, 1, 1], [0, 0, -1]])
    );
    assert_inverse_pair(&tree);
}

#[test]
fn disconnected_bodies_are_all_listed() {
    let arcs = [Arc::new(0, 1), Arc::new(2, 3), Arc::new(1, 4)];
    assert_eq!(
        spanning_tree(6, &arcs),
        Err(GraphError::Disconnected {
            bodies: vec![2, 3, 5]
        })
    );
}

#[test]
fn malformed_arcs_are_rejected_in_arc_order() {
    assert_eq!(spanning_tree(0, &[]), Err(GraphError::NoGround));
    assert_eq!(
        spanning_tree(2, &[Arc::new(0, 1), Arc::new(1, 1)]),
        Err(GraphError::SelfLoop { arc: 1 })
    );
    assert_eq!(
        spanning_tree(3, &[Arc::new(0, 1), Arc::new(1, 7)]),
        Err(GraphError::UnknownBody { arc: 1, body: 7 })
    );
    assert_eq!(
        spanning_tree(3, &[Arc::new(9, 1), Arc::new(2, 2)]),
        Err(GraphError::UnknownBody { arc: 0, body: 9 })
    );
    assert_eq!(
        spanning_tree(3, &[Arc::new(0, 1), Arc::new(2, 2), Arc::new(1, 5)]),
        Err(GraphError::SelfLoop { arc: 1 })
    );
}

#[test]
fn ground_alone_is_an_empty_tree() {
    let tree = tree_of(1, &[]);
    assert_eq!(tree.bodies(), 0);
    assert_eq!(incidence_of(&tree), Matrix::zeros(0, 0));
    assert_eq!(path_matrix_of(&tree), Matrix::zeros(0, 0));
    assert!(tree.cut_arcs().is_empty());
}

#[test]
fn two_independent_loops_give_two_cut_arcs() {
    // A four-bar 0–1–2–3–0 and, hanging on body 1, the loop 1–4–5–6–1.
    let arcs = [
        Arc::new(0, 1),
        Arc::new(1, 2),
        Arc::new(2, 3),
        Arc::new(3, 0),
        Arc::new(1, 4),
        Arc::new(4, 5),
        Arc::new(5, 6),
        Arc::new(1, 6),
    ];
    let tree = tree_of(7, &arcs);
    assert_regular(&tree, &arcs);
    assert_eq!(tree.cut_arcs(), [2, 6]);
    assert_eq!(assert_closed_loop(&tree, &arcs, 2), [2, 3, 0, 1]);
    assert_eq!(assert_closed_loop(&tree, &arcs, 6), [6, 7, 4, 5]);
    assert_eq!(tree.fundamental_loop(0), None);
    assert_eq!(tree.fundamental_loop(99), None);
    assert_loops_match_t_s_star(&tree, &arcs);
    assert_inverse_pair(&tree);
}

#[test]
fn parallel_joints_make_a_two_arc_loop() {
    let arcs = [Arc::new(0, 1), Arc::new(1, 0)];
    let tree = tree_of(2, &arcs);
    assert_eq!(tree.cut_arcs(), [1]);
    assert_eq!(assert_closed_loop(&tree, &arcs, 1), [1, 0]);
}

#[test]
fn matrix_product_checks_shapes() {
    let a = Matrix::from_rows(&[[1, 2, 3], [0, -1, 4]]);
    let b = Matrix::from_rows(&[[1, 0], [2, 1], [-1, 3]]);
    assert_eq!(product(&a, &b), Matrix::from_rows(&[[2, 11], [-6, 11]]));
    assert_eq!(a.mul(&a), None);
    assert_eq!((a.rows(), a.cols()), (2, 3));
    assert_eq!(a.get(1, 2), Some(4));
    assert_eq!(a.get(2, 0), None);
    assert_eq!(a.get(0, 3), None);
}

/// SplitMix64: a tiny deterministic generator, so random graphs are reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A random connected graph on `bodies` vertices: a random tree with shuffled labels,
/// orientations and arc order, plus `extra` random non-self-loop arcs.
fn random_graph(rng: &mut SplitMix, bodies: usize, extra: usize) -> Vec<Arc> {
    let mut labels: Vec<usize> = (1..bodies).collect();
    rng.shuffle(&mut labels);
    labels.insert(0, 0);
    let mut pairs: Vec<(usize, usize)> = (1..bodies)
        .map(|v| (labels[rng.below(v)], labels[v]))
        .collect();
    for _ in 0..extra {
        let (a, b) = (rng.below(bodies), rng.below(bodies));
        if a != b {
            pairs.push((a, b));
        }
    }
    let mut arcs: Vec<Arc> = pairs
        .into_iter()
        .map(|(a, b)| {
            if rng.below(2) == 0 {
                Arc::new(a, b)
            } else {
                Arc::new(b, a)
            }
        })
        .collect();
    rng.shuffle(&mut arcs);
    arcs
}

/// Graph distance of every vertex from the ground, by a plain breadth-first search
/// written independently of the code under test.
fn distances(bodies: usize, arcs: &[Arc]) -> Vec<usize> {
    let mut distance = vec![usize::MAX; bodies];
    distance[0] = 0;
    let mut frontier = vec![0];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &v in &frontier {
            for arc in arcs {
                if let Some(w) = arc.other_end(v) {
                    if distance[w] == usize::MAX {
                        distance[w] = distance[v] + 1;
                        next.push(w);
                    }
                }
            }
        }
        frontier = next;
    }
    distance
}

#[test]
fn random_trees_are_numbered_regularly() {
    let mut rng = SplitMix(0x5EED_0001);
    for case in 0..40 {
        let bodies = 2 + case % 14;
        let arcs = random_graph(&mut rng, bodies, 0);
        let tree = tree_of(bodies, &arcs);
        assert_eq!(tree.bodies(), bodies - 1);
        assert_regular(&tree, &arcs);
        assert_inverse_pair(&tree);
        assert!(
            tree.cut_arcs().is_empty(),
            "case {case}: a tree has no cut arcs"
        );
    }
}

#[test]
fn random_graphs_get_shallowest_trees_and_closed_loops() {
    let mut rng = SplitMix(0x5EED_0002);
    for case in 0..40 {
        let bodies = 3 + case % 10;
        let arcs = random_graph(&mut rng, bodies, 1 + case % 5);
        let tree = tree_of(bodies, &arcs);
        assert_regular(&tree, &arcs);
        assert_inverse_pair(&tree);
        assert_eq!(
            tree.cut_arcs().len(),
            arcs.len() - (bodies - 1),
            "case {case}"
        );
        let distance = distances(bodies, &arcs);
        for k in 1..tree.bodies() + 1 {
            let depth = trace_path(&tree, k).len();
            assert_eq!(
                depth,
                distance[tree.body_of_number(k)],
                "case {case}, body {k}"
            );
        }
        for &cut in tree.cut_arcs() {
            assert_closed_loop(&tree, &arcs, cut);
        }
        assert_loops_match_t_s_star(&tree, &arcs);
    }
}

/// A four-bar: ground (0), crank (1), coupler (2), rocker (3), joints written
/// parent first around the loop and the rocker's ground pivot last.
fn four_bar() -> Vec<Arc> {
    vec![
        Arc::new(0, 1),
        Arc::new(1, 2),
        Arc::new(2, 3),
        Arc::new(0, 3),
    ]
}

#[test]
fn four_bar_cuts_the_joint_between_the_two_deepest_bodies() {
    let arcs = four_bar();
    let tree = spanning_tree(4, &arcs).expect("connected");
    // Crank and rocker hang on the ground; the coupler on the crank (index 1 before the
    // reversed 2 → 3 seen from the coupler), so the coupler–rocker joint is cut.
    assert_eq!(tree.cut_arcs(), [2]);
    assert_eq!(tree.fundamental_loop(2), Some(&[2, 3, 0, 1][..]));
    assert!((1..=3).all(|k| !tree.arc_reversed(k)));
}

#[test]
fn marked_cut_joints_are_left_out_of_the_tree() {
    let arcs = four_bar();
    let tree = spanning_tree_cutting(4, &arcs, &[1]).expect("a loop joint");
    assert_eq!(tree.cut_arcs(), [1]);
    // The coupler now hangs on the rocker through the reversed arc 2 → 3.
    let coupler = tree.number_of_body(2).expect("numbered");
    assert!(tree.arc_reversed(coupler));
}

#[test]
fn a_marked_bridge_is_refused_with_the_bodies_it_cuts_off() {
    // A pendulum hanging from the four-bar's coupler: its joint closes no loop.
    let mut arcs = four_bar();
    arcs.push(Arc::new(2, 4));
    assert_eq!(
        spanning_tree_cutting(5, &arcs, &[4]),
        Err(GraphError::CutBridge {
            arc: 4,
            bodies: vec![4]
        })
    );
    // Two marks on one loop leave a body hanging free.
    assert_eq!(
        spanning_tree_cutting(5, &arcs, &[1, 2]),
        Err(GraphError::CutBridge {
            arc: 1,
            bodies: vec![2, 4]
        })
    );
    // A disconnected graph stays a plain disconnection, marks or not.
    assert!(matches!(
        spanning_tree_cutting(6, &arcs, &[2]),
        Err(GraphError::Disconnected { .. })
    ));
}
