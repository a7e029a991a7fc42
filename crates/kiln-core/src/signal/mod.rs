//! Audio-rate signals: what a signal op gives the streaming evaluator.
//!
//! A *signal op* is an op with a [`ValueType::Signal`] output. It implements [`SignalOp`]: a
//! declaration ([`OpSpec`]) and [`SignalOp::build`], which builds a [`SignalProc`]: a
//! per-sample processor whose state (oscillator phase, filter memory, delay line) belongs to
//! the [`StreamingEvaluator`](crate::stream::StreamingEvaluator) that built it, so it can be
//! reset and saved without touching the graph. It is registered with
//! [`Registry::register_signal`](crate::registry::Registry::register_signal), which also
//! registers its [`Op`] face for validation and planning, derived from the signal op: signal
//! ops do not run in the tick evaluators, and that face's `execute` says so
//! ([`streaming_only`]), naming the node.
//!
//! The contract that makes a stream's output identical for every block size: a processor
//! treats its samples one after another, so `process` over `n` samples gives the same bits as
//! `n` calls over one sample each.
//!
//! Clock domains: a graph runs at one sample rate, except upstream of a `resample` node
//! ([`RESAMPLE_OP`]), whose input runs at the rate the node names (`from`). The core keeps
//! that rule (validation and the streaming evaluator's domains); the conversion itself is a
//! [`RateConverter`] the node's processor offers (`kiln-audio` defines the resampler, linear
//! or windowed-sinc).

/// The op id of the node that joins a signal from another clock domain.
pub const RESAMPLE_OP: &str = "resample";

/// The highest rate a `resample` node's `from` may name, in Hz.
pub const MAX_FROM_RATE: i64 = 10_000_000;

/// What the streaming evaluator asks of the processor of a [`RESAMPLE_OP`] node: the
/// upstream domain's rate, how far that domain must run, and its samples handed over.
pub trait RateConverter {
    /// The source (upstream) rate in Hz.
    fn source_rate(&self) -> u64;
    /// Source samples needed to produce the first `out_end` output samples.
    fn need(&self, out_end: u64) -> u64;
    /// Hand over the next source samples.
    fn push(&mut self, samples: &[f64]);
}

use crate::op::{Op, OpCall, OpError, OpSpec};
use crate::value::Value;
use std::sync::Arc;

/// An op that runs at audio rate: its declaration and the builder of its processor.
///
/// ```
/// use kiln_core::op::{OpError, OpSpec, OutputSpec};
/// use kiln_core::registry::Registry;
/// use kiln_core::signal::{SignalCall, SignalOp, SignalProc};
/// use kiln_core::value::ValueType;
///
/// /// A constant 1, as a signal.
/// struct One(OpSpec);
/// struct Ones;
/// impl SignalProc for Ones {
///     fn process(&mut self, _inputs: &[&[f64]], out: &mut [f64]) {
///         out.fill(1.0); // stateless: no reset, save or load to write
///     }
/// }
/// impl SignalOp for One {
///     fn spec(&self) -> &OpSpec { &self.0 }
///     fn build(&self, _call: &SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError> {
///         Ok(Box::new(Ones))
///     }
/// }
/// let mut reg = Registry::new();
/// reg.register_signal(One(
///     OpSpec::new("one", "A constant 1.").output(OutputSpec::new("out", ValueType::Signal, "1")),
/// )).unwrap();
/// assert!(reg.get("one").is_some() && reg.signal("one").is_some());
/// ```
pub trait SignalOp: Send + Sync + 'static {
    /// The op's declaration; at least one output is a [`ValueType::Signal`](crate::value::ValueType::Signal).
    fn spec(&self) -> &OpSpec;

    /// Build the processor the streaming evaluator runs and owns for one node.
    fn build(&self, call: &SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError>;
}

/// The [`Op`] face of a signal op, registered beside it by
/// [`Registry::register_signal`](crate::registry::Registry::register_signal): validation and
/// planning read its spec, and a tick evaluator that runs it gets [`streaming_only`].
pub(crate) struct SignalOpFace(pub(crate) Arc<dyn SignalOp>);

impl Op for SignalOpFace {
    fn spec(&self) -> &OpSpec {
        self.0.spec()
    }
    fn execute(&self, _call: &OpCall<'_>, _out: &mut [Value]) -> Result<(), OpError> {
        Err(streaming_only(&self.0.spec().id))
    }
}

/// What a signal op sees when the streaming evaluator builds its processor.
pub struct SignalCall<'a> {
    /// The node's id.
    pub node: &'a str,
    /// Param values, one per param (defaults filled in).
    pub params: &'a [Value],
    /// One value per input port: the control value of a non-signal input, the constant of a
    /// signal input given a number (a constant signal), or [`Value::Empty`] for a signal input
    /// wired from another signal op.
    pub controls: &'a [Value],
    /// Samples per second of the node's clock domain.
    pub sample_rate: f64,
    /// The run's seed (from the evaluation context), for noise sources.
    pub seed: u64,
}

impl SignalCall<'_> {
    /// The control value of input `i` as a float: `Some` for a control input or a constant
    /// signal, `None` for a signal wired from another signal op.
    pub fn control_float(&self, i: usize) -> Option<f64> {
        self.controls.get(i).and_then(Value::as_f64)
    }
    /// Whether input `i` is a signal wired from another signal op (not a constant).
    pub fn is_live(&self, i: usize) -> bool {
        matches!(self.controls.get(i), Some(Value::Empty) | None)
    }
    /// Check the params and constant inputs against the rules of `spec` at this node's
    /// sample rate (see [`crate::op::rule`]): the first violation, naming its port.
    pub fn check_rules(&self, spec: &OpSpec) -> Result<(), OpError> {
        let env = crate::op::RuleEnv::at_rate(self.sample_rate);
        crate::op::rule::check_params(spec, self.params, &env)?;
        crate::op::rule::check_inputs(spec, self.controls, &env)
    }
    /// A seed for this node: the run's seed mixed with the node id, so two noise nodes differ
    /// and the same node gives the same noise in every run.
    pub fn node_seed(&self) -> u64 {
        let mut h = crate::key::KeyHasher::new();
        h.u64(self.seed);
        h.str(self.node);
        h.finish_key().0 as u64
    }
}

/// A per-sample processor owned by the streaming evaluator (see the module docs).
///
/// `inputs` always holds one slice per *signal* input port of the op, in port order (a
/// constant signal arrives as a slice of that constant), each as long as `out`.
pub trait SignalProc: Send {
    /// Compute `out.len()` samples from as many samples of each signal input.
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]);

    /// For ops with [`feedback`](crate::op::InputSpec::feedback) inputs: the least number of
    /// samples (at least 1) between a sample arriving at a feedback input and its first effect
    /// on the output. A loop through this node whose latency is at least the block size runs
    /// block by block; a shorter one runs sample by sample. The default, 0, means no feedback
    /// input.
    fn latency(&self) -> usize {
        0
    }

    /// For ops with latency: produce the next `out.len()` (at most [`latency`](Self::latency))
    /// samples from state alone, before their inputs are known. Followed by
    /// [`absorb`](Self::absorb) of the same number of input samples.
    fn emit(&mut self, out: &mut [f64]) {
        out.fill(0.0);
    }

    /// For ops with latency: take in the input samples of the samples last emitted.
    fn absorb(&mut self, _inputs: &[&[f64]]) {}

    /// Return to the state the processor was built with. The default, for a stateless
    /// processor, does nothing.
    fn reset(&mut self) {}

    /// Append the state as raw words (floats as their bits). The default, for a stateless
    /// processor, appends nothing.
    fn save(&self, _words: &mut Vec<u64>) {}

    /// Restore a state written by [`save`](Self::save), or say why it does not fit. The
    /// default, for a stateless processor, accepts only no words.
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        Words::exact(words, 0).map(|_| ())
    }

    /// The rate converter behind a [`RESAMPLE_OP`] node: the streaming evaluator feeds it
    /// from another clock domain. Other processors return `None`.
    fn resampler(&mut self) -> Option<&mut dyn RateConverter> {
        None
    }
}

/// The error the [`Op`] face of a signal op returns from `execute`: signal ops run only in
/// the streaming evaluator.
pub fn streaming_only(op: &str) -> OpError {
    OpError::new(format!(
        "`{op}` makes an audio-rate signal, which only the streaming evaluator runs \
         (`StreamingEvaluator`, or `kiln render --seconds`)"
    ))
}

/// Read words saved by [`SignalProc::save`]: checks the count and hands them out in order.
pub struct Words<'a> {
    words: &'a [u64],
}

impl<'a> Words<'a> {
    /// Read `words`, which must hold exactly `expected` words.
    pub fn exact(words: &'a [u64], expected: usize) -> Result<Self, String> {
        if words.len() != expected {
            return Err(format!(
                "expected {expected} state words, found {}",
                words.len()
            ));
        }
        Ok(Words { words })
    }
    /// Read `words`, which must hold at least `least` words.
    pub fn at_least(words: &'a [u64], least: usize) -> Result<Self, String> {
        if words.len() < least {
            return Err(format!(
                "expected at least {least} state words, found {}",
                words.len()
            ));
        }
        Ok(Words { words })
    }
    /// The next word.
    pub fn u64(&mut self) -> u64 {
        let (first, rest) = self
            .words
            .split_first()
            .map_or((0, &[][..]), |(a, b)| (*a, b));
        self.words = rest;
        first
    }
    /// The next word as a float.
    pub fn f64(&mut self) -> f64 {
        f64::from_bits(self.u64())
    }
    /// The remaining words.
    pub fn rest(&self) -> &'a [u64] {
        self.words
    }
}
