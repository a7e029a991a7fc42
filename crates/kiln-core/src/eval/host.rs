//! The host every evaluator is built on: the registry it resolves ops in, its plan (kept up to
//! date with the graph in one way for all), the optional shared [`Store`], the parallel
//! policy and its pool, and the counters summed over requests. An evaluator is a host plus
//! a walk and what it retains; none of them repeats this bookkeeping.

use super::{EvalError, ParallelPolicy, Request, Stats};
use crate::cache::Store;
use crate::context::EvalContext;
use crate::eval::parallel::PoolCache;
use crate::graph::Graph;
use crate::plan::Plan;
use crate::registry::Registry;
use std::sync::Arc;

/// How the plan changed for a request.
pub(crate) enum PlanChange {
    /// The plan already served this graph revision.
    Same,
    /// The plan was updated in place for value edits of these nodes (params, constants).
    Data(Vec<usize>),
    /// The plan was built anew.
    Rebuilt,
}

impl PlanChange {
    /// Whether the plan was (re)built.
    pub(crate) fn planned(&self) -> bool {
        matches!(self, PlanChange::Rebuilt)
    }
}

/// What every evaluator holds besides its walk and its retained values.
pub(crate) struct Host {
    pub(crate) registry: Registry,
    plan: Option<Arc<Plan>>,
    /// A plan made elsewhere (see [`Host::adopt`]), taken the next time a plan of its
    /// graph revision would be built.
    adopted: Option<Arc<Plan>>,
    /// A shared store that results are looked up in and kept in (see [`crate::cache`]).
    pub(crate) store: Option<Arc<Store>>,
    pub(crate) parallel: ParallelPolicy,
    pub(crate) pools: PoolCache,
    /// Counters summed over every request.
    pub(crate) total: Stats,
}

impl Host {
    pub(crate) fn new(registry: Registry) -> Self {
        Host {
            registry,
            plan: None,
            adopted: None,
            store: None,
            parallel: ParallelPolicy::Sequential,
            pools: PoolCache::default(),
            total: Stats::default(),
        }
    }

    /// The current plan, if one was built.
    pub(crate) fn plan(&self) -> Option<&Arc<Plan>> {
        self.plan.as_ref()
    }

    /// A plan of `graph` (not installed): the adopted one when it was made for this very
    /// revision (it is taken, so it serves once), else one built now.
    pub(crate) fn build(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        if let Some(p) = self.adopted.take_if(|p| p.revision() == graph.revision()) {
            return Ok(p);
        }
        Ok(Arc::new(
            Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?,
        ))
    }

    /// Take `plan` (made elsewhere, e.g. by [`Plan::from_checked`] from a graph validation
    /// already resolved) as the plan of the graph revision it serves: the next time this host
    /// would build a plan for that revision it uses this one instead. A plan for another
    /// revision is never used; a later adoption replaces an earlier one.
    pub(crate) fn adopt(&mut self, plan: Arc<Plan>) {
        self.adopted = Some(plan);
    }

    /// Whether an adopted plan waits for `graph`'s revision.
    pub(crate) fn has_adopted(&self, graph: &Graph) -> bool {
        self.adopted
            .as_ref()
            .is_some_and(|p| p.revision() == graph.revision())
    }

    /// Use `plan` from now on; returns the plan it replaces.
    pub(crate) fn install(&mut self, plan: Arc<Plan>) -> Option<Arc<Plan>> {
        self.plan.replace(plan)
    }

    /// The plan slot itself, for an evaluator that keeps its plan its own way.
    pub(crate) fn plan_mut(&mut self) -> &mut Option<Arc<Plan>> {
        &mut self.plan
    }

    /// Bring the plan up to date with `graph`: nothing when it already serves the graph's
    /// revision, an update in place when only values changed and nothing else holds the
    /// plan, else a new plan.
    pub(crate) fn sync(&mut self, graph: &Graph) -> Result<(Arc<Plan>, PlanChange), EvalError> {
        let rev = graph.revision();
        if let Some(p) = &mut self.plan {
            let pr = p.revision();
            if pr == rev {
                return Ok((p.clone(), PlanChange::Same));
            }
            if pr.uid == rev.uid
                && pr.structure == rev.structure
                && let Some(edits) = graph.data_edits_since(pr.data)
                && let Some(plan) = Arc::get_mut(p)
                && plan.update_data(graph, &edits)
            {
                return Ok((p.clone(), PlanChange::Data(edits)));
            }
        }
        let plan = self.build(graph)?;
        self.install(plan.clone());
        Ok((plan, PlanChange::Rebuilt))
    }

    /// Whether the parallel policy is sequential.
    pub(crate) fn sequential(&self) -> bool {
        self.parallel == ParallelPolicy::Sequential
    }
}

/// Resolve a request's output references against a plan, the one way every evaluator does
/// (see [`Graph::output_ref`]).
pub(crate) fn resolve_roots(
    plan: &Plan,
    graph: &Graph,
    request: &Request,
) -> Result<Vec<(usize, usize)>, EvalError> {
    request
        .outputs
        .iter()
        .map(|name| {
            plan.resolve_output(name, graph)
                .ok_or_else(|| EvalError::UnknownOutput { name: name.clone() })
        })
        .collect()
}

/// The start of every request: a request cancelled before it began does nothing.
pub(crate) fn check_start(ctx: &EvalContext) -> Result<(), EvalError> {
    if ctx.is_cancelled() {
        Err(EvalError::Cancelled)
    } else {
        Ok(())
    }
}
