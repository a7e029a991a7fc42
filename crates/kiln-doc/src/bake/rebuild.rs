//! Graph editing for baking: wires resolved to dense indices, port names, fresh ids, copied
//! nodes and `const` nodes.

use super::CONST_OP;
use kiln_core::graph::Graph;
use kiln_core::plan::Plan;
use kiln_core::value::Value;
use std::collections::{HashMap, HashSet};

/// Every wire of `g` as (from node, from port, to node), `None` where it does not resolve.
pub(super) fn resolve_wires(g: &Graph, plan: &Plan) -> Vec<Option<(usize, usize, usize)>> {
    g.wires()
        .iter()
        .map(|w| {
            let from = g.index_of(w.from.node.as_str())?;
            let to = g.index_of(w.to.node.as_str())?;
            let port = plan.op(from).spec().output_index(&w.from.port)?;
            Some((from, port, to))
        })
        .collect()
}

/// `node.port` for output `p` of node `v`.
pub(super) fn port_name(plan: &Plan, v: usize, p: usize) -> String {
    let spec = plan.op(v).spec();
    let port = spec.outputs.get(p).map_or("out", |o| &o.name);
    format!("{}.{port}", plan.id(v))
}

/// `base`, or `base_2`, `base_3`, ... : the first id neither taken nor given out.
pub(super) fn fresh_id(base: &str, taken: &HashSet<&str>, given: &HashSet<String>) -> String {
    let free = |s: &str| !taken.contains(s) && !given.contains(s);
    if free(base) {
        return base.to_string();
    }
    (2u64..)
        .map(|k| format!("{base}_{k}"))
        .find(|s| free(s))
        .unwrap_or_else(|| base.to_string())
}

/// Copy `node` (op, params, constants) into `out`.
pub(super) fn copy_node(out: &mut Graph, node: &kiln_core::graph::Node) {
    // Ids are unique in the source graph, and new ids avoid them.
    if let Ok(n) = out.add_node(node.id.clone(), &node.op) {
        n.params = node.params.clone();
        n.consts = node.consts.clone();
    }
}

/// Add a `const` node `id` holding `value` to `out`.
pub(super) fn add_const(out: &mut Graph, id: &str, value: Value) {
    if let Ok(n) = out.add_node(id, CONST_OP) {
        n.params.insert("value".into(), value);
    }
}

/// `g` with each node of `consts` made a `const` holding its value (wires are kept; an
/// input has none coming in).
pub(super) fn with_consts(g: &Graph, consts: &[(String, Value)]) -> Graph {
    let consts: HashMap<&str, &Value> = consts.iter().map(|(id, v)| (id.as_str(), v)).collect();
    let mut rebuilt = Graph::new();
    for node in g.nodes() {
        match consts.get(node.id.as_str()) {
            Some(v) => add_const(&mut rebuilt, node.id.as_str(), (*v).clone()),
            None => copy_node(&mut rebuilt, node),
        }
    }
    for w in g.wires() {
        rebuilt.connect(w.from.clone(), w.to.clone());
    }
    rebuilt
}
