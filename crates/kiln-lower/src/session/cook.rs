//! Cooking a session for an editor: [`Session::cook`] presents like
//! [`Session::present`], but under the caller's cancellation token and progress sink, with
//! failing nodes kept to themselves ([`ErrorPolicy::Propagate`]) and every executed node
//! timed, so an editor can show per node what the last edit did.

use super::{Clock, Frame, PresentReport, Session, SessionError, Source, cooked_graph};
use kiln_core::context::{CancelToken, EvalContext, ProgressSink};
use kiln_core::eval::{ErrorPolicy, Evaluator, Failure, NodeTiming, Request};
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
    /// [`Value::Error`](kiln_core::value::Value::Error)) and every executed node is timed. The
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
                Some(live.lower(&ctx)?)
            }
        };
        let graph = cooked_graph(&self.source, &lowered);
        let out = self.eval.evaluate(graph, &req, &ctx)?;
        let frame = Frame {
            number: self.presented,
            clock,
            values: out.values,
        };
        let report = self.settle(out.stats, &out.timings, frame, lowered, t0);
        Ok(Cooked {
            report,
            timings: out.timings,
            failures: out.failures,
        })
    }
}
