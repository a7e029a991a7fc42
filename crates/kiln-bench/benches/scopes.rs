//! Scopes and plans (issue 12), in one run, printing ratios:
//!
//! 1. **Re-cook after one item of a 1,000-item `for` changes**, against a full cook of the
//!    same graph and against cooking one copy alone (the issue's goal: within 2× one copy).
//!    The body is a chain of 8 float ops; each re-cook plans the document with one item
//!    changed (the plan is made outside the timing) and evaluates it on a warm
//!    [`LazyEvaluator`], whose memo answers the 999 unchanged copies.
//! 2. **Plan reuse against a plan made afresh** on a 1,000-copy `for` of a 9-node body
//!    (about 10,000 flat nodes): [`Lowerer::plan`] with the digest unchanged, against
//!    [`lower`] (the goal: reuse at most 1% of make).
//!
//! 3. **The same re-cook through a live document**: the item is edited with
//!    [`Live::edit`], which makes the change in the kept flat graph in place, and a warm
//!    [`IncrementalEvaluator`] re-cooks the edited copy's cone; timed from the edit to the
//!    answer. Beside it, the same live edit of a document holding one copy alone.
//!    Then a structural edit through the live document: a plain node added beside the
//!    scope and cooked, against a plan made afresh.
//! 4. **A `step` body with its static nodes hoisted, against the same body with them
//!    inside**: a 128² noise image feeding an image state over 120 steps; inside, the noise
//!    reads the state (through a zero offset), so it is cooked every step.
//!
//! Run: `cargo bench -p kiln-bench --bench scopes`. The ratios come from medians of 15 runs
//! measured in the same process after the criterion groups.

use criterion::{BatchSize, Criterion};
use kiln_core::context::EvalContext;
use kiln_core::eval::{Evaluator, IncrementalEvaluator, LazyEvaluator, Request};
use kiln_core::graph::Graph;
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_doc::assets::{DocumentFile, LibraryPath, document_of, text_key};
use kiln_lower::lower::{Edit, Live, Lowerer, lower};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

const COPIES: usize = 1000;

fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    kiln_lower::register(&mut reg).expect("the scope ops are distinct");
    reg
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
    let file = kiln_doc::load_graph(text, reg).unwrap();
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

fn median(f: impl FnMut() -> f64) -> f64 {
    median_of(15, f)
}

/// The median of `n` runs (short measures take more, to be steadier).
fn median_of(n: usize, mut f: impl FnMut() -> f64) -> f64 {
    let mut v: Vec<f64> = (0..n).map(|_| f()).collect();
    v.sort_by(f64::total_cmp);
    v[n / 2]
}

/// The re-cook of a live document after item `index` of `f` changed (to a new value each
/// time), on a warm incremental evaluator.
fn live_recook(reg: &Registry, text: &str, index: usize) -> f64 {
    let ctx = EvalContext::new();
    let mut live = Live::new(reg.clone(), document(reg, text).doc);
    let mut eval = IncrementalEvaluator::new(reg.clone());
    let request = Request::new(["r"]);
    let cook = |live: &mut Live, eval: &mut IncrementalEvaluator| {
        let plan = live.lower(&ctx).unwrap();
        black_box(eval.evaluate(&plan.graph, &request, &ctx).unwrap());
    };
    cook(&mut live, &mut eval);
    let mut k = 0.0;
    let t = median_of(201, || {
        k += 1.0;
        let t = Instant::now();
        let patched = live
            .edit(Edit::Item {
                node: "f".into(),
                index,
                value: Value::Float(0.25 + k),
            })
            .unwrap();
        cook(&mut live, &mut eval);
        assert!(patched, "an item edit is made in place");
        t.elapsed().as_secs_f64()
    });
    assert_eq!(live.counts().made, 1, "the plan is made once");
    t
}

/// A structural edit of a live document: a plain node added, given constants and wired from
/// the `for`'s list length, then cooked with the list; timed from the edit to the answer, on a
/// warm incremental evaluator (which builds its schedule again: the graph's shape changed).
fn live_structural(reg: &Registry, text: &str) -> f64 {
    let ctx = EvalContext::new();
    let mut live = Live::new(reg.clone(), document(reg, text).doc);
    let mut eval = IncrementalEvaluator::new(reg.clone());
    let plan = live.lower(&ctx).unwrap();
    black_box(
        eval.evaluate(&plan.graph, &Request::new(["r"]), &ctx)
            .unwrap(),
    );
    drop(plan);
    let mut k = 0;
    let t = median_of(15, || {
        k += 1;
        let id = format!("extra{k}");
        let t = Instant::now();
        let edits = [
            Edit::AddNode {
                node: id.clone(),
                op: "math.add".into(),
            },
            Edit::Const {
                node: id.clone(),
                port: "a".into(),
                value: Value::Float(k as f64),
            },
            Edit::Const {
                node: id.clone(),
                port: "b".into(),
                value: Value::Float(1.0),
            },
        ];
        for e in edits {
            assert!(live.edit(e).unwrap(), "a plain node is spliced in");
        }
        let plan = live.lower(&ctx).unwrap();
        let request = Request::new(["r", id.as_str()]);
        black_box(eval.evaluate(&plan.graph, &request, &ctx).unwrap());
        t.elapsed().as_secs_f64()
    });
    assert_eq!(live.counts().made, 1, "the plan is made once");
    t
}

fn for_of_one(item: f64) -> String {
    for_text(&[item])
}

/// A step scope over an image state: `next = 0.95 image + 0.05 noise`; with `inside`, the
/// noise's offset reads a state that counts the steps (times 1e-300: far below what moves a
/// sample, so the image is the same, but the noise is keyed anew every step), so it is not
/// static.
fn step_text(inside: bool) -> String {
    let (offset, drift_in, drift_out) = if inside {
        (
            r#", "zero": {"op": "math.mul", "inputs": {"a": "drift", "b": 1e-300}}, "step": {"op": "math.add", "inputs": {"a": "drift", "b": 1.0}}"#,
            r#", "drift": {"type": "vec2", "default": [1.0, 1.0]}"#,
            r#", "next_drift": "step""#,
        )
    } else {
        ("", "", "")
    };
    let noise_in = if inside {
        r#", "inputs": {"offset": "zero"}"#
    } else {
        ""
    };
    let state = if inside {
        r#"{"image": "next", "drift": "next_drift"}"#
    } else {
        r#"{"image": "next"}"#
    };
    format!(
        r##"{{"kiln": 1, "graphs": {{"fade": {{
          "inputs": {{"image": {{"type": "image"}}{drift_in}}},
          "nodes": {{
            "n": {{"op": "image.noise", "params": {{"width": 128, "height": 128, "octaves": 4}}{noise_in}}}{offset},
            "g": {{"op": "image.gain", "inputs": {{"image": "n", "gain": 0.05}}}},
            "k": {{"op": "image.gain", "inputs": {{"image": "image", "gain": 0.95}}}},
            "s": {{"op": "image.add", "inputs": {{"a": "k", "b": "g"}}}}}},
          "outputs": {{"next": "s"{drift_out}}}}}}},
        "nodes": {{
          "black": {{"op": "image.fill", "params": {{"width": 128, "height": 128}}, "inputs": {{"color": "#000000"}}}},
          "f": {{"op": "@fade", "step": {{"dt": 0.01, "state": {state}}}, "inputs": {{"image": "black"}}}}}},
        "outputs": {{"r": "f.next"}}}}"##
    )
}

/// A fresh cook of the step document at 120 steps.
fn step_cook(reg: &Registry, g: &Graph) -> Value {
    let mut ctx = EvalContext::new();
    ctx.time = 1.2;
    LazyEvaluator::new(reg.clone())
        .evaluate(g, &Request::new(["r"]), &ctx)
        .unwrap()
        .get("r")
        .cloned()
        .unwrap()
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
    let fresh = || LazyEvaluator::new(reg.clone());
    c.bench_function("scopes/full cook of a 1000-item for", |b| {
        b.iter_batched(fresh, |mut e| cook(&mut e, &base), BatchSize::SmallInput)
    });
    c.bench_function("scopes/one copy alone", |b| {
        b.iter_batched(fresh, |mut e| cook(&mut e, &one), BatchSize::SmallInput)
    });
    c.bench_function("scopes/plan made afresh (10k nodes)", |b| {
        b.iter(|| {
            let mut waits = LazyEvaluator::new(reg.clone());
            black_box(lower(&big.doc, &reg, &EvalContext::new(), &mut waits).unwrap())
        })
    });
    let mut lowerer = Lowerer::new(reg.clone());
    lowerer
        .lower(&big.doc, big.digest.key(), &EvalContext::new())
        .unwrap();
    c.bench_function("scopes/plan reused (10k nodes)", |b| {
        b.iter(|| {
            black_box(
                lowerer
                    .lower(&big.doc, big.digest.key(), &EvalContext::new())
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
    // A cold cook: one request on a new evaluator (made before the timing: making one
    // clones the registry, which is not cooking).
    let cold = |g: &Graph, n: usize| {
        median_of(n, || {
            let mut e = LazyEvaluator::new(reg.clone());
            time(&mut || cook(&mut e, g))
        })
    };
    let full = cold(&base, 15);
    let alone = cold(&one, 201);
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
                lowerer
                    .lower(&big.doc, big.digest.key(), &EvalContext::new())
                    .unwrap(),
            );
        })
    });
    let live = live_recook(&reg, &for_text(&items), COPIES / 2);
    let live_one = live_recook(&reg, &for_of_one(3.0), 0);
    let structural = live_structural(&reg, &for_text(&items));
    let hoisted_g = flat(&reg, &step_text(false));
    let inside_g = flat(&reg, &step_text(true));
    assert!(
        step_cook(&reg, &hoisted_g).same_bits(&step_cook(&reg, &inside_g)),
        "both bodies give the same image"
    );
    // A step node keeps the states it reached (to resume from them), so every timed cook
    // gets a newly planned graph.
    let step_time = |inside: bool| {
        median(|| {
            let g = flat(&reg, &step_text(inside));
            time(&mut || drop(black_box(step_cook(&reg, &g))))
        })
    };
    let hoisted = step_time(false);
    let inside = step_time(true);

    println!("scopes summary (medians of 15; of 201 for one copy alone and the live re-cooks):");
    println!(
        "  re-cook after one item changed: {:.1} us; full cook {:.1} us ({:.3}x full); one copy alone {:.1} us; ratio to one copy {:.1}x (goal <= 2x)",
        recook * 1e6,
        full * 1e6,
        recook / full,
        alone * 1e6,
        recook / alone
    );
    println!(
        "  live re-cook after one item changed (edit in place, warm incremental): {:.1} us; ratio to one copy alone {:.2}x (goal <= 2x); to the same live edit of one copy {:.2}x; to the full cook {:.5}x",
        live * 1e6,
        live / alone,
        live / live_one,
        live / full
    );
    println!(
        "  live structural edit (a node added and cooked beside the 1000-item for): {:.1} us; plan made afresh {:.1} us ({:.3}x); full cook {:.1} us",
        structural * 1e6,
        make * 1e6,
        structural / make,
        full * 1e6
    );
    println!(
        "  step over 120 steps of a 128^2 image: static noise hoisted {:.2} ms, inside the body {:.2} ms ({:.1}x)",
        hoisted * 1e3,
        inside * 1e3,
        inside / hoisted
    );
    println!(
        "  plan reused {:.2} us vs made {:.1} us: {:.4}% (goal <= 1%)",
        reuse * 1e6,
        make * 1e6,
        reuse / make * 100.0
    );
}
