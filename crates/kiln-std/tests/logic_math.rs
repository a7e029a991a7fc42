//! Standard maths, logic and the lazy switch, through the evaluator.

use kiln_core::prelude::*;

fn eval(g: &Graph, out: &str, ctx: &EvalContext) -> Result<Outputs, EvalError> {
    LazyEvaluator::new(kiln_std::registry()).evaluate(g, &Request::new([out]), ctx)
}

/// cond = (x > 0); a = 10 / x (ints: fails when x is 0); b = 100 + 1.
fn guarded_division() -> Graph {
    let mut g = Graph::new();
    g.add_node("x", "input.int").unwrap();
    g.set_param("x", "name", "x").unwrap();
    g.add_node("cond", "cmp.gt").unwrap();
    g.wire("x.out", "cond.a");
    g.set_const("cond", "b", Value::Int(0)).unwrap();
    g.add_node("div", "math.div").unwrap();
    g.set_const("div", "a", Value::Int(10)).unwrap();
    g.wire("x.out", "div.b");
    g.add_node("safe", "math.add").unwrap();
    g.set_const("safe", "a", Value::Int(100)).unwrap();
    g.set_const("safe", "b", Value::Int(1)).unwrap();
    g.add_node("pick", "switch").unwrap();
    g.wire("cond.out", "pick.cond");
    g.wire("div.out", "pick.a");
    g.wire("safe.out", "pick.b");
    g
}

#[test]
fn switch_never_computes_the_untaken_branch() {
    let g = guarded_division();
    assert!(validate(&g, &kiln_std::registry()).is_empty());
    // x = 0: the division by zero is on the untaken branch, so it never runs and never fails.
    let out = eval(
        &g,
        "pick",
        &EvalContext::new().with_input("x", Value::Int(0)),
    )
    .unwrap();
    assert_eq!(out.get("pick"), Some(&Value::Int(101)));
    assert_eq!(out.stats.executed, 4, "x, cond, safe, pick — not div");
    let out = eval(
        &g,
        "pick",
        &EvalContext::new().with_input("x", Value::Int(5)),
    )
    .unwrap();
    assert_eq!(out.get("pick"), Some(&Value::Int(2)));
    assert_eq!(out.stats.executed, 4, "x, cond, div, pick — not safe");
    // Asking for the division itself with x = 0 is an error naming node, op and port.
    let err = eval(
        &g,
        "div",
        &EvalContext::new().with_input("x", Value::Int(0)),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "node `div` (math.div), input `b`: integer division by zero"
    );
}

#[test]
fn arithmetic_promotes_and_broadcasts() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        ("math.add", Value::Int(2), Value::Int(3), Value::Int(5)),
        (
            "math.add",
            Value::Int(2),
            Value::Float(0.5),
            Value::Float(2.5),
        ),
        (
            "math.mul",
            Value::Vec3([1.0, 2.0, 3.0]),
            Value::Float(2.0),
            Value::Vec3([2.0, 4.0, 6.0]),
        ),
        (
            "math.sub",
            Value::Vec2([1.0, 1.0]),
            Value::Vec2([0.5, 2.0]),
            Value::Vec2([0.5, -1.0]),
        ),
        ("math.mod", Value::Int(-7), Value::Int(3), Value::Int(2)),
        ("math.pow", Value::Int(2), Value::Int(10), Value::Int(1024)),
        (
            "math.min",
            Value::Float(2.0),
            Value::Int(1),
            Value::Float(1.0),
        ),
    ];
    for (op, a, b, want) in cases {
        let mut g = Graph::new();
        g.add_node("n", op).unwrap();
        g.set_const("n", "a", a.clone()).unwrap();
        g.set_const("n", "b", b.clone()).unwrap();
        let out = eval(&g, "n", &EvalContext::new()).unwrap();
        assert_eq!(out.get("n"), Some(&want), "{op}({a:?}, {b:?})");
    }
}

#[test]
fn incompatible_numbers_are_caught_by_validation() {
    let mut g = Graph::new();
    g.add_node("v2", "vec.make2").unwrap();
    g.add_node("v3", "vec.make3").unwrap();
    g.add_node("sum", "math.add").unwrap();
    g.wire("v2.out", "sum.a");
    g.wire("v3.out", "sum.b");
    let d = validate(&g, &kiln_std::registry());
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].kind, DiagnosticKind::TypeMismatch);
    assert_eq!(d[0].node.as_ref().map(|n| n.as_str()), Some("sum"));
    assert!(
        d[0].to_string().contains("vec2 and vec3 do not combine"),
        "{}",
        d[0]
    );
}

#[test]
fn integer_overflow_is_an_error_not_a_wrap() {
    let mut g = Graph::new();
    g.add_node("n", "math.mul").unwrap();
    g.set_const("n", "a", Value::Int(i64::MAX)).unwrap();
    g.set_const("n", "b", Value::Int(2)).unwrap();
    let err = eval(&g, "n", &EvalContext::new()).unwrap_err();
    assert!(err.to_string().contains("integer overflow"), "{err}");
}

#[test]
fn clock_and_logic() {
    let mut g = Graph::new();
    g.add_node("t", "clock.time").unwrap();
    g.add_node("f", "clock.frame").unwrap();
    g.add_node("late", "cmp.ge").unwrap();
    g.wire("t.out", "late.a");
    g.set_const("late", "b", 2.0).unwrap();
    g.add_node("even", "math.mod").unwrap();
    g.wire("f.out", "even.a");
    g.set_const("even", "b", Value::Int(2)).unwrap();
    g.add_node("is_even", "cmp.eq").unwrap();
    g.wire("even.out", "is_even.a");
    g.set_const("is_even", "b", Value::Int(0)).unwrap();
    g.add_node("both", "logic.and").unwrap();
    g.wire("late.out", "both.a");
    g.wire("is_even.out", "both.b");
    let mut ctx = EvalContext::new();
    for (time, frame, want) in [(1.0, 2, false), (2.0, 4, true), (3.0, 5, false)] {
        ctx.time = time;
        ctx.frame = frame;
        let out = eval(&g, "both", &ctx).unwrap();
        assert_eq!(
            out.get("both"),
            Some(&Value::Bool(want)),
            "t={time} f={frame}"
        );
    }
}
