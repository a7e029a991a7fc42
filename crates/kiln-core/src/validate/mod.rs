//! Validation: every problem in a graph, each naming the node, op and port involved, what was
//! expected and what was found. All diagnostics are reported, not only the first.

use crate::analysis::Topology;
mod resolve;
mod rules;

pub use crate::error::{Diagnostic, DiagnosticKind, Diagnostics};
use crate::graph::{Graph, NodeId, Revision};
use crate::op::Op;
use crate::registry::Registry;
use crate::value::{Value, ValueType};
use std::sync::Arc;

/// Where an input port's value comes from, after validation.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    Wire { node: u32, port: u16 },
    Const(Value),
    Empty,
}

/// The result of a successful resolution: resolved ops, bindings, params and types.
pub(crate) struct Resolved {
    pub ops: Vec<Arc<dyn Op>>,
    pub bindings: Vec<Vec<Binding>>,
    pub params: Vec<Vec<Value>>,
    pub out_types: Vec<Vec<ValueType>>,
    pub topo: Topology,
    pub order: Vec<u32>,
    /// What `resolve` (one source per input, every wire's type accepted as it is) reports
    /// where `resolve_document` accepted a form only a plan writes out: a second wire into a
    /// collective input, an element into one, a list into a single input. Empty exactly when
    /// the strict resolution of the same graph succeeds with the same result.
    pub plan_only: Vec<Diagnostic>,
}

thread_local! {
    static RESOLVES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn count_resolve() {
    RESOLVES.with(|c| c.set(c.get() + 1));
}

/// How many times a graph was resolved against a registry on the calling thread (by
/// [`validate`], [`check`], [`output_types`] or [`Plan::build`](crate::plan::Plan::build)).
/// A statistic for tests and benchmarks that show a graph is resolved once: a
/// [`Plan::from_checked`](crate::plan::Plan::from_checked) resolves nothing.
pub fn resolve_count() -> u64 {
    RESOLVES.with(|c| c.get())
}

/// A graph found valid, with what validation resolved: each node's op, params and input
/// bindings, the inferred output types and the topological order, for the graph revision it
/// checked. [`Plan::from_checked`](crate::plan::Plan::from_checked) turns it into a plan
/// without resolving the graph again.
///
/// Validation accepts a little more than a tick plan does: forms only `kiln_lower` writes
/// out (several wires into a collective input, a list into a single input) and loops through
/// audio feedback inputs (the streaming evaluator runs them). A `Checked` records what
/// [`Plan::build`](crate::plan::Plan::build) would report for those
/// ([`Checked::plan_refusal`]), and `from_checked` refuses with it, so only a graph that
/// `Plan::build` accepts becomes a plan.
pub struct Checked {
    revision: Revision,
    ids: Vec<NodeId>,
    resolved: Resolved,
    refusal: Vec<Diagnostic>,
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checked")
            .field("nodes", &self.ids.len())
            .field("revision", &self.revision)
            .field("refusal", &self.refusal.len())
            .finish()
    }
}

impl Checked {
    fn new(graph: &Graph, resolved: Resolved) -> Checked {
        let mut refusal = resolved.plan_only.clone();
        if let Err(d) = audio_loops(graph, &resolved) {
            refusal.extend(d.0);
        }
        Checked {
            revision: graph.revision(),
            ids: graph.nodes().iter().map(|n| n.id.clone()).collect(),
            resolved,
            refusal,
        }
    }
    /// The graph revision that was checked.
    pub fn revision(&self) -> Revision {
        self.revision
    }
    /// The inferred type of every node's outputs (by node index, then port).
    pub fn output_types(&self) -> &[Vec<ValueType>] {
        &self.resolved.out_types
    }
    /// Why a tick plan refuses this valid graph (empty when it does not): what
    /// [`Plan::build`](crate::plan::Plan::build) reports for a form only a plan writes out or
    /// a loop through an audio feedback input.
    pub fn plan_refusal(&self) -> &[Diagnostic] {
        &self.refusal
    }
    /// The parts a plan takes: ids, the resolution, and the refusal.
    pub(crate) fn into_parts(self) -> (Revision, Vec<NodeId>, Resolved, Vec<Diagnostic>) {
        (self.revision, self.ids, self.resolved, self.refusal)
    }
}

/// Validate `graph` as [`validate`] does and keep what it resolved: the [`Checked`] graph
/// when there is no diagnostic, else every diagnostic, exactly as `validate` reports them
/// (rules included). A plan made from it ([`Plan::from_checked`](crate::plan::Plan::from_checked))
/// resolves nothing again.
pub fn check(graph: &Graph, registry: &Registry) -> Result<Checked, Diagnostics> {
    diagnosed(graph, registry, None)
        .map(|r| Checked::new(graph, r))
        .map_err(Diagnostics)
}

/// The strict check [`Plan::build`](crate::plan::Plan::build) starts from: one source per
/// input, every wire's type accepted as it is; an op's rules are not checked here (the
/// evaluators apply them before a node runs, so a graph that breaks one still runs and that
/// node fails, under the request's error policy).
pub(crate) fn check_for_plan(graph: &Graph, registry: &Registry) -> Result<Checked, Diagnostics> {
    resolve(graph, registry).map(|r| Checked::new(graph, r))
}

/// The inferred type of every node's outputs (by node index, then port), or every
/// diagnostic. Unlike a [`Plan`](crate::plan::Plan), this accepts audio loops (they are
/// valid graphs; only the tick evaluators refuse them).
pub fn output_types(
    graph: &Graph,
    registry: &Registry,
) -> Result<Vec<Vec<ValueType>>, Diagnostics> {
    resolve::resolve_document(graph, registry).map(|r| r.out_types)
}

/// Validate a graph against a registry, returning every diagnostic (empty when valid): its
/// structure and types, and every param and inline constant against its op's rules (see
/// [`crate::op::rule`]), so a value an evaluator would refuse when the node runs is refused
/// here with the same message. Rules of signal ops that depend on the sample rate need one:
/// see [`validate_at_rate`].
pub fn validate(graph: &Graph, registry: &Registry) -> Vec<Diagnostic> {
    checked(graph, registry, None)
}

/// [`validate`] for a graph streamed at `sample_rate` Hz: the rules that depend on the rate
/// (a filter's cutoff below Nyquist, a delay's length in samples) are checked too, each node
/// at the rate of its clock domain (upstream of a `resample` node, the rate it names).
pub fn validate_at_rate(graph: &Graph, registry: &Registry, sample_rate: f64) -> Vec<Diagnostic> {
    checked(graph, registry, Some(sample_rate))
}

fn checked(graph: &Graph, registry: &Registry, rate: Option<f64>) -> Vec<Diagnostic> {
    diagnosed(graph, registry, rate).err().unwrap_or_default()
}

/// The resolution of `graph` when it has no diagnostic, else every diagnostic.
fn diagnosed(
    graph: &Graph,
    registry: &Registry,
    rate: Option<f64>,
) -> Result<Resolved, Vec<Diagnostic>> {
    let (resolved, mut diags) = match resolve::resolve_document(graph, registry) {
        Ok(r) => (Some(r), vec![]),
        Err(d) => (None, d.0),
    };
    let rates = rate.map(|r| rules::domain_rates(graph, r));
    diags.extend(rules::rule_diagnostics(graph, registry, rates.as_deref()));
    match resolved {
        Some(r) if diags.is_empty() => Ok(r),
        _ => Err(diags),
    }
}

pub(crate) fn value_fits(ty: ValueType, v: &Value) -> bool {
    let fits = match v.value_type() {
        Some(found) => ty.accepts(found) || (ty == ValueType::Color && v.as_color().is_some()),
        None => false,
    };
    // A list for a typed list: each element fits the element type (nesting is bounded by
    // `list_type::MAX_LIST_NESTING`, the depth of `ty`).
    match (ty, v) {
        (ValueType::ListOf(e), Value::List(items)) if fits => {
            items.iter().all(|x| value_fits(*e, x))
        }
        _ => fits,
    }
}

pub(crate) use resolve::resolve;

/// The value `node` gives param `p` of its op (`spec`): under `params`, or as a constant at
/// the param's port (an input of the same name, if the op has one, keeps that constant).
pub(crate) fn given_param(
    spec: &crate::op::OpSpec,
    node: &crate::graph::Node,
    p: &crate::op::ParamSpec,
) -> Option<Value> {
    node.params.get(&p.name).cloned().or_else(|| {
        node.consts
            .get(&p.name)
            .filter(|_| spec.input_index(&p.name).is_none())
            .map(|v| p.ty.conform(v.clone()))
    })
}

fn unknown_input(node: NodeId, op_id: &str, name: &str, op: &dyn Op) -> Diagnostic {
    // Every param is also an input port of its name.
    let spec = op.spec();
    let mut names: Vec<&str> = spec.inputs.iter().map(|p| &*p.name).collect();
    names.extend(
        spec.params
            .iter()
            .map(|p| &*p.name)
            .filter(|p| spec.input_index(p).is_none()),
    );
    Diagnostic::new(DiagnosticKind::UnknownPort, &node, op_id)
        .port(format!("input `{name}`"))
        .expected(if names.is_empty() {
            "no inputs".to_string()
        } else {
            format!("one of: {}", names.join(", "))
        })
        .found(format!("`{name}`"))
}

/// Loops that close only through a signal op's feedback input: legal for the streaming
/// evaluator, which runs them sample by sample, but not within a tick. The tick evaluators'
/// plans report them with this.
pub(crate) fn audio_loops(graph: &Graph, r: &Resolved) -> Result<(), Diagnostics> {
    if !r
        .ops
        .iter()
        .any(|op| op.spec().inputs.iter().any(|i| i.feedback))
        || r.topo.topo_order().is_ok()
    {
        return Ok(());
    }
    let diags = r
        .topo
        .cycles()
        .into_iter()
        .map(|cyc| {
            let first = &graph.nodes()[cyc[0] as usize];
            let mut d = Diagnostic::new(DiagnosticKind::Cycle, &first.id, &first.op)
                .expected("no loop within a tick")
                .found("a loop through an audio feedback input")
                .hint("audio loops run only in the streaming evaluator (`StreamingEvaluator`, `kiln render --seconds`)");
            d.nodes = cyc
                .iter()
                .map(|&v| graph.nodes()[v as usize].id.clone())
                .collect();
            d
        })
        .collect();
    Err(Diagnostics(diags))
}
