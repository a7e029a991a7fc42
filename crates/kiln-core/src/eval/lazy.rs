//! The lazy (pull) evaluator with content-keyed memoization.
//!
//! A request runs in two passes over the requested cone, both with explicit stacks:
//! 1. **keys**: nodes whose class is not static get their key for this context (static keys
//!    come precomputed from the plan);
//! 2. **values**: from each requested node, look its key up in the memo; on a miss pull its
//!    eager inputs, then let the op pull lazy inputs one at a time, then execute.
//!
//! Because keys are known before values, a memo hit on a node means nothing beneath it is
//! visited. A failed or cancelled node's result is never stored.

use super::{
    EvalError, Evaluator, Outputs, ProgressTracker, Request, Stats, execute_node, next_lazy,
};
use crate::context::EvalContext;
use crate::graph::Graph;
use crate::key::{Key, KeyMap};
use crate::plan::{Class, Plan, Source};
use crate::registry::Registry;
use crate::value::Value;
use std::sync::Arc;

#[derive(Clone, Copy)]
struct Frame {
    node: u32,
    state: u8,
    pulled: u64,
}

const FRESH: u8 = 0;
const EAGER_READY: u8 = 1;
const PULLING: u8 = 2;

/// The default evaluator: pulls only what a request needs and memoizes every result by its
/// content key, so each distinct key executes once for the evaluator's lifetime.
pub struct LazyEvaluator {
    registry: Registry,
    plan: Option<Arc<Plan>>,
    memo: KeyMap<Value>,
    generation: u32,
    key_gen: Vec<u32>,
    keys: Vec<Key>,
    val_gen: Vec<u32>,
    vals: Vec<Value>,
    stack: Vec<Frame>,
    key_stack: Vec<(u32, bool)>,
    scratch_in: Vec<Value>,
    scratch_out: Vec<Value>,
    pulled: Vec<bool>,
    nonce: u64,
    total: Stats,
}

impl LazyEvaluator {
    /// An evaluator over the ops of `registry`.
    pub fn new(registry: Registry) -> Self {
        LazyEvaluator {
            registry,
            plan: None,
            memo: KeyMap::default(),
            generation: 0,
            key_gen: vec![],
            keys: vec![],
            val_gen: vec![],
            vals: vec![],
            stack: vec![],
            key_stack: vec![],
            scratch_in: vec![],
            scratch_out: vec![],
            pulled: vec![],
            nonce: 0,
            total: Stats::default(),
        }
    }

    /// The registry this evaluator resolves ops in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The current plan, building it if the graph changed since the last request.
    pub fn plan_for(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        Ok(self.ensure_plan(graph)?.0)
    }

    fn ensure_plan(&mut self, graph: &Graph) -> Result<(Arc<Plan>, bool), EvalError> {
        if let Some(p) = &self.plan
            && p.revision() == graph.revision()
        {
            return Ok((p.clone(), false));
        }
        let plan = Arc::new(Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?);
        let n = plan.len();
        self.key_gen = vec![0; n];
        self.keys = vec![Key::default(); n];
        self.val_gen = vec![0; n];
        self.vals = vec![Value::Empty; plan.total_outputs()];
        self.generation = 0;
        self.plan = Some(plan.clone());
        Ok((plan, true))
    }

    /// Number of memoized results.
    pub fn cache_len(&self) -> usize {
        self.memo.len()
    }
    /// Approximate bytes held by memoized results.
    pub fn cache_bytes(&self) -> usize {
        self.memo.values().map(Value::byte_size).sum()
    }
    /// Drop every memoized result.
    pub fn clear_cache(&mut self) {
        self.memo.clear();
    }
    /// Whether the memo holds a result under `key`.
    pub fn is_cached(&self, key: Key) -> bool {
        self.memo.contains_key(&key)
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.total
    }

    fn next_generation(&mut self) -> u32 {
        if self.generation == u32::MAX {
            self.key_gen.fill(0);
            self.val_gen.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        self.generation
    }

    #[inline]
    fn key_of(plan: &Plan, keys: &[Key], n: usize) -> Key {
        if plan.class(n) == Class::Static {
            plan.static_key(n)
        } else {
            keys[n]
        }
    }

    fn compute_keys(
        &mut self,
        plan: &Plan,
        roots: &[(usize, usize)],
        ctx: &EvalContext,
        stats: &mut Stats,
    ) {
        let g = self.generation;
        let stack = &mut self.key_stack;
        stack.clear();
        for &(n, _) in roots {
            if plan.class(n) != Class::Static && self.key_gen[n] != g {
                stack.push((n as u32, false));
            }
        }
        while let Some((v, expanded)) = stack.pop() {
            let v = v as usize;
            if self.key_gen[v] == g {
                continue;
            }
            if !expanded {
                stack.push((v as u32, true));
                for s in plan.inputs(v) {
                    if let Source::Wire { node, .. } = s {
                        let u = *node as usize;
                        if plan.class(u) != Class::Static && self.key_gen[u] != g {
                            stack.push((*node, false));
                        }
                    }
                }
            } else {
                let keys = &self.keys;
                let k = plan.node_key(v, ctx, self.nonce, |s| Self::key_of(plan, keys, s));
                self.keys[v] = k;
                self.key_gen[v] = g;
                stats.keys_computed += 1;
            }
        }
    }

    /// Fill `scratch_in` with node `v`'s inputs; lazy inputs not in `pulled` are `Empty`.
    fn gather(&mut self, plan: &Plan, v: usize, pulled: u64) {
        self.scratch_in.clear();
        let lazy_ports = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
        for (i, s) in plan.inputs(v).iter().enumerate() {
            if lazy_ports.is_some_and(|p| p[i].lazy) && pulled & (1 << i) == 0 {
                self.scratch_in.push(Value::Empty);
                continue;
            }
            self.scratch_in.push(match s {
                Source::Wire { node, port } => {
                    self.vals[plan.output_offset(*node as usize) + *port as usize].clone()
                }
                Source::Const(c) => c.clone(),
                Source::Empty => Value::Empty,
            });
        }
    }

    fn run(
        &mut self,
        plan: &Plan,
        root: usize,
        ctx: &EvalContext,
        stats: &mut Stats,
        progress: &mut ProgressTracker,
    ) -> Result<(), EvalError> {
        let g = self.generation;
        self.stack.clear();
        self.stack.push(Frame {
            node: root as u32,
            state: FRESH,
            pulled: 0,
        });
        while let Some(top) = self.stack.last().copied() {
            let v = top.node as usize;
            match top.state {
                FRESH => {
                    if self.val_gen[v] == g {
                        self.stack.pop();
                        continue;
                    }
                    let key = Self::key_of(plan, &self.keys, v);
                    let n_out = plan.n_outputs(v);
                    if plan.class(v) != Class::Volatile && self.memo_fetch(plan, v, key, n_out) {
                        self.val_gen[v] = g;
                        stats.cache_hits += 1;
                        self.stack.pop();
                        continue;
                    }
                    if let Some(f) = self.stack.last_mut() {
                        f.state = EAGER_READY;
                    }
                    let lazy_ports = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
                    for (i, s) in plan.inputs(v).iter().enumerate() {
                        if let Source::Wire { node, .. } = s
                            && !lazy_ports.is_some_and(|p| p[i].lazy)
                            && self.val_gen[*node as usize] != g
                        {
                            self.stack.push(Frame {
                                node: *node,
                                state: FRESH,
                                pulled: 0,
                            });
                        }
                    }
                }
                EAGER_READY => {
                    if plan.is_lazy(v) {
                        if let Some(f) = self.stack.last_mut() {
                            f.state = PULLING;
                        }
                    } else {
                        self.gather(plan, v, 0);
                        self.execute(plan, v, ctx, stats, progress)?;
                        self.stack.pop();
                    }
                }
                _ => {
                    self.gather(plan, v, top.pulled);
                    let n_in = plan.inputs(v).len();
                    self.pulled.clear();
                    self.pulled
                        .extend((0..n_in).map(|i| top.pulled & (1 << i) != 0));
                    let pctx = progress.ctx(ctx);
                    match next_lazy(plan, v, &self.scratch_in, &self.pulled, pctx)? {
                        Some(i) => {
                            if i >= 64
                                || top.pulled & (1 << i) != 0
                                || !plan.op(v).spec().inputs[i].lazy
                            {
                                self.stack.clear();
                                return Err(EvalError::Node {
                                    node: plan.id(v).clone(),
                                    op: plan.op(v).spec().id.to_string(),
                                    port: Some(format!("input #{i}")),
                                    message: "the op asked to pull an input that is not an unpulled lazy input".into(),
                                });
                            }
                            if let Some(f) = self.stack.last_mut() {
                                f.pulled |= 1 << i;
                            }
                            if let Source::Wire { node, .. } = plan.inputs(v)[i]
                                && self.val_gen[node as usize] != g
                            {
                                self.stack.push(Frame {
                                    node,
                                    state: FRESH,
                                    pulled: 0,
                                });
                            }
                        }
                        None => {
                            self.execute(plan, v, ctx, stats, progress)?;
                            self.stack.pop();
                        }
                    }
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn memo_fetch(&mut self, plan: &Plan, v: usize, key: Key, n_out: usize) -> bool {
        let off = plan.output_offset(v);
        if n_out == 1 {
            if let Some(val) = self.memo.get(&key) {
                self.vals[off] = val.clone();
                return true;
            }
            return false;
        }
        if (0..n_out).all(|p| self.memo.contains_key(&key.port(p))) {
            for p in 0..n_out {
                if let Some(val) = self.memo.get(&key.port(p)) {
                    self.vals[off + p] = val.clone();
                }
            }
            return true;
        }
        false
    }

    fn execute(
        &mut self,
        plan: &Plan,
        v: usize,
        ctx: &EvalContext,
        stats: &mut Stats,
        progress: &mut ProgressTracker,
    ) -> Result<(), EvalError> {
        if ctx.is_cancelled() {
            self.stack.clear();
            return Err(EvalError::Cancelled);
        }
        let n_out = plan.n_outputs(v);
        if self.scratch_out.len() != n_out {
            self.scratch_out.resize(n_out, Value::Empty);
        }
        progress.start_node(plan, v);
        if let Err(e) = execute_node(
            plan,
            v,
            &self.scratch_in,
            progress.ctx(ctx),
            &mut self.scratch_out,
        ) {
            self.stack.clear();
            return Err(e);
        }
        stats.executed += 1;
        let key = Self::key_of(plan, &self.keys, v);
        let off = plan.output_offset(v);
        let memoize = plan.class(v) != Class::Volatile;
        for (p, slot) in self.scratch_out.iter_mut().enumerate() {
            let val = std::mem::take(slot);
            if memoize {
                self.memo.insert(key.port(p), val.clone());
            }
            self.vals[off + p] = val;
        }
        self.val_gen[v] = self.generation;
        progress.finish_node(plan, v);
        Ok(())
    }
}

impl Evaluator for LazyEvaluator {
    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let (plan, planned) = self.ensure_plan(graph)?;
        let mut roots = Vec::with_capacity(request.outputs.len());
        for name in &request.outputs {
            let r = plan
                .resolve_output(name, graph)
                .ok_or_else(|| EvalError::UnknownOutput { name: name.clone() })?;
            roots.push(r);
        }
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        self.next_generation();
        self.nonce += 1;
        let mut stats = Stats {
            planned,
            ..Stats::default()
        };
        let mut progress = ProgressTracker::new(ctx, || {
            let r: Vec<u32> = roots.iter().map(|&(n, _)| n as u32).collect();
            plan.topology().upstream(&r).len()
        });
        self.compute_keys(&plan, &roots, ctx, &mut stats);
        let mut values = Vec::with_capacity(roots.len());
        let result = (|| {
            for (name, &(n, p)) in request.outputs.iter().zip(&roots) {
                self.run(&plan, n, ctx, &mut stats, &mut progress)?;
                values.push((name.clone(), self.vals[plan.output_offset(n) + p].clone()));
            }
            Ok(())
        })();
        self.total.executed += stats.executed;
        self.total.cache_hits += stats.cache_hits;
        self.total.keys_computed += stats.keys_computed;
        result.map(|()| Outputs { values, stats })
    }
}
