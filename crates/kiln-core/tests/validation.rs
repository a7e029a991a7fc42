//! Validation reports every problem, each naming node, op and port.

mod common;
use common::*;
use kiln_core::prelude::*;

#[test]
fn every_problem_is_reported_together() {
    let e = env();
    let mut g = Graph::new();
    g.add_node("k", "num").unwrap();
    g.add_node("u", "nmu").unwrap(); // unknown op
    g.add_node("a", "add").unwrap(); // `a` input left unwired
    g.add_node("two", "add").unwrap();
    g.wire("k.out", "two.a");
    g.wire("k.out", "two.a"); // second wire into one input
    g.add_node("tm", "add").unwrap();
    g.set_const("tm", "a", "text").unwrap(); // constant of the wrong type
    g.add_node("bp", "add").unwrap();
    g.wire("k.nope", "bp.a"); // unknown output port
    g.wire("k.out", "bp.zz"); // unknown input port
    g.wire("ghost.out", "bp.b"); // unknown node
    g.add_node("x", "add").unwrap();
    g.add_node("y", "add").unwrap();
    g.wire("x.out", "y.a");
    g.wire("y.out", "x.a"); // cycle
    g.add_node("gt", "gt").unwrap();
    g.wire("k.out", "gt.a");
    g.wire("k.out", "gt.b");
    g.add_node("bad_type", "add").unwrap();
    g.wire("gt.out", "bad_type.a"); // bool into float
    g.set_param("k", "colour", 1.0).unwrap(); // unknown param
    g.set_param("k", "value", "seven").unwrap(); // param of the wrong type

    let d = validate(&g, &e.reg);
    let lines: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    let has = |s: &str| {
        assert!(
            lines.iter().any(|l| l.contains(s)),
            "no `{s}` in\n{}",
            lines.join("\n")
        )
    };
    has(
        "unknown-op: node `u` (nmu): expected a registered op id, found `nmu` (hint: did you mean `num`?",
    );
    has(
        "missing-input: node `a` (add), input `a`: expected a wire or a constant of type float, found nothing",
    );
    has("multiple-wires: node `two` (add), input `a`");
    has("type-mismatch: node `tm` (add), input `a`: expected float, found constant of type string");
    has("unknown-port: node `k` (num), output `nope`");
    has("unknown-port: node `bp` (add), input `zz`: expected one of: a, b");
    has(
        "unknown-node: node `bp` (add), wire ghost.out -> bp.b: expected an existing node, found `ghost`",
    );
    has("cycle: node `x` (add): x -> y -> x");
    has("type-mismatch: node `bad_type` (add), input `a`: expected float, found bool from gt.out");
    has("unknown-port: node `k` (num), param `colour`");
    has("type-mismatch: node `k` (num), param `value`: expected float, found string");
    let cycle = d.iter().find(|d| d.kind == DiagnosticKind::Cycle).unwrap();
    assert_eq!(
        cycle.nodes.iter().map(|n| n.as_str()).collect::<Vec<_>>(),
        ["x", "y"]
    );
}

#[test]
fn int_converts_to_float_but_not_back() {
    let e = env();
    let mut g = Graph::new();
    g.add_node("a", "add").unwrap();
    g.set_const("a", "a", Value::Int(2)).unwrap();
    assert!(validate(&g, &e.reg).is_empty());
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let out = ev
        .evaluate(&g, &Request::new(["a"]), &EvalContext::new())
        .unwrap();
    assert_eq!(out.get("a"), Some(&Value::Float(2.0)));
}

#[test]
fn a_valid_graph_has_no_diagnostics() {
    let e = env();
    assert!(validate(&chain(50), &e.reg).is_empty());
}

#[test]
fn duplicate_registration_is_an_error() {
    let mut e = env();
    let op = e.reg.get("num").unwrap().clone();
    assert_eq!(
        e.reg.register_arc(op),
        Err(RegistryError::Duplicate("num".into()))
    );
}
