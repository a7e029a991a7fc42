//! The lazy evaluator: a [`Host`] with the pull walk and retention by key
//! ([`PullEngine`]). It pulls only what a request needs and keeps every result under its
//! content key (in its own memo or a shared store), so each distinct key executes once.
//!
//! With a parallel policy, the request's cone is run by the schedule walk instead, level by
//! level, with results still looked up and kept by key ([`keyed_walk`](super::walks::keyed_walk)): the same values,
//! the same keys, nothing beneath a hit visited.

use super::{CancelMode, EvalError, Evaluator, Outputs, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::eval::host::{Host, PlanChange, resolve_roots};
use crate::eval::preempt::preempt;
use crate::eval::walks::keyed_walk::KeyedEngine;
use crate::eval::walks::pull_walk::PullEngine;
use crate::graph::Graph;
use crate::key::{Key, KeyMap};
use crate::plan::Plan;
use crate::registry::Registry;
use crate::value::Value;
use std::sync::Arc;
use std::time::Duration;

/// The default evaluator: pulls only what a request needs and memoizes every result by its
/// content key, so each distinct key executes once for the evaluator's lifetime.
pub struct LazyEvaluator {
    host: Host,
    engine: PullEngine,
    /// The schedule walk used under a parallel policy (built on first use).
    keyed: Option<KeyedEngine>,
}

impl LazyEvaluator {
    /// An evaluator over the ops of `registry`.
    pub fn new(registry: Registry) -> Self {
        LazyEvaluator {
            host: Host::new(registry),
            engine: PullEngine::default(),
            keyed: None,
        }
    }

    /// Keep results in `store` (shared with other evaluators and sessions, under its policy
    /// and budget) instead of this evaluator's own memo.
    pub fn with_store(mut self, store: Arc<Store>) -> Self {
        self.host.store = Some(store.clone());
        self.engine.memo.store = Some(store);
        self
    }

    /// Let go of intermediate values within each request: a heavy value (or a string or
    /// list) that is not requested is dropped once every node of the request that reads it
    /// has run, from the evaluator's own memo too (a shared store keeps what its policy
    /// keeps). A long chain then holds a few values at a time; the price is that a later
    /// request needing a released value computes it again. Sequential requests only (under a
    /// parallel policy every result is kept).
    pub fn with_release(mut self, on: bool) -> Self {
        self.engine.release = on;
        self
    }

    /// Bound the evaluator's own memo: once more than `bytes` of results were put in it, it
    /// is emptied after the request (results are then computed again when asked for).
    pub fn with_memo_budget(mut self, bytes: usize) -> Self {
        self.engine.memo.budget = Some(bytes);
        self
    }

    /// Run independent nodes at once under `policy`: the cone of a request is then walked
    /// level by level (results still looked up and kept by key), and levels costly enough
    /// run on the pool. Same bits as sequential.
    pub fn with_parallel(mut self, policy: ParallelPolicy) -> Self {
        self.host.parallel = policy;
        self
    }

    /// The shared store, if one is set.
    pub fn store(&self) -> Option<&Arc<Store>> {
        self.host.store.as_ref()
    }

    /// The registry this evaluator resolves ops in.
    pub fn registry(&self) -> &Registry {
        &self.host.registry
    }

    /// The current plan, building it if the graph changed since the last request.
    pub fn plan_for(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        Ok(self.sync(graph)?.0)
    }

    fn sync(&mut self, graph: &Graph) -> Result<(Arc<Plan>, bool), EvalError> {
        let (plan, change) = self.host.sync(graph)?;
        match &change {
            PlanChange::Same => {}
            PlanChange::Data(edits) => {
                self.engine.relower(&plan, edits);
                if let Some(k) = &mut self.keyed {
                    k.relower(&plan, edits);
                }
            }
            PlanChange::Rebuilt => {
                self.engine.adopt(&plan);
                if let Some(k) = &mut self.keyed {
                    k.adopt(&plan);
                }
            }
        }
        Ok((plan, change.planned()))
    }

    /// Number of memoized results.
    pub fn cache_len(&self) -> usize {
        self.engine.memo.own.len()
    }
    /// Approximate bytes held by memoized results.
    pub fn cache_bytes(&self) -> usize {
        self.engine.memo.own_bytes()
    }
    /// Drop every memoized result.
    pub fn clear_cache(&mut self) {
        self.engine.memo.own.clear();
    }
    /// Whether the memo holds a result under `key`.
    pub fn is_cached(&self, key: Key) -> bool {
        self.engine.memo.own.contains_key(&key)
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.host.total
    }

    /// Run on a worker thread that can be abandoned (see [`CancelMode::Preemptive`]): the
    /// worker reads this evaluator's memo and the store, and writes only its own memo, which
    /// is merged here if the request was not abandoned.
    fn evaluate_preemptive(
        &mut self,
        plan: Arc<Plan>,
        roots: Vec<(usize, usize)>,
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
    ) -> Result<Outputs, EvalError> {
        let base = Arc::new(std::mem::take(&mut self.engine.memo.own));
        let worker_base = base.clone();
        let store = self.host.store.clone();
        let r = preempt(request, ctx, move |request, wctx| {
            let mut w = PullEngine::default();
            w.adopt(&plan);
            w.memo.base = Some(worker_base);
            w.memo.read_store = store;
            let mut total = Stats::default();
            let names = request.outputs.clone();
            let out = w.run_roots(&plan, &roots, &names, &request, &wctx, planned, &mut total);
            out.map(|o| (o, std::mem::take(&mut w.memo.own)))
        });
        // The worker has dropped its handle unless it was abandoned (then copy the memo).
        self.engine.memo.own = Arc::try_unwrap(base).unwrap_or_else(|b| (*b).clone());
        let (out, fresh) = r??;
        self.merge(fresh);
        self.host.total.accumulate(&out.stats);
        Ok(out)
    }

    fn merge(&mut self, fresh: KeyMap<Value>) {
        match &self.host.store {
            Some(store) => {
                for (k, v) in fresh {
                    store.insert(k, v, Duration::ZERO);
                }
            }
            None => self.engine.memo.own.extend(fresh),
        }
    }
}

impl Evaluator for LazyEvaluator {
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        self.host.adopt(plan);
    }

    /// Its own memo and its plan (a shared store reports itself: [`Store::memory_report`]).
    fn memory_report(&self) -> crate::cache::MemoryReport {
        let mut r = crate::cache::MemoryReport::default();
        r.add("lazy memo", self.cache_len(), self.cache_bytes());
        if let Some(p) = self.host.plan() {
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
        let (plan, planned) = self.sync(graph)?;
        let roots = resolve_roots(&plan, graph, request)?;
        if request.cancel == CancelMode::Preemptive {
            return self.evaluate_preemptive(plan, roots, request, ctx, planned);
        }
        if self.host.sequential() {
            let names = &request.outputs;
            let total = &mut self.host.total;
            let out = self
                .engine
                .run_roots(&plan, &roots, names, request, ctx, planned, total);
            self.engine.memo.trim();
            return out;
        }
        let keyed = self.keyed.get_or_insert_with(|| {
            let mut k = KeyedEngine::default();
            k.adopt(&plan);
            k
        });
        keyed.run(
            &mut self.host,
            &mut self.engine.memo,
            &plan,
            &roots,
            request,
            ctx,
            planned,
        )
    }
}
