//! The differential property of flow graphs: a file calling a flow graph (a recursive split
//! through a loop port, twice on one level) gives the same bits under every evaluator and
//! thread count, and the same parcels, in the same order, as a hand-written worklist of the
//! same splits.

use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, Evaluator, IncrementalEvaluator, LazyEvaluator,
    ParallelPolicy, Request,
};
use kiln_core::prelude::*;
use kiln_doc::assets::{LibraryPath, document_of, text_key};
use kiln_std::rects::{split, split_ratio};
use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;

fn file(lots: [[f64; 4]; 2], area: f64, seed: i64, spread: f64) -> String {
    format!(
        r#"{{"kiln": 1,
  "graphs": {{"plots": {{
    "paradigm": "flow",
    "inputs": {{"lot": {{"type": "vec4"}}}},
    "nodes": {{
      "split": {{"op": "rect.split", "params": {{"seed": {seed}, "spread": {spread:?}}},
                 "inputs": {{"rect": "lot", "rect": "route.big"}}, "loop": {{"rect": {{"max": 200}}}}}},
      "route": {{"op": "rect.small", "params": {{"area": {area:?}}},
                 "inputs": {{"rect": "split.first", "rect": "split.second"}}}}
    }},
    "outputs": {{"parcels": "route.small"}}}}}},
  "nodes": {{
    "a": {{"op": "@plots", "inputs": {{"lot": {:?}}}}},
    "b": {{"op": "@plots", "inputs": {{"lot": {:?}}}}}
  }},
  "outputs": {{"pa": "a.parcels", "pb": "b.parcels"}}}}"#,
        lots[0], lots[1]
    )
}

/// The same splits as a plain worklist: each round splits every big part in order (first
/// then second of each), keeps the small ones in order and sends the rest round again.
fn reference(lot: [f64; 4], area: f64, seed: i64, spread: f64) -> Vec<[f64; 4]> {
    let mut out = vec![];
    let mut big = vec![lot];
    while !big.is_empty() {
        let mut next = vec![];
        for r in big {
            let (a, b) = split(r, split_ratio(r, seed, spread));
            for p in [a, b] {
                if p[2] * p[3] <= area {
                    out.push(p);
                } else {
                    next.push(p);
                }
            }
        }
        big = next;
    }
    out
}

fn evaluators(reg: &Registry) -> Vec<(String, Box<dyn Evaluator>)> {
    let mut out: Vec<(String, Box<dyn Evaluator>)> = vec![];
    let policies = [
        ParallelPolicy::Sequential,
        ParallelPolicy::Rayon {
            threads: Some(2),
            min_cost: Some(Duration::ZERO),
        },
        ParallelPolicy::Rayon {
            threads: Some(4),
            min_cost: Some(Duration::ZERO),
        },
    ];
    for (i, p) in policies.iter().enumerate() {
        out.push((
            format!("lazy/{i}"),
            Box::new(LazyEvaluator::new(reg.clone()).with_parallel(p.clone())),
        ));
        out.push((
            format!("eager/{i}"),
            Box::new(EagerEvaluator::new(reg.clone()).with_parallel(p.clone())),
        ));
        out.push((
            format!("compiled/{i}"),
            Box::new(CompiledEvaluator::new(reg.clone()).with_parallel(p.clone())),
        ));
    }
    out.push((
        "incremental".into(),
        Box::new(IncrementalEvaluator::new(reg.clone())),
    ));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn every_evaluator_and_thread_count_gives_the_worklist_parcels(
        w in 0.5f64..4.0, h in 0.5f64..4.0, x in -2.0f64..2.0,
        area in 0.05f64..0.8, seed in 0i64..1000, spread in 0.0f64..0.45,
    ) {
        let lots = [[x, 0.0, w, h], [0.0, x, h, w]];
        let text = file(lots, area, seed, spread);
        let mut reg = kiln_std::registry();
        kiln_lower::register(&mut reg).unwrap();
        let f = kiln_doc::load_graph(&text, &reg).unwrap();
        let d = document_of(f, Path::new("."), &reg, &LibraryPath::default(), text_key(text.as_bytes())).unwrap();
        let mut waits = LazyEvaluator::new(reg.clone());
        let lowered = kiln_lower::lower::lower(&d.doc, &reg, &EvalContext::new(), &mut waits).unwrap();
        let req = Request::new(["pa", "pb"]);
        let mut first: Option<Vec<Value>> = None;
        for (name, mut e) in evaluators(&reg) {
            let out = e.evaluate(&lowered.graph, &req, &EvalContext::new()).unwrap();
            let got: Vec<Value> = ["pa", "pb"].iter().map(|o| out.get(o).cloned().unwrap()).collect();
            match &first {
                None => first = Some(got),
                Some(f) => for (a, b) in f.iter().zip(&got) {
                    prop_assert!(a.same_bits(b), "{} differs", name);
                },
            }
        }
        let first = first.unwrap();
        for (lot, got) in lots.iter().zip(&first) {
            let want: Vec<Value> = reference(*lot, area, seed, spread).into_iter().map(Value::Vec4).collect();
            let got = got.as_list().unwrap();
            prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                prop_assert!(g.same_bits(w), "{:?} vs {:?}", g, w);
            }
        }
    }
}
