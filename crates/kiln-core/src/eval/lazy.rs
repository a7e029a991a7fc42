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

use super::exec::{Runner, Taint, gather};
use super::kernel::{Kernels, set_float};
use super::pull::{LazyScratch, LazyStep, PullSets, lazy_step};
use super::{CancelMode, EvalError, Evaluator, Outputs, Request, Stats, run_detached};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::graph::Graph;
use crate::key::{Key, KeyMap};
use crate::plan::{Class, Plan, Source};
use crate::registry::Registry;
use crate::value::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
struct Frame {
    node: u32,
    state: u8,
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
    /// Scalar kernels of the plan's nodes (see `eval::kernel`).
    kernels: Kernels,
    /// Nodes given a taint in the current request (the kernel path needs none).
    tainted: usize,
    /// A read-only memo to consult after `memo` (detached workers only).
    base: Option<Arc<KeyMap<Value>>>,
    /// A shared store that holds results instead of `memo` (see [`crate::cache`]).
    store: Option<Arc<Store>>,
    /// A store read but not written (detached workers only).
    read_store: Option<Arc<Store>>,
    generation: u32,
    key_gen: Vec<u32>,
    keys: Vec<Key>,
    val_gen: Vec<u32>,
    vals: Vec<Value>,
    taints: Vec<Taint>,
    stack: Vec<Frame>,
    key_stack: Vec<(u32, bool)>,
    scratch_in: Vec<Value>,
    scratch_out: Vec<Value>,
    /// What each lazy node pulled so far in this request.
    pulls: PullSets,
    lazy_scratch: LazyScratch,
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
            kernels: Kernels::default(),
            tainted: 0,
            base: None,
            store: None,
            read_store: None,
            generation: 0,
            key_gen: vec![],
            keys: vec![],
            val_gen: vec![],
            vals: vec![],
            taints: vec![],
            stack: vec![],
            key_stack: vec![],
            scratch_in: vec![],
            scratch_out: vec![],
            pulls: PullSets::default(),
            lazy_scratch: LazyScratch::default(),
            nonce: 0,
            total: Stats::default(),
        }
    }

    /// Keep results in `store` (shared with other evaluators and sessions, under its policy
    /// and budget) instead of this evaluator's own memo.
    pub fn with_store(mut self, store: Arc<Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// The shared store, if one is set.
    pub fn store(&self) -> Option<&Arc<Store>> {
        self.store.as_ref()
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
        self.adopt_plan(plan.clone());
        Ok((plan, true))
    }

    /// Use `plan` from now on (a plan built elsewhere, e.g. shared with another evaluator).
    pub(crate) fn adopt_plan(&mut self, plan: Arc<Plan>) {
        let n = plan.len();
        self.key_gen = vec![0; n];
        self.keys = vec![Key::default(); n];
        self.val_gen = vec![0; n];
        self.kernels = Kernels::new(&plan);
        self.vals = vec![Value::Empty; plan.total_outputs() + self.kernels.extra()];
        self.kernels.lower_all(&plan, &mut self.vals);
        self.taints = vec![None; n];
        self.pulls = PullSets::new(&plan);
        self.generation = 0;
        self.plan = Some(plan);
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
    fn key_of(plan: &Plan, static_keys: &[Key], keys: &[Key], n: usize) -> Key {
        if plan.class(n) == Class::Static {
            static_keys[n]
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
                let sk = plan.static_keys();
                let k = plan.node_key(v, ctx, self.nonce, |s| Self::key_of(plan, sk, keys, s));
                self.keys[v] = k;
                self.key_gen[v] = g;
                stats.keys_computed += 1;
            }
        }
    }

    fn run(&mut self, plan: &Plan, root: usize, runner: &mut Runner) -> Result<(), EvalError> {
        let g = self.generation;
        let sk = plan.static_keys();
        self.stack.clear();
        self.stack.push(Frame {
            node: root as u32,
            state: FRESH,
        });
        while let Some(top) = self.stack.last().copied() {
            let v = top.node as usize;
            match top.state {
                FRESH => {
                    if self.val_gen[v] == g {
                        self.stack.pop();
                        continue;
                    }
                    let key = Self::key_of(plan, sk, &self.keys, v);
                    let n_out = plan.n_outputs(v);
                    if plan.class(v) != Class::Volatile && self.memo_fetch(plan, v, key, n_out) {
                        self.val_gen[v] = g;
                        self.taints[v] = None;
                        runner.stats.cache_hits += 1;
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
                            });
                        }
                    }
                }
                EAGER_READY => {
                    if plan.is_lazy(v) {
                        self.pulls.clear(v);
                        if let Some(f) = self.stack.last_mut() {
                            f.state = PULLING;
                        }
                    } else {
                        self.execute(plan, v, sk, runner)?;
                        self.stack.pop();
                    }
                }
                _ => {
                    let step = lazy_step(
                        plan,
                        v,
                        &self.vals,
                        &self.taints,
                        &mut self.pulls,
                        &mut self.lazy_scratch,
                        runner,
                    );
                    match step {
                        Err(e) => {
                            self.stack.clear();
                            return Err(e);
                        }
                        Ok(LazyStep::Pull(i)) => {
                            if let Source::Wire { node, .. } = plan.inputs(v)[i]
                                && self.val_gen[node as usize] != g
                            {
                                self.stack.push(Frame { node, state: FRESH });
                            }
                        }
                        Ok(LazyStep::Run) => {
                            self.execute(plan, v, sk, runner)?;
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
        } else if (0..n_out).all(|p| self.memo.contains_key(&key.port(p))) {
            for p in 0..n_out {
                if let Some(val) = self.memo.get(&key.port(p)) {
                    self.vals[off + p] = val.clone();
                }
            }
            return true;
        }
        if let Some(base) = &self.base
            && (0..n_out).all(|p| base.contains_key(&key.port(p)))
        {
            for p in 0..n_out {
                if let Some(val) = base.get(&key.port(p)) {
                    self.vals[off + p] = val.clone();
                }
            }
            return true;
        }
        if let Some(store) = self.store.as_ref().or(self.read_store.as_ref()) {
            let found = store.get_ports(key, n_out, &mut self.scratch_out);
            // Taken, or cleared so no stale value reaches a run's output slots.
            for (p, val) in self.scratch_out.drain(..).enumerate() {
                if found {
                    self.vals[off + p] = val;
                }
            }
            return found;
        }
        false
    }

    fn execute(
        &mut self,
        plan: &Plan,
        v: usize,
        sk: &[Key],
        runner: &mut Runner,
    ) -> Result<(), EvalError> {
        if self.tainted == 0
            && runner.plain()
            && let Some(k) = self.kernels.get(v)
            && let Some(r) = k.eval(&self.vals)
        {
            // The scalar fast path (see `eval::kernel`): float inputs, no taint anywhere.
            if runner.cancelled() {
                self.stack.clear();
                return Err(EvalError::Cancelled);
            }
            runner.executed_fast();
            if plan.class(v) != Class::Volatile {
                let key = Self::key_of(plan, sk, &self.keys, v);
                match &self.store {
                    Some(store) => {
                        store.insert(key, Value::Float(r), Duration::ZERO);
                    }
                    None => {
                        self.memo.insert(key, Value::Float(r));
                    }
                }
            }
            set_float(&mut self.vals[k.out as usize], r);
            self.taints[v] = None;
            self.val_gen[v] = self.generation;
            return Ok(());
        }
        let taint = gather(
            plan,
            v,
            &self.vals,
            &self.taints,
            self.pulls.get(v),
            &mut self.scratch_in,
        );
        let n_out = plan.n_outputs(v);
        if self.scratch_out.len() != n_out {
            self.scratch_out.resize(n_out, Value::Empty);
        }
        let started = self.store.as_ref().map(|_| Instant::now());
        let taint = match runner.run(v, &self.scratch_in, taint, &mut self.scratch_out) {
            Ok(t) => t,
            Err(e) => {
                self.stack.clear();
                return Err(e);
            }
        };
        let cost = started.map_or(Duration::ZERO, |t| t.elapsed());
        let key = Self::key_of(plan, sk, &self.keys, v);
        let off = plan.output_offset(v);
        let memoize = plan.class(v) != Class::Volatile && taint.is_none();
        for (p, slot) in self.scratch_out.iter_mut().enumerate() {
            let val = std::mem::take(slot);
            if memoize {
                match &self.store {
                    Some(store) => {
                        store.insert(key.port(p), val.clone(), cost);
                    }
                    None => {
                        self.memo.insert(key.port(p), val.clone());
                    }
                }
            }
            self.vals[off + p] = val;
        }
        self.tainted += taint.is_some() as usize;
        self.taints[v] = taint;
        self.val_gen[v] = self.generation;
        Ok(())
    }

    /// Evaluate resolved `roots` (node, port) of the current plan, naming them `names`.
    pub(crate) fn run_roots(
        &mut self,
        plan: &Arc<Plan>,
        roots: &[(usize, usize)],
        names: &[String],
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
    ) -> Result<Outputs, EvalError> {
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        self.next_generation();
        self.nonce += 1;
        self.tainted = 0;
        let mut runner = Runner::new(plan, ctx, request, || {
            let r: Vec<u32> = roots.iter().map(|&(n, _)| n as u32).collect();
            plan.topology().upstream(&r).len()
        });
        runner.stats.planned = planned;
        self.compute_keys(plan, roots, ctx, &mut runner.stats);
        let mut values = Vec::with_capacity(roots.len());
        let mut result = Ok(());
        for (name, &(n, p)) in names.iter().zip(roots) {
            if let Err(e) = self.run(plan, n, &mut runner) {
                result = Err(e);
                break;
            }
            values.push((name.clone(), self.vals[plan.output_offset(n) + p].clone()));
        }
        runner.conclude(
            result,
            values,
            roots,
            request,
            &self.taints,
            &mut self.total,
        )
    }

    /// A throwaway evaluator on `plan` that reads `base` as a memo and keeps what it
    /// computes in its own.
    fn detached(
        registry: Registry,
        plan: Arc<Plan>,
        base: Arc<KeyMap<Value>>,
        store: Option<Arc<Store>>,
    ) -> Self {
        let mut e = LazyEvaluator::new(registry);
        e.adopt_plan(plan);
        e.base = Some(base);
        // A worker's results go to its own memo (kept only if the caller is still waiting),
        // so an abandoned worker never writes into the shared store.
        e.store = None;
        e.read_store = store;
        e
    }

    /// Run on a worker thread that can be abandoned (see [`CancelMode::Preemptive`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_preemptive(
        registry: Registry,
        plan: Arc<Plan>,
        base: Arc<KeyMap<Value>>,
        store: Option<Arc<Store>>,
        roots: Vec<(usize, usize)>,
        names: Vec<String>,
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
    ) -> Result<(Outputs, KeyMap<Value>), EvalError> {
        let mut request = request.clone();
        request.cancel = CancelMode::Cooperative;
        let mut wctx = ctx.clone();
        // Reports from the worker pass a gate that closes when the caller stops waiting, so
        // an abandoned worker never reports progress after the request returned.
        let gate = wctx.progress.take().map(|inner| Arc::new(Gate::new(inner)));
        if let Some(g) = &gate {
            wctx.progress = Some(g.clone());
        }
        let _closer = GateCloser(gate);
        run_detached(&ctx.cancel, move || {
            let mut w = LazyEvaluator::detached(registry, plan.clone(), base, store);
            let out = w.run_roots(&plan, &roots, &names, &request, &wctx, planned);
            out.map(|o| (o, std::mem::take(&mut w.memo)))
        })?
    }
}

impl Evaluator for LazyEvaluator {
    /// Its own memo and its plan (a shared store reports itself: [`Store::memory_report`]).
    fn memory_report(&self) -> crate::cache::MemoryReport {
        let mut r = crate::cache::MemoryReport::default();
        r.add("lazy memo", self.memo.len(), self.cache_bytes());
        if let Some(p) = &self.plan {
            r.add("plan", p.len(), p.approx_bytes());
        }
        r
    }

    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let (plan, planned) = self.ensure_plan(graph)?;
        let roots = resolve_roots(&plan, graph, request)?;
        if request.cancel != CancelMode::Preemptive {
            return self.run_roots(&plan, &roots, &request.outputs, request, ctx, planned);
        }
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        let base = Arc::new(std::mem::take(&mut self.memo));
        let r = Self::run_preemptive(
            self.registry.clone(),
            plan,
            base.clone(),
            self.store.clone(),
            roots,
            request.outputs.clone(),
            request,
            ctx,
            planned,
        );
        // The worker has dropped its handle unless it was abandoned (then copy the memo).
        self.memo = Arc::try_unwrap(base).unwrap_or_else(|b| (*b).clone());
        let (out, fresh) = r?;
        match &self.store {
            Some(store) => {
                for (k, v) in fresh {
                    store.insert(k, v, Duration::ZERO);
                }
            }
            None => self.memo.extend(fresh),
        }
        self.total.accumulate(&out.stats);
        Ok(out)
    }
}

/// Resolve a request's output names against a plan.
pub(crate) fn resolve_roots(
    plan: &Plan,
    graph: &Graph,
    request: &Request,
) -> Result<Vec<(usize, usize)>, EvalError> {
    request
        .outputs
        .iter()
        .map(|name| {
            plan.resolve_output(name, graph)
                .ok_or_else(|| EvalError::UnknownOutput { name: name.clone() })
        })
        .collect()
}

/// A progress sink that forwards reports until it is closed.
struct Gate {
    inner: Arc<dyn crate::context::ProgressSink>,
    open: std::sync::Mutex<bool>,
}

impl Gate {
    fn new(inner: Arc<dyn crate::context::ProgressSink>) -> Self {
        Gate {
            inner,
            open: std::sync::Mutex::new(true),
        }
    }
}

impl crate::context::ProgressSink for Gate {
    fn report(&self, p: &crate::context::Progress<'_>) {
        if let Ok(open) = self.open.lock()
            && *open
        {
            self.inner.report(p);
        }
    }
}

/// Closes the gate when the waiting caller leaves (returned or cancelled).
struct GateCloser(Option<Arc<Gate>>);

impl Drop for GateCloser {
    fn drop(&mut self) {
        if let Some(g) = &self.0
            && let Ok(mut open) = g.open.lock()
        {
            *open = false;
        }
    }
}
