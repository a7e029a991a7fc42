//! Building a stream: the requested outputs, the signal cone and its control values, then
//! the node table (`table`), the order (`order`) and the sample arena.

use super::StreamingEvaluator;
use super::config::{StreamConfig, StreamError};
use super::controls::Controls;
use super::node::InSrc;
use super::order::steps;
use crate::context::EvalContext;
use crate::graph::{Graph, NodeId};
use crate::op::Op;
use crate::registry::Registry;
use crate::validate::{Binding, Resolved, resolve};
use crate::value::ValueType;
use std::collections::VecDeque;
use std::sync::Arc;

/// Whether `op` is a signal op (one with a signal output).
fn is_signal_op(op: &dyn Op) -> bool {
    op.spec().outputs.iter().any(|o| o.ty == ValueType::Signal)
}

/// A resolved graph with its signal ops marked.
pub(super) struct Cone<'g> {
    pub(super) graph: &'g Graph,
    pub(super) r: Resolved,
    /// Whether each node is a signal op.
    pub(super) sig: Vec<bool>,
}

impl Cone<'_> {
    /// The id of node `v`.
    pub(super) fn id(&self, v: usize) -> &NodeId {
        &self.graph.nodes()[v].id
    }

    /// An error naming node `v`.
    pub(super) fn node_err(&self, v: usize, port: Option<String>, message: String) -> StreamError {
        StreamError::Node {
            node: self.id(v).clone(),
            op: self.graph.nodes()[v].op.clone(),
            port,
            message,
        }
    }

    /// The signal node each requested output streams.
    fn outputs(&self, outputs: &[&str]) -> Result<Vec<usize>, StreamError> {
        let (r, sig) = (&self.r, &self.sig);
        let mut out_nodes = Vec::with_capacity(outputs.len());
        for &name in outputs {
            let found = self
                .graph
                .output_ref(name)
                .and_then(|(v, port)| Some((v, r.ops[v].spec().output_index(port)?)));
            let Some((mut v, mut port)) = found else {
                return Err(StreamError::Output {
                    output: name.into(),
                    reason: "no such node or port (use `node` or `node.port`)".into(),
                });
            };
            // A pass-through (a graph output node, say): an ordinary op whose output is typed
            // signal because its one wired input is. Stream what it passes on.
            for _ in 0..self.graph.len() {
                let through = !sig[v]
                    && r.out_types[v].get(port) == Some(&ValueType::Signal)
                    && r.ops[v].spec().outputs.len() == 1;
                let mut wires = r.bindings[v].iter().filter_map(|b| match *b {
                    Binding::Wire { node, port } => Some((node as usize, port as usize)),
                    _ => None,
                });
                match (through, wires.next(), wires.next()) {
                    (true, Some(src), None) => (v, port) = src,
                    _ => break,
                }
            }
            if !sig[v] {
                let ty = r.out_types[v].first().copied().unwrap_or(ValueType::Any);
                return Err(StreamError::Output {
                    output: name.into(),
                    reason: format!(
                        "node `{}` ({}) gives a {ty}, not a signal; only signal outputs stream",
                        self.id(v),
                        self.graph.nodes()[v].op
                    ),
                });
            }
            out_nodes.push(v);
        }
        Ok(out_nodes)
    }

    /// The (node, port) control outputs the signal cone of `out_nodes` reads.
    fn control_ports(&self, out_nodes: &[usize]) -> Result<Vec<(usize, usize)>, StreamError> {
        let (r, sig) = (&self.r, &self.sig);
        let mut in_cone = vec![false; self.graph.len()];
        let mut queue: VecDeque<usize> = VecDeque::new();
        for &v in out_nodes {
            if !in_cone[v] {
                in_cone[v] = true;
                queue.push_back(v);
            }
        }
        let mut control_ports = vec![];
        while let Some(v) = queue.pop_front() {
            let spec = r.ops[v].spec();
            for (p, b) in r.bindings[v].iter().enumerate() {
                let Binding::Wire { node: s, port } = *b else {
                    continue;
                };
                let s = s as usize;
                if !sig[s] {
                    control_ports.push((s, port as usize));
                    continue;
                }
                if spec.inputs[p].ty != ValueType::Signal {
                    return Err(self.node_err(
                        v,
                        Some(format!("input `{}`", spec.inputs[p].name)),
                        format!(
                            "takes a {}, not the signal of `{}`",
                            spec.inputs[p].ty,
                            self.id(s)
                        ),
                    ));
                }
                if !in_cone[s] {
                    in_cone[s] = true;
                    queue.push_back(s);
                }
            }
        }
        Ok(control_ports)
    }
}

impl StreamingEvaluator {
    /// Build a stream of `outputs` (each `node` or `node.port`, a signal output) of `graph`.
    pub fn new(
        registry: Registry,
        graph: &Graph,
        outputs: &[&str],
        config: StreamConfig,
    ) -> Result<Self, StreamError> {
        let mut ctx = EvalContext::new();
        ctx.seed = config.seed;
        Self::with_context(registry, graph, outputs, config, &ctx)
    }

    /// As [`new`](Self::new), evaluating control values in `ctx` (its user inputs, seed and
    /// clock; the config's seed is ignored in favour of `ctx.seed`). The graph inputs of
    /// `ctx` may change later, between blocks: see [`set_input`](Self::set_input).
    pub fn with_context(
        registry: Registry,
        graph: &Graph,
        outputs: &[&str],
        mut config: StreamConfig,
        ctx: &EvalContext,
    ) -> Result<Self, StreamError> {
        config.seed = ctx.seed;
        config.check()?;
        if outputs.is_empty() {
            return Err(StreamError::Config("no outputs requested".into()));
        }
        let r = resolve(graph, &registry).map_err(StreamError::Invalid)?;
        let sig: Vec<bool> = r.ops.iter().map(|o| is_signal_op(o.as_ref())).collect();
        let cone = Cone { graph, r, sig };
        for (v, &is_sig) in cone.sig.iter().enumerate() {
            if is_sig && cone.r.ops[v].spec().outputs.len() != 1 {
                return Err(cone.node_err(
                    v,
                    None,
                    "a signal op must have exactly one output".into(),
                ));
            }
        }
        let out_nodes = cone.outputs(outputs)?;
        let ports = cone.control_ports(&out_nodes)?;
        let controls = Controls::new(&registry, graph, &cone.r, &cone.sig, &ports, ctx)?;
        let table = cone.table(&registry, &out_nodes, &controls, &config)?;
        let mut domains = table.domains;
        let mut nodes = table.nodes;
        let order = steps(&nodes, domains.len(), config.block)?;
        for (dom, st) in domains.iter_mut().zip(order) {
            dom.steps = Arc::from(st);
        }
        // The arena: each node's block, then each constant's.
        let block = config.block;
        let const_base = nodes.len() * block;
        let slots = const_base + table.consts.len() * block;
        let mut data = crate::memory::try_filled(slots, 0.0, || {
            format!(
                "the stream's sample blocks ({} blocks of {block} samples)",
                nodes.len() + table.consts.len()
            )
        })
        .map_err(|e| StreamError::Config(e.to_string()))?;
        for (c, &x) in table.consts.iter().enumerate() {
            data[const_base + c * block..const_base + (c + 1) * block].fill(x);
        }
        let offset = |s: InSrc| match s {
            InSrc::Node(u) => u as usize * block,
            InSrc::Const(c) => const_base + c as usize * block,
        };
        for (u, node) in nodes.iter_mut().enumerate() {
            node.out_off = u * block;
            node.in_offs = node.inputs.iter().map(|&s| offset(s)).collect();
        }
        let fused = if block == 1 {
            super::fused::programs(&domains, &nodes, data.len())
        } else {
            None
        };
        let outputs = table.outputs;
        let targets = vec![0; domains.len()];
        Ok(StreamingEvaluator {
            config,
            registry,
            controls,
            nodes,
            data,
            const_base,
            domains,
            outputs,
            current: 0,
            stopped: None,
            last_len: 0,
            targets,
            fused,
        })
    }
}
