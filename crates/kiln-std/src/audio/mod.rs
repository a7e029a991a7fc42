//! Audio-rate nodes: oscillators, noise, gain and mixing, filters, a delay line, an envelope
//! and a sample sequence.
//!
//! Every node here is a *signal op* (see [`kiln_core::signal`]): its output `out` has type
//! [`ValueType::Signal`], it runs only in the streaming evaluator (its ordinary `execute`
//! returns [`streaming_only`]), and [`Op::signal`] builds the per-sample processor that
//! evaluator owns. Frequencies are in Hz, times in seconds.
//!
//! | op | inputs | params |
//! |----|--------|--------|
//! | `osc.sine`, `osc.saw` | `freq` (440), `amp` (1) | `phase` (0) |
//! | `osc.square` | `freq` (440), `amp` (1) | `phase` (0), `duty` (0.5) |
//! | `osc.noise` | `amp` (1) | |
//! | `gain` | `in`, `gain` (1) | |
//! | `mix` | `a` .. `h` (0) | |
//! | `filter.onepole` | `in` | `cutoff` (1000), `mode` (`lowpass`) |
//! | `filter.biquad` | `in` | `mode` (`lowpass`), `cutoff` (1000), `q` (0.7071) |
//! | `delay` | `in` (feedback) | `time` (0.1), `samples` (0), `feedback` (0) |
//! | `env.adsr` | `gate` (1) | `attack` (0.01), `decay` (0.1), `sustain` (0.7), `release` (0.2) |
//! | `signal.sequence` | | `values` (`[]`), `loop` (false) |
//!
//! Every processor honours the block-size contract of [`SignalProc`]: processing `n` samples
//! in one call gives the same bits as `n` calls of one sample each. A constant arriving at a
//! signal input is read once per block (its slice holds that constant throughout).

mod delay;
mod env;
mod filters;
mod mix;
mod osc;
mod sequence;

pub use delay::{DelayLine, MAX_DELAY_SECONDS};
pub use env::{Adsr, AdsrParams};
pub use filters::{Biquad, BiquadMode, OnePole, OnePoleMode};
pub use mix::{Gain, MIX_INPUTS, Mix};
pub use osc::{
    Noise, PhaseOsc, PolyBlepSaw, PolyBlepSquare, SawWave, SineOsc, SineWave, SquareWave,
    phase_increment, phase_start, sine,
};
pub use sequence::Sequence;

use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, streaming_only};
use kiln_core::value::{Value, ValueType};

/// A value below the normal range of `f64` (a subnormal, or a zero of either sign) as `+0.0`,
/// anything else unchanged. Filters and delay lines store their state through it, so a
/// decaying loop or filter tail reaches exact zero instead of crawling through subnormal
/// numbers, which are many times slower to compute with on common CPUs. Applied per sample,
/// it keeps the block-size contract.
#[inline(always)]
pub(crate) fn flush_subnormal(x: f64) -> f64 {
    if x.abs() < f64::MIN_POSITIVE { 0.0 } else { x }
}

/// Builds a signal op's processor from what the streaming evaluator knows of the node.
pub(crate) type BuildFn = fn(&SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError>;

/// A signal op made of a spec and a processor builder.
pub(crate) struct SignalOp {
    spec: OpSpec,
    build: BuildFn,
}

impl SignalOp {
    pub(crate) fn new(spec: OpSpec, build: BuildFn) -> Self {
        SignalOp { spec, build }
    }
}

impl Op for SignalOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, _call: &OpCall<'_>, _out: &mut [Value]) -> Result<(), OpError> {
        Err(streaming_only(&self.spec.id))
    }
    fn signal(&self, call: &SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError> {
        (self.build)(call)
    }
}

/// Register every audio op into `reg`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    osc::register(reg)?;
    mix::register(reg)?;
    filters::register(reg)?;
    delay::register(reg)?;
    env::register(reg)?;
    sequence::register(reg)?;
    Ok(())
}

/// The `out` port every audio op has.
pub(crate) fn signal_out(doc: &'static str) -> OutputSpec {
    OutputSpec::new("out", ValueType::Signal, doc)
}

/// An optional signal input with a constant default.
pub(crate) fn signal_in(name: &'static str, default: f64, doc: &'static str) -> InputSpec {
    InputSpec::optional(name, ValueType::Signal, Value::Float(default), doc)
}

/// A float param with a default.
pub(crate) fn float_param(name: &'static str, default: f64, doc: &'static str) -> ParamSpec {
    ParamSpec::new(name, ValueType::Float, Value::Float(default), doc)
}

/// The node's sample rate, or an error when it is not a positive finite number.
pub(crate) fn sample_rate(call: &SignalCall<'_>) -> Result<f64, OpError> {
    let sr = call.sample_rate;
    if sr.is_finite() && sr > 0.0 {
        Ok(sr)
    } else {
        Err(OpError::new(format!(
            "the sample rate must be a positive number of Hz, found {sr}"
        )))
    }
}

/// A float param that must be finite, or an error naming it.
pub(crate) fn finite_param(call: &SignalCall<'_>, i: usize, name: &str) -> Result<f64, OpError> {
    let v = call
        .params
        .get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(i, format!("`{name}` must be a number")))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(OpError::param(
            i,
            format!("`{name}` must be a finite number, found {v}"),
        ))
    }
}

/// A finite float param that must be at least zero, or an error naming it.
pub(crate) fn non_negative_param(
    call: &SignalCall<'_>,
    i: usize,
    name: &str,
) -> Result<f64, OpError> {
    let v = finite_param(call, i, name)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(OpError::param(
            i,
            format!("`{name}` must not be negative, found {v}"),
        ))
    }
}

/// A string param, or an error naming it.
pub(crate) fn str_param<'a>(
    call: &'a SignalCall<'_>,
    i: usize,
    name: &str,
) -> Result<&'a str, OpError> {
    call.params
        .get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| OpError::param(i, format!("`{name}` must be a string")))
}

/// A constant given to signal input `i` must be finite: an error naming the input otherwise.
pub(crate) fn check_constant(call: &SignalCall<'_>, i: usize, name: &str) -> Result<(), OpError> {
    match call.control_float(i) {
        Some(v) if !v.is_finite() => Err(OpError::input(
            i,
            format!("`{name}` must be a finite number, found {v}"),
        )),
        _ => Ok(()),
    }
}

/// Signal input `i`, or an empty slice when the evaluator passed fewer inputs (a broken
/// contract must not panic: the output is then left partly unwritten).
#[inline]
pub(crate) fn input<'a>(inputs: &[&'a [f64]], i: usize) -> &'a [f64] {
    inputs.get(i).copied().unwrap_or(&[])
}

/// The value of a constant signal input for this block: its first sample (the slice holds
/// the constant throughout), or `default` when the slice is empty.
#[inline]
pub(crate) fn constant(inputs: &[&[f64]], i: usize, default: f64) -> f64 {
    input(inputs, i).first().copied().unwrap_or(default)
}

/// Multiply `out` by signal input `amp` (live, or a constant read once; a constant 1 changes
/// no bits and is skipped).
#[inline]
pub(crate) fn apply_amp(out: &mut [f64], amp: &[f64], live: bool) {
    if live {
        for (o, &a) in out.iter_mut().zip(amp) {
            *o *= a;
        }
    } else {
        let a = amp.first().copied().unwrap_or(1.0);
        if a != 1.0 {
            for o in out.iter_mut() {
                *o *= a;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod testkit {
    //! Drive a signal op's processor directly, without the streaming evaluator.

    use kiln_core::op::{OpError, PortIndex};
    use kiln_core::registry::Registry;
    use kiln_core::signal::{SignalCall, SignalProc};
    use kiln_core::value::{Value, ValueType};

    /// The sample rate the tests use.
    pub const SR: f64 = 48_000.0;

    /// An input given to a test processor.
    #[derive(Clone, Debug)]
    pub enum In {
        /// A constant signal.
        Const(f64),
        /// A live signal (repeated if shorter than the run).
        Live(Vec<f64>),
    }

    /// What to build: op id, params by name, inputs by name (the rest take their defaults).
    pub struct Setup<'a> {
        pub op: &'a str,
        pub params: Vec<(&'a str, Value)>,
        pub inputs: Vec<(&'a str, In)>,
        pub node: &'a str,
        pub seed: u64,
        pub sr: f64,
    }

    impl<'a> Setup<'a> {
        pub fn new(op: &'a str) -> Self {
            Setup {
                op,
                params: vec![],
                inputs: vec![],
                node: "n",
                seed: 0,
                sr: SR,
            }
        }
        pub fn param(mut self, name: &'a str, v: impl Into<Value>) -> Self {
            self.params.push((name, v.into()));
            self
        }
        pub fn live(mut self, name: &'a str, v: Vec<f64>) -> Self {
            self.inputs.push((name, In::Live(v)));
            self
        }
        pub fn constant(mut self, name: &'a str, v: f64) -> Self {
            self.inputs.push((name, In::Const(v)));
            self
        }
        pub fn node(mut self, node: &'a str) -> Self {
            self.node = node;
            self
        }
        pub fn seed(mut self, seed: u64) -> Self {
            self.seed = seed;
            self
        }
        pub fn sr(mut self, sr: f64) -> Self {
            self.sr = sr;
            self
        }

        /// The resolved inputs, one per signal input port.
        fn resolved(&self) -> Vec<In> {
            let reg = registry();
            let op = reg.get(self.op).expect("op registered");
            op.spec()
                .inputs
                .iter()
                .filter(|p| p.ty == ValueType::Signal)
                .map(|p| match self.inputs.iter().find(|(n, _)| *n == p.name) {
                    Some((_, i)) => i.clone(),
                    None => In::Const(p.default.as_ref().and_then(Value::as_f64).unwrap_or(0.0)),
                })
                .collect()
        }

        /// Build the processor through the op's `signal`.
        pub fn try_build(&self) -> Result<Box<dyn SignalProc>, OpError> {
            let reg = registry();
            let op = reg.get(self.op).expect("op registered");
            let spec = op.spec();
            let params: Vec<Value> = spec
                .params
                .iter()
                .map(|p| {
                    self.params
                        .iter()
                        .find(|(n, _)| *n == p.name)
                        .map(|(_, v)| v.clone())
                        .or_else(|| p.default.clone())
                        .unwrap_or(Value::Empty)
                })
                .collect();
            for (n, _) in &self.params {
                assert!(spec.param_index(n).is_some(), "no param {n} on {}", self.op);
            }
            for (n, _) in &self.inputs {
                assert!(spec.input_index(n).is_some(), "no input {n} on {}", self.op);
            }
            let controls: Vec<Value> = self
                .resolved()
                .iter()
                .map(|i| match i {
                    In::Const(c) => Value::Float(*c),
                    In::Live(_) => Value::Empty,
                })
                .collect();
            let call = SignalCall {
                node: self.node,
                params: &params,
                controls: &controls,
                sample_rate: self.sr,
                seed: self.seed,
            };
            op.signal(&call)
        }

        pub fn build(&self) -> Box<dyn SignalProc> {
            match self.try_build() {
                Ok(p) => p,
                Err(e) => panic!("building {} failed: {e:?}", self.op),
            }
        }

        /// The error building the processor must give.
        pub fn refused(&self) -> OpError {
            match self.try_build() {
                Ok(_) => panic!(
                    "building {} with {:?} was not refused",
                    self.op, self.params
                ),
                Err(e) => e,
            }
        }

        /// The error building the processor must give, which must name `port`.
        pub fn refused_at(&self, port: PortIndex) -> OpError {
            let e = self.refused();
            assert_eq!(e.port, Some(port), "{}: {}", self.op, e.message);
            e
        }

        /// The input buffers for samples `start..start + n`.
        pub fn buffers(&self, start: usize, n: usize) -> Vec<Vec<f64>> {
            self.resolved()
                .iter()
                .map(|i| match i {
                    In::Const(c) => vec![*c; n],
                    In::Live(v) => (start..start + n)
                        .map(|k| if v.is_empty() { 0.0 } else { v[k % v.len()] })
                        .collect(),
                })
                .collect()
        }
    }

    pub fn registry() -> Registry {
        let mut reg = Registry::new();
        super::register(&mut reg).expect("audio ops register");
        reg
    }

    /// Run `p` from sample `start` for `n` samples in chunks of `chunk`.
    pub fn run_from(
        setup: &Setup<'_>,
        p: &mut dyn SignalProc,
        start: usize,
        n: usize,
        chunk: usize,
    ) -> Vec<f64> {
        let bufs = setup.buffers(start, n);
        let mut out = vec![f64::NAN; n];
        let mut at = 0;
        while at < n {
            let end = (at + chunk).min(n);
            let ins: Vec<&[f64]> = bufs.iter().map(|b| &b[at..end]).collect();
            p.process(&ins, &mut out[at..end]);
            at = end;
        }
        out
    }

    /// Run a fresh processor for `n` samples in chunks of `chunk`.
    pub fn run(setup: &Setup<'_>, n: usize, chunk: usize) -> Vec<f64> {
        let mut p = setup.build();
        run_from(setup, p.as_mut(), 0, n, chunk)
    }

    pub fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The processor contract: chunking, reset and save/load give the same bits.
    pub fn check_contract(setup: &Setup<'_>, n: usize) -> Vec<f64> {
        let whole = run(setup, n, n);
        for chunk in [1, 7, 64] {
            assert_eq!(
                bits(&run(setup, n, chunk)),
                bits(&whole),
                "{}: chunks of {chunk} differ from one call",
                setup.op
            );
        }
        // reset reproduces the first run.
        let mut p = setup.build();
        let first = run_from(setup, p.as_mut(), 0, n, 64);
        p.reset();
        let again = run_from(setup, p.as_mut(), 0, n, 13);
        assert_eq!(bits(&first), bits(&again), "{}: reset", setup.op);
        // save mid-stream, continue in another processor after load.
        let half = n / 2 + 3;
        let mut p = setup.build();
        let head = run_from(setup, p.as_mut(), 0, half, 32);
        let mut words = vec![];
        p.save(&mut words);
        let mut q = setup.build();
        // Disturb q first so load has something to overwrite.
        run_from(setup, q.as_mut(), 0, 17, 5);
        q.load(&words).expect("load accepts its own save");
        let tail = run_from(setup, q.as_mut(), half, n - half, 9);
        let mut joined = head;
        joined.extend(tail);
        assert_eq!(bits(&joined), bits(&whole), "{}: save/load", setup.op);
        // A state of the wrong shape is refused, not a panic.
        let mut bad = words.clone();
        bad.push(0);
        bad.push(0);
        assert!(
            q.load(&bad).is_err(),
            "{}: load accepted extra words",
            setup.op
        );
        whole
    }
}
