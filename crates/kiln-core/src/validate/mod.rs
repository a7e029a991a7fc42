//! Validation: every problem in a graph, each naming the node, op and port involved, what was
//! expected and what was found. All diagnostics are reported, not only the first.

use crate::analysis::Topology;
mod resolve;
mod rules;

pub use crate::error::{Diagnostic, DiagnosticKind, Diagnostics};
use crate::graph::{Graph, NodeId};
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

/// The result of a successful validation: resolved ops, bindings, params and types.
pub(crate) struct Resolved {
    pub ops: Vec<Arc<dyn Op>>,
    pub bindings: Vec<Vec<Binding>>,
    pub params: Vec<Vec<Value>>,
    pub out_types: Vec<Vec<ValueType>>,
    pub topo: Topology,
    pub order: Vec<u32>,
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
    let mut diags = match resolve::resolve_document(graph, registry) {
        Ok(_) => vec![],
        Err(d) => d.0,
    };
    let rates = rate.map(|r| rules::domain_rates(graph, r));
    diags.extend(rules::rule_diagnostics(graph, registry, rates.as_deref()));
    diags
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

fn unknown_input(node: NodeId, op_id: &str, name: &str, op: &dyn Op) -> Diagnostic {
    let names: Vec<&str> = op.spec().inputs.iter().map(|p| &*p.name).collect();
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
