//! Behaviour every evaluator shares — panics, cancellation (cooperative, preemptive, at node
//! boundaries), progress, timings and error policies — proved by counting executions, never
//! by timing. Plus the compiled evaluator's background compilation.

mod common;
use common::*;
use kiln_core::eval::{
    CancelMode, CompiledEvaluator, EagerEvaluator, ErrorPolicy, IncrementalEvaluator,
    ParallelPolicy, Served,
};
use kiln_core::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a float, found {v:?}"))
}

fn par() -> ParallelPolicy {
    ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: Some(Duration::ZERO),
    }
}

/// One of each evaluator (the compiled ones compile on the requesting thread).
fn evaluators(reg: &Registry) -> Vec<(&'static str, Box<dyn Evaluator>)> {
    vec![
        ("lazy", Box::new(LazyEvaluator::new(reg.clone()))),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        (
            "eager+parallel",
            Box::new(EagerEvaluator::new(reg.clone()).with_parallel(par())),
        ),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg.clone()).with_background(false)),
        ),
        (
            "compiled+parallel",
            Box::new(
                CompiledEvaluator::new(reg.clone())
                    .with_background(false)
                    .with_parallel(par()),
            ),
        ),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone())),
        ),
    ]
}

/// Keep the expected panics of `boom` out of the test output (other panics still print).
fn quiet_boom() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info.payload().downcast_ref::<&str>().copied();
            if msg != Some("boom went the op") {
                prev(info)
            }
        }));
    });
}

fn num(g: &mut Graph, id: &str, tag: &str, v: f64) {
    g.add_node(id, "num").unwrap();
    g.set_param(id, "tag", tag).unwrap();
    g.set_param(id, "value", v).unwrap();
}

fn add(g: &mut Graph, id: &str, tag: &str, a: &str, b: f64) {
    g.add_node(id, "add").unwrap();
    g.set_param(id, "tag", tag).unwrap();
    g.wire(&format!("{a}.out"), &format!("{id}.a"));
    g.set_const(id, "b", b).unwrap();
}

/// Node `id` running op `op` on `from`, with `sib` (an add) beside it so their level has two
/// nodes (and runs on the pool under the parallel policies).
fn with_sibling(g: &mut Graph, from: &str, id: &str, op: &str) {
    g.add_node(id, op).unwrap();
    g.set_param(id, "tag", id).unwrap();
    g.wire(&format!("{from}.out"), &format!("{id}.x"));
    add(g, "sib", "sib", from, 10.0);
}

/// Poll `cond` every millisecond until it holds, or panic after a long grace (a hang guard,
/// not a timing assertion).
fn wait_for(what: &str, cond: impl Fn() -> bool) {
    for _ in 0..60_000 {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("gave up waiting for {what}");
}

#[test]
fn a_panicking_op_is_that_nodes_error_under_every_evaluator() {
    quiet_boom();
    let e = env();
    let mut g = chain(3);
    with_sibling(&mut g, "n2", "bad", "boom");
    add(&mut g, "after", "after", "bad", 1.0);
    num(&mut g, "ind", "ind", 7.0);
    let want = EvalError::Panic {
        node: "bad".into(),
        op: "boom".into(),
        message: "boom went the op".into(),
    };
    for (name, mut ev) in evaluators(&e.reg) {
        // Twice, so the parallel policies (which measure their levels first) run it pooled.
        for round in 0..2 {
            let err = ev
                .evaluate(&g, &Request::new(["after", "sib"]), &EvalContext::new())
                .unwrap_err();
            assert_eq!(err, want, "{name}, round {round}");
        }
        let req = Request::new(["after", "sib", "ind"]).with_errors(ErrorPolicy::Propagate);
        for round in 0..2 {
            let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
            assert_eq!(
                out.result("after"),
                Some(Err(&want)),
                "{name}, round {round}"
            );
            assert_eq!(f(out.get("sib").unwrap()), 13.0, "{name}");
            assert_eq!(f(out.get("ind").unwrap()), 7.0, "{name}");
            assert_eq!(out.failures.len(), 1, "{name}: {:?}", out.failures);
            assert_eq!(out.failures[0].node.as_str(), "bad", "{name}");
            assert_eq!(out.failures[0].error, want, "{name}");
            assert_eq!(
                out.failures[0].affected,
                vec!["after".to_string()],
                "{name}"
            );
        }
        // Still usable.
        let out = ev
            .evaluate(&g, &Request::new(["n2"]), &EvalContext::new())
            .unwrap();
        assert_eq!(f(out.get("n2").unwrap()), 3.0, "{name}");
    }
    assert_eq!(e.count.get("add:after"), 0, "an op saw a panicked input");
}

/// chain(3) → w (waiter) → after (+1), with `sib` beside `w`.
fn waiter_graph() -> Graph {
    let mut g = chain(3);
    with_sibling(&mut g, "n2", "w", "waiter");
    add(&mut g, "after", "after", "w", 1.0);
    g
}

#[test]
fn cancellation_from_another_thread_stops_a_long_op() {
    let e = env_ext();
    for (name, mut ev) in evaluators(&e.reg) {
        let mut g = waiter_graph();
        let req = Request::new(["after", "sib"]);
        // A first, quick request (the parallel policies measure their levels on it).
        g.set_param("w", "wait", false).unwrap();
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(f(out.get("after").unwrap()), 4.0, "{name}");

        // Now `w` waits until cancelled; another thread cancels once it has started.
        g.set_param("w", "wait", true).unwrap();
        e.started.store(false, Ordering::SeqCst);
        let ctx = EvalContext::new();
        let token = ctx.cancel.clone();
        let done = Arc::new(AtomicBool::new(false));
        let (st, dn) = (e.started.clone(), done.clone());
        let canceller = std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                if dn.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            token.cancel();
        });
        let after_before = e.count.get("add:after");
        let waits_before = e.count.get("waiter:w");
        let r = ev.evaluate(&g, &req, &ctx);
        done.store(true, Ordering::SeqCst);
        canceller.join().unwrap();
        assert_eq!(r.unwrap_err(), EvalError::Cancelled, "{name}");
        assert_eq!(e.count.get("waiter:w"), waits_before + 1, "{name}");
        assert_eq!(
            e.count.get("add:after"),
            after_before,
            "{name}: a node after the cancelled one ran"
        );

        // A fresh token and a `w` that finishes: the right value.
        g.set_param("w", "wait", false).unwrap();
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(f(out.get("after").unwrap()), 4.0, "{name}");
        assert_eq!(f(out.get("sib").unwrap()), 13.0, "{name}");
    }
}

#[test]
fn preemptive_cancellation_abandons_an_op_that_ignores_cancellation() {
    let e = env_ext();
    for (name, mut ev) in evaluators(&e.reg) {
        let mut g = chain(3);
        g.add_node("b", "blocker").unwrap();
        g.set_param("b", "tag", "b").unwrap();
        g.wire("n2.out", "b.x");
        for flag in [&e.started, &e.release, &e.finished] {
            flag.store(false, Ordering::SeqCst);
        }
        let ctx = EvalContext::new();
        let token = ctx.cancel.clone();
        let returned = Arc::new(AtomicBool::new(false));
        let (st, ret, rel) = (e.started.clone(), returned.clone(), e.release.clone());
        let canceller = std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                if ret.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            token.cancel();
            // Hang guard only: if the evaluation never comes back, unblock the op so the
            // test fails instead of hanging (the release check below then fails).
            for _ in 0..60_000 {
                if ret.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            rel.store(true, Ordering::SeqCst);
        });
        let r = ev.evaluate(
            &g,
            &Request::new(["b"]).with_cancel(CancelMode::Preemptive),
            &ctx,
        );
        let released = e.release.load(Ordering::SeqCst);
        returned.store(true, Ordering::SeqCst);
        canceller.join().unwrap();
        assert_eq!(r.unwrap_err(), EvalError::Cancelled, "{name}");
        assert!(
            !released,
            "{name}: the request returned only after the op was released"
        );
        assert!(!e.finished.load(Ordering::SeqCst), "{name}");

        // Let the abandoned worker finish, so the counts below are its last.
        e.release.store(true, Ordering::SeqCst);
        wait_for("the abandoned op to finish", || {
            e.finished.load(Ordering::SeqCst)
        });
        let blocks = e.count.get("blocker:b");
        let out = ev
            .evaluate(&g, &Request::new(["b"]), &EvalContext::new())
            .unwrap();
        assert_eq!(f(out.get("b").unwrap()), 3.0, "{name}");
        // Nothing the abandoned worker computed was kept: the whole cone runs again (for
        // the lazy evaluator: nothing was memoized; for the incremental one: nothing was
        // marked up to date).
        assert_eq!(out.stats.executed, 4, "{name}");
        assert_eq!(e.count.get("blocker:b"), blocks + 1, "{name}");
    }
}

#[test]
fn node_boundary_cancellation_lets_the_running_op_finish() {
    let e = env_ext();
    for (name, mut ev) in evaluators(&e.reg) {
        let mut g = chain(2);
        g.add_node("sc", "self_cancel").unwrap();
        g.set_param("sc", "tag", "sc").unwrap();
        g.wire("n1.out", "sc.x");
        add(&mut g, "after", "after", "sc", 1.0);
        let req = Request::new(["after"]);

        // Cooperative: the op's own check sees the cancellation.
        let ctx = EvalContext::new();
        *e.remote.lock().unwrap() = Some(ctx.cancel.clone());
        let passed = e.passed.load(Ordering::SeqCst);
        let after = e.count.get("add:after");
        let r = ev.evaluate(&g, &req.clone().with_cancel(CancelMode::Cooperative), &ctx);
        assert_eq!(r.unwrap_err(), EvalError::Cancelled, "{name}");
        assert_eq!(e.passed.load(Ordering::SeqCst), passed, "{name}");
        assert_eq!(e.count.get("add:after"), after, "{name}");

        // Node boundary: the op completes, the request stops before the next node.
        let ctx = EvalContext::new();
        *e.remote.lock().unwrap() = Some(ctx.cancel.clone());
        let scs = e.count.get("self_cancel:sc");
        let r = ev.evaluate(&g, &req.clone().with_cancel(CancelMode::NodeBoundary), &ctx);
        assert_eq!(r.unwrap_err(), EvalError::Cancelled, "{name}");
        assert_eq!(e.count.get("self_cancel:sc"), scs + 1, "{name}");
        assert_eq!(
            e.passed.load(Ordering::SeqCst),
            passed + 1,
            "{name}: the op saw the cancellation"
        );
        assert_eq!(e.count.get("add:after"), after, "{name}: `after` ran");

        // Without anyone cancelling: the right value.
        *e.remote.lock().unwrap() = None;
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(f(out.get("after").unwrap()), 3.0, "{name}");
    }
}

/// chain(6) with two adds beside n3 (a level of three nodes).
fn wide_graph() -> Graph {
    let mut g = chain(6);
    add(&mut g, "s1", "s", "n2", 10.0);
    add(&mut g, "s2", "s", "n2", 20.0);
    g
}

type Report = (usize, usize, Option<String>);

fn check_reports(name: &str, g: &Graph, reports: &[Report], executed: u64) {
    let completed: Vec<usize> = reports.iter().map(|r| r.0).collect();
    assert_eq!(
        completed,
        (1..=executed as usize).collect::<Vec<_>>(),
        "{name}: {reports:?}"
    );
    for (c, total, node) in reports {
        assert!(total >= c, "{name}: {reports:?}");
        let node = node.as_deref().unwrap_or_else(|| panic!("{name}: no node"));
        assert!(g.node(node).is_some(), "{name}: `{node}` is no node");
    }
}

#[test]
fn progress_counts_up_to_the_executed_nodes() {
    let e = env();
    let mut g = wide_graph();
    let req = Request::new(["n5", "s1", "s2"]);
    for (name, mut ev) in evaluators(&e.reg) {
        let seen: Arc<Mutex<Vec<Report>>> = Arc::default();
        let s2 = seen.clone();
        let mut ctx = EvalContext::new();
        ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
            if p.node_fraction.is_none() {
                s2.lock()
                    .unwrap()
                    .push((p.completed, p.total, p.node.map(str::to_string)));
            }
        }));
        for round in 0..3 {
            if round == 2 {
                g.set_param("n0", "value", round as f64).unwrap();
            }
            seen.lock().unwrap().clear();
            let out = ev.evaluate(&g, &req, &ctx).unwrap();
            if round == 0 {
                assert_eq!(out.stats.executed, 8, "{name}");
            }
            if round == 1 && name.ends_with("parallel") {
                // The level was measured on round 0; now it runs on the pool.
                assert!(out.stats.parallel >= 3, "{name}: {:?}", out.stats);
            }
            check_reports(name, &g, &seen.lock().unwrap(), out.stats.executed);
        }
        g.set_param("n0", "value", 1.0).unwrap();
    }
}

#[test]
fn progress_reaches_a_channel() {
    let e = env();
    let g = wide_graph();
    let req = Request::new(["n5", "s1", "s2"]);
    for (name, mut ev) in evaluators(&e.reg) {
        let (sink, rx) = progress_channel();
        // The consumer reads on its own thread, as a UI would.
        let reader = std::thread::spawn(move || {
            rx.iter()
                .filter(|r| r.node_fraction.is_none())
                .map(|r| (r.completed, r.total, r.node))
                .collect::<Vec<Report>>()
        });
        let mut ctx = EvalContext::new();
        ctx.progress = Some(sink);
        let out = ev.evaluate(&g, &req, &ctx).unwrap();
        drop(ctx); // drops the sender: the channel closes and the reader finishes
        let got = reader.join().unwrap();
        assert_eq!(got.len(), 8, "{name}");
        check_reports(name, &g, &got, out.stats.executed);
    }
}

#[test]
fn timings_has_one_entry_per_executed_node() {
    let e = env();
    let mut g = wide_graph();
    let req = Request::new(["n5", "s1", "s2"]).with_timings();
    for (name, mut ev) in evaluators(&e.reg) {
        for round in 0..3 {
            if round == 2 {
                g.set_const("n4", "b", 3.0).unwrap();
            }
            let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
            if round == 0 {
                assert_eq!(out.stats.executed, 8, "{name}");
            }
            if round == 1 && name.ends_with("parallel") {
                assert!(out.stats.parallel >= 3, "{name}: {:?}", out.stats);
            }
            assert_eq!(
                out.timings.len() as u64,
                out.stats.executed,
                "{name}, round {round}"
            );
            let mut nodes: Vec<&str> = out.timings.iter().map(|t| t.node.as_str()).collect();
            for t in &out.timings {
                let node = g.node(t.node.as_str()).expect("a node of the graph");
                assert_eq!(node.op, t.op, "{name}");
            }
            nodes.sort_unstable();
            nodes.dedup();
            assert_eq!(nodes.len(), out.timings.len(), "{name}: a node timed twice");
        }
        g.set_const("n4", "b", 1.0).unwrap();
        // Without the flag, no timings.
        let out = ev
            .evaluate(&g, &Request::new(["n5"]), &EvalContext::new())
            .unwrap();
        assert!(out.timings.is_empty(), "{name}");
    }
}

#[test]
fn fallback_values_are_identical_under_every_evaluator() {
    let e = env();
    let mut g = chain(3);
    g.add_node("fl", "flaky").unwrap();
    g.set_param("fl", "tag", "fl").unwrap();
    g.wire("n2.out", "fl.x");
    add(&mut g, "after", "after", "fl", 1.0);
    add(&mut g, "twice", "after", "after", 1.0);
    num(&mut g, "ind", "ind", 7.0);
    add(&mut g, "indc", "ind", "ind", 1.0);
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let s2 = seen.clone();
    let req = Request::new(["twice", "indc", "n2"]).with_errors(ErrorPolicy::fallback(
        move |node: &NodeId, err: &EvalError| {
            assert!(matches!(err, EvalError::Node { .. }), "{err:?}");
            s2.lock().unwrap().push(node.to_string());
            Value::Float(-1.0)
        },
    ));
    let mut reference: Option<Vec<(String, Value)>> = None;
    for (name, mut ev) in evaluators(&e.reg) {
        e.fail.store(true, Ordering::SeqCst);
        for round in 0..2 {
            seen.lock().unwrap().clear();
            let flakes = e.count.get("flaky:fl");
            let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
            assert_eq!(f(out.get("twice").unwrap()), 1.0, "{name}, round {round}");
            assert_eq!(f(out.get("indc").unwrap()), 8.0, "{name}");
            assert_eq!(f(out.get("n2").unwrap()), 3.0, "{name}");
            assert_eq!(out.failures.len(), 1, "{name}: {:?}", out.failures);
            assert_eq!(out.failures[0].node.as_str(), "fl", "{name}");
            assert_eq!(
                out.failures[0].affected,
                vec!["twice".to_string()],
                "{name}"
            );
            assert_eq!(*seen.lock().unwrap(), vec!["fl".to_string()], "{name}");
            assert_eq!(
                e.count.get("flaky:fl"),
                flakes + 1,
                "{name}: the failure was not retried"
            );
            match &reference {
                None => reference = Some(out.values.clone()),
                Some(r) => {
                    assert_eq!(r.len(), out.values.len());
                    for ((rn, rv), (n, v)) in r.iter().zip(&out.values) {
                        assert_eq!(rn, n);
                        assert!(rv.same_bits(v), "{name}: `{n}` is {v:?}, lazy said {rv:?}");
                    }
                }
            }
        }
        // Nothing derived from the replacement was kept.
        e.fail.store(false, Ordering::SeqCst);
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(f(out.get("twice").unwrap()), 5.0, "{name}");
        assert!(out.failures.is_empty(), "{name}");
    }
}

#[test]
fn compiled_background_mode_serves_lazily_until_ready() {
    let e = env();
    let mut g = chain(10);
    let mut ev = CompiledEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    let req = Request::new(["n9"]);

    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Lazy);
    assert_eq!(f(out.get("n9").unwrap()), 10.0);
    assert_eq!(out.stats.executed, 10);

    ev.wait_ready();
    assert!(!ev.compiling());
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Compiled);
    assert_eq!(f(out.get("n9").unwrap()), 10.0);
    assert_eq!(out.stats.executed, 10);

    // A value edit keeps the compiled schedule.
    g.set_param("n0", "value", 3.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Compiled);
    assert!(!out.stats.planned, "a param edit recompiled");
    assert!(!ev.compiling());
    assert_eq!(f(out.get("n9").unwrap()), 12.0);
    g.set_const("n5", "b", 2.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Compiled);
    assert!(!out.stats.planned);
    assert_eq!(f(out.get("n9").unwrap()), 13.0);

    // A structural edit: lazy again until the new schedule is ready.
    add(&mut g, "extra", "extra", "n9", 1.0);
    let req = Request::new(["extra"]);
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Lazy);
    assert_eq!(f(out.get("extra").unwrap()), 14.0);
    ev.wait_ready();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(ev.last_served(), Served::Compiled);
    assert_eq!(f(out.get("extra").unwrap()), 14.0);
    assert_eq!(out.stats.executed, 11);
}

#[test]

fn zero_min_cost_runs_every_multi_node_level_in_parallel() {
    let e = env();
    let mut g = wide_graph();
    let req = Request::new(["n5", "s1", "s2"]);
    for (name, mut ev) in evaluators(&e.reg) {
        if !name.ends_with("parallel") {
            continue;
        }
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(
            out.stats.parallel, 3,
            "{name}, first request: {:?}",
            out.stats
        );
        g.set_param("n0", "value", 2.0).unwrap();
        let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(
            out.stats.parallel, 3,
            "{name}, after an edit: {:?}",
            out.stats
        );
        g.set_param("n0", "value", 1.0).unwrap();
    }
}

#[test]
fn eager_runs_the_requested_cone_or_the_whole_graph() {
    let e = env();
    let g = wide_graph(); // n0..n5 plus s1, s2 hanging off n2
    let req = Request::new(["s1"]);
    let mut cone = EagerEvaluator::new(e.reg.clone());
    let out = cone.evaluate(&g, &req, &EvalContext::new()).unwrap();
    // s1's cone: n0, n1, n2, s1.
    assert_eq!(out.stats.executed, 4);
    let mut whole = EagerEvaluator::new(e.reg.clone()).whole_graph(true);
    let all = whole.evaluate(&g, &req, &EvalContext::new()).unwrap();
    assert_eq!(all.stats.executed, g.len() as u64);
    assert!(all.values[0].1.same_bits(&out.values[0].1));
}

/// No evaluator recurses on graph depth: a 1,000,000-node chain evaluates under each, and
/// the incremental evaluator also recooks it after an edit at the far end.
#[test]
fn million_node_chain_under_every_evaluator() {
    let e = env();
    let n = 1_000_000;
    let mut g = chain(n);
    let req = Request::new([format!("n{}", n - 1)]);
    let ctx = EvalContext::new();
    let mut evs: Vec<(&str, Box<dyn Evaluator>)> = vec![
        ("eager", Box::new(EagerEvaluator::new(e.reg.clone()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(e.reg.clone()).with_background(false)),
        ),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(e.reg.clone())),
        ),
    ];
    for (name, ev) in evs.iter_mut() {
        let out = ev.evaluate(&g, &req, &ctx).unwrap();
        assert_eq!(out.values[0].1, Value::Float(n as f64), "{name}");
        assert_eq!(out.stats.executed as usize, n, "{name}");
    }
    g.set_param("n0", "value", 2.0).unwrap();
    let out = evs[2].1.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.values[0].1, Value::Float(n as f64 + 1.0));
    assert_eq!(out.stats.executed as usize, n);
}

/// Under a parallel policy a branch that only feeds itself runs as one task: its nodes are
/// recorded one after another (no join between its levels), with the same bits as a
/// sequential run.
#[test]
fn parallel_branches_run_as_one_task_each() {
    let e = env();
    let mut g = Graph::new();
    g.add_node("n0", "num").unwrap();
    g.set_param("n0", "value", 1.0).unwrap();
    add(&mut g, "a1", "a", "n0", 1.0);
    add(&mut g, "a2", "a", "a1", 2.0);
    add(&mut g, "b1", "b", "n0", 3.0);
    add(&mut g, "b2", "b", "b1", 4.0);
    g.add_node("s", "add").unwrap();
    g.wire("a2.out", "s.a");
    g.wire("b2.out", "s.b");
    let req = Request::new(["s"]).with_timings();
    let par = ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: Some(Duration::ZERO),
    };
    let mut ev = CompiledEvaluator::new(e.reg.clone())
        .with_background(false)
        .with_parallel(par);
    let out = ev.evaluate(&g, &req, &EvalContext::new()).unwrap();
    let order: Vec<&str> = out.timings.iter().map(|t| t.node.as_str()).collect();
    assert_eq!(order, ["n0", "a1", "a2", "b1", "b2", "s"]);
    assert_eq!(out.stats.parallel, 4);
    let seq = LazyEvaluator::new(e.reg.clone())
        .evaluate(&g, &Request::new(["s"]), &EvalContext::new())
        .unwrap();
    assert!(out.values[0].1.same_bits(&seq.values[0].1));
}
