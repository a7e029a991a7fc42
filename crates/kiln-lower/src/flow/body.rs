//! [`FlowBody`]: the heavy value a `scope.flow` node carries as its `body` param — the body
//! graph compiled for the executor, its settings, and the last trace of each node using it.

use super::FLOW_BODY_TYPE;
use super::compile::{Compiled, compile};
use super::entities::Entities;
use super::executor::{Args, FlowError, run};
use super::trace::Trace;
use kiln_core::context::EvalContext;
use kiln_core::error::Diagnostics;
use kiln_core::graph::{Graph, PortRef};
use kiln_core::key::KeyHasher;
use kiln_core::op::Reads;
use kiln_core::registry::Registry;
use kiln_core::value::{Heavy, HeavyData, Value};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How many nodes' last traces one body keeps; the oldest is dropped beyond this.
const MAX_TRACES: usize = 64;

/// Caps on one flow run; going over fails the run, naming the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowLimits {
    /// Entities sent over the whole run (each value written to an output port counts once).
    pub max_entities: u64,
    /// Steps over the whole run.
    pub max_steps: u64,
}

impl Default for FlowLimits {
    fn default() -> Self {
        FlowLimits {
            max_entities: 10_000_000,
            max_steps: 1_000_000,
        }
    }
}

/// The settings of a flow body: which body inputs the node's `args` feed, its loop ports
/// with their caps, and its limits.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSettings {
    /// The body inputs fed from the node's `args` list, in list order.
    pub args: Vec<String>,
    /// The loop ports (`node.input`) and the most iterations each may make.
    pub loops: Vec<(PortRef, u32)>,
    /// Caps on a run.
    pub limits: FlowLimits,
}

/// Why a [`FlowBody`] could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FlowBodyError {
    /// The body graph does not validate (checked through the first wire into each port).
    #[error("the flow body does not validate: {0}")]
    Invalid(Diagnostics),
    /// A cycle passes through no loop port.
    #[error(
        "the flow body has a cycle through {} that passes through no loop port; mark an \
         input on it as a loop port",
        .0.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    )]
    Cycle(Vec<String>),
    /// A loop port names no input of a body node.
    #[error("loop port `{0}` is not an input of a node of the flow body")]
    NoLoopPort(String),
    /// A loop port's cap is 0.
    #[error("loop port `{0}` has a cap of 0 iterations; give it at least 1")]
    ZeroCap(String),
    /// A wire names a node or port the body does not have.
    #[error("wire {0} names a node or port the flow body does not have")]
    Wire(String),
    /// The body holds a latch.
    #[error("the flow body holds latch `{0}`; a flow graph repeats through loop ports instead")]
    Latch(String),
    /// The graph could not be copied for checking.
    #[error("the flow body: {0}")]
    Graph(String),
}

/// What a run gives: each body output's entities, and the trace.
#[derive(Debug)]
pub struct FlowRun {
    /// Each body output (by name, in declaration order) with the entities that reached it
    /// (floats that only float kernels made stay unboxed).
    pub outputs: Vec<(String, Entities)>,
    /// Every step.
    pub trace: Trace,
}

/// The body of a flow graph (see the [module docs](super)). Two bodies of equal content
/// (nodes in declaration order, params, constants, wires, op versions, settings) have equal
/// content hashes; the traces they keep are not content.
pub struct FlowBody {
    graph: Graph,
    registry: Registry,
    settings: FlowSettings,
    pub(super) compiled: Compiled,
    reads: Reads,
    runs: AtomicU64,
    traces: Mutex<Vec<(String, Arc<Trace>)>>,
}

impl FlowBody {
    /// A body from `graph` (its interface: `input.*` nodes by their `name` param, `output`
    /// nodes by their id), the `registry` that runs it, and `settings`. The graph is checked
    /// (see [`FlowBodyError`]).
    pub fn new(
        graph: Graph,
        registry: Registry,
        settings: FlowSettings,
    ) -> Result<FlowBody, FlowBodyError> {
        let compiled = compile(&graph, &registry, &settings)?;
        let mut reads = Reads::NONE;
        for n in 0..compiled.plan.len() {
            reads = reads.with(compiled.plan.op(n).spec().reads);
        }
        Ok(FlowBody {
            graph,
            registry,
            settings,
            compiled,
            reads,
            runs: AtomicU64::new(0),
            traces: Mutex::new(Vec::new()),
        })
    }

    /// Wrap the body in a heavy value (its content hash is computed now).
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
    /// The body graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The registry it runs on.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
    /// The settings.
    pub fn settings(&self) -> &FlowSettings {
        &self.settings
    }
    /// The body's outputs, in declaration order.
    pub fn output_names(&self) -> &[String] {
        &self.compiled.output_names
    }
    /// Context fields the body's ops read (they enter the `scope.flow` node's key).
    pub fn context_reads(&self) -> Reads {
        self.reads
    }
    /// Runs over this body's lifetime.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Run the body on `args` (one value per name of the settings' `args`). The body's ops
    /// see the clock, seed, preview, resolution and cancellation of `ctx`, and no graph
    /// inputs.
    pub fn run(&self, args: &[Value], ctx: &EvalContext) -> Result<FlowRun, FlowError> {
        self.run_args(Args::Values(args), ctx)
    }

    /// Run the body on `args` given as entities (one per name of the settings' `args`):
    /// each body input sends the entities it is given, as it sends the elements of a list
    /// value. Floats given unboxed stay unboxed through float kernels, so a caller holding
    /// a column of numbers neither boxes it going in nor coming out. The same entities give
    /// the same results as [`run`](Self::run) with a list of them.
    pub fn run_entities(&self, args: &[Entities], ctx: &EvalContext) -> Result<FlowRun, FlowError> {
        self.run_args(Args::Entities(args), ctx)
    }

    fn run_args(&self, args: Args<'_>, ctx: &EvalContext) -> Result<FlowRun, FlowError> {
        self.runs.fetch_add(1, Ordering::Relaxed);
        let mut inner = EvalContext::new();
        inner.time = ctx.time;
        inner.frame = ctx.frame;
        inner.dt = ctx.dt;
        inner.seed = ctx.seed;
        inner.preview = ctx.preview;
        inner.resolution = ctx.resolution;
        inner.cancel = ctx.cancel.clone();
        run(self, args, &inner)
    }

    /// The last trace of node `node` (a `scope.flow` node using this body), if it ran.
    pub fn last_trace(&self, node: &str) -> Option<Arc<Trace>> {
        let t = self.traces.lock().ok()?;
        t.iter().find(|(n, _)| n == node).map(|(_, t)| t.clone())
    }

    pub(super) fn keep_trace(&self, node: &str, trace: Trace) {
        if let Ok(mut t) = self.traces.lock() {
            t.retain(|(n, _)| n != node);
            if t.len() >= MAX_TRACES {
                t.remove(0);
            }
            t.push((node.to_string(), Arc::new(trace)));
        }
    }
}

impl std::fmt::Debug for FlowBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlowBody")
            .field("nodes", &self.graph.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The `body` param of `scope.flow` is a flow body.
impl kiln_core::op::port::HeavyPort for FlowBody {
    const TYPE: kiln_core::value::ValueType = kiln_core::value::ValueType::Heavy(FLOW_BODY_TYPE);
}

impl HeavyData for FlowBody {
    fn type_name(&self) -> &'static str {
        FLOW_BODY_TYPE
    }
    fn byte_size(&self) -> usize {
        crate::solver::graph_bytes(&self.graph) + std::mem::size_of::<FlowBody>()
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.str("kiln.flow-body");
        crate::solver::hash_graph(&self.graph, &self.registry, h);
        // Sources run in declaration order, so the order is content too.
        h.u64(self.graph.len() as u64);
        for n in self.graph.nodes() {
            h.str(n.id.as_str());
        }
        // So is the order of several wires into one port (it is not part of the order of
        // steps, but keep the key honest for any rule that reads it).
        for w in self.graph.wires() {
            h.str(w.from.node.as_str());
            h.str(&w.from.port);
        }
        let s = &self.settings;
        h.u64(s.args.len() as u64);
        for a in &s.args {
            h.str(a);
        }
        h.u64(s.loops.len() as u64);
        for (at, cap) in &s.loops {
            h.str(at.node.as_str());
            h.str(&at.port);
            h.u64(u64::from(*cap));
        }
        h.u64(s.limits.max_entities);
        h.u64(s.limits.max_steps);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
