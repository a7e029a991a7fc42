//! Evaluators: strategies that run a graph's plan. They share the plan (analysis, keys) and
//! the node-execution machinery in this module; each adds only its own traversal.

mod compiled;
mod eager;
mod exec;
mod executor;
mod host;
mod incremental;
mod kernel;
mod keyed;
mod keys;
mod lazy;
mod memo;
mod parallel;
mod preempt;
mod pull;
pub(crate) mod pull_walk;
mod release;
mod schedule;
mod slot_walk;
mod slots;

/// The streaming evaluator, which lives in [`crate::stream`].
pub use crate::stream::{StreamConfig, StreamError, StreamSnapshot, StreamingEvaluator};
pub use compiled::{CompiledEvaluator, Served};
pub use eager::EagerEvaluator;
pub use incremental::IncrementalEvaluator;
pub use lazy::LazyEvaluator;

use crate::context::{EvalContext, Progress};
use crate::graph::{Graph, NodeId};
use crate::op::{OpCall, OpError};
use crate::plan::Plan;
use crate::value::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to evaluate, and how: output names (each `node`, meaning its first output, or
/// `node.port`), the error policy, the cancellation mode and whether to time each node.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Output names.
    pub outputs: Vec<String>,
    /// What a node's failure does to the rest of the request.
    pub errors: ErrorPolicy,
    /// How cancellation is honoured.
    pub cancel: CancelMode,
    /// Record the time each executed node took (see [`Outputs::timings`]).
    pub timings: bool,
}

impl Request {
    /// A request for the named outputs (fail fast, cooperative cancellation, no timings).
    pub fn new<S: Into<String>>(outputs: impl IntoIterator<Item = S>) -> Self {
        Request {
            outputs: outputs.into_iter().map(Into::into).collect(),
            ..Request::default()
        }
    }
    /// The same request under another error policy.
    pub fn with_errors(mut self, policy: ErrorPolicy) -> Self {
        self.errors = policy;
        self
    }
    /// The same request under another cancellation mode.
    pub fn with_cancel(mut self, mode: CancelMode) -> Self {
        self.cancel = mode;
        self
    }
    /// The same request, timing every executed node.
    pub fn with_timings(mut self) -> Self {
        self.timings = true;
        self
    }
}

/// Replacement values for failed nodes under [`ErrorPolicy::Fallback`]: called with the
/// failed node's id and its error, it returns the value each of the node's outputs takes.
pub type FallbackFn = Arc<dyn Fn(&NodeId, &EvalError) -> Value + Send + Sync>;

/// What a node's failure does to the rest of a request.
#[derive(Clone, Default)]
pub enum ErrorPolicy {
    /// Stop at the first failure and return it as the request's error.
    #[default]
    FailFast,
    /// The failed node's outputs become [`Value::Error`]; dependents pass it on (or handle it,
    /// when their input [catches errors](crate::op::InputSpec::catches_errors)); outputs that
    /// do not depend on the failure are still produced. [`Outputs::failures`] lists them.
    Propagate,
    /// The failed node's outputs take the value the function returns, and evaluation goes
    /// on. The failure is still listed in [`Outputs::failures`] and nothing derived from the
    /// replacement is cached.
    Fallback(FallbackFn),
}

impl ErrorPolicy {
    /// A fallback policy from a closure.
    pub fn fallback(f: impl Fn(&NodeId, &EvalError) -> Value + Send + Sync + 'static) -> Self {
        ErrorPolicy::Fallback(Arc::new(f))
    }
    /// The policy's name.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorPolicy::FailFast => "fail-fast",
            ErrorPolicy::Propagate => "propagate",
            ErrorPolicy::Fallback(_) => "fallback",
        }
    }
}

impl std::fmt::Debug for ErrorPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a request honours its [`CancelToken`](crate::context::CancelToken).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CancelMode {
    /// Checked between nodes only; ops run to completion (they see a token that never fires).
    NodeBoundary,
    /// Checked between nodes and by ops in their inner loops (Kiln's heavy ops do).
    #[default]
    Cooperative,
    /// The evaluation runs on a worker thread and the request returns
    /// [`EvalError::Cancelled`] as soon as the token fires, even in the middle of a long op.
    /// The worker's results are dropped: nothing it computed is cached or kept.
    Preemptive,
}

/// Whether and how an evaluator runs independent nodes at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ParallelPolicy {
    /// One node at a time on the calling thread.
    #[default]
    Sequential,
    /// Nodes of one level of the schedule (independent of each other) run at once on a
    /// Rayon pool — but only levels whose measured sequential cost reaches `min_cost`, so
    /// tiny nodes stay sequential and pay nothing. Results are the same bits as sequential.
    Rayon {
        /// Pool size (`None`: one thread per core).
        threads: Option<usize>,
        /// The threshold. `None` learns it: ten times the pool's measured fork-join overhead,
        /// at least 20 µs. `Some(Duration::ZERO)` runs every multi-node level in parallel.
        min_cost: Option<Duration>,
    },
}

impl ParallelPolicy {
    /// Rayon with a learned threshold on a pool of one thread per core.
    pub fn rayon() -> Self {
        ParallelPolicy::Rayon {
            threads: None,
            min_cost: None,
        }
    }
}

/// Counters describing one evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Ops executed.
    pub executed: u64,
    /// Results reused instead of executed: memo hits (lazy) or nodes found up to date
    /// after their inputs were checked (incremental).
    pub cache_hits: u64,
    /// Early cutoffs: nodes that were re-executed and produced the same bits as before, so
    /// their dependents stayed clean (incremental).
    pub cutoffs: u64,
    /// Nodes that passed an upstream error on without executing ([`ErrorPolicy::Propagate`]).
    pub propagated: u64,
    /// Nodes run on a worker thread of a parallel policy.
    pub parallel: u64,
    /// Keys computed at request time (static keys come from the plan for free).
    pub keys_computed: u64,
    /// Whether the plan (or the compiled schedule) was (re)built for this request.
    pub planned: bool,
}

impl Stats {
    /// Add another request's counters to these.
    pub fn accumulate(&mut self, o: &Stats) {
        self.executed += o.executed;
        self.cache_hits += o.cache_hits;
        self.cutoffs += o.cutoffs;
        self.propagated += o.propagated;
        self.parallel += o.parallel;
        self.keys_computed += o.keys_computed;
        self.planned |= o.planned;
    }
}

/// A node that failed during a request that went on ([`ErrorPolicy::Propagate`] or
/// [`ErrorPolicy::Fallback`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The failed node.
    pub node: NodeId,
    /// Its op id.
    pub op: String,
    /// What went wrong.
    pub error: EvalError,
    /// The requested outputs whose values depend on the failure, in request order.
    pub affected: Vec<String>,
}

/// How long one executed node took.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTiming {
    /// The node.
    pub node: NodeId,
    /// Its op id.
    pub op: String,
    /// Wall time of its execution.
    pub time: Duration,
    /// Whether its result came out as it was (an early cutoff: what reads it was not cooked
    /// again on its account). Only the incremental evaluator cuts off.
    pub cut_off: bool,
}

/// The values a request asked for, in request order, with what the evaluation did.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `(name, value)` pairs in request order. Under [`ErrorPolicy::Propagate`] an output
    /// that depends on a failure holds [`Value::Error`].
    pub values: Vec<(String, Value)>,
    /// What the evaluation did.
    pub stats: Stats,
    /// Each node that failed and the outputs it affected, in graph order. Failures on
    /// branches no requested output depends on are not listed.
    pub failures: Vec<Failure>,
    /// Per-node execution times, in execution order, when the request asked for them.
    pub timings: Vec<NodeTiming>,
}

impl Outputs {
    /// A value by the name it was requested under.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// A value by name, with an error value turned into its error.
    pub fn result(&self, name: &str) -> Option<Result<&Value, &EvalError>> {
        self.get(name).map(|v| match v {
            Value::Error(e) => Err(&**e),
            v => Ok(v),
        })
    }
}

pub use crate::error::EvalError;

/// A strategy for evaluating graphs.
pub trait Evaluator {
    /// Evaluate the requested outputs of `graph` in context `ctx`.
    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError>;

    /// Memory the evaluator holds, by part: its own values or memo, and its plan. A shared
    /// [`Store`](crate::cache::Store) reports itself.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        crate::cache::MemoryReport::default()
    }

    /// Take `plan` as the plan of the graph revision it was made for (see
    /// [`Plan::revision`]), typically one [`Plan::from_checked`] made from the graph
    /// [`validate::check`](crate::validate::check) resolved: the next evaluation of that
    /// revision that would build a plan uses this one, so the graph is not resolved again.
    /// A plan of another revision is never used. Every evaluator built on the shared host
    /// (lazy, eager, compiled, incremental) takes it; the default ignores it.
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        let _ = plan;
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        (**self).evaluate(graph, request, ctx)
    }
    fn memory_report(&self) -> crate::cache::MemoryReport {
        (**self).memory_report()
    }
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        (**self).adopt_plan(plan)
    }
}

/// The report of an evaluator holding `slots` for `plan` (eager and compiled).
pub(crate) fn slots_report(
    name: &str,
    slots: &[Value],
    plan: Option<&Plan>,
) -> crate::cache::MemoryReport {
    let mut r = crate::cache::MemoryReport::default();
    let held = slots.iter().filter(|v| !matches!(v, Value::Empty)).count();
    r.add(name, held, slots.iter().map(Value::byte_size).sum());
    if let Some(p) = plan {
        r.add("plan", p.len(), p.approx_bytes());
    }
    r
}

/// Execute node `n` of `plan` on gathered inputs, writing into `out` (one slot per output).
/// Checks the op's rules first (see [`crate::op::rule`]). Catches panics and turns op errors
/// into [`EvalError`]s naming node, op and port; the
/// conversion is out of line, so a successful call moves nothing large.
#[inline(always)]
pub(crate) fn execute_node(
    plan: &Plan,
    n: usize,
    inputs: &[Value],
    ctx: &EvalContext,
    out: &mut [Value],
) -> Result<(), EvalError> {
    let op = plan.op(n);
    if plan.has_rules(n)
        && let Err(e) = plan.check_rules(n, inputs)
    {
        return Err(failed_op(plan, n, e));
    }
    let call = OpCall {
        inputs,
        params: plan.params(n),
        ctx,
        node: plan.id(n).as_str(),
    };
    match catch_unwind(AssertUnwindSafe(|| op.execute(&call, out))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed_op(plan, n, e)),
        Err(payload) => Err(failed_panic(plan, n, payload)),
    }
}

#[cold]
#[inline(never)]
fn failed_op(plan: &Plan, n: usize, e: OpError) -> EvalError {
    op_error(plan, n, e)
}

#[cold]
#[inline(never)]
fn failed_panic(plan: &Plan, n: usize, payload: Box<dyn std::any::Any + Send>) -> EvalError {
    EvalError::Panic {
        node: plan.id(n).clone(),
        op: plan.op(n).spec().id.to_string(),
        message: panic_message(&*payload),
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
        node: plan.id(n).as_str(),
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
    let port = e.port.map(|p| spec.port_name(p));
    EvalError::Node {
        node: plan.id(n).clone(),
        op: spec.id.to_string(),
        port,
        message: e.message,
    }
}

/// The text of a caught panic's payload.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
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
    /// A context naming node `n` for reports from inside it, when progress is on (for a node
    /// run on a worker thread beside others).
    pub(crate) fn node_ctx(&self, plan: &Plan, n: usize) -> Option<EvalContext> {
        self.ctx.as_ref().map(|c| {
            let mut c = c.clone();
            c.current_node = Some(plan.id(n).as_str().into());
            c.progress_state = Some((self.completed, self.total));
            c
        })
    }
    pub(crate) fn active(&self) -> bool {
        self.ctx.is_some()
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
