//! A list given to a single input of a subgraph call maps the call per element, as it does
//! a plain op: the call is written once per element (`call[i]`), each copy given its element,
//! and each output of the call is the list of its copies' outputs.

use super::*;
use kiln_core::value::Value;

/// `twice(x: float)`: `test.count` passes `x` through, then `x + x + k`; a second output
/// keeps the count's value. `src` declares nodes; the call is given `x`.
fn doc(src: &str, x: &str) -> String {
    format!(
        r#"{{"kiln": 1,
      "graphs": {{"twice": {{
        "inputs": {{"x": {{"type": "float"}}, "k": {{"type": "float", "default": 0.5}}}},
        "nodes": {{
          "c": {{"op": "test.count", "inputs": {{"x": "x"}}}},
          "s": {{"op": "math.add", "inputs": {{"a": "c", "b": "c"}}}},
          "t": {{"op": "math.add", "inputs": {{"a": "s", "b": "k"}}}}
        }},
        "outputs": {{"out": "t", "raw": "c"}}}}}},
      "nodes": {{
        {src}
        "call": {{"op": "@twice", "inputs": {{"x": {x}}}}},
        "len": {{"op": "list.length", "inputs": {{"list": "call.out"}}}}
      }},
      "outputs": {{"r": "call.out", "raw": "call.raw", "n": "len"}}}}"#
    )
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_list()
        .unwrap_or_else(|| panic!("a list, found {v:?}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn cook(text: &str) -> (Vec<Value>, Lowered) {
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let mut eval = LazyEvaluator::new(registry());
    let o = eval
        .evaluate(
            &l.graph,
            &Request::new(["r", "raw", "n"]),
            &EvalContext::new(),
        )
        .unwrap();
    let vals = ["r", "raw", "n"]
        .iter()
        .map(|n| o.get(n).cloned().unwrap())
        .collect();
    (vals, l)
}

#[test]
fn a_constant_list_maps_the_call_once_per_element() {
    counting::take();
    let (v, l) = cook(&doc("", "[1.0, 2.0, 3.0, 4.0]"));
    assert_eq!(counting::take(), 4, "the body runs once per element");
    // 2x + 0.5, by hand.
    assert_eq!(floats(&v[0]), [2.5, 4.5, 6.5, 8.5]);
    // Every output of the call is the list of its copies' outputs.
    assert_eq!(floats(&v[1]), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(v[2], Value::Int(4));
    let each: Vec<(&str, &str, usize)> = l
        .report
        .scopes
        .iter()
        .map(|s| (s.kind, s.path.as_str(), s.copies))
        .collect();
    // The call is mapped as a whole: its body's nodes are not mapped one by one.
    assert_eq!(each, [("each", "call", 4)]);
}

#[test]
fn a_computed_list_is_cooked_then_maps_the_call_once_per_element() {
    counting::take();
    let (v, l) = cook(&doc(
        r#""xs": {"op": "list.range", "inputs": {"count": 5}},"#,
        r#""xs""#,
    ));
    assert_eq!(counting::take(), 5, "the body runs once per element");
    assert_eq!(floats(&v[0]), [0.5, 2.5, 4.5, 6.5, 8.5]);
    assert_eq!(v[2], Value::Int(5));
    let each: Vec<(&str, &str, usize)> = l
        .report
        .scopes
        .iter()
        .map(|s| (s.kind, s.path.as_str(), s.copies))
        .collect();
    assert_eq!(each, [("each", "call", 5)]);
}
