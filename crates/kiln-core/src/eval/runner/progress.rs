//! Progress bookkeeping shared by evaluators: only active when the context has a sink.

use crate::context::{EvalContext, Progress};
use crate::plan::Plan;
use std::time::Instant;

/// Progress of one request: nodes completed of the total, reported to the context's sink.
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
