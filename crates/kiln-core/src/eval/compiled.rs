//! The compiled evaluator: the requested cone flattened once into a [`Schedule`] of node
//! indices with pre-sized value slots, then run straight through on every request — no keys,
//! no hashing and no maps while it runs (unless a store is set: then the keyed schedule walk
//! looks results up by key).
//!
//! The schedule is rebuilt only when the graph's structure changes. A value edit (a param or
//! an inline constant) updates the plan in place through [`Plan::update_data`], and graph
//! inputs arrive through the context, so neither recompiles anything. With background
//! compilation on (the default), a structural edit starts the new plan and schedule on a
//! worker thread and requests are served by the pull walk ([`PullEngine`]) on a plan of
//! their own until it is ready: no request waits for a rebuild.

use super::{CancelMode, EvalError, Evaluator, Outputs, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::eval::host::{Host, PlanChange, resolve_roots};
use crate::eval::retention::memo::Memo;
use crate::eval::walks::keyed_walk::KeyedEngine;
use crate::eval::walks::pull_walk::PullEngine;
use crate::eval::walks::schedule::{Edges, Schedule};
use crate::eval::walks::slot_walk::{SlotEngine, SlotRun, run_preemptive};
use crate::graph::{Graph, Revision};
use crate::plan::Plan;
use crate::registry::Registry;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

type Built = Result<(Plan, Schedule), EvalError>;

/// A background compilation.
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
    /// The pull walk, while the schedule was being built in the background.
    Lazy,
}

/// Runs a compiled flat schedule of the requested cone (see the module docs).
pub struct CompiledEvaluator {
    host: Host,
    background: bool,
    engine: SlotEngine,
    keyed: KeyedEngine,
    memo: Memo,
    pending: Option<Pending>,
    /// Serves requests while a schedule compiles, on a plan of its own.
    fallback: PullEngine,
    fallback_plan: Option<Arc<Plan>>,
    served: Served,
}

impl CompiledEvaluator {
    /// A compiled evaluator over the ops of `registry`, compiling in the background.
    pub fn new(registry: Registry) -> Self {
        CompiledEvaluator {
            host: Host::new(registry),
            background: true,
            engine: SlotEngine::default(),
            keyed: KeyedEngine::default(),
            memo: Memo::default(),
            pending: None,
            fallback: PullEngine::default(),
            fallback_plan: None,
            served: Served::Compiled,
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
        self.host.parallel = policy;
        self
    }
    /// Look results up in `store` by key before running a node, and keep what runs there
    /// (the schedule walk then computes keys, which a plain compiled run never does).
    pub fn with_store(mut self, store: Arc<Store>) -> Self {
        self.host.store = Some(store.clone());
        self.memo.store = Some(store.clone());
        self.fallback.memo.store = Some(store);
        self
    }
    /// Counters summed over every request so far.
    pub fn total_stats(&self) -> Stats {
        self.host.total
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
        self.keyed.adopt(&plan);
        self.engine.schedules.insert(sched);
        self.host.install(Arc::new(plan));
        self.fallback_plan = None;
    }

    /// Bring the compiled plan up to date; `false` while a background build is pending.
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
        let same_structure = self.host.plan().is_some_and(|p| {
            let pr = p.revision();
            pr.uid == rev.uid && pr.structure == rev.structure
        });
        // An adopted plan is ready now: nothing to compile in the background.
        if same_structure || !self.background || self.host.has_adopted(graph) {
            let (plan, change) = self.host.sync(graph)?;
            match change {
                PlanChange::Same => {}
                PlanChange::Data(edits) => {
                    self.engine.slots.relower(&plan, &edits);
                    self.keyed.relower(&plan, &edits);
                }
                PlanChange::Rebuilt => {
                    let roots = resolve_roots(&plan, graph, roots_of)?;
                    self.engine.reset(&plan);
                    self.keyed.adopt(&plan);
                    self.engine
                        .schedules
                        .insert(Schedule::build(&plan, &roots, Edges::Eager));
                }
            }
            return Ok(true);
        }
        self.start_background(graph, rev, roots_of)?;
        Ok(false)
    }

    fn start_background(
        &mut self,
        graph: &Graph,
        rev: Revision,
        request: &Request,
    ) -> Result<(), EvalError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let copy = graph.clone();
        let registry = self.host.registry.clone();
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

    /// Serve a request with the pull walk while the schedule compiles.
    fn serve_fallback(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        self.served = Served::Lazy;
        let plan = match &self.fallback_plan {
            Some(p) if p.revision() == graph.revision() => p.clone(),
            _ => {
                let p = self.host.build(graph)?;
                self.fallback.adopt(&p);
                self.fallback_plan = Some(p.clone());
                p
            }
        };
        let roots = resolve_roots(&plan, graph, request)?;
        let names = &request.outputs;
        let total = &mut self.host.total;
        self.fallback
            .run_roots(&plan, &roots, names, request, ctx, true, total)
    }
}

impl Evaluator for CompiledEvaluator {
    fn adopt_plan(&mut self, plan: Arc<Plan>) {
        self.host.adopt(plan);
    }

    /// Its value slots, its plan, and the fallback's memo.
    fn memory_report(&self) -> crate::cache::MemoryReport {
        let plan = self.host.plan().map(|p| &**p);
        let mut r =
            crate::eval::retention::slots::report("compiled slots", &self.engine.slots.vals, plan);
        r.add(
            "lazy memo",
            self.fallback.memo.own.len(),
            self.fallback.memo.own_bytes(),
        );
        r
    }

    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let had = self.host.plan().map(|p| p.revision());
        if !self.sync(graph, request)? {
            return self.serve_fallback(graph, request, ctx);
        }
        self.served = Served::Compiled;
        let Some(plan) = self.host.plan().cloned() else {
            return Err(EvalError::Worker("no compiled plan".into()));
        };
        let planned = had.is_none_or(|r| r.structure != plan.revision().structure);
        let roots = resolve_roots(&plan, graph, request)?;
        crate::eval::host::check_start(ctx)?;
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
        if self.host.store.is_some() {
            let (h, m) = (&mut self.host, &mut self.memo);
            return self.keyed.run(h, m, &plan, &roots, request, ctx, planned);
        }
        let run = SlotRun {
            plan: &plan,
            cone: &roots,
            edges: Edges::Eager,
            roots: &roots,
            planned,
            defer: false,
        };
        let par = self.host.pools.resolve(&self.host.parallel)?;
        self.engine
            .run(&run, request, ctx, par.as_ref(), &mut self.host.total)
    }
}
