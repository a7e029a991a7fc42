//! The evaluation context: clock, seed, quality hints, graph input values, cancellation and
//! progress.

use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A cancellation token. Clone it and call [`CancelToken::cancel`] from any thread.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }
    /// Request cancellation.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }
    /// Whether cancellation was requested.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Clear the request so the token can be used again.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Release);
    }
}

/// One progress report.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// Nodes finished so far in this request.
    pub completed: usize,
    /// Nodes this request may execute (its cone; an upper bound for lazy evaluation, which
    /// skips untaken branches and cached results).
    pub total: usize,
    /// The node being worked on, if any.
    pub node: Option<&'a str>,
    /// Fraction done inside the current node (0..=1), when the op reports it.
    pub node_fraction: Option<f32>,
    /// Time since the request started.
    pub elapsed: Duration,
}

/// Receives progress reports. Called synchronously on the evaluating thread; keep it cheap.
pub trait ProgressSink: Send + Sync {
    /// One report.
    fn report(&self, p: &Progress<'_>);
}

impl<F: Fn(&Progress<'_>) + Send + Sync> ProgressSink for F {
    fn report(&self, p: &Progress<'_>) {
        self(p)
    }
}

/// A progress report that owns its data, as sent through a [`progress_channel`].
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressReport {
    /// Nodes finished so far in this request.
    pub completed: usize,
    /// Nodes this request may execute.
    pub total: usize,
    /// The node being worked on, if any.
    pub node: Option<String>,
    /// Fraction done inside the current node, when the op reports it.
    pub node_fraction: Option<f32>,
    /// Time since the request started.
    pub elapsed: Duration,
}

impl From<&Progress<'_>> for ProgressReport {
    fn from(p: &Progress<'_>) -> Self {
        ProgressReport {
            completed: p.completed,
            total: p.total,
            node: p.node.map(str::to_string),
            node_fraction: p.node_fraction,
            elapsed: p.elapsed,
        }
    }
}

/// A sink that sends every report down a channel, for a consumer on another thread (a UI,
/// say). Reports are dropped once the receiver is gone.
pub struct ChannelSink(std::sync::Mutex<std::sync::mpsc::Sender<ProgressReport>>);

impl ProgressSink for ChannelSink {
    fn report(&self, p: &Progress<'_>) {
        if let Ok(tx) = self.0.lock() {
            let _ = tx.send(p.into());
        }
    }
}

/// A progress sink for [`EvalContext::progress`] and the receiving end of its channel.
///
/// ```
/// use kiln_core::context::{EvalContext, progress_channel};
/// let (sink, rx) = progress_channel();
/// let ctx = EvalContext::new().with_progress(sink);
/// # drop(ctx);
/// // ... evaluate on this thread; read `rx` on another.
/// assert!(rx.try_recv().is_err());
/// ```
pub fn progress_channel() -> (
    Arc<dyn ProgressSink>,
    std::sync::mpsc::Receiver<ProgressReport>,
) {
    let (tx, rx) = std::sync::mpsc::channel();
    (Arc::new(ChannelSink(std::sync::Mutex::new(tx))), rx)
}

/// Everything a node may read besides its inputs and params.
#[derive(Clone)]
pub struct EvalContext {
    /// Time in seconds.
    pub time: f64,
    /// Frame number.
    pub frame: i64,
    /// Seconds since the previous evaluation.
    pub dt: f64,
    /// Seed for procedural randomness.
    pub seed: u64,
    /// Preview quality requested: ops may trade quality for speed.
    pub preview: bool,
    /// Target resolution hint (width, height) for level-of-detail choices.
    pub resolution: Option<(u32, u32)>,
    /// Values of named graph inputs, by name.
    pub inputs: BTreeMap<String, Value>,
    /// The stored value of each latch, by node id, during a recurrent run (see
    /// [`crate::recurrence`]).
    pub latches: BTreeMap<String, Value>,
    /// Cancellation token, checked between nodes and inside Kiln's heavy ops.
    pub cancel: CancelToken,
    /// Progress receiver.
    pub progress: Option<Arc<dyn ProgressSink>>,
    pub(crate) started: Option<Instant>,
    pub(crate) progress_state: Option<(usize, usize)>,
    pub(crate) current_node: Option<Arc<str>>,
}

impl Default for EvalContext {
    fn default() -> Self {
        EvalContext {
            time: 0.0,
            frame: 0,
            dt: 1.0 / 60.0,
            seed: 0,
            preview: false,
            resolution: None,
            inputs: BTreeMap::new(),
            latches: BTreeMap::new(),
            cancel: CancelToken::new(),
            progress: None,
            started: None,
            progress_state: None,
            current_node: None,
        }
    }
}

impl std::fmt::Debug for EvalContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalContext")
            .field("time", &self.time)
            .field("frame", &self.frame)
            .field("dt", &self.dt)
            .field("seed", &self.seed)
            .field("preview", &self.preview)
            .field("resolution", &self.resolution)
            .field("inputs", &self.inputs)
            .finish_non_exhaustive()
    }
}

impl EvalContext {
    /// A default context (time 0, frame 0, seed 0).
    pub fn new() -> Self {
        Self::default()
    }
    /// Set a named graph input.
    pub fn with_input(mut self, name: &str, v: impl Into<Value>) -> Self {
        self.inputs.insert(name.to_string(), v.into());
        self
    }
    /// Send progress reports to `sink` (a closure, or the sink of a [`progress_channel`]).
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }
    /// Whether cancellation was requested.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
    /// Report progress inside the current node (`fraction` in 0..=1). Ops doing long work
    /// call this from their loops; it does nothing without a progress sink.
    pub fn report_node_progress(&self, fraction: f32) {
        if let (Some(sink), Some((completed, total))) = (&self.progress, self.progress_state) {
            sink.report(&Progress {
                completed,
                total,
                node: self.current_node.as_deref(),
                node_fraction: Some(fraction.clamp(0.0, 1.0)),
                elapsed: self.started.map(|s| s.elapsed()).unwrap_or_default(),
            });
        }
    }
}
