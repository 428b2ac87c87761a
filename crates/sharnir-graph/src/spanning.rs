//! Spanning tree of the mechanism graph, its regular numbering and its cut joints.

use super::{Arc, GraphError};
use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::visit::Bfs;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One moving body of the tree as seen from its regular number `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link {
    /// Original index of the body.
    body: usize,
    /// Original index of its inboard arc (the arc with regular number `k`).
    arc: usize,
    /// Regular number of the parent, 0 for the ground.
    parent: usize,
    /// Whether the original arc leaves body `k` and enters its parent.
    reversed: bool,
}

/// A regularly numbered spanning tree of a mechanism graph.
///
/// Every recursion of the compiler walks bodies by regular number `k = 1..=n`: the
/// parent of body `k` has a smaller number and the inboard arc of body `k` has number
/// `k`, so outward passes are increasing loops and inward passes decreasing ones. This
/// type holds that numbering together with the way back to the user's indices, the arcs
/// left out of the tree (cut joints) and the closed loop each of them makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanningTree {
    /// `links[k - 1]` describes body number `k`.
    links: Vec<Link>,
    /// Regular number of each original body; `None` never occurs after a successful
    /// build, but keeps lookups total.
    numbers: Vec<Option<usize>>,
    /// `children[k]` lists the children numbers of body number `k` (0 = ground),
    /// ascending.
    children: Vec<Vec<usize>>,
    /// Original indices of the arcs outside the tree, ascending.
    cut_arcs: Vec<usize>,
    /// `loops[c]` is the fundamental loop of `cut_arcs[c]`.
    loops: Vec<Vec<usize>>,
}

/// Checks a mechanism graph and finds its regularly numbered spanning tree.
///
/// `body_count` counts the ground (body 0) too; `arcs[a]` is joint `a`, oriented from
/// the parent side named by the user to the child side. The tree is breadth-first from
/// the ground, so every body is as few joints from the ground as the graph allows; when
/// several arcs reach a body from the previous level, one that leaves the previous level
/// (parent named first) is preferred, then the one with the smallest original index.
/// Numbers are handed out parents first, and among the bodies whose parent is already
/// numbered the one whose inboard arc comes first in `arcs` gets the next number, so an
/// input that is already regularly numbered keeps its numbering.
///
/// Arcs outside the tree are cut joints: they are not an error here but are listed by
/// [`SpanningTree::cut_arcs`] with their loops.
///
/// # Errors
/// [`GraphError::NoGround`] if `body_count` is 0; otherwise, for the first arc (in
/// index order) that names a body index `>= body_count`, [`GraphError::UnknownBody`]
/// (its `from` end is checked before its `to` end), or, if it joins a body to itself,
/// [`GraphError::SelfLoop`]; then [`GraphError::Disconnected`] listing every body that
/// no chain of arcs joins to the ground.
pub fn spanning_tree(body_count: usize, arcs: &[Arc]) -> Result<SpanningTree, GraphError> {
    spanning_tree_cutting(body_count, arcs, &[])
}

/// [`spanning_tree`] with the arcs of `cut` (original indices) kept out of the tree:
/// the joints a user marked as cut joints. The tree is the breadth-first tree of the
/// graph without them, and they are cut arcs like those the search leaves out.
///
/// # Errors
/// Those of [`spanning_tree`], and [`GraphError::CutBridge`] when the graph is
/// connected but leaving out the arcs of `cut` disconnects it: one of them is a bridge
/// (it closes no loop), or more of them are marked than the graph has loops.
pub fn spanning_tree_cutting(
    body_count: usize,
    arcs: &[Arc],
    cut: &[usize],
) -> Result<SpanningTree, GraphError> {
    if body_count == 0 {
        return Err(GraphError::NoGround);
    }
    check_arcs(body_count, arcs)?;
    let inboard = match breadth_first_inboard_arcs(body_count, arcs, cut) {
        Err(GraphError::Disconnected { bodies }) if !cut.is_empty() => {
            breadth_first_inboard_arcs(body_count, arcs, &[])?;
            return Err(bridge_among(body_count, arcs, cut, bodies));
        }
        other => other?,
    };
    let mut tree = number_regularly(body_count, arcs, &inboard);
    tree.record_cut_arcs(arcs);
    Ok(tree)
}

/// The error for forced cuts that disconnect a connected graph: the first arc of
/// `cut` that joins a body cut off (`unreachable`) to the rest.
fn bridge_among(
    body_count: usize,
    arcs: &[Arc],
    cut: &[usize],
    unreachable: Vec<usize>,
) -> GraphError {
    let mut off = vec![false; body_count];
    for &body in &unreachable {
        if let Some(flag) = off.get_mut(body) {
            *flag = true;
        }
    }
    let is_off = |b: usize| off.get(b).copied().unwrap_or(false);
    let arc = cut
        .iter()
        .copied()
        .filter(|&a| {
            arcs.get(a)
                .is_some_and(|arc| is_off(arc.from) != is_off(arc.to))
        })
        .min()
        .or_else(|| cut.iter().copied().min())
        .unwrap_or(0);
    GraphError::CutBridge {
        arc,
        bodies: unreachable,
    }
}

impl SpanningTree {
    /// Number `n` of moving bodies, which is also the number of tree arcs; regular
    /// numbers run over `1..=n`.
    pub fn bodies(&self) -> usize {
        self.links.len()
    }

    /// Original index of the inboard arc of body number `k`, i.e. of arc number `k`:
    /// which joint of the input places body `k` relative to its parent.
    ///
    /// Precondition: `1 <= k <= bodies()` (checked in debug builds; out of range, the
    /// nearest valid number is used, and 0 is returned for a tree without bodies).
    pub fn inboard_arc(&self, k: usize) -> usize {
        self.clamped_link(k).map_or(0, |link| link.arc)
    }

    /// Original index of body number `k`, to find the input data of the body.
    ///
    /// Precondition: `1 <= k <= bodies()` (checked in debug builds; out of range, the
    /// nearest valid number is used, and 0, the ground, is returned for a tree without
    /// bodies).
    pub fn body_of_number(&self, k: usize) -> usize {
        self.clamped_link(k).map_or(0, |link| link.body)
    }

    /// Regular number of the parent of body number `k` (0 = ground); always below `k`.
    ///
    /// Precondition: `1 <= k <= bodies()` (checked in debug builds; out of range, the
    /// nearest valid number is used, and 0 is returned for a tree without bodies).
    pub fn parent_number(&self, k: usize) -> usize {
        self.clamped_link(k).map_or(0, |link| link.parent)
    }

    /// Whether the inboard arc of body number `k` points from body `k` towards its
    /// parent, i.e. the user named the outboard body as the joint's parent. The joint
    /// coordinate is then measured the other way round, so callers must either flip the
    /// joint or reject the input.
    ///
    /// Precondition: `1 <= k <= bodies()` (checked in debug builds; out of range, the
    /// nearest valid number is used, and `false` is returned for a tree without bodies).
    pub fn arc_reversed(&self, k: usize) -> bool {
        self.clamped_link(k).is_some_and(|link| link.reversed)
    }

    /// Regular number of an original body (`Some(0)` for the ground), or `None` for an
    /// index that is not a body; the inverse of [`body_of_number`](Self::body_of_number).
    pub fn number_of_body(&self, body: usize) -> Option<usize> {
        self.numbers.get(body).copied().flatten()
    }

    /// Regular numbers of the children of body number `k` (`k = 0` gives the bodies
    /// joined directly to the ground), ascending; empty for a leaf or an out-of-range
    /// `k`. Inward recursions over trees (not chains) sum over these.
    pub fn children_numbers(&self, k: usize) -> &[usize] {
        self.children.get(k).map_or(&[], Vec::as_slice)
    }

    /// Original indices of the arcs that are not in the tree, ascending. Each one closes
    /// a kinematic loop; the equations of motion need a constraint per cut joint.
    pub fn cut_arcs(&self) -> &[usize] {
        &self.cut_arcs
    }

    /// The fundamental loop of a cut arc: original arc indices starting with `cut_arc`
    /// itself, then the tree arcs leading from its `to` body back to its `from` body, so
    /// consecutive arcs share a body and so do the last and the first. `None` if
    /// `cut_arc` is not a cut arc.
    pub fn fundamental_loop(&self, cut_arc: usize) -> Option<&[usize]> {
        let c = self.cut_arcs.binary_search(&cut_arc).ok()?;
        self.loops.get(c).map(Vec::as_slice)
    }

    /// The link of body number `k`, or `None` outside `1..=bodies()`.
    fn link(&self, k: usize) -> Option<&Link> {
        self.links.get(k.checked_sub(1)?)
    }

    /// The link of body number `k`, clamped into `1..=bodies()` after a debug check.
    fn clamped_link(&self, k: usize) -> Option<&Link> {
        debug_assert!(
            (1..=self.bodies()).contains(&k),
            "body number {k} is outside 1..={}",
            self.bodies()
        );
        self.link(k.clamp(1, self.bodies().max(1)))
    }

    /// Lists the arcs left out of the tree with their fundamental loops.
    fn record_cut_arcs(&mut self, arcs: &[Arc]) {
        let mut in_tree = vec![false; arcs.len()];
        for link in &self.links {
            if let Some(flag) = in_tree.get_mut(link.arc) {
                *flag = true;
            }
        }
        for (index, arc) in arcs.iter().enumerate() {
            if !in_tree.get(index).copied().unwrap_or(true) {
                let cycle = self.loop_closed_by(index, arc);
                self.cut_arcs.push(index);
                self.loops.push(cycle);
            }
        }
    }

    /// The fundamental loop of cut arc `index`: the arc itself, the tree arcs from its
    /// `to` body up to the nearest common ancestor, then down to its `from` body.
    fn loop_closed_by(&self, index: usize, arc: &Arc) -> Vec<usize> {
        let from = self.number_of_body(arc.from).unwrap_or(0);
        let to = self.number_of_body(arc.to).unwrap_or(0);
        let ancestor = self.common_ancestor(from, to);
        let mut cycle = vec![index];
        self.arcs_up_to(to, ancestor, &mut cycle);
        let down_start = cycle.len();
        self.arcs_up_to(from, ancestor, &mut cycle);
        if let Some(down) = cycle.get_mut(down_start..) {
            down.reverse();
        }
        cycle
    }

    /// Original indices of the inboard arcs from body number `k` up to, but excluding,
    /// body number `ancestor`.
    fn arcs_up_to(&self, mut k: usize, ancestor: usize, arcs: &mut Vec<usize>) {
        while k > ancestor {
            let Some(link) = self.link(k) else { return };
            arcs.push(link.arc);
            k = link.parent;
        }
    }

    /// Nearest common ancestor of two body numbers: in a regular numbering the larger
    /// number is never an ancestor of the smaller, so step it to its parent until they meet.
    fn common_ancestor(&self, mut a: usize, mut b: usize) -> usize {
        while a != b {
            let (larger, smaller) = if a > b { (a, b) } else { (b, a) };
            let Some(link) = self.link(larger) else {
                return 0;
            };
            a = link.parent;
            b = smaller;
        }
        a
    }
}

/// Rejects arcs with an out-of-range end or joining a body to itself.
fn check_arcs(body_count: usize, arcs: &[Arc]) -> Result<(), GraphError> {
    for (index, arc) in arcs.iter().enumerate() {
        if let Some(body) = [arc.from, arc.to].into_iter().find(|&b| b >= body_count) {
            return Err(GraphError::UnknownBody { arc: index, body });
        }
        if arc.from == arc.to {
            return Err(GraphError::SelfLoop { arc: index });
        }
    }
    Ok(())
}

/// The inboard arc of every body of a breadth-first tree from the ground (`None` for the
/// ground), or the bodies the ground cannot reach.
///
/// Breadth-first search pops bodies level by level, so when a body is popped every body
/// of the previous level has already been popped: its level is one more than the lowest
/// level among its already popped neighbours, and its inboard arc is, among the arcs to
/// a neighbour on that level, one that points away from the ground if there is one,
/// then the smallest-indexed. Arcs of `cut` are left out of the search.
fn breadth_first_inboard_arcs(
    body_count: usize,
    arcs: &[Arc],
    cut: &[usize],
) -> Result<Vec<Option<usize>>, GraphError> {
    let mut graph = UnGraph::<(), usize, usize>::with_capacity(body_count, arcs.len());
    for _ in 0..body_count {
        graph.add_node(());
    }
    for (index, arc) in arcs.iter().enumerate() {
        if !cut.contains(&index) {
            graph.add_edge(NodeIndex::new(arc.from), NodeIndex::new(arc.to), index);
        }
    }
    let mut level: Vec<Option<usize>> = vec![None; body_count];
    let mut inboard: Vec<Option<usize>> = vec![None; body_count];
    let mut bfs = Bfs::new(&graph, NodeIndex::new(0));
    while let Some(node) = bfs.next(&graph) {
        let body = node.index();
        let reached = graph
            .edges(node)
            .filter_map(|edge| {
                let arc = *edge.weight();
                let neighbour = arcs.get(arc)?.other_end(body)?;
                let reversed = arcs.get(arc)?.from == body;
                Some((level.get(neighbour).copied().flatten()?, reversed, arc))
            })
            .min();
        if let Some(slot) = level.get_mut(body) {
            *slot = Some(reached.map_or(0, |(l, _, _)| l + 1));
        }
        if let Some(slot) = inboard.get_mut(body) {
            *slot = reached.map(|(_, _, arc)| arc);
        }
    }
    let unreachable: Vec<usize> = level
        .iter()
        .enumerate()
        .filter_map(|(body, l)| l.is_none().then_some(body))
        .collect();
    if unreachable.is_empty() {
        Ok(inboard)
    } else {
        Err(GraphError::Disconnected {
            bodies: unreachable,
        })
    }
}

/// Numbers the tree given by each body's inboard arc, parents first, the earliest
/// inboard arc first among the bodies ready to be numbered.
fn number_regularly(body_count: usize, arcs: &[Arc], inboard: &[Option<usize>]) -> SpanningTree {
    let mut outboard: Vec<Vec<(usize, usize)>> = vec![Vec::new(); body_count];
    for (body, inboard_arc) in inboard.iter().enumerate() {
        let Some((arc, parent)) =
            inboard_arc.and_then(|a| Some((a, arcs.get(a)?.other_end(body)?)))
        else {
            continue;
        };
        if let Some(list) = outboard.get_mut(parent) {
            list.push((arc, body));
        }
    }
    let mut tree = SpanningTree {
        links: Vec::with_capacity(body_count.saturating_sub(1)),
        numbers: vec![None; body_count],
        children: vec![Vec::new(); body_count],
        cut_arcs: Vec::new(),
        loops: Vec::new(),
    };
    if let Some(ground) = tree.numbers.get_mut(0) {
        *ground = Some(0);
    }
    let mut ready: BinaryHeap<Reverse<(usize, usize, usize)>> = BinaryHeap::new();
    let push_children = |ready: &mut BinaryHeap<_>, parent: usize, number: usize| {
        for &(arc, body) in outboard.get(parent).map_or(&[][..], Vec::as_slice) {
            ready.push(Reverse((arc, body, number)));
        }
    };
    push_children(&mut ready, 0, 0);
    while let Some(Reverse((arc, body, parent))) = ready.pop() {
        let k = tree.links.len() + 1;
        let reversed = arcs.get(arc).is_some_and(|a| a.from == body);
        tree.links.push(Link {
            body,
            arc,
            parent,
            reversed,
        });
        if let Some(number) = tree.numbers.get_mut(body) {
            *number = Some(k);
        }
        if let Some(siblings) = tree.children.get_mut(parent) {
            siblings.push(k);
        }
        push_children(&mut ready, body, k);
    }
    tree
}
