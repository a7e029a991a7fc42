//! The node runner every walk shares: gathering inputs from value slots, running one node
//! under the request's error policy and cancellation mode ([`Runner`]), taint tracking (what
//! depends on a failure), statistics, timings, progress and the failure report.
//!
//! Its parts: [`op_call`] calls an op (rules checked, panics caught, errors named);
//! [`pulled`] and [`lazy_inputs`] are the lazy-input protocol (which inputs a node pulled,
//! and the step that asks the op for the next); [`kernel`] runs scalar kernels without an
//! `OpCall`; [`progress`] reports nodes completed; [`node_runner`] is the public face of
//! running one node ([`NodeRunner`](crate::eval::NodeRunner)), for callers that walk a plan
//! their own way.

pub(crate) mod kernel;
pub(crate) mod lazy_inputs;
pub(crate) mod node_runner;
pub(crate) mod op_call;
pub(crate) mod progress;
pub(crate) mod pulled;

use crate::context::{CancelToken, EvalContext};
use crate::eval::{CancelMode, ErrorPolicy, EvalError, Failure, NodeTiming, Request, Stats};
use crate::plan::{Plan, Source};
use crate::value::Value;
use op_call::{execute_node, panic_message};
use progress::ProgressTracker;
use pulled::is_pulled;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

/// The failed nodes (dense indices, sorted) a value depends on; `None` when it depends on
/// none, which is the only state whose results may be cached.
pub(crate) type Taint = Option<Arc<[u32]>>;

/// The union of two taints.
pub(crate) fn taint_union(a: &Taint, b: &Taint) -> Taint {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) if Arc::ptr_eq(x, y) => a.clone(),
        (Some(x), Some(y)) => {
            let mut v: Vec<u32> = x.iter().chain(y.iter()).copied().collect();
            v.sort_unstable();
            v.dedup();
            Some(v.into())
        }
    }
}

fn taint_with(a: &Taint, n: u32) -> Taint {
    taint_union(a, &Some(Arc::from([n])))
}

/// Fill `scratch` with node `v`'s inputs read from `vals` (one slot per output, laid out by
/// [`Plan::output_offset`]), returning the union of the sources' taints. A lazy input whose
/// bit is not set in `pulled` (see [`pulled::PullSets`]) reads as [`Value::Empty`].
#[inline]
pub(crate) fn gather(
    plan: &Plan,
    v: usize,
    vals: &[Value],
    taints: &[Taint],
    pulled: &[u64],
    scratch: &mut Vec<Value>,
) -> Taint {
    scratch.clear();
    let mut taint: Taint = None;
    let lazy_ports = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
    for (i, s) in plan.inputs(v).iter().enumerate() {
        if lazy_ports.is_some_and(|p| p[i].lazy) && !is_pulled(pulled, i) {
            scratch.push(Value::Empty);
            continue;
        }
        scratch.push(match s {
            Source::Wire { node, port } => {
                let u = *node as usize;
                if let Some(t) = &taints[u] {
                    taint = taint_union(&taint, &Some(t.clone()));
                }
                vals[plan.output_offset(u) + *port as usize].clone()
            }
            Source::Const(c) => c.clone(),
            Source::Empty => Value::Empty,
        });
    }
    taint
}

/// Whether an input of node `v` carries an error its port does not catch: then the node
/// passes it on (or fails fast) without its lazy protocol being asked anything.
pub(crate) fn uncaught_error(plan: &Plan, v: usize, inputs: &[Value]) -> bool {
    inputs
        .iter()
        .zip(&plan.op(v).spec().inputs)
        .any(|(x, s)| matches!(x, Value::Error(_)) && !s.catches_errors)
}

/// Runs nodes for one request: policy, cancellation, stats, timings, progress and failures.
pub(crate) struct Runner<'r> {
    plan: &'r Plan,
    /// The caller's context: its token is checked between nodes.
    base: &'r EvalContext,
    /// The context ops see, when it differs from `base` (node-boundary cancellation).
    op_ctx: Option<EvalContext>,
    policy: ErrorPolicy,
    /// Under fail-fast, keep a failure as an error value instead of stopping, and stop only
    /// when something consumes it (eager evaluation of branches that may not be taken).
    defer: bool,
    pub(crate) stats: Stats,
    pub(crate) progress: ProgressTracker,
    timings: Option<Vec<NodeTiming>>,
    failed: Vec<(u32, EvalError)>,
    /// An error to report as the next node's result instead of executing it (a lazy op
    /// that failed while choosing its inputs).
    injected: Option<EvalError>,
}

/// What [`Runner::prepare`] decided about a node.
pub(crate) enum Prepared {
    /// Execute it.
    Run,
    /// An input carries an error the op does not handle: the outputs were set to it.
    Propagated(Taint),
}

impl<'r> Runner<'r> {
    /// The caller's context.
    pub(crate) fn ctx(&self) -> &'r EvalContext {
        self.base
    }

    pub(crate) fn new(
        plan: &'r Plan,
        ctx: &'r EvalContext,
        request: &Request,
        total: impl FnOnce() -> usize,
    ) -> Self {
        let op_ctx = (request.cancel == CancelMode::NodeBoundary).then(|| {
            let mut c = ctx.clone();
            c.cancel = CancelToken::new();
            c
        });
        let progress = ProgressTracker::new(op_ctx.as_ref().unwrap_or(ctx), total);
        Runner {
            plan,
            base: ctx,
            op_ctx,
            policy: request.errors.clone(),
            defer: false,
            stats: Stats::default(),
            progress,
            timings: request.timings.then(Vec::new),
            failed: vec![],
            injected: None,
        }
    }

    /// Keep fail-fast failures as values until consumed (see the field).
    pub(crate) fn defer_failures(&mut self) {
        self.defer = true;
    }

    /// The context ops see.
    #[inline]
    pub(crate) fn op_ctx(&self) -> &EvalContext {
        self.progress.ctx(self.op_ctx.as_ref().unwrap_or(self.base))
    }

    /// Whether nodes may take the fast path: no progress, no timings, nothing injected.
    #[inline]
    pub(crate) fn plain(&self) -> bool {
        !self.progress.active() && self.timings.is_none() && self.injected.is_none()
    }

    /// Whether the request was cancelled (checked between nodes).
    #[inline]
    pub(crate) fn cancelled(&self) -> bool {
        self.base.is_cancelled()
    }

    /// Count a node executed on the fast path.
    #[inline]
    pub(crate) fn executed_fast(&mut self) {
        self.stats.executed += 1;
    }

    /// Check cancellation and error inputs before executing node `v`.
    #[inline]
    pub(crate) fn prepare(
        &mut self,
        v: usize,
        inputs: &[Value],
        taint: &Taint,
        out: &mut [Value],
    ) -> Result<Prepared, EvalError> {
        if self.base.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        if taint.is_none() && !inputs.iter().any(|x| matches!(x, Value::Error(_))) {
            return Ok(Prepared::Run);
        }
        let spec = self.plan.op(v).spec();
        let err = inputs.iter().zip(&spec.inputs).find_map(|(x, s)| match x {
            Value::Error(e) if !s.catches_errors => Some(e.clone()),
            _ => None,
        });
        let Some(err) = err else {
            return Ok(Prepared::Run);
        };
        if matches!(self.policy, ErrorPolicy::FailFast) && !self.defer {
            return Err((*err).clone());
        }
        let err = Value::Error(err);
        out.iter_mut().for_each(|o| *o = err.clone());
        self.stats.propagated += 1;
        // An error value that came from outside (a graph input) still must not be cached.
        Ok(Prepared::Propagated(
            taint.clone().or_else(|| Some(Arc::from([]))),
        ))
    }

    /// Apply the request's policy to the result of executing node `v` into `out`.
    pub(crate) fn complete(
        &mut self,
        v: usize,
        result: Result<(), EvalError>,
        taint: Taint,
        out: &mut [Value],
    ) -> Result<Taint, EvalError> {
        self.stats.executed += 1;
        match result {
            Ok(()) => Ok(taint),
            Err(EvalError::Cancelled) => Err(EvalError::Cancelled),
            Err(e) => match &self.policy {
                ErrorPolicy::FailFast if !self.defer => Err(e),
                ErrorPolicy::FailFast | ErrorPolicy::Propagate => {
                    let ev = Value::Error(Arc::new(e.clone()));
                    out.iter_mut().for_each(|o| *o = ev.clone());
                    if matches!(self.policy, ErrorPolicy::Propagate) {
                        self.failed.push((v as u32, e));
                    }
                    Ok(taint_with(&taint, v as u32))
                }
                ErrorPolicy::Fallback(f) => {
                    let id = self.plan.id(v);
                    let rep = match catch_unwind(AssertUnwindSafe(|| f(id, &e))) {
                        Ok(r) => r,
                        Err(p) => {
                            return Err(EvalError::Panic {
                                node: id.clone(),
                                op: format!("{} (fallback)", self.plan.op(v).spec().id),
                                message: panic_message(&*p),
                            });
                        }
                    };
                    out.iter_mut().for_each(|o| *o = rep.clone());
                    self.failed.push((v as u32, e));
                    Ok(taint_with(&taint, v as u32))
                }
            },
        }
    }

    /// Prepare, execute and complete node `v` on gathered `inputs`, writing into `out`.
    #[inline]
    pub(crate) fn run(
        &mut self,
        v: usize,
        inputs: &[Value],
        taint: Taint,
        out: &mut [Value],
    ) -> Result<Taint, EvalError> {
        if taint.is_none() && self.plain() && !inputs.iter().any(|x| matches!(x, Value::Error(_))) {
            if self.base.is_cancelled() {
                return Err(EvalError::Cancelled);
            }
            return match execute_node(self.plan, v, inputs, self.op_ctx(), out) {
                Ok(()) => {
                    self.stats.executed += 1;
                    Ok(None)
                }
                Err(e) => self.complete(v, Err(e), None, out),
            };
        }
        self.run_general(v, inputs, taint, out)
    }

    #[inline(never)]
    fn run_general(
        &mut self,
        v: usize,
        inputs: &[Value],
        taint: Taint,
        out: &mut [Value],
    ) -> Result<Taint, EvalError> {
        if let Prepared::Propagated(t) = self.prepare(v, inputs, &taint, out)? {
            return Ok(t);
        }
        self.progress.start_node(self.plan, v);
        let t0 = self.timings.is_some().then(Instant::now);
        let r = match self.injected.take() {
            Some(e) => Err(e),
            None => execute_node(self.plan, v, inputs, self.op_ctx(), out),
        };
        if let (Some(t0), Some(t)) = (t0, &mut self.timings) {
            t.push(NodeTiming {
                node: self.plan.id(v).clone(),
                op: self.plan.op(v).spec().id.to_string(),
                time: t0.elapsed(),
                cut_off: false,
            });
        }
        let r = self.complete(v, r, taint, out);
        self.progress.finish_node(self.plan, v);
        r
    }

    /// Make the next [`Runner::run`] fail with `e` instead of executing: how a lazy op's
    /// failure to choose an input is handled under the request's policy.
    pub(crate) fn inject(&mut self, e: EvalError) {
        self.injected = Some(e);
    }

    /// Record a node executed elsewhere (a worker thread) that took `time`.
    pub(crate) fn record_time(&mut self, v: usize, time: std::time::Duration) {
        if let Some(t) = &mut self.timings {
            t.push(NodeTiming {
                node: self.plan.id(v).clone(),
                op: self.plan.op(v).spec().id.to_string(),
                time,
                cut_off: false,
            });
        }
    }

    /// Mark node `v`'s timing (its latest) as cut off.
    pub(crate) fn mark_cut_off(&mut self, v: usize) {
        if let Some(t) = &mut self.timings {
            let id = self.plan.id(v);
            if let Some(e) = t.iter_mut().rev().find(|e| &e.node == id) {
                e.cut_off = true;
            }
        }
    }

    /// The failure report: each failed node that a requested output depends on (through the
    /// taint of the output's node), with the names of those outputs; then the timings.
    pub(crate) fn finish(
        self,
        roots: &[(usize, usize)],
        names: &[String],
        taints: &[Taint],
    ) -> (Stats, Vec<Failure>, Vec<NodeTiming>) {
        let mut failed = self.failed;
        failed.sort_by_key(|(n, _)| *n);
        failed.dedup_by_key(|(n, _)| *n);
        let mut out = vec![];
        for (n, e) in failed {
            let affected: Vec<String> = roots
                .iter()
                .zip(names)
                .filter(|((r, _), _)| {
                    taints[*r]
                        .as_ref()
                        .is_some_and(|t| t.binary_search(&n).is_ok())
                })
                .map(|(_, name)| name.clone())
                .collect();
            if !affected.is_empty() {
                out.push(Failure {
                    node: self.plan.id(n as usize).clone(),
                    op: self.plan.op(n as usize).spec().id.to_string(),
                    error: e,
                    affected,
                });
            }
        }
        (self.stats, out, self.timings.unwrap_or_default())
    }
}

impl Runner<'_> {
    /// End a request the same way for every evaluator: the failure report, the request's
    /// stats added to `total`, then the run's error, a deferred fail-fast failure found in
    /// an output, or the outputs.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn conclude(
        self,
        result: Result<(), EvalError>,
        values: Vec<(String, Value)>,
        roots: &[(usize, usize)],
        request: &Request,
        taints: &[Taint],
        total: &mut Stats,
    ) -> Result<crate::eval::Outputs, EvalError> {
        let (stats, failures, timings) = self.finish(roots, &request.outputs, taints);
        total.accumulate(&stats);
        result?;
        if let Some(e) = first_error(&values, &request.errors) {
            return Err(e);
        }
        Ok(crate::eval::Outputs {
            values,
            stats,
            failures,
            timings,
        })
    }
}

/// Under fail-fast, a requested output holding an error (a deferred failure) fails the
/// request with that error.
fn first_error(values: &[(String, Value)], policy: &ErrorPolicy) -> Option<EvalError> {
    if !matches!(policy, ErrorPolicy::FailFast) {
        return None;
    }
    values.iter().find_map(|(_, v)| v.as_error().cloned())
}
