//! The node table: the signal cone visited from the outputs, each node given its clock
//! domain, its inputs' sources and its processor.

use super::build::Cone;
use super::config::{StreamConfig, StreamError};
use super::controls::Controls;
use super::node::{Domain, InSrc, SNode};
use crate::eval::runner::op_call::panic_message;
use crate::graph::NodeId;
use crate::op::OpError;
use crate::registry::Registry;
use crate::signal::{SignalCall, SignalProc};
use crate::validate::Binding;
use crate::value::{Value, ValueType};
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// What the visit builds.
pub(super) struct Table {
    pub(super) nodes: Vec<SNode>,
    /// The value of each constant signal.
    pub(super) consts: Vec<f64>,
    pub(super) domains: Vec<Domain>,
    /// The stream node of each requested output.
    pub(super) outputs: Vec<u32>,
}

/// What building a processor needs to know of its node.
pub(super) struct ProcSite<'a> {
    pub(super) id: &'a NodeId,
    pub(super) op: &'a str,
    pub(super) params: &'a [Value],
    pub(super) controls: &'a [Value],
    pub(super) sample_rate: f64,
    pub(super) seed: u64,
}

/// Build the processor of a node, with its panic caught and its errors naming it.
pub(super) fn build_processor(
    registry: &Registry,
    site: &ProcSite<'_>,
) -> Result<Box<dyn SignalProc>, StreamError> {
    let err = |port: Option<String>, message: String| StreamError::Node {
        node: site.id.clone(),
        op: site.op.to_string(),
        port,
        message,
    };
    let call = SignalCall {
        node: site.id.as_str(),
        params: site.params,
        controls: site.controls,
        sample_rate: site.sample_rate,
        seed: site.seed,
    };
    let Some(op) = registry.signal(site.op) else {
        return Err(err(
            None,
            format!("op `{}` has no audio-rate form", site.op),
        ));
    };
    // Every signal op's rules, whether or not its `build` checks them too.
    call.check_rules(op.spec())
        .map_err(|e| err(e.port.map(|p| op.spec().port_name(p)), e.message))?;
    let built = catch_unwind(AssertUnwindSafe(|| op.build(&call)))
        .map_err(|p| err(None, format!("panicked: {}", panic_message(&*p))))?;
    built.map_err(|e: OpError| err(e.port.map(|p| op.spec().port_name(p)), e.message))
}

impl Cone<'_> {
    /// Visit the cone from `out_nodes`, giving each node its clock domain and building its
    /// processor.
    pub(super) fn table(
        &self,
        registry: &Registry,
        out_nodes: &[usize],
        controls: &Controls,
        config: &StreamConfig,
    ) -> Result<Table, StreamError> {
        let (r, sig) = (&self.r, &self.sig);
        let mut local = vec![u32::MAX; self.graph.len()];
        let mut nodes: Vec<SNode> = vec![];
        let mut consts: Vec<f64> = vec![];
        let mut domains = vec![Domain {
            rate: config.sample_rate as u64,
            steps: Arc::from(vec![]),
            position: 0,
            feeds: None,
        }];
        let mut queue: VecDeque<(usize, u32)> = out_nodes.iter().map(|&v| (v, 0)).collect();
        while let Some((v, d)) = queue.pop_front() {
            if local[v] != u32::MAX {
                let have = nodes[local[v] as usize].domain;
                if have != d {
                    return Err(self.node_err(
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
            let n_in = spec.inputs.len();
            // A signal op builds its processor from its params: a param wired from a value
            // cooked at run time (see `crate::op::param_ports`) has no processor to reach.
            if let Some(sop) = registry.signal(&spec.id)
                && let Some(extra) = spec.inputs.get(sop.spec().inputs.len())
            {
                return Err(self.node_err(
                    v,
                    Some(format!("param `{}`", extra.name)),
                    "is wired from a cooked value; a streamed signal op takes its params as \
                     constants (give it a constant or a graph input)"
                        .into(),
                ));
            }
            let mut ctl = Vec::with_capacity(n_in);
            let mut control_of = vec![None; n_in];
            let mut const_of = vec![None; n_in];
            let mut inputs = vec![];
            for (p, b) in r.bindings[v].iter().enumerate() {
                let value = match b {
                    Binding::Wire { node: s, .. } if sig[*s as usize] => {
                        // Made local once the source has a local index.
                        if spec.inputs[p].ty == ValueType::Signal {
                            inputs.push(InSrc::Node(*s));
                        }
                        ctl.push(Value::Empty);
                        continue;
                    }
                    Binding::Wire { node: s, port } => {
                        let (s, port) = (*s as usize, *port as usize);
                        control_of[p] = controls.index_of(s, port);
                        controls.get(s, port).cloned().unwrap_or(Value::Empty)
                    }
                    Binding::Const(c) => c.clone(),
                    Binding::Empty => Value::Empty,
                };
                if spec.inputs[p].ty == ValueType::Signal {
                    let c = constant_signal(&value).map_err(|m| {
                        self.node_err(v, Some(format!("input `{}`", spec.inputs[p].name)), m)
                    })?;
                    const_of[p] = Some(consts.len() as u32);
                    inputs.push(InSrc::Const(consts.len() as u32));
                    consts.push(c);
                }
                ctl.push(value);
            }
            let site = ProcSite {
                id: self.id(v),
                op: &spec.id,
                params: &r.params[v],
                controls: &ctl,
                sample_rate: domains[d as usize].rate as f64,
                seed: config.seed,
            };
            let mut proc = build_processor(registry, &site)?;
            let latency = proc.latency();
            if spec.inputs.iter().any(|i| i.feedback) && latency == 0 {
                return Err(self.node_err(
                    v,
                    None,
                    "has a feedback input but reports no latency (it must delay by at least one sample)"
                        .into(),
                ));
            }
            // The domain upstream of this node: a resampler starts a new one.
            let up = match proc.resampler() {
                Some(rs) => {
                    domains.push(Domain {
                        rate: rs.source_rate(),
                        steps: Arc::from(vec![]),
                        position: 0,
                        feeds: None,
                    });
                    domains.len() as u32 - 1
                }
                None => d,
            };
            let li = nodes.len() as u32;
            local[v] = li;
            for b in r.bindings[v].iter() {
                if let Binding::Wire { node: s, .. } = *b
                    && sig[s as usize]
                {
                    queue.push_back((s as usize, up));
                }
            }
            if up != d {
                // The resampler's input source, in the new domain.
                let feeds = match inputs.first() {
                    Some(&s) => s,
                    None => {
                        consts.push(0.0);
                        InSrc::Const(consts.len() as u32 - 1)
                    }
                };
                domains[up as usize].feeds = Some((li, feeds));
            }
            nodes.push(SNode {
                id: self.id(v).clone(),
                op: self.graph.nodes()[v].op.clone(),
                params: r.params[v].clone(),
                proc,
                controls: ctl,
                control_of,
                const_of,
                inputs,
                in_offs: vec![],
                out_off: 0,
                latency,
                domain: d,
            });
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
                dom.feeds = Some((rn, to_local(src)));
            }
        }
        let outputs = out_nodes.iter().map(|&v| local[v]).collect();
        Ok(Table {
            nodes,
            consts,
            domains,
            outputs,
        })
    }
}

/// The sample value of a number arriving at a signal input, or why it cannot be one.
pub(super) fn constant_signal(value: &Value) -> Result<f64, String> {
    value.as_f64().ok_or_else(|| {
        format!(
            "a signal input needs a signal or a number, found {}",
            value.type_name()
        )
    })
}
