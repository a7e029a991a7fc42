//! Sessions on standard nodes: a user input recooks only its readers' cone, without
//! replanning; a value file edit (a const) likewise.

use kiln_core::prelude::*;
use kiln_lower::session::{Clock, Session};

/// `x` (a graph input) → 5 adds; `c` (a const) → 5 adds; `join` adds both chains.
fn graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("x", "input.float").unwrap();
    g.set_param("x", "name", Value::str("x")).unwrap();
    g.add_node("c", "const").unwrap();
    g.set_param("c", "value", 10.0).unwrap();
    for (side, src) in [("a", "x"), ("b", "c")] {
        let mut prev = src.to_string();
        for i in 0..5 {
            let id = format!("{side}{i}");
            g.add_node(id.as_str(), "math.add").unwrap();
            g.wire(&format!("{prev}.out"), &format!("{id}.a"));
            g.set_const(&id, "b", 1.0).unwrap();
            prev = id;
        }
    }
    g.add_node("join", "math.add").unwrap();
    g.wire("a4.out", "join.a");
    g.wire("b4.out", "join.b");
    g
}

#[test]
fn set_input_recooks_only_the_readers_cone_without_replanning() {
    let mut s = Session::new(kiln_std::registry(), graph(), ["join"]);
    let first = s.present(Clock::default()).unwrap();
    assert_eq!(first.cooked, 13, "{first}");
    assert_eq!(s.frame().unwrap().get("join"), Some(&Value::Float(20.0)));
    s.set_input("x", 100.0);
    let r = s.present(Clock::default()).unwrap();
    assert!(!r.planned, "{r}");
    assert_eq!(r.cooked, 7, "{r}"); // x, a0..a4, join
    assert_eq!(s.frame().unwrap().get("join"), Some(&Value::Float(120.0)));
    // The same input again: nothing cooks.
    s.set_input("x", 100.0);
    let r = s.present(Clock::default()).unwrap();
    assert_eq!(r.cooked, 0, "{r}");
    // A const edit: its chain and the join.
    s.set_param("c", "value", 11.0).unwrap();
    let r = s.present(Clock::default()).unwrap();
    assert!(!r.planned, "{r}");
    assert_eq!(r.cooked, 7, "{r}"); // c, b0..b4, join
    assert_eq!(s.frame().unwrap().get("join"), Some(&Value::Float(121.0)));
}
