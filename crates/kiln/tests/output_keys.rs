//! `Project::output_keys` (what a farm plan records for each item) are the keys the
//! incremental evaluator gives the same outputs when it cooks them, for several settings of
//! an example's knobs, and they change exactly when a knob that reaches the output does.

use kiln::{CookOptions, Project};
use kiln_core::cache::{KeepAll, Store};
use kiln_core::prelude::*;

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The keys the incremental evaluator gives `outputs` of the project's flat graph, cooked.
fn cooked_keys(p: &mut Project, opts: &CookOptions) -> Vec<(String, Key)> {
    let planned = p.lower(opts.clock).unwrap();
    let g = planned.graph.as_ref().clone();
    let mut ctx = p.context(opts.clock);
    ctx.seed = opts.seed;
    ctx.resolution = opts.size;
    let names: Vec<String> = g
        .nodes()
        .iter()
        .filter(|n| n.op == "output")
        .map(|n| n.id.to_string())
        .collect();
    let mut inc =
        IncrementalEvaluator::new(p.registry().clone()).with_store(Store::new(KeepAll).shared());
    inc.evaluate(&g, &Request::new(names.iter().cloned()), &ctx)
        .unwrap();
    names
        .into_iter()
        .map(|n| {
            let k = inc.output_key(&g, &n).unwrap();
            (n, k)
        })
        .collect()
}

#[test]
fn output_keys_are_the_keys_a_cook_gives_its_outputs() {
    let mut p = Project::open(examples().join("stone.json")).unwrap();
    let opts = CookOptions {
        seed: 3,
        size: Some((24, 24)),
        ..CookOptions::default()
    };
    let mut seen = vec![];
    for (seed, crack) in [("1", "0.08"), ("2", "0.08"), ("2", "0.1")] {
        p.set_text("seed", seed).unwrap();
        p.set_text("crack", crack).unwrap();
        let planned = p.output_keys(&opts).unwrap();
        let mut cooked = cooked_keys(&mut p, &opts);
        let mut sorted = planned.clone();
        sorted.sort();
        cooked.sort();
        assert_eq!(sorted, cooked, "seed {seed}, crack {crack}");
        seen.push(planned);
    }
    // Every output follows the seed and the crack width.
    for (a, b) in seen[0].iter().zip(&seen[1]) {
        assert_ne!(a.1, b.1, "{}: the seed reaches it", a.0);
    }
    for (a, b) in seen[1].iter().zip(&seen[2]) {
        assert_ne!(a.1, b.1, "{}: the crack reaches it", a.0);
    }
    // The same settings again give the same keys.
    p.set_text("seed", "1").unwrap();
    p.set_text("crack", "0.08").unwrap();
    assert_eq!(p.output_keys(&opts).unwrap(), seen[0]);
}
