//! Calls, scopes, waits, choices and plan reuse, with values derived by hand.

use super::*;
use kiln_core::value::Value;

const REMAP_CALL: &str = r#"{
  "kiln": 1,
  "nodes": {
    "m": {"op": "@std/remap", "inputs": {"x": 0.25, "to_lo": 10.0, "to_hi": 20.0}}
  },
  "outputs": {"r": "m"}
}"#;

#[test]
fn a_shipped_subgraph_is_called_with_its_defaults_and_given_inputs() {
    // 0.25 of the way from 10 to 20.
    assert_eq!(cook_all(REMAP_CALL, "r"), Value::Float(12.5));
}

fn nested(depth: usize) -> String {
    // g0 adds 1 to x; g(k) calls g(k-1) twice in a chain, so g(k) adds 2^k.
    let mut graphs = vec![
        r#""g0": {"inputs": {"x": {"type": "float", "default": 0.0}}, "nodes": {"p": {"op": "math.add", "inputs": {"a": "x", "b": 1.0}}}, "outputs": {"out": "p"}}"#.to_string(),
    ];
    for k in 1..=depth {
        graphs.push(format!(
            r#""g{k}": {{"inputs": {{"x": {{"type": "float", "default": 0.0}}}}, "nodes": {{"a": {{"op": "@g{p}", "inputs": {{"x": "x"}}}}, "b": {{"op": "@g{p}", "inputs": {{"x": "a"}}}}}}, "outputs": {{"out": "b"}}}}"#,
            p = k - 1
        ));
    }
    format!(
        r#"{{"kiln": 1, "graphs": {{{}}}, "nodes": {{"top": {{"op": "@g{depth}", "inputs": {{"x": 0.5}}}}}}, "outputs": {{"r": "top"}}}}"#,
        graphs.join(", ")
    )
}

#[test]
fn calls_nest_to_any_depth_and_ids_name_the_call_path() {
    assert_eq!(cook_all(&nested(6), "r"), Value::Float(0.5 + 64.0));
    let d = document(&nested(2));
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let ids: Vec<&str> = l.graph.nodes().iter().map(|n| n.id.as_str()).collect();
    for id in ["top/a/a/p", "top/a/b/p", "top/b/a/p", "top/b/b/p"] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    // Four adds and the graph output; nothing of the interfaces is left.
    assert_eq!(l.graph.len(), 5);
}

#[test]
fn a_diagnostic_inside_a_subgraph_names_the_call_path() {
    let text = r#"{"kiln": 1,
      "graphs": {
        "inner": {"nodes": {"bad": {"op": "math.add", "inputs": {"a": 1.0, "nope": 2.0}}}, "outputs": {"out": "bad"}},
        "outer": {"nodes": {"i": {"op": "@inner"}}, "outputs": {"out": "i"}}
      },
      "nodes": {"w": {"op": "@outer"}},
      "outputs": {"r": "w"}}"#;
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let diags = validate(&l.graph, &registry());
    let shown = kiln_core::validate::Diagnostics(diags).to_string();
    assert!(shown.contains("w/i/bad"), "{shown}");
    assert!(shown.contains("nope"), "{shown}");
}

#[test]
fn a_call_of_an_input_its_graph_lacks_or_without_a_required_input_is_refused_by_name() {
    let text = r#"{"kiln": 1, "nodes": {"m": {"op": "@std/remap", "inputs": {"y": 1.0}}}, "outputs": {"r": "m"}}"#;
    let e = plan(&document(text).doc, &EvalContext::new()).unwrap_err();
    assert!(
        e.contains("`m`") && e.contains("`y`") && e.contains("x, from_lo"),
        "{e}"
    );
    let text = r#"{"kiln": 1,
      "graphs": {"need": {"inputs": {"v": {"type": "image"}}, "nodes": {"i": {"op": "image.invert", "inputs": {"image": "v"}}}, "outputs": {"out": "i"}}},
      "nodes": {"n": {"op": "@need"}}, "outputs": {"r": "n"}}"#;
    let e = plan(&document(text).doc, &EvalContext::new()).unwrap_err();
    assert!(
        e.contains("`n`") && e.contains("`v`") && e.contains("no default"),
        "{e}"
    );
}

#[test]
fn graphs_calling_each_other_in_a_loop_are_refused_with_the_path() {
    let text = r#"{"kiln": 1,
      "graphs": {
        "a": {"nodes": {"x": {"op": "@b"}}, "outputs": {"out": "x"}},
        "b": {"nodes": {"y": {"op": "@a"}}, "outputs": {"out": "y"}}
      },
      "nodes": {"top": {"op": "@a"}}, "outputs": {"r": "top"}}"#;
    let e = try_document(text).unwrap_err();
    assert!(e.contains("a -> b -> a"), "{e}");
    let e = try_document(r#"{"kiln": 1, "nodes": {"t": {"op": "@nowhere"}}}"#).unwrap_err();
    assert!(e.contains("@nowhere") && e.contains("nowhere.json"), "{e}");
}

fn sum_for(items: &str) -> String {
    format!(
        r#"{{"kiln": 1,
      "graphs": {{"acc": {{
        "inputs": {{"total": {{"type": "float", "default": 0.0}}, "item": {{"type": "float", "default": 0.0}}, "index": {{"type": "int", "default": 0}}}},
        "nodes": {{"sq": {{"op": "math.mul", "inputs": {{"a": "item", "b": "item"}}}}, "next": {{"op": "math.add", "inputs": {{"a": "total", "b": "sq"}}}}}},
        "outputs": {{"sum": "next", "square": "sq"}}}}}},
      "nodes": {{"s": {{"op": "@acc", "for": {{"items": {items}, "carry": {{"total": "sum"}}}}, "inputs": {{"total": 100.0}}}}}},
      "outputs": {{"sum": "s.sum", "squares": "s.square"}}}}"#
    )
}

#[test]
fn a_for_carries_a_value_from_copy_to_copy_and_collects_the_rest() {
    let text = sum_for("[1.0, 2.0, 3.0]");
    // 100 + 1 + 4 + 9.
    assert_eq!(cook_all(&text, "sum"), Value::Float(114.0));
    let squares = cook_all(&text, "squares");
    assert_eq!(
        squares,
        Value::List(vec![Value::Float(1.0), Value::Float(4.0), Value::Float(9.0)].into())
    );
    // No items: the carry is its initial value and the collection is empty.
    let empty = sum_for("[]");
    assert_eq!(cook_all(&empty, "sum"), Value::Float(100.0));
    assert_eq!(cook_all(&empty, "squares"), Value::List(Vec::new().into()));
}

#[test]
fn a_for_over_many_items_collects_them_in_order_through_a_gather_tree() {
    let items: Vec<String> = (0..300).map(|i| format!("{i}.0")).collect();
    let text = sum_for(&format!("[{}]", items.join(", ")));
    let Value::List(l) = cook_all(&text, "squares") else {
        panic!("not a list")
    };
    assert_eq!(l.len(), 300);
    for (i, v) in l.iter().enumerate() {
        assert_eq!(v, &Value::Float((i * i) as f64));
    }
    // Sum of squares 0..299 = 299*300*599/6.
    assert_eq!(cook_all(&text, "sum"), Value::Float(100.0 + 8955050.0));
}

fn doubling_fold(fold: &str) -> String {
    format!(
        r#"{{"kiln": 1,
      "graphs": {{"step": {{
        "inputs": {{"x": {{"type": "float", "default": 0.0}}}},
        "nodes": {{"d": {{"op": "math.mul", "inputs": {{"a": "x", "b": 2.0}}}}, "c": {{"op": "math.min", "inputs": {{"a": "d", "b": 40.0}}}}}},
        "outputs": {{"y": "c"}}}}}},
      "nodes": {{"f": {{"op": "@step", "fold": {fold}, "inputs": {{"x": 1.5}}}}}},
      "outputs": {{"r": "f.y"}}}}"#
    )
}

#[test]
fn a_fold_chains_its_passes_and_stops_at_a_fixed_point() {
    // 1.5 doubled 4 times.
    assert_eq!(
        cook_all(&doubling_fold(r#"{"count": 4, "state": {"x": "y"}}"#), "r"),
        Value::Float(24.0)
    );
    // 1.5, 3, 6, 12, 24, 40 (capped), then 40 again: the 6th pass changes nothing.
    let text = doubling_fold(r#"{"until": "changed", "state": {"x": "y"}}"#);
    assert_eq!(cook_all(&text, "r"), Value::Float(40.0));
    let l = plan(&document(&text).doc, &EvalContext::new()).unwrap();
    assert_eq!(l.report.scopes[0].copies, 6);
    assert_eq!(l.report.scopes[0].stopped.as_deref(), Some("changed"));
    // A cap below the fixed point fails, naming the fold and its cap.
    let text = doubling_fold(r#"{"until": "changed", "max": 3, "state": {"x": "y"}}"#);
    let e = plan(&document(&text).doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("fold `f`") && e.contains("3 passes"), "{e}");
    // A count with until: stops at whichever comes first.
    let text = doubling_fold(r#"{"count": 3, "until": "changed", "state": {"x": "y"}}"#);
    assert_eq!(cook_all(&text, "r"), Value::Float(12.0));
}

#[test]
fn a_scope_list_or_count_from_a_node_is_cooked_first_as_a_wait() {
    let text = r#"{"kiln": 1,
      "graphs": {"acc": {
        "inputs": {"total": {"type": "float", "default": 0.0}, "item": {"type": "float", "default": 0.0}},
        "nodes": {"next": {"op": "math.add", "inputs": {"a": "total", "b": "item"}}},
        "outputs": {"sum": "next"}}},
      "nodes": {
        "list": {"op": "const", "params": {"value": [2.0, 3.0, 5.0]}},
        "s": {"op": "@acc", "for": {"items": "list", "carry": {"total": "sum"}}}
      },
      "outputs": {"sum": "s.sum"}}"#;
    assert_eq!(cook_all(text, "sum"), Value::Float(10.0));
    let l = plan(&document(text).doc, &EvalContext::new()).unwrap();
    assert_eq!(l.report.waits, vec!["list.out".to_string()]);
    // A count from a graph input is read, not waited on, and the plan stands on it.
    let text = r#"{"kiln": 1,
      "inputs": {"n": {"type": "int", "default": 3}},
      "graphs": {"step": {"inputs": {"x": {"type": "float", "default": 0.0}}, "nodes": {"d": {"op": "math.add", "inputs": {"a": "x", "b": 1.0}}}, "outputs": {"y": "d"}}},
      "nodes": {"f": {"op": "@step", "fold": {"count": "n", "state": {"x": "y"}}}},
      "outputs": {"r": "f.y"}}"#;
    let d = document(text);
    let mut p = Lowerer::new(registry());
    let mut ctx = EvalContext::new();
    let a = planned(&mut p, &d, &ctx);
    assert_eq!(a.report.scopes[0].copies, 3);
    assert!(a.report.waits.is_empty());
    let b = planned(&mut p, &d, &ctx);
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    ctx.inputs.insert("n".into(), Value::Int(5));
    let c = planned(&mut p, &d, &ctx);
    assert_eq!(c.report.scopes[0].copies, 5);
    assert_eq!(p.counts().made, 2);
    assert_eq!(p.counts().reused, 1);
}

#[test]
fn the_digest_of_a_document_ignores_node_order_and_a_patch_equals_a_whole_digest() {
    let a = r#"{"kiln": 1, "nodes": {"p": {"op": "math.add", "inputs": {"a": 1.0, "b": "q"}}, "q": {"op": "const", "params": {"value": 2.0}}}, "outputs": {"r": "p"}}"#;
    let b = r#"{"kiln": 1, "outputs": {"r": "p"}, "nodes": {"q": {"op": "const", "params": {"value": 2.0}}, "p": {"op": "math.add", "inputs": {"b": "q", "a": 1.0}}}}"#;
    let (da, db) = (document(a), document(b));
    assert_eq!(da.digest.key(), db.digest.key());
    let mut doc = da.doc.clone();
    let mut digest = da.digest.clone();
    doc.graph.set_const("p", "a", Value::Float(7.0)).unwrap();
    digest.patch(&doc, &["p"]);
    assert_eq!(
        digest.key(),
        kiln_doc::document::DocDigest::whole(&doc).key()
    );
    assert_ne!(digest.key(), da.digest.key());
}
