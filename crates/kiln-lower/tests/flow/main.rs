//! The flow executor (`kiln_lower::flow`) on small hand-drawn graphs: the order of steps
//! worked out by hand from the seed's rules, collective waits, loops and their caps, limits,
//! and the checks a flow body must pass.

mod loops;
mod order;
mod parallel;
mod throughput;

use kiln_core::graph::PortRef;
use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Role};
use kiln_core::prelude::*;
use kiln_lower::flow::{Entities, FlowBody, FlowLimits, FlowRun, FlowSettings};

/// `t.fan`: input `in` to both outputs `x` and `y`.
struct Fan(OpSpec);
/// `t.merge`: a collective input `items`; outputs the list and its length.
struct Merge(OpSpec);
/// `t.even`: routes an int to `even` or `odd`.
struct Even(OpSpec);

impl Op for Fan {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = call.inputs[0].clone();
        out[1] = call.inputs[0].clone();
        Ok(())
    }
    fn infer_outputs(
        &self,
        inputs: &[Option<ValueType>],
        _: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        let t = inputs[0].unwrap_or(ValueType::Any);
        Ok(vec![t, t])
    }
}

impl Op for Merge {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let l = call.inputs[0]
            .as_list()
            .ok_or_else(|| OpError::input(0, "expected a list"))?;
        out[1] = Value::Int(l.len() as i64);
        out[0] = call.inputs[0].clone();
        Ok(())
    }
}

impl Op for Even {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let i = call.int(0)?;
        out[usize::from(i % 2 != 0)] = Value::Int(i);
        Ok(())
    }
}

/// `t.input.list`: a graph input of a list (in a flow body, one entity per element).
struct ListInput(OpSpec);

impl Op for ListInput {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, _: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::List(Vec::new().into());
        Ok(())
    }
}

/// The standard ops and the test ops above.
pub fn reg() -> Registry {
    let mut r = kiln_std::registry();
    kiln_lower::register(&mut r).unwrap();
    r.register(Fan(OpSpec::new("t.fan", "in to x and y.")
        .input(InputSpec::required("in", ValueType::Any, "anything"))
        .output(OutputSpec::new("x", ValueType::Any, "in"))
        .output(OutputSpec::new("y", ValueType::Any, "in"))))
        .unwrap();
    r.register(Merge(
        OpSpec::new("t.merge", "All entities at once.")
            .input(InputSpec::required("items", ValueType::List, "every entity").collective())
            .output(OutputSpec::new("out", ValueType::List, "the list"))
            .output(OutputSpec::new("count", ValueType::Int, "its length")),
    ))
    .unwrap();
    r.register(Even(
        OpSpec::new("t.even", "Route by parity.")
            .input(InputSpec::required("in", ValueType::Int, "an int"))
            .output(OutputSpec::new("even", ValueType::Int, "when even"))
            .output(OutputSpec::new("odd", ValueType::Int, "when odd")),
    ))
    .unwrap();
    r.register(ListInput(
        OpSpec::new("t.input.list", "A list input.")
            .role(Role::GraphInput)
            .param(ParamSpec::new(
                "name",
                ValueType::String,
                Value::str("xs"),
                "its name",
            ))
            .output(OutputSpec::new("out", ValueType::List, "the list")),
    ))
    .unwrap();
    r
}

/// A graph from `(id, op)` nodes, `(from, to)` wires and `(node.port, value)` constants.
pub fn graph(nodes: &[(&str, &str)], wires: &[(&str, &str)], consts: &[(&str, Value)]) -> Graph {
    let r = reg();
    let mut g = Graph::new();
    for (id, op) in nodes {
        g.add_node(*id, op).unwrap();
    }
    for (from, to) in wires {
        g.wire(from, to);
    }
    for (at, v) in consts {
        let p = PortRef::parse(at);
        let op = r.get(&g.node(&p.node).unwrap().op).unwrap();
        if op.spec().param_index(&p.port).is_some() {
            g.set_param(&p.node, &p.port, v.clone()).unwrap();
        } else {
            g.set_const(&p.node, &p.port, v.clone()).unwrap();
        }
    }
    g
}

/// A body of `g` with loop ports `loops` (`node.port`, cap) and no args.
pub fn body(g: Graph, loops: &[(&str, u32)]) -> Result<FlowBody, String> {
    body_with(g, loops, FlowLimits::default())
}

/// [`body`] under `limits`.
pub fn body_with(g: Graph, loops: &[(&str, u32)], limits: FlowLimits) -> Result<FlowBody, String> {
    let settings = FlowSettings {
        args: vec![],
        loops: loops.iter().map(|(p, c)| (PortRef::parse(p), *c)).collect(),
        limits,
    };
    FlowBody::new(g, reg(), settings).map_err(|e| e.to_string())
}

/// Run `b` with no args.
pub fn run(b: &FlowBody) -> Result<FlowRun, String> {
    b.run(&[], &EvalContext::new()).map_err(|e| e.to_string())
}

/// The entities of output `name`.
pub fn output(r: &FlowRun, name: &str) -> Vec<Value> {
    let (_, entities) = r.outputs.iter().find(|(n, _)| n == name).unwrap();
    entities.clone().into_values()
}

/// `(port, entities)` of a step's inputs or outputs, for comparing with a hand-made list.
pub fn counts(ports: &[kiln_lower::flow::PortCount]) -> Vec<(&str, u64)> {
    ports
        .iter()
        .map(|p| (p.port.as_str(), p.entities))
        .collect()
}
