//! The cycles of a directed graph of files: its strongly connected
//! components of more than one file, each with one shortest cycle through
//! its first file to show in a report.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The strongly connected components of more than one node of the graph on `0..nodes` with `edges` (Tarjan's algorithm).
pub fn tangles(nodes: usize, edges: &BTreeMap<(usize, usize), usize>) -> Vec<Vec<usize>> {
    let mut successors = vec![Vec::new(); nodes];
    for &(from, to) in edges.keys() {
        successors[from].push(to);
    }
    let mut search = Tarjan {
        successors,
        index: vec![None; nodes],
        low: vec![0; nodes],
        stack: Vec::new(),
        on_stack: vec![false; nodes],
        next: 0,
        components: Vec::new(),
    };
    for node in 0..nodes {
        if search.index[node].is_none() {
            search.visit(node);
        }
    }
    search.components
}

struct Tarjan {
    successors: Vec<Vec<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: Vec<bool>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.next);
        self.low[node] = self.next;
        self.next += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        for successor in self.successors[node].clone() {
            match self.index[successor] {
                None => {
                    self.visit(successor);
                    self.low[node] = self.low[node].min(self.low[successor]);
                }
                Some(index) if self.on_stack[successor] => {
                    self.low[node] = self.low[node].min(index)
                }
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack[member] = false;
                component.push(member);
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                self.components.push(component);
            }
        }
    }
}

/// A shortest cycle through the first node of `component`, inside it: the
/// nodes in order, the first again at the end.
pub fn cycle_through(component: &[usize], edges: &BTreeMap<(usize, usize), usize>) -> Vec<usize> {
    let members: BTreeSet<usize> = component.iter().copied().collect();
    let start = component[0];
    let mut came_from = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let successors = edges
            .keys()
            .filter(|&&(from, to)| from == node && members.contains(&to))
            .map(|&(_, to)| to);
        for successor in successors {
            if successor == start {
                let mut cycle = vec![start, node];
                while let Some(&before) = came_from.get(cycle.last().unwrap_or(&start)) {
                    cycle.push(before);
                }
                cycle.reverse();
                return cycle;
            }
            if let Entry::Vacant(entry) = came_from.entry(successor) {
                entry.insert(node);
                queue.push_back(successor);
            }
        }
    }
    vec![start]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(arcs: &[(usize, usize)]) -> BTreeMap<(usize, usize), usize> {
        arcs.iter().map(|&arc| (arc, 1)).collect()
    }

    #[test]
    fn components_of_one_node_are_no_cycle() {
        let edges = graph(&[(0, 1), (1, 2), (2, 1), (3, 0)]);
        let mut found = tangles(4, &edges);
        found.iter_mut().for_each(|c| c.sort_unstable());
        assert_eq!(found, [vec![1, 2]]);
    }

    #[test]
    fn the_cycle_shown_is_a_shortest_one() {
        let edges = graph(&[(0, 1), (1, 2), (2, 3), (3, 0), (1, 0)]);
        assert_eq!(
            tangles(4, &edges).iter().map(Vec::len).collect::<Vec<_>>(),
            [4]
        );
        assert_eq!(cycle_through(&[0, 1, 2, 3], &edges), [0, 1, 0]);
        let edges = graph(&[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(cycle_through(&[0, 1, 2], &edges), [0, 1, 2, 0]);
    }
}
