//! The `error.*` nodes under the fail-fast and propagate error policies.

use kiln_core::eval::ErrorPolicy;
use kiln_core::prelude::*;
use kiln_core::validate::DiagnosticKind;

fn eval(g: &Graph, request: Request) -> Result<Outputs, EvalError> {
    LazyEvaluator::new(kiln_std::registry()).evaluate(g, &request, &EvalContext::new())
}

fn propagate(outputs: &[&str]) -> Request {
    Request::new(outputs.iter().copied()).with_errors(ErrorPolicy::Propagate)
}

/// a = 1 + 2; boom = raise(a) when `fail`; safe = catch(boom, -1); uncaught = boom + 10;
/// other = a * 2 (independent of boom); failed / fine = is_error(boom) / is_error(a).
fn graph(fail: bool) -> Graph {
    let mut g = Graph::new();
    g.add_node("a", "math.add").unwrap();
    g.set_const("a", "a", Value::Int(1)).unwrap();
    g.set_const("a", "b", Value::Int(2)).unwrap();
    g.add_node("boom", "error.raise").unwrap();
    g.wire("a.out", "boom.value");
    g.set_const("boom", "when", Value::Bool(fail)).unwrap();
    g.set_param("boom", "message", "kaboom").unwrap();
    g.add_node("safe", "error.catch").unwrap();
    g.wire("boom.out", "safe.value");
    g.set_const("safe", "fallback", Value::Int(-1)).unwrap();
    g.add_node("uncaught", "math.add").unwrap();
    g.wire("boom.out", "uncaught.a");
    g.set_const("uncaught", "b", Value::Int(10)).unwrap();
    g.add_node("other", "math.mul").unwrap();
    g.wire("a.out", "other.a");
    g.set_const("other", "b", Value::Int(2)).unwrap();
    g.add_node("failed", "error.is_error").unwrap();
    g.wire("boom.out", "failed.value");
    g.add_node("fine", "error.is_error").unwrap();
    g.wire("a.out", "fine.value");
    g
}

#[test]
fn the_graph_validates() {
    for fail in [false, true] {
        let d = validate(&graph(fail), &kiln_std::registry());
        assert!(d.is_empty(), "{d:?}");
    }
}

#[test]
fn catch_uses_the_fallback_when_the_value_failed() {
    let out = eval(&graph(true), propagate(&["safe"])).unwrap();
    assert_eq!(out.get("safe"), Some(&Value::Int(-1)));
    assert_eq!(out.result("safe"), Some(Ok(&Value::Int(-1))));
}

#[test]
fn catch_passes_a_good_value_and_never_computes_the_fallback() {
    let mut g = graph(false);
    // A fallback that would fail if it were computed.
    g.add_node("bad", "error.raise").unwrap();
    g.set_const("bad", "value", Value::Int(0)).unwrap();
    g.set_const("bad", "when", Value::Bool(true)).unwrap();
    g.remove_node("safe").unwrap();
    g.add_node("safe", "error.catch").unwrap();
    g.wire("boom.out", "safe.value");
    g.wire("bad.out", "safe.fallback");
    assert!(validate(&g, &kiln_std::registry()).is_empty());
    for request in [Request::new(["safe"]), propagate(&["safe"])] {
        let out = eval(&g, request).unwrap();
        assert_eq!(out.get("safe"), Some(&Value::Int(3)));
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert_eq!(out.stats.executed, 3, "a, boom, safe — not bad");
    }
}

#[test]
fn fail_fast_returns_the_raising_nodes_error() {
    for name in ["safe", "uncaught", "failed"] {
        let err = eval(&graph(true), Request::new([name])).unwrap_err();
        match &err {
            EvalError::Node {
                node, op, message, ..
            } => {
                assert_eq!(node.as_str(), "boom", "{name}");
                assert_eq!(op, "error.raise");
                assert_eq!(message, "kaboom");
            }
            other => panic!("{name}: expected a node error, got {other:?}"),
        }
        assert_eq!(err.to_string(), "node `boom` (error.raise): kaboom");
    }
    // Nothing fails when `when` is false: the value passes through.
    let out = eval(&graph(false), Request::new(["boom", "uncaught"])).unwrap();
    assert_eq!(out.get("boom"), Some(&Value::Int(3)));
    assert_eq!(out.get("uncaught"), Some(&Value::Int(13)));
}

#[test]
fn propagate_delivers_uncaught_errors_and_independent_outputs() {
    let out = eval(&graph(true), propagate(&["uncaught", "other"])).unwrap();
    let err = out
        .get("uncaught")
        .and_then(Value::as_error)
        .expect("an error value");
    assert!(
        matches!(err, EvalError::Node { node, message, .. } if node.as_str() == "boom" && message == "kaboom"),
        "{err:?}"
    );
    assert_eq!(out.get("uncaught").map(Value::type_name), Some("error"));
    assert!(matches!(out.result("uncaught"), Some(Err(_))));
    // The independent output is still produced.
    assert_eq!(out.get("other"), Some(&Value::Int(6)));
    assert_eq!(out.failures.len(), 1, "{:?}", out.failures);
    let f = &out.failures[0];
    assert_eq!(f.node.as_str(), "boom");
    assert_eq!(f.op, "error.raise");
    assert_eq!(&f.error, err);
    assert!(f.affected.contains(&"uncaught".to_string()), "{f:?}");
    assert!(!f.affected.contains(&"other".to_string()), "{f:?}");
    assert!(out.stats.propagated >= 1, "{:?}", out.stats);
}

#[test]
fn is_error_tells_errors_from_values() {
    let out = eval(&graph(true), propagate(&["failed", "fine"])).unwrap();
    assert_eq!(out.get("failed"), Some(&Value::Bool(true)));
    assert_eq!(out.get("fine"), Some(&Value::Bool(false)));
    let out = eval(&graph(false), propagate(&["failed", "fine"])).unwrap();
    assert_eq!(out.get("failed"), Some(&Value::Bool(false)));
    assert_eq!(out.get("fine"), Some(&Value::Bool(false)));
    assert!(out.failures.is_empty());
}

#[test]
fn raise_uses_its_default_message() {
    let mut g = Graph::new();
    g.add_node("r", "error.raise").unwrap();
    g.set_const("r", "value", Value::str("x")).unwrap();
    let out = eval(&g, Request::new(["r"])).unwrap();
    assert_eq!(out.get("r"), Some(&Value::str("x")));
    g.set_const("r", "when", Value::Bool(true)).unwrap();
    let err = eval(&g, Request::new(["r"])).unwrap_err();
    assert_eq!(err.to_string(), "node `r` (error.raise): raised");
}

#[test]
fn catch_infers_the_value_type_and_checks_the_fallback() {
    let reg = kiln_std::registry();
    // catch(int, int) + 1.5 is a float; catch(int, string) is a type error.
    let mut g = graph(true);
    g.add_node("next", "math.add").unwrap();
    g.wire("safe.out", "next.a");
    g.set_const("next", "b", Value::Float(1.5)).unwrap();
    assert!(validate(&g, &reg).is_empty());
    let out = eval(&g, propagate(&["next"])).unwrap();
    assert_eq!(out.get("next"), Some(&Value::Float(0.5)));
    // The output keeps the value's type: an int cannot feed a bool input.
    let mut g2 = graph(false);
    g2.add_node("not", "logic.not").unwrap();
    g2.wire("safe.out", "not.x");
    let d = validate(&g2, &reg);
    assert!(
        d.iter().any(|d| d.kind == DiagnosticKind::TypeMismatch),
        "{d:?}"
    );
    // A fallback of another type is reported on the catch node.
    g.set_const("safe", "fallback", Value::str("none")).unwrap();
    let d = validate(&g, &reg);
    let m = d
        .iter()
        .find(|d| d.node.as_ref().is_some_and(|n| n.as_str() == "safe"))
        .unwrap_or_else(|| panic!("no diagnostic on `safe`: {d:?}"));
    assert_eq!(m.kind, DiagnosticKind::TypeMismatch, "{m}");
    assert!(m.to_string().contains("fallback"), "{m}");
}
