//! Following document edits in a live session that cooks every port: an added node brings
//! the outputs of its ports, a removed one takes them away.

use super::every_port::{OUTPUT_OP, PORT_OUTPUT_PREFIX, port_output_id};
use kiln_core::graph::PortRef;
use kiln_core::registry::Registry;
use kiln_doc::document::{DocDigest, Document};
use kiln_doc::edit::Edit;
use kiln_lower::session::Session;

/// Apply `edits` to the session's document, with the port outputs an added or removed node
/// brings; `true` when the session's document is then `target` (by digest), `false` when it
/// must be given whole (an edit failed, or the result differs: a signal node touched).
pub(crate) fn follow_edits(
    s: &mut Session,
    edits: &[Edit],
    target: &Document,
    registry: &Registry,
) -> bool {
    for e in edits {
        let mut steps = vec![];
        match e {
            Edit::AddNode { node, op } => {
                steps.push(e.clone());
                let outputs = registry.get(op).map(|o| o.spec().outputs.clone());
                for o in outputs.into_iter().flatten() {
                    if o.ty.name() == "signal" {
                        continue;
                    }
                    let id = port_output_id(node, &o.name);
                    steps.push(Edit::AddNode {
                        node: id.clone(),
                        op: OUTPUT_OP.into(),
                    });
                    steps.push(Edit::Connect {
                        from: PortRef::new(node.as_str(), &o.name),
                        to: PortRef::new(id.as_str(), "value"),
                    });
                }
            }
            Edit::RemoveNode { node } => {
                let prefix = format!("{PORT_OUTPUT_PREFIX}{node}__");
                let outputs: Vec<String> = s
                    .document()
                    .map(|d| {
                        d.graph
                            .nodes()
                            .iter()
                            .filter(|n| n.id.as_str().starts_with(&prefix))
                            .map(|n| n.id.to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                steps.extend(outputs.into_iter().map(|node| Edit::RemoveNode { node }));
                steps.push(e.clone());
            }
            _ => steps.push(e.clone()),
        }
        for step in steps {
            if s.edit_document(step).is_err() {
                return false;
            }
        }
    }
    s.document()
        .is_some_and(|d| DocDigest::whole(d).key() == DocDigest::whole(target).key())
}
