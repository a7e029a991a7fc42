//! Ticking a recurrent graph does not grow memory: `examples/trails.json` at 8 x 8, run by
//! the recurrent driver on every evaluator as `kiln render` configures them (the lazy one
//! over a store of the last two ticks, a new generation each tick; lazy and incremental
//! releasing intermediates). Two windows of ticks are measured, an early one and one ten
//! times later: the most bytes live during each (its peak) and the bytes live at its end
//! (its steady state) must be the same within a few KiB. Measured by a counting allocator
//! over this test binary, never by time.
//!
//! `cargo test` runs ticks 1,000 to 10,000 (10,000 to 100,000 in an optimised build, ten
//! times faster); the ignored test runs the full million ticks, by hand:
//! `cargo test --release -p kiln-io --test bounded_ticks -- --ignored`.

use kiln_core::cache::{Generational, Store};
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator};
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

#[path = "../../kiln-io/tests/alloc/counting.rs"]
mod counting;
use counting::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOC: Counting = Counting;

/// One measurement at a time: the tests of this binary share the counters.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The first tick measured by `cargo test`; the last is ten times later.
const FIRST: u64 = if cfg!(debug_assertions) {
    1_000
} else {
    10_000
};

/// Ticks in each measured window.
const WINDOW: u64 = 100;

/// Most bytes the peaks or the steady states of the two windows may differ by: less than a
/// byte a tick over the ticks between them.
const SLACK: usize = 8 << 10;

fn trails_8x8(reg: &Registry) -> Graph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/trails.json");
    let mut g = kiln_doc::read_graph(&path, reg).unwrap().graph;
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

/// The peak and the steady state of one window of ticks.
#[derive(Debug, Clone, Copy)]
struct Window {
    /// The most bytes live during the window.
    peak: usize,
    /// The bytes live at its end.
    steady: usize,
}

/// Tick `driver` to tick `from`, then measure the window from there to `from + WINDOW`.
fn window<E: Evaluator>(
    driver: &mut Recurrent<E>,
    g: &Graph,
    store: Option<&Arc<Store>>,
    from: u64,
) -> Window {
    tick_to(driver, g, store, from);
    PEAK.store(LIVE.load(Ordering::SeqCst), Ordering::SeqCst);
    tick_to(driver, g, store, from + WINDOW);
    Window {
        peak: PEAK.load(Ordering::SeqCst),
        steady: LIVE.load(Ordering::SeqCst),
    }
}

/// The windows at ticks `first` and `10 * first - WINDOW` of one driver.
fn windows<E: Evaluator>(
    eval: E,
    reg: &Registry,
    store: Option<Arc<Store>>,
    first: u64,
) -> (Window, Window) {
    let g = trails_8x8(reg);
    let mut driver = Recurrent::new(eval, reg.clone());
    let early = window(&mut driver, &g, store.as_ref(), first);
    let late = window(&mut driver, &g, store.as_ref(), first * 10 - WINDOW);
    (early, late)
}

/// Check that every evaluator as `kiln render` configures it keeps the same peak and
/// steady state from the window at tick `first` to the one ten times later, and that a
/// lazy evaluator keeping every result does not (the measure tells).
fn flat_from(first: u64) {
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let reg = kiln_image::registry();
    let store = Store::new(Generational::new(2))
        .with_budget(64 << 20)
        .shared();
    let lazy = LazyEvaluator::new(reg.clone())
        .with_release(true)
        .with_store(store.clone());
    let results = [
        ("lazy", windows(lazy, &reg, Some(store), first)),
        (
            "eager",
            windows(EagerEvaluator::new(reg.clone()), &reg, None, first),
        ),
        (
            "compiled",
            windows(
                CompiledEvaluator::new(reg.clone()).with_background(false),
                &reg,
                None,
                first,
            ),
        ),
        (
            "incremental",
            windows(
                IncrementalEvaluator::new(reg.clone()).with_release(true),
                &reg,
                None,
                first,
            ),
        ),
    ];
    let last = first * 10;
    for (name, (early, late)) in results {
        eprintln!("{name}: window at tick {first} {early:?}, at tick {last} {late:?}");
        for (what, a, b) in [
            ("peak", early.peak, late.peak),
            ("steady state", early.steady, late.steady),
        ] {
            assert!(
                a.abs_diff(b) <= SLACK,
                "{name}: {what} of {b} bytes near tick {last}, {a} near tick {first}"
            );
        }
    }
    let (early, late) = windows(LazyEvaluator::new(reg.clone()), &reg, None, first);
    assert!(
        late.steady > early.steady + SLACK,
        "keeping everything grew only from {early:?} to {late:?}"
    );
}

#[test]
fn ten_times_the_ticks_of_trails_keep_memory_flat_under_every_evaluator() {
    flat_from(FIRST);
}

/// The measure: a million ticks (windows at tick 100,000 and 1,000,000). Minutes in
/// an optimised build; run by hand.
#[test]
#[ignore]
fn a_million_ticks_of_trails_keep_memory_flat_under_every_evaluator() {
    flat_from(100_000);
}
