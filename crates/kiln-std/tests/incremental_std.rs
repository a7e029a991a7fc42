//! The incremental evaluator on standard nodes: a graph input change recooks only that
//! input's cone, a clock change only the clock readers' cones, and pure constant cones are
//! cooked once.

use kiln_core::prelude::*;

/// Two inputs `x` and `y`, each feeding a chain of three additions; a clock-driven chain; a
/// constant chain; all four summed into `total`.
fn graph() -> Graph {
    let mut g = Graph::new();
    let chain = |g: &mut Graph, head: &str, op: &str, name: Option<&str>| {
        g.add_node(head, op).unwrap();
        if let Some(n) = name {
            g.set_param(head, "name", n).unwrap();
        }
        let mut prev = head.to_string();
        for i in 0..3 {
            let id = format!("{head}{i}");
            g.add_node(id.as_str(), "math.add").unwrap();
            g.wire(&format!("{prev}.out"), &format!("{id}.a"));
            g.set_const(&id, "b", 1.0).unwrap();
            prev = id;
        }
        prev
    };
    let ex = chain(&mut g, "x", "input.float", Some("x"));
    let ey = chain(&mut g, "y", "input.float", Some("y"));
    let et = chain(&mut g, "t", "clock.time", None);
    g.add_node("k", "const").unwrap();
    g.set_param("k", "value", 2.0).unwrap();
    let ek = {
        let mut prev = "k".to_string();
        for i in 0..3 {
            let id = format!("k{i}");
            g.add_node(id.as_str(), "math.mul").unwrap();
            g.wire(&format!("{prev}.out"), &format!("{id}.a"));
            g.set_const(&id, "b", 3.0).unwrap();
            prev = id;
        }
        prev
    };
    g.add_node("s1", "math.add").unwrap();
    g.wire(&format!("{ex}.out"), "s1.a");
    g.wire(&format!("{ey}.out"), "s1.b");
    g.add_node("s2", "math.add").unwrap();
    g.wire(&format!("{et}.out"), "s2.a");
    g.wire(&format!("{ek}.out"), "s2.b");
    g.add_node("total", "math.add").unwrap();
    g.wire("s1.out", "total.a");
    g.wire("s2.out", "total.b");
    g
}

#[test]
fn each_kind_of_change_recooks_only_its_cone() {
    let g = graph();
    let reg = kiln_std::registry();
    assert!(validate(&g, &reg).is_empty());
    let mut inc = IncrementalEvaluator::new(reg.clone());
    let req = Request::new(["total"]);
    let ctx = |x: f64, y: f64, t: f64| {
        let mut c = EvalContext::new().with_input("x", x).with_input("y", y);
        c.time = t;
        c
    };
    let fresh = |c: &EvalContext| {
        LazyEvaluator::new(reg.clone())
            .evaluate(&g, &req, c)
            .unwrap()
            .values[0]
            .1
            .clone()
    };
    let c = ctx(1.0, 2.0, 0.5);
    let out = inc.evaluate(&g, &req, &c).unwrap();
    assert_eq!(out.stats.executed, g.len() as u64);
    assert!(out.values[0].1.same_bits(&fresh(&c)));

    // A new value for x: x, its three adds, s1 and total.
    let c = ctx(5.0, 2.0, 0.5);
    let out = inc.evaluate(&g, &req, &c).unwrap();
    assert_eq!(out.stats.executed, 6);
    assert!(out.values[0].1.same_bits(&fresh(&c)));

    // y changes: its own cone only.
    let c = ctx(5.0, -4.0, 0.5);
    let out = inc.evaluate(&g, &req, &c).unwrap();
    assert_eq!(out.stats.executed, 6);

    // The clock moves: the clock chain, s2 and total; the constant chain stays cooked.
    let c = ctx(5.0, -4.0, 1.5);
    let out = inc.evaluate(&g, &req, &c).unwrap();
    assert_eq!(out.stats.executed, 6);
    assert!(out.values[0].1.same_bits(&fresh(&c)));

    // The seed and frame are read by nobody: nothing runs.
    let mut c2 = c.clone();
    c2.seed = 99;
    c2.frame = 7;
    let out = inc.evaluate(&g, &req, &c2).unwrap();
    assert_eq!(out.stats.executed, 0);
}
