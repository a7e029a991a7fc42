//! The order of steps, worked out by hand from the seed's rules: sources in declaration
//! order, children depth-first in output-port order, collective inputs waiting for every
//! node that can still send to them.

use super::*;

#[test]
fn divergence_visits_the_first_child_and_its_children_before_the_second() {
    // src feeds a and c (one port, two wires); a feeds b. Depth first: src, a, b, c.
    let g = graph(
        &[
            ("src", "const"),
            ("a", "math.add"),
            ("b", "math.add"),
            ("c", "math.add"),
            ("o", "output"),
            ("p", "output"),
        ],
        &[
            ("src", "a.a"),
            ("src", "c.a"),
            ("a", "b.a"),
            ("b", "o.value"),
            ("c", "p.value"),
        ],
        &[
            ("src.value", Value::Float(1.0)),
            ("a.b", Value::Float(10.0)),
            ("b.b", Value::Float(100.0)),
            ("c.b", Value::Float(1000.0)),
        ],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(r.trace.order(), ["src", "a", "b", "o", "c", "p"]);
    assert_eq!(output(&r, "o"), [Value::Float(111.0)]);
    assert_eq!(output(&r, "p"), [Value::Float(1001.0)]);
}

#[test]
fn children_follow_output_port_order_not_declaration_order() {
    // fan.x feeds late (declared last), fan.y feeds early: x's child runs first.
    let g = graph(
        &[
            ("src", "const"),
            ("fan", "t.fan"),
            ("early", "output"),
            ("late", "output"),
        ],
        &[
            ("src", "fan.in"),
            ("fan.y", "early.value"),
            ("fan.x", "late.value"),
        ],
        &[("src.value", Value::Int(3))],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(r.trace.order(), ["src", "fan", "late", "early"]);
}

#[test]
fn sources_run_in_declaration_order_each_with_its_subtree() {
    let g = graph(
        &[
            ("s2", "const"),
            ("s1", "const"),
            ("a1", "math.neg"),
            ("a2", "math.neg"),
            ("o1", "output"),
            ("o2", "output"),
        ],
        &[
            ("s1", "a1.x"),
            ("s2", "a2.x"),
            ("a1", "o1.value"),
            ("a2", "o2.value"),
        ],
        &[
            ("s1.value", Value::Float(1.0)),
            ("s2.value", Value::Float(2.0)),
        ],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(r.trace.order(), ["s2", "a2", "o2", "s1", "a1", "o1"]);
}

#[test]
fn a_collective_input_waits_for_every_node_that_can_still_send() {
    // s1 → a → m, s2 → b → m (m collective). After a, m cannot run: s2 has not run. Then s2,
    // b, and m once, with both entities in arrival order (a's first).
    let g = graph(
        &[
            ("s1", "const"),
            ("s2", "const"),
            ("a", "math.neg"),
            ("b", "math.neg"),
            ("m", "t.merge"),
            ("o", "output"),
            ("n", "output"),
        ],
        &[
            ("s1", "a.x"),
            ("s2", "b.x"),
            ("a", "m.items"),
            ("b", "m.items"),
            ("m.out", "o.value"),
            ("m.count", "n.value"),
        ],
        &[
            ("s1.value", Value::Float(1.0)),
            ("s2.value", Value::Float(2.0)),
        ],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(r.trace.order(), ["s1", "a", "s2", "b", "m", "o", "n"]);
    let m = &r.trace.steps[4];
    assert_eq!(counts(&m.inputs), [("items", 2)]);
    assert_eq!(m.runs, 1);
    let list = Value::List(vec![Value::Float(-1.0), Value::Float(-2.0)].into());
    assert_eq!(output(&r, "o"), [list]);
    assert_eq!(output(&r, "n"), [Value::Int(2)]);
}

#[test]
fn convergence_into_a_single_input_runs_once_per_entity_in_arrival_order() {
    // fan sends the same entity through x and y into one single input of neg: one step,
    // two runs.
    let g = graph(
        &[
            ("src", "const"),
            ("fan", "t.fan"),
            ("neg", "math.neg"),
            ("o", "output"),
        ],
        &[
            ("src", "fan.in"),
            ("fan.x", "neg.x"),
            ("fan.y", "neg.x"),
            ("neg", "o.value"),
        ],
        &[("src.value", Value::Float(4.0))],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(r.trace.order(), ["src", "fan", "neg", "o"]);
    assert_eq!(r.trace.steps[2].runs, 2);
    assert_eq!(counts(&r.trace.steps[2].inputs), [("x", 2)]);
    assert_eq!(output(&r, "o"), [Value::Float(-4.0), Value::Float(-4.0)]);
}

#[test]
fn divergence_shares_the_entity_without_copying_it() {
    let list = Value::List(vec![Value::Float(1.0); 1000].into());
    let g = graph(
        &[("src", "const"), ("o", "output"), ("p", "output")],
        &[("src", "o.value"), ("src", "p.value")],
        &[("src.value", list)],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    match (&output(&r, "o")[0], &output(&r, "p")[0]) {
        (Value::List(a), Value::List(b)) => assert!(std::sync::Arc::ptr_eq(a, b)),
        other => panic!("expected two lists, found {other:?}"),
    }
}

#[test]
fn a_node_with_two_outputs_routes_each_entity_to_one() {
    // 3 → even? no: odd. 4 → even. Both sources feed one router.
    let g = graph(
        &[
            ("three", "const"),
            ("four", "const"),
            ("route", "t.even"),
            ("evens", "output"),
            ("odds", "output"),
        ],
        &[
            ("three", "route.in"),
            ("four", "route.in"),
            ("route.even", "evens.value"),
            ("route.odd", "odds.value"),
        ],
        &[
            ("three.value", Value::Int(3)),
            ("four.value", Value::Int(4)),
        ],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    // three runs, route takes 3 (odd), then four, route takes 4 (even).
    assert_eq!(
        r.trace.order(),
        ["three", "route", "odds", "four", "route", "evens"]
    );
    assert_eq!(counts(&r.trace.steps[1].outputs), [("even", 0), ("odd", 1)]);
    assert_eq!(output(&r, "evens"), [Value::Int(4)]);
    assert_eq!(output(&r, "odds"), [Value::Int(3)]);
}

#[test]
fn two_runs_give_the_same_steps() {
    let g = graph(
        &[
            ("s1", "const"),
            ("s2", "const"),
            ("a", "math.neg"),
            ("m", "t.merge"),
            ("o", "output"),
        ],
        &[
            ("s1", "a.x"),
            ("s2", "m.items"),
            ("a", "m.items"),
            ("m.out", "o.value"),
        ],
        &[
            ("s1.value", Value::Float(1.0)),
            ("s2.value", Value::Float(2.0)),
        ],
    );
    let b = body(g, &[]).unwrap();
    let (x, y) = (run(&b).unwrap(), run(&b).unwrap());
    assert!(x.trace.same_steps(&y.trace));
    assert_eq!(x.trace.order(), ["s1", "a", "s2", "m", "o"]);
}

/// xs (a list input) → neg → o, with `xs` bound to `xs`.
fn negate_all() -> FlowBody {
    let mut g = graph(
        &[("xs", "t.input.list"), ("neg", "math.neg"), ("o", "output")],
        &[("xs", "neg.x"), ("neg", "o.value")],
        &[],
    );
    g.set_param("xs", "name", Value::str("xs")).unwrap();
    let settings = FlowSettings {
        args: vec!["xs".into()],
        loops: vec![],
        limits: FlowLimits::default(),
    };
    FlowBody::new(g, reg(), settings).unwrap()
}

#[test]
fn a_single_port_fed_a_hundred_entities_runs_its_op_a_hundred_times_in_one_step() {
    let b = negate_all();
    let xs = Value::List(
        (0..100)
            .map(|i| Value::Float(i as f64))
            .collect::<Vec<_>>()
            .into(),
    );
    let r = b.run(&[xs], &EvalContext::new()).unwrap();
    assert_eq!(r.trace.order(), ["xs", "neg", "o"]);
    assert_eq!(counts(&r.trace.steps[0].outputs), [("out", 100)]);
    assert_eq!(r.trace.steps[1].runs, 100);
    let want: Vec<Value> = (0..100).map(|i| Value::Float(-(i as f64))).collect();
    assert_eq!(output(&r, "o"), want.as_slice());
}

#[test]
fn a_cancelled_run_stops_with_cancellation() {
    let b = negate_all();
    let ctx = EvalContext::new();
    ctx.cancel.cancel();
    let xs = Value::List(vec![Value::Float(1.0)].into());
    assert_eq!(
        b.run(&[xs], &ctx).unwrap_err(),
        kiln_lower::flow::FlowError::Cancelled
    );
    // The wrong number of args is refused, naming both counts.
    let e = b.run(&[], &EvalContext::new()).unwrap_err().to_string();
    assert!(e.contains("takes 1 args, found 0"), "{e}");
}
