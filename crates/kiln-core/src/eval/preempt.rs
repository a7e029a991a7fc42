//! Preemptive cancellation, one way for every evaluator: the work runs on a worker thread
//! the caller can abandon. The worker gets its own copy of what it needs and hands results
//! back only if the caller is still waiting; an abandoned worker's results are dropped, so
//! nothing it computed is kept, and its progress reports stop at the moment of abandonment.

use super::{CancelMode, EvalError, Request};
use crate::context::EvalContext;
use std::sync::Arc;
use std::time::Duration;

/// Run `work` on a worker that can be abandoned: it gets the request (its cancellation made
/// cooperative, so the worker still stops early) and a context whose progress reports pass a
/// gate that closes when the caller stops waiting.
pub(crate) fn preempt<T: Send + 'static>(
    request: &Request,
    ctx: &EvalContext,
    work: impl FnOnce(Request, EvalContext) -> T + Send + 'static,
) -> Result<T, EvalError> {
    crate::eval::host::check_start(ctx)?;
    let mut request = request.clone();
    request.cancel = CancelMode::Cooperative;
    let mut wctx = ctx.clone();
    let gate = wctx.progress.take().map(|inner| Arc::new(Gate::new(inner)));
    if let Some(g) = &gate {
        wctx.progress = Some(g.clone());
    }
    let _closer = GateCloser(gate);
    run_detached(&ctx.cancel, move || work(request, wctx))
}

/// Run `work` on a worker thread and wait for it, returning [`EvalError::Cancelled`] as soon
/// as `cancel` fires (the worker is abandoned; whatever it produces is dropped).
fn run_detached<T: Send + 'static>(
    cancel: &crate::context::CancelToken,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, EvalError> {
    use std::sync::mpsc;
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("kiln-preemptive".into())
        .spawn(move || {
            let r = work();
            let _ = tx.send(r);
        })
        .map_err(|e| EvalError::Worker(e.to_string()))?;
    loop {
        if cancel.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        match rx.recv_timeout(Duration::from_millis(1)) {
            Ok(r) => return Ok(r),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(EvalError::Worker("the worker thread died".into()));
            }
        }
    }
}

/// A progress sink that forwards reports until it is closed.
struct Gate {
    inner: Arc<dyn crate::context::ProgressSink>,
    open: std::sync::Mutex<bool>,
}

impl Gate {
    fn new(inner: Arc<dyn crate::context::ProgressSink>) -> Self {
        Gate {
            inner,
            open: std::sync::Mutex::new(true),
        }
    }
}

impl crate::context::ProgressSink for Gate {
    fn report(&self, p: &crate::context::Progress<'_>) {
        if let Ok(open) = self.open.lock()
            && *open
        {
            self.inner.report(p);
        }
    }
}

/// Closes the gate when the waiting caller leaves (returned or cancelled).
struct GateCloser(Option<Arc<Gate>>);

impl Drop for GateCloser {
    fn drop(&mut self) {
        if let Some(g) = &self.0
            && let Ok(mut open) = g.open.lock()
        {
            *open = false;
        }
    }
}
