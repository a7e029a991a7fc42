//! Plans: a validated graph resolved into dense arrays that every evaluator shares — ops,
//! params, input sources, output slots, the topological order, each node's determinism
//! class and its static key material.

use crate::analysis::Topology;
use crate::context::EvalContext;
use crate::graph::{Graph, NodeId, Revision};
use crate::key::{Key, KeyHasher};
use crate::op::{Op, OpError, Purity, rule};
use crate::registry::Registry;
use crate::validate::{Binding, Checked, Diagnostics, check_for_plan};
use crate::value::{Value, ValueType};
use std::sync::{Arc, OnceLock};

/// Where an input's value comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Output `port` of node `node` (dense indices).
    Wire {
        /// Source node index.
        node: u32,
        /// Source output port index.
        port: u16,
    },
    /// A constant (inline in the graph, or the port's default).
    Const(Value),
    /// Nothing: an optional input without default.
    Empty,
}

/// A node's determinism class, propagated down the graph: a node is as variable as the most
/// variable thing it reads or depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Depends on params and constants only: its key is fixed for the plan's lifetime.
    Static,
    /// Depends on the context (clock, seed, graph inputs): its key is recomputed per request.
    Context,
    /// Depends on state or side effects: executed on every request, never memoized.
    Volatile,
}

/// A plan: the shared, validated, index-resolved form of a graph.
pub struct Plan {
    revision: Revision,
    ids: Vec<NodeId>,
    ops: Vec<Arc<dyn Op>>,
    params: Vec<Box<[Value]>>,
    inputs: Vec<Box<[Source]>>,
    out_offset: Vec<u32>,
    out_types: Vec<Vec<ValueType>>,
    class: Vec<Class>,
    partial: Vec<Key>,
    static_key: OnceLock<Vec<Key>>,
    lazy: Vec<bool>,
    catches: Vec<bool>,
    /// Whether a node's op has rules (see [`Plan::check_rules`]).
    ruled: Vec<bool>,
    /// The first param of a node that breaks its op's rules.
    param_fault: Vec<Option<OpError>>,
    topo: Topology,
    order: Vec<u32>,
    latches: Vec<LatchInfo>,
}

/// A latch of the plan and where its inputs come from (they are not dependencies within a
/// tick; see [`crate::recurrence`]).
#[derive(Clone, Debug)]
pub struct LatchInfo {
    /// The latch node.
    pub node: u32,
    /// Its seed.
    pub init: Source,
    /// What it captures for the next tick.
    pub signal: Source,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("nodes", &self.ids.len())
            .field("revision", &self.revision)
            .finish()
    }
}

impl Plan {
    /// Validate `graph` and build its plan, or return every diagnostic. This is
    /// [`Plan::from_checked`] of the strict check a plan needs: one source per input, every
    /// wire's type accepted as it is, no loop within a tick. An op's rules are not checked
    /// here: the evaluators apply them before a node runs (see [`Plan::check_rules`]).
    pub fn build(graph: &Graph, registry: &Registry) -> Result<Plan, Diagnostics> {
        Plan::from_checked(check_for_plan(graph, registry)?)
    }

    /// The plan of a graph [`check`](crate::validate::check) found valid, made without
    /// resolving the graph again; it serves the revision that was checked. Refused with the
    /// diagnostics [`Plan::build`] reports when the graph is valid but no tick plan
    /// ([`Checked::plan_refusal`]): a form only `kiln_lower` writes out, or a loop through an
    /// audio feedback input.
    pub fn from_checked(checked: Checked) -> Result<Plan, Diagnostics> {
        let (revision, ids, r, refusal) = checked.into_parts();
        if !refusal.is_empty() {
            return Err(Diagnostics(refusal));
        }
        let n = ids.len();
        let mut inputs: Vec<Box<[Source]>> = r
            .bindings
            .into_iter()
            .map(|b| {
                b.into_iter()
                    .map(|b| match b {
                        Binding::Wire { node, port } => Source::Wire { node, port },
                        Binding::Const(v) => Source::Const(v),
                        Binding::Empty => Source::Empty,
                    })
                    .collect()
            })
            .collect();
        // A latch's inputs are not read within a tick: the recurrent driver evaluates them
        // (init at the start, signal after each tick) and the latch outputs the stored state.
        let mut latches = vec![];
        for (v, op) in r.ops.iter().enumerate() {
            if op.spec().delay {
                let taken = std::mem::replace(
                    &mut inputs[v],
                    vec![Source::Empty; op.spec().inputs.len()].into_boxed_slice(),
                );
                let mut it = taken.into_vec().into_iter();
                latches.push(LatchInfo {
                    node: v as u32,
                    init: it.next().unwrap_or(Source::Empty),
                    signal: it.next().unwrap_or(Source::Empty),
                });
            }
        }
        let mut out_offset = Vec::with_capacity(n + 1);
        let mut acc = 0u32;
        for op in &r.ops {
            out_offset.push(acc);
            acc += op.spec().outputs.len() as u32;
        }
        out_offset.push(acc);
        let params: Vec<Box<[Value]>> = r.params.into_iter().map(Vec::into_boxed_slice).collect();

        let mut class = vec![Class::Static; n];
        let mut partial = vec![Key::default(); n];
        for &v in &r.order {
            let v = v as usize;
            let mut c = match r.ops[v].spec().purity {
                Purity::Pure => Class::Static,
                Purity::Clock | Purity::UserInput => Class::Context,
                Purity::Stateful | Purity::SideEffect => Class::Volatile,
            };
            for s in inputs[v].iter() {
                if let Source::Wire { node, .. } = s {
                    c = c.max(class[*node as usize]);
                }
            }
            class[v] = c;
            partial[v] = partial_key(r.ops[v].as_ref(), &params[v], &inputs[v]);
        }
        let lazy = r.ops.iter().map(|o| o.spec().has_lazy_inputs()).collect();
        let catches = r
            .ops
            .iter()
            .map(|o| o.spec().inputs.iter().any(|i| i.catches_errors))
            .collect();
        let ruled = r.ops.iter().map(|o| rule::has_rules(o.spec())).collect();
        let param_fault = r
            .ops
            .iter()
            .zip(&params)
            .map(|(o, p)| param_fault(o.as_ref(), p))
            .collect();
        Ok(Plan {
            revision,
            ids,
            ops: r.ops,
            params,
            inputs,
            out_offset,
            out_types: r.out_types,
            class,
            partial,
            static_key: OnceLock::new(),
            lazy,
            catches,
            ruled,
            param_fault,
            topo: r.topo,
            order: r.order,
            latches,
        })
    }

    /// The graph revision this plan was built from.
    pub fn revision(&self) -> Revision {
        self.revision
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    /// Whether the plan has no nodes.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    /// A node's id.
    pub fn id(&self, n: usize) -> &NodeId {
        &self.ids[n]
    }
    /// A node's op.
    pub fn op(&self, n: usize) -> &Arc<dyn Op> {
        &self.ops[n]
    }
    /// A node's params, in the op's declared order.
    pub fn params(&self, n: usize) -> &[Value] {
        &self.params[n]
    }
    /// A node's input sources, in the op's declared order.
    pub fn inputs(&self, n: usize) -> &[Source] {
        &self.inputs[n]
    }
    /// Number of outputs of a node.
    pub fn n_outputs(&self, n: usize) -> usize {
        (self.out_offset[n + 1] - self.out_offset[n]) as usize
    }
    /// Index of a node's first output in a flat array of every output.
    pub fn output_offset(&self, n: usize) -> usize {
        self.out_offset[n] as usize
    }
    /// Total outputs over all nodes.
    pub fn total_outputs(&self) -> usize {
        *self.out_offset.last().unwrap_or(&0) as usize
    }
    /// Inferred output types of a node.
    pub fn output_types(&self, n: usize) -> &[ValueType] {
        &self.out_types[n]
    }
    /// A node's determinism class.
    pub fn class(&self, n: usize) -> Class {
        self.class[n]
    }
    /// Whether the node's op has lazy inputs.
    pub fn is_lazy(&self, n: usize) -> bool {
        self.lazy[n]
    }
    /// The latches, in node order.
    pub fn latches(&self) -> &[LatchInfo] {
        &self.latches
    }
    /// The wire topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }
    /// A topological order of every node.
    pub fn order(&self) -> &[u32] {
        &self.order
    }
    /// Whether some input of the node's op sees error values itself.
    pub fn catches_errors(&self, n: usize) -> bool {
        self.catches[n]
    }
    /// Whether node `n`'s op declares rules for its params or inputs (see
    /// [`crate::op::rule`]).
    #[inline]
    pub fn has_rules(&self, n: usize) -> bool {
        self.ruled[n]
    }
    /// Check node `n` against its op's rules before it runs on `inputs`: its params (checked
    /// once, when the plan took them) and its input values. The error names the port.
    pub fn check_rules(&self, n: usize, inputs: &[Value]) -> Result<(), OpError> {
        if let Some(e) = &self.param_fault[n] {
            return Err(e.clone());
        }
        rule::check_inputs(self.ops[n].spec(), inputs, &rule::RuleEnv::default())
    }
    /// The fixed key of a [`Class::Static`] node.
    #[inline]
    pub fn static_key(&self, n: usize) -> Key {
        self.static_key_of(n)
    }
    /// Approximate bytes the plan holds: its per-node arrays, sources and params.
    pub fn approx_bytes(&self) -> usize {
        let n = self.ids.len();
        let sources: usize = self.inputs.iter().map(|i| i.len()).sum();
        let params: usize = self
            .params
            .iter()
            .flat_map(|p| p.iter())
            .map(|v| std::mem::size_of::<Value>() + v.byte_size())
            .sum();
        n * (std::mem::size_of::<NodeId>() + 64) + sources * std::mem::size_of::<Source>() + params
    }
    /// The key of node `n`'s own definition: op id and version, params and constant inputs
    /// (not what its wires carry).
    pub fn definition_key(&self, n: usize) -> Key {
        self.partial[n]
    }
    #[inline]
    fn static_key_of(&self, n: usize) -> Key {
        self.static_keys()[n]
    }
    /// The fixed keys of every node (meaningful for [`Class::Static`] nodes), computed on
    /// first use: evaluators that do not key results never pay for them.
    pub fn static_keys(&self) -> &[Key] {
        self.static_key.get_or_init(|| {
            let mut sk = vec![Key::default(); self.ids.len()];
            for &v in &self.order {
                let v = v as usize;
                if self.class[v] != Class::Static {
                    continue;
                }
                let mut h = KeyHasher::new();
                h.u128(self.partial[v].0);
                for s in self.inputs[v].iter() {
                    if let Source::Wire { node, port } = s {
                        h.u128(sk[*node as usize].port(*port as usize).0);
                    }
                }
                sk[v] = h.finish_key();
            }
            sk
        })
    }

    /// Re-read the params and constants of `nodes` (a value edit: see
    /// [`Graph::data_edits_since`]) without rebuilding the plan. Returns `false`, leaving the
    /// plan untouched, when an edit needs a full rebuild: a new param or constant the op does
    /// not declare, a value of the wrong type, a constant on a wired input, or a change of
    /// inferred output types. The plan then takes `graph`'s revision.
    pub fn update_data(&mut self, graph: &Graph, nodes: &[usize]) -> bool {
        if graph.revision().uid != self.revision.uid
            || graph.revision().structure != self.revision.structure
            || graph.len() != self.ids.len()
        {
            return false;
        }
        let mut staged = Vec::with_capacity(nodes.len());
        for &v in nodes {
            let Some(node) = graph.nodes().get(v) else {
                return false;
            };
            let spec = self.ops[v].spec();
            if spec.delay {
                return false;
            }
            // A constant at a param's port is that param's value (see `validate`).
            if node.params.keys().any(|k| spec.param_index(k).is_none())
                || node
                    .consts
                    .keys()
                    .any(|k| spec.input_index(k).is_none() && spec.param_index(k).is_none())
            {
                return false;
            }
            let mut params = Vec::with_capacity(spec.params.len());
            for p in &spec.params {
                if node.params.contains_key(&p.name)
                    && node.consts.contains_key(&p.name)
                    && spec.input_index(&p.name).is_none()
                {
                    return false;
                }
                match crate::validate::given_param(spec, node, p).or_else(|| p.default.clone()) {
                    Some(val) if crate::validate::value_fits(p.ty, &val) => params.push(val),
                    _ => return false,
                }
            }
            let mut inputs: Vec<Source> = self.inputs[v].to_vec();
            for (i, ispec) in spec.inputs.iter().enumerate() {
                match (&inputs[i], node.consts.get(&ispec.name)) {
                    (Source::Wire { .. }, Some(_)) => return false,
                    (Source::Wire { .. }, None) => {}
                    (_, Some(c)) if crate::validate::value_fits(ispec.ty, c) => {
                        inputs[i] = Source::Const(c.clone())
                    }
                    (_, Some(_)) => return false,
                    (_, None) => match &ispec.default {
                        Some(d) => inputs[i] = Source::Const(d.clone()),
                        None => return false,
                    },
                }
            }
            let in_types: Vec<Option<ValueType>> = inputs
                .iter()
                .map(|s| match s {
                    Source::Wire { node, port } => {
                        self.out_types[*node as usize].get(*port as usize).copied()
                    }
                    Source::Const(c) => c.value_type(),
                    Source::Empty => None,
                })
                .collect();
            match self.ops[v].infer_outputs(&in_types, &params) {
                Ok(t) if t == self.out_types[v] => {}
                _ => return false,
            }
            staged.push((v, params, inputs));
        }
        for (v, params, inputs) in staged {
            self.partial[v] = partial_key(self.ops[v].as_ref(), &params, &inputs);
            self.param_fault[v] = param_fault(self.ops[v].as_ref(), &params);
            self.params[v] = params.into_boxed_slice();
            self.inputs[v] = inputs.into_boxed_slice();
        }
        self.static_key = OnceLock::new();
        self.revision = graph.revision();
        true
    }

    /// Give the plan another revision stamp (a plan built from a clone of a graph serves the
    /// original).
    pub(crate) fn set_revision(&mut self, r: Revision) {
        self.revision = r;
    }

    /// The key of a node given its context and the keys of its wired inputs (`input_key(src)`
    /// returns a source node's key). Every evaluator keys results with this one function.
    #[inline]
    pub fn node_key(
        &self,
        n: usize,
        ctx: &EvalContext,
        nonce: u64,
        input_key: impl Fn(usize) -> Key,
    ) -> Key {
        if self.class[n] == Class::Static {
            return self.static_key(n);
        }
        let mut h = KeyHasher::new();
        h.u128(self.partial[n].0);
        let op = &self.ops[n];
        match op.spec().purity {
            Purity::Pure => {}
            Purity::Stateful | Purity::SideEffect => h.u64(nonce),
            _ => self.hash_context(n, ctx, &mut h),
        }
        for s in self.inputs[n].iter() {
            if let Source::Wire { node, port } = s {
                h.u128(input_key(*node as usize).port(*port as usize).0);
            }
        }
        h.finish_key()
    }

    /// Feed what node `n` reads from the context into `h`: the op's own
    /// [`Op::hash_context`], and for a latch its stored value.
    pub fn hash_context(&self, n: usize, ctx: &EvalContext, h: &mut KeyHasher) {
        let op = &self.ops[n];
        op.hash_context(&self.params[n], ctx, h);
        if op.spec().delay {
            match ctx.latches.get(self.ids[n].as_str()) {
                Some(v) => {
                    h.u8(1);
                    v.hash_into(h);
                }
                None => h.u8(0),
            }
        }
    }

    /// Resolve an output reference: `node.port`, or `node` meaning its default output (see
    /// [`crate::op::OpSpec::output_index`]). A node whose id contains a dot is found by its
    /// whole id first.
    pub fn resolve_output(&self, name: &str, graph: &Graph) -> Option<(usize, usize)> {
        let (i, port) = graph.output_ref(name)?;
        Some((i, self.ops[i].spec().output_index(port)?))
    }
}

/// Why `params` break `op`'s rules, if they do.
fn param_fault(op: &dyn Op, params: &[Value]) -> Option<OpError> {
    rule::check_params(op.spec(), params, &rule::RuleEnv::default()).err()
}

/// The key material of a node that does not depend on its inputs' values: op id, version,
/// params and constants.
fn partial_key(op: &dyn Op, params: &[Value], inputs: &[Source]) -> Key {
    let spec = op.spec();
    let mut h = KeyHasher::new();
    h.str(&spec.id);
    h.u64(spec.version as u64);
    for p in params {
        p.hash_into(&mut h);
    }
    for s in inputs {
        match s {
            Source::Wire { .. } => h.u8(1),
            Source::Const(val) => {
                h.u8(2);
                val.hash_into(&mut h);
            }
            Source::Empty => h.u8(3),
        }
    }
    h.finish_key()
}
