//! A document under edit, with its plan kept in step: [`Live`] applies each [`Edit`] to the
//! document and, when the edit only changes values the plan wrote into the flat graph
//! without deciding anything by them, to the kept flat graph too, in place. The flat graph
//! keeps its identity, so an evaluator sees a value edit of a few nodes (which it takes
//! without building its plan again: the incremental evaluator then re-cooks only their cone)
//! instead of a new graph.
//!
//! Every other edit (one the plan read: a `for`'s list length, a count, a choice's condition;
//! an edit of a document whose plan waited on cooked values) drops the kept plan, and the
//! next [`Live::plan`] makes a new one.

use super::expand::{conform, join};
use super::scopes::copy_id;
use super::{Limits, Lowered, PlanCounts, PlanError, Planner};
use crate::context::EvalContext;
use crate::doc::{Call, DocDigest, Document, PlanValue, Scope};
use crate::graph::{DEFAULT_PORT, GraphError, PortRef};
use crate::key::Key;
use crate::op::Role;
use crate::registry::Registry;
use crate::value::Value;
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

/// A value edit of the flat graph.
enum FlatEdit {
    Const(PortRef, Value),
    Param(String, String, Value),
}

/// A document, its digest and its planner (see the [module docs](self)).
pub struct Live {
    doc: Document,
    digest: DocDigest,
    planner: Planner,
}

impl Live {
    /// `doc`, planned against `registry`.
    pub fn new(registry: Registry, doc: Document) -> Live {
        Live {
            digest: DocDigest::whole(&doc),
            doc,
            planner: Planner::new(registry),
        }
    }
    /// The same, with plans under other limits.
    pub fn with_limits(mut self, limits: Limits) -> Live {
        self.planner = Planner::new(self.planner.registry().clone()).with_limits(limits);
        self
    }
    /// The document as edited.
    pub fn document(&self) -> &Document {
        &self.doc
    }
    /// The document's digest.
    pub fn digest(&self) -> Key {
        self.digest.key()
    }
    /// Plans made, reused, and patched in place.
    pub fn counts(&self) -> PlanCounts {
        self.planner.counts()
    }

    /// Replace the document (read again from its file, say); the kept plan stays only if the
    /// new document digests the same.
    pub fn replace(&mut self, doc: Document) {
        self.digest = DocDigest::whole(&doc);
        self.doc = doc;
    }

    /// Edit the document's own graph with `f` (any edit of its nodes and wires: its digest is
    /// taken again, and the next [`Live::plan`] plans afresh unless the digest is unchanged).
    /// The calls stay as they were resolved: a node given a call op here is not a call.
    pub fn edit_graph<R>(&mut self, f: impl FnOnce(&mut crate::graph::Graph) -> R) -> R {
        let r = f(&mut self.doc.graph);
        self.digest = DocDigest::whole(&self.doc);
        r
    }

    /// The plan of the document at `ctx` (see [`Planner::plan`]).
    pub fn plan(&mut self, ctx: &EvalContext) -> Result<Arc<Lowered>, PlanError> {
        self.planner.plan(&self.doc, self.digest.key(), ctx)
    }

    /// Apply `edit` to the document. `Ok(true)` when the kept plan was edited in place too,
    /// `Ok(false)` when the next [`Live::plan`] makes a new plan.
    pub fn edit(&mut self, edit: Edit) -> Result<bool, EditError> {
        let old = self.digest.key();
        match &edit {
            Edit::Const { node, port, value } => {
                self.doc.graph.set_const(node, port, value.clone())?;
                self.digest.patch(&self.doc, &[node.as_str()]);
            }
            Edit::Param { node, param, value } => {
                self.doc.graph.set_param(node, param, value.clone())?;
                self.digest.patch(&self.doc, &[node.as_str()]);
            }
            Edit::Item { node, index, value } => {
                let old = set_item(&mut self.doc, node, *index, value)?;
                self.digest.patch_item(node, *index, &old, value);
            }
        };
        let new = self.digest.key();
        let (registry, kept) = self.planner.kept_mut(old);
        let Some(lowered) = kept else {
            return Ok(false);
        };
        let Some(edits) = flat_edits(&self.doc, registry, lowered, &edit) else {
            return Ok(false);
        };
        for e in edits {
            // The sites were written into this graph, so their nodes exist.
            let _ = match e {
                FlatEdit::Const(at, v) => lowered.graph.set_const(&at.node, &at.port, v),
                FlatEdit::Param(n, p, v) => lowered.graph.set_param(&n, &p, v),
            };
        }
        self.planner.patched(new);
        Ok(true)
    }
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

/// The value edits of the flat graph that make `lowered` the plan of `doc` after `edit`, or
/// `None` when the plan must be made again.
fn flat_edits(
    doc: &Document,
    registry: &Registry,
    lowered: &Lowered,
    edit: &Edit,
) -> Option<Vec<FlatEdit>> {
    if lowered.waited {
        return None;
    }
    match edit {
        Edit::Item { node, index, value } => {
            let call = doc.calls.get(node.as_str())?;
            let Scope::For(f) = &call.scope else {
                return None;
            };
            let copy = copy_id(node, *index);
            site_edits(call, registry, lowered, &f.item, [copy], value)
        }
        Edit::Const { node, port, value } => {
            if doc.curves.contains_key(&PortRef::new(node.as_str(), port)) {
                return None;
            }
            if doc
                .graph
                .wires()
                .iter()
                .any(|w| w.to.node.as_str() == node && w.to.port == *port)
            {
                return None;
            }
            match doc.calls.get(node.as_str()) {
                Some(call) => {
                    let prefixes: Vec<String> = match &call.scope {
                        Scope::Once => vec![node.clone()],
                        Scope::For(f) => {
                            if ["index", "count", f.item.as_str()].contains(&port.as_str()) {
                                return None;
                            }
                            let PlanValue::Const(Value::List(items)) = &f.items else {
                                return None;
                            };
                            (0..items.len()).map(|i| copy_id(node, i)).collect()
                        }
                        Scope::Fold(_) | Scope::Step(_) => return None,
                    };
                    site_edits(call, registry, lowered, port, prefixes, value)
                }
                None => {
                    plain_node(doc, registry, node)?;
                    let at = PortRef::new(node.as_str(), port);
                    Some(match lowered.graph.node(node) {
                        Some(_) => vec![FlatEdit::Const(at, value.clone())],
                        None => vec![],
                    })
                }
            }
        }
        Edit::Param { node, param, value } => {
            if doc.calls.contains_key(node.as_str())
                || doc.curves.contains_key(&PortRef::new(node.as_str(), param))
            {
                return None;
            }
            plain_node(doc, registry, node)?;
            Some(match lowered.graph.node(node) {
                Some(_) => vec![FlatEdit::Param(node.clone(), param.clone(), value.clone())],
                None => vec![],
            })
        }
    }
}

/// `Some` when `node` is a plain node: written out as it is, deciding nothing in the plan.
fn plain_node(doc: &Document, registry: &Registry, node: &str) -> Option<()> {
    let n = doc.graph.node(node)?;
    (registry.get(&n.op)?.spec().role == Role::Node).then_some(())
}

/// The flat inputs holding what body input `input` of `call` was given in the frames at
/// `prefixes`, set to `value`; `None` if the plan read one of them.
fn site_edits(
    call: &Call,
    registry: &Registry,
    lowered: &Lowered,
    input: &str,
    prefixes: impl IntoIterator<Item = String>,
    value: &Value,
) -> Option<Vec<FlatEdit>> {
    let asset = &call.asset;
    let Some(decl) = asset.interface.input(input) else {
        // The body does not read it: nothing in the flat graph holds it.
        return Some(vec![]);
    };
    let value = conform(value.clone(), decl.ty);
    let input_node = asset.doc.graph.nodes().iter().find(|n| {
        registry
            .get(&n.op)
            .is_some_and(|o| o.spec().role == Role::GraphInput)
            && crate::doc::input_name(n).unwrap_or(&n.id) == input
    })?;
    let mut out = Vec::new();
    for prefix in prefixes {
        let site = PortRef::new(join(&prefix, &input_node.id), DEFAULT_PORT);
        if lowered.sites.plan_read.contains(&site) {
            return None;
        }
        for at in lowered.sites.consumers.get(&site).into_iter().flatten() {
            out.push(FlatEdit::Const(at.clone(), value.clone()));
        }
    }
    Some(out)
}
