//! The shared store (policies, budgets, pinning, sharing across graphs) and sessions
//! (present, failed presents, incremental replanning), counted by executions.

#[path = "../../kiln-core/tests/common.rs"]
mod common;

use common::env;
use kiln_core::cache::{Generational, KeepAll, Lru, Manual, Store};
use kiln_core::prelude::*;
use kiln_lower::session::{Clock, Session, SessionError};
use std::sync::Arc;
use std::time::Duration;

fn val(n: usize) -> Value {
    Value::Str(Arc::from("x".repeat(n).as_str()))
}

fn k(i: u128) -> Key {
    Key(i)
}

fn f(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(f64::NAN)
}

// ---- Policies -------------------------------------------------------------------------

#[test]
fn keep_all_never_evicts_and_refuses_what_does_not_fit() {
    let one = val(100).byte_size();
    let s = Store::new(KeepAll).with_budget(2 * one);
    assert!(s.insert(k(1), val(100), Duration::ZERO));
    assert!(s.insert(k(2), val(100), Duration::ZERO));
    assert!(!s.insert(k(3), val(100), Duration::ZERO));
    assert!(s.contains(k(1)) && s.contains(k(2)) && !s.contains(k(3)));
    assert_eq!(s.stats().refused, 1);
    assert_eq!(s.stats().evictions, 0);
    // Without a budget it keeps everything.
    let s = Store::new(KeepAll);
    for i in 0..100 {
        s.insert(k(i), val(100), Duration::ZERO);
    }
    assert_eq!(s.len(), 100);
}

#[test]
fn lru_evicts_in_order_of_last_use() {
    let one = val(50).byte_size();
    let s = Store::new(Lru::new()).with_budget(4 * one);
    for i in 0..4 {
        s.insert(k(i), val(50), Duration::ZERO);
    }
    // Use order now: 1, 3, 0, 2 (oldest first) after reading 0 then 2.
    s.get(k(0));
    s.get(k(2));
    let mut evicted = vec![];
    for i in 10..14 {
        let before = s.keys();
        s.insert(k(i), val(50), Duration::ZERO);
        let after = s.keys();
        evicted.extend(before.into_iter().filter(|x| !after.contains(x)));
        assert!(s.bytes() <= 4 * one);
    }
    assert_eq!(evicted, vec![k(1), k(3), k(0), k(2)]);
}

#[test]
fn weighted_lru_keeps_what_is_expensive_per_byte() {
    let s = Store::new(Lru::weighted()).with_budget(val(1000).byte_size() + val(10).byte_size());
    // A large cheap value and a small expensive one, then pressure.
    s.insert(k(1), val(10), Duration::from_millis(50));
    s.insert(k(2), val(1000), Duration::from_micros(1));
    // Plain LRU would evict 1 (the older); weighted evicts 2 (cheap per byte).
    s.insert(k(3), val(10), Duration::from_millis(5));
    assert!(s.contains(k(1)) && !s.contains(k(2)) && s.contains(k(3)));
}

#[test]
fn generational_drops_what_recent_generations_did_not_use() {
    let s = Store::new(Generational::new(2));
    s.insert(k(1), val(10), Duration::ZERO); // generation 0
    s.insert(k(2), val(10), Duration::ZERO);
    s.next_generation(); // 1
    s.get(k(2));
    s.next_generation(); // 2: entries last used in generation 0 go
    assert!(!s.contains(k(1)) && s.contains(k(2)));
    s.next_generation(); // 3: 2 was last used in generation 1
    assert!(!s.contains(k(2)));
    // Under budget pressure the oldest generation goes first.
    let one = val(10).byte_size();
    let s = Store::new(Generational::new(100)).with_budget(2 * one);
    s.insert(k(1), val(10), Duration::ZERO);
    s.next_generation();
    s.insert(k(2), val(10), Duration::ZERO);
    s.get(k(1)); // now generation 1 too, but read after 2 was inserted
    s.next_generation();
    s.insert(k(3), val(10), Duration::ZERO);
    assert!(s.contains(k(3)));
    assert_eq!(s.len(), 2);
    assert!(!s.contains(k(2)), "{:?}", s.keys());
}

#[test]
fn manual_evicts_only_when_told() {
    let one = val(10).byte_size();
    let s = Store::new(Manual).with_budget(2 * one);
    s.insert(k(1), val(10), Duration::ZERO);
    s.insert(k(2), val(10), Duration::ZERO);
    assert!(!s.insert(k(3), val(10), Duration::ZERO));
    for _ in 0..5 {
        s.next_generation();
    }
    assert!(s.contains(k(1)) && s.contains(k(2)));
    assert!(s.evict(k(1)));
    assert!(s.insert(k(3), val(10), Duration::ZERO));
    s.clear();
    assert!(s.is_empty() && s.bytes() == 0);
}

#[test]
fn pinned_entries_survive_pressure() {
    let one = val(10).byte_size();
    let s = Store::new(Lru::new()).with_budget(3 * one);
    for i in 0..3 {
        s.insert(k(i), val(10), Duration::ZERO);
    }
    assert!(s.pin(k(0)));
    assert!(s.pin(k(0)));
    assert!(!s.pin(k(99)));
    for i in 10..20 {
        s.insert(k(i), val(10), Duration::ZERO);
        assert!(s.contains(k(0)));
        assert!(s.bytes() <= 3 * one);
    }
    assert_eq!(s.pinned_bytes(), one);
    s.unpin(k(0));
    assert!(s.is_pinned(k(0)), "pinned twice, unpinned once");
    s.unpin(k(0));
    s.insert(k(30), val(10), Duration::ZERO);
    s.insert(k(31), val(10), Duration::ZERO);
    s.insert(k(32), val(10), Duration::ZERO);
    assert!(!s.contains(k(0)));
    // Everything pinned: a new value is refused rather than breaking the budget.
    let s = Store::new(Lru::new()).with_budget(one);
    s.insert(k(1), val(10), Duration::ZERO);
    s.pin(k(1));
    assert!(!s.insert(k(2), val(10), Duration::ZERO));
    assert!(s.bytes() <= one);
}

#[test]
fn lowering_the_budget_evicts_down_to_it() {
    let one = val(10).byte_size();
    let s = Store::new(Lru::new());
    for i in 0..10 {
        s.insert(k(i), val(10), Duration::ZERO);
    }
    s.set_budget(Some(4 * one));
    assert_eq!(s.len(), 4);
    assert!(s.bytes() <= 4 * one);
    assert!(s.contains(k(9)) && !s.contains(k(0)));
}

// ---- Sharing across graphs --------------------------------------------------------------

/// A chain `a{i}` of `n` adds from a `num` with `value`, tagged `tag`.
fn chain_graph(tag: &str, value: f64, n: usize) -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "num").unwrap();
    g.set_param("src", "value", value).unwrap();
    g.set_param("src", "tag", Value::str(tag)).unwrap();
    let mut prev = "src".to_string();
    for i in 0..n {
        let id = format!("a{i}");
        g.add_node(id.as_str(), "add").unwrap();
        g.set_param(&id, "tag", Value::str(tag)).unwrap();
        g.wire(&prev, &format!("{id}.a"));
        g.set_const(&id, "b", 1.0).unwrap();
        prev = id;
    }
    g
}

#[test]
fn one_store_cooks_the_same_op_on_the_same_inputs_once_across_graphs() {
    let e = env();
    let store = Store::new(KeepAll).shared();
    // Two graphs with different node ids but the same computation, plus a tail of their own.
    let g1 = chain_graph("shared", 1.0, 10);
    let mut g2 = Graph::new();
    g2.add_node("other_src", "num").unwrap();
    g2.set_param("other_src", "value", 1.0).unwrap();
    g2.set_param("other_src", "tag", Value::str("shared"))
        .unwrap();
    let mut prev = "other_src".to_string();
    for i in 0..12 {
        let id = format!("b{i}");
        g2.add_node(id.as_str(), "add").unwrap();
        g2.set_param(&id, "tag", Value::str("shared")).unwrap();
        g2.wire(&prev, &format!("{id}.a"));
        g2.set_const(&id, "b", 1.0).unwrap();
        prev = id;
    }
    let mut lazy = LazyEvaluator::new(e.reg.clone()).with_store(store.clone());
    let out = lazy
        .evaluate(&g1, &Request::new(["a9"]), &EvalContext::new())
        .unwrap();
    assert_eq!(f(out.get("a9")), 11.0);
    assert_eq!(e.count.total(), 11);
    // A different evaluator kind, another graph: only the two extra nodes cook.
    let mut session = Session::new(e.reg.clone(), g2, ["b11"]).with_store(store.clone());
    let report = session.present(Clock::default()).unwrap();
    assert_eq!(e.count.total(), 13, "{report}");
    assert_eq!(report.cooked, 2);
    assert_eq!(f(session.frame().unwrap().get("b11")), 13.0);
    // And the store serves a second session on the first graph with no cooking at all.
    let mut again = Session::new(e.reg.clone(), g1, ["a9"]).with_store(store.clone());
    let report = again.present(Clock::default()).unwrap();
    assert_eq!(report.cooked, 0);
    assert_eq!(e.count.total(), 13);
}

#[test]
fn a_failed_computation_never_enters_the_store() {
    let e = env();
    let store = Store::new(KeepAll).shared();
    let mut g = Graph::new();
    g.add_node("n", "num").unwrap();
    g.add_node("fl", "flaky").unwrap();
    g.wire("n", "fl.x");
    g.add_node("after", "add").unwrap();
    g.wire("fl", "after.a");
    e.fail.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut lazy = LazyEvaluator::new(e.reg.clone()).with_store(store.clone());
    let req = Request::new(["after"]).with_errors(ErrorPolicy::Propagate);
    let out = lazy.evaluate(&g, &req, &EvalContext::new()).unwrap();
    assert!(out.get("after").is_some_and(|v| v.as_error().is_some()));
    assert_eq!(store.len(), 1, "only `n` is kept");
    e.fail.store(false, std::sync::atomic::Ordering::SeqCst);
    let out = lazy.evaluate(&g, &req, &EvalContext::new()).unwrap();
    assert_eq!(f(out.get("after")), 0.0);
    assert_eq!(store.len(), 3);
}

// ---- Budgets under load -------------------------------------------------------------------

#[test]
fn the_budget_holds_after_every_request() {
    let e = env();
    let one = Value::Float(0.0).byte_size();
    let budget = 40 * one;
    let store = Store::new(Lru::new()).with_budget(budget).shared();
    let mut lazy = LazyEvaluator::new(e.reg.clone()).with_store(store.clone());
    for round in 0..30 {
        let g = chain_graph("load", round as f64, 25);
        let out = lazy
            .evaluate(&g, &Request::new(["a24"]), &EvalContext::new())
            .unwrap();
        assert_eq!(f(out.get("a24")), round as f64 + 25.0);
        assert!(store.bytes() <= budget, "round {round}: {}", store.bytes());
    }
    assert!(store.stats().evictions > 0);
}

// ---- Sessions -------------------------------------------------------------------------------

/// Two independent chains `l*` and `r*` joined by `join = l_last + r_last`.
fn two_chains(n: usize) -> Graph {
    let mut g = Graph::new();
    for side in ["l", "r"] {
        let src = format!("{side}src");
        g.add_node(src.as_str(), "num").unwrap();
        g.set_param(&src, "value", 1.0).unwrap();
        g.set_param(&src, "tag", Value::str(side)).unwrap();
        let mut prev = src;
        for i in 0..n {
            let id = format!("{side}{i}");
            g.add_node(id.as_str(), "add").unwrap();
            g.set_param(&id, "tag", Value::str(side)).unwrap();
            g.wire(&prev, &format!("{id}.a"));
            g.set_const(&id, "b", 1.0).unwrap();
            prev = id;
        }
    }
    g.add_node("join", "add").unwrap();
    g.set_param("join", "tag", Value::str("join")).unwrap();
    g.wire(&format!("l{}", n - 1), "join.a");
    g.wire(&format!("r{}", n - 1), "join.b");
    g
}

fn fresh(g: &Graph, reg: &Registry, out: &str) -> f64 {
    let mut lazy = LazyEvaluator::new(reg.clone());
    f(lazy
        .evaluate(g, &Request::new([out]), &EvalContext::new())
        .unwrap()
        .get(out))
}

#[test]
fn a_param_edit_recooks_only_its_cone_without_replanning() {
    let e = env();
    let mut s = Session::new(e.reg.clone(), two_chains(20), ["join", "r19"]);
    let first = s.present(Clock::default()).unwrap();
    assert!(first.planned);
    assert_eq!(first.cooked, 43);
    s.set_param("lsrc", "value", 5.0).unwrap();
    let before = e.count.get("add:r");
    let second = s.present(Clock::default()).unwrap();
    assert!(!second.planned, "{second}");
    assert_eq!(second.cooked, 22, "{second}"); // lsrc, l0..l19, join
    assert_eq!(e.count.get("add:r"), before, "the other chain did not cook");
    assert_eq!(f(s.frame().unwrap().get("join")), 46.0);
    assert_eq!(second.frame, 1);
}

#[test]
fn a_structural_edit_recooks_only_the_changed_nodes_cones() {
    let e = env();
    let mut s = Session::new(e.reg.clone(), two_chains(20), ["join"]);
    s.present(Clock::default()).unwrap();
    // Rewire l10 to read l8 instead of l9 (a structural edit): l10..l19 and join recook.
    s.edit(|g| {
        g.disconnect(&PortRef::new("l10", "a")).unwrap();
        g.wire("l8", "l10.a");
    });
    let before_r = e.count.get("add:r");
    let before_l = e.count.get("add:l");
    let report = s.present(Clock::default()).unwrap();
    assert!(report.planned, "{report}");
    assert_eq!(e.count.get("add:r"), before_r, "{report}");
    assert_eq!(e.count.get("add:l") - before_l, 10, "{report}");
    assert_eq!(report.cooked, 11, "{report}");
    let want = fresh(s.graph(), &e.reg, "join");
    assert_eq!(f(s.frame().unwrap().get("join")), want);
    assert_eq!(want, 20.0 + 21.0);

    // A new node nothing reads: nothing recooks.
    s.edit(|g| {
        g.add_node("lonely", "num").unwrap();
    });
    let report = s.present(Clock::default()).unwrap();
    assert_eq!(report.cooked, 0, "{report}");

    // Replacing the graph with an equal one loaded afresh: nothing recooks either.
    let mut copy = two_chains(20);
    copy.disconnect(&PortRef::new("l10", "a")).unwrap();
    copy.wire("l8", "l10.a");
    s.replace_graph(copy);
    let report = s.present(Clock::default()).unwrap();
    assert_eq!(report.cooked, 0, "{report}");

    // An edit whose new value has the same bits stops at the changed node (early cutoff).
    s.edit(|g| {
        g.disconnect(&PortRef::new("join", "b")).unwrap();
        g.add_node("r19copy", "add").unwrap();
        g.set_param("r19copy", "tag", Value::str("copy")).unwrap();
        g.wire("r18", "r19copy.a");
        g.set_const("r19copy", "b", 1.0).unwrap();
        g.wire("r19copy", "join.b");
    });
    let report = s.present(Clock::default()).unwrap();
    assert_eq!(report.cooked, 2, "{report}"); // r19copy (new) and join (rewired)
    assert_eq!(f(s.frame().unwrap().get("join")), 41.0);
}

#[test]
fn a_failed_present_commits_nothing_and_keeps_the_last_frame() {
    let e = env();
    let mut g = Graph::new();
    g.add_node("n", "num").unwrap();
    g.set_param("n", "value", 2.0).unwrap();
    g.add_node("fl", "flaky").unwrap();
    g.wire("n", "fl.x");
    g.add_node("ok", "add").unwrap();
    g.wire("n", "ok.a");
    let mut s = Session::new(e.reg.clone(), g, ["ok", "fl"]);
    s.present(Clock::default()).unwrap();
    let first = s.frame().unwrap();
    // A node fails: the error names it, and the frame is unchanged.
    e.fail.store(true, std::sync::atomic::Ordering::SeqCst);
    s.set_param("n", "value", 3.0).unwrap();
    let err = s.present(Clock::default()).unwrap_err();
    assert!(matches!(err, SessionError::Eval(_)));
    assert!(err.to_string().contains("`fl`"), "{err}");
    assert!(Arc::ptr_eq(&first, &s.frame().unwrap()));
    // The commit step fails: nothing changes either.
    e.fail.store(false, std::sync::atomic::Ordering::SeqCst);
    let err = s
        .present_with(Clock::default(), |_| Err("disk full".into()))
        .unwrap_err();
    assert!(err.to_string().contains("disk full"));
    assert!(Arc::ptr_eq(&first, &s.frame().unwrap()));
    assert_eq!(f(first.get("ok")), 2.0);
    // Then a good present swaps both outputs in together.
    let report = s.present(Clock::default()).unwrap();
    let now = s.frame().unwrap();
    assert_eq!((f(now.get("ok")), f(now.get("fl"))), (3.0, 3.0));
    assert_eq!(report.frame, 1);
    assert_eq!(
        f(first.get("fl")),
        2.0,
        "a reader of the old frame still sees it whole"
    );
}

#[test]
fn a_clock_change_recooks_only_clock_cones_and_inputs_only_their_readers() {
    let e = env();
    let mut g = two_chains(5);
    g.add_node("t", "time").unwrap();
    g.add_node("tt", "add").unwrap();
    g.wire("t", "tt.a");
    g.wire("join", "tt.b");
    let mut s = Session::new(e.reg.clone(), g, ["tt"]);
    s.present(Clock::default()).unwrap();
    let report = s
        .present(Clock {
            time: 2.0,
            ..Clock::default()
        })
        .unwrap();
    assert_eq!(report.cooked, 2, "{report}"); // t, tt
    assert_eq!(f(s.frame().unwrap().get("tt")), 2.0 + 12.0);
}

#[test]
fn presented_values_are_pinned_in_the_store() {
    let e = env();
    let one = Value::Float(0.0).byte_size();
    let store = Store::new(Lru::new()).with_budget(30 * one).shared();
    let mut s =
        Session::new(e.reg.clone(), chain_graph("p", 1.0, 5), ["a4"]).with_store(store.clone());
    s.present(Clock::default()).unwrap();
    assert_eq!(
        store.keys().iter().filter(|k| store.is_pinned(**k)).count(),
        1
    );
    // Pressure from another evaluator cannot evict the presented value.
    let mut lazy = LazyEvaluator::new(e.reg.clone()).with_store(store.clone());
    for round in 0..10 {
        let g = chain_graph("other", 100.0 + round as f64, 20);
        lazy.evaluate(&g, &Request::new(["a19"]), &EvalContext::new())
            .unwrap();
        assert!(store.bytes() <= 30 * one);
    }
    let pinned: Vec<Key> = store
        .keys()
        .into_iter()
        .filter(|k| store.is_pinned(*k))
        .collect();
    assert_eq!(pinned.len(), 1);
    assert_eq!(store.get(pinned[0]), Some(Value::Float(6.0)));
    // The next frame moves the pin.
    s.set_param("src", "value", 2.0).unwrap();
    s.present(Clock::default()).unwrap();
    let now: Vec<Key> = store
        .keys()
        .into_iter()
        .filter(|k| store.is_pinned(*k))
        .collect();
    assert_eq!(now.len(), 1);
    assert_ne!(now, pinned);
    drop(s);
    assert!(store.keys().iter().all(|k| !store.is_pinned(*k)));
}

#[test]
fn the_memory_report_lists_parts_with_totals() {
    let e = env();
    let store = Store::new(KeepAll).shared();
    let mut s =
        Session::new(e.reg.clone(), chain_graph("m", 1.0, 5), ["a4"]).with_store(store.clone());
    s.present(Clock::default()).unwrap();
    let r = s.memory_report();
    let names: Vec<&str> = r.parts.iter().map(|p| p.part.as_str()).collect();
    assert!(names.contains(&"incremental values"), "{names:?}");
    assert!(names.contains(&"plan"), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("store")), "{names:?}");
    assert_eq!(
        r.total_bytes(),
        r.parts.iter().map(|p| p.bytes).sum::<usize>()
    );
    let store_bytes: usize = r
        .parts
        .iter()
        .filter(|p| p.part.starts_with("store"))
        .map(|p| p.bytes)
        .sum();
    assert_eq!(store_bytes, store.bytes());
    assert!(r.to_string().contains("total"));
}

#[test]
fn every_evaluator_reports_its_memory_by_part() {
    let e = env();
    let g = chain_graph("mem", 1.0, 10);
    let evs: Vec<(&str, Box<dyn Evaluator>)> = vec![
        ("lazy memo", Box::new(LazyEvaluator::new(e.reg.clone()))),
        ("eager slots", Box::new(EagerEvaluator::new(e.reg.clone()))),
        (
            "compiled slots",
            Box::new(CompiledEvaluator::new(e.reg.clone()).with_background(false)),
        ),
        (
            "incremental values",
            Box::new(IncrementalEvaluator::new(e.reg.clone())),
        ),
    ];
    for (part, mut ev) in evs {
        assert_eq!(
            ev.memory_report().total_bytes(),
            0,
            "{part}: nothing held yet"
        );
        ev.evaluate(&g, &Request::new(["a9"]), &EvalContext::new())
            .unwrap();
        let r = ev.memory_report();
        let held = r
            .parts
            .iter()
            .find(|p| p.part == part)
            .unwrap_or_else(|| panic!("{part}: {r}"));
        assert!(
            held.entries >= 1 && held.bytes >= Value::Float(0.0).byte_size(),
            "{r}"
        );
        let plan = r
            .parts
            .iter()
            .find(|p| p.part == "plan")
            .unwrap_or_else(|| panic!("{r}"));
        assert_eq!(plan.entries, 11, "{r}");
        assert_eq!(
            r.total_bytes(),
            r.parts.iter().map(|p| p.bytes).sum::<usize>()
        );
    }
}
