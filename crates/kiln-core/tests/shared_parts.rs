//! Behaviour every evaluator shares because it comes from one shared part: the lazy-input
//! protocol (any number of inputs) and the reading of output references.

use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator};
use kiln_core::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const WIDE: usize = 70;

/// `wide`: input 0 `k` (eager), inputs 1..70 lazy; pulls input `k`, then `k + 1`, and sums
/// the two (unpulled inputs arrive empty).
struct Wide(OpSpec);
impl Op for Wide {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn next_lazy(&self, call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
        let k = call.float(0)? as usize;
        Ok([k, k + 1].into_iter().find(|&i| !pulled[i]))
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let k = call.float(0)? as usize;
        for (i, v) in call.inputs.iter().enumerate().skip(1) {
            let pulled = i == k || i == k + 1;
            if pulled != !matches!(v, Value::Empty) {
                return Err(OpError::new(format!("input {i} pulled={pulled} got {v:?}")));
            }
        }
        out[0] = Value::Float(call.float(k)? + call.float(k + 1)?);
        Ok(())
    }
}

/// `leaf`: a constant that counts its executions.
struct Leaf(OpSpec, Arc<AtomicUsize>);
impl Op for Leaf {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        out[0] = call.params[0].clone();
        Ok(())
    }
}

/// `pair`: outputs named as given, each `value * (index + 1)`.
struct Pair(OpSpec);
impl Op for Pair {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let x = call.params[0].as_f64().unwrap_or(0.0);
        for (i, o) in out.iter_mut().enumerate() {
            *o = Value::Float(x * (i + 1) as f64);
        }
        Ok(())
    }
}

/// `pass`: its input.
struct Pass(OpSpec);
impl Op for Pass {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = call.inputs[0].clone();
        Ok(())
    }
}

fn registry(leaf_runs: Arc<AtomicUsize>) -> Registry {
    let f = ValueType::Float;
    let mut reg = Registry::new();
    let mut wide = OpSpec::new("wide", "picks two of many lazy inputs").input(InputSpec::required(
        "k",
        f,
        "first input to pull",
    ));
    for i in 1..WIDE {
        wide = wide.input(
            InputSpec::optional(
                Box::leak(format!("x{i}").into_boxed_str()),
                f,
                Value::Float(0.0),
                "x",
            )
            .lazy(),
        );
    }
    reg.register(Wide(wide.output(OutputSpec::new("out", f, "sum"))))
        .unwrap();
    reg.register(Leaf(
        OpSpec::new("leaf", "constant")
            .param(ParamSpec::new("value", f, Value::Float(0.0), "v"))
            .output(OutputSpec::new("out", f, "v")),
        leaf_runs,
    ))
    .unwrap();
    for (id, names) in [("ab", ["first", "second"]), ("vo", ["value", "out"])] {
        reg.register(Pair(
            OpSpec::new(id, "two outputs")
                .param(ParamSpec::new("value", f, Value::Float(1.0), "v"))
                .output(OutputSpec::new(names[0], f, "x"))
                .output(OutputSpec::new(names[1], f, "2x")),
        ))
        .unwrap();
    }
    reg.register(Pass(
        OpSpec::new("pass", "passes its input on")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x")),
    ))
    .unwrap();
    reg
}

fn evaluators(reg: &Registry) -> Vec<(&'static str, Box<dyn Evaluator>)> {
    vec![
        ("lazy", Box::new(LazyEvaluator::new(reg.clone()))),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg.clone()).with_background(false)),
        ),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone())),
        ),
    ]
}

#[test]
fn an_op_with_more_than_64_inputs_pulls_lazy_inputs_past_the_64th() {
    let runs = Arc::new(AtomicUsize::new(0));
    let reg = registry(runs.clone());
    let mut g = Graph::new();
    g.add_node("w", "wide").unwrap();
    g.set_const("w", "k", 65.0).unwrap();
    for i in 1..WIDE {
        let id = format!("l{i}");
        g.add_node(id.as_str(), "leaf").unwrap();
        g.set_param(&id, "value", i as f64 * 10.0).unwrap();
        g.wire(&id, &format!("w.x{i}"));
    }
    for (name, mut ev) in evaluators(&reg) {
        runs.store(0, Ordering::SeqCst);
        let out = ev
            .evaluate(&g, &Request::new(["w"]), &EvalContext::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.get("w"), Some(&Value::Float(650.0 + 660.0)), "{name}");
        let ran = runs.load(Ordering::SeqCst);
        if name == "eager" {
            // The eager evaluator runs untaken branches too.
            assert_eq!(ran, WIDE - 1, "{name}");
        } else {
            assert_eq!(ran, 2, "{name}: only the two pulled leaves run");
        }
    }
}

#[test]
fn a_bare_node_name_means_the_same_port_to_wires_and_requests_in_every_evaluator() {
    let reg = registry(Arc::default());
    let mut g = Graph::new();
    for (id, op) in [("a", "ab"), ("v", "vo")] {
        g.add_node(id, op).unwrap();
        g.set_param(id, "value", 3.0).unwrap();
    }
    // Wires from bare names.
    g.add_node("pa", "pass").unwrap();
    g.wire("a", "pa.x");
    g.add_node("pv", "pass").unwrap();
    g.wire("v", "pv.x");
    assert!(validate(&g, &reg).is_empty(), "{:?}", validate(&g, &reg));
    let names = [
        "a", "a.first", "a.second", "a.out", "v", "v.value", "v.out", "pa", "pv",
    ];
    // `a` has no port called `out`: its default is its first output; `v` has one.
    let want = [3.0, 3.0, 6.0, 3.0, 6.0, 3.0, 6.0, 3.0, 6.0];
    for (name, mut ev) in evaluators(&reg) {
        let out = ev
            .evaluate(&g, &Request::new(names), &EvalContext::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (n, w) in names.iter().zip(want) {
            assert_eq!(out.get(n), Some(&Value::Float(w)), "{name}: `{n}`");
        }
        let bad = ev.evaluate(&g, &Request::new(["a.third"]), &EvalContext::new());
        assert!(
            matches!(bad, Err(EvalError::UnknownOutput { ref name }) if name == "a.third"),
            "{name}: {bad:?}"
        );
    }
}

/// `stubborn`: ignores cancellation and blocks until released (or 60 s pass), then says
/// whether it finished.
struct Stubborn(
    OpSpec,
    Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    Arc<AtomicUsize>,
);
impl Op for Stubborn {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, _call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.2.fetch_add(1, Ordering::SeqCst);
        let (lock, cv) = &*self.1;
        let mut released = lock.lock().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !*released && std::time::Instant::now() < deadline {
            released = cv
                .wait_timeout(released, std::time::Duration::from_millis(50))
                .unwrap()
                .0;
        }
        out[0] = Value::Float(1.0);
        Ok(())
    }
}

#[test]
fn every_evaluator_cancels_preemptively_in_the_middle_of_a_node_that_ignores_it() {
    use kiln_core::cache::{KeepAll, Store};
    use kiln_core::eval::CancelMode;
    let gate: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)> = Arc::default();
    let started = Arc::new(AtomicUsize::new(0));
    let mut reg = registry(Arc::default());
    reg.register(Stubborn(
        OpSpec::new("stubborn", "blocks until released").output(OutputSpec::new(
            "out",
            ValueType::Float,
            "1",
        )),
        gate.clone(),
        started.clone(),
    ))
    .unwrap();
    let mut g = Graph::new();
    g.add_node("s", "stubborn").unwrap();
    let store = Store::new(KeepAll).shared();
    let mut evs = evaluators(&reg);
    evs.push((
        "compiled+store",
        Box::new(
            CompiledEvaluator::new(reg.clone())
                .with_background(false)
                .with_store(store.clone()),
        ),
    ));
    for (name, mut ev) in evs {
        let before = started.load(Ordering::SeqCst);
        let ctx = EvalContext::new();
        let token = ctx.cancel.clone();
        let s = started.clone();
        // Cancel once the op is running (it never checks the token).
        let canceller = std::thread::spawn(move || {
            while s.load(Ordering::SeqCst) == before {
                std::thread::yield_now();
            }
            token.cancel();
        });
        let req = Request::new(["s"]).with_cancel(CancelMode::Preemptive);
        let r = ev.evaluate(&g, &req, &ctx);
        // The request came back while the op was still blocked: it was abandoned.
        assert!(
            !*gate.0.lock().unwrap(),
            "{name}: the op was released early"
        );
        assert!(matches!(r, Err(EvalError::Cancelled)), "{name}: {r:?}");
        canceller.join().unwrap();
    }
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    // Nothing the abandoned workers computed reached the store.
    assert_eq!(store.len(), 0);
}

#[test]
fn a_stored_value_of_the_wrong_type_is_not_taken_by_any_evaluator() {
    use kiln_core::cache::{KeepAll, Store};
    let reg = registry(Arc::default());
    let mut g = Graph::new();
    g.add_node("a", "ab").unwrap();
    g.set_param("a", "value", 2.0).unwrap();
    g.add_node("p", "pass").unwrap();
    g.wire("a.second", "p.x");
    let store = Store::new(KeepAll).shared();
    // Find the keys of the results through an incremental evaluator on the store.
    let mut probe = IncrementalEvaluator::new(reg.clone()).with_store(store.clone());
    let req = Request::new(["p"]);
    probe.evaluate(&g, &req, &EvalContext::new()).unwrap();
    let keys: Vec<_> = ["p", "a.first", "a.second"]
        .iter()
        .map(|n| probe.output_key(&g, n).expect("kept"))
        .collect();
    // Someone (a damaged or foreign cache) put strings where floats belong.
    let poisoned = || {
        let s = Store::new(KeepAll).shared();
        for &k in &keys {
            s.insert(k, Value::str("hello"), std::time::Duration::ZERO);
        }
        s
    };
    let with_store = |s: &Arc<Store>| -> Vec<(&'static str, Box<dyn Evaluator>)> {
        vec![
            (
                "lazy",
                Box::new(LazyEvaluator::new(reg.clone()).with_store(s.clone())),
            ),
            (
                "eager",
                Box::new(EagerEvaluator::new(reg.clone()).with_store(s.clone())),
            ),
            (
                "compiled",
                Box::new(
                    CompiledEvaluator::new(reg.clone())
                        .with_background(false)
                        .with_store(s.clone()),
                ),
            ),
            (
                "incremental",
                Box::new(IncrementalEvaluator::new(reg.clone()).with_store(s.clone())),
            ),
        ]
    };
    for i in 0..4 {
        let (name, mut ev) = with_store(&poisoned()).swap_remove(i);
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(out.get("p"), Some(&Value::Float(4.0)), "{name}");
        assert_eq!(out.stats.executed, 2, "{name}: {:?}", out.stats);
    }
}
