//! Ops written with `#[kiln_core::op]`: ports from the arguments (names, types, docs,
//! defaults, ranges, plan-time marks), the function as the op's body and, for a float
//! function, its scalar kernel; several outputs from a tuple; errors from a `Result`.

use kiln_core::op::{Kernel, OpError, Rule};
use kiln_core::prelude::*;

/// Blend `a` to `b` by `t`.
#[kiln_core::op("t.lerp", out = "a + (b - a) t")]
fn lerp(
    #[input("start")] a: f64,
    #[input("end", default = 1.0)] b: f64,
    #[input("amount", default = 0.5)] t: f64,
) -> f64 {
    a + (b - a) * t
}

/// Split `x` into `steps` steps: the step it is in and how far into it.
///
/// A second paragraph of the doc.
#[kiln_core::op(
    "t.steps",
    version = 3,
    outputs("index" = "the step", "within" = "how far into it, 0 to 1")
)]
fn steps(
    #[input("the value")] x: f64,
    #[param("steps per unit", default = 4, range = 1..=64, plan_time)] steps: i64,
    #[param("the name of the scale", default = "linear")] scale: &str,
) -> Result<(i64, f64), OpError> {
    if scale != "linear" {
        return Err(OpError::param(1, format!("unknown scale `{scale}`")));
    }
    let s = x * steps as f64;
    Ok((s.floor() as i64, s - s.floor()))
}

/// The evaluation's seed, plus `k`.
#[kiln_core::op("t.seeded", reads = "seed")]
fn seeded(#[input("added", default = 0)] k: i64, ctx: &EvalContext) -> i64 {
    ctx.seed as i64 + k
}

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.register(LerpOp::new()).unwrap();
    reg.register(StepsOp::new()).unwrap();
    reg.register(SeededOp::new()).unwrap();
    reg
}

#[test]
fn the_spec_comes_from_the_function() {
    let op = LerpOp::new();
    let s = op.spec();
    assert_eq!(
        (&*s.id, s.version, &*s.doc),
        ("t.lerp", 1, "Blend `a` to `b` by `t`.")
    );
    let names: Vec<&str> = s.inputs.iter().map(|i| &*i.name).collect();
    assert_eq!(names, ["a", "b", "t"]);
    assert!(s.inputs[0].default.is_none());
    assert_eq!(s.inputs[1].default, Some(Value::Float(1.0)));
    assert!(s.inputs[2].rule.is_none());
    assert_eq!(s.outputs[0].name, "out");
    assert_eq!(s.outputs[0].doc, "a + (b - a) t");

    let op = StepsOp::new();
    let s = op.spec();
    assert_eq!(s.version, 3);
    assert!(s.doc.contains("\n\nA second paragraph"));
    assert_eq!(s.params[0].default, Some(Value::Int(4)));
    assert!(matches!(
        s.params[0].rule,
        Some(Rule::Ints { min: 1, max: 64 })
    ));
    assert!(s.params[0].plan_time && !s.params[1].plan_time);
    assert_eq!(s.params[1].default, Some(Value::str("linear")));
    let outs: Vec<(&str, ValueType)> = s.outputs.iter().map(|o| (&*o.name, o.ty)).collect();
    assert_eq!(
        outs,
        [("index", ValueType::Int), ("within", ValueType::Float)]
    );

    assert!(SeededOp::new().spec().reads.has(kiln_core::op::Reads::SEED));
}

#[test]
fn a_float_function_is_its_own_kernel() {
    let op = LerpOp::new();
    let Some(Kernel::Ternary(f)) = op.kernel(&[Some(ValueType::Float); 3], &[]) else {
        panic!("a ternary kernel");
    };
    assert_eq!(f(2.0, 6.0, 0.25), lerp(2.0, 6.0, 0.25));
    assert!(
        StepsOp::new()
            .kernel(&[Some(ValueType::Float)], &[])
            .is_none()
    );
}

#[test]
fn the_op_cooks_under_every_evaluator() {
    let mut g = Graph::new();
    g.add_node("l", "t.lerp").unwrap();
    g.set_const("l", "a", 2.0).unwrap();
    g.set_const("l", "b", 6.0).unwrap();
    g.add_node("s", "t.steps").unwrap();
    g.connect(PortRef::new("l", "out"), PortRef::new("s", "x"));
    g.add_node("z", "t.seeded").unwrap();
    let mut ctx = EvalContext::new();
    ctx.seed = 40;
    let req = Request::new(["l", "s.index", "s.within", "z"]);
    let evals: Vec<Box<dyn Evaluator>> = vec![
        Box::new(LazyEvaluator::new(registry())),
        Box::new(EagerEvaluator::new(registry())),
    ];
    for mut e in evals {
        let out = e.evaluate(&g, &req, &ctx).unwrap();
        assert_eq!(out.get("l"), Some(&Value::Float(4.0)));
        assert_eq!(out.get("s.index"), Some(&Value::Int(16)));
        assert_eq!(out.get("s.within"), Some(&Value::Float(0.0)));
        assert_eq!(out.get("z"), Some(&Value::Int(40)));
    }
}

#[test]
fn errors_name_the_node_and_the_port() {
    let mut eval = LazyEvaluator::new(registry());
    let run = |g: &Graph, eval: &mut LazyEvaluator, at: &str| {
        eval.evaluate(g, &Request::new([at]), &EvalContext::new())
            .unwrap_err()
            .to_string()
    };
    // Out of the declared range: refused before the function runs.
    let mut g = Graph::new();
    g.add_node("s", "t.steps").unwrap();
    g.set_const("s", "x", 1.0).unwrap();
    g.set_param("s", "steps", Value::Int(100)).unwrap();
    let e = run(&g, &mut eval, "s.index");
    assert!(
        e.contains("`s`") && e.contains("`steps`") && e.contains("found 100"),
        "{e}"
    );
    // The op checks it too when its body is run directly.
    let op = StepsOp::new();
    let ctx = EvalContext::new();
    let call = kiln_core::op::OpCall {
        inputs: &[Value::Float(1.0)],
        params: &[Value::Int(100), Value::str("linear")],
        ctx: &ctx,
        node: "s",
    };
    let mut out = [Value::Empty, Value::Empty];
    let e = op.execute(&call, &mut out).unwrap_err();
    assert_eq!(e.port, Some(kiln_core::op::PortIndex::Param(0)));
    // The function's own error.
    let mut g = Graph::new();
    g.add_node("s", "t.steps").unwrap();
    g.set_const("s", "x", 1.0).unwrap();
    g.set_param("s", "scale", Value::str("log")).unwrap();
    let e = run(&g, &mut eval, "s.index");
    assert!(
        e.contains("`s`") && e.contains("scale") && e.contains("unknown scale `log`"),
        "{e}"
    );
}
