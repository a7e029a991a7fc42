//! The order-independent digest of a document: the sum of one digest per node, so two
//! documents holding the same nodes digest equal however their nodes are ordered, and an edit
//! patches the sum by the nodes it touched instead of hashing the whole document again.
//!
//! A node's digest covers its id, op, params, constants, the wires into it, the call it makes
//! (the called asset's digest and the scope) and the curves animating it.

use super::{Document, PlanValue, Scope, Until};
use kiln_core::graph::{Node, NodeId, Wire};
use kiln_core::key::{Key, KeyHasher};
use kiln_core::value::Value;
use std::collections::HashMap;

/// A document's digest, with the digest of each node it was summed from.
#[derive(Clone, Debug, Default)]
pub struct DocDigest {
    sum: u128,
    nodes: HashMap<NodeId, u128>,
}

impl DocDigest {
    /// The digest of every node of `doc`, summed.
    pub fn whole(doc: &Document) -> DocDigest {
        let wires = wires_by_target(doc);
        let mut d = DocDigest::default();
        for n in doc.graph.nodes() {
            let k = node_digest(doc, n, wires.get(&n.id).map(Vec::as_slice).unwrap_or(&[]));
            d.sum = d.sum.wrapping_add(k);
            d.nodes.insert(n.id.clone(), k);
        }
        d
    }

    /// Bring the digest up to date after edits that touched only `touched` (nodes added,
    /// removed or changed, and the targets of wires added or removed).
    pub fn patch(&mut self, doc: &Document, touched: &[&str]) {
        for id in touched {
            if let Some(old) = self.nodes.remove(*id) {
                self.sum = self.sum.wrapping_sub(old);
            }
            if let Some(n) = doc.graph.node(id) {
                let wires: Vec<&Wire> = doc
                    .graph
                    .wires()
                    .iter()
                    .filter(|w| w.to.node == n.id)
                    .collect();
                let k = node_digest(doc, n, &wires);
                self.sum = self.sum.wrapping_add(k);
                self.nodes.insert(n.id.clone(), k);
            }
        }
    }

    /// Bring the digest up to date after item `index` of the list the `for` call `node`
    /// writes out changed from `old` to `new` (without hashing the other items again).
    pub fn patch_item(&mut self, node: &str, index: usize, old: &Value, new: &Value) {
        if let Some(d) = self.nodes.get_mut(node) {
            let next = d
                .wrapping_sub(item_term(index, old))
                .wrapping_add(item_term(index, new));
            self.sum = self.sum.wrapping_sub(*d).wrapping_add(next);
            *d = next;
        }
    }

    /// The digest as a key.
    pub fn key(&self) -> Key {
        let mut h = KeyHasher::new();
        h.str("kiln.document");
        h.u128(self.sum);
        h.u64(self.nodes.len() as u64);
        h.finish_key()
    }
}

fn wires_by_target(doc: &Document) -> HashMap<NodeId, Vec<&Wire>> {
    let mut m: HashMap<NodeId, Vec<&Wire>> = HashMap::new();
    for w in doc.graph.wires() {
        m.entry(w.to.node.clone()).or_default().push(w);
    }
    m
}

fn node_digest(doc: &Document, n: &Node, wires: &[&Wire]) -> u128 {
    let mut h = KeyHasher::new();
    h.str(&n.id);
    h.str(&n.op);
    h.u64(n.params.len() as u64);
    for (k, v) in &n.params {
        h.str(k);
        v.hash_into(&mut h);
    }
    h.u64(n.consts.len() as u64);
    for (k, v) in &n.consts {
        h.str(k);
        v.hash_into(&mut h);
    }
    let mut ws: Vec<&&Wire> = wires.iter().collect();
    ws.sort();
    h.u64(ws.len() as u64);
    for w in ws {
        h.str(&w.from.node);
        h.str(&w.from.port);
        h.str(&w.to.port);
    }
    let mut items: &[Value] = &[];
    if let Some(call) = doc.calls.get(&n.id) {
        h.u8(1);
        h.u128(call.asset.digest.0);
        hash_scope(&call.scope, &mut h);
        if let Scope::For(f) = &call.scope
            && let PlanValue::Const(Value::List(l)) = &f.items
        {
            items = l;
        }
    }
    for (at, a) in doc
        .curves
        .range(kiln_core::graph::PortRef::new(n.id.clone(), "")..)
    {
        if at.node != n.id {
            break;
        }
        h.u8(2);
        h.str(&at.port);
        h.u8(a.param as u8);
        a.keys.hash_into(&mut h);
        h.str(&a.interp);
    }
    // A `for`'s items are summed, each with its place, so an item edit patches the sum.
    items
        .iter()
        .enumerate()
        .fold(h.finish_key().0, |k, (i, v)| {
            k.wrapping_add(item_term(i, v))
        })
}

/// The share of item `i` in its `for` node's digest.
fn item_term(i: usize, v: &Value) -> u128 {
    let mut h = KeyHasher::new();
    h.str("kiln.item");
    h.u64(i as u64);
    v.hash_into(&mut h);
    h.finish_key().0
}

fn hash_scope(s: &Scope, h: &mut KeyHasher) {
    let plan_value = |v: &PlanValue, h: &mut KeyHasher| match v {
        // The items of a `for` are summed into the node's digest (see `item_term`).
        PlanValue::Const(Value::List(l)) if matches!(s, Scope::For(_)) => {
            h.u8(2);
            h.u64(l.len() as u64)
        }
        PlanValue::Const(v) => {
            h.u8(0);
            v.hash_into(h)
        }
        PlanValue::Ref(p) => {
            h.u8(1);
            h.str(&p.node);
            h.str(&p.port);
        }
    };
    let pairs = |ps: &[(String, String)], h: &mut KeyHasher| {
        h.u64(ps.len() as u64);
        for (a, b) in ps {
            h.str(a);
            h.str(b);
        }
    };
    h.str(s.kind());
    match s {
        Scope::Once => {}
        Scope::For(f) => {
            plan_value(&f.items, h);
            h.str(&f.item);
            pairs(&f.carry, h);
        }
        Scope::Fold(f) => {
            pairs(&f.state, h);
            match &f.count {
                Some(c) => {
                    h.u8(1);
                    plan_value(c, h)
                }
                None => h.u8(0),
            }
            match &f.until {
                None => h.u8(0),
                Some(Until::Changed) => h.u8(1),
                Some(Until::Output(o)) => {
                    h.u8(2);
                    h.str(o)
                }
            }
            h.u64(f.max as u64);
        }
        Scope::Step(st) => {
            pairs(&st.state, h);
            h.f64(st.dt);
            h.u64(st.substeps as u64);
        }
    }
}
