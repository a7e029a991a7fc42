//! What is cooked again after an edit: copies are keyed by content, so only what changed
//! cooks; an alternative the plan did not take is never written, cooked or baked.

use super::*;
use kiln_core::value::Value;

fn for_over(items: &[f64]) -> String {
    let list: Vec<String> = items.iter().map(|v| format!("{v:?}")).collect();
    format!(
        r#"{{"kiln": 1,
      "graphs": {{"body": {{
        "inputs": {{"item": {{"type": "float", "default": 0.0}}}},
        "nodes": {{"c": {{"op": "test.count", "inputs": {{"x": "item"}}}}, "sq": {{"op": "math.mul", "inputs": {{"a": "c", "b": "c"}}}}}},
        "outputs": {{"out": "sq"}}}}}},
      "nodes": {{"f": {{"op": "@body", "for": [{}]}}}},
      "outputs": {{"r": "f"}}}}"#,
        list.join(", ")
    )
}

fn cook(eval: &mut LazyEvaluator, text: &str) -> Value {
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    eval.evaluate(&l.graph, &Request::new(["r"]), &EvalContext::new())
        .unwrap()
        .get("r")
        .cloned()
        .unwrap()
}

#[test]
fn one_changed_item_of_a_thousand_cooks_one_copy_and_reordering_cooks_none() {
    let mut items: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    let mut eval = LazyEvaluator::new(registry());
    counting::take();
    let Value::List(first) = cook(&mut eval, &for_over(&items)) else {
        panic!()
    };
    assert_eq!(first.len(), 1000);
    assert_eq!(first[7], Value::Float(49.0));
    assert_eq!(counting::take(), 1000);

    items[500] = 0.5;
    let Value::List(second) = cook(&mut eval, &for_over(&items)) else {
        panic!()
    };
    assert_eq!(second[500], Value::Float(0.25));
    assert_eq!(counting::take(), 1, "only the changed copy cooks");

    items.reverse();
    let Value::List(third) = cook(&mut eval, &for_over(&items)) else {
        panic!()
    };
    assert_eq!(third[0], Value::Float(999.0 * 999.0));
    assert_eq!(counting::take(), 0, "reordered copies are all known");

    items.insert(10, 4242.0);
    cook(&mut eval, &for_over(&items));
    assert_eq!(counting::take(), 1, "an inserted item cooks its copy alone");
}

fn choice(flag: bool) -> String {
    format!(
        r#"{{"kiln": 1,
      "inputs": {{"fancy": {{"type": "bool", "default": {flag}}}}},
      "nodes": {{
        "cheap": {{"op": "math.add", "inputs": {{"a": 1.0, "b": 2.0}}}},
        "costly": {{"op": "test.count", "inputs": {{"x": 9.0}}}},
        "costly2": {{"op": "math.mul", "inputs": {{"a": "costly", "b": 3.0}}}},
        "pick": {{"op": "switch", "inputs": {{"cond": "fancy", "a": "costly2", "b": "cheap"}}}}
      }},
      "outputs": {{"r": "pick"}}}}"#
    )
}

#[test]
fn the_untaken_side_of_a_choice_the_plan_knows_is_never_written_or_cooked() {
    let d = document(&choice(false));
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let ids: Vec<&str> = l.graph.nodes().iter().map(|n| n.id.as_str()).collect();
    assert!(
        !ids.contains(&"costly") && !ids.contains(&"costly2") && !ids.contains(&"pick"),
        "{ids:?}"
    );
    assert_eq!(l.report.pruned, 2);
    let mut eval = LazyEvaluator::new(registry());
    counting::take();
    assert_eq!(cook(&mut eval, &choice(false)), Value::Float(3.0));
    assert_eq!(counting::take(), 0);
    // Taken, it is cooked; an input set at plan time chooses as well.
    assert_eq!(cook(&mut eval, &choice(true)), Value::Float(27.0));
    assert_eq!(counting::take(), 1);
    let mut ctx = EvalContext::new();
    ctx.inputs.insert("fancy".into(), Value::Bool(true));
    let l = plan(&d.doc, &ctx).unwrap();
    assert!(l.graph.node("costly").is_some() && l.graph.node("cheap").is_none());
    assert!(l.inputs_read.contains("fancy"));
}

#[test]
fn a_choice_the_plan_cannot_know_stays_a_lazy_switch() {
    let text = r#"{"kiln": 1,
      "nodes": {
        "t": {"op": "clock.time"},
        "late": {"op": "cmp.gt", "inputs": {"a": "t", "b": 1.0}},
        "pick": {"op": "switch", "inputs": {"cond": "late", "a": 1.0, "b": 2.0}}
      },
      "outputs": {"r": "pick"}}"#;
    let l = plan(&document(text).doc, &EvalContext::new()).unwrap();
    assert!(l.graph.node("pick").is_some());
    assert_eq!(l.report.choices, 0);
}

#[test]
fn editing_one_subgraph_file_cooks_again_only_the_calls_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let body = |k: f64| {
        format!(
            r#"{{"kiln": 1, "inputs": {{"x": {{"type": "float", "default": 0.0}}}},
              "nodes": {{"c": {{"op": "test.count", "inputs": {{"x": "x"}}}}, "m": {{"op": "math.mul", "inputs": {{"a": "c", "b": {k:?}}}}}}},
              "outputs": {{"out": "m"}}}}"#
        )
    };
    std::fs::write(dir.path().join("a.json"), body(2.0)).unwrap();
    std::fs::write(dir.path().join("b.json"), body(3.0)).unwrap();
    std::fs::write(
        dir.path().join("top.json"),
        r#"{"kiln": 1, "nodes": {
            "a1": {"op": "@a", "inputs": {"x": 1.0}}, "a2": {"op": "@a", "inputs": {"x": 2.0}},
            "b1": {"op": "@b", "inputs": {"x": 7.0}},
            "sum": {"op": "math.add", "inputs": {"a": "a1", "b": "a2"}},
            "all": {"op": "math.add", "inputs": {"a": "sum", "b": "b1"}}},
          "outputs": {"r": "all"}}"#,
    )
    .unwrap();
    let reg = registry();
    let mut eval = LazyEvaluator::new(reg.clone());
    let mut run = || {
        let d = kiln_doc::assets::read_document(
            &dir.path().join("top.json"),
            &reg,
            &LibraryPath::default(),
        )
        .unwrap();
        assert_eq!(d.files.len(), 3, "the top file and the two it calls");
        let l = plan(&d.doc, &EvalContext::new()).unwrap();
        let out = eval
            .evaluate(&l.graph, &Request::new(["r"]), &EvalContext::new())
            .unwrap();
        (out.get("r").cloned().unwrap(), d.digest.key())
    };
    counting::take();
    let (v, k1) = run();
    assert_eq!(v, Value::Float(2.0 + 4.0 + 21.0));
    assert_eq!(counting::take(), 3);
    std::fs::write(dir.path().join("a.json"), body(10.0)).unwrap();
    let (v, k2) = run();
    assert_eq!(v, Value::Float(10.0 + 20.0 + 21.0));
    assert_ne!(k1, k2, "the document's digest covers the files it calls");
    // test.count sits before the edited multiply: its copies are unchanged and answered.
    assert_eq!(counting::take(), 0);
    std::fs::write(
        dir.path().join("b.json"),
        body(3.0).replace("\"x\": \"x\"", "\"x\": 5.0"),
    )
    .unwrap();
    let (v, _) = run();
    assert_eq!(v, Value::Float(10.0 + 20.0 + 15.0));
    assert_eq!(counting::take(), 1, "only b's call cooks again");
}
