//! Cooking a project: a request of outputs under an evaluator, a policy and a context, with
//! progress and cancellation.

use crate::error::ProjectError;
use crate::evaluator_kind::EvaluatorKind;
use crate::project::{Clock, Project};
use kiln_core::cache::MemoryReport;
use kiln_core::eval::{ErrorPolicy, ParallelPolicy};
use kiln_core::prelude::*;
use kiln_core::recurrence::LATCH_OP;
use kiln_lower::lower::LowerReport;
use kiln_std::graph_io::OUTPUT_OP;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to cook and how.
#[derive(Clone)]
pub struct CookOptions {
    /// The outputs to cook (`node` or `node.port`); empty: every graph output.
    pub outputs: Vec<String>,
    /// The evaluator.
    pub evaluator: EvaluatorKind,
    /// Where independent nodes run.
    pub parallel: ParallelPolicy,
    /// What a failure does.
    pub errors: ErrorPolicy,
    /// The context seed.
    pub seed: u64,
    /// The size a generator that names none makes.
    pub size: Option<(u32, u32)>,
    /// The clock.
    pub clock: Clock,
    /// Fuse each chain of per-pixel image nodes into one pass.
    pub fuse: bool,
    /// Time each node.
    pub timings: bool,
    /// Where progress goes.
    pub progress: Option<Arc<dyn ProgressSink>>,
    /// Fires to stop the cook at the next node (or inside a heavy op).
    pub cancel: CancelToken,
}

impl Default for CookOptions {
    fn default() -> Self {
        CookOptions {
            outputs: vec![],
            evaluator: EvaluatorKind::Lazy,
            parallel: ParallelPolicy::Sequential,
            errors: ErrorPolicy::FailFast,
            seed: 0,
            size: None,
            clock: Clock::default(),
            fuse: false,
            timings: false,
            progress: None,
            cancel: CancelToken::new(),
        }
    }
}

/// What a cook gave.
#[derive(Debug)]
pub struct Cooked {
    /// The values (in request order), stats, failures and timings.
    pub outputs: Outputs,
    /// The flat graph that was cooked.
    pub graph: Arc<Graph>,
    /// What the plan did (see [`crate::Lowering::report`]).
    pub plan: Option<LowerReport>,
    /// The evaluation's time.
    pub elapsed: Duration,
    /// What the evaluator (and the persistent cache, when set) held afterwards.
    pub memory: MemoryReport,
}

impl Cooked {
    /// An output's value by the name it was requested under.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.outputs.get(name)
    }
    /// The outputs that hold an error (under [`ErrorPolicy::Propagate`]).
    pub fn failed(&self) -> Vec<&str> {
        self.outputs
            .values
            .iter()
            .filter(|(_, v)| matches!(v, Value::Error(_)))
            .map(|(n, _)| n.as_str())
            .collect()
    }
}

/// Whether `e` is a latch failing outside a recurrent driver.
pub fn is_latch_error(e: &EvalError) -> bool {
    matches!(e, EvalError::Node { op, .. } | EvalError::Panic { op, .. } if op == LATCH_OP)
}

/// The names a cook of `names` requests from `g`: those (first occurrence of each), else
/// every output node of `g`.
fn outputs_of(g: &Graph, names: &[String]) -> Result<Vec<String>, ProjectError> {
    let mut outputs: Vec<String> = if names.is_empty() {
        g.nodes()
            .iter()
            .filter(|n| n.op == OUTPUT_OP)
            .map(|n| n.id.to_string())
            .collect()
    } else {
        names.to_vec()
    };
    let mut seen = std::collections::HashSet::new();
    outputs.retain(|o| seen.insert(o.clone()));
    if outputs.is_empty() {
        return Err(ProjectError::NoOutputs);
    }
    Ok(outputs)
}

impl Project {
    /// The plan at `clock`, checked, with the outputs `names` asks (every output when empty)
    /// and the graph to run: the plan's, or with each chain of per-pixel image nodes fused
    /// into one pass when `fuse` (keeping the nodes the outputs name).
    pub(crate) fn prepare(
        &mut self,
        clock: Clock,
        names: &[String],
        fuse: bool,
    ) -> Result<(crate::Lowering, Vec<String>, Arc<Graph>), ProjectError> {
        let planned = self.checked_lowering(clock)?;
        let outputs = outputs_of(&planned.graph, names)?;
        let graph = if fuse {
            let keep: Vec<&str> = outputs
                .iter()
                .map(|o| o.split('.').next().unwrap_or(o))
                .collect();
            Arc::new(kiln_image::fuse::fuse(&planned.graph, &self.registry, &keep).0)
        } else {
            planned.graph.clone()
        };
        Ok((planned, outputs, graph))
    }

    /// The names a cook of `names` requests: those (first occurrence of each), else every
    /// output of the plan at `clock`.
    pub fn requested_outputs(
        &mut self,
        names: &[String],
        clock: Clock,
    ) -> Result<Vec<String>, ProjectError> {
        if names.is_empty() {
            let planned = self.lower(clock)?;
            outputs_of(&planned.graph, names)
        } else {
            outputs_of(&Graph::new(), names)
        }
    }

    /// The hint for a graph with latches cooked once: they need a recurrent render.
    pub fn latch_hint(&self, g: &Graph) -> String {
        let latches: Vec<&str> = g
            .nodes()
            .iter()
            .filter(|n| n.op == LATCH_OP)
            .map(|n| n.id.as_str())
            .collect();
        format!(
            "\nhint: the graph has latch node(s) ({}), which hold state from one tick to the \
             next and need a recurrent driver: use `kiln render {} --ticks N --out DIR` to run \
             it for N ticks",
            latches.join(", "),
            self.path
                .as_ref()
                .map_or_else(|| "GRAPH".to_string(), |p| p.display().to_string())
        )
    }

    /// Cook the outputs `opts` asks for: plan (or reuse the kept plan), check the flat graph,
    /// and evaluate. Plan-time values are not cooked again: the cook finds them in the store
    /// the plan cooked them into.
    pub fn cook(&mut self, opts: &CookOptions) -> Result<Cooked, ProjectError> {
        let (planned, outputs, graph) = self.prepare(opts.clock, &opts.outputs, opts.fuse)?;
        let mut ctx = self.context(opts.clock);
        ctx.seed = opts.seed;
        ctx.resolution = opts.size;
        ctx.progress = opts.progress.clone();
        ctx.cancel = opts.cancel.clone();
        let mut request = Request::new(outputs.iter().cloned()).with_errors(opts.errors.clone());
        if opts.timings {
            request = request.with_timings();
        }
        // The persistent cache when one is set; else the store the plan cooked into, when it
        // cooked anything; else the evaluator's own memory.
        let store = match &self.cache {
            Some(c) => Some(c.store().clone()),
            None if planned.waited || self.shared => Some(self.store.clone()),
            None => None,
        };
        let mut eval = opts
            .evaluator
            .build(&self.registry, opts.parallel.clone(), store);
        self.adopt_checked_plan(&graph, &mut *eval);
        let started = Instant::now();
        let result = eval.evaluate(&graph, &request, &ctx);
        let elapsed = started.elapsed();
        let out = result.map_err(|e| {
            let hint = if is_latch_error(&e) {
                self.latch_hint(&graph)
            } else {
                String::new()
            };
            ProjectError::Eval {
                source: Box::new(e),
                hint,
            }
        })?;
        let mut memory = eval.memory_report();
        if let Some(c) = &self.cache {
            memory.extend(c.store().memory_report());
        }
        Ok(Cooked {
            outputs: out,
            graph,
            plan: planned.report,
            elapsed,
            memory,
        })
    }
}
