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
    /// Values of non-signal (control) inputs, by name.
    pub controls: Vec<(&'a str, Value)>,
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
            controls: vec![],
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
    pub fn control(mut self, name: &'a str, v: Value) -> Self {
        self.controls.push((name, v));
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
        let op = reg.signal(self.op).expect("signal op registered");
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

    /// Build the processor through the signal op's `build`.
    pub fn try_build(&self) -> Result<Box<dyn SignalProc>, OpError> {
        let reg = registry();
        let op = reg.signal(self.op).expect("signal op registered");
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
        for (n, _) in &self.controls {
            assert!(spec.input_index(n).is_some(), "no input {n} on {}", self.op);
        }
        // One value per input port: a signal's constant (or Empty when live), else the
        // control value given.
        let mut signals = self.resolved().into_iter();
        let controls: Vec<Value> = spec
            .inputs
            .iter()
            .map(|p| {
                if p.ty == ValueType::Signal {
                    match signals.next() {
                        Some(In::Const(c)) => Value::Float(c),
                        _ => Value::Empty,
                    }
                } else {
                    self.controls
                        .iter()
                        .find(|(n, _)| *n == p.name)
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Value::Empty)
                }
            })
            .collect();
        let call = SignalCall {
            node: self.node,
            params: &params,
            controls: &controls,
            sample_rate: self.sr,
            seed: self.seed,
        };
        op.build(&call)
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
    crate::register(&mut reg).expect("audio ops register");
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
