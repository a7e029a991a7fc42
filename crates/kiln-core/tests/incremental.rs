//! Behaviour of the incremental evaluator, proved by counting executions.

mod common;
use common::*;
use kiln_core::eval::{ErrorPolicy, IncrementalEvaluator};
use kiln_core::prelude::*;
use std::sync::atomic::Ordering;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a float, found {v:?}"))
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

/// A tagged chain `{p}0` (num, value `v`) → `{p}1` → … → `{p}{n-1}` (add 1), every node
/// tagged `p`.
fn tagged_chain(g: &mut Graph, p: &str, n: usize, v: f64) {
    num(g, &format!("{p}0"), p, v);
    for i in 1..n {
        add(g, &format!("{p}{i}"), p, &format!("{p}{}", i - 1), 1.0);
    }
}

#[test]
fn chain_of_100_recomputes_exactly_what_an_edit_reaches() {
    let e = env();
    let mut g = chain(100);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let req = Request::new(["n99"]);
    let ctx = EvalContext::new();

    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n99").unwrap()), 100.0);
    assert_eq!(out.stats.executed, 100);
    assert_eq!(e.count.total(), 100);
    assert_eq!((e.count.get("num"), e.count.get("add")), (1, 99));
    assert_eq!(ev.stale_count(), 0);

    // Nothing changed: nothing runs, nothing is even checked.
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n99").unwrap()), 100.0);
    assert_eq!(out.stats.executed, 0);
    assert_eq!(out.stats.cache_hits, 0);
    assert_eq!(out.stats.cutoffs, 0);
    assert!(!out.stats.planned);
    assert_eq!(e.count.total(), 100);

    // Editing the source re-executes the whole chain, without a replan.
    g.set_param("n0", "value", 5.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n99").unwrap()), 104.0);
    assert_eq!(out.stats.executed, 100);
    assert_eq!(out.stats.cutoffs, 0);
    assert!(!out.stats.planned, "a param edit must not rebuild the plan");
    assert_eq!(e.count.total(), 200);

    // Editing a constant in the middle re-executes n60..n99 only.
    g.set_const("n60", "b", 2.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n99").unwrap()), 105.0);
    assert_eq!(out.stats.executed, 40);
    assert_eq!(e.count.get("num"), 2, "the source did not run again");
    assert_eq!(e.count.get("add"), 99 + 99 + 40);

    // An intermediate output is served from the slots.
    let out = ev.evaluate(&g, &Request::new(["n59"]), &ctx).unwrap();
    assert_eq!(f(out.get("n59").unwrap()), 64.0);
    assert_eq!(out.stats.executed, 0);
    assert_eq!(e.count.total(), 240);
}

/// x (num) → g = (x > 0) → p = pick(g, a, b) → d = p + 1, with a = 10 and b = 20.
fn cutoff_graph(switch_op: &str) -> Graph {
    let mut g = Graph::new();
    num(&mut g, "x", "x", 1.0);
    g.add_node("g", "gt").unwrap();
    g.set_param("g", "tag", "g").unwrap();
    g.wire("x.out", "g.a");
    g.set_const("g", "b", 0.0).unwrap();
    num(&mut g, "ta", "ta", 10.0);
    num(&mut g, "tb", "tb", 20.0);
    g.add_node("p", switch_op).unwrap();
    g.set_param("p", "tag", "p").unwrap();
    g.wire("g.out", "p.cond");
    g.wire("ta.out", "p.a");
    g.wire("tb.out", "p.b");
    add(&mut g, "d", "d", "p", 1.0);
    g
}

fn early_cutoff(switch_op: &str) {
    let e = env_ext();
    let mut g = cutoff_graph(switch_op);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let req = Request::new(["d"]);
    let ctx = EvalContext::new();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("d").unwrap()), 11.0);
    let before = e.count.total();
    let downstream = |e: &ExtEnv| e.count.get(&format!("{switch_op}:p")) + e.count.get("add:d");
    assert_eq!(downstream(&e), 2);

    // x: 1 → 2. `g` stays true: it re-executes, produces the same bits, and stops there.
    g.set_param("x", "value", 2.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("d").unwrap()), 11.0);
    assert_eq!(e.count.get("num:x"), 2);
    assert_eq!(e.count.get("gt:g"), 2);
    assert_eq!(downstream(&e), 2, "something downstream of the cutoff ran");
    assert_eq!(out.stats.cutoffs, 1);
    assert_eq!(out.stats.executed, 2);
    assert_eq!(e.count.total(), before + 2);

    // The same value again: the num runs and is cut off at once.
    g.set_param("x", "value", 2.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.stats.executed, 1);
    assert_eq!(out.stats.cutoffs, 1);
    assert_eq!(e.count.get("num:x"), 3);
    assert_eq!(e.count.total(), before + 3);

    // A change that does flip `g` goes all the way through.
    g.set_param("x", "value", -1.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("d").unwrap()), 21.0);
    assert_eq!(out.stats.cutoffs, 0);
    assert_eq!(downstream(&e), 4);
}

#[test]
fn early_cutoff_stops_at_a_node_whose_bits_did_not_change() {
    early_cutoff("pick");
}

#[test]

fn early_cutoff_also_stops_before_a_lazy_switch() {
    early_cutoff("sw");
}

#[test]
fn clock_changes_recompute_only_the_clock_cone() {
    let e = env();
    let mut g = Graph::new();
    g.add_node("t", "time").unwrap();
    g.set_param("t", "tag", "t").unwrap();
    add(&mut g, "tc", "tc", "t", 1.0);
    num(&mut g, "p", "p", 3.0);
    add(&mut g, "pc", "pc", "p", 1.0);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let req = Request::new(["tc", "pc"]);
    let mut ctx = EvalContext::new();
    ctx.time = 1.0;
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("tc").unwrap()), 2.0);
    assert_eq!(f(out.get("pc").unwrap()), 4.0);
    assert_eq!(out.stats.executed, 4);

    ctx.time = 2.5;
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("tc").unwrap()), 3.5);
    assert_eq!(f(out.get("pc").unwrap()), 4.0);
    assert_eq!(out.stats.executed, 2);
    assert_eq!((e.count.get("time:t"), e.count.get("add:tc")), (2, 2));
    assert_eq!((e.count.get("num:p"), e.count.get("add:pc")), (1, 1));

    // Nobody reads the seed (or the frame): nothing runs.
    ctx.seed = 42;
    ctx.frame = 7;
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.stats.executed, 0);
    assert_eq!(f(out.get("tc").unwrap()), 3.5);
    assert_eq!(e.count.total(), 6);

    // Back to an earlier time: the clock cone runs again (no memo of old times here).
    ctx.time = 1.0;
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("tc").unwrap()), 2.0);
    assert_eq!(out.stats.executed, 2);
    assert_eq!((e.count.get("num:p"), e.count.get("add:pc")), (1, 1));
}

#[test]
fn only_the_requested_cone_is_brought_up_to_date() {
    let e = env();
    let mut g = Graph::new();
    tagged_chain(&mut g, "a", 5, 1.0);
    tagged_chain(&mut g, "b", 5, 100.0);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    let both = Request::new(["a4", "b4"]);
    let out = ev.evaluate(&g, &both, &ctx).unwrap();
    assert_eq!(out.stats.executed, 10);
    let a = |e: &Env| e.count.get("num:a") + e.count.get("add:a");
    let b = |e: &Env| e.count.get("num:b") + e.count.get("add:b");
    assert_eq!((a(&e), b(&e)), (5, 5));

    g.set_param("a0", "value", 2.0).unwrap();
    g.set_param("b0", "value", 200.0).unwrap();
    let out = ev.evaluate(&g, &Request::new(["a4"]), &ctx).unwrap();
    assert_eq!(f(out.get("a4").unwrap()), 6.0);
    assert_eq!(out.stats.executed, 5);
    assert_eq!((a(&e), b(&e)), (10, 5), "B's cone ran for a request of A");
    assert_eq!(ev.stale_count(), 5, "B is still waiting");

    let out = ev.evaluate(&g, &Request::new(["b4"]), &ctx).unwrap();
    assert_eq!(f(out.get("b4").unwrap()), 204.0);
    assert_eq!(out.stats.executed, 5);
    assert_eq!((a(&e), b(&e)), (10, 10));
    assert_eq!(ev.stale_count(), 0);

    let out = ev.evaluate(&g, &both, &ctx).unwrap();
    assert_eq!(out.stats.executed, 0);
    assert_eq!(f(out.get("a4").unwrap()), 6.0);
    assert_eq!(f(out.get("b4").unwrap()), 204.0);
}

/// chain(3) → fl (flaky) → after (+1); and an independent ind (7) → indc (+1).
fn flaky_graph() -> Graph {
    let mut g = chain(3);
    g.add_node("fl", "flaky").unwrap();
    g.set_param("fl", "tag", "fl").unwrap();
    g.wire("n2.out", "fl.x");
    add(&mut g, "after", "after", "fl", 1.0);
    num(&mut g, "ind", "ind", 7.0);
    add(&mut g, "indc", "ind", "ind", 1.0);
    g
}

#[test]
fn a_failed_node_is_not_kept_under_fail_fast() {
    let e = env();
    let g = flaky_graph();
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    let req = Request::new(["after"]);
    e.fail.store(true, Ordering::SeqCst);
    match ev.evaluate(&g, &req, &ctx).unwrap_err() {
        EvalError::Node { node, op, .. } => {
            assert_eq!(node.as_str(), "fl");
            assert_eq!(op, "flaky");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(e.count.get("flaky:fl"), 1);
    assert_eq!(e.count.get("add:after"), 0);

    e.fail.store(false, Ordering::SeqCst);
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("after").unwrap()), 4.0);
    assert_eq!(
        e.count.get("flaky:fl"),
        2,
        "the failed node was not recomputed"
    );
    assert_eq!(out.stats.executed, 2, "only fl and after run");
    assert_eq!(e.count.get("num"), 1);

    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.stats.executed, 0);
}

#[test]
fn a_failed_node_under_propagate_is_reported_and_retried() {
    let e = env();
    let g = flaky_graph();
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let ctx = EvalContext::new();
    let req = Request::new(["after", "indc"]).with_errors(ErrorPolicy::Propagate);
    e.fail.store(true, Ordering::SeqCst);
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    match out.result("after").unwrap() {
        Err(EvalError::Node { node, .. }) => assert_eq!(node.as_str(), "fl"),
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(out.get("after"), Some(Value::Error(_))));
    assert_eq!(f(out.get("indc").unwrap()), 8.0);
    assert_eq!(out.failures.len(), 1);
    assert_eq!(out.failures[0].node.as_str(), "fl");
    assert_eq!(out.failures[0].op, "flaky");
    assert_eq!(out.failures[0].affected, vec!["after".to_string()]);
    assert_eq!(out.stats.propagated, 1);
    assert_eq!(
        e.count.get("add:after"),
        0,
        "an op never sees an error input"
    );

    e.fail.store(false, Ordering::SeqCst);
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("after").unwrap()), 4.0);
    assert_eq!(f(out.get("indc").unwrap()), 8.0);
    assert!(out.failures.is_empty());
    assert_eq!(
        out.stats.executed, 2,
        "fl and after recompute, nothing else"
    );
    assert_eq!(e.count.get("flaky:fl"), 2);
    assert_eq!(e.count.get("add:after"), 1);
    assert_eq!(e.count.get("num:ind") + e.count.get("add:ind"), 2);

    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.stats.executed, 0);
    assert_eq!(f(out.get("after").unwrap()), 4.0);
}

/// A graph with a diamond, a lazy switch, a clock cone and an eager pick.
fn mixed_graph() -> Graph {
    let mut g = Graph::new();
    num(&mut g, "x", "x", 3.0);
    num(&mut g, "y", "y", 2.0);
    g.add_node("c", "gt").unwrap();
    g.wire("x.out", "c.a");
    g.wire("y.out", "c.b");
    tagged_chain(&mut g, "ta", 3, 0.1);
    tagged_chain(&mut g, "tb", 3, 0.2);
    g.add_node("s", "sw").unwrap();
    g.wire("c.out", "s.cond");
    g.wire("ta2.out", "s.a");
    g.wire("tb2.out", "s.b");
    g.add_node("t", "time").unwrap();
    g.add_node("mix", "add").unwrap();
    g.wire("s.out", "mix.a");
    g.wire("t.out", "mix.b");
    // A diamond over x.
    add(&mut g, "l", "l", "x", 0.5);
    add(&mut g, "r", "r", "x", -0.5);
    g.add_node("j", "add").unwrap();
    g.wire("l.out", "j.a");
    g.wire("r.out", "j.b");
    g.add_node("pk", "pick").unwrap();
    g.wire("c.out", "pk.cond");
    g.wire("j.out", "pk.a");
    g.wire("y.out", "pk.b");
    g
}

#[test]
fn incremental_matches_a_fresh_lazy_evaluator_at_every_step() {
    let e = env_ext();
    let mut g = mixed_graph();
    let mut inc = IncrementalEvaluator::new(e.reg.clone());
    let mut ctx = EvalContext::new();
    type Step = Box<dyn Fn(&mut Graph, &mut EvalContext)>;
    let steps: Vec<(&str, Step, Vec<&str>)> = vec![
        ("start", Box::new(|_, _| {}), vec!["mix", "pk", "j"]),
        (
            "x below y",
            Box::new(|g, _| g.set_param("x", "value", 1.0).unwrap()),
            vec!["mix", "pk", "j"],
        ),
        (
            "time",
            Box::new(|_, c| c.time = 0.3),
            vec!["mix", "pk", "j"],
        ),
        (
            "same value",
            Box::new(|g, _| g.set_param("x", "value", 1.0).unwrap()),
            vec!["mix"],
        ),
        (
            "edit an untaken-then-taken branch",
            Box::new(|g, _| g.set_const("tb1", "b", 0.7).unwrap()),
            vec!["pk"],
        ),
        (
            "request what the previous step skipped",
            Box::new(|_, _| {}),
            vec!["mix", "pk", "j", "s"],
        ),
        (
            "negative zero",
            Box::new(|g, _| {
                g.set_param("x", "value", -0.0).unwrap();
                g.set_const("l", "b", -0.0).unwrap();
                g.set_const("r", "b", -0.0).unwrap();
            }),
            vec!["j", "l", "r", "pk"],
        ),
        (
            "positive zero",
            Box::new(|g, _| g.set_param("x", "value", 0.0).unwrap()),
            vec!["j", "l", "r", "pk"],
        ),
        (
            "x above y, seed",
            Box::new(|g, c| {
                g.set_param("x", "value", 9.0).unwrap();
                c.seed = 5;
            }),
            vec!["mix", "pk", "j"],
        ),
        (
            "several edits at once",
            Box::new(|g, c| {
                g.set_param("ta0", "value", 0.1 + 0.2).unwrap();
                g.set_param("y", "value", 8.9999).unwrap();
                g.set_const("r", "b", 1e-300).unwrap();
                c.time = 1.0 / 3.0;
            }),
            vec!["mix", "pk", "j", "s", "t"],
        ),
        (
            "undo",
            Box::new(|g, c| {
                g.set_param("ta0", "value", 0.1).unwrap();
                c.time = 0.3;
            }),
            vec!["mix", "pk", "j", "s", "t"],
        ),
    ];
    for (name, edit, outputs) in steps {
        edit(&mut g, &mut ctx);
        let req = Request::new(outputs.iter().copied());
        let got = inc.evaluate(&g, &req, &ctx).unwrap();
        let want = LazyEvaluator::new(e.reg.clone())
            .evaluate(&g, &req, &ctx)
            .unwrap();
        assert_eq!(got.values.len(), want.values.len(), "step `{name}`");
        for ((gn, gv), (wn, wv)) in got.values.iter().zip(&want.values) {
            assert_eq!(gn, wn, "step `{name}`");
            assert!(
                gv.same_bits(wv),
                "step `{name}`, output `{gn}`: incremental {gv:?}, lazy {wv:?}"
            );
        }
    }
}

/// A chain of kernel ops (`kadd`), requested at its end: the schedule is self-contained, so
/// invalidations are deferred and the next run checks the cone in one pass. Requests for
/// other outputs (which flush the deferred marks) and failures in between stay correct.
#[test]
fn deferred_invalidation_on_self_contained_schedules_stays_exact() {
    let mut e = env();
    add_kernel_ops(&mut e.reg);
    let mut g = Graph::new();
    g.add_node("n0", "num").unwrap();
    g.set_param("n0", "value", 1.0).unwrap();
    g.add_node("one", "num").unwrap();
    g.set_param("one", "value", 1.0).unwrap();
    for i in 1..50 {
        let id = format!("n{i}");
        g.add_node(id.as_str(), "kadd").unwrap();
        g.wire(&format!("n{}.out", i - 1), &format!("{id}.a"));
        g.wire("one.out", &format!("{id}.b"));
    }
    let mut inc = IncrementalEvaluator::new(e.reg.clone());
    let fresh = |g: &Graph, out: &str| {
        LazyEvaluator::new(e.reg.clone())
            .evaluate(g, &Request::new([out]), &EvalContext::new())
            .unwrap()
            .values[0]
            .1
            .clone()
    };
    let ctx = EvalContext::new();
    let end = Request::new(["n49"]);
    let first = inc.evaluate(&g, &end, &ctx).unwrap();
    assert_eq!(first.values[0].1, Value::Float(50.0));
    for (step, x) in [3.0, 3.0, -7.5, 0.25].into_iter().enumerate() {
        g.set_param("n0", "value", x).unwrap();
        let out = inc.evaluate(&g, &end, &ctx).unwrap();
        assert!(out.values[0].1.same_bits(&fresh(&g, "n49")), "step {step}");
        assert_eq!(inc.stale_count(), 0, "step {step}");
        if step == 1 {
            // Same value again: one execution, cut off right there.
            assert_eq!(out.stats.executed, 1);
            assert_eq!(out.stats.cutoffs, 1);
        }
        // A request for a middle node after a deferred edit flushes the marks first.
        g.set_param("one", "value", 2.0 + step as f64).unwrap();
        let mid = inc.evaluate(&g, &Request::new(["n20"]), &ctx).unwrap();
        assert!(mid.values[0].1.same_bits(&fresh(&g, "n20")), "step {step}");
        let out = inc.evaluate(&g, &end, &ctx).unwrap();
        assert!(out.values[0].1.same_bits(&fresh(&g, "n49")), "step {step}");
        // Only the 29 nodes past n20 were left to do.
        assert_eq!(out.stats.executed, 29, "step {step}");
    }
}

/// Replans that add a node the request does not read run nothing again, and give `want`.
fn later_replans_run_nothing(ev: &mut IncrementalEvaluator, g: &mut Graph, want: f64) {
    let (req, ctx) = (Request::new(["n4"]), EvalContext::new());
    for i in 1..4 {
        g.add_node(format!("later{i}").as_str(), "num").unwrap();
        let out = ev.evaluate(g, &req, &ctx).unwrap();
        assert_eq!(f(out.get("n4").unwrap()), want);
        let s = out.stats;
        assert_eq!((s.executed, s.cutoffs), (0, 0), "replan {i}");
    }
}

#[test]
fn a_node_edited_before_a_replan_does_not_run_again_after_later_replans() {
    let e = env();
    let mut g = chain(5);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let (req, ctx) = (Request::new(["n4"]), EvalContext::new());
    ev.evaluate(&g, &req, &ctx).unwrap();
    // A constant changed together with a change of shape (a node added): a replan.
    g.set_const("n2", "b", 2.0).unwrap();
    g.add_node("x0", "num").unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n4").unwrap()), 6.0);
    assert_eq!(out.stats.executed, 3, "n2, n3 and n4");
    later_replans_run_nothing(&mut ev, &mut g, 6.0);
}

#[test]
fn a_node_edited_in_place_does_not_run_again_after_later_replans() {
    let e = env();
    let mut g = chain(5);
    let mut ev = IncrementalEvaluator::new(e.reg.clone());
    let (req, ctx) = (Request::new(["n4"]), EvalContext::new());
    ev.evaluate(&g, &req, &ctx).unwrap();
    // Edits of a constant and a param, made in place (no replan).
    g.set_const("n2", "b", 2.0).unwrap();
    g.set_param("n0", "value", 3.0).unwrap();
    let out = ev.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(f(out.get("n4").unwrap()), 8.0);
    assert_eq!(out.stats.executed, 5);
    later_replans_run_nothing(&mut ev, &mut g, 8.0);
}
