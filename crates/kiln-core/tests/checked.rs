//! Validation keeps what it resolved: a plan made from the check ([`Plan::from_checked`])
//! resolves nothing again, and an evaluator that adopts it evaluates that graph revision
//! without building a plan of its own.

mod common;
use common::*;
use kiln_core::eval::Served;
use kiln_core::plan::Plan;
use kiln_core::prelude::*;
use kiln_core::validate::{check, resolve_count};
use std::sync::Arc;

/// Every evaluator built on the shared host, by name.
fn evaluators(reg: &Registry) -> Vec<(&'static str, Box<dyn Evaluator>)> {
    vec![
        ("lazy", Box::new(LazyEvaluator::new(reg.clone()))),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        // Background compilation left on: an adopted plan is ready, so nothing is compiled.
        ("compiled", Box::new(CompiledEvaluator::new(reg.clone()))),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone())),
        ),
    ]
}

#[test]
fn check_reports_exactly_what_validate_reports() {
    let e = env();
    let mut g = chain(3);
    g.add_node("u", "nmu").unwrap(); // unknown op
    g.wire("n0.out", "n1.a"); // a second wire into one input
    g.add_node("tm", "add").unwrap();
    g.set_const("tm", "a", "text").unwrap();
    let diags = check(&g, &e.reg).unwrap_err();
    assert_eq!(diags.0, validate(&g, &e.reg));
    assert!(diags.0.len() >= 3, "{diags:?}");

    let ok = chain(3);
    assert!(validate(&ok, &e.reg).is_empty());
    let checked = check(&ok, &e.reg).unwrap();
    assert_eq!(checked.revision(), ok.revision());
    assert!(checked.plan_refusal().is_empty());
    assert_eq!(checked.output_types().len(), 3);
}

#[test]
fn a_plan_from_the_check_resolves_once_under_every_evaluator() {
    let e = env();
    let g = chain(6);
    for (name, mut eval) in evaluators(&e.reg) {
        let before = resolve_count();
        let plan = Arc::new(Plan::from_checked(check(&g, &e.reg).unwrap()).unwrap());
        assert_eq!(
            resolve_count() - before,
            1,
            "{name}: the check resolves once"
        );
        eval.adopt_plan(plan.clone());
        let out = eval
            .evaluate(&g, &Request::new(["n5"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("n5"), Some(&Value::Float(6.0)), "{name}");
        assert_eq!(
            resolve_count() - before,
            1,
            "{name}: evaluating the checked revision resolved the graph again"
        );
        // Again, on the plan it kept.
        let out = eval
            .evaluate(&g, &Request::new(["n3"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("n3"), Some(&Value::Float(4.0)), "{name}");
        assert_eq!(resolve_count() - before, 1, "{name}");
    }
}

#[test]
fn the_adopted_plan_is_the_one_the_evaluator_runs() {
    let e = env();
    let g = chain(4);
    let plan = Arc::new(Plan::from_checked(check(&g, &e.reg).unwrap()).unwrap());
    let mut inc = IncrementalEvaluator::new(e.reg.clone());
    inc.adopt_plan(plan.clone());
    inc.evaluate(&g, &Request::new(["n3"]), &EvalContext::new())
        .unwrap();
    assert!(Arc::ptr_eq(inc.plan().unwrap(), &plan));

    let mut compiled = CompiledEvaluator::new(e.reg.clone());
    compiled.adopt_plan(plan);
    compiled
        .evaluate(&g, &Request::new(["n3"]), &EvalContext::new())
        .unwrap();
    assert_eq!(compiled.last_served(), Served::Compiled);
}

#[test]
fn a_plan_of_another_revision_is_not_used() {
    let e = env();
    let mut g = chain(3);
    let plan = Arc::new(Plan::from_checked(check(&g, &e.reg).unwrap()).unwrap());
    // A structural edit after the check: the adopted plan no longer serves the graph.
    g.add_node("n3", "add").unwrap();
    g.set_const("n3", "b", 10.0).unwrap();
    g.wire("n2.out", "n3.a");
    for (name, mut eval) in evaluators(&e.reg) {
        eval.adopt_plan(plan.clone());
        let before = resolve_count();
        let out = eval
            .evaluate(&g, &Request::new(["n3"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("n3"), Some(&Value::Float(13.0)), "{name}");
        assert_eq!(
            resolve_count() - before,
            1,
            "{name} planned the edited graph"
        );
    }
}

#[test]
fn only_a_graph_plan_build_accepts_becomes_a_plan() {
    let e = env();
    // A list constant into a float input: valid for a graph a plan writes out (the node is
    // written once per element), but no tick plan.
    let mut g = Graph::new();
    g.add_node("a", "add").unwrap();
    g.set_const(
        "a",
        "a",
        Value::list([Value::Float(1.0), Value::Float(2.0)]),
    )
    .unwrap();
    assert!(validate(&g, &e.reg).is_empty());
    let checked = check(&g, &e.reg).unwrap();
    let built = Plan::build(&g, &e.reg).unwrap_err();
    assert_eq!(checked.plan_refusal(), &built.0[..]);
    let refused = Plan::from_checked(checked).unwrap_err();
    assert_eq!(refused, built);
    assert!(
        refused.0[0]
            .to_string()
            .contains("type-mismatch: node `a` (add), input `a`"),
        "{refused:?}"
    );
}

#[test]
fn plan_build_resolves_once() {
    let e = env();
    let g = chain(3);
    let before = resolve_count();
    Plan::build(&g, &e.reg).unwrap();
    assert_eq!(resolve_count() - before, 1);
    validate(&g, &e.reg);
    assert_eq!(resolve_count() - before, 2);
}
