//! Under a parallel policy, heavy ops run on worker threads side by side; their progress
//! reports from inside name the node that sent them, and the result is the same bits as a
//! sequential run.

use kiln_core::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[test]
fn parallel_heavy_nodes_report_their_own_progress() {
    let mut g = Graph::new();
    for (id, seed) in [("a", 1i64), ("b", 2)] {
        g.add_node(id, "image.noise").unwrap();
        g.set_param(id, "width", 96i64).unwrap();
        g.set_param(id, "height", 96i64).unwrap();
        g.set_param(id, "seed", seed).unwrap();
    }
    g.add_node("sum", "image.add").unwrap();
    g.wire("a.out", "sum.a");
    g.wire("b.out", "sum.b");
    let reg = kiln_image::registry();
    assert!(validate(&g, &reg).is_empty());
    let req = Request::new(["sum"]);

    let seen: Arc<Mutex<Vec<(String, f32)>>> = Arc::default();
    let s = seen.clone();
    let ctx = EvalContext::new().with_progress(Arc::new(move |p: &Progress<'_>| {
        if let (Some(node), Some(f)) = (p.node, p.node_fraction) {
            s.lock().unwrap().push((node.to_string(), f));
        }
    }));
    let mut par = CompiledEvaluator::new(reg.clone())
        .with_background(false)
        .with_parallel(ParallelPolicy::Rayon {
            threads: Some(2),
            min_cost: Some(Duration::ZERO),
        });
    let out = par.evaluate(&g, &req, &ctx).unwrap();
    assert_eq!(out.stats.parallel, 2, "both noise nodes ran on the pool");
    let seq = LazyEvaluator::new(reg)
        .evaluate(&g, &req, &EvalContext::new())
        .unwrap();
    assert_eq!(
        out.values[0].1.content_hash(),
        seq.values[0].1.content_hash()
    );

    let seen = seen.lock().unwrap();
    for id in ["a", "b", "sum"] {
        let fr: Vec<f32> = seen.iter().filter(|(n, _)| n == id).map(|x| x.1).collect();
        assert!(!fr.is_empty(), "no in-node progress from `{id}`: {seen:?}");
        assert!(
            fr.windows(2).all(|w| w[0] <= w[1]),
            "`{id}`'s fractions go backwards: {fr:?}"
        );
    }
}
