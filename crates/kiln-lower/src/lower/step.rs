//! Writing a `step` scope out: one solver node ([`crate::solver`]) whose body is the called
//! graph written out on its own, fed by a gather of the body's inputs, with one `scope.get`
//! per state for the call's outputs.
//!
//! The solver names a state by one name, a body input and the output node of that id; a graph
//! file cannot give an input and an output one name, so the body's state outputs are renamed
//! after their inputs (and those input nodes get ids of their own) before the body is made.

use super::LowerError;
use super::expand::Lowering;
use super::flat::Src;
use super::ops::GET_OP;
use super::report::ScopeReport;
use super::scopes::check_pairs;
use crate::solver::{STEP_INPUTS, STEP_OP, StepBody, StepSettings};
use kiln_core::eval::LazyEvaluator;
use kiln_core::graph::{Graph, Node, NodeId, PortRef};
use kiln_core::value::Value;
use kiln_doc::document::{Asset, StepScope};
use std::collections::HashMap;

impl<'d> Lowering<'d, '_> {
    /// Write step scope `cid`.
    pub(crate) fn write_step(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d StepScope,
    ) -> Result<(), LowerError> {
        check_pairs(&cid, "step", "state", asset, &scope.state)?;
        let scope_error = |message: String| LowerError::Scope {
            kind: "step",
            call: cid.clone(),
            message,
        };
        // The body on its own: a document written out with its interface nodes kept. Its own
        // waits cook through an evaluator of their own.
        let mut waits = LazyEvaluator::new(self.registry.clone());
        let inner =
            super::lower_with(&asset.doc, self.registry, self.ctx, &mut waits, self.limits)?;
        let graph = rename_states(&inner.graph, &scope.state);
        let mut args = Vec::new();
        let mut srcs = Vec::new();
        for i in &asset.interface.inputs {
            if STEP_INPUTS.contains(&i.name.as_str()) {
                continue;
            }
            let src = match (binds.get(&i.name), &i.default) {
                (Some(s), _) => s.clone(),
                (None, Some(v)) => Src::Const(v.clone()),
                (None, None) => {
                    return Err(LowerError::MissingInput {
                        call: cid,
                        asset: asset.name.clone(),
                        input: i.name.clone(),
                    });
                }
            };
            args.push(i.name.clone());
            srcs.push(src);
        }
        let settings = StepSettings {
            args,
            state: scope.state.iter().map(|(i, _)| i.clone()).collect(),
            dt: scope.dt,
            substeps: scope.substeps,
        };
        let body = StepBody::new(graph, self.registry.clone(), settings)
            .map_err(|e| scope_error(e.to_string()))?;
        let list = self.gather(&cid, "args", srcs)?;
        let mut solver = Node {
            id: NodeId::from(cid.as_str()),
            op: STEP_OP.to_string(),
            params: Default::default(),
            consts: Default::default(),
        };
        solver.params.insert("body".into(), body.into_value());
        self.emit(solver)?;
        self.flat.wire(list, PortRef::new(cid.as_str(), "args"));
        for (k, (i, o)) in scope.state.iter().enumerate() {
            let id = format!("{cid}/{o}~state");
            let mut get = Node {
                id: NodeId::from(id.as_str()),
                op: GET_OP.to_string(),
                params: Default::default(),
                consts: Default::default(),
            };
            get.params.insert("index".into(), Value::Int(k as i64));
            if let Some(d) = asset.interface.input(i) {
                get.params.insert("type".into(), Value::str(d.ty.name()));
            }
            self.emit(get)?;
            self.flat.wire(
                Src::Port(PortRef::new(cid.as_str(), "state")),
                PortRef::new(id.as_str(), "list"),
            );
            self.flat.alias(
                PortRef::new(cid.as_str(), o),
                Src::Port(PortRef::new(id, "out")),
            );
        }
        self.alias_default_output(&cid, asset);
        self.report.scopes.push(ScopeReport::new(&cid, "step", 1));
        Ok(())
    }
}

/// `graph` with each state's output node `output` renamed `input`, and the node that held the
/// id `input` (the state's input node) renamed `input~in`.
fn rename_states(graph: &Graph, state: &[(String, String)]) -> Graph {
    let mut ids: HashMap<&str, String> = HashMap::new();
    for (i, o) in state {
        ids.insert(i.as_str(), format!("{i}~in"));
        ids.insert(o.as_str(), i.clone());
    }
    let id = |n: &str| ids.get(n).cloned().unwrap_or_else(|| n.to_string());
    let mut g = Graph::new();
    for n in graph.nodes() {
        if let Ok(node) = g.add_node(id(&n.id), &n.op) {
            node.params = n.params.clone();
            node.consts = n.consts.clone();
        }
    }
    for w in graph.wires() {
        g.connect(
            PortRef::new(id(&w.from.node), &w.from.port),
            PortRef::new(id(&w.to.node), &w.to.port),
        );
    }
    g
}
