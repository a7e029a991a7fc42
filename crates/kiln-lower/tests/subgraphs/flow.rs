//! Flow graphs (`"paradigm": "flow"`) from files: a call written out as one `scope.flow`
//! node, the same bits under every evaluator, keyed by content, failures not kept, and the
//! file checks on paradigms and loop ports.

use super::*;
use kiln_core::value::Value;
use kiln_lower::flow::{FLOW_OP, FlowBody};

/// A top graph calling an inline flow graph that splits `lot` until every part's area is at
/// most `area`, with loop cap `max`.
fn subdivide(lot: &str, area: f64, max: u32) -> String {
    format!(
        r#"{{
  "kiln": 1,
  "graphs": {{
    "plots": {{
      "paradigm": "flow",
      "inputs": {{"lot": {{"type": "vec4"}}}},
      "nodes": {{
        "split": {{"op": "rect.split", "inputs": {{"rect": "lot", "rect": "route.big"}},
                   "loop": {{"rect": {{"max": {max}}}}}}},
        "route": {{"op": "rect.small", "params": {{"area": {area}}},
                   "inputs": {{"rect": "split.first", "rect": "split.second"}}}}
      }},
      "outputs": {{"parcels": "route.small"}}
    }}
  }},
  "nodes": {{
    "lots": {{"op": "@plots", "inputs": {{"lot": {lot}}}}}
  }},
  "outputs": {{"parcels": "lots.parcels"}}
}}"#
    )
}

fn vec4s(v: &Value) -> Vec<[f64; 4]> {
    let mut out: Vec<[f64; 4]> = v
        .as_list()
        .unwrap()
        .iter()
        .map(|p| match p {
            Value::Vec4(r) => *r,
            other => panic!("{other:?}"),
        })
        .collect();
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

#[test]
fn a_flow_call_is_one_node_and_every_evaluator_gives_the_same_parcels() {
    // 4 x 2 (area 8) → two 2 x 2 (4) → four 1 x 2 (2) → eight 1 x 1 (1): area ≤ 1.
    let text = subdivide("[0, 0, 4, 2]", 1.0, 10);
    let d = document(&text);
    let lowered = plan(&d.doc, &EvalContext::new()).unwrap();
    let flows: Vec<_> = lowered
        .graph
        .nodes()
        .iter()
        .filter(|n| n.op == FLOW_OP)
        .collect();
    assert_eq!(flows.len(), 1);
    assert_eq!(flows[0].id.as_str(), "lots");
    let v = cook_all(&text, "parcels");
    let mut expected = vec![];
    for x in 0..4 {
        for y in 0..2 {
            expected.push([x as f64, y as f64, 1.0, 1.0]);
        }
    }
    assert_eq!(vec4s(&v), expected);
}

#[test]
fn a_flow_call_is_cached_by_content_and_a_failed_one_is_not_kept() {
    let d = document(&subdivide("[0, 0, 4, 2]", 1.0, 10));
    let lowered = plan(&d.doc, &EvalContext::new()).unwrap();
    let body = lowered.graph.node("lots").unwrap().params["body"].clone();
    let body = body.as_heavy::<FlowBody>().unwrap();
    let mut eval = LazyEvaluator::new(registry());
    let req = Request::new(["parcels"]);
    eval.evaluate(&lowered.graph, &req, &EvalContext::new())
        .unwrap();
    let out = eval
        .evaluate(&lowered.graph, &req, &EvalContext::new())
        .unwrap();
    assert_eq!(out.stats.executed, 0);
    assert_eq!(body.runs(), 1);
    // Three splits send parts back twice: a cap of 1 fails, every time it is asked.
    let d = document(&subdivide("[0, 0, 4, 2]", 1.0, 1));
    let lowered = plan(&d.doc, &EvalContext::new()).unwrap();
    let body = lowered.graph.node("lots").unwrap().params["body"].clone();
    let body = body.as_heavy::<FlowBody>().unwrap();
    for n in 1..=2 {
        let e = eval
            .evaluate(&lowered.graph, &req, &EvalContext::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("loop `split.rect`"), "{e}");
        assert!(e.contains("more than 1 times"), "{e}");
        assert_eq!(body.runs(), n);
    }
}

#[test]
fn a_loop_port_outside_a_flow_graph_is_refused() {
    let text = subdivide("[0, 0, 4, 2]", 1.0, 10).replace(r#""paradigm": "flow","#, "");
    let e = try_document(&text).unwrap_err();
    assert!(e.contains("only a flow graph"), "{e}");
    assert!(e.contains("nodes.split.loop"), "{e}");
}

#[test]
fn a_cycle_without_a_loop_port_is_refused_by_the_plan() {
    let text = subdivide("[0, 0, 4, 2]", 1.0, 10).replace(
        r#",
                   "loop": {"rect": {"max": 10}}"#,
        "",
    );
    let d = document(&text);
    let e = plan(&d.doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("flow `lots`"), "{e}");
    assert!(e.contains("passes through no loop port"), "{e}");
}

#[test]
fn bad_paradigms_and_loop_ports_are_load_errors() {
    let text = subdivide("[0, 0, 4, 2]", 1.0, 10);
    for (from, to, says) in [
        (
            r#""paradigm": "flow""#,
            r#""paradigm": "stream""#,
            "`paradigm` is",
        ),
        (
            r#"{"max": 10}"#,
            r#"{"max": 0}"#,
            "`max` must be a whole number from 1",
        ),
        (r#"{"max": 10}"#, r#"{"most": 10}"#, "unknown key `most`"),
        (
            r#"{"rect": {"max": 10}}"#,
            r#"["rect"]"#,
            "`loop` must be an object",
        ),
    ] {
        let e = try_document(&text.replace(from, to)).unwrap_err();
        assert!(e.contains(says), "{to}: {e}");
    }
}

#[test]
fn a_flow_graph_runs_only_as_a_call_and_only_once() {
    let top = r#"{"kiln": 1, "paradigm": "flow", "nodes": {"a": {"op": "const", "params": {"value": 1.0}}}}"#;
    let d = document(top);
    let e = plan(&d.doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("a flow graph runs as a call"), "{e}");
    let text = subdivide("[0, 0, 4, 2]", 1.0, 10).replace(
        r#""op": "@plots", "inputs""#,
        r#""op": "@plots", "for": [[0, 0, 1, 1]], "inputs""#,
    );
    let e = plan(&document(&text).doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("is a flow graph, which is called once"), "{e}");
}

#[test]
fn an_edit_of_a_flow_calls_input_cooks_the_flow_again_with_the_new_entities() {
    use kiln_lower::lower::{Edit, Live};
    let mut live = Live::new(
        registry(),
        document(&subdivide("[0, 0, 4, 2]", 1.0, 10)).doc,
    );
    let mut eval = IncrementalEvaluator::new(registry());
    let ctx = EvalContext::new();
    let req = Request::new(["parcels"]);
    let plan = live.lower(&ctx).unwrap();
    let first = eval.evaluate(&plan.graph, &req, &ctx).unwrap();
    assert_eq!(vec4s(first.get("parcels").unwrap()).len(), 8);
    // A 2 x 2 lot: two rounds of splits, four parcels of 1 x 1.
    live.edit(Edit::Const {
        node: "lots".into(),
        port: "lot".into(),
        value: Value::Vec4([0.0, 0.0, 2.0, 2.0]),
    })
    .unwrap();
    let plan = live.lower(&ctx).unwrap();
    let second = eval.evaluate(&plan.graph, &req, &ctx).unwrap();
    let want: Vec<[f64; 4]> = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        .iter()
        .map(|&[x, y]| [x, y, 1.0, 1.0])
        .collect();
    assert_eq!(vec4s(second.get("parcels").unwrap()), want);
    // Nothing else changed: asking again cooks nothing.
    let again = eval.evaluate(&plan.graph, &req, &ctx).unwrap();
    assert_eq!(again.stats.executed, 0);
}
