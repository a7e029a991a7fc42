//! The incremental evaluator: push invalidation, pull computation, early cutoff.
//!
//! Values stay in slots between requests. An edit, a context change or a volatile node marks
//! the node *dirty* and its downstream cone *stale* (push). A request brings only the stale
//! nodes of its cone up to date (pull), in the compiled schedule's order, starting at the
//! first stale position it holds. A stale node whose inputs all kept their bits since it was
//! last verified is cleared without running; a node that runs and produces the same bits as
//! before leaves its dependents clean (early cutoff). A request with nothing stale touches only
//! the outputs it asks for.

use super::exec::{Prepared, Runner, Taint, gather};
use super::executor::{Executor, Strategy};
use super::host::{Host, resolve_roots};
use super::kernel::{Kernels, set_float};
use super::pull::{digest, is_pulled};
use super::schedule::{Edges, NONE, ScheduleCache};
use super::slot_walk::run_preemptive;
use super::{CancelMode, EvalError, Evaluator, Outputs, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::graph::Graph;
use crate::key::{Key, KeyHasher};
use crate::op::Purity;
use crate::plan::{Class, Plan, Source};
use crate::registry::Registry;
use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The context fields that can change a node's result, compared between requests.
#[derive(Clone, PartialEq)]
struct CtxPrint {
    time: u64,
    frame: i64,
    dt: u64,
    seed: u64,
    preview: bool,
    resolution: Option<(u32, u32)>,
    inputs: BTreeMap<String, Value>,
    latches: BTreeMap<String, Value>,
}

impl CtxPrint {
    fn of(c: &EvalContext) -> Self {
        CtxPrint {
            time: c.time.to_bits(),
            frame: c.frame,
            dt: c.dt.to_bits(),
            seed: c.seed,
            preview: c.preview,
            resolution: c.resolution,
            inputs: c.inputs.clone(),
            latches: c.latches.clone(),
        }
    }
    fn same(&self, c: &EvalContext) -> bool {
        self.time == c.time.to_bits()
            && self.frame == c.frame
            && self.dt == c.dt.to_bits()
            && self.seed == c.seed
            && self.preview == c.preview
            && self.resolution == c.resolution
            && self.inputs.len() == c.inputs.len()
            && self
                .inputs
                .iter()
                .zip(&c.inputs)
                .all(|((a, x), (b, y))| a == b && x.same_bits(y))
            && self.latches.len() == c.latches.len()
            && self
                .latches
                .iter()
                .zip(&c.latches)
                .all(|((a, x), (b, y))| a == b && x.same_bits(y))
    }
}

/// What the incremental evaluator keeps per node (one record, so a node's bookkeeping is one
/// cache line).
#[derive(Clone, Copy, Default)]
struct NodeInfo {
    /// The request at which the node's value last changed bits.
    changed_at: u64,
    /// The request at which the node was last brought up to date.
    verified_at: u64,
    /// The lazy inputs the node pulled when it last ran (see [`digest`]).
    pulled: u64,
    /// Must run: its own params, context or volatility changed, or it never ran.
    dirty: bool,
    /// Its slots hold a value computed by this evaluator.
    has_value: bool,
}

/// Per-node state kept between requests.
#[derive(Default)]
struct State {
    /// Per node: its scalar kernel, when it has one.
    kernels: Kernels,
    vals: Vec<Value>,
    taints: Vec<Taint>,
    info: Vec<NodeInfo>,
    /// One bit per node: it may need work (it is downstream of a change). Kept apart from
    /// `info` so marking a cone touches a small, dense bitmap.
    stale: Bits,
    /// How many nodes hold a taint (the scalar fast path needs none anywhere).
    tainted: usize,
    now: u64,
    stale_count: usize,
    scratch_out: Vec<Value>,
    /// Nodes whose result depends on a failure: made dirty again after the request.
    retry: Vec<u32>,
    /// This run checks every node from its start position, stale bit or not (invalidations
    /// were deferred; see [`IncrementalEvaluator::invalidate`]).
    fused: bool,
    /// A shared store consulted before running a node and fed after (see [`crate::cache`]).
    store: Option<Arc<Store>>,
    /// Per node, its content key as of its last visit (kept only with a store).
    keys: Vec<Key>,
}

impl State {
    /// Mark node `v` up to date as of this request.
    #[inline(always)]
    fn verified(&mut self, v: usize) {
        let now = self.now;
        self.unstale(v);
        let i = &mut self.info[v];
        i.dirty = false;
        i.has_value = true;
        i.verified_at = now;
    }

    #[inline(always)]
    fn unstale(&mut self, v: usize) {
        if self.stale.get(v) {
            self.stale.clear(v);
            self.stale_count -= 1;
        }
    }
}

impl State {
    #[inline]
    fn is_done_impl(&self, v: usize) -> bool {
        !self.fused && !self.stale.get(v)
    }
    /// The look at stale node `v` before it may run: cleared when none of the inputs it uses
    /// changed since it was verified, taken from the store when its key is there. Returns
    /// whether it must run.
    fn must_run(&mut self, plan: &Plan, v: usize, pulled: &[u64], runner: &mut Runner) -> bool {
        // A lazy node's inputs that matter are the ones it pulled (now brought up to date);
        // pulling a different set than last time is itself a change.
        let lazy = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
        let me = self.info[v];
        let must = me.dirty
            || !me.has_value
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
        {
            // Computed before, by this or another evaluator: take it as if it ran.
            runner.stats.cache_hits += 1;
            self.settle(plan, v, None, pulled, runner);
            return false;
        }
        true
    }

    fn step_impl(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        if !self.must_run(plan, v, pulled, runner) {
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
        Ok(())
    }

    /// Take `scratch_out`, just computed for `v` in `cost`: into the store when it depends
    /// on no failure, then into the slots.
    fn accept(
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
    fn settle(&mut self, plan: &Plan, v: usize, taint: Taint, pulled: &[u64], runner: &mut Runner) {
        let me = self.info[v];
        let n = plan.n_outputs(v);
        let off = plan.output_offset(v);
        let same = me.has_value
            && self.taints[v].is_none()
            && taint.is_none()
            && self
                .scratch_out
                .iter()
                .zip(&self.vals[off..off + n])
                .all(|(a, b)| a.same_bits(b));
        if same {
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

impl Strategy for State {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        self.is_done_impl(v)
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
        self.step_impl(plan, v, pulled, runner, scratch)
    }
    fn par_begin(
        &mut self,
        plan: &Plan,
        v: usize,
        runner: &mut Runner,
    ) -> Result<Option<(Vec<Value>, Taint)>, EvalError> {
        if !self.must_run(plan, v, &[], runner) {
            return Ok(None);
        }
        let mut inputs = vec![];
        let taint = gather(plan, v, &self.vals, &self.taints, &[], &mut inputs);
        self.scratch_out.clear();
        self.scratch_out.resize(plan.n_outputs(v), Value::Empty);
        match runner.prepare(v, &inputs, &taint, &mut self.scratch_out)? {
            Prepared::Propagated(t) => {
                self.settle(plan, v, t, &[], runner);
                Ok(None)
            }
            Prepared::Run => Ok(Some((inputs, taint))),
        }
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
    /// The kernel loop behind [`Strategy::run_kernels`] and [`Strategy::run_visit`]: walks
    /// cursor `cur` on, visiting block position `at(cur)`, while nodes are current or have a
    /// scalar kernel; returns the cursor of the first node that needs the full step.
    #[inline(always)]
    fn kernel_walk(
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
    /// Store a kernel's result: unchanged bits are an early cutoff.
    #[inline(always)]
    fn store_float(&mut self, v: usize, out: u32, r: f64, runner: &mut Runner) {
        let slot = &mut self.vals[out as usize];
        if self.info[v].has_value
            && matches!(slot, Value::Float(old) if old.to_bits() == r.to_bits())
        {
            runner.stats.cutoffs += 1;
        } else {
            set_float(slot, r);
            self.info[v].changed_at = self.now;
        }
        self.verified(v);
    }
}

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
    exec: Executor,
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
            exec: Executor::default(),
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

    /// Build the plan of `graph` after a structural edit. Values survive where they still
    /// hold: a node with the same id, op, params, constants and wiring (by source ids) as
    /// before keeps its value and is only checked; a node of the same id that changed keeps
    /// its old value only to compare with (an early cutoff when it computes the same bits).
    /// So only the changed nodes and what their new values reach are recomputed.
    fn rebuild(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        let plan = Arc::new(self.host.build(graph)?);
        let n = plan.len();
        // Deferred invalidations become stale marks first, so "not stale" below means "up to
        // date" for every old node.
        if let Some(old) = self.host.plan().cloned()
            && !self.pending.is_empty()
        {
            self.flush(&old);
        }
        let old_plan = self.host.plan_mut().take();
        let old_state = std::mem::take(&mut self.state);
        let st = &mut self.state;
        st.store = old_state.store.clone();
        st.now = old_state.now;
        st.kernels = Kernels::new(&plan);
        st.vals = vec![Value::Empty; plan.total_outputs() + st.kernels.extra()];
        st.kernels.lower_all(&plan, &mut st.vals);
        st.taints = vec![None; n];
        st.info = vec![
            NodeInfo {
                dirty: true,
                ..NodeInfo::default()
            };
            n
        ];
        st.keys = vec![Key::default(); n];
        st.stale = Bits::ones(n);
        st.tainted = 0;
        st.stale_count = n;
        st.retry.clear();
        let mut old_reader_hash: std::collections::HashMap<u32, Key> = Default::default();
        let mut old_of = vec![u32::MAX; n];
        if let Some(old) = &old_plan {
            for (i, &r) in self.readers.iter().enumerate() {
                if let Some(h) = self.reader_hash.get(i) {
                    old_reader_hash.insert(r, *h);
                }
            }
            let index: std::collections::HashMap<&str, usize> =
                (0..old.len()).map(|u| (old.id(u).as_str(), u)).collect();
            for (v, old_v) in old_of.iter_mut().enumerate() {
                let Some(&u) = index.get(plan.id(v).as_str()) else {
                    continue;
                };
                let k = plan.n_outputs(v);
                if old.n_outputs(u) != k
                    || !old_state.info.get(u).is_some_and(|i| i.has_value)
                    || old_state.taints.get(u).is_none_or(|t| t.is_some())
                {
                    continue;
                }
                *old_v = u as u32;
                let (no, oo) = (plan.output_offset(v), old.output_offset(u));
                st.vals[no..no + k].clone_from_slice(&old_state.vals[oo..oo + k]);
                st.keys[v] = old_state.keys.get(u).copied().unwrap_or_default();
                let same_def = old.definition_key(u) == plan.definition_key(v)
                    && plan.inputs(v).len() == old.inputs(u).len()
                    && plan
                        .inputs(v)
                        .iter()
                        .zip(old.inputs(u))
                        .all(|(a, b)| match (a, b) {
                            (
                                Source::Wire { node: x, port: p },
                                Source::Wire { node: y, port: q },
                            ) => p == q && plan.id(*x as usize) == old.id(*y as usize),
                            (Source::Wire { .. }, _) | (_, Source::Wire { .. }) => false,
                            _ => true,
                        });
                // Clean only if it was up to date before the edit, too.
                let was_current = !old_state.info[u].dirty && !old_state.stale.get(u);
                st.info[v] = NodeInfo {
                    changed_at: 0,
                    verified_at: 0,
                    pulled: old_state.info[u].pulled,
                    dirty: !(same_def && was_current),
                    has_value: true,
                };
            }
        }
        self.readers.clear();
        self.volatile.clear();
        for v in 0..n {
            match plan.op(v).spec().purity {
                Purity::Pure => {}
                Purity::Clock | Purity::UserInput => self.readers.push(v as u32),
                Purity::Stateful | Purity::SideEffect => self.volatile.push(v as u32),
            }
        }
        // A reader that kept its definition keeps what it read, so only a context change
        // since then re-runs it.
        self.reader_hash = self
            .readers
            .iter()
            .map(|&v| {
                let u = old_of[v as usize];
                match (u, self.state.info[v as usize].dirty) {
                    (u, false) if u != u32::MAX => {
                        old_reader_hash.get(&u).copied().unwrap_or_default()
                    }
                    _ => Key::default(),
                }
            })
            .collect();
        for (i, &v) in self.readers.iter().enumerate() {
            if self.reader_hash[i] == Key::default() {
                self.state.info[v as usize].dirty = true;
            }
        }
        if old_plan.is_none() {
            self.last_ctx = None;
        }
        self.schedules.clear();
        self.pending.clear();
        self.host.install(plan.clone());
        Ok(plan)
    }

    /// Mark `v` dirty and its downstream cone stale. When the most recently used schedule
    /// is self-contained and holds `v`, marking is deferred: every node of `v`'s cone comes
    /// after it in that schedule, so its next run checks them all from `v` on; any other
    /// request first marks the deferred cones ([`IncrementalEvaluator::flush`]).
    fn invalidate(&mut self, plan: &Plan, v: usize) {
        self.state.info[v].dirty = true;
        if self.state.stale.get(v) {
            return;
        }
        if let Some(front) = self.schedules.front_mut()
            && front.self_contained
            && front.main_pos[v] != NONE
            && (self.pending.is_empty() || self.pending_roots == front.roots)
        {
            // A small cone is marked at once, so the next request visits only it; marking a
            // large one is cut short and deferred to a run that checks everything after it.
            let budget = front.main_len() / 8 + 64;
            if self.mark_limited(plan, v, budget) {
                return;
            }
            let Some(front) = self.schedules.front_mut() else {
                return;
            };
            if self.pending.is_empty() {
                self.pending_roots.clone_from(&front.roots);
            }
            front.first_stale = front.first_stale.min(front.main_pos[v]);
            self.pending.push(v as u32);
            return;
        }
        self.mark(plan, v);
    }

    /// Mark the cones of deferred invalidations stale.
    fn flush(&mut self, plan: &Plan) {
        let pending = std::mem::take(&mut self.pending);
        for &v in &pending {
            self.mark(plan, v as usize);
        }
        for s in self.schedules.iter_mut() {
            s.first_stale = 0;
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Mark `v` and its downstream cone stale.
    fn mark(&mut self, plan: &Plan, v: usize) {
        self.mark_limited(plan, v, usize::MAX);
    }

    /// Mark `v` and its downstream cone stale, stopping after `limit` nodes; returns whether
    /// the whole cone was marked.
    fn mark_limited(&mut self, plan: &Plan, v: usize, limit: usize) -> bool {
        if self.state.stale.get(v) {
            return true;
        }
        let mut scheds = self.schedules.iter_mut();
        let mut front = scheds.next();
        for s in scheds {
            s.first_stale = 0;
        }
        let topo = plan.topology();
        let stale = &mut self.state.stale;
        // Without lazy blocks every path between main-block nodes runs through eager edges,
        // so each descendant of `v` comes after it: `v`'s position is the new first stale one.
        let exact = front.as_deref_mut().and_then(|s| {
            let p = s.main_pos[v];
            (p != NONE && s.blocks.len() == 1).then(|| {
                s.first_stale = s.first_stale.min(p);
            })
        });
        let mut track = if exact.is_some() { None } else { front };
        let mut newly = 0usize;
        self.mark_stack.clear();
        self.mark_stack.push(v as u32);
        let mut complete = true;
        'walk: while let Some(u) = self.mark_stack.pop() {
            // Follow single successors without the stack (chains).
            let mut u = u as usize;
            while !stale.get(u) {
                if newly >= limit {
                    complete = false;
                    break 'walk;
                }
                stale.set(u);
                newly += 1;
                if let Some(s) = track.as_deref_mut() {
                    let p = s.main_pos[u];
                    if p < s.first_stale {
                        s.first_stale = p;
                    }
                }
                let succ = topo.succs(u);
                let Some((&first, rest)) = succ.split_first() else {
                    break;
                };
                for &w in rest {
                    if !stale.get(w as usize) {
                        self.mark_stack.push(w);
                    }
                }
                u = first as usize;
            }
        }
        self.state.stale_count += newly;
        complete
    }

    /// Bring the plan and the stale marks up to `graph` and `ctx`.
    fn sync(&mut self, graph: &Graph, ctx: &EvalContext) -> Result<(Arc<Plan>, bool), EvalError> {
        let rev = graph.revision();
        let mut planned = false;
        let plan = match self.host.plan_mut() {
            Some(p) if p.revision() == rev => p.clone(),
            Some(p) if p.revision().uid == rev.uid && p.revision().structure == rev.structure => {
                let edits = graph.data_edits_since(p.revision().data);
                match edits {
                    Some(e) if Arc::get_mut(p).is_some_and(|p| p.update_data(graph, &e)) => {
                        let p = p.clone();
                        for v in e {
                            self.state.kernels.lower(&p, v, &mut self.state.vals);
                            self.invalidate(&p, v);
                        }
                        p
                    }
                    _ => {
                        planned = true;
                        self.rebuild(graph)?
                    }
                }
            }
            _ => {
                planned = true;
                self.rebuild(graph)?
            }
        };
        if self.last_ctx.as_ref().is_none_or(|c| !c.same(ctx)) {
            for i in 0..self.readers.len() {
                let v = self.readers[i] as usize;
                let mut h = KeyHasher::new();
                plan.hash_context(v, ctx, &mut h);
                let k = h.finish_key();
                if k != self.reader_hash[i] || !self.state.info[v].has_value {
                    self.reader_hash[i] = k;
                    self.invalidate(&plan, v);
                }
            }
            self.last_ctx = Some(CtxPrint::of(ctx));
        }
        for i in 0..self.volatile.len() {
            let v = self.volatile[i] as usize;
            self.invalidate(&plan, v);
        }
        Ok((plan, planned))
    }
}

impl Evaluator for IncrementalEvaluator {
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
        let fused = !self.pending.is_empty() && self.pending_roots == roots;
        if !self.pending.is_empty() && !fused {
            self.flush(&plan);
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
        let use_visit = !fused && self.state.stale_count * 4 < main_len.saturating_sub(start);
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
        let par = self.host.pools.resolve(&self.host.parallel)?;
        let r = self.exec.run(
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

/// A fixed-size bitmap.
#[derive(Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn ones(n: usize) -> Self {
        let mut b = Bits(vec![u64::MAX; n.div_ceil(64)]);
        if !n.is_multiple_of(64)
            && let Some(last) = b.0.last_mut()
        {
            *last = (1u64 << (n % 64)) - 1;
        }
        b
    }
    /// Call `f` with the index of each set bit, ascending.
    #[inline]
    fn for_each_one(&self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> bool {
        self.0[i >> 6] & (1 << (i & 63)) != 0
    }
    #[inline(always)]
    fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
    #[inline(always)]
    fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1 << (i & 63));
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
