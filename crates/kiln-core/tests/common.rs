//! Test ops with execution counters, shared by the core integration tests.
#![allow(dead_code)]

use kiln_core::op::Kernel;
use kiln_core::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Counts executions per node-visible label (the op id plus the `tag` param when present).
#[derive(Clone, Default)]
pub struct Counter(pub Arc<Mutex<HashMap<String, usize>>>);

impl Counter {
    pub fn bump(&self, label: &str) {
        *self.0.lock().unwrap().entry(label.to_string()).or_default() += 1;
    }
    pub fn get(&self, label: &str) -> usize {
        self.0.lock().unwrap().get(label).copied().unwrap_or(0)
    }
    pub fn total(&self) -> usize {
        self.0.lock().unwrap().values().sum()
    }
}

type Body = dyn Fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError> + Send + Sync;

pub struct TestOp {
    spec: OpSpec,
    body: Box<Body>,
    counter: Counter,
    lazy_switch: bool,
}

impl Op for TestOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let tag = call.params.first().and_then(|p| p.as_str()).unwrap_or("");
        self.counter.bump(&format!(
            "{}{}",
            self.spec.id,
            if tag.is_empty() {
                String::new()
            } else {
                format!(":{tag}")
            }
        ));
        (self.body)(call, out)
    }
    fn next_lazy(&self, call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
        if !self.lazy_switch {
            return Ok(None);
        }
        let want = if call.bool(0)? { 1 } else { 2 };
        Ok((!pulled[want]).then_some(want))
    }
}

pub struct Env {
    pub reg: Registry,
    pub count: Counter,
    pub fail: Arc<AtomicBool>,
    pub cancel_at_exec: Arc<AtomicUsize>,
}

fn tag() -> ParamSpec {
    ParamSpec::new(
        "tag",
        ValueType::String,
        Value::str(""),
        "label for counting",
    )
}

/// A registry of test ops:
/// - `num` (tag, value: float) → out
/// - `add` (tag; a, b: float) → out
/// - `sw` (tag; cond: bool, a, b: lazy float) → out (a lazy switch)
/// - `time` (tag) → out = ctx.time (reads TIME)
/// - `flaky` (tag; x) → fails while `fail` is set
/// - `boom` (tag; x) → panics
/// - `gt` (tag; a, b) → bool
/// - `canceller` (tag; x) → out = x, and cancels `ctx.cancel` when it runs
/// - `spin` (tag; x) → loops checking cancellation until cancelled (cooperative), up to a bound
pub fn env() -> Env {
    let count = Counter::default();
    let fail = Arc::new(AtomicBool::new(false));
    let cancel_at_exec = Arc::new(AtomicUsize::new(0));
    let mut reg = Registry::new();
    let mut add = |mut spec: OpSpec, lazy_switch: bool, body: Box<Body>| {
        spec.params.insert(0, tag());
        reg.register(TestOp {
            spec,
            body,
            counter: count.clone(),
            lazy_switch,
        })
        .unwrap();
    };
    let f = ValueType::Float;
    add(
        OpSpec::new("num", "constant")
            .param(ParamSpec::new("value", f, Value::Float(0.0), "v"))
            .output(OutputSpec::new("out", f, "v")),
        false,
        Box::new(|c, o| {
            o[0] = c.params[1].clone();
            Ok(())
        }),
    );
    add(
        OpSpec::new("add", "a+b")
            .input(InputSpec::required("a", f, "a"))
            .input(InputSpec::optional("b", f, Value::Float(0.0), "b"))
            .output(OutputSpec::new("out", f, "sum")),
        false,
        Box::new(|c, o| {
            o[0] = Value::Float(c.float(0)? + c.float(1)?);
            Ok(())
        }),
    );
    add(
        OpSpec::new("sw", "switch")
            .input(InputSpec::required("cond", ValueType::Bool, "c"))
            .input(InputSpec::required("a", f, "a").lazy())
            .input(InputSpec::required("b", f, "b").lazy())
            .output(OutputSpec::new("out", f, "chosen")),
        true,
        Box::new(|c, o| {
            o[0] = if c.bool(0)? {
                c.inputs[1].clone()
            } else {
                c.inputs[2].clone()
            };
            Ok(())
        }),
    );
    add(
        OpSpec::new("time", "time")
            .reads(Reads::TIME)
            .output(OutputSpec::new("out", f, "t")),
        false,
        Box::new(|c, o| {
            o[0] = Value::Float(c.ctx.time);
            Ok(())
        }),
    );
    let fl = fail.clone();
    add(
        OpSpec::new("flaky", "fails on demand")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        false,
        Box::new(move |c, o| {
            if fl.load(Ordering::SeqCst) {
                return Err(OpError::input(0, "told to fail"));
            }
            o[0] = c.inputs[0].clone();
            Ok(())
        }),
    );
    add(
        OpSpec::new("boom", "panics")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        false,
        Box::new(|_, _| panic!("boom went the op")),
    );
    add(
        OpSpec::new("gt", "a > b")
            .input(InputSpec::required("a", f, "a"))
            .input(InputSpec::required("b", f, "b"))
            .output(OutputSpec::new("out", ValueType::Bool, "a > b")),
        false,
        Box::new(|c, o| {
            o[0] = Value::Bool(c.float(0)? > c.float(1)?);
            Ok(())
        }),
    );
    add(
        OpSpec::new("canceller", "cancels the request")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        false,
        Box::new(|c, o| {
            c.ctx.cancel.cancel();
            o[0] = c.inputs[0].clone();
            Ok(())
        }),
    );
    add(
        OpSpec::new("spin", "waits for cancellation")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        false,
        Box::new(|c, o| {
            for i in 0..200_000u32 {
                c.ctx.report_node_progress(i as f32 / 200_000.0);
                c.check_cancel()?;
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            o[0] = c.inputs[0].clone();
            Ok(())
        }),
    );
    add(
        OpSpec::new("check", "fails when x exceeds the limit")
            .input(InputSpec::required("x", f, "x"))
            .param(ParamSpec::new(
                "limit",
                f,
                Value::Float(0.0),
                "largest x allowed",
            ))
            .output(OutputSpec::new("out", f, "x")),
        false,
        Box::new(|c, o| {
            let x = c.float(0)?;
            if x > c.params.get(1).and_then(Value::as_f64).unwrap_or(0.0) {
                return Err(OpError::input(0, format!("{x} is over the limit")));
            }
            o[0] = Value::Float(x);
            Ok(())
        }),
    );
    Env {
        reg,
        count,
        fail,
        cancel_at_exec,
    }
}

/// A chain num → add → add → ... of `n` nodes named n0..n{n-1}.
pub fn chain(n: usize) -> Graph {
    let mut g = Graph::new();
    g.add_node("n0", "num").unwrap();
    g.set_param("n0", "value", 1.0).unwrap();
    for i in 1..n {
        let id = format!("n{i}");
        g.add_node(id.as_str(), "add").unwrap();
        g.set_const(&id, "b", 1.0).unwrap();
        g.wire(&format!("n{}.out", i - 1), &format!("{id}.a"));
    }
    g
}

// ---- Extra ops for the incremental and evaluator tests (see `env_ext`). ----

/// An [`Env`] with extra ops and the flags they share with the test.
pub struct ExtEnv {
    pub env: Env,
    /// Set by `waiter` and `blocker` when they start executing.
    pub started: Arc<AtomicBool>,
    /// `blocker` returns once this is set.
    pub release: Arc<AtomicBool>,
    /// Set by `blocker` just before it returns.
    pub finished: Arc<AtomicBool>,
    /// The token `self_cancel` cancels (the test puts the request's token here).
    pub remote: Arc<Mutex<Option<CancelToken>>>,
    /// How many times `self_cancel` got past its own `check_cancel`.
    pub passed: Arc<AtomicUsize>,
}

impl std::ops::Deref for ExtEnv {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

/// [`env`] plus:
/// - `pick` (tag; cond: bool, a, b: float, all eager) → out = cond ? a : b
/// - `waiter` (tag, wait: bool = true; x) → sets `started`; when `wait`, loops checking
///   cancellation (cooperative) until cancelled (gives up with an error after ~60 s);
///   otherwise out = x at once
/// - `blocker` (tag; x) → sets `started`, then ignores cancellation and blocks until
///   `release` is set; sets `finished`; out = x
/// - `self_cancel` (tag; x) → cancels the `remote` token, then calls `check_cancel` and
///   bumps `passed` if it got past it; out = x
pub fn env_ext() -> ExtEnv {
    let mut env = env();
    let started = Arc::new(AtomicBool::new(false));
    let release = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let remote: Arc<Mutex<Option<CancelToken>>> = Arc::default();
    let passed = Arc::new(AtomicUsize::new(0));
    let count = env.count.clone();
    let mut add = |mut spec: OpSpec, body: Box<Body>| {
        spec.params.insert(0, tag());
        env.reg
            .register(TestOp {
                spec,
                body,
                counter: count.clone(),
                lazy_switch: false,
            })
            .unwrap();
    };
    let f = ValueType::Float;
    add(
        OpSpec::new("pick", "eager select")
            .input(InputSpec::required("cond", ValueType::Bool, "c"))
            .input(InputSpec::required("a", f, "a"))
            .input(InputSpec::required("b", f, "b"))
            .output(OutputSpec::new("out", f, "chosen")),
        Box::new(|c, o| {
            o[0] = if c.bool(0)? {
                c.inputs[1].clone()
            } else {
                c.inputs[2].clone()
            };
            Ok(())
        }),
    );
    let st = started.clone();
    add(
        OpSpec::new("waiter", "waits for cancellation when told to")
            .param(ParamSpec::new(
                "wait",
                ValueType::Bool,
                Value::Bool(true),
                "wait",
            ))
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        Box::new(move |c, o| {
            st.store(true, Ordering::SeqCst);
            if c.params.get(1).and_then(Value::as_bool).unwrap_or(true) {
                for _ in 0..600_000u32 {
                    c.check_cancel()?;
                    std::thread::sleep(std::time::Duration::from_micros(100));
                }
                return Err(OpError::new("never cancelled"));
            }
            o[0] = c.inputs[0].clone();
            Ok(())
        }),
    );
    let (st, rel, fin) = (started.clone(), release.clone(), finished.clone());
    add(
        OpSpec::new("blocker", "ignores cancellation, blocks until released")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
        Box::new(move |c, o| {
            st.store(true, Ordering::SeqCst);
            while !rel.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            o[0] = c.inputs[0].clone();
            fin.store(true, Ordering::SeqCst);
            Ok(())
        }),
    );
    let (rem, pas) = (remote.clone(), passed.clone());
    add(
        OpSpec::new(
            "self_cancel",
            "cancels the request, then checks its own token",
        )
        .input(InputSpec::required("x", f, "x"))
        .output(OutputSpec::new("out", f, "x")),
        Box::new(move |c, o| {
            if let Some(t) = rem.lock().unwrap().as_ref() {
                t.cancel();
            }
            c.check_cancel()?;
            pas.fetch_add(1, Ordering::SeqCst);
            o[0] = c.inputs[0].clone();
            Ok(())
        }),
    );
    ExtEnv {
        env,
        started,
        release,
        finished,
        remote,
        passed,
    }
}

/// An op with a scalar kernel: the compiled, eager and incremental evaluators may run the
/// kernel instead of `execute`, so differential tests cover both paths.
pub struct KernelOp {
    spec: OpSpec,
    f: fn(f64, f64) -> f64,
}

impl Op for KernelOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Float((self.f)(call.float(0)?, call.float(1)?));
        Ok(())
    }
    fn kernel(&self, inputs: &[Option<ValueType>], _params: &[Value]) -> Option<Kernel> {
        (inputs.len() == 2).then_some(Kernel::Binary(self.f))
    }
}

/// Register `kadd` (a + b) and `kmul` (a * b), float ops with kernels, into `reg`.
pub fn add_kernel_ops(reg: &mut Registry) {
    let f = ValueType::Float;
    for (id, func) in [
        ("kadd", (|a, b| a + b) as fn(f64, f64) -> f64),
        ("kmul", |a, b| a * b),
    ] {
        reg.register(KernelOp {
            spec: OpSpec::new(id, "kernel op")
                .input(InputSpec::required("a", f, "a"))
                .input(InputSpec::required("b", f, "b"))
                .output(OutputSpec::new("out", f, "result")),
            f: func,
        })
        .unwrap();
    }
}
