//! Value slots with generation stamps: what the eager and compiled evaluators retain (one
//! value per output for the current request, nothing across plans), and what the keyed
//! schedule walk ([`keyed_walk`](crate::eval::walks::keyed_walk)) fills from and beside the memo.

use super::Retention;
use crate::eval::EvalError;
use crate::eval::retention::release::Release;
use crate::eval::runner::kernel::{Kernels, set_float};
use crate::eval::runner::op_call::execute_node;
use crate::eval::runner::{Runner, Taint, gather};
use crate::plan::{Plan, Source};
use crate::value::Value;

/// Value slots with generation stamps: the state of the eager and compiled evaluators.
#[derive(Default)]
pub(crate) struct Slots {
    /// Per node: its scalar kernel, when it has one.
    kernels: Kernels,
    pub(crate) vals: Vec<Value>,
    pub(crate) taints: Vec<Taint>,
    stamp: Vec<u32>,
    generation: u32,
    /// No node holds a taint in this request (the fast path's condition).
    untainted: bool,
    /// Intermediate values let go once read by their last consumer.
    pub(crate) release: Release,
}

impl Slots {
    /// Size the slots for `plan` and forget every value.
    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.kernels = Kernels::new(plan);
        self.vals = vec![Value::Empty; plan.total_outputs() + self.kernels.extra()];
        self.kernels.lower_all(plan, &mut self.vals);
        self.taints = vec![None; plan.len()];
        self.stamp = vec![0; plan.len()];
        self.generation = 0;
    }
    /// Lower `nodes` again after a value edit changed their params or constants.
    pub(crate) fn relower(&mut self, plan: &Plan, nodes: &[usize]) {
        for &v in nodes {
            self.kernels.lower(plan, v, &mut self.vals);
        }
    }

    /// Start a request: every node becomes not done.
    pub(crate) fn next_generation(&mut self) {
        if self.generation == u32::MAX {
            self.stamp.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        if !self.untainted {
            self.taints.fill(None);
        }
        self.untainted = true;
    }

    /// The output slots of node `v`.
    pub(crate) fn outputs_mut(&mut self, plan: &Plan, v: usize) -> &mut [Value] {
        let off = plan.output_offset(v);
        &mut self.vals[off..off + plan.n_outputs(v)]
    }

    /// Mark node `v` done with what its slots hold (a result found by key), untainted.
    pub(crate) fn mark_done(&mut self, v: usize) {
        self.taints[v] = None;
        self.stamp[v] = self.generation;
    }

    /// Record `v`'s taint and mark it done (its slots were written in place).
    pub(crate) fn settle(&mut self, v: usize, taint: Taint) {
        self.untainted &= taint.is_none();
        self.taints[v] = taint;
        self.stamp[v] = self.generation;
    }

    /// Take `out` as node `v`'s outputs for this request.
    pub(crate) fn store(&mut self, plan: &Plan, v: usize, out: Vec<Value>, taint: Taint) {
        let off = plan.output_offset(v);
        for (p, val) in out.into_iter().enumerate() {
            self.vals[off + p] = val;
        }
        self.untainted &= taint.is_none();
        self.taints[v] = taint;
        self.stamp[v] = self.generation;
    }
}

impl Retention for Slots {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        self.stamp[v] == self.generation
    }
    fn vals(&self) -> &[Value] {
        &self.vals
    }
    fn taints(&self) -> &[Taint] {
        &self.taints
    }
    #[inline]
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        let off = plan.output_offset(v);
        let n = plan.n_outputs(v);
        if self.untainted && !plan.is_lazy(v) && runner.plain() {
            if let Some(k) = self.kernels.get(v)
                && let Some(r) = k.eval(&self.vals)
            {
                if runner.cancelled() {
                    return Err(EvalError::Cancelled);
                }
                set_float(&mut self.vals[k.out as usize], r);
                runner.executed_fast();
                self.stamp[v] = self.generation;
                return Ok(());
            }
            // The fast path: no taint anywhere, nothing to report per node.
            scratch.clear();
            for s in plan.inputs(v) {
                scratch.push(match s {
                    Source::Wire { node, port } => {
                        self.vals[plan.output_offset(*node as usize) + *port as usize].clone()
                    }
                    Source::Const(c) => c.clone(),
                    Source::Empty => Value::Empty,
                });
            }
            if runner.cancelled() {
                return Err(EvalError::Cancelled);
            }
            let out = &mut self.vals[off..off + n];
            match execute_node(plan, v, scratch, runner.op_ctx(), out) {
                Ok(()) => runner.executed_fast(),
                Err(e) => {
                    let t = runner.complete(v, Err(e), None, out)?;
                    self.untainted &= t.is_none();
                    self.taints[v] = t;
                }
            }
            self.stamp[v] = self.generation;
            scratch.clear();
            self.release.consumed(plan, v, &mut self.vals);
            return Ok(());
        }
        let taint = gather(plan, v, &self.vals, &self.taints, pulled, scratch);
        let t = runner.run(v, scratch, taint, &mut self.vals[off..off + n])?;
        self.settle(v, t);
        scratch.clear();
        self.release.consumed(plan, v, &mut self.vals);
        Ok(())
    }
    fn par_finish(
        &mut self,
        plan: &Plan,
        v: usize,
        out: Vec<Value>,
        taint: Taint,
        _runner: &mut Runner,
    ) {
        self.store(plan, v, out, taint);
        self.release.consumed(plan, v, &mut self.vals);
    }
    fn par_chains(&self) -> bool {
        true
    }
    #[inline]
    fn run_kernels(
        &mut self,
        _plan: &Plan,
        block: &[u32],
        pos: usize,
        runner: &mut Runner,
        fresh: bool,
    ) -> usize {
        if !self.untainted || !runner.plain() {
            return pos;
        }
        if fresh {
            self.kernel_loop::<false>(block, pos, runner)
        } else {
            self.kernel_loop::<true>(block, pos, runner)
        }
    }
}

impl Slots {
    /// The loop of [`Retention::run_kernels`]: with `MARKS`, skip nodes already done and mark
    /// the ones run; without, neither (see `fresh`).
    ///
    /// Never inlined: compiled on its own, away from the large walk that calls it once per
    /// block, the loop keeps its forwarded result and operands in registers (the standard
    /// chain ran about 10 % faster this way than inlined).
    #[inline(never)]
    fn kernel_loop<const MARKS: bool>(
        &mut self,
        block: &[u32],
        mut pos: usize,
        runner: &mut Runner,
    ) -> usize {
        let generation = self.generation;
        let mut executed = 0u64;
        let (mut last_slot, mut last) = (u32::MAX, 0.0);
        while let Some(&v) = block.get(pos) {
            let v = v as usize;
            let Some(k) = self.kernels.get(v) else { break };
            if !MARKS || self.stamp[v] != generation {
                let Some(r) = k.eval_after(&self.vals, last_slot, last) else {
                    break;
                };
                // Cancellation is checked between nodes, here every 256 kernels (about a
                // microsecond of work).
                if executed & 255 == 255 && runner.cancelled() {
                    break;
                }
                set_float(&mut self.vals[k.out as usize], r);
                (last_slot, last) = (k.out, r);
                if MARKS {
                    self.stamp[v] = generation;
                }
                executed += 1;
            }
            pos += 1;
        }
        runner.stats.executed += executed;
        pos
    }
}

/// The report of an evaluator holding `slots` for `plan` (eager and compiled).
pub(crate) fn report(
    name: &str,
    slots: &[Value],
    plan: Option<&Plan>,
) -> crate::cache::MemoryReport {
    let mut r = crate::cache::MemoryReport::default();
    let held = slots.iter().filter(|v| !matches!(v, Value::Empty)).count();
    r.add(name, held, slots.iter().map(Value::byte_size).sum());
    if let Some(p) = plan {
        r.add("plan", p.len(), p.approx_bytes());
    }
    r
}
