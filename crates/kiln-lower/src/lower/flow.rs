//! Writing a call of a flow graph out: one `scope.flow` node ([`crate::flow`]) whose body is
//! the called graph written out on its own (interface nodes kept), fed by a gather of the
//! body's inputs, with one `scope.get` per body output for the call's outputs.

use super::LowerError;
use super::expand::Lowering;
use super::flat::Src;
use super::ops::GET_OP;
use super::report::ScopeReport;
use crate::flow::{FLOW_OP, FlowBody, FlowLimits, FlowSettings};
use kiln_core::eval::LazyEvaluator;
use kiln_core::graph::{Node, NodeId, PortRef};
use kiln_core::value::Value;
use kiln_doc::document::{Asset, FlowDecl};
use std::collections::HashMap;

impl<'d> Lowering<'d, '_> {
    /// Write the call `cid` of flow graph `asset`.
    pub(crate) fn write_flow(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        decl: &'d FlowDecl,
    ) -> Result<(), LowerError> {
        let scope_error = |message: String| LowerError::Scope {
            kind: "flow",
            call: cid.clone(),
            message,
        };
        let mut waits = LazyEvaluator::new(self.registry.clone());
        let inner =
            super::lower_body(&asset.doc, self.registry, self.ctx, &mut waits, self.limits)?;
        let mut args = Vec::new();
        let mut srcs = Vec::new();
        for i in &asset.interface.inputs {
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
        let settings = FlowSettings {
            args,
            loops: decl.loops.iter().map(|(p, c)| (p.clone(), *c)).collect(),
            limits: FlowLimits::default(),
        };
        let body = FlowBody::new(inner.graph, self.registry.clone(), settings)
            .map_err(|e| scope_error(e.to_string()))?;
        let outputs: Vec<String> = body.output_names().to_vec();
        let list = self.gather(&cid, "args", srcs)?;
        let mut node = Node {
            id: NodeId::from(cid.as_str()),
            op: FLOW_OP.to_string(),
            params: Default::default(),
            consts: Default::default(),
        };
        node.params.insert("body".into(), body.into_value());
        self.emit(node)?;
        self.flat.wire(list, PortRef::new(cid.as_str(), "args"));
        for (k, o) in outputs.iter().enumerate() {
            let id = format!("{cid}/{o}~flow");
            let mut get = Node {
                id: NodeId::from(id.as_str()),
                op: GET_OP.to_string(),
                params: Default::default(),
                consts: Default::default(),
            };
            get.params.insert("index".into(), Value::Int(k as i64));
            get.params.insert("type".into(), Value::str("list"));
            self.emit(get)?;
            self.flat.wire(
                Src::Port(PortRef::new(cid.as_str(), "outputs")),
                PortRef::new(id.as_str(), "list"),
            );
            self.flat.alias(
                PortRef::new(cid.as_str(), o),
                Src::Port(PortRef::new(id, "out")),
            );
        }
        self.alias_default_output(&cid, asset);
        self.report.scopes.push(ScopeReport::new(&cid, "flow", 1));
        Ok(())
    }
}
