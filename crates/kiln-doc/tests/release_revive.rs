//! A finding of the `evaluate` fuzz target, fixed: the incremental evaluator that releases
//! values brings back every released value a run reads, also one that becomes needed only
//! because bringing back another made its reader stale.

#[path = "../../kiln-io/tests/domains/mod.rs"]
mod domains;

use kiln_core::eval::{ErrorPolicy, IncrementalEvaluator};
use kiln_core::prelude::*;

/// Found by `cargo fuzz run evaluate` (minimised by hand). `n1` is stale (never requested)
/// and reads the released `n0`; bringing `n0` back made `n10` stale, whose released input
/// `n9` was not brought back, so `n10` read nothing ("expected image, found empty"). Now a
/// stale node outside the request's cone brings nothing back, and what a revived cone reads
/// is revived in turn.
#[test]
fn incremental_release_answers_an_unchanged_second_request_as_the_first() {
    let reg = domains::every_domain();
    let text = r#"{"kiln": 1, "nodes": {
        "n0": {"op": "rect.area"},
        "n1": {"op": "math.tan", "inputs": {"x": "n0.out"}},
        "n9": {"op": "image.rects", "params": {"height": 3, "width": 16}},
        "n10": {"op": "image.gain", "inputs": {"bias": "n0.out", "gain": "n0.out", "image": "n9.out"}},
        "n11": {"op": "image.gain", "inputs": {"bias": "n0.out", "gain": "n0.out", "image": "n10.out"}}}}"#;
    let g = kiln_doc::load_graph(text, &reg).unwrap().graph;
    let request = Request::new(["n11.out"]).with_errors(ErrorPolicy::Propagate);
    let mut ctx = EvalContext::new();
    ctx.resolution = Some((8, 8));
    let mut ev = IncrementalEvaluator::new(reg.clone()).with_release(true);
    let first = ev.evaluate(&g, &request, &ctx).unwrap();
    let second = ev.evaluate(&g, &request, &ctx).unwrap();
    assert!(second.failures.is_empty(), "{:?}", second.failures);
    assert!(
        first
            .get("n11.out")
            .unwrap()
            .same_bits(second.get("n11.out").unwrap())
    );
    assert_eq!(second.stats.executed, 0, "nothing changed");
}
