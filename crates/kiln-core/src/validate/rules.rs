//! The rules of params and inline constants (see [`crate::op::rule`]), applied to a graph:
//! one `bad-value` diagnostic for each value that breaks its rule, with the message the
//! evaluators give when the node runs.

use crate::error::{Diagnostic, DiagnosticKind};
use crate::graph::Graph;
use crate::op::rule::{RuleEnv, Violation};
use crate::registry::Registry;
use crate::signal::RESAMPLE_OP;
use crate::value::Value;
use std::collections::VecDeque;

/// Every value of `graph` that breaks its rule. `rates`, when given, is the sample rate of
/// each node's clock domain (for the rules of signal ops that depend on it).
pub(crate) fn rule_diagnostics(
    graph: &Graph,
    registry: &Registry,
    rates: Option<&[f64]>,
) -> Vec<Diagnostic> {
    let mut diags = vec![];
    for (v, node) in graph.nodes().iter().enumerate() {
        let Some(op) = registry.get(&node.op) else {
            continue;
        };
        let spec = op.spec();
        let env = RuleEnv {
            sample_rate: rates.and_then(|r| r.get(v).copied()),
        };
        let bad = |port: String, e: Violation| {
            Diagnostic::new(DiagnosticKind::BadValue, &node.id, &node.op)
                .port(port)
                .expected(e.expected)
                .found(e.found)
        };
        let mut params = Vec::with_capacity(spec.params.len());
        let mut all_fit = true;
        for p in &spec.params {
            let value = super::given_param(spec, node, p).or_else(|| p.default.clone());
            let Some(value) = value.filter(|x| super::value_fits(p.ty, x)) else {
                all_fit = false;
                continue;
            };
            if let Some(rule) = &p.rule
                && let Err(e) = rule.check(&value, &env)
            {
                all_fit = false;
                diags.push(bad(format!("param `{}`", p.name), e));
            }
            params.push(value);
        }
        if all_fit
            && let Some(check) = spec.params_rule
            && let Err((i, e)) = check(&params, &env)
        {
            diags.push(bad(spec.port_name(crate::op::PortIndex::Param(i)), e));
        }
        for p in &spec.inputs {
            if let (Some(rule), Some(c)) = (&p.rule, node.consts.get(&p.name))
                && super::value_fits(p.ty, c)
                && let Err(e) = rule.check(c, &env)
            {
                diags.push(bad(format!("input `{}`", p.name), e));
            }
        }
    }
    diags
}

/// The sample rate of each node's clock domain when the graph streams at `rate`: `rate`,
/// except upstream of a `resample` node's input, which runs at the rate its `from` names.
pub(crate) fn domain_rates(graph: &Graph, rate: f64) -> Vec<f64> {
    let n = graph.len();
    let mut sources: Vec<Vec<usize>> = vec![vec![]; n];
    for w in graph.wires() {
        if let (Some(s), Some(d)) = (
            graph.index_of(w.from.node.as_str()),
            graph.index_of(w.to.node.as_str()),
        ) {
            sources[d].push(s);
        }
    }
    let from = |v: usize| {
        let node = &graph.nodes()[v];
        (node.op == RESAMPLE_OP)
            .then(|| node.params.get("from").and_then(Value::as_i64))
            .flatten()
    };
    let mut rates = vec![rate; n];
    for r in 0..n {
        let Some(upstream) = from(r) else { continue };
        // Everything upstream of `r` up to (and including) the next resample nodes runs at
        // `upstream`; those nodes' own upstreams are set when they are reached here.
        let mut seen = vec![false; n];
        let mut queue: VecDeque<usize> = sources[r].iter().copied().collect();
        while let Some(v) = queue.pop_front() {
            if std::mem::replace(&mut seen[v], true) {
                continue;
            }
            rates[v] = upstream as f64;
            if from(v).is_none() {
                queue.extend(sources[v].iter().copied());
            }
        }
    }
    rates
}
