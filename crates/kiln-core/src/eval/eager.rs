//! The eager evaluator: every node of the requested cone (or of the whole graph) once, in
//! topological order — untaken switch branches included. The simplest strategy, and the
//! reference the others are checked against.

use super::exec::Runner;
use super::lazy::resolve_roots;
use super::schedule::{Edges, Executor, PoolCache, ScheduleCache, Slots};
use super::{
    CancelMode, EvalError, Evaluator, LazyEvaluator, Outputs, ParallelPolicy, Request, Stats,
};
use crate::context::EvalContext;
use crate::graph::Graph;
use crate::plan::Plan;
use crate::registry::Registry;
use std::sync::Arc;

/// Runs every node of the requested cone once per request, in topological order, with no
/// memo between requests.
///
/// A failure on a branch no requested output uses (say, the untaken side of a switch) does
/// not fail the request: under fail-fast the request fails only when a node consumes the
/// failed value, as it would under lazy evaluation.
pub struct EagerEvaluator {
    registry: Registry,
    plan: Option<Arc<Plan>>,
    whole_graph: bool,
    engine: SlotEngine,
    total: Stats,
}

impl EagerEvaluator {
    /// An eager evaluator over the ops of `registry`, running the requested cone.
    pub fn new(registry: Registry) -> Self {
        EagerEvaluator {
            registry,
            plan: None,
            whole_graph: false,
            engine: SlotEngine::default(),
            total: Stats::default(),
        }
    }
    /// Run every node of the graph on each request, not only the requested cone.
    pub fn whole_graph(mut self, yes: bool) -> Self {
        self.whole_graph = yes;
        self
    }
    /// Set the parallel policy.
    pub fn with_parallel(mut self, policy: ParallelPolicy) -> Self {
        self.engine.parallel = policy;
        self
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.total
    }

    fn ensure_plan(&mut self, graph: &Graph) -> Result<(Arc<Plan>, bool), EvalError> {
        if let Some(p) = &self.plan
            && p.revision() == graph.revision()
        {
            return Ok((p.clone(), false));
        }
        let plan = Arc::new(Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?);
        self.engine.reset(&plan);
        self.plan = Some(plan.clone());
        Ok((plan, true))
    }
}

impl Evaluator for EagerEvaluator {
    /// Its value slots (the last request's values) and its plan.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        super::slots_report("eager slots", &self.engine.slots.vals, self.plan.as_deref())
    }

    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let (plan, planned) = self.ensure_plan(graph)?;
        let roots = resolve_roots(&plan, graph, request)?;
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        if request.cancel == CancelMode::Preemptive {
            return detached(&self.registry, plan, roots, request, ctx, planned);
        }
        let cone_roots: Vec<(usize, usize)> = if self.whole_graph {
            (0..plan.len()).map(|v| (v, 0)).collect()
        } else {
            roots.clone()
        };
        let run = SlotRun {
            plan: &plan,
            cone: &cone_roots,
            edges: Edges::All,
            roots: &roots,
            planned,
            defer: true,
        };
        self.engine.run(&run, request, ctx, &mut self.total)
    }
}

/// Slots, schedules and the pool: the part of the eager and compiled evaluators that runs a
/// schedule for a request.
#[derive(Default)]
pub(crate) struct SlotEngine {
    pub(crate) parallel: ParallelPolicy,
    pools: PoolCache,
    pub(crate) schedules: ScheduleCache,
    pub(crate) slots: Slots,
    exec: Executor,
}

/// One request's schedule: what to compile and what to answer.
pub(crate) struct SlotRun<'a> {
    pub(crate) plan: &'a Plan,
    /// The roots whose cone the schedule covers.
    pub(crate) cone: &'a [(usize, usize)],
    pub(crate) edges: Edges,
    /// The requested outputs.
    pub(crate) roots: &'a [(usize, usize)],
    pub(crate) planned: bool,
    /// Keep fail-fast failures as values until consumed (eager evaluation).
    pub(crate) defer: bool,
}

impl SlotEngine {
    /// Forget values and schedules (a new plan).
    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.slots.reset(plan);
        self.schedules.clear();
    }

    /// Run `run`'s schedule (compiled on first use) and answer the request.
    pub(crate) fn run(
        &mut self,
        run: &SlotRun<'_>,
        request: &Request,
        ctx: &EvalContext,
        total: &mut Stats,
    ) -> Result<Outputs, EvalError> {
        let plan = run.plan;
        let (sched, built) = self.schedules.get(plan, run.cone, run.edges);
        let par = self.pools.resolve(&self.parallel)?;
        self.slots.next_generation();
        let main_len = sched.main_len();
        let mut runner = Runner::new(plan, ctx, request, || main_len);
        if run.defer {
            runner.defer_failures();
        }
        runner.stats.planned = run.planned || built;
        let r = self.exec.run(
            plan,
            sched,
            0,
            &mut self.slots,
            &mut runner,
            par.as_ref(),
            None,
        );
        let values = collect(plan, &self.slots, run.roots, &request.outputs);
        runner.conclude(r, values, run.roots, request, &self.slots.taints, total)
    }
}

/// The requested values out of slots.
pub(crate) fn collect(
    plan: &Plan,
    slots: &Slots,
    roots: &[(usize, usize)],
    names: &[String],
) -> Vec<(String, crate::value::Value)> {
    names
        .iter()
        .zip(roots)
        .map(|(name, &(n, p))| (name.clone(), slots.vals[plan.output_offset(n) + p].clone()))
        .collect()
}

/// A preemptive request for an evaluator that keeps no memo: a lazy worker computes it from
/// scratch and nothing it does is kept.
pub(crate) fn detached(
    registry: &Registry,
    plan: Arc<Plan>,
    roots: Vec<(usize, usize)>,
    request: &Request,
    ctx: &EvalContext,
    planned: bool,
) -> Result<Outputs, EvalError> {
    LazyEvaluator::run_preemptive(
        registry.clone(),
        plan,
        Arc::default(),
        None,
        roots,
        request.outputs.clone(),
        request,
        ctx,
        planned,
    )
    .map(|(o, _)| o)
}
