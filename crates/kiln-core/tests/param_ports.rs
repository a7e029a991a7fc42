//! Every param is an input port of its name (issue 29), in the engine: a constant at the
//! port is the param (same key as under `params`), a wire drives it under every evaluator
//! (and an incremental evaluator follows edits of it), a wired value out of range fails the
//! node naming the port, and a plan-time param takes no wire.

use kiln_core::plan::Plan;
use kiln_core::prelude::*;

/// `x` times `k`, plus `n` (a plan-time count).
#[kiln_core::op("t.scale")]
fn scale(
    #[input("the value")] x: f64,
    #[param("the factor", default = 2.0, range = -100.0..=100.0)] k: f64,
    #[param("a count", default = 1, range = 0..=10, plan_time)] n: i64,
) -> f64 {
    x * k + n as f64
}

/// A constant.
#[kiln_core::op("t.num")]
fn num(#[param("the value", default = 0.0)] v: f64) -> f64 {
    v
}

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.register(ScaleOp::new()).unwrap();
    reg.register(NumOp::new()).unwrap();
    reg
}

fn evaluators() -> Vec<Box<dyn Evaluator>> {
    vec![
        Box::new(LazyEvaluator::new(registry())),
        Box::new(EagerEvaluator::new(registry())),
        Box::new(CompiledEvaluator::new(registry())),
        Box::new(IncrementalEvaluator::new(registry())),
    ]
}

fn base() -> Graph {
    let mut g = Graph::new();
    g.add_node("s", "t.scale").unwrap();
    g.set_const("s", "x", 3.0).unwrap();
    g
}

#[test]
fn a_constant_at_a_params_port_is_the_param_keyed_alike() {
    let reg = registry();
    let mut as_param = base();
    as_param.set_param("s", "k", Value::Float(5.0)).unwrap();
    let mut as_port = base();
    as_port.set_const("s", "k", Value::Int(5)).unwrap();
    let (a, b) = (
        Plan::build(&as_param, &reg).unwrap(),
        Plan::build(&as_port, &reg).unwrap(),
    );
    assert_eq!(a.definition_key(0), b.definition_key(0));
    for mut e in evaluators() {
        let out = e
            .evaluate(&as_port, &Request::new(["s"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("s"), Some(&Value::Float(16.0)));
    }
    // Both at once is refused.
    as_port.set_param("s", "k", Value::Float(5.0)).unwrap();
    let d = Plan::build(&as_port, &reg).unwrap_err();
    assert!(
        d.0.iter().any(|d| d.kind == DiagnosticKind::MultipleWires),
        "{d}"
    );
}

#[test]
fn a_wire_drives_a_param_and_edits_of_its_source_are_followed() {
    let mut g = base();
    g.add_node("k", "t.num").unwrap();
    g.set_param("k", "v", Value::Float(4.0)).unwrap();
    g.connect(PortRef::new("k", "out"), PortRef::new("s", "k"));
    for mut e in evaluators() {
        let mut g = g.clone();
        let req = Request::new(["s"]);
        let ctx = EvalContext::new();
        assert_eq!(
            e.evaluate(&g, &req, &ctx).unwrap().get("s"),
            Some(&Value::Float(13.0))
        );
        g.set_param("k", "v", Value::Float(-1.0)).unwrap();
        assert_eq!(
            e.evaluate(&g, &req, &ctx).unwrap().get("s"),
            Some(&Value::Float(-2.0))
        );
        // Out of the param's range: the node fails, naming its port.
        g.set_param("k", "v", Value::Float(1000.0)).unwrap();
        let err = e.evaluate(&g, &req, &ctx).unwrap_err().to_string();
        assert!(
            err.contains("`s`") && err.contains("`k`") && err.contains("1000"),
            "{err}"
        );
    }
}

#[test]
fn a_constant_edit_at_a_params_port_is_followed_in_place() {
    let mut g = base();
    g.set_const("s", "k", Value::Float(1.0)).unwrap();
    let mut e = IncrementalEvaluator::new(registry());
    let req = Request::new(["s"]);
    let ctx = EvalContext::new();
    assert_eq!(
        e.evaluate(&g, &req, &ctx).unwrap().get("s"),
        Some(&Value::Float(4.0))
    );
    g.set_const("s", "k", Value::Float(3.0)).unwrap();
    assert_eq!(
        e.evaluate(&g, &req, &ctx).unwrap().get("s"),
        Some(&Value::Float(10.0))
    );
}

#[test]
fn a_plan_time_param_takes_no_wire() {
    let mut g = base();
    g.add_node("k", "t.num").unwrap();
    g.connect(PortRef::new("k", "out"), PortRef::new("s", "n"));
    let d = Plan::build(&g, &registry()).unwrap_err();
    let d =
        d.0.iter()
            .find(|d| d.kind == DiagnosticKind::PlanTimePort)
            .expect("a plan-time-port diagnostic");
    assert_eq!(d.node.as_deref(), Some("s"));
    assert_eq!(d.port.as_deref(), Some("param `n`"));
    assert!(
        d.found.as_deref().is_some_and(|f| f.contains("k.out")),
        "{d:?}"
    );
}
