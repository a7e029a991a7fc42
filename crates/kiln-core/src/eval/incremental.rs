//! The incremental evaluator: push invalidation, pull computation, early cutoff.
//!
//! Values stay in slots between requests. An edit, a context change or a volatile node marks
//! the node *dirty* and its downstream cone *stale* (push). A request brings only the stale
//! nodes of its cone up to date (pull), in the compiled schedule's order, starting at the
//! first stale position it holds. A stale node whose inputs all kept their bits since it was
//! last verified is cleared without running; a node that runs and produces the same bits as
//! before leaves its dependents clean (early cutoff). A request with nothing stale touches only
//! the outputs it asks for.

use super::eager::detached;
use super::exec::{Runner, Taint, first_error, gather};
use super::lazy::resolve_roots;
use super::schedule::{Edges, Executor, KInstr, NONE, ScheduleCache, Strategy, lower};
use super::{CancelMode, EvalError, Evaluator, Outputs, Request, Stats};
use crate::context::EvalContext;
use crate::graph::Graph;
use crate::key::{Key, KeyHasher};
use crate::op::Purity;
use crate::plan::{Plan, Source};
use crate::registry::Registry;
use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

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
    }
}

/// Per-node state kept between requests.
#[derive(Default)]
struct State {
    /// Per node: its scalar kernel, when it has one.
    kernels: Vec<Option<KInstr>>,
    vals: Vec<Value>,
    taints: Vec<Taint>,
    /// May need work (downstream of a change).
    stale: Vec<bool>,
    /// Must run: its own params, context or volatility changed, or it never ran.
    dirty: Vec<bool>,
    has_value: Vec<bool>,
    /// The request at which the node's value last changed bits.
    changed_at: Vec<u64>,
    /// The request at which the node was last brought up to date.
    verified_at: Vec<u64>,
    /// The lazy inputs each node pulled when it last ran.
    pulled: Vec<u64>,
    /// How many nodes hold a taint (the scalar fast path needs none anywhere).
    tainted: usize,
    now: u64,
    stale_count: usize,
    scratch_out: Vec<Value>,
    /// Nodes whose result depends on a failure: made dirty again after the request.
    retry: Vec<u32>,
}

impl Strategy for State {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        !self.stale[v]
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
        pulled: u64,
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        // A lazy node's inputs that matter are the ones it pulled (now brought up to date);
        // pulling a different set than last time is itself a change.
        let lazy = plan.is_lazy(v).then(|| &plan.op(v).spec().inputs);
        let must = self.dirty[v]
            || !self.has_value[v]
            || self.taints[v].is_some()
            || (lazy.is_some() && self.pulled[v] != pulled)
            || plan.inputs(v).iter().enumerate().any(|(i, s)| match s {
                Source::Wire { node, .. } => {
                    let used =
                        lazy.is_none_or(|p| !p[i].lazy || (i < 64 && pulled & (1 << i) != 0));
                    used && self.changed_at[*node as usize] > self.verified_at[v]
                }
                _ => false,
            });
        if !must {
            self.stale[v] = false;
            self.stale_count -= 1;
            self.verified_at[v] = self.now;
            runner.stats.cache_hits += 1;
            return Ok(());
        }
        if let Some(k) = self.kernels[v]
            && self.tainted == 0
            && runner.plain()
            && let (Some(a), Some(b)) = (k.a.get(&self.vals), k.b.get(&self.vals))
        {
            // The scalar fast path: float inputs carry no taint.
            if runner.cancelled() {
                return Err(EvalError::Cancelled);
            }
            let r = k.apply(a, b);
            runner.executed_fast();
            let slot = &mut self.vals[k.out as usize];
            if self.has_value[v]
                && matches!(slot, Value::Float(old) if old.to_bits() == r.to_bits())
            {
                runner.stats.cutoffs += 1;
            } else {
                super::schedule::set_float(slot, r);
                self.changed_at[v] = self.now;
            }
            self.has_value[v] = true;
            self.dirty[v] = false;
            self.stale[v] = false;
            self.stale_count -= 1;
            self.verified_at[v] = self.now;
            return Ok(());
        }
        let taint = gather(plan, v, &self.vals, &self.taints, pulled, scratch);
        let n = plan.n_outputs(v);
        self.scratch_out.clear();
        self.scratch_out.resize(n, Value::Empty);
        let taint = runner.run(v, scratch, taint, &mut self.scratch_out)?;
        let off = plan.output_offset(v);
        let same = self.has_value[v]
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
            self.changed_at[v] = self.now;
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
        self.pulled[v] = pulled;
        self.has_value[v] = true;
        self.dirty[v] = false;
        self.stale[v] = false;
        self.stale_count -= 1;
        self.verified_at[v] = self.now;
        Ok(())
    }
}

/// Keeps values between requests and recomputes only what an edit or a context change can
/// have affected (see the module docs).
pub struct IncrementalEvaluator {
    registry: Registry,
    plan: Option<Arc<Plan>>,
    state: State,
    /// Nodes whose ops read the context, and the hash of what each read last time.
    readers: Vec<u32>,
    reader_hash: Vec<Key>,
    volatile: Vec<u32>,
    last_ctx: Option<CtxPrint>,
    schedules: ScheduleCache,
    exec: Executor,
    mark_stack: Vec<u32>,
    total: Stats,
}

impl IncrementalEvaluator {
    /// An incremental evaluator over the ops of `registry`.
    pub fn new(registry: Registry) -> Self {
        IncrementalEvaluator {
            registry,
            plan: None,
            state: State::default(),
            readers: vec![],
            reader_hash: vec![],
            volatile: vec![],
            last_ctx: None,
            schedules: ScheduleCache::default(),
            exec: Executor::default(),
            mark_stack: vec![],
            total: Stats::default(),
        }
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.total
    }
    /// Number of nodes waiting to be brought up to date.
    pub fn stale_count(&self) -> usize {
        self.state.stale_count
    }

    fn rebuild(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        let plan = Arc::new(Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?);
        let n = plan.len();
        let st = &mut self.state;
        st.kernels = (0..n).map(|v| lower(&plan, v)).collect();
        st.vals = vec![Value::Empty; plan.total_outputs()];
        st.taints = vec![None; n];
        st.stale = vec![true; n];
        st.dirty = vec![true; n];
        st.has_value = vec![false; n];
        st.changed_at = vec![0; n];
        st.verified_at = vec![0; n];
        st.pulled = vec![0; n];
        st.tainted = 0;
        st.stale_count = n;
        st.retry.clear();
        self.readers.clear();
        self.volatile.clear();
        for v in 0..n {
            match plan.op(v).spec().purity {
                Purity::Pure => {}
                Purity::Clock | Purity::UserInput => self.readers.push(v as u32),
                Purity::Stateful | Purity::SideEffect => self.volatile.push(v as u32),
            }
        }
        self.reader_hash = vec![Key::default(); self.readers.len()];
        self.last_ctx = None;
        self.schedules.clear();
        self.plan = Some(plan.clone());
        Ok(plan)
    }

    /// Mark `v` dirty and its downstream cone stale.
    fn invalidate(&mut self, plan: &Plan, v: usize) {
        self.state.dirty[v] = true;
        self.mark_stack.clear();
        self.mark_stack.push(v as u32);
        while let Some(u) = self.mark_stack.pop() {
            let u = u as usize;
            if self.state.stale[u] {
                continue;
            }
            self.state.stale[u] = true;
            self.state.stale_count += 1;
            for s in self.schedules.iter_mut() {
                let p = s.main_pos[u];
                if p != NONE && p < s.first_stale {
                    s.first_stale = p;
                }
            }
            for &w in plan.topology().succs(u) {
                if !self.state.stale[w as usize] {
                    self.mark_stack.push(w);
                }
            }
        }
    }

    /// Bring the plan and the stale marks up to `graph` and `ctx`.
    fn sync(&mut self, graph: &Graph, ctx: &EvalContext) -> Result<(Arc<Plan>, bool), EvalError> {
        let rev = graph.revision();
        let mut planned = false;
        let plan = match &mut self.plan {
            Some(p) if p.revision() == rev => p.clone(),
            Some(p) if p.revision().uid == rev.uid && p.revision().structure == rev.structure => {
                let edits = graph.data_edits_since(p.revision().data);
                match edits {
                    Some(e) if Arc::get_mut(p).is_some_and(|p| p.update_data(graph, &e)) => {
                        let p = p.clone();
                        for v in e {
                            self.state.kernels[v] = lower(&p, v);
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
                plan.op(v).hash_context(plan.params(v), ctx, &mut h);
                let k = h.finish_key();
                if k != self.reader_hash[i] || !self.state.has_value[v] {
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
            return detached(&self.registry, plan, roots, request, ctx, planned);
        }
        let (sched, built) = self.schedules.get(&plan, &roots, Edges::Eager);
        if built {
            let st = &self.state;
            sched.first_stale = sched.blocks[0]
                .iter()
                .position(|&v| st.stale[v as usize])
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
        let r = self
            .exec
            .run(&plan, sched, start, &mut self.state, &mut runner, None);
        sched.first_stale = if r.is_ok() { NONE } else { start as u32 };
        let values = collect(&self.state);
        let (stats, failures, timings) =
            runner.finish(&roots, &request.outputs, &self.state.taints);
        self.total.accumulate(&stats);
        // What depends on a failure is computed again next time.
        let retry = std::mem::take(&mut self.state.retry);
        for &v in &retry {
            self.invalidate(&plan, v as usize);
        }
        self.state.retry = retry;
        self.state.retry.clear();
        r?;
        if let Some(e) = first_error(&values, &request.errors) {
            return Err(e);
        }
        Ok(Outputs {
            values,
            stats,
            failures,
            timings,
        })
    }
}
