//! Scopes and plans (issue 12), in one run, printing ratios:
//!
//! 1. **Re-cook after one item of a 1,000-item `for` changes**, against a full cook of the
//!    same graph and against cooking one copy alone (the issue's goal: within 2× one copy).
//!    The body is a chain of 8 float ops; each re-cook plans the document with one item
//!    changed (the plan is made outside the timing) and evaluates it on a warm
//!    [`LazyEvaluator`], whose memo answers the 999 unchanged copies.
//! 2. **Plan reuse against a plan made afresh** on a 1,000-copy `for` of a 9-node body
//!    (about 10,000 flat nodes): [`Planner::plan`] with the digest unchanged, against
//!    [`lower`] (the goal: reuse at most 1% of make).
//!
//! Run: `cargo bench -p kiln-bench --bench scopes`. The ratios come from medians of 15 runs
//! measured in the same process after the criterion groups.

use criterion::Criterion;
use kiln_core::context::EvalContext;
use kiln_core::eval::{Evaluator, LazyEvaluator, Request};
use kiln_core::graph::Graph;
use kiln_core::lower::{Planner, lower};
use kiln_core::registry::Registry;
use kiln_io::assets::{DocumentFile, LibraryPath, document_of, text_key};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

const COPIES: usize = 1000;

fn registry() -> Registry {
    kiln_image::registry()
}

fn body() -> String {
    let mut nodes = vec![];
    let mut prev = "item".to_string();
    for i in 0..8 {
        let op = if i % 2 == 0 { "math.mul" } else { "math.add" };
        nodes.push(format!(
            r#""n{i}": {{"op": "{op}", "inputs": {{"a": "{prev}", "b": 1.01}}}}"#
        ));
        prev = format!("n{i}");
    }
    format!(
        r#"{{"inputs": {{"item": {{"type": "float", "default": 0.0}}}}, "nodes": {{{}}}, "outputs": {{"out": "{prev}"}}}}"#,
        nodes.join(", ")
    )
}

fn for_text(items: &[f64]) -> String {
    let list: Vec<String> = items.iter().map(|v| format!("{v:?}")).collect();
    format!(
        r#"{{"kiln": 1, "graphs": {{"body": {}}}, "nodes": {{"f": {{"op": "@body", "for": [{}]}}}}, "outputs": {{"r": "f"}}}}"#,
        body(),
        list.join(", ")
    )
}

fn one_copy_text(item: f64) -> String {
    format!(
        r#"{{"kiln": 1, "graphs": {{"body": {}}}, "nodes": {{"f": {{"op": "@body", "inputs": {{"item": {item:?}}}}}}}, "outputs": {{"r": "f"}}}}"#,
        body()
    )
}

fn document(reg: &Registry, text: &str) -> DocumentFile {
    let file = kiln_io::load_graph(text, reg).unwrap();
    document_of(
        file,
        Path::new("."),
        reg,
        &LibraryPath::default(),
        text_key(text.as_bytes()),
    )
    .unwrap()
}

fn flat(reg: &Registry, text: &str) -> Graph {
    let d = document(reg, text);
    let mut waits = LazyEvaluator::new(reg.clone());
    lower(&d.doc, reg, &EvalContext::new(), &mut waits)
        .unwrap()
        .graph
}

fn cook(eval: &mut LazyEvaluator, g: &Graph) {
    black_box(
        eval.evaluate(g, &Request::new(["r"]), &EvalContext::new())
            .unwrap(),
    );
}

fn median(mut f: impl FnMut() -> f64) -> f64 {
    let mut v: Vec<f64> = (0..15).map(|_| f()).collect();
    v.sort_by(f64::total_cmp);
    v[7]
}

fn main() {
    let reg = registry();
    let items: Vec<f64> = (0..COPIES).map(|i| i as f64).collect();
    let base = flat(&reg, &for_text(&items));
    let edited: Vec<Graph> = (0..64)
        .map(|k| {
            let mut it = items.clone();
            it[COPIES / 2] = 0.5 + k as f64;
            flat(&reg, &for_text(&it))
        })
        .collect();
    let one = flat(&reg, &one_copy_text(3.0));
    let big = document(&reg, &for_text(&items));

    let mut c = Criterion::default().configure_from_args().sample_size(20);
    c.bench_function("scopes/full cook of a 1000-item for", |b| {
        b.iter(|| cook(&mut LazyEvaluator::new(reg.clone()), &base))
    });
    c.bench_function("scopes/one copy alone", |b| {
        b.iter(|| cook(&mut LazyEvaluator::new(reg.clone()), &one))
    });
    c.bench_function("scopes/plan made afresh (10k nodes)", |b| {
        b.iter(|| {
            let mut waits = LazyEvaluator::new(reg.clone());
            black_box(lower(&big.doc, &reg, &EvalContext::new(), &mut waits).unwrap())
        })
    });
    let mut planner = Planner::new(reg.clone());
    planner
        .plan(&big.doc, big.digest.key(), &EvalContext::new())
        .unwrap();
    c.bench_function("scopes/plan reused (10k nodes)", |b| {
        b.iter(|| {
            black_box(
                planner
                    .plan(&big.doc, big.digest.key(), &EvalContext::new())
                    .unwrap(),
            )
        })
    });
    c.final_summary();

    // The ratios, from medians measured here.
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let full = median(|| time(&mut || cook(&mut LazyEvaluator::new(reg.clone()), &base)));
    let alone = median(|| time(&mut || cook(&mut LazyEvaluator::new(reg.clone()), &one)));
    let mut warm = LazyEvaluator::new(reg.clone());
    cook(&mut warm, &base);
    let mut k = 0;
    let recook = median(|| {
        k += 1;
        let g = &edited[k % edited.len()];
        let t = time(&mut || cook(&mut warm, g));
        cook(&mut warm, &base);
        t
    });
    let make = median(|| {
        time(&mut || {
            let mut waits = LazyEvaluator::new(reg.clone());
            black_box(lower(&big.doc, &reg, &EvalContext::new(), &mut waits).unwrap());
        })
    });
    let reuse = median(|| {
        time(&mut || {
            black_box(
                planner
                    .plan(&big.doc, big.digest.key(), &EvalContext::new())
                    .unwrap(),
            );
        })
    });
    println!("scopes summary (medians of 15):");
    println!(
        "  re-cook after one item changed: {:.1} us; full cook {:.1} us ({:.3}x full); one copy alone {:.1} us; ratio to one copy {:.1}x (goal <= 2x)",
        recook * 1e6,
        full * 1e6,
        recook / full,
        alone * 1e6,
        recook / alone
    );
    println!(
        "  plan reused {:.2} us vs made {:.1} us: {:.4}% (goal <= 1%)",
        reuse * 1e6,
        make * 1e6,
        reuse / make * 100.0
    );
}
