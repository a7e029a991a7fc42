//! Evaluators: strategies that run a graph's plan. They share the plan (analysis, keys) and
//! the node-execution machinery in this module; each adds only its own traversal.

mod lazy;

pub use lazy::LazyEvaluator;

use crate::context::{EvalContext, Progress};
use crate::graph::{Graph, NodeId};
use crate::op::{OpCall, OpError, PortIndex};
use crate::plan::Plan;
use crate::validate::Diagnostics;
use crate::value::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// What to evaluate: output names, each `node` (its first output) or `node.port`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Output names.
    pub outputs: Vec<String>,
}

impl Request {
    /// A request for the named outputs.
    pub fn new<S: Into<String>>(outputs: impl IntoIterator<Item = S>) -> Self {
        Request {
            outputs: outputs.into_iter().map(Into::into).collect(),
        }
    }
}

/// Counters describing one evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Ops executed.
    pub executed: u64,
    /// Results found in the memo instead of executed.
    pub cache_hits: u64,
    /// Keys computed at request time (static keys come from the plan for free).
    pub keys_computed: u64,
    /// Whether the plan was (re)built for this request.
    pub planned: bool,
}

/// The values a request asked for, in request order.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `(name, value)` pairs in request order.
    pub values: Vec<(String, Value)>,
    /// What the evaluation did.
    pub stats: Stats,
}

impl Outputs {
    /// A value by the name it was requested under.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// An evaluation failed.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum EvalError {
    /// The graph did not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A requested output does not exist.
    #[error("no output named `{name}` (use `node` or `node.port`)")]
    UnknownOutput {
        /// The name requested.
        name: String,
    },
    /// A node's op returned an error.
    #[error("node `{node}` ({op}){}: {message}", port.as_ref().map(|p| format!(", {p}")).unwrap_or_default())]
    Node {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The port involved, e.g. `input "b"`.
        port: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// A node's op panicked; the panic was caught.
    #[error("node `{node}` ({op}) panicked: {message}")]
    Panic {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The panic message.
        message: String,
    },
    /// The request was cancelled.
    #[error("evaluation cancelled")]
    Cancelled,
}

/// A strategy for evaluating graphs.
pub trait Evaluator {
    /// Evaluate the requested outputs of `graph` in context `ctx`.
    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError>;
}

/// Execute node `n` of `plan` on gathered inputs, writing into `out` (one slot per output).
/// Catches panics and turns op errors into [`EvalError`]s naming node, op and port.
pub(crate) fn execute_node(
    plan: &Plan,
    n: usize,
    inputs: &[Value],
    ctx: &EvalContext,
    out: &mut [Value],
) -> Result<(), EvalError> {
    let op = plan.op(n);
    let call = OpCall {
        inputs,
        params: plan.params(n),
        ctx,
    };
    match catch_unwind(AssertUnwindSafe(|| op.execute(&call, out))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(op_error(plan, n, e)),
        Err(payload) => Err(EvalError::Panic {
            node: plan.id(n).clone(),
            op: op.spec().id.to_string(),
            message: panic_message(&*payload),
        }),
    }
}

/// Ask a lazy op which input to pull next, with panics caught.
pub(crate) fn next_lazy(
    plan: &Plan,
    n: usize,
    inputs: &[Value],
    pulled: &[bool],
    ctx: &EvalContext,
) -> Result<Option<usize>, EvalError> {
    let op = plan.op(n);
    let call = OpCall {
        inputs,
        params: plan.params(n),
        ctx,
    };
    match catch_unwind(AssertUnwindSafe(|| op.next_lazy(&call, pulled))) {
        Ok(Ok(Some(i))) if i < inputs.len() => Ok(Some(i)),
        Ok(Ok(Some(i))) => Err(op_error(
            plan,
            n,
            OpError::new(format!("asked to pull input #{i}, which does not exist")),
        )),
        Ok(Ok(None)) => Ok(None),
        Ok(Err(e)) => Err(op_error(plan, n, e)),
        Err(payload) => Err(EvalError::Panic {
            node: plan.id(n).clone(),
            op: op.spec().id.to_string(),
            message: panic_message(&*payload),
        }),
    }
}

fn op_error(plan: &Plan, n: usize, e: OpError) -> EvalError {
    if e.is_cancelled() {
        return EvalError::Cancelled;
    }
    let spec = plan.op(n).spec();
    let port = e.port.map(|p| match p {
        PortIndex::Input(i) => format!(
            "input `{}`",
            spec.inputs.get(i).map(|s| &*s.name).unwrap_or("?")
        ),
        PortIndex::Output(i) => format!(
            "output `{}`",
            spec.outputs.get(i).map(|s| &*s.name).unwrap_or("?")
        ),
        PortIndex::Param(i) => format!(
            "param `{}`",
            spec.params.get(i).map(|s| &*s.name).unwrap_or("?")
        ),
    });
    EvalError::Node {
        node: plan.id(n).clone(),
        op: spec.id.to_string(),
        port,
        message: e.message,
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Progress bookkeeping shared by evaluators: only active when the context has a sink.
pub(crate) struct ProgressTracker {
    ctx: Option<EvalContext>,
    completed: usize,
    total: usize,
    started: Instant,
}

impl ProgressTracker {
    pub(crate) fn new(ctx: &EvalContext, total: impl FnOnce() -> usize) -> Self {
        let active = ctx.progress.is_some();
        let started = Instant::now();
        let total = if active { total() } else { 0 };
        let ctx = active.then(|| {
            let mut c = ctx.clone();
            c.started = Some(started);
            c.progress_state = Some((0, total));
            c
        });
        ProgressTracker {
            ctx,
            completed: 0,
            total,
            started,
        }
    }
    /// The context ops should see: a copy carrying the current node when progress is on.
    #[inline]
    pub(crate) fn ctx<'a>(&'a self, base: &'a EvalContext) -> &'a EvalContext {
        self.ctx.as_ref().unwrap_or(base)
    }
    #[inline]
    pub(crate) fn start_node(&mut self, plan: &Plan, n: usize) {
        if let Some(c) = &mut self.ctx {
            let id: &str = plan.id(n).as_str();
            c.current_node = Some(id.into());
            c.progress_state = Some((self.completed, self.total));
        }
    }
    #[inline]
    pub(crate) fn finish_node(&mut self, plan: &Plan, n: usize) {
        if let Some(c) = &self.ctx {
            self.completed += 1;
            if let Some(sink) = &c.progress {
                sink.report(&Progress {
                    completed: self.completed,
                    total: self.total.max(self.completed),
                    node: Some(plan.id(n).as_str()),
                    node_fraction: None,
                    elapsed: self.started.elapsed(),
                });
            }
        }
    }
}
