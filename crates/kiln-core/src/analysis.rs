//! Graph analysis on node indices: topological order, strongly connected components with a
//! cycle path each, upstream and downstream cones. Every algorithm is iterative, so graph
//! depth never becomes stack depth.

use crate::graph::{Graph, Wire};

/// Adjacency of a graph in compressed rows (node indices as in [`Graph::nodes`]).
#[derive(Clone, Debug)]
pub struct Topology {
    pred_off: Vec<u32>,
    preds: Vec<u32>,
    succ_off: Vec<u32>,
    succs: Vec<u32>,
}

fn csr(n: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut off = vec![0u32; n + 1];
    for &(a, _) in edges {
        off[a as usize + 1] += 1;
    }
    for i in 0..n {
        off[i + 1] += off[i];
    }
    let mut fill = off.clone();
    let mut out = vec![0u32; edges.len()];
    for &(a, b) in edges {
        out[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (off, out)
}

impl Topology {
    /// Build from explicit edges `(from, to)` over `n` nodes.
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Self {
        let (succ_off, succs) = csr(n, edges);
        let rev: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        let (pred_off, preds) = csr(n, &rev);
        Topology {
            pred_off,
            preds,
            succ_off,
            succs,
        }
    }

    /// Build from a graph's wires, keeping those for which `keep` is true. Wires naming
    /// unknown nodes are skipped (validation reports them).
    pub fn from_graph_filtered(graph: &Graph, mut keep: impl FnMut(&Wire) -> bool) -> Self {
        let edges: Vec<(u32, u32)> = graph
            .wires()
            .iter()
            .filter(|w| keep(w))
            .filter_map(|w| {
                let a = graph.index_of(w.from.node.as_str())?;
                let b = graph.index_of(w.to.node.as_str())?;
                Some((a as u32, b as u32))
            })
            .collect();
        Self::from_edges(graph.len(), &edges)
    }

    /// Build from all of a graph's wires.
    pub fn from_graph(graph: &Graph) -> Self {
        Self::from_graph_filtered(graph, |_| true)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.pred_off.len() - 1
    }
    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Direct predecessors of `n`.
    pub fn preds(&self, n: usize) -> &[u32] {
        &self.preds[self.pred_off[n] as usize..self.pred_off[n + 1] as usize]
    }
    /// Direct successors of `n`.
    pub fn succs(&self, n: usize) -> &[u32] {
        &self.succs[self.succ_off[n] as usize..self.succ_off[n + 1] as usize]
    }

    /// A topological order (Kahn's algorithm; ties broken by node index, so the order is
    /// deterministic). `Err` holds the nodes that could not be ordered (those on or behind a
    /// cycle).
    pub fn topo_order(&self) -> Result<Vec<u32>, Vec<u32>> {
        let (order, rest) = self.partial_order();
        if rest.is_empty() {
            Ok(order)
        } else {
            Err(rest)
        }
    }

    /// The nodes that can be ordered (every node not on or behind a cycle), in topological
    /// order, and the rest.
    pub fn partial_order(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let mut indeg: Vec<u32> = (0..n).map(|i| self.preds(i).len() as u32).collect();
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> = (0..n as u32)
            .filter(|&i| indeg[i as usize] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse(v)) = ready.pop() {
            order.push(v);
            for &s in self.succs(v as usize) {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    ready.push(std::cmp::Reverse(s));
                }
            }
        }
        let rest = (0..n as u32).filter(|&i| indeg[i as usize] > 0).collect();
        (order, rest)
    }

    /// Strongly connected components (iterative Tarjan). Each component's nodes are sorted;
    /// components come in reverse topological order of the condensation.
    pub fn sccs(&self) -> Vec<Vec<u32>> {
        const UNSEEN: u32 = u32::MAX;
        let n = self.len();
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<u32> = vec![];
        let mut comps = vec![];
        let mut next = 0u32;
        // Call stack of (node, position in its successor list).
        let mut call: Vec<(u32, usize)> = vec![];
        for root in 0..n as u32 {
            if index[root as usize] != UNSEEN {
                continue;
            }
            call.push((root, 0));
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut pos)) = call.last_mut() {
                let succ = self.succs(v as usize);
                if *pos < succ.len() {
                    let w = succ[*pos];
                    *pos += 1;
                    if index[w as usize] == UNSEEN {
                        index[w as usize] = next;
                        low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        call.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                } else {
                    call.pop();
                    if let Some(&(parent, _)) = call.last() {
                        low[parent as usize] = low[parent as usize].min(low[v as usize]);
                    }
                    if low[v as usize] == index[v as usize] {
                        let mut comp = vec![];
                        while let Some(w) = stack.pop() {
                            on_stack[w as usize] = false;
                            comp.push(w);
                            if w == v {
                                break;
                            }
                        }
                        comp.sort_unstable();
                        comps.push(comp);
                    }
                }
            }
        }
        comps
    }

    /// The components that contain a cycle (more than one node, or a self-loop), each with
    /// one cycle through it as a path of nodes (first node repeated implicitly at the end).
    pub fn cycles(&self) -> Vec<Vec<u32>> {
        self.sccs()
            .into_iter()
            .filter(|c| c.len() > 1 || self.succs(c[0] as usize).contains(&c[0]))
            .map(|c| self.cycle_path(&c))
            .collect()
    }

    /// One cycle inside a strongly connected component, found by breadth-first search from
    /// its smallest node back to itself.
    fn cycle_path(&self, comp: &[u32]) -> Vec<u32> {
        let start = comp[0];
        let inside = |v: u32| comp.binary_search(&v).is_ok();
        let mut parent: std::collections::HashMap<u32, u32> = Default::default();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            for &w in self.succs(v as usize) {
                if !inside(w) {
                    continue;
                }
                if w == start {
                    let mut path = vec![v];
                    let mut cur = v;
                    while cur != start {
                        cur = parent[&cur];
                        path.push(cur);
                    }
                    path.reverse();
                    return path;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(w) {
                    e.insert(v);
                    queue.push_back(w);
                }
            }
        }
        comp.to_vec()
    }

    fn cone(&self, roots: &[u32], up: bool) -> Vec<u32> {
        let mut seen = vec![false; self.len()];
        let mut stack: Vec<u32> = roots.to_vec();
        let mut out = vec![];
        while let Some(v) = stack.pop() {
            if std::mem::replace(&mut seen[v as usize], true) {
                continue;
            }
            out.push(v);
            let next = if up {
                self.preds(v as usize)
            } else {
                self.succs(v as usize)
            };
            stack.extend(next.iter().filter(|&&w| !seen[w as usize]));
        }
        out.sort_unstable();
        out
    }

    /// Every node the roots depend on, roots included (sorted).
    pub fn upstream(&self, roots: &[u32]) -> Vec<u32> {
        self.cone(roots, true)
    }
    /// Every node depending on the roots, roots included (sorted).
    pub fn downstream(&self, roots: &[u32]) -> Vec<u32> {
        self.cone(roots, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topo_and_cycles() {
        // 0 -> 1 -> 2 -> 1 (cycle 1,2), 2 -> 3
        let t = Topology::from_edges(4, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(t.topo_order().unwrap_err(), vec![1, 2, 3]);
        let cycles = t.cycles();
        assert_eq!(cycles, vec![vec![1, 2]]);
        let dag = Topology::from_edges(4, &[(2, 0), (0, 1), (3, 1)]);
        assert_eq!(dag.topo_order().unwrap(), vec![2, 0, 3, 1]);
        assert_eq!(dag.upstream(&[1]), vec![0, 1, 2, 3]);
        assert_eq!(dag.downstream(&[2]), vec![0, 1, 2]);
    }

    #[test]
    fn self_loop_is_a_cycle() {
        let t = Topology::from_edges(2, &[(1, 1)]);
        assert_eq!(t.cycles(), vec![vec![1]]);
    }

    #[test]
    fn deep_chain_has_no_recursion() {
        let n = 1_000_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let t = Topology::from_edges(n as usize, &edges);
        assert_eq!(t.topo_order().unwrap().len(), n as usize);
        assert_eq!(t.sccs().len(), n as usize);
        assert!(t.cycles().is_empty());
        assert_eq!(t.upstream(&[n - 1]).len(), n as usize);
    }
}
