//! A document under edit, with its plan kept in step: [`Live`] applies each [`Edit`] to the
//! document and, when the edit only changes values the plan wrote into the flat graph
//! without deciding anything by them, to the kept flat graph too, in place. The flat graph
//! keeps its identity, so an evaluator sees a value edit of a few nodes (which it takes
//! without building its plan again: the incremental evaluator then re-cooks only their cone)
//! instead of a new graph.
//!
//! Structural edits among plain nodes of the document's own graph (a node added or removed,
//! a wire made or taken away, where every node at either end is a plain node written out as
//! itself) are spliced into the kept flat graph the same way: the flat graph changes by just
//! that node or wire, and every other node keeps its place and value.
//!
//! Every other edit (one the plan read: a `for`'s list length, a count, a choice's condition;
//! an edit of a document whose plan waited on cooked values) drops the kept plan, and the
//! next [`Live::plan`] makes a new one.

use super::expand::{conform, join};
use super::scopes::copy_id;
use super::{Limits, LowerCounts, LowerError, Lowered, Lowerer};
use kiln_core::context::EvalContext;
use kiln_core::graph::{DEFAULT_PORT, PortRef};
use kiln_core::key::Key;
use kiln_core::op::Role;
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_doc::document::{Call, DocDigest, Document, PlanValue, Scope};
use kiln_doc::edit::apply_edit_digested;
pub use kiln_doc::edit::{Edit, EditError};
use std::sync::Arc;

/// An edit of the flat graph.
enum FlatEdit {
    Const(PortRef, Value),
    Param(String, String, Value),
    AddNode(String, String),
    RemoveNode(String),
    Connect(PortRef, PortRef),
    Disconnect(PortRef),
}

/// A document, its digest and its lowerer (see the [module docs](self)).
pub struct Live {
    doc: Document,
    digest: DocDigest,
    lowerer: Lowerer,
}

impl Live {
    /// `doc`, planned against `registry`.
    pub fn new(registry: Registry, doc: Document) -> Live {
        Live {
            digest: DocDigest::whole(&doc),
            doc,
            lowerer: Lowerer::new(registry),
        }
    }
    /// The same, with plans under other limits.
    pub fn with_limits(mut self, limits: Limits) -> Live {
        self.lowerer = Lowerer::new(self.lowerer.registry().clone()).with_limits(limits);
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
    pub fn counts(&self) -> LowerCounts {
        self.lowerer.counts()
    }

    /// Replace the document (read again from its file, say). What changed is made as the
    /// edits that say it (see [`super::edits_between`]), so a changed value is patched in
    /// the kept plan as [`Live::edit`] would; a change no edit says replaces the document
    /// whole, and the kept plan then stays only if the new document digests the same.
    /// Answers whether the change was made as edits.
    pub fn replace(&mut self, doc: Document) -> bool {
        let whole = DocDigest::whole(&doc);
        if whole.key() == self.digest.key() {
            self.doc = doc;
            return true;
        }
        if let Some(edits) = super::edits_between(&self.doc, &doc)
            && edits.into_iter().all(|e| self.edit(e).is_ok())
            && self.digest.key() == whole.key()
        {
            return true;
        }
        self.digest = whole;
        self.doc = doc;
        false
    }

    /// Edit the document's own graph with `f` (any edit of its nodes and wires: its digest is
    /// taken again, and the next [`Live::plan`] plans afresh unless the digest is unchanged).
    /// The calls stay as they were resolved: a node given a call op here is not a call.
    pub fn edit_graph<R>(&mut self, f: impl FnOnce(&mut kiln_core::graph::Graph) -> R) -> R {
        let r = f(&mut self.doc.graph);
        self.digest = DocDigest::whole(&self.doc);
        r
    }

    /// The plan of the document at `ctx` (see [`Lowerer::plan`]).
    pub fn lower(&mut self, ctx: &EvalContext) -> Result<Arc<Lowered>, LowerError> {
        self.lowerer.lower(&self.doc, self.digest.key(), ctx)
    }

    /// Apply `edit` to the document. `Ok(true)` when the kept plan was edited in place too,
    /// `Ok(false)` when the next [`Live::plan`] makes a new plan.
    pub fn edit(&mut self, edit: Edit) -> Result<bool, EditError> {
        let old = self.digest.key();
        apply_edit_digested(&mut self.doc, &mut self.digest, &edit)?;
        let new = self.digest.key();
        let (registry, kept) = self.lowerer.kept_mut(old);
        let Some(lowered) = kept else {
            return Ok(false);
        };
        let Some(edits) = flat_edits(&self.doc, registry, lowered, &edit) else {
            return Ok(false);
        };
        for e in edits {
            // The sites were written into this graph, so their nodes exist.
            let g = &mut lowered.graph;
            let _ = match e {
                FlatEdit::Const(at, v) => g.set_const(&at.node, &at.port, v),
                FlatEdit::Param(n, p, v) => g.set_param(&n, &p, v),
                FlatEdit::AddNode(n, op) => g.add_node(n, &op).map(|_| ()),
                FlatEdit::RemoveNode(n) => g.remove_node(&n).map(|_| ()),
                FlatEdit::Connect(from, to) => g.clear_const(&to.node, &to.port).map(|_| {
                    g.connect(from, to);
                }),
                FlatEdit::Disconnect(to) => g.disconnect(&to),
            };
        }
        lowered.report.nodes = lowered.graph.len();
        self.lowerer.patched(new);
        Ok(true)
    }
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
        Edit::AddNode { node, op } => {
            // Not yet in the flat graph (a copy's id, say, would collide), and plain.
            if lowered.graph.node(node).is_some() {
                return None;
            }
            plain_node(doc, registry, node)?;
            Some(vec![FlatEdit::AddNode(node.clone(), op.clone())])
        }
        Edit::RemoveNode { node } => {
            // The document no longer has it: what it was, and what it touched, the flat
            // graph tells (a plain node is written out under its own id, wires and all).
            let n = lowered.graph.node(node)?;
            (registry.get(&n.op)?.spec().role == Role::Node).then_some(())?;
            for w in lowered.graph.wires() {
                let other = if w.from.node.as_str() == node {
                    &w.to.node
                } else if w.to.node.as_str() == node {
                    &w.from.node
                } else {
                    continue;
                };
                spliced_end(doc, registry, lowered, other)?;
            }
            Some(vec![FlatEdit::RemoveNode(node.clone())])
        }
        Edit::Connect { from, to } => {
            spliced_end(doc, registry, lowered, &from.node)?;
            spliced_end(doc, registry, lowered, &to.node)?;
            // One wire into the input: several (into a collective input) are gathered by
            // the plan.
            let into = doc.graph.wires().iter().filter(|w| &w.to == to).count();
            (into == 1).then_some(())?;
            Some(vec![FlatEdit::Connect(from.clone(), to.clone())])
        }
        Edit::Disconnect { to } => {
            spliced_end(doc, registry, lowered, &to.node)?;
            for w in lowered.graph.wires().iter().filter(|w| &w.to == to) {
                spliced_end(doc, registry, lowered, &w.from.node)?;
            }
            Some(vec![FlatEdit::Disconnect(to.clone())])
        }
    }
}

/// `Some` when `node` is a plain node of the document written out as itself in the flat
/// graph, with no curve: a structural edit at it is the same edit of the flat graph.
fn spliced_end(doc: &Document, registry: &Registry, lowered: &Lowered, node: &str) -> Option<()> {
    plain_node(doc, registry, node)?;
    lowered.graph.node(node)?;
    (!doc.curves.keys().any(|at| at.node.as_str() == node)).then_some(())
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
            && kiln_doc::document::input_name(n).unwrap_or(&n.id) == input
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
