//! Params the plan drives: a wire into a param (every param of every op is also an input
//! port of its name, see [`kiln_core::op::param_ports`]) from a value the plan knows is
//! written into the node's params as a constant, so the node is keyed, fused and run exactly
//! as if the file had given that constant. The plan knows constants (a call's or a scope's
//! item among them), the values it cooked first, and the top graph's inputs (their set
//! values, or defaults); a plan that read an input this way is made again when it changes.
//! Any other wire stays a wire: the engine runs the node with the param read from it, or
//! refuses it for a plan-time param, naming node, port and source.

use super::expand::Lowering;
use super::flat::{Flat, ParamFold};
use kiln_core::context::EvalContext;
use kiln_core::graph::{Node, NodeId, PortRef};
use kiln_core::op::Role;
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashSet};

/// The plan's [`ParamFold`]: params by the registry, known values by the context.
pub(crate) struct PlanFold<'a> {
    registry: &'a Registry,
    ctx: &'a EvalContext,
    flat: &'a Flat,
    /// The graph input nodes of the flat graph (none in a flow body, whose inputs its
    /// executor feeds), found once, so a wire from any other node costs one probe.
    inputs: HashSet<NodeId>,
    /// The graph inputs whose values were written into params.
    pub read: RefCell<BTreeSet<String>>,
}

impl<'a> PlanFold<'a> {
    /// The fold of `l`'s flat graph.
    pub(crate) fn of(l: &'a Lowering<'_, '_>) -> PlanFold<'a> {
        let inputs = if l.entity_forms {
            l.flat
                .nodes
                .iter()
                .filter(|n| {
                    l.registry
                        .get(&n.op)
                        .is_some_and(|o| o.spec().role == Role::GraphInput)
                })
                .map(|n| n.id.clone())
                .collect()
        } else {
            HashSet::new()
        };
        PlanFold {
            registry: l.registry,
            ctx: l.ctx,
            flat: &l.flat,
            inputs,
            read: RefCell::new(BTreeSet::new()),
        }
    }
}

impl ParamFold for PlanFold<'_> {
    fn param_type(&self, node: &Node, port: &str) -> Option<ValueType> {
        let spec = self.registry.get(&node.op)?.spec();
        if spec.input_index(port).is_some() {
            return None;
        }
        spec.param_index(port).map(|i| spec.params[i].ty)
    }

    fn known(&self, port: &PortRef) -> Option<Value> {
        if !self.inputs.contains(&port.node) {
            return None;
        }
        let node = self.flat.node(&port.node)?;
        let name = kiln_doc::document::input_name(node).unwrap_or(&node.id);
        let v = self
            .ctx
            .inputs
            .get(name)
            .or_else(|| node.params.get("default"))?
            .clone();
        // A heavy value (an image file given as an input) is no param's.
        if matches!(v, Value::Heavy(_)) {
            return None;
        }
        Some(v)
    }

    fn read_into_param(&self, port: &PortRef) {
        if let Some(node) = self.flat.node(&port.node) {
            let name = kiln_doc::document::input_name(node).unwrap_or(&node.id);
            self.read.borrow_mut().insert(name.to_string());
        }
    }
}
