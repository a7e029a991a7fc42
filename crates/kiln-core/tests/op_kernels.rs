//! Ops written as one function (`#[kiln_core::op]`) under every evaluator: the scalar-kernel
//! path and the `execute` path run the same function and give the same bits.

use kiln_core::eval::Served;
use kiln_core::op::Kernel;
use kiln_core::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An op that counts the calls of its `execute` and otherwise is the op it wraps: a node
/// that ran (`Stats::executed`) without a call here took the kernel path.
struct Counted {
    inner: Box<dyn Op>,
    executes: Arc<AtomicUsize>,
}

impl Op for Counted {
    fn spec(&self) -> &OpSpec {
        self.inner.spec()
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.executes.fetch_add(1, Ordering::Relaxed);
        self.inner.execute(call, out)
    }
    fn kernel(&self, inputs: &[Option<ValueType>], params: &[Value]) -> Option<Kernel> {
        self.inner.kernel(inputs, params)
    }
}

/// x² + ½
#[kiln_core::op("sq")]
fn square_plus_half(#[input("x", default = 0.0)] x: f64) -> f64 {
    x * x + 0.5
}

/// ¾a + ¼b
#[kiln_core::op("blend", out = "the blend")]
fn blend(#[input("a", default = 0.0)] a: f64, #[input("b", default = 1.0)] b: f64) -> f64 {
    a * 0.75 + b * 0.25
}

/// Blend a to b by t.
#[kiln_core::op("lerp")]
fn lerp(
    #[input("start", default = 0.0)] a: f64,
    #[input("end", default = 1.0)] b: f64,
    #[input("amount", default = 0.5)] t: f64,
) -> f64 {
    a + (b - a) * t
}

/// x, typed `any`
#[kiln_core::op("anything", out = "x")]
fn anything(#[input("x", default = 0.0)] x: f64) -> Value {
    if x < 0.0 {
        Value::str("oops")
    } else {
        Value::Float(x)
    }
}

/// Always fails.
#[kiln_core::op("fails", out = "nothing")]
fn fails(#[input("x", default = 0.0)] x: f64) -> Result<f64, OpError> {
    Err(OpError::input(0, "refused"))
}

/// Blend a to b by t, with other defaults and a version of its own.
#[kiln_core::op("lerp7", version = 7, out = "a + (b - a) t")]
fn lerp7(
    #[input("start", default = 2.0)] a: f64,
    #[input("end", default = 6.0)] b: f64,
    #[input("amount", default = 0.25)] t: f64,
) -> f64 {
    lerp(a, b, t)
}

/// The ops, each counting its `execute` calls into `executes`:
/// - `sq` (x = 0) → x² + 0.5, `blend` (a = 0, b = 1) → ¾a + ¼b, `lerp` (a, b, t)
/// - `anything` (x): passes x on through an output typed `any` (so what it feeds is not
///   statically a float), or the string `"oops"` when x is negative
/// - `fails` (x): fails naming its input
fn registry(executes: &Arc<AtomicUsize>) -> Registry {
    let ops: [Box<dyn Op>; 5] = [
        Box::new(SquarePlusHalfOp::new()),
        Box::new(BlendOp::new()),
        Box::new(LerpOp::new()),
        Box::new(AnythingOp::new()),
        Box::new(FailsOp::new()),
    ];
    let mut reg = Registry::new();
    for inner in ops {
        reg.register(Counted {
            inner,
            executes: executes.clone(),
        })
        .unwrap();
    }
    reg
}

/// Every evaluator, each fresh. The compiled one compiles on the calling thread, so it is
/// served by its schedule.
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

/// `c0 = sq(0.3)`, `c1 = blend(c0, 0.7)`, `c2 = sq(c1)`, `mix = lerp(c1, c2, 0.6)`, every
/// input a float constant or a float wire.
fn chain() -> Graph {
    let mut g = Graph::new();
    g.add_node("c0", "sq").unwrap();
    g.set_const("c0", "x", 0.3).unwrap();
    g.add_node("c1", "blend").unwrap();
    g.wire("c0.out", "c1.a");
    g.set_const("c1", "b", 0.7).unwrap();
    g.add_node("c2", "sq").unwrap();
    g.wire("c1.out", "c2.x");
    g.add_node("mix", "lerp").unwrap();
    g.wire("c1.out", "mix.a");
    g.wire("c2.out", "mix.b");
    g.set_const("mix", "t", 0.6).unwrap();
    g
}

/// The chain's values, computed here by hand.
fn expected_chain() -> [(&'static str, f64); 4] {
    let c0 = 0.3 * 0.3 + 0.5;
    let c1 = c0 * 0.75 + 0.7 * 0.25;
    let c2 = c1 * c1 + 0.5;
    let mix = c1 + (c2 - c1) * 0.6;
    [("c0", c0), ("c1", c1), ("c2", c2), ("mix", mix)]
}

fn chain_request() -> Request {
    Request::new(["c0", "c1", "c2", "mix"])
}

#[test]
fn the_kernel_path_and_the_execute_path_give_the_same_bits_under_every_evaluator() {
    let executes = Arc::new(AtomicUsize::new(0));
    let reg = registry(&executes);
    let g = chain();
    let expected = expected_chain();
    for (name, mut eval) in evaluators(&reg) {
        // Plain request: every op of the chain (one, two and three inputs) runs as a kernel.
        executes.store(0, Ordering::Relaxed);
        let fast = eval
            .evaluate(&g, &chain_request(), &EvalContext::new())
            .unwrap();
        assert_eq!(fast.stats.executed, 4, "{name}: {:?}", fast.stats);
        assert_eq!(
            executes.load(Ordering::Relaxed),
            0,
            "{name}: no op executes through execute"
        );
        // A request that times every node takes the general path: every node executes.
        let (_, mut fresh) = evaluators(&reg)
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap();
        executes.store(0, Ordering::Relaxed);
        let slow = fresh
            .evaluate(&g, &chain_request().with_timings(), &EvalContext::new())
            .unwrap();
        assert_eq!(slow.stats.executed, 4, "{name}: {:?}", slow.stats);
        assert_eq!(executes.load(Ordering::Relaxed), 4, "{name}: all execute");
        assert_eq!(slow.timings.len(), 4, "{name}");
        for ((out, want), (f, s)) in expected.iter().zip(fast.values.iter().zip(&slow.values)) {
            let want = Value::Float(*want);
            assert!(f.1.same_bits(&want), "{name} {out}: kernel path {:?}", f.1);
            assert!(s.1.same_bits(&want), "{name} {out}: execute path {:?}", s.1);
        }
    }
}

#[test]
fn the_compiled_evaluator_is_served_by_its_schedule_here() {
    let executes = Arc::new(AtomicUsize::new(0));
    let mut eval = CompiledEvaluator::new(registry(&executes)).with_background(false);
    let out = eval
        .evaluate(&chain(), &chain_request(), &EvalContext::new())
        .unwrap();
    assert_eq!(eval.last_served(), Served::Compiled);
    assert!(
        out.get("mix")
            .unwrap()
            .same_bits(&Value::Float(expected_chain()[3].1))
    );
}

/// A float input fed through an output typed `any` is not statically a float: that node has
/// no kernel and executes, with the same bits as the chain built of float wires.
#[test]
fn an_input_not_statically_float_takes_the_execute_path() {
    let executes = Arc::new(AtomicUsize::new(0));
    let reg = registry(&executes);
    let mut g = Graph::new();
    g.add_node("src", "anything").unwrap();
    g.set_const("src", "x", 0.3).unwrap();
    g.add_node("c0b", "sq").unwrap();
    g.wire("src.out", "c0b.x");
    let want = Value::Float(expected_chain()[0].1);
    for (name, mut eval) in evaluators(&reg) {
        executes.store(0, Ordering::Relaxed);
        let out = eval
            .evaluate(&g, &Request::new(["c0b"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.stats.executed, 2, "{name}: {:?}", out.stats);
        assert_eq!(
            executes.load(Ordering::Relaxed),
            2,
            "{name}: src and c0b execute"
        );
        assert!(out.values[0].1.same_bits(&want), "{name}: {:?}", out.values);
    }
}

/// Under `Propagate`, a failed node's error value reaches `blend` (which passes it on without
/// running); the independent chain still gives its bits.
#[test]
fn an_error_value_input_is_passed_on_and_the_rest_keeps_its_bits() {
    let executes = Arc::new(AtomicUsize::new(0));
    let reg = registry(&executes);
    let mut g = chain();
    g.add_node("bad", "fails").unwrap();
    g.add_node("after", "blend").unwrap();
    g.wire("bad.out", "after.a");
    let request =
        Request::new(["after", "c0", "c1", "c2", "mix"]).with_errors(ErrorPolicy::Propagate);
    let expected = expected_chain();
    for (name, mut eval) in evaluators(&reg) {
        let out = eval.evaluate(&g, &request, &EvalContext::new()).unwrap();
        // The chain's four nodes and `bad` ran; `after` passed the error on.
        assert_eq!(out.stats.executed, 5, "{name}: {:?}", out.stats);
        assert_eq!(out.stats.propagated, 1, "{name}: {:?}", out.stats);
        match out.get("after") {
            Some(Value::Error(e)) => match &**e {
                EvalError::Node { node, op, port, .. } => {
                    assert_eq!((node.as_str(), op.as_str()), ("bad", "fails"), "{name}");
                    assert_eq!(port.as_deref(), Some("input `x`"), "{name}");
                }
                other => panic!("{name}: {other:?}"),
            },
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(out.failures.len(), 1, "{name}");
        for (out_name, want) in expected {
            let got = out.get(out_name).unwrap();
            assert!(
                got.same_bits(&Value::Float(want)),
                "{name} {out_name}: {got:?}"
            );
        }
    }
}

/// A string arriving at a float input fails the node with an error naming node, op and port.
#[test]
fn a_wrong_input_type_fails_naming_the_port_under_every_evaluator() {
    let executes = Arc::new(AtomicUsize::new(0));
    let reg = registry(&executes);
    let mut g = Graph::new();
    g.add_node("src", "anything").unwrap();
    g.set_const("src", "x", -1.0).unwrap();
    g.add_node("mix", "lerp").unwrap();
    g.wire("src.out", "mix.b");
    for (name, mut eval) in evaluators(&reg) {
        let e = eval
            .evaluate(&g, &Request::new(["mix"]), &EvalContext::new())
            .unwrap_err();
        match &e {
            EvalError::Node {
                node,
                op,
                port,
                message,
            } => {
                assert_eq!((node.as_str(), op.as_str()), ("mix", "lerp"), "{name}");
                assert_eq!(port.as_deref(), Some("input `b`"), "{name}");
                assert!(message.contains("string"), "{name}: {message}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert!(e.to_string().contains("input `b`"), "{name}: {e}");
    }
}

/// Defaults fill unwired inputs, and the declared version and docs are what the registry
/// shows.
#[test]
fn defaults_version_and_docs_reach_the_registry_and_the_evaluators() {
    let mut reg = Registry::new();
    reg.register(Lerp7Op::new()).unwrap();
    let spec = reg.get("lerp7").unwrap().spec();
    assert_eq!(
        (spec.version, &*spec.doc),
        (
            7,
            "Blend a to b by t, with other defaults and a version of its own."
        )
    );
    assert_eq!(&*spec.outputs[0].doc, "a + (b - a) t");
    let mut g = Graph::new();
    g.add_node("m", "lerp7").unwrap();
    for (name, mut eval) in evaluators(&reg) {
        let out = eval
            .evaluate(&g, &Request::new(["m"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("m"), Some(&Value::Float(3.0)), "{name}");
    }
}
