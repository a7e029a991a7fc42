//! Control values: the ordinary nodes feeding signal ops (a frequency computed by maths
//! nodes, a gain read from a graph input), evaluated by the shared pull walk with retention
//! by key ([`PullEngine`]), the lazy evaluator's engine, on a plan of its own.
//!
//! The plan is of the control sub-graph (the control nodes, their params, constants and the
//! wires between them), not of the whole graph: a whole-graph plan is refused when the graph
//! has an audio loop (a loop through a feedback input is legal only here, see
//! `validate::audio_loops`), and the signal nodes have nothing to give the pull walk anyway.
//!
//! The engine keeps its memo for the stream's life, so when a graph input changes
//! ([`Controls::set_input`]) only the control values depending on it execute again.

use super::config::StreamError;
use crate::context::EvalContext;
use crate::eval::walks::pull_walk::PullEngine;
use crate::eval::{EvalError, Request, Stats};
use crate::graph::Graph;
use crate::plan::Plan;
use crate::registry::Registry;
use crate::validate::{Binding, Resolved};
use crate::value::Value;
use std::collections::BTreeMap;

/// The control values of a stream and the engine that computes them.
pub(super) struct Controls {
    plan: Plan,
    engine: PullEngine,
    /// The requested (node, port) in the control plan, one per control value.
    roots: Vec<(usize, usize)>,
    /// The output names of the roots (`node.port`).
    request: Request,
    /// Each (node, port) of the streamed graph to its control value's index.
    index: BTreeMap<(usize, usize), usize>,
    ctx: EvalContext,
    values: Vec<Value>,
    /// Counters summed over every evaluation.
    stats: Stats,
}

impl Controls {
    /// Plan the control cone of `ports` ((node, port) pairs of `graph` that signal ops
    /// read) and evaluate it once in `ctx`.
    pub(super) fn new(
        registry: &Registry,
        graph: &Graph,
        r: &Resolved,
        sig: &[bool],
        ports: &[(usize, usize)],
        ctx: &EvalContext,
    ) -> Result<Self, StreamError> {
        let mut index = BTreeMap::new();
        let mut wanted = vec![];
        for &p in ports {
            if let std::collections::btree_map::Entry::Vacant(e) = index.entry(p) {
                e.insert(wanted.len());
                wanted.push(p);
            }
        }
        let keep = control_cone(graph, r, sig, &wanted)?;
        let sub = sub_graph(graph, &keep);
        let plan =
            Plan::build(&sub, registry).map_err(|d| StreamError::Control(EvalError::Invalid(d)))?;
        let mut roots = Vec::with_capacity(wanted.len());
        let mut names = Vec::with_capacity(wanted.len());
        for &(s, p) in &wanted {
            let id = &graph.nodes()[s].id;
            let Some(n) = sub.index_of(id.as_str()) else {
                return Err(StreamError::Config(format!(
                    "internal: control node `{id}` is missing from its plan"
                )));
            };
            roots.push((n, p));
            let port = r.ops[s].spec().outputs.get(p).map_or("out", |o| &*o.name);
            names.push(format!("{id}.{port}"));
        }
        let mut engine = PullEngine::default();
        engine.adopt(&plan);
        let mut c = Controls {
            plan,
            engine,
            roots,
            request: Request::new(names),
            index,
            ctx: ctx.clone(),
            values: vec![],
            stats: Stats::default(),
        };
        c.values = c.evaluate(true).map_err(StreamError::Control)?;
        Ok(c)
    }

    fn evaluate(&mut self, planned: bool) -> Result<Vec<Value>, EvalError> {
        let out = self.engine.run_roots(
            &self.plan,
            &self.roots,
            &self.request.outputs,
            &self.request,
            &self.ctx,
            planned,
            &mut self.stats,
        )?;
        Ok(out.values.into_iter().map(|(_, v)| v).collect())
    }

    /// The control value output `port` of graph node `node` gives, if a signal op reads it.
    pub(super) fn get(&self, node: usize, port: usize) -> Option<&Value> {
        self.index.get(&(node, port)).map(|&i| &self.values[i])
    }

    /// Index of the control value of graph node `node`'s output `port`.
    pub(super) fn index_of(&self, node: usize, port: usize) -> Option<usize> {
        self.index.get(&(node, port)).copied()
    }

    /// Control value `i`.
    pub(super) fn value(&self, i: usize) -> &Value {
        &self.values[i]
    }

    /// Counters summed over every evaluation of the control values.
    pub(super) fn stats(&self) -> Stats {
        self.stats
    }

    /// Give graph input `name` the value `value` (`None`: no value, so graph input nodes
    /// fall back to their defaults) and evaluate the control values again (the memo serves
    /// those that do not depend on it). Returns the input's previous value and the indices
    /// of the values that changed, or the evaluation's error, in which case nothing changes.
    pub(super) fn set_input(
        &mut self,
        name: &str,
        value: Option<Value>,
    ) -> Result<(Option<Value>, Vec<usize>), EvalError> {
        let old = match value {
            Some(v) => self.ctx.inputs.insert(name.to_string(), v),
            None => self.ctx.inputs.remove(name),
        };
        match self.evaluate(false) {
            Ok(values) => {
                let changed = (0..values.len())
                    .filter(|&i| !same_bits(&values[i], &self.values[i]))
                    .collect();
                self.values = values;
                Ok((old, changed))
            }
            Err(e) => {
                match old {
                    Some(v) => self.ctx.inputs.insert(name.to_string(), v),
                    None => self.ctx.inputs.remove(name),
                };
                Err(e)
            }
        }
    }
}

/// Whether two control values are the same (floats by their bits).
fn same_bits(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// The nodes the control values need, which must not read a signal.
fn control_cone(
    graph: &Graph,
    r: &Resolved,
    sig: &[bool],
    ports: &[(usize, usize)],
) -> Result<Vec<bool>, StreamError> {
    let mut keep = vec![false; graph.len()];
    let mut stack: Vec<usize> = ports.iter().map(|p| p.0).collect();
    while let Some(v) = stack.pop() {
        if keep[v] {
            continue;
        }
        keep[v] = true;
        for (p, b) in r.bindings[v].iter().enumerate() {
            if let Binding::Wire { node: s, .. } = *b {
                let s = s as usize;
                if sig[s] {
                    return Err(StreamError::Node {
                        node: graph.nodes()[v].id.clone(),
                        op: graph.nodes()[v].op.clone(),
                        port: Some(format!("input `{}`", r.ops[v].spec().inputs[p].name)),
                        message: format!(
                            "reads the signal of `{}`; only signal ops take signals",
                            graph.nodes()[s].id
                        ),
                    });
                }
                stack.push(s);
            }
        }
    }
    Ok(keep)
}

/// The nodes of `graph` marked in `keep`, with their params, constants and the wires
/// between them (node order kept).
fn sub_graph(graph: &Graph, keep: &[bool]) -> Graph {
    let mut sub = Graph::new();
    for (v, node) in graph.nodes().iter().enumerate() {
        if !keep[v] {
            continue;
        }
        // Ids and ports come from a valid graph, so these cannot fail.
        let _ = sub.add_node(node.id.clone(), &node.op);
        for (k, val) in &node.params {
            let _ = sub.set_param(node.id.as_str(), k, val.clone());
        }
        for (k, val) in &node.consts {
            let _ = sub.set_const(node.id.as_str(), k, val.clone());
        }
    }
    for w in graph.wires() {
        let (Some(a), Some(b)) = (
            graph.index_of(w.from.node.as_str()),
            graph.index_of(w.to.node.as_str()),
        ) else {
            continue;
        };
        if keep[a] && keep[b] {
            sub.connect(w.from.clone(), w.to.clone());
        }
    }
    sub
}
