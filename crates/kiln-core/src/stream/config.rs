//! How a stream runs ([`StreamConfig`]) and what can go wrong ([`StreamError`]).

use crate::eval::EvalError;
use crate::graph::NodeId;
use crate::validate::Diagnostics;

/// How a stream runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamConfig {
    /// Samples per second of the graph's (outermost) clock domain.
    pub sample_rate: u32,
    /// Samples per block (at least 1).
    pub block: usize,
    /// Seed for noise sources (and the control evaluation's context).
    pub seed: u64,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            sample_rate: 48_000,
            block: 64,
            seed: 0,
        }
    }
}

impl StreamConfig {
    /// The largest block size.
    pub const MAX_BLOCK: usize = 1 << 20;
    /// The highest sample rate, in Hz (the highest a `resample` node's `from` names too).
    pub const MAX_SAMPLE_RATE: u32 = crate::signal::MAX_FROM_RATE as u32;

    /// Check the configuration before a stream is built on it.
    pub(crate) fn check(&self) -> Result<(), StreamError> {
        if self.block == 0 || self.block > Self::MAX_BLOCK {
            return Err(StreamError::Config(format!(
                "block size must be 1 to {} samples, found {}",
                Self::MAX_BLOCK,
                self.block
            )));
        }
        if self.sample_rate == 0 {
            return Err(StreamError::Config(
                "sample rate must be at least 1 Hz".into(),
            ));
        }
        if self.sample_rate > Self::MAX_SAMPLE_RATE {
            return Err(StreamError::Config(format!(
                "sample rate must be at most {} Hz, found {} Hz",
                Self::MAX_SAMPLE_RATE,
                self.sample_rate
            )));
        }
        Ok(())
    }
}

/// An error of the streaming evaluator.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The graph did not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A requested output cannot be streamed.
    #[error("output `{output}`: {reason}")]
    Output {
        /// The name requested.
        output: String,
        /// Why.
        reason: String,
    },
    /// A node cannot be built or run.
    #[error("node `{node}` ({op}){}: {message}", port.as_ref().map(|p| format!(", {p}")).unwrap_or_default())]
    Node {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The port or param involved.
        port: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// Evaluating the control values that feed the signal ops failed.
    #[error("control values: {0}")]
    Control(EvalError),
    /// A graph input given to [`set_input`](crate::stream::StreamingEvaluator::set_input)
    /// could not take effect; the stream goes on with the values it had.
    #[error("graph input `{input}`: {reason}")]
    Input {
        /// The input's name.
        input: String,
        /// Why.
        reason: String,
    },
    /// The render was cancelled between two blocks; the stream may continue from there.
    #[error("cancelled after {position} samples")]
    Cancelled {
        /// Samples of the outer domain produced before stopping.
        position: u64,
    },
    /// An earlier failure stopped the stream.
    #[error("the stream stopped after a failure at node `{node}`; reset it to run again")]
    Stopped {
        /// The node that failed.
        node: NodeId,
    },
    /// A snapshot does not belong to this stream.
    #[error("snapshot does not fit this stream: {0}")]
    Snapshot(String),
    /// The configuration is unusable.
    #[error("stream configuration: {0}")]
    Config(String),
}
