//! Evaluators: strategies that run a graph's plan. Every evaluator is a named combination of
//! the same parts, one copy each, on one host (`host.rs`: the registry, the plan kept up to
//! date with the graph, the optional store, the parallel policy, the totals):
//!
//! - a **walk** (`walks/`): what to visit — the pull walk from the outputs down, or the
//!   schedule walk over a compiled cone, with the key pass before either when results are
//!   kept by key;
//! - a **retention** (`retention/`): where results live — value slots, a memo by key (own
//!   map or a shared store), or the incremental evaluator's stale records — behind one
//!   `Retention` trait for the schedule walk, and when a value held within a run is let go;
//! - the **node runner** (`runner/`): running one node under the request's policies (inputs
//!   gathered, one lazy-input step, the op called with panics caught, taint, stats, timings,
//!   progress, scalar kernels);
//! - how to run: one node at a time or independent levels at once (`parallel.rs`), and on a
//!   worker thread the caller may abandon (`preempt.rs`).
//!
//! This module holds the vocabulary every part shares ([`Request`], [`Outputs`], the
//! policies, [`Evaluator`]) and imports none of the parts, except to re-export the
//! evaluators.

// The evaluators.
mod compiled;
mod eager;
mod incremental;
mod lazy;
// Their parts.
mod host;
mod parallel;
mod preempt;
pub(crate) mod retention;
pub(crate) mod runner;
pub(crate) mod walks;

/// The streaming evaluator, which lives in [`crate::stream`].
pub use crate::stream::{StreamConfig, StreamError, StreamSnapshot, StreamingEvaluator};
pub use compiled::{CompiledEvaluator, Served};
pub use eager::EagerEvaluator;
pub use incremental::IncrementalEvaluator;
pub use lazy::LazyEvaluator;
pub use runner::node_runner::NodeRunner;

use crate::context::EvalContext;
use crate::graph::{Graph, NodeId};
use crate::plan::Plan;
use crate::value::Value;
use std::sync::Arc;
use std::time::Duration;

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
