//! The pull walk: from each requested output down to what it needs, with explicit stacks.
//!
//! A request runs in two passes over the requested cone:
//! 1. **keys** ([`KeyPass`]): nodes whose class is not static get their key for this context;
//! 2. **values**: from each requested node, look its key up in the [`Memo`]; on a miss pull its
//!    eager inputs, then let the op pull lazy inputs one at a time ([`lazy_step`]), then run it.
//!
//! Because keys are known before values, a memo hit on a node means nothing beneath it is
//! visited. A failed, tainted or cancelled node's result is never kept.
//!
//! With release on ([`PullEngine::release`]), a heavy value (or a string or list) that is not
//! requested is dropped from the value slots and from the memo's own map once every reader
//! in the request's cone has run, so a long chain holds a few values at a time. (A reader
//! that was a memo hit, or an input a lazy op did not pull, keeps its value to the end of
//! the request.)

use crate::context::EvalContext;
use crate::eval::retention::memo::Memo;
use crate::eval::runner::kernel::{Kernels, set_float};
use crate::eval::runner::lazy_inputs::{LazyScratch, LazyStep, lazy_step};
use crate::eval::runner::pulled::PullSets;
use crate::eval::runner::{Runner, Taint, gather};
use crate::eval::walks::key_pass::KeyPass;
use crate::eval::{EvalError, Outputs, Request, Stats};
use crate::plan::{Class, Plan, Source};
use crate::value::Value;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
struct Frame {
    node: u32,
    state: u8,
}

const FRESH: u8 = 0;
const EAGER_READY: u8 = 1;
const PULLING: u8 = 2;

/// The pull walk with its retained results: what the lazy evaluator is, beside its host.
#[derive(Default)]
pub(crate) struct PullEngine {
    /// Results by key.
    pub(crate) memo: Memo,
    keys: KeyPass,
    /// Scalar kernels of the plan's nodes (see `eval::runner::kernel`).
    kernels: Kernels,
    /// Nodes given a taint in the current request (the kernel path needs none).
    tainted: usize,
    generation: u32,
    val_gen: Vec<u32>,
    vals: Vec<Value>,
    taints: Vec<Taint>,
    stack: Vec<Frame>,
    scratch_in: Vec<Value>,
    scratch_out: Vec<Value>,
    /// What each lazy node pulled so far in this request.
    pulls: PullSets,
    lazy_scratch: LazyScratch,
    /// Let go of intermediate values within a request (see the module docs).
    pub(crate) release: bool,
    /// Per node: its readers in the request's cone that have not run (`u32::MAX`: kept).
    left: Vec<u32>,
}

impl PullEngine {
    /// Size everything for `plan` (results kept by key survive: they are keyed by content).
    pub(crate) fn adopt(&mut self, plan: &Plan) {
        let n = plan.len();
        self.keys.reset(plan);
        self.val_gen = vec![0; n];
        self.kernels = Kernels::new(plan);
        self.vals = vec![Value::Empty; plan.total_outputs() + self.kernels.extra()];
        self.kernels.lower_all(plan, &mut self.vals);
        self.taints = vec![None; n];
        self.pulls = PullSets::new(plan);
        self.generation = 0;
    }

    /// Lower `nodes` again after a value edit changed their params or constants in place.
    pub(crate) fn relower(&mut self, plan: &Plan, nodes: &[usize]) {
        for &v in nodes {
            self.kernels.lower(plan, v, &mut self.vals);
        }
    }

    fn next_generation(&mut self) {
        if self.generation == u32::MAX {
            self.val_gen.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
    }

    /// Evaluate resolved `roots` (node, port) of `plan`, naming them `names`; the request's
    /// counters are added to `total`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_roots(
        &mut self,
        plan: &Plan,
        roots: &[(usize, usize)],
        names: &[String],
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
        total: &mut Stats,
    ) -> Result<Outputs, EvalError> {
        crate::eval::host::check_start(ctx)?;
        self.next_generation();
        self.keys.begin();
        self.tainted = 0;
        let mut runner = Runner::new(plan, ctx, request, || {
            let r: Vec<u32> = roots.iter().map(|&(n, _)| n as u32).collect();
            plan.topology().upstream(&r).len()
        });
        runner.stats.planned = planned;
        self.keys.compute(plan, roots, ctx, &mut runner.stats);
        if self.release {
            self.count_readers(plan, roots);
        }
        let mut values = Vec::with_capacity(roots.len());
        let mut result = Ok(());
        for (name, &(n, p)) in names.iter().zip(roots) {
            if let Err(e) = self.run(plan, n, &mut runner) {
                self.stack.clear();
                result = Err(e);
                break;
            }
            values.push((name.clone(), self.vals[plan.output_offset(n) + p].clone()));
        }
        runner.conclude(result, values, roots, request, &self.taints, total)
    }

    fn run(&mut self, plan: &Plan, root: usize, runner: &mut Runner) -> Result<(), EvalError> {
        let g = self.generation;
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
                    let key = self.keys.key(plan, v);
                    let off = plan.output_offset(v);
                    let slots = &mut self.vals[off..off + plan.n_outputs(v)];
                    if plan.class(v) != Class::Volatile
                        && self.memo.fetch(key, slots, plan.output_types(v))
                    {
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
                        self.execute(plan, v, runner)?;
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
                    )?;
                    match step {
                        LazyStep::Pull(i) => {
                            if let Source::Wire { node, .. } = plan.inputs(v)[i]
                                && self.val_gen[node as usize] != g
                            {
                                self.stack.push(Frame { node, state: FRESH });
                            }
                        }
                        LazyStep::Run => {
                            self.execute(plan, v, runner)?;
                            self.stack.pop();
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The readers of each node in the cone of `roots`, the roots kept.
    fn count_readers(&mut self, plan: &Plan, roots: &[(usize, usize)]) {
        let r: Vec<u32> = roots.iter().map(|&(n, _)| n as u32).collect();
        self.left.clear();
        self.left.resize(plan.len(), 0);
        for v in plan.topology().upstream(&r) {
            for s in plan.inputs(v as usize) {
                if let Source::Wire { node, .. } = s {
                    let l = &mut self.left[*node as usize];
                    *l = l.saturating_add(1);
                }
            }
        }
        for &n in &r {
            self.left[n as usize] = u32::MAX;
        }
    }

    /// Node `v` ran: each wired input it read has one reader fewer, and one with none left
    /// gives up its shared values (in the slots and the memo's own map).
    fn consumed(&mut self, plan: &Plan, v: usize) {
        let (vals, memo, keys) = (&mut self.vals, &mut self.memo, &mut self.keys);
        crate::eval::retention::release::count_down(&mut self.left, plan, v, |u| {
            let key = keys.key(plan, u);
            let off = plan.output_offset(u);
            for p in 0..plan.n_outputs(u) {
                let slot = &mut vals[off + p];
                if crate::eval::retention::release::is_shared(slot) {
                    *slot = Value::Empty;
                    memo.forget(key, p);
                }
            }
        });
    }

    fn execute(&mut self, plan: &Plan, v: usize, runner: &mut Runner) -> Result<(), EvalError> {
        let keep = plan.class(v) != Class::Volatile;
        if self.tainted == 0
            && runner.plain()
            && let Some(k) = self.kernels.get(v)
            && let Some(r) = k.eval(&self.vals)
        {
            // The scalar fast path (see `eval::runner::kernel`): float inputs, no taint anywhere.
            if runner.cancelled() {
                return Err(EvalError::Cancelled);
            }
            runner.executed_fast();
            if keep {
                let key = self.keys.key(plan, v);
                self.memo.keep(key, 0, &Value::Float(r), Duration::ZERO);
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
        let started = self.memo.store.as_ref().map(|_| Instant::now());
        let taint = runner.run(v, &self.scratch_in, taint, &mut self.scratch_out)?;
        let cost = started.map_or(Duration::ZERO, |t| t.elapsed());
        let key = self.keys.key(plan, v);
        let off = plan.output_offset(v);
        let keep = keep && taint.is_none();
        for (p, slot) in self.scratch_out.iter_mut().enumerate() {
            let val = std::mem::take(slot);
            if keep {
                self.memo.keep(key, p, &val, cost);
            }
            self.vals[off + p] = val;
        }
        self.tainted += taint.is_some() as usize;
        self.taints[v] = taint;
        self.val_gen[v] = self.generation;
        if self.release {
            self.consumed(plan, v);
        }
        Ok(())
    }
}
