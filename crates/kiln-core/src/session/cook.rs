//! Cooking a session for an editor: [`Session::cook`] presents like
//! [`Session::present`], but under the caller's cancellation token and progress sink, with
//! failing nodes kept to themselves ([`ErrorPolicy::Propagate`]) and every executed node
//! timed, so an editor can show per node what the last edit did.

use super::{Clock, Frame, PlanPresent, PresentReport, Session, SessionError, Source};
use crate::context::{CancelToken, EvalContext, ProgressSink};
use crate::eval::{ErrorPolicy, Evaluator, Failure, NodeTiming, Request};
use std::sync::Arc;
use std::time::Instant;

/// How to cook: the clock, the token that cancels the cook and where progress goes.
#[derive(Clone, Default)]
pub struct CookOptions {
    /// The clock the frame is cooked at.
    pub clock: Clock,
    /// Cancels the cook (between nodes and inside heavy ops); a cancelled cook caches
    /// nothing partial and leaves the last frame standing.
    pub cancel: CancelToken,
    /// Receives progress reports on the cooking thread.
    pub progress: Option<Arc<dyn ProgressSink>>,
}

/// What a cook did, node by node.
#[derive(Clone, Debug, Default)]
pub struct Cooked {
    /// The counts of the present.
    pub report: PresentReport,
    /// Every executed node, in execution order, with its time and whether it cut off.
    pub timings: Vec<NodeTiming>,
    /// The nodes that failed, in graph order (their dependents hold their error).
    pub failures: Vec<Failure>,
}

impl Session {
    /// Cook every output under `options`: as [`Session::present`], except that a failing
    /// node fails only the outputs depending on it (their values are
    /// [`Value::Error`](crate::value::Value::Error)) and every executed node is timed. The
    /// cooked frame becomes current. A cancelled cook is an error and changes nothing.
    pub fn cook(&mut self, options: &CookOptions) -> Result<Cooked, SessionError> {
        let t0 = Instant::now();
        let clock = options.clock;
        let mut ctx = EvalContext::new();
        ctx.time = clock.time;
        ctx.frame = clock.frame;
        ctx.dt = clock.dt;
        ctx.seed = self.seed;
        ctx.inputs = self.inputs.clone();
        ctx.cancel = options.cancel.clone();
        ctx.progress = options.progress.clone();
        let req = Request::new(self.outputs.iter().cloned())
            .with_errors(ErrorPolicy::Propagate)
            .with_timings();
        let lowered = match &mut self.source {
            Source::Graph(_) => None,
            Source::Document { live, plan, .. } => {
                *plan = None;
                Some(live.plan(&ctx)?)
            }
        };
        let graph = match (&lowered, &self.source) {
            (Some(l), _) => &l.graph,
            (None, Source::Graph(g)) => g,
            (None, Source::Document { empty, .. }) => empty,
        };
        let out = self.eval.evaluate(graph, &req, &ctx)?;
        let mut pinned = vec![];
        if let Some(store) = &self.store {
            for name in &self.outputs {
                if let Some(k) = self.eval.output_key(graph, name)
                    && store.pin(k)
                {
                    pinned.push(k);
                }
            }
            for k in std::mem::take(&mut self.pinned) {
                store.unpin(k);
            }
        }
        self.pinned = pinned;
        self.frame = Some(Arc::new(Frame {
            number: self.presented,
            clock,
            values: out.values,
        }));
        self.presented += 1;
        let s = out.stats;
        let plan = match (&mut self.source, lowered) {
            (Source::Document { live, plan, .. }, Some(l)) => {
                let ran = out.timings.iter().map(|t| (t.node.as_str(), t.cut_off));
                let present = PlanPresent {
                    plans: live.counts(),
                    waits: l.report.waits.len(),
                    scopes: l.report.scope_counts(ran),
                };
                *plan = Some(l);
                Some(present)
            }
            _ => None,
        };
        Ok(Cooked {
            report: PresentReport {
                frame: self.presented - 1,
                planned: s.planned,
                nodes: self.eval.plan().map_or(0, |p| p.len()),
                reused: s.cache_hits,
                cooked: s.executed,
                cut_off: s.cutoffs,
                parallel: s.parallel,
                elapsed: t0.elapsed(),
                plan,
            },
            timings: out.timings,
            failures: out.failures,
        })
    }
}
