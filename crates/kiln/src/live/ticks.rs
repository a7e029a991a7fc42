//! A live graph with latches: ticked by a recurrent driver kept while the document stays (a
//! later tick goes on from the current one, an earlier one replays from the nearest kept
//! state), restarted when the document changes.

use kiln_core::context::EvalContext;
use kiln_core::eval::{ErrorPolicy, IncrementalEvaluator, Request};
use kiln_core::graph::Graph;
use kiln_core::key::Key;
use kiln_core::recurrence::{Recurrent, SeekMode};
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_doc::document::{DocDigest, Document};
use kiln_lower::lower::Lowerer;
use kiln_lower::session::{CookOptions, Cooked, PresentReport, SessionError};
use std::time::Instant;

/// A kept state every this many ticks, so seeking back replays little.
const CHECKPOINT_EVERY: u64 = 16;

/// The flat graph of a latch document and the driver ticking it.
pub(crate) struct Ticker {
    digest: Key,
    graph: Graph,
    driver: Recurrent<IncrementalEvaluator>,
}

/// Cook tick `tick` (at `fps`) of `doc`'s `outputs`: the document planned once per digest by
/// `lowerer`, the driver in `ticker` kept while the digest stays.
pub(crate) fn cook_tick(
    (doc, outputs): (&Document, &[String]),
    (tick, fps): (u64, f64),
    (registry, seed): (&Registry, u64),
    (ticker, lowerer): (&mut Option<Ticker>, &mut Lowerer),
    options: &CookOptions,
) -> Result<(Cooked, Vec<(String, Value)>), SessionError> {
    let t0 = Instant::now();
    let mut ctx = EvalContext::new();
    ctx.cancel = options.cancel.clone();
    ctx.progress = options.progress.clone();
    ctx.dt = 1.0 / fps;
    ctx.seed = seed;
    let digest = DocDigest::whole(doc).key();
    let planned = ticker.as_ref().is_none_or(|t| t.digest != digest);
    if planned {
        let lowered = lowerer.lower(doc, digest, &ctx)?;
        let driver = Recurrent::new(
            IncrementalEvaluator::new(registry.clone()),
            registry.clone(),
        )
        .with_checkpoints(CHECKPOINT_EVERY);
        *ticker = Some(Ticker {
            digest,
            graph: lowered.graph.clone(),
            driver,
        });
    }
    let Some(t) = ticker.as_mut() else {
        return Err(SessionError::NotADocument("no ticker"));
    };
    let req = Request::new(outputs.iter().cloned())
        .with_errors(ErrorPolicy::Propagate)
        .with_timings();
    let out = t
        .driver
        .seek(&t.graph, &req, &ctx, tick, SeekMode::Resimulate)?;
    let st = out.stats;
    let report = PresentReport {
        frame: tick,
        planned,
        nodes: t.graph.len(),
        reused: st.cache_hits,
        cooked: st.executed,
        cut_off: st.cutoffs,
        parallel: st.parallel,
        elapsed: t0.elapsed(),
        plan: None,
    };
    Ok((
        Cooked {
            report,
            timings: out.timings,
            failures: out.failures,
        },
        out.values,
    ))
}
