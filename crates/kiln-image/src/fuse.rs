//! Fusion: a graph rewrite that replaces each chain of per-pixel image nodes by one
//! `image.fused` node ([`crate::fused`]), so the chain makes one image in one pass.
//!
//! A per-pixel node (one [`crate::per_pixel::builder`] knows) joins the node its image goes
//! to when that is its only reader, the reader is per-pixel too and reads it at an image
//! port (or a port of any type, which per-pixel builders read images at), and the node is not one the caller keeps (an output it asks for). The node a group
//! ends at keeps its id, so wires and requests of it are unchanged; the others disappear.
//! A group that would need more than [`FUSED_INPUTS`] outside inputs is left as it is.
//! Everything is loops over the nodes in topological order (no recursion).

use crate::fused::{FUSED_INPUTS, FUSED_OP};
use crate::image::IMAGE_TYPE;
use crate::per_pixel::builder;
use kiln_core::graph::{Graph, PortRef};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What fusing a graph did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuseReport {
    /// Each fused node's id with the ids of the nodes it took in, in chain order.
    pub groups: Vec<(String, Vec<String>)>,
}

/// The nodes in topological order (Kahn's method); `None` for a graph with a cycle.
fn topo_order(g: &Graph) -> Option<Vec<usize>> {
    let n = g.nodes().len();
    let mut indegree = vec![0usize; n];
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for w in g.wires() {
        if let (Some(a), Some(b)) = (g.index_of(&w.from.node), g.index_of(&w.to.node)) {
            indegree[b] += 1;
            next[a].push(b);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    ready.reverse();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop() {
        order.push(i);
        for &j in &next[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// Fuse the chains of per-pixel nodes of `g` (ops looked up in `reg`), keeping every node
/// named in `keep` as it is. A graph with a cycle is returned unchanged (validation reports
/// it).
pub fn fuse(g: &Graph, reg: &Registry, keep: &[&str]) -> (Graph, FuseReport) {
    let Some(order) = topo_order(g) else {
        return (g.clone(), FuseReport::default());
    };
    let nodes = g.nodes();
    // A node with a wire into a param reads that param only when it runs, and fusion reads
    // params from `params` only: a node with either at a param's port is not fused.
    let mut param_wired: Vec<bool> = nodes
        .iter()
        .map(|n| {
            reg.get(&n.op)
                .is_some_and(|op| n.consts.keys().any(|k| op.spec().input_index(k).is_none()))
        })
        .collect();
    for w in g.wires() {
        if let Some(i) = g.index_of(&w.to.node)
            && reg
                .get(&nodes[i].op)
                .is_some_and(|op| op.spec().input_index(&w.to.port).is_none())
        {
            param_wired[i] = true;
        }
    }
    let fusable = |i: usize| {
        !param_wired[i]
            && builder(&nodes[i].op).is_some()
            && reg
                .get(&nodes[i].op)
                .is_some_and(|op| op.spec().outputs.len() == 1)
    };
    let keep: BTreeSet<&str> = keep.iter().copied().collect();
    // The readers of each node.
    let mut readers: Vec<Vec<&PortRef>> = vec![Vec::new(); nodes.len()];
    for w in g.wires() {
        if let Some(a) = g.index_of(&w.from.node) {
            readers[a].push(&w.to);
        }
    }
    // joins[i] = the node i is taken into.
    let mut joins: Vec<Option<usize>> = vec![None; nodes.len()];
    for &i in &order {
        if !fusable(i) || keep.contains(nodes[i].id.as_str()) || readers[i].len() != 1 {
            continue;
        }
        let to = readers[i][0];
        let Some(j) = g.index_of(&to.node) else {
            continue;
        };
        let image_port = reg.get(&nodes[j].op).is_some_and(|op| {
            op.spec()
                .inputs
                .iter()
                .any(|p| p.name == to.port && (p.ty == IMAGE_TYPE || p.ty == ValueType::Any))
        });
        if fusable(j) && image_port {
            joins[i] = Some(j);
        }
    }
    // The group root of each node (walking joins forward: order is topological, so do it
    // from the last node back).
    let mut root: Vec<usize> = (0..nodes.len()).collect();
    for &i in order.iter().rev() {
        if let Some(j) = joins[i] {
            root[i] = root[j];
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in &order {
        if fusable(i) {
            groups.entry(root[i]).or_default().push(i);
        }
    }
    let mut fused: BTreeMap<usize, (Value, Vec<PortRef>)> = BTreeMap::new();
    let mut report = FuseReport::default();
    for (&r, members) in &groups {
        if members.len() < 2 {
            continue;
        }
        if let Some(chain) = chain_of(g, reg, members) {
            report.groups.push((
                nodes[r].id.to_string(),
                members.iter().map(|&m| nodes[m].id.to_string()).collect(),
            ));
            fused.insert(r, chain);
        }
    }
    let gone: BTreeSet<usize> = fused
        .iter()
        .flat_map(|(&r, _)| groups[&r].iter().copied().filter(move |&m| m != r))
        .collect();
    let inside: BTreeSet<usize> = fused
        .keys()
        .flat_map(|r| groups[r].iter().copied())
        .collect();
    let mut out = Graph::new();
    for (i, n) in nodes.iter().enumerate() {
        if gone.contains(&i) {
            continue;
        }
        if let Some((chain, _)) = fused.get(&i) {
            if let Ok(node) = out.add_node(n.id.clone(), FUSED_OP) {
                node.params.insert("chain".to_string(), chain.clone());
            }
            continue;
        }
        if let Ok(node) = out.add_node(n.id.clone(), &n.op) {
            node.params = n.params.clone();
            node.consts = n.consts.clone();
        }
    }
    for w in g.wires() {
        let to = g.index_of(&w.to.node);
        if to.is_some_and(|t| inside.contains(&t)) {
            continue;
        }
        out.connect(w.from.clone(), w.to.clone());
    }
    for (&r, (_, externals)) in &fused {
        for (k, from) in externals.iter().enumerate() {
            out.connect(
                from.clone(),
                PortRef::new(nodes[r].id.clone(), &format!("in{k}")),
            );
        }
    }
    (out, report)
}

/// The `chain` param of a group and the sources of its outside inputs, or `None` when it
/// needs too many of them.
fn chain_of(g: &Graph, reg: &Registry, members: &[usize]) -> Option<(Value, Vec<PortRef>)> {
    let nodes = g.nodes();
    let place: BTreeMap<&str, usize> = members
        .iter()
        .enumerate()
        .map(|(k, &m)| (nodes[m].id.as_str(), k))
        .collect();
    let mut externals: Vec<PortRef> = Vec::new();
    let mut chain = Vec::with_capacity(members.len());
    for &m in members {
        let node = &nodes[m];
        let spec = reg.get(&node.op)?.spec();
        let params: Vec<Value> = spec
            .params
            .iter()
            .map(|p| {
                node.params
                    .get(p.name.as_ref())
                    .cloned()
                    .or_else(|| p.default.clone())
                    .unwrap_or(Value::Empty)
            })
            .collect();
        let mut args = Vec::with_capacity(spec.inputs.len());
        for port in &spec.inputs {
            let wire = g
                .wires()
                .iter()
                .find(|w| w.to.node.as_str() == node.id.as_str() && w.to.port == port.name);
            args.push(match wire {
                Some(w) => match place.get(w.from.node.as_str()) {
                    Some(&k) => Value::Int(k as i64),
                    None => {
                        let k = match externals.iter().position(|e| *e == w.from) {
                            Some(k) => k,
                            None => {
                                externals.push(w.from.clone());
                                externals.len() - 1
                            }
                        };
                        if k >= FUSED_INPUTS {
                            return None;
                        }
                        Value::Int(-1 - k as i64)
                    }
                },
                None => {
                    let v = node
                        .consts
                        .get(port.name.as_ref())
                        .cloned()
                        .or_else(|| port.default.clone())
                        .unwrap_or(Value::Empty);
                    Value::List(Arc::from(vec![v]))
                }
            });
        }
        chain.push(Value::List(Arc::from(vec![
            Value::str(node.op.as_str()),
            Value::List(Arc::from(params)),
            Value::List(Arc::from(args)),
        ])));
    }
    Some((Value::List(Arc::from(chain)), externals))
}
