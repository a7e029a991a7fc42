//! The flow paradigm: entities streaming through ports, run in the order of the Sceelix
//! seed (`docs/design/013-entity-flow.md`).
//!
//! A graph may declare `"paradigm": "flow"`. A call of it is written by the plan as ONE
//! node of op [`FLOW_OP`] (`scope.flow`) whose `body` param is a [`FlowBody`] (the graph,
//! its loop ports, its limits) and whose `args` input is the list of what the call gives
//! the body's inputs. No evaluator knows about flow: that node runs the executor below.
//!
//! **Entities and queues.** Every input port of a body node has a queue of entities. A graph
//! input of the body is a source that sends the value the call gave it as one entity (a
//! value of a `list` type: each element as one entity). Each value an op writes to an output
//! port is one entity sent to every input wired from that port (divergence: the same shared
//! value, never a copy); [`Value::Empty`](kiln_core::value::Value) sends nothing, so a node with
//! several outputs routes entities. Several wires into one input queue into it
//! (convergence), in the order the steps that sent them ran (and, within a step, the order
//! they were made).
//!
//! **Steps.** A step runs one node over what its queues hold:
//! * a single input (`InputSpec::collective == false`) feeds one entity per run: the op runs
//!   once per entity, taking one entity from each wired single input per run, as many times
//!   as the shortest of those queues allows;
//! * a collective input receives every entity queued into it as one `Value::List`, and is
//!   ready only once no other node that can reach it can still send (a source not yet run,
//!   or a node with entities waiting);
//! * a node is ready when each wired single input holds an entity, each wired collective
//!   input is complete, and at least one wired input holds an entity; a node without wired
//!   inputs (a source) runs once; an unwired input takes its constant or default.
//! * a graph output of the body collects the entities reaching it; the call's output of that
//!   name is the list of them.
//!
//! **Order.** Sources run in declaration order; after a step, the nodes it sent entities to
//! are visited depth-first in output-port order (the first port's receivers, and their
//! children, before the second port's; receivers of one port in declaration order). When
//! nothing visited is ready, the first ready node in declaration order runs; when none is,
//! the first node with entities in a collective input runs with what it has (a collective
//! waiting on itself through a loop, or on a node whose single inputs cannot pair up). The
//! run ends when nothing is left to run; entities left in queues are counted as unused in
//! the [`Trace`].
//!
//! **Loops.** A cycle is legal only through a loop port (an input the file marks as one).
//! A wire into a loop port from a node the port's node reaches is a wire back; each step
//! that sends entities back into a loop port is one iteration of that loop, and more than
//! its cap fails, naming the loop's node, port and cap.
//!
//! **Keys, limits, failures.** The node's key covers the body's content (graph, declaration
//! order, loops, limits), its args and the context fields the body reads, so a flow call is
//! cached by content like any node. The entities made and the steps run are capped
//! ([`FlowLimits`]); an op error inside the body fails the node naming the body node, op and
//! port; cancellation is checked between runs. A failed or cancelled run returns an error,
//! which no retention keeps.
//!
//! **Trace.** Every run records a [`Trace`]: each step's node, op, entities in and out per
//! port, op runs and duration. [`FlowBody::run`] returns it; the `scope.flow` op keeps the
//! last trace of each node, which [`traces`] reads from a flat graph after an evaluation.

mod batch;
mod body;
mod compile;
mod entities;
mod executor;
mod op;
mod order;
mod queues;
#[cfg(test)]
mod tests;
mod trace;

pub use body::{FlowBody, FlowBodyError, FlowLimits, FlowRun, FlowSettings};
pub use entities::Entities;
pub use executor::FlowError;
pub use op::FlowOp;
pub use trace::{PortCount, Step, Trace};

use kiln_core::graph::{Graph, NodeId};
use kiln_core::registry::{Registry, RegistryError};
use std::sync::Arc;

/// The op id of the flow executor node.
pub const FLOW_OP: &str = FlowOp::ID;
/// The heavy type name of [`FlowBody`] (the type of the `body` param).
pub const FLOW_BODY_TYPE: &str = "flow-body";
/// The iteration cap of a loop port whose file sets none.
pub use kiln_doc::document::DEFAULT_LOOP_MAX;

/// Register the flow op ([`FLOW_OP`]).
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FlowOp::new())
}

/// The last trace of every `scope.flow` node of `graph` that has run, in node order. A node
/// answered from a memo or a cache did not run and has no trace (or an older one).
pub fn traces(graph: &Graph) -> Vec<(NodeId, Arc<Trace>)> {
    graph
        .nodes()
        .iter()
        .filter(|n| n.op == FLOW_OP)
        .filter_map(|n| {
            let body = n.params.get("body")?.as_heavy::<FlowBody>()?;
            Some((n.id.clone(), body.last_trace(n.id.as_str())?))
        })
        .collect()
}
