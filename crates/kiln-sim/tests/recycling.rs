//! A latch loop stops allocating grid storage (and particle storage) after its first ticks
//! and never clones a grid, and recycling changes no bit. One test in its own binary: the
//! pools' counters are process-wide.

mod common;
use common::*;
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::{particle_pool, pool};

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

/// 5,000 particles from one burst at the start, living past the run.
fn particle_graph() -> Graph {
    let mut g = latch_graph(
        "sim.particles.init",
        &[],
        "sim.particles.step",
        &[("burst", Value::Int(5000))],
    );
    for (k, v) in [
        ("rate", 0.0),
        ("life", 1e9),
        ("burst_every", 1e3),
        ("drag", 0.5),
    ] {
        g.set_const("sim", k, Value::Float(v)).unwrap();
    }
    g
}

fn ticks<E: Evaluator>(eval: E, n: u64) -> (Vec<Key>, Vec<u64>) {
    ticks_of(eval, &graph(), n, pool::fresh_allocations)
}

/// The content hash of output `sim` after each of `n` ticks of `g`, and `fresh()` after each.
fn ticks_of<E: Evaluator>(
    eval: E,
    g: &Graph,
    n: u64,
    fresh_now: fn() -> u64,
) -> (Vec<Key>, Vec<u64>) {
    let g = g.clone();
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
        fresh.push(fresh_now());
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

    // Particles: the system of two ticks back gives its storage to the next step.
    let pg = particle_graph();
    let inc = || IncrementalEvaluator::new(kiln_sim::registry());
    pool::set_recycling(false);
    let (plain, fresh) = ticks_of(inc(), &pg, 30, particle_pool::fresh_allocations);
    assert!(fresh[29] - fresh[4] >= 25, "{fresh:?}");
    pool::set_recycling(true);
    let recycled = particle_pool::recycled();
    let (out, fresh) = ticks_of(inc(), &pg, 30, particle_pool::fresh_allocations);
    assert_eq!(
        fresh[29], fresh[4],
        "particle allocations after tick 4: {fresh:?}"
    );
    assert!(particle_pool::recycled() - recycled >= 25);
    assert_eq!(out, plain, "recycling changed the particles' bits");
}
