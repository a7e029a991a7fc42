//! The streaming evaluator: audio-rate signals processed in blocks.
//!
//! It runs the signal ops (ops with a [`ValueType::Signal`] output) upstream of the requested
//! outputs, one block of samples at a time. Each node's [`SignalProc`] — oscillator phase,
//! filter memory, delay line — is built and owned here, so a stream can be reset, saved and
//! restored without touching the graph, and two streams of one graph never share state.
//!
//! - **Control values.** Ordinary nodes feeding signal ops (a frequency computed by maths
//!   nodes, say) are evaluated once, when the stream is built, by a lazy evaluator; a number
//!   arriving at a signal port is a constant signal.
//! - **Order.** Nodes run in the topological order of their strongly connected components.
//!   A component with a loop (legal only through a [feedback input](crate::op::InputSpec::feedback))
//!   runs block by block when its shortest delay is at least the block size: the delaying nodes
//!   [`emit`](SignalProc::emit) a block from their state, the others process it, then the
//!   delaying nodes [`absorb`](SignalProc::absorb) their inputs. A shorter loop runs sample by
//!   sample, inside that component only; the rest of the graph stays in blocks.
//! - **Clock domains.** Upstream of a `resample` node, nodes run at the rate it names. Before
//!   each block, every such domain is run (in chunks of at most one block) as far as its
//!   resampler needs, deepest first, without recursion.
//! - **Block-size invariance.** Because every processor treats samples one after another, the
//!   output is the same, bit for bit, for every block size.
//! - **Failures.** An op's panic is caught and reported as that node's error; the stream is
//!   then stopped until [`StreamingEvaluator::reset`].

use crate::context::{CancelToken, EvalContext};
use crate::eval::{EvalError, Evaluator, LazyEvaluator, Request, panic_message};
use crate::graph::{Graph, NodeId};
use crate::op::{Op, OpError};
use crate::registry::Registry;
use crate::signal::{SignalCall, SignalProc};
use crate::validate::{Binding, Diagnostics, resolve};
use crate::value::{Value, ValueType};
use std::collections::{BTreeMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// How a stream runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamConfig {
    /// Samples per second of the graph's (outermost) clock domain.
    pub sample_rate: u32,
    /// Samples per block (at least 1).
    pub block: usize,
    /// Seed for noise sources (and the control evaluation's context).
    pub seed: u64,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            sample_rate: 48_000,
            block: 64,
            seed: 0,
        }
    }
}

/// An error of the streaming evaluator.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The graph did not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A requested output cannot be streamed.
    #[error("output `{output}`: {reason}")]
    Output {
        /// The name requested.
        output: String,
        /// Why.
        reason: String,
    },
    /// A node cannot be built or run.
    #[error("node `{node}` ({op}){}: {message}", port.as_ref().map(|p| format!(", {p}")).unwrap_or_default())]
    Node {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The port or param involved.
        port: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// Evaluating the control values that feed the signal ops failed.
    #[error("control values: {0}")]
    Control(EvalError),
    /// The render was cancelled between two blocks; the stream may continue from there.
    #[error("cancelled after {position} samples")]
    Cancelled {
        /// Samples of the outer domain produced before stopping.
        position: u64,
    },
    /// An earlier failure stopped the stream.
    #[error("the stream stopped after a failure at node `{node}`; reset it to run again")]
    Stopped {
        /// The node that failed.
        node: NodeId,
    },
    /// A snapshot does not belong to this stream.
    #[error("snapshot does not fit this stream: {0}")]
    Snapshot(String),
    /// The configuration is unusable.
    #[error("stream configuration: {0}")]
    Config(String),
}

/// Where a signal input's samples come from.
#[derive(Clone, Copy, Debug)]
enum InSrc {
    /// The output buffer of a stream node.
    Node(u32),
    /// A constant buffer.
    Const(u32),
}

struct SNode {
    id: NodeId,
    op: String,
    proc: Box<dyn SignalProc>,
    /// One per signal input port, in port order.
    inputs: Vec<InSrc>,
    /// Where those inputs' samples start in the arena.
    in_offs: Vec<usize>,
    /// Where this node's output starts in the arena.
    out_off: usize,
    latency: usize,
    domain: u32,
}

enum Step {
    /// One node over the whole run.
    Single(u32),
    /// A loop: the delaying nodes emit, the others run in order, the delaying nodes absorb.
    Loop {
        delays: Vec<u32>,
        nodes: Vec<u32>,
        per_sample: bool,
    },
}

struct Domain {
    rate: u64,
    /// Shared so a run can walk them while borrowing the evaluator mutably.
    steps: Arc<[Step]>,
    /// Samples produced so far.
    position: u64,
    /// The resample node this domain feeds (in its parent domain) and the source it reads.
    feeds: Option<(u32, InSrc)>,
}

/// The state of a stream: each domain's position and each node's processor state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSnapshot {
    ids: Vec<NodeId>,
    positions: Vec<u64>,
    states: Vec<Vec<u64>>,
}

impl StreamSnapshot {
    /// Samples of the outer domain produced when the snapshot was taken.
    pub fn position(&self) -> u64 {
        self.positions.first().copied().unwrap_or(0)
    }
}

/// Runs audio-rate signal graphs in blocks (see the module docs).
pub struct StreamingEvaluator {
    config: StreamConfig,
    nodes: Vec<SNode>,
    /// One block per node, then one per constant signal.
    data: Vec<f64>,
    /// Where the constant blocks start in `data`.
    const_base: usize,
    domains: Vec<Domain>,
    outputs: Vec<u32>,
    /// The node running now, for panic reports.
    current: u32,
    stopped: Option<NodeId>,
    /// Samples in the outputs' buffers from the last block.
    last_len: usize,
    targets: Vec<u64>,
}

impl std::fmt::Debug for StreamingEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamingEvaluator")
            .field("config", &self.config)
            .field("nodes", &self.nodes.len())
            .field("domains", &self.domains.len())
            .field("position", &self.position())
            .finish()
    }
}

fn is_signal_op(op: &dyn Op) -> bool {
    op.spec().outputs.iter().any(|o| o.ty == ValueType::Signal)
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
    /// clock; the config's seed is ignored in favour of `ctx.seed`).
    pub fn with_context(
        registry: Registry,
        graph: &Graph,
        outputs: &[&str],
        mut config: StreamConfig,
        ctx: &EvalContext,
    ) -> Result<Self, StreamError> {
        config.seed = ctx.seed;
        if config.block == 0 || config.block > 1 << 20 {
            return Err(StreamError::Config(format!(
                "block size must be 1 to 1048576 samples, found {}",
                config.block
            )));
        }
        if config.sample_rate == 0 {
            return Err(StreamError::Config(
                "sample rate must be at least 1 Hz".into(),
            ));
        }
        if outputs.is_empty() {
            return Err(StreamError::Config("no outputs requested".into()));
        }
        let r = resolve(graph, &registry).map_err(StreamError::Invalid)?;
        let ids: Vec<&NodeId> = graph.nodes().iter().map(|n| &n.id).collect();
        let n = ids.len();
        let sig: Vec<bool> = r.ops.iter().map(|o| is_signal_op(o.as_ref())).collect();
        let node_err = |v: usize, port: Option<String>, message: String| StreamError::Node {
            node: ids[v].clone(),
            op: graph.nodes()[v].op.clone(),
            port,
            message,
        };
        for (v, &is_sig) in sig.iter().enumerate() {
            if is_sig && r.ops[v].spec().outputs.len() != 1 {
                return Err(node_err(
                    v,
                    None,
                    "a signal op must have exactly one output".into(),
                ));
            }
        }

        // The requested outputs.
        let mut out_nodes = Vec::with_capacity(outputs.len());
        for &name in outputs {
            let found = graph
                .output_ref(name)
                .and_then(|(v, port)| Some((v, r.ops[v].spec().output_index(port)?)));
            let Some((mut v, port)) = found else {
                return Err(StreamError::Output {
                    output: name.into(),
                    reason: "no such node or port (use `node` or `node.port`)".into(),
                });
            };
            // A pass-through (a graph output node, say): an ordinary op whose output is typed
            // signal because its one wired input is. Stream what it passes on.
            let mut port = port;
            for _ in 0..n {
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
                        ids[v],
                        graph.nodes()[v].op
                    ),
                });
            }
            out_nodes.push(v);
        }

        // Pass 1: the signal cone, and the control values it needs.
        let mut in_cone = vec![false; n];
        let mut queue: VecDeque<usize> = VecDeque::new();
        for &v in &out_nodes {
            if !in_cone[v] {
                in_cone[v] = true;
                queue.push_back(v);
            }
        }
        let mut control_ports: Vec<(usize, usize)> = vec![];
        while let Some(v) = queue.pop_front() {
            let spec = r.ops[v].spec();
            for (p, b) in r.bindings[v].iter().enumerate() {
                let Binding::Wire { node: s, port } = *b else {
                    continue;
                };
                let s = s as usize;
                if sig[s] {
                    if spec.inputs[p].ty != ValueType::Signal {
                        return Err(node_err(
                            v,
                            Some(format!("input `{}`", spec.inputs[p].name)),
                            format!(
                                "takes a {}, not the signal of `{}`",
                                spec.inputs[p].ty, ids[s]
                            ),
                        ));
                    }
                    if !in_cone[s] {
                        in_cone[s] = true;
                        queue.push_back(s);
                    }
                } else {
                    control_ports.push((s, port as usize));
                }
            }
        }

        // Pass 2: evaluate the control values once, on the graph of control nodes only.
        let controls = Self::eval_controls(
            &registry,
            graph,
            &r.ops,
            &r.bindings,
            &sig,
            &control_ports,
            ctx,
        )?;

        // Pass 3: visit the cone from the outputs, giving each node its clock domain and
        // building its processor.
        let mut local = vec![u32::MAX; n];
        let mut nodes: Vec<SNode> = vec![];
        let mut consts: Vec<Vec<f64>> = vec![];
        let mut domains = vec![Domain {
            rate: config.sample_rate as u64,
            steps: Arc::from(vec![]),
            position: 0,
            feeds: None,
        }];
        let mut queue: VecDeque<(usize, u32)> = out_nodes.iter().map(|&v| (v, 0)).collect();
        let mut order_seen: Vec<usize> = vec![];
        while let Some((v, d)) = queue.pop_front() {
            if local[v] != u32::MAX {
                let have = nodes[local[v] as usize].domain;
                if have != d {
                    return Err(node_err(
                        v,
                        None,
                        format!(
                            "feeds two clock domains ({} Hz and {} Hz); join them through one `resample` node",
                            domains[have as usize].rate, domains[d as usize].rate
                        ),
                    ));
                }
                continue;
            }
            let op = &r.ops[v];
            let spec = op.spec();
            let mut ctl = Vec::with_capacity(spec.inputs.len());
            let mut inputs = vec![];
            for (p, b) in r.bindings[v].iter().enumerate() {
                let is_sig_port = spec.inputs[p].ty == ValueType::Signal;
                let value = match b {
                    Binding::Wire { node: s, .. } if sig[*s as usize] => Value::Empty,
                    Binding::Wire { node: s, port } => controls
                        .get(&(*s as usize, *port as usize))
                        .cloned()
                        .unwrap_or(Value::Empty),
                    Binding::Const(c) => c.clone(),
                    Binding::Empty => Value::Empty,
                };
                if is_sig_port {
                    match b {
                        Binding::Wire { node: s, .. } if sig[*s as usize] => {
                            // Filled in once the source has a local index.
                            inputs.push(InSrc::Node(*s));
                        }
                        _ => {
                            let Some(c) = value.as_f64() else {
                                return Err(node_err(
                                    v,
                                    Some(format!("input `{}`", spec.inputs[p].name)),
                                    format!(
                                        "a signal input needs a signal or a number, found {}",
                                        value.type_name()
                                    ),
                                ));
                            };
                            inputs.push(InSrc::Const(consts.len() as u32));
                            consts.push(vec![c; config.block]);
                        }
                    }
                }
                ctl.push(value);
            }
            let rate = domains[d as usize].rate;
            let call = SignalCall {
                node: ids[v].as_str(),
                params: &r.params[v],
                controls: &ctl,
                sample_rate: rate as f64,
                seed: config.seed,
            };
            let built = catch_unwind(AssertUnwindSafe(|| op.signal(&call)))
                .map_err(|p| node_err(v, None, format!("panicked: {}", panic_message(&*p))))?;
            let mut proc = built.map_err(|e: OpError| {
                node_err(v, e.port.map(|p| op.spec().port_name(p)), e.message.clone())
            })?;
            let latency = proc.latency();
            let has_feedback = spec.inputs.iter().any(|i| i.feedback);
            if has_feedback && latency == 0 {
                return Err(node_err(
                    v,
                    None,
                    "has a feedback input but reports no latency (it must delay by at least one sample)"
                        .into(),
                ));
            }
            // The domain upstream of this node: a resampler starts a new one.
            let up = match proc.resampler() {
                Some(rs) => {
                    let id = domains.len() as u32;
                    domains.push(Domain {
                        rate: rs.source_rate(),
                        steps: Arc::from(vec![]),
                        position: 0,
                        feeds: None,
                    });
                    id
                }
                None => d,
            };
            let li = nodes.len() as u32;
            local[v] = li;
            order_seen.push(v);
            nodes.push(SNode {
                id: ids[v].clone(),
                op: graph.nodes()[v].op.clone(),
                proc,
                inputs,
                in_offs: vec![],
                out_off: 0,
                latency,
                domain: d,
            });
            for b in r.bindings[v].iter() {
                if let Binding::Wire { node: s, .. } = *b
                    && sig[s as usize]
                {
                    queue.push_back((s as usize, up));
                }
            }
            if up != d {
                // The resampler's input source, in the new domain.
                let src = r.bindings[v]
                    .iter()
                    .zip(&spec.inputs)
                    .find(|(_, i)| i.ty == ValueType::Signal)
                    .map(|(b, _)| b);
                let feeds = match src {
                    Some(Binding::Wire { node: s, .. }) if sig[*s as usize] => InSrc::Node(*s),
                    _ => nodes[li as usize]
                        .inputs
                        .first()
                        .copied()
                        .unwrap_or(InSrc::Const(u32::MAX)),
                };
                domains[up as usize].feeds = Some((li, feeds));
            }
        }
        // Wired inputs and resampler sources now point at local indices.
        let to_local = |s: InSrc| match s {
            InSrc::Node(g) => InSrc::Node(local[g as usize]),
            c => c,
        };
        for node in &mut nodes {
            for i in node.inputs.iter_mut() {
                *i = to_local(*i);
            }
        }
        for dom in &mut domains {
            if let Some((rn, src)) = dom.feeds {
                let src = match src {
                    InSrc::Const(u32::MAX) => {
                        consts.push(vec![0.0; config.block]);
                        InSrc::Const(consts.len() as u32 - 1)
                    }
                    s => to_local(s),
                };
                dom.feeds = Some((rn, src));
            }
        }

        // Order: strongly connected components of the cone, in topological order.
        let m = nodes.len();
        let mut edges = vec![];
        for (u, node) in nodes.iter().enumerate() {
            for s in &node.inputs {
                if let InSrc::Node(s) = *s {
                    edges.push((s, u as u32));
                }
            }
        }
        let topo = crate::analysis::Topology::from_edges(m, &edges);
        let sccs = topo.sccs();
        let mut comp = vec![0u32; m];
        for (c, members) in sccs.iter().enumerate() {
            for &u in members {
                comp[u as usize] = c as u32;
            }
        }
        let cedges: Vec<(u32, u32)> = edges
            .iter()
            .filter(|(a, b)| comp[*a as usize] != comp[*b as usize])
            .map(|(a, b)| (comp[*a as usize], comp[*b as usize]))
            .collect();
        let corder = crate::analysis::Topology::from_edges(sccs.len(), &cedges)
            .topo_order()
            .map_err(|_| StreamError::Config("internal: components do not order".into()))?;
        let mut steps: Vec<Vec<Step>> = (0..domains.len()).map(|_| vec![]).collect();
        for c in corder {
            let members = &sccs[c as usize];
            let cyclic = members.len() > 1 || {
                let u = members[0];
                nodes[u as usize]
                    .inputs
                    .iter()
                    .any(|s| matches!(s, InSrc::Node(x) if *x == u))
            };
            let d = nodes[members[0] as usize].domain;
            if !cyclic {
                steps[d as usize].push(Step::Single(members[0]));
                continue;
            }
            let delays: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&u| nodes[u as usize].latency > 0)
                .collect();
            if delays.is_empty() {
                let g = &nodes[members[0] as usize];
                return Err(StreamError::Node {
                    node: g.id.clone(),
                    op: g.op.clone(),
                    port: None,
                    message: "is on a loop without a delaying node".into(),
                });
            }
            // The rest in order, with the delaying nodes' inputs cut.
            let rest: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&u| nodes[u as usize].latency == 0)
                .collect();
            let mut pos = vec![u32::MAX; m];
            for (i, &u) in rest.iter().enumerate() {
                pos[u as usize] = i as u32;
            }
            let mut redges = vec![];
            for (i, &u) in rest.iter().enumerate() {
                for s in &nodes[u as usize].inputs {
                    if let InSrc::Node(s) = *s
                        && pos[s as usize] != u32::MAX
                    {
                        redges.push((pos[s as usize], i as u32));
                    }
                }
            }
            let rorder = crate::analysis::Topology::from_edges(rest.len(), &redges)
                .topo_order()
                .map_err(|_| {
                    let g = &nodes[rest[0] as usize];
                    StreamError::Node {
                        node: g.id.clone(),
                        op: g.op.clone(),
                        port: None,
                        message: "is on a loop without a delaying node".into(),
                    }
                })?;
            let loop_latency = delays
                .iter()
                .map(|&u| nodes[u as usize].latency)
                .min()
                .unwrap_or(1);
            steps[d as usize].push(Step::Loop {
                delays,
                nodes: rorder.iter().map(|&i| rest[i as usize]).collect(),
                per_sample: loop_latency < config.block,
            });
        }

        for (dom, st) in domains.iter_mut().zip(steps) {
            dom.steps = Arc::from(st);
        }
        // The arena: each node's block, then each constant's.
        let block = config.block;
        let const_base = m * block;
        let mut data = vec![0.0; const_base + consts.len() * block];
        for (c, vals) in consts.iter().enumerate() {
            data[const_base + c * block..const_base + (c + 1) * block].copy_from_slice(vals);
        }
        let offset = |s: InSrc| match s {
            InSrc::Node(u) => u as usize * block,
            InSrc::Const(c) => const_base + c as usize * block,
        };
        for (u, node) in nodes.iter_mut().enumerate() {
            node.out_off = u * block;
            node.in_offs = node.inputs.iter().map(|&s| offset(s)).collect();
        }
        let outputs = out_nodes.iter().map(|&v| local[v]).collect();
        let targets = vec![0; domains.len()];
        Ok(StreamingEvaluator {
            config,
            nodes,
            data,
            const_base,
            domains,
            outputs,
            current: 0,
            stopped: None,
            last_len: 0,
            targets,
        })
    }

    fn eval_controls(
        registry: &Registry,
        graph: &Graph,
        ops: &[Arc<dyn Op>],
        bindings: &[Vec<Binding>],
        sig: &[bool],
        ports: &[(usize, usize)],
        ctx: &EvalContext,
    ) -> Result<BTreeMap<(usize, usize), Value>, StreamError> {
        let mut out = BTreeMap::new();
        if ports.is_empty() {
            return Ok(out);
        }
        // The control cone, which must not read a signal.
        let n = graph.len();
        let mut keep = vec![false; n];
        let mut stack: Vec<usize> = ports.iter().map(|p| p.0).collect();
        while let Some(v) = stack.pop() {
            if keep[v] {
                continue;
            }
            keep[v] = true;
            for (p, b) in bindings[v].iter().enumerate() {
                if let Binding::Wire { node: s, .. } = *b {
                    let s = s as usize;
                    if sig[s] {
                        return Err(StreamError::Node {
                            node: graph.nodes()[v].id.clone(),
                            op: graph.nodes()[v].op.clone(),
                            port: Some(format!("input `{}`", ops[v].spec().inputs[p].name)),
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
        let mut sub = Graph::new();
        for (v, node) in graph.nodes().iter().enumerate() {
            if !keep[v] {
                continue;
            }
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
        let names: Vec<String> = ports
            .iter()
            .map(|&(s, p)| {
                let spec = ops[s].spec();
                format!(
                    "{}.{}",
                    graph.nodes()[s].id,
                    spec.outputs.get(p).map(|o| &*o.name).unwrap_or("out")
                )
            })
            .collect();
        let mut lazy = LazyEvaluator::new(registry.clone());
        let res = lazy
            .evaluate(&sub, &Request::new(names.iter().cloned()), ctx)
            .map_err(StreamError::Control)?;
        for (&(s, p), name) in ports.iter().zip(&names) {
            if let Some(v) = res.get(name) {
                out.insert((s, p), v.clone());
            }
        }
        Ok(out)
    }

    /// The configuration.
    pub fn config(&self) -> StreamConfig {
        self.config
    }

    /// Samples of the outer domain produced so far.
    pub fn position(&self) -> u64 {
        self.domains[0].position
    }

    /// Number of nodes the stream runs.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of clock domains (1 without `resample` nodes).
    pub fn domain_count(&self) -> usize {
        self.domains.len()
    }

    /// The samples of output `i` from the last block (empty before the first).
    pub fn output(&self, i: usize) -> &[f64] {
        match self.outputs.get(i) {
            Some(&u) => {
                let off = self.nodes[u as usize].out_off;
                &self.data[off..off + self.last_len]
            }
            None => &[],
        }
    }

    /// Process one block of [`StreamConfig::block`] samples; read it with
    /// [`output`](Self::output).
    pub fn process_block(&mut self) -> Result<(), StreamError> {
        self.process(self.config.block)
    }

    /// Process `n` samples (1 to the block size).
    pub fn process(&mut self, n: usize) -> Result<(), StreamError> {
        if let Some(node) = &self.stopped {
            return Err(StreamError::Stopped { node: node.clone() });
        }
        let n = n.clamp(1, self.config.block);
        let run = catch_unwind(AssertUnwindSafe(|| self.run_all(n)));
        if let Err(p) = run {
            let node = &self.nodes[self.current as usize];
            self.stopped = Some(node.id.clone());
            self.last_len = 0;
            return Err(StreamError::Node {
                node: node.id.clone(),
                op: node.op.clone(),
                port: None,
                message: format!("panicked: {}", panic_message(&*p)),
            });
        }
        self.last_len = n;
        Ok(())
    }

    /// Render `samples` more samples of every output, from the current position.
    pub fn render(&mut self, samples: u64) -> Result<Vec<Vec<f64>>, StreamError> {
        self.render_with(samples, None, &mut |_, _| {})
    }

    /// As [`render`](Self::render), checking `cancel` between blocks and reporting
    /// `(done, total)` samples to `progress` after each block.
    pub fn render_with(
        &mut self,
        samples: u64,
        cancel: Option<&CancelToken>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<Vec<f64>>, StreamError> {
        let cap = usize::try_from(samples).unwrap_or(usize::MAX).min(1 << 24);
        let mut out: Vec<Vec<f64>> = (0..self.outputs.len())
            .map(|_| Vec::with_capacity(cap))
            .collect();
        let mut done = 0u64;
        while done < samples {
            if cancel.is_some_and(|c| c.is_cancelled()) {
                // Between blocks the state is whole: the stream may go on later.
                return Err(StreamError::Cancelled {
                    position: self.position(),
                });
            }
            let n = (samples - done).min(self.config.block as u64) as usize;
            self.process(n)?;
            for (i, o) in out.iter_mut().enumerate() {
                o.extend_from_slice(self.output(i));
            }
            done += n as u64;
            progress(done, samples);
        }
        Ok(out)
    }

    /// Return every processor and position to the start.
    pub fn reset(&mut self) {
        for node in &mut self.nodes {
            node.proc.reset();
        }
        for d in &mut self.domains {
            d.position = 0;
        }
        self.clear_buffers();
        self.stopped = None;
        self.last_len = 0;
    }

    /// Zero every buffer at full size (a panic may have left one taken).
    fn clear_buffers(&mut self) {
        self.data[..self.const_base].fill(0.0);
    }

    /// The stream's state, to [`restore`](Self::restore) later (in this stream or another
    /// built from the same graph).
    pub fn snapshot(&self) -> StreamSnapshot {
        StreamSnapshot {
            ids: self.nodes.iter().map(|n| n.id.clone()).collect(),
            positions: self.domains.iter().map(|d| d.position).collect(),
            states: self
                .nodes
                .iter()
                .map(|n| {
                    let mut w = vec![];
                    n.proc.save(&mut w);
                    w
                })
                .collect(),
        }
    }

    /// Go back (or forward) to a state taken with [`snapshot`](Self::snapshot).
    pub fn restore(&mut self, snap: &StreamSnapshot) -> Result<(), StreamError> {
        let ids: Vec<&NodeId> = self.nodes.iter().map(|n| &n.id).collect();
        if snap.ids.iter().collect::<Vec<_>>() != ids || snap.positions.len() != self.domains.len()
        {
            return Err(StreamError::Snapshot(
                "it was taken from a stream of other nodes".into(),
            ));
        }
        for (node, words) in self.nodes.iter_mut().zip(&snap.states) {
            node.proc.load(words).map_err(|m| StreamError::Node {
                node: node.id.clone(),
                op: node.op.clone(),
                port: None,
                message: format!("state does not load: {m}"),
            })?;
        }
        for (d, &p) in self.domains.iter_mut().zip(&snap.positions) {
            d.position = p;
        }
        self.clear_buffers();
        self.stopped = None;
        self.last_len = 0;
        Ok(())
    }

    /// Run `n` samples of the outer domain, after running every inner domain as far as it is
    /// needed (deepest first).
    fn run_all(&mut self, n: usize) {
        let nd = self.domains.len();
        if nd > 1 {
            self.targets[0] = self.domains[0].position + n as u64;
            // Parents are created before their children, so index order is top-down.
            for d in 1..nd {
                if let Some((rn, _)) = self.domains[d].feeds {
                    let parent = self.nodes[rn as usize].domain as usize;
                    let t = self.targets[parent];
                    let need = self.nodes[rn as usize]
                        .proc
                        .resampler()
                        .map_or(0, |r| r.need(t));
                    self.targets[d] = need;
                }
            }
            for d in (1..nd).rev() {
                while self.domains[d].position < self.targets[d] {
                    let k = (self.targets[d] - self.domains[d].position)
                        .min(self.config.block as u64) as usize;
                    self.run_domain(d, k);
                }
            }
        }
        self.run_domain(0, n);
    }

    fn run_domain(&mut self, d: usize, n: usize) {
        let steps = Arc::clone(&self.domains[d].steps);
        for step in steps.iter() {
            match step {
                Step::Single(u) => self.run_node(*u, 0, n),
                Step::Loop {
                    delays,
                    nodes,
                    per_sample,
                } => {
                    if *per_sample {
                        for i in 0..n {
                            self.run_loop(delays, nodes, i, 1);
                        }
                    } else {
                        self.run_loop(delays, nodes, 0, n);
                    }
                }
            }
        }
        if let Some((rn, src)) = self.domains[d].feeds {
            let off = match src {
                InSrc::Node(u) => self.nodes[u as usize].out_off,
                InSrc::Const(c) => self.const_base + c as usize * self.config.block,
            };
            let samples = &self.data[off..off + n];
            self.current = rn;
            if let Some(r) = self.nodes[rn as usize].proc.resampler() {
                r.push(samples);
            }
        }
        self.domains[d].position += n as u64;
    }

    fn run_loop(&mut self, delays: &[u32], nodes: &[u32], at: usize, len: usize) {
        for &u in delays {
            self.current = u;
            let node = &mut self.nodes[u as usize];
            let off = node.out_off + at;
            node.proc.emit(&mut self.data[off..off + len]);
        }
        for &u in nodes {
            self.run_node(u, at, len);
        }
        for &u in delays {
            self.current = u;
            let node = &mut self.nodes[u as usize];
            let total = self.data.len();
            with_inputs(&node.in_offs, self.data.as_ptr(), total, at, len, |ins| {
                node.proc.absorb(ins)
            });
        }
    }

    #[inline]
    fn run_node(&mut self, u: u32, at: usize, len: usize) {
        self.current = u;
        let node = &mut self.nodes[u as usize];
        let start = node.out_off + at;
        assert!(start + len <= self.data.len());
        // The output block is never one of the node's own inputs (a node that reads itself
        // is on a loop, and loops' delaying nodes go through emit/absorb instead), so the
        // output range and the input ranges are disjoint.
        debug_assert!(node.in_offs.iter().all(|&o| o != node.out_off));
        let total = self.data.len();
        let base = self.data.as_mut_ptr();
        // SAFETY: `start + len` is within the arena (checked above), and the input slices
        // `with_inputs` builds from `base` are within it too (checked there) and never
        // overlap `[start, start + len)` (see above), so no shared and mutable borrows alias.
        let out = unsafe { std::slice::from_raw_parts_mut(base.add(start), len) };
        with_inputs(&node.in_offs, base, total, at, len, |ins| {
            node.proc.process(ins, out)
        });
    }
}

/// Call `f` with the input slices `[off + at, off + at + len)` of the arena at `base` (of
/// `total` samples), without allocating for up to 16 inputs. Each slice is made on its own
/// from the raw pointer, so a caller may hold a disjoint mutable slice of the same arena.
#[inline]
fn with_inputs<'a, R>(
    offs: &[usize],
    base: *const f64,
    total: usize,
    at: usize,
    len: usize,
    f: impl FnOnce(&[&'a [f64]]) -> R,
) -> R {
    let get = |o: usize| -> &'a [f64] {
        assert!(o + at + len <= total);
        // SAFETY: in bounds (checked above); the caller guarantees nothing writes this range
        // while `f` runs.
        unsafe { std::slice::from_raw_parts(base.add(o + at), len) }
    };
    match *offs {
        [] => f(&[]),
        [a] => f(&[get(a)]),
        [a, b] => f(&[get(a), get(b)]),
        [a, b, c] => f(&[get(a), get(b), get(c)]),
        _ if offs.len() <= 16 => {
            let mut arr: [&[f64]; 16] = [&[]; 16];
            for (slot, &o) in arr.iter_mut().zip(offs) {
                *slot = get(o);
            }
            f(&arr[..offs.len()])
        }
        _ => {
            let v: Vec<&[f64]> = offs.iter().map(|&o| get(o)).collect();
            f(&v)
        }
    }
}
