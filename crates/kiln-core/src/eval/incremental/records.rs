//! Stale records with early cutoff: what the incremental evaluator retains per node, and the
//! [`Retention`] that brings a stale node up to date (cleared when its inputs kept their bits,
//! taken from the store, or run, with a cutoff when it gives the same bits).

use super::bits::Bits;
use crate::cache::Store;
use crate::eval::EvalError;
use crate::eval::retention::Retention;
use crate::eval::retention::release::{Release, outputs_hash};
use crate::eval::runner::kernel::{Kernels, set_float};
use crate::eval::runner::pulled::{digest, is_pulled};
use crate::eval::runner::{Runner, Taint, gather};
use crate::key::Key;
use crate::plan::{Class, Plan, Source};
use crate::value::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the incremental evaluator keeps per node (one record, so a node's bookkeeping is one
/// cache line).
#[derive(Clone, Copy, Default)]
pub(super) struct NodeInfo {
    /// The request at which the node's value last changed bits.
    pub(super) changed_at: u64,
    /// The request at which the node was last brought up to date.
    pub(super) verified_at: u64,
    /// The lazy inputs the node pulled when it last ran (see [`digest`]).
    pub(super) pulled: u64,
    /// Must run: its own params, context or volatility changed, or it never ran.
    pub(super) dirty: bool,
    /// Its slots hold a value computed by this evaluator.
    pub(super) has_value: bool,
}

/// Per-node state kept between requests.
#[derive(Default)]
pub(super) struct State {
    /// Per node: its scalar kernel, when it has one.
    pub(super) kernels: Kernels,
    pub(super) vals: Vec<Value>,
    pub(super) taints: Vec<Taint>,
    pub(super) info: Vec<NodeInfo>,
    /// One bit per node: it may need work (it is downstream of a change). Kept apart from
    /// `info` so marking a cone touches a small, dense bitmap.
    pub(super) stale: Bits,
    /// How many nodes hold a taint (the scalar fast path needs none anywhere).
    pub(super) tainted: usize,
    pub(super) now: u64,
    pub(super) stale_count: usize,
    pub(super) scratch_out: Vec<Value>,
    /// Nodes whose result depends on a failure: made dirty again after the request.
    pub(super) retry: Vec<u32>,
    /// This run checks every node from its start position, stale bit or not (invalidations
    /// were deferred; see [`IncrementalEvaluator::invalidate`]).
    pub(super) fused: bool,
    /// A shared store consulted before running a node and fed after (see [`crate::cache`]).
    pub(super) store: Option<Arc<Store>>,
    /// Per node, its content key as of its last visit (kept only with a store).
    pub(super) keys: Vec<Key>,
    /// Letting go of intermediate values within a run; on when `release.record` is set
    /// (see [`super::IncrementalEvaluator::with_release`]).
    pub(super) release: Release,
    /// Per node whose values were released and not computed since: their hash then.
    pub(super) gone: Vec<Option<Key>>,
}

impl State {
    /// Mark node `v` up to date as of this request.
    #[inline(always)]
    pub(super) fn verified(&mut self, v: usize) {
        let now = self.now;
        self.unstale(v);
        let i = &mut self.info[v];
        i.dirty = false;
        i.has_value = true;
        i.verified_at = now;
    }

    #[inline(always)]
    pub(super) fn unstale(&mut self, v: usize) {
        if self.stale.get(v) {
            self.stale.clear(v);
            self.stale_count -= 1;
        }
    }
}

impl State {
    /// The look at stale node `v` before it may run: cleared when none of the inputs it uses
    /// changed since it was verified, taken from the store when its key is there. Returns
    /// whether it must run.
    pub(super) fn must_run(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
    ) -> bool {
        // A lazy node's inputs that matter are the ones it pulled (now brought up to date);
        // pulling a different set than last time is itself a change.
        let lazy = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
        let me = self.info[v];
        let must = me.dirty
            || !me.has_value
            || self.gone.get(v).is_some_and(Option::is_some)
            || self.taints[v].is_some()
            || (lazy.is_some() && me.pulled != digest(pulled))
            || plan.inputs(v).iter().enumerate().any(|(i, s)| match s {
                Source::Wire { node, .. } => {
                    let used = lazy.is_none_or(|p| !p[i].lazy || is_pulled(pulled, i));
                    used && self.info[*node as usize].changed_at > me.verified_at
                }
                _ => false,
            });
        // With a store, every visited node's key is brought up to date: an input whose key
        // changed may have kept its bits (a cutoff), and keys must still name contents.
        let key = self.store.is_some().then(|| {
            let keys = &self.keys;
            plan.node_key(v, runner.ctx(), self.now, |u| keys[u])
        });
        if let Some(k) = key {
            self.keys[v] = k;
        }
        if !must {
            let now = self.now;
            self.unstale(v);
            self.info[v].verified_at = now;
            runner.stats.cache_hits += 1;
            return false;
        }
        if let (Some(store), Some(key), true) = (&self.store, key, plan.class(v) != Class::Volatile)
            && store.get_ports(key, plan.n_outputs(v), &mut self.scratch_out)
            && crate::eval::retention::memo::fits(plan.output_types(v), &self.scratch_out)
        {
            // Computed before, by this or another evaluator: take it as if it ran.
            runner.stats.cache_hits += 1;
            self.settle(plan, v, None, pulled, runner);
            return false;
        }
        true
    }

    /// Take `scratch_out`, just computed for `v` in `cost`: into the store when it depends
    /// on no failure, then into the slots.
    pub(super) fn accept(
        &mut self,
        plan: &Plan,
        v: usize,
        taint: Taint,
        pulled: &[u64],
        cost: Duration,
        runner: &mut Runner,
    ) {
        if let (Some(store), true, None) = (&self.store, plan.class(v) != Class::Volatile, &taint) {
            let key = self.keys[v];
            for (p, val) in self.scratch_out.iter().enumerate() {
                store.insert(key.port(p), val.clone(), cost);
            }
        }
        self.settle(plan, v, taint, pulled, runner);
    }
}

impl State {
    /// Take `scratch_out` as node `v`'s new result: unchanged bits are an early cutoff.
    pub(super) fn settle(
        &mut self,
        plan: &Plan,
        v: usize,
        taint: Taint,
        pulled: &[u64],
        runner: &mut Runner,
    ) {
        let me = self.info[v];
        let n = plan.n_outputs(v);
        let off = plan.output_offset(v);
        // A released value is compared by the hash it had.
        let gone = self.gone.get_mut(v).and_then(Option::take);
        // An injective node that ran without being edited itself ran because an input
        // changed, so its result changed: nothing to compare.
        let changed = plan.op(v).spec().injective && !me.dirty;
        let same = me.has_value
            && self.taints[v].is_none()
            && taint.is_none()
            && match gone {
                Some(h) => outputs_hash(&self.scratch_out) == h,
                None if changed => false,
                None => self
                    .scratch_out
                    .iter()
                    .zip(&self.vals[off..off + n])
                    .all(|(a, b)| a.same_bits(b)),
            };
        if same {
            runner.mark_cut_off(v);
        }
        if same && gone.is_some() {
            runner.stats.cutoffs += 1;
            for (p, val) in self.scratch_out.drain(..).enumerate() {
                self.vals[off + p] = val;
            }
        } else if same {
            runner.stats.cutoffs += 1;
        } else {
            for (p, val) in self.scratch_out.drain(..).enumerate() {
                self.vals[off + p] = val;
            }
            self.info[v].changed_at = self.now;
        }
        if taint.is_some() {
            self.retry.push(v as u32);
        }
        match (self.taints[v].is_some(), taint.is_some()) {
            (false, true) => self.tainted += 1,
            (true, false) => self.tainted -= 1,
            _ => {}
        }
        self.taints[v] = taint;
        self.info[v].pulled = digest(pulled);
        self.verified(v);
    }
}

impl Retention for State {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        !self.fused && !self.stale.get(v)
    }
    fn vals(&self) -> &[Value] {
        &self.vals
    }
    fn taints(&self) -> &[Taint] {
        &self.taints
    }
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        if !self.must_run(plan, v, pulled, runner) {
            self.consumed(plan, v);
            return Ok(());
        }
        if let Some(k) = self.kernels.get(v)
            && self.store.is_none()
            && self.tainted == 0
            && runner.plain()
            && let Some(r) = k.eval(&self.vals)
        {
            // The scalar fast path: float inputs carry no taint.
            if runner.cancelled() {
                return Err(EvalError::Cancelled);
            }
            runner.executed_fast();
            self.store_float(v, k.out, r, runner);
            return Ok(());
        }
        let taint = gather(plan, v, &self.vals, &self.taints, pulled, scratch);
        let n = plan.n_outputs(v);
        self.scratch_out.clear();
        self.scratch_out.resize(n, Value::Empty);
        let started = self.store.as_ref().map(|_| Instant::now());
        let taint = runner.run(v, scratch, taint, &mut self.scratch_out)?;
        let cost = started.map_or(Duration::ZERO, |t0| t0.elapsed());
        self.accept(plan, v, taint, pulled, cost, runner);
        self.consumed(plan, v);
        Ok(())
    }
    fn par_must_run(&mut self, plan: &Plan, v: usize, runner: &mut Runner) -> bool {
        let must = self.must_run(plan, v, &[], runner);
        if !must {
            self.consumed(plan, v);
        }
        must
    }
    fn par_finish(
        &mut self,
        plan: &Plan,
        v: usize,
        out: Vec<Value>,
        taint: Taint,
        runner: &mut Runner,
    ) {
        self.scratch_out = out;
        self.accept(plan, v, taint, &[], Duration::ZERO, runner);
        self.consumed(plan, v);
    }

    /// The straight-line loop over the visit list: stale scalar-kernel nodes run on raw
    /// floats, current ones are cleared; stops at the first node that needs the full step.
    #[inline]
    fn run_visit(
        &mut self,
        plan: &Plan,
        block: &[u32],
        visit: &[u32],
        i: usize,
        runner: &mut Runner,
    ) -> usize {
        if self.tainted != 0 || !runner.plain() || self.store.is_some() || self.fused {
            return i;
        }
        self.kernel_walk(plan, block, i, |c| visit.get(c).copied(), runner)
    }

    /// The straight-line loop for stale scalar-kernel nodes: the up-to-date check reads the
    /// node's wired sources from the topology, the result is compared with the old bits.
    #[inline]
    fn run_kernels(
        &mut self,
        plan: &Plan,
        block: &[u32],
        pos: usize,
        runner: &mut Runner,
        _fresh: bool,
    ) -> usize {
        if self.tainted != 0 || !runner.plain() || self.store.is_some() {
            return pos;
        }
        self.kernel_walk(
            plan,
            block,
            pos,
            |c| (c < block.len()).then_some(c as u32),
            runner,
        )
    }
}

impl State {
    /// The kernel loop behind [`Retention::run_kernels`] and [`Retention::run_visit`]: walks
    /// cursor `cur` on, visiting block position `at(cur)`, while nodes are current or have a
    /// scalar kernel; returns the cursor of the first node that needs the full step.
    #[inline(always)]
    pub(super) fn kernel_walk(
        &mut self,
        plan: &Plan,
        block: &[u32],
        mut cur: usize,
        at: impl Fn(usize) -> Option<u32>,
        runner: &mut Runner,
    ) -> usize {
        let topo = plan.topology();
        let mut n = 0u32;
        let (mut last_slot, mut last) = (u32::MAX, 0.0);
        while let Some(p) = at(cur) {
            let Some(&v) = block.get(p as usize) else {
                break;
            };
            let v = v as usize;
            if self.fused || self.stale.get(v) {
                let me = self.info[v];
                let Some(k) = self.kernels.get(v) else { break };
                let changed = me.dirty
                    || !me.has_value
                    || topo
                        .preds(v)
                        .iter()
                        .any(|&u| self.info[u as usize].changed_at > me.verified_at);
                if changed {
                    let Some(r) = k.eval_after(&self.vals, last_slot, last) else {
                        break;
                    };
                    n = n.wrapping_add(1);
                    if n & 255 == 0 && runner.cancelled() {
                        break;
                    }
                    runner.executed_fast();
                    self.store_float(v, k.out, r, runner);
                    (last_slot, last) = (k.out, r);
                } else {
                    let now = self.now;
                    self.unstale(v);
                    self.info[v].verified_at = now;
                    runner.stats.cache_hits += 1;
                }
            }
            cur += 1;
        }
        cur
    }
}

impl State {
    /// Node `v` is up to date for this run: its inputs have one reader fewer, and those with
    /// none left are released (their hashes kept in `gone`).
    #[inline]
    fn consumed(&mut self, plan: &Plan, v: usize) {
        if !self.release.record {
            return;
        }
        self.release.consumed(plan, v, &mut self.vals);
        for (u, h) in self.release.released.drain(..) {
            if let Some(g) = self.gone.get_mut(u as usize) {
                *g = Some(h);
            }
        }
    }

    /// Store a kernel's result: unchanged bits are an early cutoff.
    #[inline(always)]
    pub(super) fn store_float(&mut self, v: usize, out: u32, r: f64, runner: &mut Runner) {
        let slot = &mut self.vals[out as usize];
        if self.info[v].has_value
            && matches!(slot, Value::Float(old) if old.to_bits() == r.to_bits())
        {
            runner.stats.cutoffs += 1;
            runner.mark_cut_off(v);
        } else {
            set_float(slot, r);
            self.info[v].changed_at = self.now;
        }
        self.verified(v);
    }
}
