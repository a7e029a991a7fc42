//! The document a live editor cooks: the project's, with an output of its own on every port
//! of every top-level node, so each port's value can be shown on its node.

use kiln_core::graph::PortRef;
use kiln_core::recurrence::LATCH_OP;
use kiln_core::registry::Registry;
use kiln_doc::document::{CALL_PREFIX, Document};
pub(crate) use kiln_std::graph_io::OUTPUT_OP;
use std::collections::HashSet;

/// The prefix of the ids of the outputs added for ports.
pub const PORT_OUTPUT_PREFIX: &str = "__studio_preview_";

/// The id of the output added for `node.port`: it stays while the node stays, so a node
/// added or removed adds or removes only its own port outputs.
pub fn port_output_id(node: &str, port: &str) -> String {
    format!("{PORT_OUTPUT_PREFIX}{node}__{port}")
}

/// `doc` without its signal nodes (and what reads them: audio loops do not validate in a
/// tick cook), with an output on every port of every other top-level node; those ports in
/// order.
pub(crate) fn every_port_document(
    mut doc: Document,
    registry: &Registry,
) -> (Document, Vec<(String, String)>) {
    strip_signals(&mut doc, registry);
    let mut ports: Vec<(String, String)> = vec![];
    for n in doc.graph.nodes() {
        if n.op == OUTPUT_OP {
            continue;
        }
        if n.op.starts_with(CALL_PREFIX) {
            if let Some(call) = doc.calls.get(&n.id) {
                for p in &call.asset.interface.outputs {
                    ports.push((n.id.to_string(), p.name.clone()));
                }
            }
            continue;
        }
        let Some(op) = registry.get(&n.op) else {
            continue;
        };
        for o in &op.spec().outputs {
            if o.ty.name() != "signal" {
                ports.push((n.id.to_string(), o.name.to_string()));
            }
        }
    }
    for (node, port) in &ports {
        let id = port_output_id(node, port);
        if doc.graph.add_node(id.as_str(), OUTPUT_OP).is_ok() {
            doc.graph.connect(
                PortRef::new(node.as_str(), port),
                PortRef::new(id.as_str(), "value"),
            );
        }
    }
    (doc, ports)
}

/// Leave out every signal node and everything downstream of one (a worklist over the wires).
fn strip_signals(doc: &mut Document, registry: &Registry) {
    let mut gone: Vec<String> = doc
        .graph
        .nodes()
        .iter()
        .filter(|n| registry.signal(&n.op).is_some())
        .map(|n| n.id.to_string())
        .collect();
    let mut seen: HashSet<String> = gone.iter().cloned().collect();
    let mut work = gone.clone();
    while let Some(id) = work.pop() {
        for w in doc.graph.wires() {
            if w.from.node.as_str() == id && seen.insert(w.to.node.to_string()) {
                work.push(w.to.node.to_string());
                gone.push(w.to.node.to_string());
            }
        }
    }
    for id in gone {
        let _ = doc.graph.remove_node(&id);
    }
}

/// Whether `doc`, or a graph it calls, holds a latch (a worklist over the calls).
pub fn has_latch(doc: &Document) -> bool {
    let mut work: Vec<&Document> = vec![doc];
    let mut seen = HashSet::new();
    while let Some(d) = work.pop() {
        if d.graph.nodes().iter().any(|n| n.op == LATCH_OP) {
            return true;
        }
        for c in d.calls.values() {
            if seen.insert(c.asset.name.clone()) {
                work.push(&c.asset.doc);
            }
        }
    }
    false
}
