//! A latch loop stops allocating grid storage after its first ticks and never clones a grid,
//! and recycling changes no bit. One test in its own binary: the pool's counters are
//! process-wide.

mod common;
use common::*;
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::pool;

fn graph() -> Graph {
    let size = [
        ("width", Value::Int(64)),
        ("height", Value::Int(64)),
        ("spots", Value::Int(5)),
    ];
    latch_graph(
        "sim.grayscott.init",
        &size,
        "sim.grayscott.step",
        &[("substeps", Value::Int(4))],
    )
}

fn ticks<E: Evaluator>(eval: E, n: u64) -> (Vec<Key>, Vec<u64>) {
    let g = graph();
    let mut d = Recurrent::new(eval, kiln_sim::registry());
    let req = Request::new(["sim"]);
    let ctx = EvalContext::new();
    let mut out = vec![];
    let mut fresh = vec![];
    for _ in 0..n {
        // Keep only the content hash: holding the grid would keep its storage from the pool.
        let v = d.tick(&g, &req, &ctx).unwrap().get("sim").unwrap().clone();
        out.push(v.content_hash());
        drop(v);
        fresh.push(pool::fresh_allocations());
    }
    (out, fresh)
}

#[test]
fn a_latch_loop_recycles_its_grids_clones_none_and_keeps_its_bits() {
    let clones = pool::clones();
    pool::set_recycling(false);
    let (plain, fresh) = ticks(IncrementalEvaluator::new(kiln_sim::registry()), 30);
    // Without recycling, every tick allocates its two buffers (and the seed one).
    assert!(fresh[29] - fresh[4] >= 25 * 2, "{fresh:?}");
    pool::set_recycling(true);
    for (name, (out, fresh)) in [
        (
            "incremental",
            ticks(IncrementalEvaluator::new(kiln_sim::registry()), 30),
        ),
        (
            "compiled",
            ticks(CompiledEvaluator::new(kiln_sim::registry()), 30),
        ),
        (
            "eager",
            ticks(EagerEvaluator::new(kiln_sim::registry()), 30),
        ),
    ] {
        assert_eq!(
            fresh[29], fresh[4],
            "{name}: allocations after tick 4: {fresh:?}"
        );
        assert_eq!(out, plain, "{name}: recycling changed the bits");
    }
    assert_eq!(pool::clones(), clones, "a grid was cloned");
}
