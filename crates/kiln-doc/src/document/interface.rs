//! The ports of a graph used as a node: its interface nodes, read through the registry's
//! [`Role`]s.

use kiln_core::graph::Graph;
use kiln_core::op::Role;
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};

/// One port of an interface.
#[derive(Clone, Debug, PartialEq)]
pub struct PortDecl {
    /// The port's name (a graph input's `name`, a graph output's node id).
    pub name: String,
    /// Its type (`Any` for outputs, whose type is what feeds them).
    pub ty: ValueType,
    /// An input's default, if it has one.
    pub default: Option<Value>,
    /// Its documentation.
    pub doc: Option<String>,
    /// A collective input: several wires into the call's port are queued into its list
    /// (in the order `docs/graph-format.md` gives), as for a collective input of an op.
    pub collective: bool,
}

/// The inputs and outputs of a graph used as a node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interface {
    /// Inputs, in the graph's node order.
    pub inputs: Vec<PortDecl>,
    /// Outputs, in the graph's node order.
    pub outputs: Vec<PortDecl>,
}

impl Interface {
    /// The interface of `graph`: its nodes whose op has the role of a graph input or output.
    pub fn of(graph: &Graph, registry: &Registry) -> Interface {
        let mut out = Interface::default();
        for n in graph.nodes() {
            let Some(op) = registry.get(&n.op) else {
                continue;
            };
            let spec = op.spec();
            match spec.role {
                Role::Node | Role::Choice => {}
                Role::GraphInput => out.inputs.push(PortDecl {
                    name: input_name(n).unwrap_or(&n.id).to_string(),
                    // A list input's `type` param names its list type.
                    ty: n
                        .params
                        .get("type")
                        .and_then(Value::as_str)
                        .and_then(ValueType::parse_plain)
                        .or_else(|| spec.outputs.first().map(|o| o.ty))
                        .unwrap_or(ValueType::Any),
                    collective: n
                        .params
                        .get("collective")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    default: n.params.get("default").cloned().or_else(|| {
                        // An input op's declared default applies when the node sets none.
                        spec.params
                            .iter()
                            .find(|p| p.name == "default")
                            .and_then(|p| p.default.clone())
                    }),
                    doc: None,
                }),
                Role::GraphOutput => out.outputs.push(PortDecl {
                    name: n.id.to_string(),
                    ty: ValueType::Any,
                    default: None,
                    doc: None,
                    collective: false,
                }),
            }
        }
        out
    }
    /// The input called `name`.
    pub fn input(&self, name: &str) -> Option<&PortDecl> {
        self.inputs.iter().find(|p| p.name == name)
    }
    /// The output called `name`.
    pub fn output(&self, name: &str) -> Option<&PortDecl> {
        self.outputs.iter().find(|p| p.name == name)
    }
}

/// The `name` param of a graph input node (the name of the input), if set.
pub fn input_name(n: &kiln_core::graph::Node) -> Option<&str> {
    n.params.get("name").and_then(Value::as_str)
}
