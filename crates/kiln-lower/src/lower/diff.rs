//! The edits that turn one document into another, so a document read again from its file
//! (under `kiln watch`, or an editor's save) reaches a [`super::Live`] as the few edits it
//! holds instead of as a new document to plan from nothing.
//!
//! Only what [`Edit`] can say is diffed: nodes added and removed, params and constants set,
//! wires made and taken away, and the items of a `for` over a list of the same length. A
//! change to anything else (a call added, removed, or calling another asset or in another
//! scope; an animated value; a param or constant taken away without a wire taking its place)
//! answers `None`, and the document is replaced whole.

use super::Edit;
use kiln_core::graph::Wire;
use kiln_core::value::Value;
use kiln_doc::document::{Document, PlanValue, Scope};
use std::collections::BTreeSet;

/// The edits that make `old` into `new`, in an order that applies (wires away, nodes away,
/// nodes in, wires in, then values), or `None` when an edit cannot say the difference.
pub fn edits_between(old: &Document, new: &Document) -> Option<Vec<Edit>> {
    if old.curves != new.curves {
        return None;
    }
    let mut items = vec![];
    for (id, call) in &new.calls {
        let before = old.calls.get(id)?;
        if before.asset.digest != call.asset.digest {
            return None;
        }
        match (&before.scope, &call.scope) {
            (Scope::For(a), Scope::For(b)) => {
                let (PlanValue::Const(Value::List(x)), PlanValue::Const(Value::List(y))) =
                    (&a.items, &b.items)
                else {
                    (a == b).then_some(())?;
                    continue;
                };
                (a.item == b.item && a.carry == b.carry && x.len() == y.len()).then_some(())?;
                for (i, (u, v)) in x.iter().zip(y.iter()).enumerate() {
                    if !u.same_bits(v) {
                        items.push(Edit::Item {
                            node: id.to_string(),
                            index: i,
                            value: v.clone(),
                        });
                    }
                }
            }
            (a, b) => (a == b).then_some(())?,
        }
    }
    if old.calls.keys().any(|id| !new.calls.contains_key(id)) {
        return None;
    }

    let (og, ng) = (&old.graph, &new.graph);
    let old_wires: BTreeSet<&Wire> = og.wires().iter().collect();
    let new_wires: BTreeSet<&Wire> = ng.wires().iter().collect();
    let mut edits = vec![];
    // Wires away: every wire into an input that lost one goes, and those it keeps come back
    // below.
    let mut cleared = BTreeSet::new();
    for w in old_wires.difference(&new_wires) {
        if ng.node(&w.to.node).is_some() && ng.node(&w.from.node).is_some() {
            cleared.insert(w.to.clone());
        }
    }
    for to in &cleared {
        edits.push(Edit::Disconnect { to: to.clone() });
    }
    for n in og.nodes() {
        if ng.node(&n.id).is_none() {
            edits.push(Edit::RemoveNode {
                node: n.id.to_string(),
            });
        }
    }
    let mut values = vec![];
    for n in ng.nodes() {
        let before = match og.node(&n.id) {
            Some(b) if b.op == n.op => Some(b),
            Some(_) => return None,
            None => {
                if new.calls.contains_key(&n.id) {
                    return None;
                }
                edits.push(Edit::AddNode {
                    node: n.id.to_string(),
                    op: n.op.clone(),
                });
                None
            }
        };
        let (params, consts) = match before {
            Some(b) => (&b.params, &b.consts),
            None => (&Default::default(), &Default::default()),
        };
        if params.keys().any(|k| !n.params.contains_key(k)) {
            return None;
        }
        for (k, v) in &n.params {
            if params.get(k).is_none_or(|u| !u.same_bits(v)) {
                values.push(Edit::Param {
                    node: n.id.to_string(),
                    param: k.clone(),
                    value: v.clone(),
                });
            }
        }
        for k in consts.keys().filter(|k| !n.consts.contains_key(k)) {
            // A constant gives way to a wire (a connect takes it away); any other loss is
            // not an edit.
            let to = kiln_core::graph::PortRef::new(n.id.as_str(), k);
            if !ng.wires().iter().any(|w| w.to == to) {
                return None;
            }
        }
        for (k, v) in &n.consts {
            if consts.get(k).is_none_or(|u| !u.same_bits(v)) {
                values.push(Edit::Const {
                    node: n.id.to_string(),
                    port: k.clone(),
                    value: v.clone(),
                });
            }
        }
    }
    for w in ng.wires() {
        if !old_wires.contains(w) || cleared.contains(&w.to) {
            edits.push(Edit::Connect {
                from: w.from.clone(),
                to: w.to.clone(),
            });
        }
    }
    // A constant at an input that also has a wire stays (validation reports it), so values
    // come after wires.
    edits.extend(values);
    edits.extend(items);
    Some(edits)
}
