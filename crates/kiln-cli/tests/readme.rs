//! The README's library snippet, run as written (from the repository root).

use kiln_core::prelude::*;

#[test]
fn readme_library_tour_works() -> Result<(), Box<dyn std::error::Error>> {
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
    let registry = kiln_std::registry();
    let file = kiln_io::read_graph("examples/clouds.json".as_ref(), &registry)?;
    let mut eval = LazyEvaluator::new(registry);
    let ctx = EvalContext::new().with_input("scale", 5.0);
    let out = eval.evaluate(&file.graph, &Request::new(["clouds"]), &ctx)?;
    let image = out
        .get("clouds")
        .and_then(|v| v.as_heavy::<kiln_std::image::Image>());
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
