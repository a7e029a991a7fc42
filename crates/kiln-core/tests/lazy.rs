//! Behaviour of the lazy evaluator, proved by counting executions.

mod common;
use common::*;
use kiln_core::prelude::*;
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a float")
}

#[test]
fn untaken_switch_branch_is_never_computed() {
    let e = env();
    let mut g = Graph::new();
    for (id, v) in [("x", 3.0), ("y", 2.0)] {
        g.add_node(id, "num").unwrap();
        g.set_param(id, "value", v).unwrap();
    }
    g.add_node("cond", "gt").unwrap();
    g.wire("x.out", "cond.a");
    g.wire("y.out", "cond.b");
    // Two branches, each a little chain with its own tag.
    for (br, val) in [("ta", 10.0), ("tb", 20.0)] {
        g.add_node(format!("{br}0").as_str(), "num").unwrap();
        g.set_param(&format!("{br}0"), "value", val).unwrap();
        g.set_param(&format!("{br}0"), "tag", br).unwrap();
        g.add_node(format!("{br}1").as_str(), "add").unwrap();
        g.set_param(&format!("{br}1"), "tag", br).unwrap();
        g.wire(&format!("{br}0.out"), &format!("{br}1.a"));
    }
    g.add_node("s", "sw").unwrap();
    g.wire("cond.out", "s.cond");
    g.wire("ta1.out", "s.a");
    g.wire("tb1.out", "s.b");
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let out = ev
        .evaluate(&g, &Request::new(["s"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("s").unwrap()), 10.0);
    assert_eq!(e.count.get("num:ta") + e.count.get("add:ta"), 2);
    assert_eq!(
        e.count.get("num:tb") + e.count.get("add:tb"),
        0,
        "the false branch ran"
    );

    // Flip the condition: now only b's branch is computed, a's stays cached.
    g.set_param("y", "value", 5.0).unwrap();
    let out = ev
        .evaluate(&g, &Request::new(["s"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("s").unwrap()), 20.0);
    assert_eq!(e.count.get("num:tb") + e.count.get("add:tb"), 2);
    assert_eq!(e.count.get("num:ta") + e.count.get("add:ta"), 2);
}

#[test]
fn each_key_runs_once_in_a_diamond_heavy_dag() {
    // 30 layers of 4 nodes; each node adds two nodes of the previous layer. Without
    // memoization a pull would run 2^30 times.
    let e = env();
    let mut g = Graph::new();
    let w = 4;
    for j in 0..w {
        let id = format!("l0_{j}");
        g.add_node(id.as_str(), "num").unwrap();
        g.set_param(&id, "value", j as f64).unwrap();
    }
    let layers = 30;
    for l in 1..layers {
        for j in 0..w {
            let id = format!("l{l}_{j}");
            g.add_node(id.as_str(), "add").unwrap();
            g.wire(&format!("l{}_{}.out", l - 1, j), &format!("{id}.a"));
            g.wire(
                &format!("l{}_{}.out", l - 1, (j + 1) % w),
                &format!("{id}.b"),
            );
        }
    }
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let req = Request::new((0..w).map(|j| format!("l{}_{j}", layers - 1)));
    let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
    // Every layer-0 value is multiplied by 2^(layers-1) in total over the final layer.
    let total: f64 = out.values.iter().map(|(_, v)| f(v)).sum();
    assert_eq!(
        total,
        (0..w).map(|j| j as f64).sum::<f64>() * 2f64.powi(layers as i32 - 1)
    );
    // Node count: distinct keys. Layer-0 nodes have distinct values, and so does every later
    // node, so each node executes exactly once.
    assert_eq!(e.count.total(), w * layers);
    assert_eq!(out.stats.executed as usize, w * layers);
    // A second request executes nothing.
    let again = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
    assert_eq!(again.stats.executed, 0);
    assert_eq!(e.count.total(), w * layers);
}

#[test]
fn identical_content_in_different_nodes_executes_once() {
    let e = env();
    let mut g = Graph::new();
    for id in ["a", "b"] {
        g.add_node(id, "num").unwrap();
        g.set_param(id, "value", 7.0).unwrap();
        let sum = format!("{id}_sum");
        g.add_node(sum.as_str(), "add").unwrap();
        g.wire(&format!("{id}.out"), &format!("{sum}.a"));
        g.set_const(&sum, "b", 1.0).unwrap();
    }
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let out = ev
        .evaluate(&g, &Request::new(["a_sum", "b_sum"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("a_sum").unwrap()), 8.0);
    assert_eq!(f(out.get("b_sum").unwrap()), 8.0);
    assert_eq!(e.count.get("num"), 1);
    assert_eq!(e.count.get("add"), 1);
}

#[test]
fn million_node_chain_evaluates_without_stack_overflow() {
    let e = env();
    let n = 1_000_000;
    let g = chain(n);
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let out = ev
        .evaluate(
            &g,
            &Request::new([format!("n{}", n - 1)]),
            &EvalContext::new(),
        )
        .unwrap();
    assert_eq!(f(&out.values[0].1), n as f64);
    assert_eq!(out.stats.executed as usize, n);
}

#[test]
fn failed_result_is_not_cached() {
    let e = env();
    let mut g = chain(3);
    g.add_node("fl", "flaky").unwrap();
    g.wire("n2.out", "fl.x");
    g.add_node("after", "add").unwrap();
    g.wire("fl.out", "after.a");
    let mut ev = LazyEvaluator::new(e.reg.clone());
    e.fail.store(true, Ordering::SeqCst);
    let err = ev
        .evaluate(&g, &Request::new(["after"]), &EvalContext::new())
        .unwrap_err();
    match &err {
        EvalError::Node {
            node,
            op,
            port,
            message,
        } => {
            assert_eq!(node.as_str(), "fl");
            assert_eq!(op, "flaky");
            assert_eq!(port.as_deref(), Some("input `x`"));
            assert!(message.contains("told to fail"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("node `fl` (flaky), input `x`: told to fail")
    );
    assert_eq!(e.count.get("flaky"), 1);
    assert_eq!(e.count.get("add"), 2);
    // The upstream successes are cached; the failure is not: it runs again and succeeds.
    e.fail.store(false, Ordering::SeqCst);
    let out = ev
        .evaluate(&g, &Request::new(["after"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("after").unwrap()), 3.0);
    assert_eq!(e.count.get("flaky"), 2);
    assert_eq!(e.count.get("add"), 3, "only `after` is new");
    assert_eq!(out.stats.executed, 2);
}

#[test]
fn panicking_op_becomes_that_nodes_error() {
    let e = env();
    let mut g = chain(2);
    g.add_node("bad", "boom").unwrap();
    g.wire("n1.out", "bad.x");
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let err = ev
        .evaluate(&g, &Request::new(["bad"]), &EvalContext::new())
        .unwrap_err();
    std::panic::set_hook(hook);
    assert_eq!(
        err,
        EvalError::Panic {
            node: "bad".into(),
            op: "boom".into(),
            message: "boom went the op".into()
        }
    );
    // The evaluator is still usable.
    let out = ev
        .evaluate(&g, &Request::new(["n1"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("n1").unwrap()), 2.0);
}

#[test]
fn cancelled_before_start_runs_nothing() {
    let e = env();
    let g = chain(10);
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    ctx.cancel.cancel();
    assert_eq!(
        ev.evaluate(&g, &Request::new(["n9"]), &ctx).unwrap_err(),
        EvalError::Cancelled
    );
    assert_eq!(e.count.total(), 0);
    assert_eq!(ev.cache_len(), 0);
}

#[test]
fn cancelled_during_evaluation_stops_and_next_request_is_correct() {
    let e = env();
    let mut g = chain(5);
    g.add_node("c", "canceller").unwrap();
    g.wire("n4.out", "c.x");
    let mut prev = "c".to_string();
    for i in 0..5 {
        let id = format!("m{i}");
        g.add_node(id.as_str(), "add").unwrap();
        g.set_param(&id, "tag", "late").unwrap();
        g.set_const(&id, "b", 1.0).unwrap();
        g.wire(&format!("{prev}.out"), &format!("{id}.a"));
        prev = id;
    }
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    assert_eq!(
        ev.evaluate(&g, &Request::new(["m4"]), &ctx).unwrap_err(),
        EvalError::Cancelled
    );
    assert_eq!(
        e.count.get("add:late"),
        0,
        "nothing after the cancellation point ran"
    );
    ctx.cancel.reset();
    // Replace the canceller's effect: a fresh token for the next request.
    let ctx2 = EvalContext::new();
    let out = ev.evaluate(&g, &Request::new(["m4"]), &ctx2).unwrap();
    assert_eq!(f(out.get("m4").unwrap()), 10.0);
    assert_eq!(e.count.get("add:late"), 5);
}

#[test]
fn cancellation_from_another_thread_stops_a_long_op() {
    let e = env();
    let mut g = chain(3);
    g.add_node("s", "spin").unwrap();
    g.wire("n2.out", "s.x");
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let mut ctx = EvalContext::new();
    let token = ctx.cancel.clone();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let tx = std::sync::Mutex::new(tx);
    ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
        if p.node == Some("s") && p.node_fraction.is_some() {
            let _ = tx.lock().unwrap().send(());
        }
    }));
    let canceller = std::thread::spawn(move || {
        if rx.recv().is_ok() {
            token.cancel();
        }
    });
    let result = ev.evaluate(&g, &Request::new(["s"]), &ctx);
    drop(ctx); // closes the channel, so the canceller thread ends whatever happened
    canceller.join().unwrap();
    let err = result.unwrap_err();
    assert_eq!(err, EvalError::Cancelled);
    // The chain before `s` is cached, `s` is not.
    let n_cached = ev.cache_len();
    assert_eq!(n_cached, 3);
}

#[test]
fn clock_change_recooks_only_clock_cones() {
    let e = env();
    let mut g = chain(4);
    g.add_node("t", "time").unwrap();
    g.add_node("mix", "add").unwrap();
    g.set_param("mix", "tag", "mix").unwrap();
    g.wire("n3.out", "mix.a");
    g.wire("t.out", "mix.b");
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let mut ctx = EvalContext::new();
    ctx.time = 1.0;
    let out = ev.evaluate(&g, &Request::new(["mix"]), &ctx).unwrap();
    assert_eq!(f(out.get("mix").unwrap()), 5.0);
    assert_eq!(out.stats.executed, 6);
    ctx.time = 2.0;
    let out = ev.evaluate(&g, &Request::new(["mix"]), &ctx).unwrap();
    assert_eq!(f(out.get("mix").unwrap()), 6.0);
    assert_eq!(out.stats.executed, 2, "only time and mix recook");
    assert_eq!(e.count.get("time"), 2);
    assert_eq!(e.count.get("num"), 1);
    // Going back to time 1 is a memo hit all the way.
    ctx.time = 1.0;
    let out = ev.evaluate(&g, &Request::new(["mix"]), &ctx).unwrap();
    assert_eq!(out.stats.executed, 0);
    assert_eq!(f(out.get("mix").unwrap()), 5.0);
}

#[test]
fn progress_reports_completed_and_total() {
    let e = env();
    let g = chain(20);
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let mut ctx = EvalContext::new();
    let seen = Arc::new(std::sync::Mutex::new(vec![]));
    let s2 = seen.clone();
    ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
        s2.lock()
            .unwrap()
            .push((p.completed, p.total, p.node.map(str::to_string)));
    }));
    ev.evaluate(&g, &Request::new(["n19"]), &ctx).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 20);
    assert_eq!(seen.last().unwrap(), &(20, 20, Some("n19".to_string())));
    assert_eq!(seen[0], (1, 20, Some("n0".to_string())));
}

#[test]
fn unknown_output_and_invalid_graph_are_errors() {
    let e = env();
    let g = chain(2);
    let mut ev = LazyEvaluator::new(e.reg.clone());
    assert_eq!(
        ev.evaluate(&g, &Request::new(["nope"]), &EvalContext::new())
            .unwrap_err(),
        EvalError::UnknownOutput {
            name: "nope".into()
        }
    );
    let mut bad = chain(2);
    bad.add_node("x", "no.such.op").unwrap();
    assert!(matches!(
        ev.evaluate(&bad, &Request::new(["n1"]), &EvalContext::new()),
        Err(EvalError::Invalid(_))
    ));
}

#[test]
fn port_requests_and_plan_reuse() {
    let e = env();
    let mut g = chain(3);
    let mut ev = LazyEvaluator::new(e.reg.clone());
    let out = ev
        .evaluate(&g, &Request::new(["n2.out"]), &EvalContext::new())
        .unwrap();
    assert!(out.stats.planned);
    assert_eq!(f(out.get("n2.out").unwrap()), 3.0);
    let out = ev
        .evaluate(&g, &Request::new(["n2"]), &EvalContext::new())
        .unwrap();
    assert!(!out.stats.planned);
    // A param edit updates the plan in place (no replanning, as under every evaluator);
    // cached results survive because keys are content keys.
    g.set_param("n0", "value", 1.0).unwrap();
    let out = ev
        .evaluate(&g, &Request::new(["n2"]), &EvalContext::new())
        .unwrap();
    assert!(!out.stats.planned);
    assert_eq!(out.stats.executed, 0);
    g.set_param("n0", "value", 2.0).unwrap();
    let out = ev
        .evaluate(&g, &Request::new(["n2"]), &EvalContext::new())
        .unwrap();
    assert_eq!(out.stats.executed, 3);
    assert_eq!(f(out.get("n2").unwrap()), 4.0);
}
