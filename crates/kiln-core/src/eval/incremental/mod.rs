//! The incremental evaluator: push invalidation, pull computation, early cutoff.
//!
//! Values stay in slots between requests. An edit, a context change or a volatile node marks
//! the node *dirty* and its downstream cone *stale* (push). A request brings only the stale
//! nodes of its cone up to date (pull), in the compiled schedule's order, starting at the
//! first stale position it holds. A stale node whose inputs all kept their bits since it was
//! last verified is cleared without running; a node that runs and produces the same bits as
//! before leaves its dependents clean (early cutoff). A request with nothing stale touches only
//! the outputs it asks for.

mod bits;
mod ctx_print;
mod records;
mod revive;
mod sync;

use super::{CancelMode, EvalError, Evaluator, Outputs, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::eval::host::{Host, resolve_roots};
use crate::eval::runner::Runner;
use crate::eval::walks::schedule::{Edges, NONE, ScheduleCache};
use crate::eval::walks::schedule_walk::ScheduleWalk;
use crate::eval::walks::slot_walk::run_preemptive;
use crate::graph::Graph;
use crate::key::Key;
use crate::plan::Plan;
use crate::registry::Registry;
use crate::value::Value;
use bits::Bits;
use ctx_print::CtxPrint;
use records::State;
use std::sync::Arc;

/// Keeps values between requests and recomputes only what an edit or a context change can
/// have affected (see the module docs).
pub struct IncrementalEvaluator {
    host: Host,
    state: State,
    /// Nodes whose ops read the context, and the hash of what each read last time.
    readers: Vec<u32>,
    reader_hash: Vec<Key>,
    volatile: Vec<u32>,
    last_ctx: Option<CtxPrint>,
    schedules: ScheduleCache,
    walk: ScheduleWalk,
    mark_stack: Vec<u32>,
    /// Invalidated nodes whose downstream cones were not marked yet: the front schedule is
    /// self-contained, so its next run checks everything after them instead.
    pending: Vec<u32>,
    /// The roots of the schedule `pending` was deferred for.
    pending_roots: Vec<(usize, usize)>,
    /// Scratch for a request's visit list: stale positions of the main block, and the list.
    pos_bits: Bits,
    visit: Vec<u32>,
}

impl IncrementalEvaluator {
    /// An incremental evaluator over the ops of `registry`.
    pub fn new(registry: Registry) -> Self {
        IncrementalEvaluator {
            host: Host::new(registry),
            state: State::default(),
            readers: vec![],
            reader_hash: vec![],
            volatile: vec![],
            last_ctx: None,
            schedules: ScheduleCache::default(),
            walk: ScheduleWalk::default(),
            mark_stack: vec![],
            pending: vec![],
            pending_roots: vec![],
            pos_bits: Bits::default(),
            visit: vec![],
        }
    }
    /// The registry this evaluator resolves ops in.
    pub fn registry(&self) -> &Registry {
        &self.host.registry
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.host.total
    }
    /// Number of nodes known to wait to be brought up to date, plus the number of deferred
    /// invalidations (each stands for its downstream cone).
    pub fn stale_count(&self) -> usize {
        self.state.stale_count + self.pending.len()
    }

    /// Keep results in `store` (shared with other evaluators and sessions): a node that must
    /// run first looks for its content key there, and what runs is put there. The scalar
    /// fast paths are off, since every node's key is kept up to date.
    pub fn with_store(mut self, store: Arc<Store>) -> Self {
        self.host.store = Some(store.clone());
        self.state.store = Some(store);
        self
    }

    /// Let go of intermediate values within each run: a heavy value (or a string or list)
    /// that is not requested is dropped once the nodes of the run that read it are up to
    /// date, so a long chain holds a few values at a time. The node keeps the hash of what it
    /// held: a later request that reads it, or that finds it stale, computes it again first,
    /// and still cuts off when the bits are the same (so what is downstream of it and kept
    /// does not run again). Only schedules without lazy nodes release.
    pub fn with_release(mut self, on: bool) -> Self {
        self.state.release.record = on;
        self
    }

    /// Run independent stale nodes at once under `policy` (levels of the schedule, as the
    /// eager and compiled evaluators do). Same bits, same cutoffs as sequential.
    pub fn with_parallel(mut self, policy: ParallelPolicy) -> Self {
        self.host.parallel = policy;
        self
    }

    /// The shared store, if one is set.
    pub fn store(&self) -> Option<&Arc<Store>> {
        self.state.store.as_ref()
    }

    /// Bytes held in this evaluator's value slots, and the number of nodes holding one.
    pub fn held(&self) -> (usize, usize) {
        let bytes = self.state.vals.iter().map(Value::byte_size).sum();
        let nodes = self.state.info.iter().filter(|i| i.has_value).count();
        (nodes, bytes)
    }

    /// The current plan, if one was built.
    pub fn plan(&self) -> Option<&Arc<Plan>> {
        self.host.plan()
    }
}

impl Evaluator for IncrementalEvaluator {
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        self.host.adopt(plan);
    }

    /// Its value slots and its plan.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        let mut r = crate::cache::MemoryReport::default();
        let (nodes, bytes) = self.held();
        r.add("incremental values", nodes, bytes);
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
        let (plan, planned) = self.sync(graph, ctx)?;
        let roots = resolve_roots(&plan, graph, request)?;
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        if request.cancel == CancelMode::Preemptive {
            let (h, c) = (&mut self.host, roots.clone());
            return run_preemptive(
                h,
                plan,
                c,
                roots,
                Edges::Eager,
                request,
                ctx,
                planned,
                false,
            );
        }
        // Released values must be marked where they are read, so no run is deferred.
        let release = self.state.release.record;
        let fused = !release && !self.pending.is_empty() && self.pending_roots == roots;
        if !self.pending.is_empty() && !fused {
            self.flush(&plan);
        }
        if release {
            self.revive(&plan, &roots);
        }
        let (sched, built) = self.schedules.get(&plan, &roots, Edges::Eager);
        if built {
            let st = &self.state;
            sched.first_stale = sched.blocks[0]
                .iter()
                .position(|&v| st.stale.get(v as usize))
                .map_or(NONE, |p| p as u32);
        }
        let start = sched.first_stale as usize;
        let collect = |st: &State| -> Vec<(String, Value)> {
            request
                .outputs
                .iter()
                .zip(&roots)
                .map(|(name, &(n, p))| (name.clone(), st.vals[plan.output_offset(n) + p].clone()))
                .collect()
        };
        if start >= sched.main_len() && !request.timings {
            // Nothing stale in the cone: the answer is what the slots hold.
            let stats = Stats {
                planned: planned || built,
                ..Stats::default()
            };
            return Ok(Outputs {
                values: collect(&self.state),
                stats,
                failures: vec![],
                timings: vec![],
            });
        }
        self.state.now += 1;
        let main_len = sched.main_len();
        let mut runner = Runner::new(&plan, ctx, request, || main_len - start.min(main_len));
        runner.stats.planned = planned || built;
        self.state.fused = fused;
        // With few stale nodes, list where they sit in the main block and visit only those.
        // (Positions go through a bitmap over the main block, which hands them back sorted.)
        // (The schedule walk ignores a visit list under a parallel policy: none is made then.)
        let use_visit = !fused
            && self.host.sequential()
            && self.state.stale_count * 4 < main_len.saturating_sub(start);
        if use_visit {
            self.pos_bits.0.clear();
            self.pos_bits.0.resize(main_len.div_ceil(64), 0);
            let pos_bits = &mut self.pos_bits;
            self.state.stale.for_each_one(|n| {
                let p = sched.main_pos[n];
                if p != NONE && p as usize >= start {
                    pos_bits.set(p as usize);
                }
            });
            self.visit.clear();
            let visit = &mut self.visit;
            self.pos_bits.for_each_one(|p| visit.push(p as u32));
        }
        if release {
            self.state.release.begin(sched);
        }
        let par = self.host.pools.resolve(&self.host.parallel)?;
        let r = self.walk.run(
            &plan,
            sched,
            start,
            &mut self.state,
            &mut runner,
            par.as_ref(),
            use_visit.then_some(self.visit.as_slice()),
        );
        self.state.fused = false;
        sched.first_stale = if r.is_ok() { NONE } else { start as u32 };
        if fused {
            if r.is_ok() {
                self.pending.clear();
            } else {
                self.flush(&plan);
            }
        }
        let values = collect(&self.state);
        // What depends on a failure is computed again next time.
        let retry = std::mem::take(&mut self.state.retry);
        for &v in &retry {
            self.invalidate(&plan, v as usize);
        }
        self.state.retry = retry;
        self.state.retry.clear();
        runner.conclude(
            r,
            values,
            &roots,
            request,
            &self.state.taints,
            &mut self.host.total,
        )
    }
}

impl IncrementalEvaluator {
    /// The content key of output `name` (`node` or `node.port`) as of the last request that
    /// visited it; kept only with a store ([`IncrementalEvaluator::with_store`]).
    pub fn output_key(&self, graph: &Graph, name: &str) -> Option<Key> {
        self.state.store.as_ref()?;
        let plan = self.host.plan()?;
        let (n, p) = plan.resolve_output(name, graph)?;
        let k = *self.state.keys.get(n)?;
        (k != Key::default() && self.state.info[n].has_value).then(|| k.port(p))
    }
}
