//! The plan: a [`Document`] (a graph with calls, scopes and choices) written out into the
//! flat [`Graph`] every evaluator runs, so no evaluator knows about structure.
//!
//! * A call is written where it is used: each node of the called graph is copied under the
//!   call's id (`wall/mortar`; a scope's copies are `wall[3]/mortar`, nested calls
//!   `wall[3]/brick/mortar`), its input nodes stand for what the call was given (or their
//!   defaults), and the call's ports stand for what its output nodes read. Nothing of the
//!   interface is left in the flat graph, and a copy is keyed by its content like any node,
//!   so a copy that did not change is not cooked again.
//! * A `for` writes its body once per item, a `fold` once per pass (see [`kiln_doc::document`]);
//!   their list or count may be a node's answer, which the plan cooks first (a wait, through
//!   the evaluator it is given), and a fold with `until` cooks its stop after every pass.
//! * Several wires into a collective input are queued into one list, and a list wired into a
//!   single input writes its node once per element (see `entities`).
//! * A choice whose condition the plan knows takes one alternative (see `choice`).
//! * A `step` becomes one solver node ([`crate::solver`]) running its body; a call of a flow
//!   graph one `scope.flow` node ([`crate::flow`]).
//! * An animated input becomes a `curve.sample` node ([`crate::anim`]), keyed by the value it
//!   samples; an animated param is sampled at the plan's clock, and the plan then stands on
//!   the clock.
//! * The worklist has no recursion: nesting depth and scope sizes are checked against
//!   [`Limits`].
//!
//! [`Lowerer`] keeps a plan and reuses it while the document digest and the values it read
//! are unchanged.

mod animated;
mod choice;
mod diff;
mod entities;
mod error;
mod expand;
mod flat;
mod flow;
mod live;
mod lowerer;
pub mod ops;
mod param_fold;
mod report;
mod scopes;
mod step;
mod waits;

pub use animated::AnimatedParam;
pub use diff::edits_between;
pub use entities::needs_lowering;
pub use error::LowerError;
pub use live::{Edit, EditError, Live};
pub use lowerer::{LowerCounts, Lowerer};
pub use report::{LowerReport, ScopeCounts, ScopeReport};

use kiln_core::context::EvalContext;
use kiln_core::eval::Evaluator;
use kiln_core::graph::Graph;
use kiln_core::registry::Registry;
use kiln_doc::document::Document;
use std::collections::BTreeSet;

/// Limits on what a plan may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nodes in the flat graph.
    pub max_nodes: u64,
    /// Calls nested in calls.
    pub max_depth: usize,
    /// Copies of one `for`.
    pub max_copies: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: 5_000_000,
            max_depth: 256,
            max_copies: 1_000_000,
        }
    }
}

/// A document written out.
#[derive(Debug)]
pub struct Lowered {
    /// The flat graph.
    pub graph: Graph,
    /// What the plan did.
    pub report: LowerReport,
    /// The graph inputs whose values the plan read (a scope's list or count, a choice).
    pub inputs_read: BTreeSet<String>,
    /// Whether the plan cooked nodes for values (so it stands on the whole context).
    pub waited: bool,
    /// Whether the plan sampled an animated param at the clock (so it stands on the clock).
    pub clock: bool,
    /// The params animated by curves, sampled at the plan's clock (see [`AnimatedParam`]).
    pub animated: Vec<AnimatedParam>,
    /// Where the constants calls were given landed (for value edits in place).
    pub(crate) sites: flat::Sites,
    /// Nodes and wires the plan's walks visited while writing the graph: a measure of its
    /// own work, which grows with what it writes (a fold's passes, say), no faster.
    pub walked: u64,
}

/// Write `doc` out at context `ctx` (whose graph inputs the plan may read). Values the plan
/// must cook first are cooked with `waits`.
pub fn lower(
    doc: &Document,
    registry: &Registry,
    ctx: &EvalContext,
    waits: &mut dyn Evaluator,
) -> Result<Lowered, LowerError> {
    lower_with(doc, registry, ctx, waits, Limits::default())
}

/// [`lower`] under other limits.
pub fn lower_with(
    doc: &Document,
    registry: &Registry,
    ctx: &EvalContext,
    waits: &mut dyn Evaluator,
    limits: Limits,
) -> Result<Lowered, LowerError> {
    if doc.flow.is_some() {
        return Err(LowerError::Scope {
            kind: "flow",
            call: "(the top graph)".into(),
            message: "a flow graph runs as a call: call it (`\"op\": \"@name\"`) from a \
                      dataflow graph"
                .into(),
        });
    }
    lower_body(doc, registry, ctx, waits, limits)
}

/// [`lower_with`] for any document, a flow graph's body included (written out as a plain
/// graph with its interface nodes, for the flow executor).
pub(crate) fn lower_body(
    doc: &Document,
    registry: &Registry,
    ctx: &EvalContext,
    waits: &mut dyn Evaluator,
    limits: Limits,
) -> Result<Lowered, LowerError> {
    let mut l = expand::Lowering::new(registry, ctx, limits);
    // A flow body's ports mean what its executor makes of them: several wires queue
    // entities, a list is sent element by element.
    l.entity_forms = doc.flow.is_none();
    l.run(doc, waits)?;
    l.prune();
    let (graph, sites) = l.finish()?;
    let mut report = std::mem::take(&mut l.report);
    report.nodes = graph.len();
    Ok(Lowered {
        graph,
        report,
        inputs_read: std::mem::take(&mut l.inputs_read),
        waited: l.waited,
        clock: l.clock,
        animated: std::mem::take(&mut l.animated),
        sites,
        walked: l.flat.walked.get(),
    })
}

/// Register the ops plans write (`scope.gather`, `scope.queue`, `scope.get`); the solver and the curve
/// sampler are registered by their own modules.
pub fn register(reg: &mut Registry) -> Result<(), kiln_core::registry::RegistryError> {
    ops::register(reg)
}
