//! A document under edit: value edits the plan did not decide on are made in the kept flat
//! graph in place (the incremental evaluator then cooks only their cone), every other edit
//! makes a new plan, and either way the answer is the one a fresh plan of the edited document
//! gives.

use super::*;
use kiln_core::value::Value;
use kiln_doc::document::DocDigest;
use kiln_lower::lower::{Edit, EditError, Live};
use proptest::prelude::*;

const BODY: &str = r#""body": {
    "inputs": {"item": {"type": "float", "default": 0.0}, "gain": {"type": "float", "default": 2.0}},
    "nodes": {"c": {"op": "test.count", "inputs": {"x": "item"}},
              "g": {"op": "math.mul", "inputs": {"a": "c", "b": "gain"}},
              "sq": {"op": "math.mul", "inputs": {"a": "g", "b": "g"}}},
    "outputs": {"out": "sq"}}"#;

fn for_over(n: usize) -> String {
    let list: Vec<String> = (0..n).map(|i| format!("{:?}", i as f64)).collect();
    format!(
        r#"{{"kiln": 1, "graphs": {{{BODY}}},
      "nodes": {{"f": {{"op": "@body", "for": [{}], "inputs": {{"gain": 3.0}}}},
                 "one": {{"op": "@body", "inputs": {{"item": 5.0}}}},
                 "k": {{"op": "math.add", "inputs": {{"a": "one", "b": 1.0}}}}}},
      "outputs": {{"r": "f", "s": "k"}}}}"#,
        list.join(", ")
    )
}

fn live(text: &str) -> Live {
    Live::new(registry(), document(text).doc)
}

/// Cook `outs` of the live plan on `eval`.
fn cook(live: &mut Live, eval: &mut IncrementalEvaluator, outs: &[&str]) -> Vec<Value> {
    let ctx = EvalContext::new();
    let plan = live.lower(&ctx).unwrap();
    let r = eval
        .evaluate(&plan.graph, &Request::new(outs.iter().copied()), &ctx)
        .unwrap();
    outs.iter().map(|o| r.get(o).cloned().unwrap()).collect()
}

/// What a fresh plan of the live document gives (its counted nodes are not counted).
fn fresh(live: &Live, outs: &[&str]) -> Vec<Value> {
    let ctx = EvalContext::new();
    let l = plan(live.document(), &ctx).unwrap();
    let counted = counting::take();
    let r = LazyEvaluator::new(registry())
        .evaluate(&l.graph, &Request::new(outs.iter().copied()), &ctx)
        .unwrap();
    counting::take();
    counting::add(counted);
    outs.iter().map(|o| r.get(o).cloned().unwrap()).collect()
}

fn same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_bits(y))
}

#[test]
fn an_item_edit_patches_the_plan_and_cooks_one_copy() {
    let mut l = live(&for_over(1000));
    let mut eval = IncrementalEvaluator::new(registry());
    counting::take();
    let first = cook(&mut l, &mut eval, &["r"]);
    assert_eq!(counting::take(), 1000);
    let Value::List(items) = &first[0] else {
        panic!()
    };
    // (7 × 3)² = 441.
    assert_eq!(items[7], Value::Float(441.0));

    let patched = l
        .edit(Edit::Item {
            node: "f".into(),
            index: 500,
            value: Value::Float(0.5),
        })
        .unwrap();
    assert!(patched, "an item the plan did not read is a value edit");
    let before = eval.total_stats().executed;
    let second = cook(&mut l, &mut eval, &["r"]);
    assert_eq!(counting::take(), 1, "one copy cooks");
    let Value::List(items) = &second[0] else {
        panic!()
    };
    assert_eq!(items[500], Value::Float(2.25), "(0.5 × 3)²");
    assert_eq!(items[499], Value::Float(499.0 * 499.0 * 9.0));
    // The copy's 3 nodes, the gathers above it (1000 items: 3 levels) and the output.
    let executed = eval.total_stats().executed - before;
    assert!(executed <= 3 + 3 + 1, "{executed} nodes cooked");
    assert!(same(&second, &fresh(&l, &["r"])));
    let c = l.counts();
    assert_eq!((c.made, c.patched), (1, 1), "{c:?}");
}

#[test]
fn a_call_constant_and_a_node_param_are_value_edits_too() {
    let mut l = live(&for_over(20));
    let mut eval = IncrementalEvaluator::new(registry());
    cook(&mut l, &mut eval, &["r", "s"]);
    counting::take();

    // The `for` call's gain reaches every copy.
    assert!(
        l.edit(Edit::Const {
            node: "f".into(),
            port: "gain".into(),
            value: Value::Int(1),
        })
        .unwrap()
    );
    let v = cook(&mut l, &mut eval, &["r", "s"]);
    assert_eq!(counting::take(), 0, "the counted node reads the item only");
    let Value::List(items) = &v[0] else { panic!() };
    assert_eq!(
        items[4],
        Value::Float(16.0),
        "an int given to a float input is a float"
    );
    assert!(same(&v, &fresh(&l, &["r", "s"])));

    // A call written once, and a plain node.
    assert!(
        l.edit(Edit::Const {
            node: "one".into(),
            port: "item".into(),
            value: Value::Float(1.5),
        })
        .unwrap()
    );
    assert!(
        l.edit(Edit::Const {
            node: "k".into(),
            port: "b".into(),
            value: Value::Float(0.25),
        })
        .unwrap()
    );
    let v = cook(&mut l, &mut eval, &["r", "s"]);
    assert_eq!(counting::take(), 1);
    assert_eq!(v[1], Value::Float(3.0 * 3.0 + 0.25), "(1.5 × 2)² + 0.25");
    assert!(same(&v, &fresh(&l, &["r", "s"])));
    assert_eq!(l.counts().made, 1);
}

#[test]
fn an_edit_the_plan_decided_on_makes_a_new_plan() {
    // The condition of a plan-time choice, and a fold's count.
    let text = r#"{"kiln": 1,
      "graphs": {"inc": {"inputs": {"x": {"type": "float", "default": 0.0}},
                         "nodes": {"a": {"op": "math.add", "inputs": {"a": "x", "b": 1.0}}},
                         "outputs": {"y": "a"}}},
      "nodes": {"p": {"op": "switch", "inputs": {"cond": true, "a": 1.0, "b": 2.0}},
                "f": {"op": "@inc", "fold": {"count": 3, "state": {"x": "y"}}}},
      "outputs": {"r": "p", "c": "f"}}"#;
    let mut l = live(text);
    let mut eval = IncrementalEvaluator::new(registry());
    assert_eq!(
        cook(&mut l, &mut eval, &["r", "c"]),
        vec![Value::Float(1.0), Value::Float(3.0)]
    );
    let patched = l
        .edit(Edit::Const {
            node: "p".into(),
            port: "cond".into(),
            value: Value::Bool(false),
        })
        .unwrap();
    assert!(!patched, "the plan took a side by the condition");
    assert_eq!(
        cook(&mut l, &mut eval, &["r", "c"]),
        vec![Value::Float(2.0), Value::Float(3.0)]
    );
    assert_eq!(l.counts().made, 2);
}

#[test]
fn a_for_whose_items_the_body_plans_by_replans() {
    // Each item is the count of a fold in the body: the plan read it.
    let text = r#"{"kiln": 1,
      "graphs": {
        "inc": {"inputs": {"x": {"type": "float", "default": 0.0}},
                "nodes": {"a": {"op": "math.add", "inputs": {"a": "x", "b": 1.0}}},
                "outputs": {"y": "a"}},
        "rep": {"inputs": {"item": {"type": "int", "default": 1}},
                "nodes": {"f": {"op": "@inc", "fold": {"count": "item", "state": {"x": "y"}}}},
                "outputs": {"out": "f.y"}}},
      "nodes": {"rows": {"op": "@rep", "for": [1, 2]}},
      "outputs": {"r": "rows"}}"#;
    let mut l = live(text);
    let mut eval = IncrementalEvaluator::new(registry());
    let list = |v: &[f64]| Value::List(v.iter().map(|&x| Value::Float(x)).collect());
    assert_eq!(cook(&mut l, &mut eval, &["r"]), vec![list(&[1.0, 2.0])]);
    let patched = l
        .edit(Edit::Item {
            node: "rows".into(),
            index: 1,
            value: Value::Int(4),
        })
        .unwrap();
    assert!(!patched, "the item is a fold's count");
    assert_eq!(cook(&mut l, &mut eval, &["r"]), vec![list(&[1.0, 4.0])]);
    assert_eq!(l.counts().made, 2);
}

#[test]
fn bad_edits_are_refused_and_change_nothing() {
    let mut l = live(&for_over(3));
    let digest = l.digest();
    let item = |node: &str, index| Edit::Item {
        node: node.into(),
        index,
        value: Value::Float(1.0),
    };
    assert_eq!(
        l.edit(item("f", 3)),
        Err(EditError::NoSuchItem {
            node: "f".into(),
            index: 3,
            len: 3
        })
    );
    assert_eq!(l.edit(item("k", 0)), Err(EditError::NotAList("k".into())));
    assert_eq!(
        l.edit(item("nope", 0)),
        Err(EditError::NoSuchNode("nope".into()))
    );
    assert_eq!(l.digest(), digest);
}

#[test]
fn structural_edits_among_plain_nodes_are_spliced_into_the_kept_plan() {
    // `k = one + 1`; add `m = k × 2` wired to a new output-free place, then rewire and remove
    // it: each edit is made in the kept flat graph, and only the new node cooks.
    let mut l = live(&for_over(200));
    let mut eval = IncrementalEvaluator::new(registry());
    cook(&mut l, &mut eval, &["r", "s"]);
    counting::take();
    let add = l
        .edit(Edit::AddNode {
            node: "m".into(),
            op: "math.mul".into(),
        })
        .unwrap();
    assert!(add, "a plain node is spliced in");
    assert!(
        l.edit(Edit::Connect {
            from: PortRef::parse("k"),
            to: PortRef::parse("m.a"),
        })
        .unwrap()
    );
    assert!(
        l.edit(Edit::Const {
            node: "m".into(),
            port: "b".into(),
            value: Value::Float(2.0),
        })
        .unwrap()
    );
    let before = eval.total_stats().executed;
    let v = cook(&mut l, &mut eval, &["r", "s", "m"]);
    assert_eq!(counting::take(), 0, "no copy cooks again");
    // k = (5 × 2)² + 1 = 101; m = 202.
    assert_eq!(v[2], Value::Float(202.0));
    assert_eq!(
        eval.total_stats().executed - before,
        1,
        "only the new node cooks"
    );
    assert!(same(&v, &fresh(&l, &["r", "s", "m"])));

    // Rewire `m.a` from `k` to nothing, then remove `m`.
    assert!(
        l.edit(Edit::Disconnect {
            to: PortRef::parse("m.a")
        })
        .unwrap()
    );
    assert!(
        l.edit(Edit::Const {
            node: "m".into(),
            port: "a".into(),
            value: Value::Float(4.0),
        })
        .unwrap()
    );
    assert_eq!(cook(&mut l, &mut eval, &["m"]), vec![Value::Float(8.0)]);
    assert!(l.edit(Edit::RemoveNode { node: "m".into() }).unwrap());
    assert!(same(
        &cook(&mut l, &mut eval, &["r", "s"]),
        &fresh(&l, &["r", "s"])
    ));
    assert_eq!(l.digest(), DocDigest::whole(l.document()).key());
    let c = l.counts();
    assert_eq!((c.made, c.patched), (1, 6), "{c:?}");
}

#[test]
fn structural_edits_that_reach_a_call_or_an_output_make_a_new_plan() {
    let mut l = live(&for_over(5));
    let mut eval = IncrementalEvaluator::new(registry());
    cook(&mut l, &mut eval, &["r", "s"]);
    // `k` reads the call `one`: taking that wire away changes what the plan wired.
    assert!(
        !l.edit(Edit::Disconnect {
            to: PortRef::parse("k.a")
        })
        .unwrap()
    );
    l.edit(Edit::Const {
        node: "k".into(),
        port: "a".into(),
        value: Value::Float(0.0),
    })
    .unwrap();
    assert_eq!(cook(&mut l, &mut eval, &["s"]), vec![Value::Float(1.0)]);
    // A wire into the call's input.
    l.edit(Edit::AddNode {
        node: "c".into(),
        op: "math.add".into(),
    })
    .unwrap();
    for port in ["a", "b"] {
        l.edit(Edit::Const {
            node: "c".into(),
            port: port.into(),
            value: Value::Float(0.0),
        })
        .unwrap();
    }
    assert!(
        !l.edit(Edit::Connect {
            from: PortRef::parse("c"),
            to: PortRef::parse("f.gain"),
        })
        .unwrap()
    );
    // f = (item × (0 + 0))² = 0 for every item.
    let v = cook(&mut l, &mut eval, &["r"]);
    assert_eq!(v, fresh(&l, &["r"]));
    let Value::List(items) = &v[0] else { panic!() };
    assert!(items.iter().all(|x| *x == Value::Float(0.0)));
    // Removing the node that now feeds a call.
    assert!(!l.edit(Edit::RemoveNode { node: "c".into() }).unwrap());
    assert!(same(&cook(&mut l, &mut eval, &["r"]), &fresh(&l, &["r"])));
    assert_eq!(
        l.edit(Edit::RemoveNode { node: "c".into() }),
        Err(EditError::NoSuchNode("c".into()))
    );
    assert_eq!(
        l.edit(Edit::Connect {
            from: PortRef::parse("nope"),
            to: PortRef::parse("k.a"),
        }),
        Err(EditError::NoSuchNode("nope".into()))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any sequence of edits gives, after each, the bits a fresh plan of the edited
    /// document gives.
    #[test]
    fn edited_plans_answer_as_fresh_plans(
        edits in prop::collection::vec((0usize..8, 0usize..12, -4.0f64..4.0), 1..10)
    ) {
        let mut l = live(&for_over(12));
        let mut eval = IncrementalEvaluator::new(registry());
        cook(&mut l, &mut eval, &["r", "s"]);
        // Plain nodes `p0`, `p1`, … added and wired among themselves and from `k`.
        let mut added: Vec<String> = vec![];
        let mut next = 0;
        for (kind, i, x) in edits {
            let e = match kind {
                0 => Edit::Item { node: "f".into(), index: i, value: Value::Float(x) },
                1 => Edit::Const { node: "f".into(), port: "gain".into(), value: Value::Float(x) },
                2 => Edit::Const { node: "k".into(), port: "b".into(), value: Value::Float(x) },
                3 => Edit::Const { node: "one".into(), port: "item".into(), value: Value::Float(x) },
                4 => {
                    next += 1;
                    let id = format!("p{next}");
                    let spliced = l.edit(Edit::AddNode { node: id.clone(), op: "math.add".into() }).unwrap();
                    prop_assert!(spliced);
                    // Constants under both inputs, so it cooks with or without wires.
                    let spliced = l.edit(Edit::Const { node: id.clone(), port: "a".into(), value: Value::Float(x) }).unwrap();
                    prop_assert!(spliced);
                    added.push(id.clone());
                    Edit::Const { node: id, port: "b".into(), value: Value::Float(1.0) }
                }
                5 if !added.is_empty() => {
                    // The inputs it fed get a constant back, so every node still cooks.
                    let gone = added.remove(i % added.len());
                    let fed: Vec<PortRef> = l.document().graph.wires().iter()
                        .filter(|w| w.from.node.to_string() == gone)
                        .map(|w| w.to.clone())
                        .collect();
                    let spliced = l.edit(Edit::RemoveNode { node: gone }).unwrap();
                    prop_assert!(spliced);
                    let Some((last, rest)) = fed.split_last() else { continue };
                    for to in rest {
                        let spliced = l.edit(Edit::Const { node: to.node.to_string(), port: to.port.clone(), value: Value::Float(x) }).unwrap();
                        prop_assert!(spliced);
                    }
                    Edit::Const { node: last.node.to_string(), port: last.port.clone(), value: Value::Float(x) }
                }
                6 if !added.is_empty() => {
                    // Into an input with no wire yet; from `k` or an earlier added node
                    // (so no cycle forms).
                    let t = i % added.len();
                    let to = PortRef::new(added[t].as_str(), if x < 0.0 { "a" } else { "b" });
                    if l.document().graph.wires().iter().any(|w| w.to == to) {
                        continue;
                    }
                    let from = if t == 0 { "k".to_string() } else { added[i % t].clone() };
                    Edit::Connect { from: PortRef::parse(&from), to }
                }
                7 if !added.is_empty() => {
                    let to = PortRef::new(added[i % added.len()].as_str(), "a");
                    if !l.document().graph.wires().iter().any(|w| w.to == to) {
                        continue;
                    }
                    let spliced = l.edit(Edit::Disconnect { to: to.clone() }).unwrap();
                    prop_assert!(spliced);
                    Edit::Const { node: to.node.to_string(), port: to.port.clone(), value: Value::Float(x) }
                }
                _ => continue,
            };
            prop_assert!(l.edit(e).unwrap(), "every edit here is spliced");
            let mut outs = vec!["r", "s"];
            outs.extend(added.iter().map(String::as_str));
            let v = cook(&mut l, &mut eval, &outs);
            prop_assert!(same(&v, &fresh(&l, &outs)));
            prop_assert_eq!(l.digest(), DocDigest::whole(l.document()).key(), "patched digests agree");
        }
        prop_assert_eq!(l.counts().made, 1);
        // The same document, read again whole, reaches a live copy of the first as the edits
        // it holds.
        let mut again = live(&for_over(12));
        cook(&mut again, &mut IncrementalEvaluator::new(registry()), &["r"]);
        prop_assert!(again.replace(l.document().clone()), "the difference is said as edits");
        prop_assert_eq!(again.digest(), l.digest());
        prop_assert_eq!(again.counts().made, 1);
    }
}

#[test]
fn a_document_read_again_reaches_the_plan_as_its_edits() {
    let mut l = live(&for_over(100));
    let mut eval = IncrementalEvaluator::new(registry());
    cook(&mut l, &mut eval, &["r", "s"]);
    counting::take();
    // An item, a call's constant and a plain node's constant changed, and a node added.
    let text = for_over(100)
        .replace("[0.0, 1.0, 2.0,", "[0.0, 1.5, 2.0,")
        .replace(r#""b": 1.0}"#, r#""b": 2.0}"#);
    let mut next = document(&text).doc;
    next.graph.add_node("m", "math.mul").unwrap();
    next.graph.wire("k", "m.a");
    next.graph.set_const("m", "b", 3.0).unwrap();
    assert!(l.replace(next), "said as edits");
    let v = cook(&mut l, &mut eval, &["r", "s", "m"]);
    assert_eq!(
        counting::take(),
        1,
        "the changed item's copy cooks, no other"
    );
    let Value::List(items) = &v[0] else { panic!() };
    assert_eq!(items[1], Value::Float(1.5 * 1.5 * 9.0));
    // k = (5 × 2)² + 2 = 102; m = 306.
    assert_eq!(v[1..], [Value::Float(102.0), Value::Float(306.0)]);
    assert!(same(&v, &fresh(&l, &["r", "s", "m"])));
    assert_eq!(l.counts().made, 1, "no new plan");

    // A call taken away cannot be said as edits: the document is replaced whole.
    let mut fewer = document(&for_over(100)).doc;
    fewer.graph.remove_node("one").unwrap();
    fewer.calls.remove("one");
    fewer.graph.set_const("k", "a", 0.0).unwrap();
    assert!(!l.replace(fewer));
    assert_eq!(cook(&mut l, &mut eval, &["s"]), vec![Value::Float(1.0)]);
    assert_eq!(l.counts().made, 2);
}

#[test]
fn per_scope_counts_tell_cooked_copies_from_cut_off_ones() {
    // Each copy clamps `item × gain` to [0, 1]. Raising the gain from 3 to 4 cooks every copy;
    // the result stays where it was for item 0 (0 × 3 = 0 × 4) and for items of at least
    // 1/3 (clamped to 1 both times): 7 of 10 copies are cut off.
    let items: Vec<String> = (0..10).map(|i| format!("{:?}", i as f64 / 10.0)).collect();
    let text = format!(
        r#"{{"kiln": 1, "graphs": {{"body": {{
          "inputs": {{"item": {{"type": "float", "default": 0.0}}, "gain": {{"type": "float", "default": 3.0}}}},
          "nodes": {{"g": {{"op": "math.mul", "inputs": {{"a": "item", "b": "gain"}}}},
                    "c": {{"op": "math.clamp", "inputs": {{"x": "g"}}}}}},
          "outputs": {{"out": "c"}}}}}},
        "nodes": {{"f": {{"op": "@body", "for": [{}]}}}},
        "outputs": {{"r": "f"}}}}"#,
        items.join(", ")
    );
    let mut l = live(&text);
    let mut eval = IncrementalEvaluator::new(registry());
    let ctx = EvalContext::new();
    let request = Request::new(["r"]).with_timings();
    let plan = l.lower(&ctx).unwrap();
    let first = eval.evaluate(&plan.graph, &request, &ctx).unwrap();
    let ran = |o: &kiln_core::eval::Outputs| -> Vec<(String, bool)> {
        o.timings
            .iter()
            .map(|t| (t.node.to_string(), t.cut_off))
            .collect()
    };
    let counts = |p: &Lowered, ran: &[(String, bool)]| {
        let c = &p
            .report
            .scope_counts(ran.iter().map(|(id, cut)| (id.as_str(), *cut)))[0];
        (c.copies, c.cooked, c.reused, c.cut_off)
    };
    assert_eq!(counts(&plan, &ran(&first)), (10, 10, 0, 0));
    drop(plan);
    assert!(
        l.edit(Edit::Const {
            node: "f".into(),
            port: "gain".into(),
            value: Value::Float(4.0),
        })
        .unwrap()
    );
    let plan = l.lower(&ctx).unwrap();
    let second = eval.evaluate(&plan.graph, &request, &ctx).unwrap();
    assert_eq!(counts(&plan, &ran(&second)), (10, 10, 0, 7));
    let Value::List(r) = second.get("r").unwrap() else {
        panic!()
    };
    assert_eq!(r[2], Value::Float(0.8), "0.2 × 4");
}

#[test]
fn a_session_over_a_document_reports_its_plan_and_scopes() {
    use kiln_lower::session::{Clock, Session, SessionError};
    let mut s = Session::from_document(registry(), document(&for_over(100)).doc, ["r", "s"]);
    let clock = Clock::at_frame(0, 24.0);
    let r = s.present(clock).unwrap();
    let p = r.plan.clone().expect("a document session reports its plan");
    assert_eq!((p.plans.made, p.plans.patched), (1, 0));
    let f = &p.scopes[0];
    assert_eq!(
        (f.path.as_str(), f.copies, f.cooked, f.reused),
        ("f", 100, 100, 0)
    );

    s.edit_document(Edit::Item {
        node: "f".into(),
        index: 5,
        value: Value::Float(0.5),
    })
    .unwrap();
    let r = s.present(clock).unwrap();
    let p = r.plan.clone().unwrap();
    assert_eq!((p.plans.made, p.plans.patched), (1, 1), "{r}");
    let f = &p.scopes[0];
    assert_eq!((f.cooked, f.reused), (1, 99), "{r}");
    assert!(r.to_string().contains("1 patched in place"), "{r}");
    let frame = s.frame().unwrap();
    let Some(Value::List(items)) = frame.get("r") else {
        panic!()
    };
    assert_eq!(items[5], Value::Float(2.25), "(0.5 × 3)²");

    // A plain node's param through the session's own edits, then a plain-graph session
    // refusing a document edit.
    s.set_const("k", "b", 2.0).unwrap();
    let r = s.present(clock).unwrap();
    assert_eq!(
        s.frame().unwrap().get("s"),
        Some(&Value::Float(102.0)),
        "(5 × 2)² + 2"
    );
    assert_eq!(r.plan.unwrap().plans.patched, 2);
    let mut plain = Session::new(registry(), Graph::new(), ["x"]);
    assert!(matches!(
        plain.edit_document(Edit::Item {
            node: "f".into(),
            index: 0,
            value: Value::Float(0.0)
        }),
        Err(SessionError::NotADocument(_))
    ));
}
