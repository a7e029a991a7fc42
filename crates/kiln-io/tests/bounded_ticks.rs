//! Ticking a recurrent graph does not grow memory: `examples/trails.json` at 8 x 8, run by
//! the recurrent driver on every evaluator as `kiln render` configures them (the lazy one
//! over a store of the last two ticks, a new generation each tick; lazy and incremental
//! releasing intermediates), holds the same bytes at tick 100,000 as at tick 10,000 in an
//! optimised build (at tick 10,000 as at tick 1,000 in a debug build, which is ten times
//! slower). Measured by a counting allocator over this test binary.

use kiln_core::cache::{Generational, Store};
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator};
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes live.
struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            LIVE.fetch_add(new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const FIRST: u64 = if cfg!(debug_assertions) {
    1_000
} else {
    10_000
};
const LAST: u64 = FIRST * 10;

/// Most bytes the live total may differ by between the two ticks: less than a byte a tick
/// over the ticks between them.
const SLACK: usize = 8 << 10;

fn trails_8x8(reg: &Registry) -> Graph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/trails.json");
    let mut g = kiln_io::read_graph(&path, reg).unwrap().graph;
    for node in ["dark", "noise"] {
        g.set_param(node, "width", 8i64).unwrap();
        g.set_param(node, "height", 8i64).unwrap();
    }
    g
}

/// Tick `driver` to tick `to`, starting a new store generation each tick when given one.
fn tick_to<E: Evaluator>(
    driver: &mut Recurrent<E>,
    g: &Graph,
    store: Option<&Arc<Store>>,
    to: u64,
) {
    let request = Request::new(["trails"]);
    let mut ctx = EvalContext::new();
    ctx.dt = 1.0 / 60.0;
    while driver.next_tick() < to {
        let t = driver.next_tick();
        ctx.time = t as f64 * ctx.dt;
        let out = driver.tick(g, &request, &ctx).unwrap();
        assert!(out.get("trails").is_some());
        if let Some(s) = store {
            s.next_generation();
        }
    }
}

fn growth<E: Evaluator>(eval: E, reg: &Registry, store: Option<Arc<Store>>) -> isize {
    let g = trails_8x8(reg);
    let mut driver = Recurrent::new(eval, reg.clone());
    tick_to(&mut driver, &g, store.as_ref(), FIRST);
    let at_first = LIVE.load(Ordering::SeqCst) as isize;
    tick_to(&mut driver, &g, store.as_ref(), LAST);
    let at_last = LIVE.load(Ordering::SeqCst) as isize;
    at_last - at_first
}

#[test]
fn ten_times_the_ticks_of_trails_keep_memory_flat_under_every_evaluator() {
    let reg = kiln_image::registry();
    let store = Store::new(Generational::new(2))
        .with_budget(64 << 20)
        .shared();
    let lazy = LazyEvaluator::new(reg.clone())
        .with_release(true)
        .with_store(store.clone());
    let results = [
        ("lazy", growth(lazy, &reg, Some(store))),
        (
            "eager",
            growth(EagerEvaluator::new(reg.clone()), &reg, None),
        ),
        (
            "compiled",
            growth(
                CompiledEvaluator::new(reg.clone()).with_background(false),
                &reg,
                None,
            ),
        ),
        (
            "incremental",
            growth(
                IncrementalEvaluator::new(reg.clone()).with_release(true),
                &reg,
                None,
            ),
        ),
    ];
    eprintln!("bytes grown from tick {FIRST} to tick {LAST}: {results:?}");
    for (name, grown) in results {
        assert!(
            grown.unsigned_abs() <= SLACK,
            "{name}: {grown} bytes more at tick {LAST} than at tick {FIRST}"
        );
    }
    // The measure tells: a lazy evaluator keeping every result grows tick by tick.
    let grown = growth(LazyEvaluator::new(reg.clone()), &reg, None);
    assert!(
        grown > SLACK as isize,
        "keeping everything grew only {grown}"
    );
}
