//! The schedule walk with retention by key: how an evaluator whose results live in a memo or
//! a shared store runs a compiled schedule (the lazy evaluator under a parallel policy, the
//! eager and compiled evaluators with a store).
//!
//! Before the walk, the key pass computes the cone's keys and a *needed* pass goes down from
//! the requested nodes, taking every node found by key from the memo and stopping there: what
//! lies only beneath a hit is never visited, as under the pull walk. The schedule walk then
//! runs the needed nodes (in parallel levels where the policy says so), keeping each result
//! that depends on no failure under its key.

use super::schedule_walk::ScheduleWalk;
use crate::context::EvalContext;
use crate::eval::host::Host;
use crate::eval::retention::Retention;
use crate::eval::retention::memo::Memo;
use crate::eval::retention::slots::Slots;
use crate::eval::runner::{Runner, Taint, gather};
use crate::eval::walks::key_pass::KeyPass;
use crate::eval::walks::schedule::{Edges, ScheduleCache};
use crate::eval::{EvalError, Outputs, Request};
use crate::plan::{Class, Plan, Source};
use crate::value::Value;
use std::time::{Duration, Instant};

/// The parts of a keyed schedule walk.
#[derive(Default)]
pub(crate) struct KeyedEngine {
    schedules: ScheduleCache,
    slots: Slots,
    keys: KeyPass,
    walk: ScheduleWalk,
    /// Per node: the request that found it needed (it must run).
    needed: Vec<u32>,
    request_no: u32,
    stack: Vec<u32>,
    /// Follow every input (the eager evaluator) or leave lazy inputs to their blocks.
    pub(crate) edges: Option<Edges>,
}

impl KeyedEngine {
    /// An engine whose cones follow `edges`.
    pub(crate) fn with_edges(edges: Edges) -> Self {
        KeyedEngine {
            edges: Some(edges),
            ..KeyedEngine::default()
        }
    }

    /// Size everything for `plan`.
    pub(crate) fn adopt(&mut self, plan: &Plan) {
        self.schedules.clear();
        self.slots.reset(plan);
        self.keys.reset(plan);
        self.needed = vec![0; plan.len()];
        self.request_no = 0;
    }

    /// After a value edit in place.
    pub(crate) fn relower(&mut self, plan: &Plan, nodes: &[usize]) {
        self.slots.relower(plan, nodes);
    }

    /// Run the cone of `cone` (reporting `roots`) with results looked up in and kept in `memo`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_cone(
        &mut self,
        host: &mut Host,
        memo: &mut Memo,
        plan: &Plan,
        cone: &[(usize, usize)],
        roots: &[(usize, usize)],
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
        defer: bool,
    ) -> Result<Outputs, EvalError> {
        crate::eval::host::check_start(ctx)?;
        if self.needed.len() != plan.len() {
            self.adopt(plan);
        }
        let edges = self.edges.unwrap_or(Edges::Eager);
        let (sched, built) = self.schedules.get(plan, cone, edges);
        let par = host.pools.resolve(&host.parallel)?;
        self.slots.next_generation();
        self.keys.begin();
        if self.request_no == u32::MAX {
            self.needed.fill(0);
            self.request_no = 0;
        }
        self.request_no += 1;
        let main_len = sched.main_len();
        let mut runner = Runner::new(plan, ctx, request, || main_len);
        if defer {
            runner.defer_failures();
        }
        runner.stats.planned = planned || built;
        self.keys.compute(plan, cone, ctx, &mut runner.stats);
        // The needed pass: down from the requested nodes, stopping at results found by key.
        self.stack.clear();
        self.stack.extend(cone.iter().map(|&(n, _)| n as u32));
        let now = self.request_no;
        while let Some(v) = self.stack.pop() {
            let v = v as usize;
            if self.needed[v] == now || self.slots.is_done(v) {
                continue;
            }
            let key = self.keys.key(plan, v);
            if plan.class(v) != Class::Volatile
                && memo.fetch(key, self.slots.outputs_mut(plan, v), plan.output_types(v))
            {
                self.slots.mark_done(v);
                runner.stats.cache_hits += 1;
                continue;
            }
            self.needed[v] = now;
            for s in plan.inputs(v) {
                if let Source::Wire { node, .. } = s {
                    self.stack.push(*node);
                }
            }
        }
        let mut walk = Keyed {
            slots: &mut self.slots,
            keys: &self.keys,
            memo,
            needed: &self.needed,
            now,
            timed: host.store.is_some(),
        };
        let r = self
            .walk
            .run(plan, sched, 0, &mut walk, &mut runner, par.as_ref(), None);
        let values = roots
            .iter()
            .zip(&request.outputs)
            .map(|(&(n, p), name)| {
                (
                    name.clone(),
                    self.slots.vals[plan.output_offset(n) + p].clone(),
                )
            })
            .collect();
        runner.conclude(
            r,
            values,
            roots,
            request,
            &self.slots.taints,
            &mut host.total,
        )
    }

    /// Run the requested cone (see [`KeyedEngine::run_cone`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        host: &mut Host,
        memo: &mut Memo,
        plan: &Plan,
        roots: &[(usize, usize)],
        request: &Request,
        ctx: &EvalContext,
        planned: bool,
    ) -> Result<Outputs, EvalError> {
        self.run_cone(host, memo, plan, roots, roots, request, ctx, planned, false)
    }
}

/// The strategy: slots for this request, the memo for what outlives it.
struct Keyed<'a> {
    slots: &'a mut Slots,
    keys: &'a KeyPass,
    memo: &'a mut Memo,
    needed: &'a [u32],
    now: u32,
    /// Measure each node's cost (a store weighs entries by it).
    timed: bool,
}

impl Keyed<'_> {
    fn keep(&mut self, plan: &Plan, v: usize, taint: &Taint, cost: Duration) {
        if plan.class(v) == Class::Volatile || taint.is_some() {
            return;
        }
        let key = self.keys.key(plan, v);
        let off = plan.output_offset(v);
        for p in 0..plan.n_outputs(v) {
            self.memo.keep(key, p, &self.slots.vals[off + p], cost);
        }
    }
}

impl Retention for Keyed<'_> {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        self.slots.is_done(v) || self.needed[v] != self.now
    }
    fn vals(&self) -> &[Value] {
        &self.slots.vals
    }
    fn taints(&self) -> &[Taint] {
        &self.slots.taints
    }
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        let taint = gather(
            plan,
            v,
            &self.slots.vals,
            &self.slots.taints,
            pulled,
            scratch,
        );
        let t0 = self.timed.then(Instant::now);
        let off = plan.output_offset(v);
        let n = plan.n_outputs(v);
        let taint = runner.run(v, scratch, taint, &mut self.slots.vals[off..off + n])?;
        let cost = t0.map_or(Duration::ZERO, |t| t.elapsed());
        self.keep(plan, v, &taint, cost);
        self.slots.settle(v, taint);
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
        self.slots.store(plan, v, out, taint.clone());
        self.keep(plan, v, &taint, Duration::ZERO);
    }
}
