//! A session under a parallel policy re-cooks independent heavy branches side by side on
//! the pool, and the result is the same bits as a sequential session's.

use kiln_core::prelude::*;
use kiln_lower::session::{Clock, Session};

/// Two heavy image branches of 256² each, mixed at the end.
fn two_branches() -> Graph {
    let mut g = Graph::new();
    for (id, seed) in [("a", 1i64), ("b", 2)] {
        g.add_node(id, "image.noise").unwrap();
        g.set_param(id, "width", 256i64).unwrap();
        g.set_param(id, "height", 256i64).unwrap();
        g.set_param(id, "seed", seed).unwrap();
    }
    g.add_node("sum", "image.add").unwrap();
    g.wire("a.out", "sum.a");
    g.wire("b.out", "sum.b");
    g
}

#[test]
fn a_parallel_session_recooks_two_heavy_branches_on_two_threads() {
    let reg = kiln_image::registry();
    let policy = ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: None,
    };
    let mut par = Session::new(reg.clone(), two_branches(), ["sum"]).with_parallel(policy);
    let mut seq = Session::new(reg, two_branches(), ["sum"]);
    let first = par.present(Clock::default()).unwrap();
    assert_eq!(
        first.parallel, 2,
        "both noise nodes ran on the pool: {first}"
    );
    seq.present(Clock::default()).unwrap();
    // An edit to both branches re-cooks them side by side, and nothing else is cooked twice.
    for (s, seed) in [(&mut par, 7i64), (&mut seq, 7)] {
        s.set_param("a", "seed", seed).unwrap();
        s.set_param("b", "seed", seed + 1).unwrap();
    }
    let r = par.present(Clock::default()).unwrap();
    assert_eq!((r.cooked, r.parallel), (3, 2), "{r}");
    seq.present(Clock::default()).unwrap();
    let (p, q) = (par.frame().unwrap(), seq.frame().unwrap());
    assert!(p.get("sum").unwrap().same_bits(q.get("sum").unwrap()));
    // An edit to one branch cooks it alone: nothing to run beside it.
    par.set_param("a", "seed", 9i64).unwrap();
    let r = par.present(Clock::default()).unwrap();
    assert_eq!((r.cooked, r.parallel), (2, 0), "{r}");
}
