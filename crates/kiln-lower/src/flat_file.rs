//! A graph file with everything it calls ([`DocumentFile`]) written out flat, as the
//! evaluators run it: the one step from the edit model to the compiled model that every
//! caller shares.

use crate::lower::{AnimatedParam, LowerError, LowerReport, lower, needs_lowering};
use kiln_core::context::EvalContext;
use kiln_core::eval::LazyEvaluator;
use kiln_core::registry::Registry;
use kiln_doc::assets::DocumentFile;
use kiln_doc::graph_file::GraphFile;

/// A document written out flat, as the evaluators run it.
#[derive(Debug)]
pub struct FlatFile {
    /// The file, its graph replaced by the flat graph.
    pub file: GraphFile,
    /// What the plan did (`None` when the file has no structure to write out).
    pub plan: Option<LowerReport>,
    /// The params animated by curves, as the plan sampled them (see [`AnimatedParam`]:
    /// sample them again to move the clock).
    pub animated: Vec<AnimatedParam>,
}

/// The file of `doc` as the evaluators run it: its graph written out by the plan at `ctx`
/// (whose graph inputs a scope's list or count may read), or the file itself when it calls
/// nothing and animates nothing. Values the plan must cook first are cooked by a lazy
/// evaluator of its own; a caller that cooks afterwards shares them through
/// [`crate::lower::Lowerer`] instead.
pub fn flat_file(
    doc: &DocumentFile,
    registry: &Registry,
    ctx: &EvalContext,
) -> Result<FlatFile, LowerError> {
    let mut file = doc.file.clone();
    if !needs_lowering(&doc.doc, registry) {
        return Ok(FlatFile {
            file,
            plan: None,
            animated: vec![],
        });
    }
    let mut waits = LazyEvaluator::new(registry.clone());
    let lowered = lower(&doc.doc, registry, ctx, &mut waits)?;
    file.graph = lowered.graph;
    Ok(FlatFile {
        file,
        plan: Some(lowered.report),
        animated: lowered.animated,
    })
}
