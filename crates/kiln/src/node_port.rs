//! `NODE.PORT`: any port of a node of the top graph set from outside (the command line's
//! `--set cells.seed=5`, the library's [`Project::set`](crate::Project::set)), as an edit of
//! the document: a param's value (every param is also an input port of its name), an
//! input's constant, or a call's argument. A name the graph declares as an input is that
//! input, even with a dot in it.

use crate::ProjectError;
use kiln_core::graph::PortRef;
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_doc::document::Document;
use kiln_doc::edit::Edit;

/// A port of a node named `NODE.PORT`, resolved.
pub(crate) struct NodePort {
    /// The node.
    pub node: String,
    /// The port.
    pub port: String,
    /// What the port takes.
    pub ty: ValueType,
    /// Whether it is a param (given under `params`) rather than an input or a call's port.
    pub param: bool,
}

impl NodePort {
    /// The port `name` names in `doc`, or an error naming what the node has.
    pub fn find(doc: &Document, registry: &Registry, name: &str) -> Result<NodePort, ProjectError> {
        let at = PortRef::parse(name);
        let (node_id, port) = (at.node.as_str(), at.port.as_str());
        let Some(node) = doc.graph.node(node_id) else {
            return Err(ProjectError::UnknownNode {
                name: name.to_string(),
                node: node_id.to_string(),
            });
        };
        let found = |ty, param| NodePort {
            node: node_id.to_string(),
            port: port.to_string(),
            ty,
            param,
        };
        if let Some(call) = doc.calls.get(node_id) {
            let inputs = &call.asset.interface.inputs;
            return match inputs.iter().find(|i| i.name == port) {
                Some(i) => Ok(found(i.ty, false)),
                None => Err(ProjectError::UnknownPort {
                    node: node_id.to_string(),
                    port: port.to_string(),
                    ports: inputs.iter().map(|i| i.name.clone()).collect(),
                }),
            };
        }
        let Some(op) = registry.get(&node.op) else {
            return Err(ProjectError::UnknownPort {
                node: node_id.to_string(),
                port: port.to_string(),
                ports: vec![],
            });
        };
        let spec = op.spec();
        if let Some(i) = spec.input_index(port) {
            return Ok(found(spec.inputs[i].ty, false));
        }
        if let Some(i) = spec.param_index(port) {
            return Ok(found(spec.params[i].ty, true));
        }
        let mut ports: Vec<String> = spec.inputs.iter().map(|p| p.name.to_string()).collect();
        ports.extend(spec.params.iter().map(|p| p.name.to_string()));
        Err(ProjectError::UnknownPort {
            node: node_id.to_string(),
            port: port.to_string(),
            ports,
        })
    }

    /// The edit that gives this port `value` (an int for a float port as that float), or an
    /// error when the value does not fit.
    pub fn edit(&self, value: Value) -> Result<Edit, ProjectError> {
        let value = self.ty.conform(value);
        if !value
            .value_type()
            .is_some_and(|found| self.ty.accepts(found))
        {
            return Err(ProjectError::InputValue {
                name: format!("{}.{}", self.node, self.port),
                ty: self.ty,
                message: format!("expected {}, found {}", self.ty, value.type_name()),
            });
        }
        Ok(if self.param {
            Edit::Param {
                node: self.node.clone(),
                param: self.port.clone(),
                value,
            }
        } else {
            Edit::Const {
                node: self.node.clone(),
                port: self.port.clone(),
                value,
            }
        })
    }
}
