//! The eager evaluator: every node of the requested cone (or of the whole graph) once, in
//! topological order — untaken switch branches included. The simplest strategy, and the
//! reference the others are checked against. A [`Host`] with the schedule walk over slots
//! ([`SlotEngine`]), or over the memo when a store is set ([`KeyedEngine`]).

use super::{CancelMode, EvalError, Evaluator, Outputs, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::eval::host::{Host, PlanChange, resolve_roots};
use crate::eval::retention::memo::Memo;
use crate::eval::walks::keyed_walk::KeyedEngine;
use crate::eval::walks::schedule::Edges;
use crate::eval::walks::slot_walk::{SlotEngine, SlotRun, run_preemptive};
use crate::graph::Graph;
use crate::plan::Plan;
use crate::registry::Registry;
use std::sync::Arc;

/// Runs every node of the requested cone once per request, in topological order, with no
/// memo between requests (unless a store is set: then results found by key are taken from
/// it, and what runs is kept there).
///
/// A failure on a branch no requested output uses (say, the untaken side of a switch) does
/// not fail the request: under fail-fast the request fails only when a node consumes the
/// failed value, as it would under lazy evaluation.
pub struct EagerEvaluator {
    host: Host,
    whole_graph: bool,
    engine: SlotEngine,
    keyed: KeyedEngine,
    memo: Memo,
}

impl EagerEvaluator {
    /// An eager evaluator over the ops of `registry`, running the requested cone.
    pub fn new(registry: Registry) -> Self {
        EagerEvaluator {
            host: Host::new(registry),
            whole_graph: false,
            engine: SlotEngine::default(),
            keyed: KeyedEngine::with_edges(Edges::All),
            memo: Memo::default(),
        }
    }
    /// Run every node of the graph on each request, not only the requested cone.
    pub fn whole_graph(mut self, yes: bool) -> Self {
        self.whole_graph = yes;
        self
    }
    /// Set the parallel policy.
    pub fn with_parallel(mut self, policy: ParallelPolicy) -> Self {
        self.host.parallel = policy;
        self
    }
    /// Look results up in `store` by key before running a node, and keep what runs there.
    pub fn with_store(mut self, store: Arc<Store>) -> Self {
        self.host.store = Some(store.clone());
        self.memo.store = Some(store);
        self
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.host.total
    }

    fn sync(&mut self, graph: &Graph) -> Result<(Arc<Plan>, bool), EvalError> {
        let (plan, change) = self.host.sync(graph)?;
        match &change {
            PlanChange::Same => {}
            PlanChange::Data(edits) => {
                self.engine.slots.relower(&plan, edits);
                self.keyed.relower(&plan, edits);
            }
            PlanChange::Rebuilt => {
                self.engine.reset(&plan);
                self.keyed.adopt(&plan);
            }
        }
        Ok((plan, change.planned()))
    }
}

impl Evaluator for EagerEvaluator {
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        self.host.adopt(plan);
    }

    /// Its value slots and its plan.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        crate::eval::retention::slots::report(
            "eager slots",
            &self.engine.slots.vals,
            self.host.plan().map(|p| &**p),
        )
    }

    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let (plan, planned) = self.sync(graph)?;
        let roots = resolve_roots(&plan, graph, request)?;
        crate::eval::host::check_start(ctx)?;
        let cone: Vec<(usize, usize)> = if self.whole_graph {
            (0..plan.len()).map(|v| (v, 0)).collect()
        } else {
            roots.clone()
        };
        if request.cancel == CancelMode::Preemptive {
            let h = &mut self.host;
            return run_preemptive(
                h,
                plan,
                cone,
                roots,
                Edges::All,
                request,
                ctx,
                planned,
                true,
            );
        }
        if self.host.store.is_some() {
            let (h, m) = (&mut self.host, &mut self.memo);
            return self
                .keyed
                .run_cone(h, m, &plan, &cone, &roots, request, ctx, planned, true);
        }
        let run = SlotRun {
            plan: &plan,
            cone: &cone,
            edges: Edges::All,
            roots: &roots,
            planned,
            defer: true,
        };
        let par = self.host.pools.resolve(&self.host.parallel)?;
        self.engine
            .run(&run, request, ctx, par.as_ref(), &mut self.host.total)
    }
}
