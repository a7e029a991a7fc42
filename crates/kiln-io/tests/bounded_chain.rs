//! A chain of 40 `image.invert` nodes on one big image peaks under 0.5 GB under every
//! evaluator as the command line configures them (eager and compiled release intermediate
//! values by themselves, lazy and incremental with `with_release`): memory is bounded by the
//! chain's width, not its length. Measured by a counting allocator over this test binary.
//!
//! The chain is 2048 x 2048 (64 MiB an image) in an optimised build; a debug build, where
//! the per-pixel loops are slow, runs the same chain at 512 x 512 against the bound scaled
//! the same way (1/16).

use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator};
use kiln_core::prelude::*;
use std::sync::atomic::Ordering;

#[path = "alloc/counting.rs"]
mod counting;
use counting::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOC: Counting = Counting;

/// One measurement at a time: the tests of this binary share the counters.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

const STEPS: usize = 40;

fn side() -> i64 {
    if cfg!(debug_assertions) { 512 } else { 2048 }
}

/// 0.5 GB for 2048 x 2048, scaled by the image's area.
fn bound() -> usize {
    let scale = (side() * side()) as f64 / (2048.0 * 2048.0);
    (500_000_000.0 * scale) as usize
}

fn chain() -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "image.fill").unwrap();
    g.set_param("src", "width", side()).unwrap();
    g.set_param("src", "height", side()).unwrap();
    g.set_const("src", "color", Value::Color([0.25, 0.5, 0.75, 1.0]))
        .unwrap();
    let mut prev = "src".to_string();
    for i in 0..STEPS {
        let id = format!("i{i}");
        g.add_node(id.as_str(), "image.invert").unwrap();
        g.wire(&prev, &format!("{id}.image"));
        prev = id;
    }
    g
}

/// The most bytes live at once while `ev` evaluates the chain's end, beyond what was live
/// before; the result's first pixel is checked too (40 inversions give the colour back).
fn peak_of(ev: &mut dyn Evaluator, g: &Graph) -> usize {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let last = format!("i{}", STEPS - 1);
    let out = ev
        .evaluate(g, &Request::new([last.as_str()]), &EvalContext::new())
        .unwrap();
    let img = out
        .get(&last)
        .and_then(|v| v.as_heavy::<kiln_image::image::Image>())
        .unwrap();
    assert_eq!(img.get(0, 0), [0.25, 0.5, 0.75, 1.0]);
    PEAK.load(Ordering::SeqCst) - base
}

#[test]
fn a_40_step_chain_peaks_under_half_a_gigabyte_under_every_evaluator() {
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let reg = kiln_image::registry();
    let g = chain();
    let evs: Vec<(&str, Box<dyn Evaluator>)> = vec![
        (
            "lazy",
            Box::new(LazyEvaluator::new(reg.clone()).with_release(true)),
        ),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg.clone()).with_background(false)),
        ),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone()).with_release(true)),
        ),
    ];
    let image = (side() * side() * 16) as usize;
    for (name, mut ev) in evs {
        let peak = peak_of(ev.as_mut(), &g);
        eprintln!(
            "{name}: peak {peak} bytes ({:.1} images)",
            peak as f64 / image as f64
        );
        assert!(
            peak < bound(),
            "{name}: peaked at {peak} bytes, over {} ({} images of {image} bytes)",
            bound(),
            peak / image
        );
    }
    // The bound tells: keeping every intermediate (the lazy evaluator's default) passes it.
    let mut keep_all = LazyEvaluator::new(reg);
    let peak = peak_of(&mut keep_all, &g);
    assert!(peak > bound(), "keeping everything peaked at only {peak}");
}

/// A chain of `steps` inversions of a `side` x `side` image.
fn long_chain(steps: usize, side: i64) -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "image.fill").unwrap();
    g.set_param("src", "width", side).unwrap();
    g.set_param("src", "height", side).unwrap();
    g.set_const("src", "color", Value::Color([0.25, 0.5, 0.75, 1.0]))
        .unwrap();
    let mut prev = "src".to_string();
    for i in 0..steps {
        let id = format!("i{i}");
        g.add_node(id.as_str(), "image.invert").unwrap();
        g.wire(&prev, &format!("{id}.image"));
        prev = id;
    }
    g
}

#[test]
fn a_100000_step_chain_holds_few_images_under_every_evaluator() {
    // The chain aborted when every step kept its 64 x 64 image (6.4 GB). A debug
    // build, where that is slow, runs 20,000 steps of 32 x 32. The plan and the bookkeeping
    // take some 500 bytes a node of their own, so the bound is the images of a tenth of
    // the chain: far below keeping every step's.
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (steps, side): (usize, i64) = if cfg!(debug_assertions) {
        (20_000, 32)
    } else {
        (100_000, 64)
    };
    let image = (side * side * 16) as usize;
    let g = long_chain(steps, side);
    let reg = kiln_image::registry();
    let last = format!("i{}", steps - 1);
    let evs: Vec<(&str, Box<dyn Evaluator>)> = vec![
        (
            "lazy",
            Box::new(LazyEvaluator::new(reg.clone()).with_release(true)),
        ),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg.clone()).with_background(false)),
        ),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone()).with_release(true)),
        ),
    ];
    for (name, mut ev) in evs {
        let base = LIVE.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let out = ev
            .evaluate(&g, &Request::new([last.as_str()]), &EvalContext::new())
            .unwrap();
        let img = out
            .get(&last)
            .and_then(|v| v.as_heavy::<kiln_image::image::Image>())
            .unwrap();
        // An even number of inversions gives the colour back.
        assert_eq!(img.get(0, 0), [0.25, 0.5, 0.75, 1.0]);
        let peak = PEAK.load(Ordering::SeqCst) - base;
        eprintln!("{name}: peak {peak} bytes for {steps} steps of {image}-byte images");
        assert!(
            peak < steps / 10 * image,
            "{name}: peaked at {peak} bytes, {} images' worth",
            peak / image
        );
    }
}
