//! Graphs used as nodes, `for` and `fold` scopes, plan values and plan-time choices: loaded
//! from files, written out by the plan, and cooked by every evaluator.

mod call_map;
mod counting;
mod counts;
mod entities;
mod flow;
mod fold_cost;
mod generated;
mod live;
mod scopes;
mod step_and_curves;

use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, Evaluator, IncrementalEvaluator, LazyEvaluator, Request,
};
use kiln_core::prelude::*;
use kiln_doc::assets::{DocumentFile, LibraryPath, document_of, text_key};
use kiln_doc::document::Document;
use kiln_lower::lower::{Lowered, Lowerer};
use std::path::Path;

/// The standard library, the plan's ops and the counting op.
pub fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    kiln_lower::register(&mut reg).expect("the scope ops are distinct");
    counting::register(&mut reg);
    reg
}

/// A document from graph-file text (calls resolved among its inline graphs and kiln-std).
pub fn document(text: &str) -> DocumentFile {
    try_document(text).unwrap()
}

/// The same, or the error.
pub fn try_document(text: &str) -> Result<DocumentFile, String> {
    let reg = registry();
    let file = kiln_doc::load_graph(text, &reg).map_err(|e| e.to_string())?;
    document_of(
        file,
        Path::new("."),
        &reg,
        &LibraryPath::default(),
        text_key(text.as_bytes()),
    )
    .map_err(|e| e.to_string())
}

/// The plan of `doc` at `ctx`.
pub fn plan(doc: &Document, ctx: &EvalContext) -> Result<Lowered, String> {
    let reg = registry();
    let mut waits = LazyEvaluator::new(reg.clone());
    kiln_lower::lower::lower(doc, &reg, ctx, &mut waits).map_err(|e| e.to_string())
}

/// Plan `text` and cook output `out` with every evaluator; every one must give the same bits.
pub fn cook_all(text: &str, out: &str) -> Value {
    let d = document(text);
    let ctx = EvalContext::new();
    let lowered = plan(&d.doc, &ctx).unwrap();
    let reg = registry();
    let mut evals: Vec<(&str, Box<dyn Evaluator>)> = vec![
        ("lazy", Box::new(LazyEvaluator::new(reg.clone()))),
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        ("compiled", Box::new(CompiledEvaluator::new(reg.clone()))),
        (
            "incremental",
            Box::new(IncrementalEvaluator::new(reg.clone())),
        ),
    ];
    let mut first: Option<Value> = None;
    for (name, e) in &mut evals {
        let v = e
            .evaluate(&lowered.graph, &Request::new([out]), &ctx)
            .unwrap_or_else(|err| panic!("{name}: {err}"))
            .get(out)
            .cloned()
            .unwrap();
        match &first {
            None => first = Some(v),
            Some(f) => assert!(f.same_bits(&v), "{name} differs: {v:?} vs {f:?}"),
        }
    }
    first.unwrap()
}

/// A lowerer's plan of `d`.
pub fn planned(p: &mut Lowerer, d: &DocumentFile, ctx: &EvalContext) -> std::sync::Arc<Lowered> {
    p.lower(&d.doc, d.digest.key(), ctx).unwrap()
}
