//! The README's library snippet, run as written (from the repository root).

use kiln_core::prelude::*;

#[test]
fn readme_library_tour_works() -> Result<(), Box<dyn std::error::Error>> {
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
    let registry = kiln_image::registry();
    let file = kiln_doc::read_graph("examples/clouds.json".as_ref(), &registry)?;
    let mut eval = LazyEvaluator::new(registry);
    let ctx = EvalContext::new().with_input("scale", 5.0);
    let out = eval.evaluate(&file.graph, &Request::new(["clouds"]), &ctx)?;
    let image = out
        .get("clouds")
        .and_then(|v| v.as_heavy::<kiln_image::image::Image>());
    assert_eq!(image.map(|i| (i.width, i.height)), Some((384, 256)));
    // The claims next to the snippet: a repeat executes nothing; a new scale re-cooks only
    // its cone (noise, ramp, output and the input itself), all four nodes here.
    let again = eval.evaluate(&file.graph, &Request::new(["clouds"]), &ctx)?;
    assert_eq!(again.stats.executed, 0);
    let ctx = EvalContext::new().with_input("scale", 6.0);
    let changed = eval.evaluate(&file.graph, &Request::new(["clouds"]), &ctx)?;
    assert_eq!(changed.stats.executed, 4);
    Ok(())
}

/// The README's second snippet (other evaluators), run as written.
#[test]
fn readme_evaluator_family_snippet_works() -> Result<(), Box<dyn std::error::Error>> {
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
    let registry = kiln_image::registry();
    let mut graph = kiln_doc::read_graph("examples/arithmetic.json".as_ref(), &registry)?.graph;
    let mut live = IncrementalEvaluator::new(registry.clone());
    let mut fast = CompiledEvaluator::new(registry)
        .with_background(false)
        .with_parallel(ParallelPolicy::Rayon {
            threads: Some(2),
            min_cost: None,
        });
    let ctx = EvalContext::new().with_input("x", 6.0);
    let request = Request::new(["picked"]).with_errors(ErrorPolicy::Propagate);
    live.evaluate(&graph, &request, &ctx)?;
    graph.set_const("halved", "b", 0.25)?;
    let b = live.evaluate(&graph, &request, &ctx)?;
    println!(
        "recooked {} nodes, {} cut off",
        b.stats.executed, b.stats.cutoffs
    );
    let c = fast.evaluate(&graph, &request, &ctx)?;
    assert!(b.values[0].1.same_bits(&c.values[0].1));
    // The compiled evaluator's answer came from its schedule, not from the lazy fallback.
    assert_eq!(fast.last_served(), kiln_core::eval::Served::Compiled);
    assert!(c.stats.planned && c.stats.executed > 0, "{:?}", c.stats);
    // What the snippet's comments claim: only the edited branch and what follows re-ran.
    // len = |(6, 4)| = 7.21 > 4.5, so the switch takes `halved`: 7.21 * 0.25.
    assert_eq!(b.values[0].1.as_f64(), Some(52f64.sqrt() * 0.25));
    assert!(b.stats.executed <= 3, "{:?}", b.stats);
    Ok(())
}

/// The README's third snippet (sessions, the store, streaming), run as written.
#[test]
fn readme_session_and_streaming_snippet_works() -> Result<(), Box<dyn std::error::Error>> {
    use kiln_core::cache::{Lru, Store};
    use kiln_core::eval::{StreamConfig, StreamingEvaluator};
    use kiln_lower::session::{Clock, Session};
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
    let registry = {
        let mut r = kiln_image::registry();
        kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
        r
    };
    let graph = kiln_doc::read_graph("examples/arithmetic.json".as_ref(), &registry)?.graph;
    let store = Store::new(Lru::new()).with_budget(64 << 20).shared();
    let mut session = Session::new(registry.clone(), graph, ["picked"]).with_store(store.clone());
    session.set_input("x", 6.0);
    let first = session.present(Clock::default())?;
    println!("{first}");
    session.set_input("x", 7.0);
    let report = session.present(Clock::at_frame(1, 24.0))?;
    let frame = session.frame();
    // The claims: no replanning, only the input's cone recooked, a whole frame presented.
    assert!(first.planned && !report.planned, "{report}");
    assert!(
        report.cooked > 0 && report.cooked < first.cooked,
        "{report}"
    );
    assert_eq!(frame.map(|f| f.number), Some(1));
    assert!(store.bytes() <= 64 << 20);

    let pluck = kiln_doc::read_graph("examples/pluck.json".as_ref(), &registry)?.graph;
    let mut stream = StreamingEvaluator::new(
        registry.clone(),
        &pluck,
        &["level"],
        StreamConfig::default(),
    )?;
    let samples = stream.render(48_000)?;
    assert_eq!(samples[0].len(), 48_000);
    let mut one = StreamingEvaluator::new(
        registry,
        &pluck,
        &["level"],
        StreamConfig {
            block: 1,
            ..StreamConfig::default()
        },
    )?;
    let again = one.render(48_000)?;
    assert!(
        samples[0]
            .iter()
            .zip(&again[0])
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    Ok(())
}
