//! Entities through ports: a list into a single input writes its node once per element (an
//! implicit `for`, keyed per element), several wires into a collective input queue in a fixed
//! order, and divergence shares values.

use super::*;
use kiln_core::value::Value;

/// `test.count` fed a list of floats from a graph input: a single input given a list.
fn per_entity(items: &[f64]) -> String {
    let list: Vec<String> = items.iter().map(|v| format!("{v:?}")).collect();
    format!(
        r#"{{"kiln": 1,
      "inputs": {{"xs": {{"type": "list<float>", "default": [{}]}}}},
      "nodes": {{
        "c": {{"op": "test.count", "inputs": {{"x": "xs"}}}},
        "sq": {{"op": "math.mul", "inputs": {{"a": "c", "b": "c"}}}},
        "len": {{"op": "list.length", "inputs": {{"list": "sq"}}}}
      }},
      "outputs": {{"r": "sq", "n": "len"}}}}"#,
        list.join(", ")
    )
}

fn cook_doc(eval: &mut LazyEvaluator, text: &str, outs: &[&str]) -> (Vec<Value>, Lowered) {
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let o = eval
        .evaluate(
            &l.graph,
            &Request::new(outs.iter().copied()).with_timings(),
            &EvalContext::new(),
        )
        .unwrap();
    let counts = l
        .report
        .scope_counts(o.timings.iter().map(|t| (t.node.as_str(), t.cut_off)));
    assert!(counts.iter().all(|c| c.kind == "each"));
    let vals = outs.iter().map(|o2| o.get(o2).cloned().unwrap()).collect();
    (vals, l)
}

#[test]
fn a_list_into_a_single_port_runs_the_node_once_per_entity_and_an_edit_recooks_one() {
    let mut items: Vec<f64> = (0..100).map(|i| i as f64).collect();
    let mut eval = LazyEvaluator::new(registry());
    counting::take();
    let (v, l) = cook_doc(&mut eval, &per_entity(&items), &["r", "n"]);
    assert_eq!(counting::take(), 100, "one run per entity");
    let Value::List(r) = &v[0] else {
        panic!("{:?}", v[0])
    };
    assert_eq!(r.len(), 100);
    assert_eq!(r[7], Value::Float(49.0));
    // `list.length` takes lists: it runs once, on the gathered results.
    assert_eq!(v[1], Value::Int(100));
    let each: Vec<(&str, usize)> = l
        .report
        .scopes
        .iter()
        .map(|s| (s.path.as_str(), s.copies))
        .collect();
    // `c` maps over the input; `sq` maps over `c`'s copies, element by element.
    assert_eq!(each, [("c", 100), ("sq", 100)]);

    items[42] = 0.5;
    let d = document(&per_entity(&items));
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let o = eval
        .evaluate(
            &l.graph,
            &Request::new(["r"]).with_timings(),
            &EvalContext::new(),
        )
        .unwrap();
    assert_eq!(counting::take(), 1, "only the changed entity's copy cooks");
    let Some(Value::List(r)) = o.get("r") else {
        panic!()
    };
    assert_eq!(r[42], Value::Float(0.25));
    let counts = l
        .report
        .scope_counts(o.timings.iter().map(|t| (t.node.as_str(), t.cut_off)));
    let c = counts.iter().find(|c| c.path == "c").unwrap();
    assert_eq!((c.copies, c.cooked, c.reused), (100, 1, 99));
}

#[test]
fn a_collective_port_runs_once_and_wires_queue_by_source_id_then_port() {
    // Wires written in the order z, a, m: the queue is a, m, z whatever the file's order; the
    // list source `m` gives its two elements in place.
    let text = r#"{"kiln": 1, "nodes": {
        "z": {"op": "math.add", "inputs": {"a": 1.0, "b": 0.0}},
        "a": {"op": "math.add", "inputs": {"a": 2.0, "b": 0.0}},
        "m": {"op": "list.range", "inputs": {"start": 10, "count": 2}},
        "all": {"op": "list.make", "inputs": {"items": {"wires": ["z", "a", "m"]}}}
      },
      "outputs": {"r": "all"}}"#;
    let v = cook_all(text, "r");
    assert_eq!(
        v,
        Value::list([
            Value::Float(2.0),
            Value::Int(10),
            Value::Int(11),
            Value::Float(1.0)
        ])
    );
    let reordered = r#"{"kiln": 1, "nodes": {
        "m": {"op": "list.range", "inputs": {"start": 10, "count": 2}},
        "all": {"op": "list.make", "inputs": {"items": {"wires": ["m", "a", "z"]}}},
        "a": {"op": "math.add", "inputs": {"a": 2.0, "b": 0.0}},
        "z": {"op": "math.add", "inputs": {"a": 1.0, "b": 0.0}}
      },
      "outputs": {"r": "all"}}"#;
    assert!(cook_all(reordered, "r").same_bits(&v));
    // And on two threads.
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let mut two = CompiledEvaluator::new(registry())
        .with_background(false)
        .with_parallel(ParallelPolicy::Rayon {
            threads: Some(2),
            min_cost: None,
        });
    let o = two
        .evaluate(&l.graph, &Request::new(["r"]), &EvalContext::new())
        .unwrap();
    assert!(o.get("r").unwrap().same_bits(&v));
}

#[test]
fn a_single_value_into_a_collective_port_is_a_list_of_one() {
    let text = r#"{"kiln": 1, "nodes": {
        "a": {"op": "math.add", "inputs": {"a": 2.0, "b": 0.5}},
        "all": {"op": "list.make", "inputs": {"items": "a"}},
        "n": {"op": "list.length", "inputs": {"list": "all"}}
      },
      "outputs": {"r": "n"}}"#;
    assert_eq!(cook_all(text, "r"), Value::Int(1));
}

#[test]
fn mapped_inputs_of_one_node_must_have_the_same_length() {
    let text = r#"{"kiln": 1, "nodes": {
        "s": {"op": "math.add", "inputs": {"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0]}}
      },
      "outputs": {"r": "s"}}"#;
    let d = document(text);
    let e = plan(&d.doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("`s`") || e.contains(" s "), "{e}");
    assert!(e.contains("2") && e.contains("3"), "{e}");
    // Equal lengths: one copy per pair of elements.
    let ok = text.replace("[1.0, 2.0, 3.0]", "[10.0, 20.0]");
    assert_eq!(
        cook_all(&ok, "r"),
        Value::list([Value::Float(11.0), Value::Float(22.0)])
    );
}

#[test]
fn a_computed_list_is_cooked_by_the_plan_then_mapped() {
    let text = r#"{"kiln": 1, "nodes": {
        "ids": {"op": "list.range", "inputs": {"start": 1, "count": 3}},
        "f": {"op": "math.mul", "inputs": {"a": "ids", "b": 1.5}}
      },
      "outputs": {"r": "f"}}"#;
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    assert_eq!(l.report.waits, ["ids.out"]);
    assert_eq!(
        cook_all(text, "r"),
        Value::list([1.5, 3.0, 4.5].map(Value::Float))
    );
}

#[test]
fn a_collective_graph_input_queues_the_wires_into_its_call() {
    let text = r#"{"kiln": 1,
      "graphs": {"total": {
        "inputs": {"parts": {"type": "list<float>", "collective": true}},
        "nodes": {"n": {"op": "list.length", "inputs": {"list": "parts"}}},
        "outputs": {"out": "n"}}},
      "nodes": {
        "b": {"op": "math.add", "inputs": {"a": 1.0, "b": 0.0}},
        "a": {"op": "math.add", "inputs": {"a": 1.0, "b": 1.0}},
        "t": {"op": "@total", "inputs": {"parts": {"wires": ["b", "a"]}}}
      },
      "outputs": {"r": "t"}}"#;
    assert_eq!(cook_all(text, "r"), Value::Int(2));
    let single = text.replace(r#""collective": true"#, r#""collective": false"#);
    let d = document(&single);
    let e = plan(&d.doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("parts") && e.contains("collective"), "{e}");
}

#[test]
fn divergence_shares_one_value_between_consumers() {
    // One list read by two consumers: both outputs are the very same shared list.
    let text = r#"{"kiln": 1, "nodes": {
        "l": {"op": "list.range", "inputs": {"count": 1000}},
        "p": {"op": "output", "inputs": {"value": "l"}},
        "q": {"op": "list.make", "inputs": {"items": "l"}}
      },
      "outputs": {"r": "p", "s": "q"}}"#;
    let d = document(text);
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    let reg = registry();
    for mut e in [
        Box::new(LazyEvaluator::new(reg.clone())) as Box<dyn Evaluator>,
        Box::new(EagerEvaluator::new(reg.clone())),
        Box::new(CompiledEvaluator::new(reg.clone())),
        Box::new(IncrementalEvaluator::new(reg.clone())),
    ] {
        let o = e
            .evaluate(&l.graph, &Request::new(["r", "s"]), &EvalContext::new())
            .unwrap();
        let (Some(Value::List(a)), Some(Value::List(b))) = (o.get("r"), o.get("s")) else {
            panic!()
        };
        assert!(
            std::sync::Arc::ptr_eq(a, b),
            "the same Arc reaches both consumers"
        );
    }
}

mod generated_lists {
    use super::*;
    use proptest::prelude::*;

    /// `(op, constant)` steps applied to each entity.
    fn apply(op: &str, x: f64, k: f64) -> f64 {
        match op {
            "math.add" => x + k,
            "math.mul" => x * k,
            _ => x.min(k),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// A random chain of per-entity arithmetic over a list, queued with the list itself
        /// into a collective input and sorted: every evaluator gives the bits of the same
        /// work written in Rust.
        #[test]
        fn per_entity_chains_queues_and_sorts_match_a_direct_computation(
            xs in prop::collection::vec((-8i32..8).prop_map(|i| i as f64 * 0.5), 0..12),
            steps in prop::collection::vec(
                (prop_oneof![Just("math.add"), Just("math.mul"), Just("math.min")],
                 (-8i32..8).prop_map(|i| i as f64 * 0.5)),
                1..5,
            ),
        ) {
            let mut nodes = vec![];
            let mut prev = "xs".to_string();
            for (i, (op, k)) in steps.iter().enumerate() {
                nodes.push(format!(r#""s{i}": {{"op": "{op}", "inputs": {{"a": "{prev}", "b": {k:?}}}}}"#));
                prev = format!("s{i}");
            }
            nodes.push(format!(r#""q": {{"op": "list.make", "inputs": {{"items": {{"wires": ["xs", "{prev}"]}}}}}}"#));
            nodes.push(r#""sorted": {"op": "list.sort", "inputs": {"list": "q"}}"#.to_string());
            let list: Vec<String> = xs.iter().map(|v| format!("{v:?}")).collect();
            let text = format!(
                r#"{{"kiln": 1, "inputs": {{"xs": {{"type": "list<float>", "default": [{}]}}}},
                   "nodes": {{{}}}, "outputs": {{"r": "sorted", "raw": "q"}}}}"#,
                list.join(", "),
                nodes.join(", ")
            );
            let ys: Vec<f64> = xs
                .iter()
                .map(|&x| steps.iter().fold(x, |v, (op, k)| apply(op, v, *k)))
                .collect();
            // Queued by source id: `s<last>` before `xs`.
            let mut q = ys.clone();
            q.extend(&xs);
            let raw = cook_all(&text, "raw");
            prop_assert!(raw.same_bits(&Value::list(q.iter().map(|&v| Value::Float(v)))), "{raw:?}");
            q.sort_by(|a, b| a.total_cmp(b));
            let sorted = cook_all(&text, "r");
            prop_assert!(sorted.same_bits(&Value::list(q.iter().map(|&v| Value::Float(v)))), "{sorted:?}");
        }
    }
}
