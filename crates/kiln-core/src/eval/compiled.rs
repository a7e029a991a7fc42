//! The compiled evaluator: the requested cone flattened once into a [`Schedule`] of node
//! indices with pre-sized value slots, then run straight through on every request — no keys,
//! no hashing and no maps while it runs.
//!
//! The schedule is rebuilt only when the graph's structure changes. A value edit (a param or
//! an inline constant) updates the plan in place through [`Plan::update_data`], and graph
//! inputs arrive through the context, so neither recompiles anything. With background
//! compilation on (the default), a structural edit starts the new plan and schedule on a
//! worker thread and requests are served by a [`LazyEvaluator`] until it is ready: no request
//! waits for a rebuild.

use super::eager::{SlotEngine, SlotRun, detached};
use super::lazy::resolve_roots;
use super::schedule::{Edges, Schedule};
use super::{
    CancelMode, EvalError, Evaluator, LazyEvaluator, Outputs, ParallelPolicy, Request, Stats,
};
use crate::context::EvalContext;
use crate::graph::{Graph, Revision};
use crate::plan::Plan;
use crate::registry::Registry;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

type Built = Result<(Plan, Schedule), EvalError>;

struct Pending {
    uid: u64,
    structure: u64,
    rx: Receiver<Built>,
}

/// Which strategy served the last request of a [`CompiledEvaluator`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// The compiled schedule.
    Compiled,
    /// The lazy evaluator, while the schedule was being built in the background.
    Lazy,
}

/// Runs a compiled flat schedule of the requested cone (see the module docs).
pub struct CompiledEvaluator {
    registry: Registry,
    background: bool,
    plan: Option<Arc<Plan>>,
    engine: SlotEngine,
    pending: Option<Pending>,
    fallback: LazyEvaluator,
    served: Served,
    total: Stats,
}

impl CompiledEvaluator {
    /// A compiled evaluator over the ops of `registry`, compiling in the background.
    pub fn new(registry: Registry) -> Self {
        CompiledEvaluator {
            fallback: LazyEvaluator::new(registry.clone()),
            registry,
            background: true,
            plan: None,
            engine: SlotEngine::default(),
            pending: None,
            served: Served::Compiled,
            total: Stats::default(),
        }
    }
    /// Compile on a background thread (`true`, the default; requests are served lazily
    /// meanwhile) or on the requesting thread (`false`).
    pub fn with_background(mut self, yes: bool) -> Self {
        self.background = yes;
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
    /// Which strategy served the last request.
    pub fn last_served(&self) -> Served {
        self.served
    }
    /// Whether a background compilation is under way.
    pub fn compiling(&self) -> bool {
        self.pending.is_some()
    }
    /// Block until a background compilation (if any) finishes and install its result, so
    /// the next request runs compiled.
    pub fn wait_ready(&mut self) {
        if let Some(p) = self.pending.take()
            && let Ok(Ok((plan, sched))) = p.rx.recv()
        {
            self.install(plan, sched);
        }
    }

    fn install(&mut self, plan: Plan, sched: Schedule) {
        self.engine.reset(&plan);
        self.engine.schedules.insert(sched);
        self.plan = Some(Arc::new(plan));
    }

    /// Bring the plan up to `graph`: `Ok(true)` when a compiled plan is ready for it.
    fn sync(&mut self, graph: &Graph, roots_of: &Request) -> Result<bool, EvalError> {
        let rev = graph.revision();
        // Pick up a finished background build.
        if let Some(p) = &self.pending {
            if p.uid != rev.uid || p.structure != rev.structure {
                self.pending = None;
            } else {
                match p.rx.try_recv() {
                    Ok(Ok((plan, sched))) => {
                        self.pending = None;
                        self.install(plan, sched);
                    }
                    Ok(Err(e)) => {
                        self.pending = None;
                        return Err(e);
                    }
                    Err(TryRecvError::Empty) => return Ok(false),
                    Err(TryRecvError::Disconnected) => self.pending = None,
                }
            }
        }
        if let Some(plan) = &mut self.plan {
            let pr = plan.revision();
            if pr == rev {
                return Ok(true);
            }
            if pr.uid == rev.uid
                && pr.structure == rev.structure
                && let Some(edits) = graph.data_edits_since(pr.data)
                && let Some(p) = Arc::get_mut(plan)
                && p.update_data(graph, &edits)
            {
                self.engine.slots.relower(p, &edits);
                return Ok(true);
            }
        }
        // A rebuild is needed.
        if self.background {
            self.start_background(graph, rev, roots_of)?;
            return Ok(false);
        }
        let plan = Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?;
        let roots = resolve_roots(&plan, graph, roots_of)?;
        let sched = Schedule::build(&plan, &roots, Edges::Eager);
        self.install(plan, sched);
        Ok(true)
    }

    fn start_background(
        &mut self,
        graph: &Graph,
        rev: Revision,
        request: &Request,
    ) -> Result<(), EvalError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let copy = graph.clone();
        let registry = self.registry.clone();
        let request = request.clone();
        std::thread::Builder::new()
            .name("kiln-compile".into())
            .spawn(move || {
                let built = (|| {
                    let mut plan = Plan::build(&copy, &registry).map_err(EvalError::Invalid)?;
                    plan.set_revision(rev);
                    let roots = resolve_roots(&plan, &copy, &request)?;
                    let sched = Schedule::build(&plan, &roots, Edges::Eager);
                    Ok((plan, sched))
                })();
                let _ = tx.send(built);
            })
            .map_err(|e| EvalError::Worker(e.to_string()))?;
        self.pending = Some(Pending {
            uid: rev.uid,
            structure: rev.structure,
            rx,
        });
        Ok(())
    }
}

impl Evaluator for CompiledEvaluator {
    /// Its value slots, its plan and its lazy fallback's memo.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        let mut r = super::slots_report(
            "compiled slots",
            &self.engine.slots.vals,
            self.plan.as_deref(),
        );
        r.extend(self.fallback.memory_report());
        r
    }

    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let had = self.plan.as_ref().map(|p| p.revision());
        if !self.sync(graph, request)? {
            self.served = Served::Lazy;
            let mut out = self.fallback.evaluate(graph, request, ctx)?;
            out.stats.planned = true;
            self.total.accumulate(&out.stats);
            return Ok(out);
        }
        self.served = Served::Compiled;
        let Some(plan) = self.plan.clone() else {
            return Err(EvalError::Worker("no compiled plan".into()));
        };
        let planned = had.is_none_or(|r| r.structure != plan.revision().structure);
        let roots = resolve_roots(&plan, graph, request)?;
        if ctx.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
        if request.cancel == CancelMode::Preemptive {
            return detached(&self.registry, plan, roots, request, ctx, planned);
        }
        let run = SlotRun {
            plan: &plan,
            cone: &roots,
            edges: Edges::Eager,
            roots: &roots,
            planned,
            defer: false,
        };
        self.engine.run(&run, request, ctx, &mut self.total)
    }
}
