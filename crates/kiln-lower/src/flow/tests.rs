//! The flow executor runs its op nodes through the engine's node runner: a panic (of `execute`
//! or of a scalar kernel) or an op's error becomes that node's error, naming it, and a
//! cancelled token stops the run.

use super::{FlowBody, FlowError, FlowSettings};
use kiln_core::context::EvalContext;
use kiln_core::graph::Graph;
use kiln_core::op::{InputSpec, Kernel, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Role};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A test op's body.
type Body = fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError>;
/// A test op's scalar kernel.
type Scalar = fn(f64) -> f64;

/// A test op: `run` is its body; it counts its runs.
struct Test {
    spec: OpSpec,
    run: Body,
    kernel: Option<Scalar>,
    runs: Arc<AtomicUsize>,
}

impl Op for Test {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        (self.run)(call, out)
    }
    fn kernel(&self, _: &[Option<ValueType>], _: &[Value]) -> Option<Kernel> {
        self.kernel.map(Kernel::Unary)
    }
}

/// Panics at 3: the scalar kernel of `t.kboom` (its `execute` applies it too).
fn kboom(x: f64) -> f64 {
    assert!(x != 3.0, "three in a kernel");
    x
}

/// The ops of the tests, and the run count of each `t.*` op by id.
fn registry() -> (Registry, Vec<(String, Arc<AtomicUsize>)>) {
    let f = ValueType::Float;
    let float_op = |id: &'static str| {
        OpSpec::new(id, "A float op of the flow tests.")
            .input(InputSpec::required("x", f, "x"))
            .output(OutputSpec::new("out", f, "x"))
    };
    let ops: Vec<(OpSpec, Body, Option<Scalar>)> = vec![
        (
            OpSpec::new("t.in", "The list input `xs`.")
                .role(Role::GraphInput)
                .param(ParamSpec::new(
                    "name",
                    ValueType::String,
                    Value::str("xs"),
                    "its name",
                ))
                .output(OutputSpec::new("out", ValueType::List, "the list")),
            |_, out| {
                out[0] = Value::List(Vec::new().into());
                Ok(())
            },
            None,
        ),
        (
            OpSpec::new("t.out", "A body output.")
                .role(Role::GraphOutput)
                .input(InputSpec::required("value", ValueType::Any, "it"))
                .output(OutputSpec::new("out", ValueType::Any, "it")),
            |c, out| {
                out[0] = c.inputs[0].clone();
                Ok(())
            },
            None,
        ),
        (
            float_op("t.boom"),
            |c, out| {
                let x = c.float(0)?;
                assert!(x != 3.0, "three is right out");
                out[0] = Value::Float(x);
                Ok(())
            },
            None,
        ),
        (
            float_op("t.fail"),
            |c, out| {
                let x = c.float(0)?;
                if x == 3.0 {
                    return Err(OpError::input(0, "three is too many"));
                }
                out[0] = Value::Float(x);
                Ok(())
            },
            None,
        ),
        (
            float_op("t.kboom"),
            |c, out| {
                out[0] = Value::Float(kboom(c.float(0)?));
                Ok(())
            },
            Some(kboom),
        ),
        (
            // Cancels the run's token at 10, and goes on.
            float_op("t.stop"),
            |c, out| {
                let x = c.float(0)?;
                if x == 10.0 {
                    c.ctx.cancel.cancel();
                }
                out[0] = Value::Float(x);
                Ok(())
            },
            None,
        ),
        (
            // Reports cancellation itself at 2, as a cooperative op does.
            float_op("t.coop"),
            |c, out| {
                if c.float(0)? == 2.0 {
                    return Err(OpError::cancelled());
                }
                out[0] = c.inputs[0].clone();
                Ok(())
            },
            None,
        ),
        (
            float_op("t.after"),
            |c, out| {
                out[0] = c.inputs[0].clone();
                Ok(())
            },
            None,
        ),
    ];
    let mut reg = Registry::new();
    let mut counts = vec![];
    for (spec, run, kernel) in ops {
        let runs = Arc::new(AtomicUsize::new(0));
        counts.push((spec.id.to_string(), runs.clone()));
        reg.register(Test {
            spec,
            run,
            kernel,
            runs,
        })
        .expect("a new op");
    }
    (reg, counts)
}

/// How often op `id` ran.
fn runs(counts: &[(String, Arc<AtomicUsize>)], id: &str) -> usize {
    counts
        .iter()
        .find(|(i, _)| *i == id)
        .map_or(0, |(_, n)| n.load(Ordering::SeqCst))
}

/// The body `xs → a (op_a) → b (t.after) → o`, taking the list `xs`.
fn body(op_a: &str) -> (FlowBody, Vec<(String, Arc<AtomicUsize>)>) {
    let (reg, counts) = registry();
    let mut g = Graph::new();
    for (id, op) in [
        ("xs", "t.in"),
        ("a", op_a),
        ("b", "t.after"),
        ("o", "t.out"),
    ] {
        g.add_node(id, op).expect("a new node");
    }
    g.wire("xs.out", "a.x");
    g.wire("a.out", "b.x");
    g.wire("b.out", "o.value");
    let settings = FlowSettings {
        args: vec!["xs".into()],
        loops: vec![],
        limits: Default::default(),
    };
    let body = FlowBody::new(g, reg, settings).expect("a valid body");
    (body, counts)
}

/// The floats `1..=n` as one list arg.
fn floats(n: usize) -> Value {
    Value::list((1..=n).map(|i| Value::Float(i as f64)))
}

#[test]
fn a_run_with_no_failure_sends_every_entity_through() {
    let (b, counts) = body("t.after");
    let r = b.run(&[floats(4)], &EvalContext::new()).expect("it runs");
    let (_, out) = &r.outputs[0];
    assert_eq!(
        out.clone().into_values(),
        (1..=4).map(|i| Value::Float(i as f64)).collect::<Vec<_>>()
    );
    assert_eq!(runs(&counts, "t.after"), 8);
}

#[test]
fn a_panicking_op_is_that_node_s_error() {
    let (b, counts) = body("t.boom");
    let e = b.run(&[floats(5)], &EvalContext::new()).unwrap_err();
    assert_eq!(
        e,
        FlowError::Panic {
            node: "a".into(),
            op: "t.boom".into()
        }
    );
    assert_eq!(e.to_string(), "flow node `a` (op `t.boom`) panicked");
    // It ran up to the entity that panicked; nothing went on downstream.
    assert_eq!(runs(&counts, "t.boom"), 3);
    assert_eq!(runs(&counts, "t.after"), 0);
}

#[test]
fn a_panicking_kernel_is_that_node_s_error() {
    let (b, counts) = body("t.kboom");
    let e = b.run(&[floats(5)], &EvalContext::new()).unwrap_err();
    assert_eq!(
        e,
        FlowError::Panic {
            node: "a".into(),
            op: "t.kboom".into()
        }
    );
    // The kernel ran, not `execute`.
    assert_eq!(runs(&counts, "t.kboom"), 0);
    assert_eq!(runs(&counts, "t.after"), 0);
}

#[test]
fn an_op_s_error_names_the_node_the_op_and_the_port() {
    let (b, _) = body("t.fail");
    let e = b.run(&[floats(5)], &EvalContext::new()).unwrap_err();
    assert_eq!(
        e,
        FlowError::Op {
            node: "a".into(),
            op: "t.fail".into(),
            port: Some("input `x`".into()),
            message: "three is too many".into(),
        }
    );
    assert_eq!(
        e.to_string(),
        "flow node `a` (op `t.fail`), input `x`: three is too many"
    );
}

#[test]
fn a_cancelled_token_stops_a_flow_run() {
    // Cancelled before it starts: nothing runs.
    let (b, counts) = body("t.stop");
    let ctx = EvalContext::new();
    ctx.cancel.cancel();
    assert_eq!(b.run(&[floats(5)], &ctx).unwrap_err(), FlowError::Cancelled);
    assert_eq!(runs(&counts, "t.stop"), 0);

    // Cancelled by a node during a long batch: the batch stops at its next check (every
    // 256 runs), and nothing downstream runs.
    let (b, counts) = body("t.stop");
    let ctx = EvalContext::new();
    assert_eq!(
        b.run(&[floats(600)], &ctx).unwrap_err(),
        FlowError::Cancelled
    );
    assert_eq!(runs(&counts, "t.stop"), 256);
    assert_eq!(runs(&counts, "t.after"), 0);

    // An op that sees the token itself and says so stops the run as cancelled.
    let (b, counts) = body("t.coop");
    assert_eq!(
        b.run(&[floats(5)], &EvalContext::new()).unwrap_err(),
        FlowError::Cancelled
    );
    assert_eq!(runs(&counts, "t.coop"), 2);
    assert_eq!(runs(&counts, "t.after"), 0);
}
