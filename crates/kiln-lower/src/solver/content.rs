//! The canonical content of a body graph: what its key hashes, independent of the order in
//! which nodes, params, constants and wires were added.

use kiln_core::graph::Graph;
use kiln_core::key::KeyHasher;
use kiln_core::registry::Registry;

/// Feed `graph`'s content into `h`: every node by id order (id, op id, the op's version in
/// `registry`, params and constants by name), then every wire in sorted order.
pub(crate) fn hash_graph(graph: &Graph, registry: &Registry, h: &mut KeyHasher) {
    let mut nodes: Vec<usize> = (0..graph.len()).collect();
    nodes.sort_by(|&a, &b| graph.nodes()[a].id.cmp(&graph.nodes()[b].id));
    h.u64(nodes.len() as u64);
    for i in nodes {
        let n = &graph.nodes()[i];
        h.str(n.id.as_str());
        h.str(&n.op);
        h.u64(registry.get(&n.op).map_or(0, |op| op.spec().version as u64));
        for map in [&n.params, &n.consts] {
            // BTreeMaps iterate in key order.
            h.u64(map.len() as u64);
            for (name, v) in map {
                h.str(name);
                v.hash_into(h);
            }
        }
    }
    let mut wires: Vec<_> = graph.wires().iter().collect();
    wires.sort();
    h.u64(wires.len() as u64);
    for w in wires {
        h.str(w.from.node.as_str());
        h.str(&w.from.port);
        h.str(w.to.node.as_str());
        h.str(&w.to.port);
    }
}

/// Approximate bytes of a graph's data: ids, op ids, params and constants.
pub(crate) fn graph_bytes(graph: &Graph) -> usize {
    let node_bytes: usize = graph
        .nodes()
        .iter()
        .map(|n| {
            n.id.as_str().len()
                + n.op.len()
                + n.params
                    .iter()
                    .chain(&n.consts)
                    .map(|(k, v)| k.len() + v.byte_size())
                    .sum::<usize>()
        })
        .sum();
    let wire_bytes: usize = graph
        .wires()
        .iter()
        .map(|w| w.from.node.as_str().len() + w.from.port.len() + w.to.node.as_str().len())
        .sum();
    node_bytes + wire_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(g: &Graph) -> kiln_core::key::Key {
        let mut h = KeyHasher::new();
        hash_graph(g, &Registry::new(), &mut h);
        h.finish_key()
    }

    #[test]
    fn insertion_order_does_not_matter_and_content_does() {
        let mut a = Graph::new();
        a.add_node("x", "op.a").unwrap();
        a.add_node("y", "op.b").unwrap();
        a.set_param("x", "p", 1.0).unwrap();
        a.set_param("x", "q", 2.0).unwrap();
        a.wire("x.out", "y.in");
        a.wire("x.out", "y.in2");
        let mut b = Graph::new();
        b.add_node("y", "op.b").unwrap();
        b.add_node("x", "op.a").unwrap();
        b.set_param("x", "q", 2.0).unwrap();
        b.set_param("x", "p", 1.0).unwrap();
        b.wire("x.out", "y.in2");
        b.wire("x.out", "y.in");
        assert_eq!(key(&a), key(&b));
        b.set_param("x", "p", 1.5).unwrap();
        assert_ne!(key(&a), key(&b));
    }
}
