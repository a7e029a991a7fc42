//! Edits of a document ([`Edit`]): typed values set, nodes added and removed, wires made
//! and taken away, items of a `for` over a written list replaced. [`apply_edit`] applies one
//! to a [`Document`] and says what it touched, so a live plan (`kiln_lower::lower::Live`)
//! can follow the same edit into its flat graph instead of comparing two documents.

use crate::document::{DocDigest, Document, PlanValue, Scope};
use kiln_core::graph::{GraphError, PortRef};
use kiln_core::value::Value;
use std::sync::Arc;

/// An edit of a node of a document's own graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Give input `port` of `node` (a node, or a call) the constant `value`.
    Const {
        /// The node.
        node: String,
        /// Its input.
        port: String,
        /// The constant.
        value: Value,
    },
    /// Set param `param` of `node`.
    Param {
        /// The node.
        node: String,
        /// Its param.
        param: String,
        /// The value.
        value: Value,
    },
    /// Replace item `index` of the list a `for` call writes out (a list written in the
    /// document).
    Item {
        /// The `for` call.
        node: String,
        /// Which item, from 0.
        index: usize,
        /// The new item.
        value: Value,
    },
    /// Add a node of op `op` (an op of the registry; a call is added by replacing the
    /// document instead) with no params, constants or wires.
    AddNode {
        /// The new node's id.
        node: String,
        /// Its op.
        op: String,
    },
    /// Remove `node` and every wire into or out of it.
    RemoveNode {
        /// The node.
        node: String,
    },
    /// Wire output `from` into input `to`; the wire or constant the input held before is
    /// taken away (an input reads one source).
    Connect {
        /// An output port.
        from: PortRef,
        /// An input port.
        to: PortRef,
    },
    /// Remove every wire into input `to`.
    Disconnect {
        /// The input port.
        to: PortRef,
    },
}

/// Why an edit could not be applied to the document (which is then unchanged).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EditError {
    /// The document has no such node.
    #[error("the document has no node `{0}`")]
    NoSuchNode(String),
    /// An item edit of a node that is not a `for` over a list written in the document.
    #[error("node `{0}` is not a `for` over a list written in the document")]
    NotAList(String),
    /// An item edit past the end of the list.
    #[error("node `{node}` writes out {len} items; there is no item {index}")]
    NoSuchItem {
        /// The `for` call.
        node: String,
        /// The item asked for.
        index: usize,
        /// How many items there are.
        len: usize,
    },
    /// Any other refusal of the document's graph.
    #[error("{0}")]
    Graph(GraphError),
}

impl From<GraphError> for EditError {
    fn from(e: GraphError) -> Self {
        match e {
            GraphError::NoSuchNode(n) => EditError::NoSuchNode(n),
            other => EditError::Graph(other),
        }
    }
}

/// What an applied [`Edit`] touched.
#[derive(Clone, Debug, PartialEq)]
pub enum Applied {
    /// The nodes whose own content changed (params, constants, wires in, existence).
    Nodes(Vec<String>),
    /// Item `index` of the `for` call `node` was replaced; `old` is the item it replaced.
    Item {
        /// The `for` call.
        node: String,
        /// Which item.
        index: usize,
        /// The item replaced.
        old: Value,
    },
}

/// Apply `edit` to `doc`; on error `doc` is unchanged.
pub fn apply_edit(doc: &mut Document, edit: &Edit) -> Result<Applied, EditError> {
    let touched = match edit {
        Edit::Const { node, port, value } => {
            doc.graph.set_const(node, port, value.clone())?;
            vec![node.clone()]
        }
        Edit::Param { node, param, value } => {
            doc.graph.set_param(node, param, value.clone())?;
            vec![node.clone()]
        }
        Edit::Item { node, index, value } => {
            let old = set_item(doc, node, *index, value)?;
            return Ok(Applied::Item {
                node: node.clone(),
                index: *index,
                old,
            });
        }
        Edit::AddNode { node, op } => {
            doc.graph.add_node(node.as_str(), op)?;
            vec![node.clone()]
        }
        Edit::RemoveNode { node } => {
            // The nodes it fed lose a wire: they are touched too.
            let mut touched: Vec<String> = vec![node.clone()];
            touched.extend(
                doc.graph
                    .wires()
                    .iter()
                    .filter(|w| w.from.node.as_str() == node)
                    .map(|w| w.to.node.to_string()),
            );
            doc.graph.remove_node(node)?;
            doc.calls.remove(node.as_str());
            doc.curves.retain(|at, _| at.node.as_str() != node);
            touched
        }
        Edit::Connect { from, to } => {
            for end in [&from.node, &to.node] {
                if doc.graph.node(end).is_none() {
                    return Err(EditError::NoSuchNode(end.to_string()));
                }
            }
            doc.graph.clear_const(&to.node, &to.port)?;
            if doc.graph.wires().iter().any(|w| &w.to == to) {
                doc.graph.disconnect(to)?;
            }
            doc.graph.connect(from.clone(), to.clone());
            vec![to.node.to_string()]
        }
        Edit::Disconnect { to } => {
            doc.graph.disconnect(to)?;
            vec![to.node.to_string()]
        }
    };
    Ok(Applied::Nodes(touched))
}

/// [`apply_edit`], bringing `digest` (the document's [`DocDigest`]) up to date by what the
/// edit touched rather than digesting the whole document again.
pub fn apply_edit_digested(
    doc: &mut Document,
    digest: &mut DocDigest,
    edit: &Edit,
) -> Result<Applied, EditError> {
    let applied = apply_edit(doc, edit)?;
    match &applied {
        Applied::Nodes(touched) => {
            let touched: Vec<&str> = touched.iter().map(String::as_str).collect();
            digest.patch(doc, &touched);
        }
        Applied::Item { node, index, old } => {
            if let Edit::Item { value, .. } = edit {
                digest.patch_item(node, *index, old, value);
            }
        }
    }
    Ok(applied)
}

/// Set the item, answering the one it replaced.
fn set_item(
    doc: &mut Document,
    node: &str,
    index: usize,
    value: &Value,
) -> Result<Value, EditError> {
    let Some(call) = doc.calls.get_mut(node) else {
        return Err(match doc.graph.node(node) {
            Some(_) => EditError::NotAList(node.into()),
            None => EditError::NoSuchNode(node.into()),
        });
    };
    let Scope::For(f) = &mut call.scope else {
        return Err(EditError::NotAList(node.into()));
    };
    let PlanValue::Const(Value::List(items)) = &mut f.items else {
        return Err(EditError::NotAList(node.into()));
    };
    if index >= items.len() {
        return Err(EditError::NoSuchItem {
            node: node.into(),
            index,
            len: items.len(),
        });
    }
    // In place when nothing else holds the list (the plan copies items, not the list).
    if let Some(slots) = Arc::get_mut(items) {
        return Ok(std::mem::replace(&mut slots[index], value.clone()));
    }
    let old = items[index].clone();
    *items = items
        .iter()
        .enumerate()
        .map(|(i, v)| if i == index { value } else { v }.clone())
        .collect();
    Ok(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::graph::Graph;

    #[test]
    fn a_connect_replaces_the_wire_the_input_had() {
        let mut g = Graph::new();
        for id in ["a", "b", "out"] {
            g.add_node(id, "any.op").expect("fresh id");
        }
        g.wire("a.out", "out.value");
        let mut doc = Document::from_graph(g);
        let edit = Edit::Connect {
            from: PortRef::new("b", "out"),
            to: PortRef::new("out", "value"),
        };
        apply_edit(&mut doc, &edit).expect("both ends exist");
        let into: Vec<String> = doc
            .graph
            .wires()
            .iter()
            .filter(|w| w.to.node.as_str() == "out")
            .map(|w| w.from.to_string())
            .collect();
        assert_eq!(into, vec!["b.out".to_string()]);
    }
}
