//! The schedule walk with slots: the eager and compiled evaluators' engine. A request runs
//! its compiled cone straight through, one value per output, nothing kept between requests
//! but the slots' storage.

use super::schedule_walk::ScheduleWalk;
use crate::context::EvalContext;
use crate::eval::host::Host;
use crate::eval::parallel::Parallel;
use crate::eval::preempt::preempt;
use crate::eval::retention::memo::Memo;
use crate::eval::retention::slots::Slots;
use crate::eval::runner::Runner;
use crate::eval::walks::keyed_walk::KeyedEngine;
use crate::eval::walks::schedule::{Edges, ScheduleCache};
use crate::eval::{EvalError, Outputs, Request, Stats};
use crate::key::KeyMap;
use crate::plan::Plan;
use crate::value::Value;
use std::sync::Arc;

/// Schedules, slots and the walk's buffers.
#[derive(Default)]
pub(crate) struct SlotEngine {
    pub(crate) schedules: ScheduleCache,
    pub(crate) slots: Slots,
    walk: ScheduleWalk,
}

/// One request to a [`SlotEngine`].
pub(crate) struct SlotRun<'a> {
    pub(crate) plan: &'a Plan,
    /// The nodes whose cone runs.
    pub(crate) cone: &'a [(usize, usize)],
    pub(crate) edges: Edges,
    /// The requested outputs.
    pub(crate) roots: &'a [(usize, usize)],
    pub(crate) planned: bool,
    /// Keep fail-fast failures as values until consumed (eager runs untaken branches).
    pub(crate) defer: bool,
}

impl SlotEngine {
    /// Forget the schedules and size the slots for `plan`.
    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.slots.reset(plan);
        self.schedules.clear();
    }

    /// Run one request; its counters are added to `total`.
    pub(crate) fn run(
        &mut self,
        run: &SlotRun<'_>,
        request: &Request,
        ctx: &EvalContext,
        par: Option<&Parallel<'_>>,
        total: &mut Stats,
    ) -> Result<Outputs, EvalError> {
        crate::eval::host::check_start(ctx)?;
        let plan = run.plan;
        let (sched, built) = self.schedules.get(plan, run.cone, run.edges);
        self.slots.next_generation();
        self.slots.release.begin(sched);
        let main_len = sched.main_len();
        let mut runner = Runner::new(plan, ctx, request, || main_len);
        if run.defer {
            runner.defer_failures();
        }
        runner.stats.planned = run.planned || built;
        let r = self
            .walk
            .run(plan, sched, 0, &mut self.slots, &mut runner, par, None);
        let values = collect(plan, &self.slots, run.roots, &request.outputs);
        runner.conclude(r, values, run.roots, request, &self.slots.taints, total)
    }
}

/// The requested values, by name.
pub(crate) fn collect(
    plan: &Plan,
    slots: &Slots,
    roots: &[(usize, usize)],
    names: &[String],
) -> Vec<(String, Value)> {
    names
        .iter()
        .zip(roots)
        .map(|(name, &(n, p))| (name.clone(), slots.vals[plan.output_offset(n) + p].clone()))
        .collect()
}

/// Run the cone of `cone` on a worker that can be abandoned ([`crate::eval::CancelMode::Preemptive`])
/// with a fresh engine of its own: slots, or, when the host has a store, the keyed walk
/// reading the store (what the worker computes is put in the store only if the request was
/// not abandoned).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_preemptive(
    host: &mut Host,
    plan: Arc<Plan>,
    cone: Vec<(usize, usize)>,
    roots: Vec<(usize, usize)>,
    edges: Edges,
    request: &Request,
    ctx: &EvalContext,
    planned: bool,
    defer: bool,
) -> Result<Outputs, EvalError> {
    let store = host.store.clone();
    let (out, fresh) = preempt(request, ctx, move |request, wctx| {
        let mut total = Stats::default();
        if let Some(store) = store {
            let mut worker = Host::new(crate::registry::Registry::new());
            let mut memo = Memo::default();
            memo.read_store = Some(store);
            let mut engine = KeyedEngine::with_edges(edges);
            engine.adopt(&plan);
            let r = engine.run_cone(
                &mut worker,
                &mut memo,
                &plan,
                &cone,
                &roots,
                &request,
                &wctx,
                planned,
                defer,
            );
            return r.map(|o| (o, std::mem::take(&mut memo.own)));
        }
        let mut engine = SlotEngine::default();
        engine.reset(&plan);
        let run = SlotRun {
            plan: &plan,
            cone: &cone,
            edges,
            roots: &roots,
            planned,
            defer,
        };
        let r = engine.run(&run, &request, &wctx, None, &mut total);
        r.map(|o| (o, KeyMap::default()))
    })??;
    if let Some(store) = &host.store {
        for (k, v) in fresh {
            store.insert(k, v, std::time::Duration::ZERO);
        }
    }
    host.total.accumulate(&out.stats);
    Ok(out)
}
