//! Plan-time choices: a node of an op with the [`Role::Choice`] whose condition the plan
//! knows (a constant, or a graph input) is not written at all: its output stands for the
//! alternative taken, and what only the other alternative needs is taken out of the flat
//! graph, so it is never cooked or baked.

use super::LowerError;
use super::expand::Lowering;
use super::flat::{Resolved, Src};
use kiln_core::graph::{Node, NodeId, PortRef};
use kiln_core::op::Role;
use kiln_core::value::Value;
use std::collections::{HashMap, HashSet};

/// A choice the plan made: the source of the alternative not taken.
pub(crate) struct Choice {
    pub untaken: Src,
}

impl Lowering<'_, '_> {
    /// Write choice node `n` of the frame at `prefix`, whose wired inputs are `srcs`.
    pub(crate) fn choice(
        &mut self,
        prefix: &str,
        n: &Node,
        srcs: HashMap<&str, Src>,
    ) -> Result<(), LowerError> {
        let fid = super::expand::join(prefix, &n.id);
        let src_of = |port: &str| -> Src {
            match (srcs.get(port), n.consts.get(port)) {
                (Some(s), _) => s.clone(),
                (None, Some(v)) => Src::Const(v.clone()),
                (None, None) => Src::Empty,
            }
        };
        let cond = src_of("cond");
        match self.known_bool(&cond) {
            Some(b) => {
                let (taken, untaken) = if b { ("a", "b") } else { ("b", "a") };
                self.flat.alias(
                    PortRef::new(fid, kiln_core::graph::DEFAULT_PORT),
                    src_of(taken),
                );
                self.choices.push(Choice {
                    untaken: src_of(untaken),
                });
                self.report.choices += 1;
            }
            None => {
                let mut node = n.clone();
                node.id = NodeId::from(fid.as_str());
                self.emit(node)?;
                for (port, s) in srcs {
                    self.flat.wire(s, PortRef::new(fid.as_str(), port));
                }
            }
        }
        Ok(())
    }

    /// The value of a condition, when the plan knows it: a constant, or a graph input.
    fn known_bool(&mut self, cond: &Src) -> Option<bool> {
        match self.flat.read_by_plan(cond) {
            Resolved::Const(Value::Bool(b)) => Some(b),
            Resolved::Port(p) => {
                let node = self.flat.node(&p.node)?;
                let op = self.registry.get(&node.op)?;
                if op.spec().role != Role::GraphInput {
                    return None;
                }
                let name = kiln_doc::document::input_name(node)
                    .unwrap_or(&node.id)
                    .to_string();
                let v = self
                    .ctx
                    .inputs
                    .get(&name)
                    .or_else(|| node.params.get("default"))?
                    .as_bool()?;
                self.inputs_read.insert(name);
                Some(v)
            }
            _ => None,
        }
    }

    /// Take out every node that only the untaken alternatives need.
    pub(crate) fn prune(&mut self) {
        if self.choices.is_empty() {
            return;
        }
        let into = self.flat.wires_into();
        let producers = |id: &NodeId| -> Vec<NodeId> {
            into.get(id)
                .map(|ws| {
                    ws.iter()
                        .filter_map(|&w| match self.flat.resolve(&self.flat.wires[w].0) {
                            Resolved::Port(p) => Some(p.node),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        // Everything upstream of an untaken alternative...
        let mut tainted: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = self
            .choices
            .iter()
            .filter_map(|c| match self.flat.resolve(&c.untaken) {
                Resolved::Port(p) => Some(p.node),
                _ => None,
            })
            .collect();
        while let Some(id) = stack.pop() {
            if tainted.insert(id.clone()) {
                stack.extend(producers(&id));
            }
        }
        // ...that nothing else needs.
        let mut needed: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = self
            .flat
            .nodes
            .iter()
            .filter(|n| !tainted.contains(&n.id))
            .map(|n| n.id.clone())
            .collect();
        while let Some(id) = stack.pop() {
            if needed.insert(id.clone()) {
                stack.extend(producers(&id));
            }
        }
        for id in tainted {
            if !needed.contains(&id) {
                self.flat.removed.insert(id);
            }
        }
        self.report.pruned = self.flat.removed.len();
    }
}
