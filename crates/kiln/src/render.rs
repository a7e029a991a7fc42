//! Rendering a graph with latches: the recurrent driver ticks the project's plan, each
//! animated param sampled again at its tick's time, so a render of N ticks gives the bits of
//! N single ticks replayed from tick 0.

use crate::error::ProjectError;
use crate::evaluator_kind::{EvaluatorKind, memo_budget};
use crate::project::{Clock, Project};
use kiln_core::cache::{Generational, MemoryReport, Store};
use kiln_core::eval::ParallelPolicy;
use kiln_core::prelude::*;
use kiln_core::recurrence::{Recurrent, Snapshot};
use kiln_lower::lower::AnimatedParam;
use std::sync::Arc;

/// What to render and how.
#[derive(Clone)]
pub struct RenderOptions {
    /// The outputs written each tick (`node` or `node.port`); empty: every graph output.
    pub outputs: Vec<String>,
    /// The evaluator that runs each tick (default: incremental, which reruns only what a
    /// tick changed).
    pub evaluator: EvaluatorKind,
    /// Where independent nodes run.
    pub parallel: ParallelPolicy,
    /// The context seed.
    pub seed: u64,
    /// The size a generator that names none makes.
    pub size: Option<(u32, u32)>,
    /// Seconds per tick: tick `t` runs at time `t * dt` (and frame `t`).
    pub dt: f64,
    /// Fuse each chain of per-pixel image nodes into one pass.
    pub fuse: bool,
    /// Where progress goes (the node running, within a tick).
    pub progress: Option<Arc<dyn ProgressSink>>,
    /// Fires to stop the tick in progress.
    pub cancel: CancelToken,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            outputs: vec![],
            evaluator: EvaluatorKind::Incremental,
            parallel: ParallelPolicy::Sequential,
            seed: 0,
            size: None,
            dt: 1.0 / 60.0,
            fuse: false,
            progress: None,
            cancel: CancelToken::new(),
        }
    }
}

/// A render in progress: [`Render::tick`] runs the next tick.
pub struct Render {
    graph: Graph,
    animated: Vec<AnimatedParam>,
    dt: f64,
    driver: Recurrent<Box<dyn Evaluator>>,
    request: Request,
    ctx: EvalContext,
    generations: Option<Arc<Store>>,
    outputs: Vec<String>,
}

impl Render {
    /// The flat graph ticked (fused when asked).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The outputs each tick gives, in order.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }
    /// The tick [`Render::tick`] runs next.
    pub fn next_tick(&self) -> u64 {
        self.driver.next_tick()
    }
    /// Run the next tick: its animated params sampled at its time, every latch at its stored
    /// value; the requested outputs of the tick.
    pub fn tick(&mut self) -> Result<Outputs, ProjectError> {
        let t = self.driver.next_tick();
        for a in &self.animated {
            // The plan wrote these nodes, so they exist.
            let _ = a.apply(&mut self.graph, t as f64 * self.dt);
        }
        let out = self
            .driver
            .tick(&self.graph, &self.request, &self.ctx)
            .map_err(|e| ProjectError::Tick {
                tick: t,
                source: Box::new(e),
            })?;
        if let Some(store) = &self.generations {
            store.next_generation();
        }
        Ok(out)
    }
    /// Run ticks up to (not including) `tick`, discarding their outputs (a resumed render
    /// replays from its saved state, or from tick 0, to the first tick it writes).
    pub fn skip_to(&mut self, tick: u64) -> Result<(), ProjectError> {
        while self.driver.next_tick() < tick {
            self.tick()?;
        }
        Ok(())
    }
    /// The state before the next tick (every latch's value), once a tick ran.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.driver.snapshot()
    }
    /// Continue from a state a render saved.
    pub fn restore(&mut self, s: Snapshot) {
        self.driver.restore(s);
    }
    /// What the evaluator and the driver hold.
    pub fn memory_report(&self) -> MemoryReport {
        self.driver.memory_report()
    }
}

impl Project {
    /// A render of the plan at tick 0's clock, with the inputs set. Results are kept in the
    /// persistent cache when one is set; else, under the lazy evaluator, in a store of the
    /// last two ticks', so a long render's memory stays flat.
    pub fn render(&mut self, opts: &RenderOptions) -> Result<Render, ProjectError> {
        let (planned, outputs, graph) = self.prepare(Clock::default(), &opts.outputs, opts.fuse)?;
        let graph = Graph::clone(&graph);
        let mut ctx = self.context(Clock::default());
        ctx.seed = opts.seed;
        ctx.dt = opts.dt;
        ctx.resolution = opts.size;
        ctx.progress = opts.progress.clone();
        ctx.cancel = opts.cancel.clone();
        let generations =
            (self.cache.is_none() && opts.evaluator == EvaluatorKind::Lazy).then(|| {
                Store::new(Generational::new(2))
                    .with_budget(memo_budget())
                    .shared()
            });
        let store = self
            .cache
            .as_ref()
            .map(|c| c.store().clone())
            .or(generations.clone());
        let eval = opts
            .evaluator
            .build(&self.registry, opts.parallel.clone(), store);
        Ok(Render {
            graph,
            animated: planned.animated,
            dt: opts.dt,
            driver: Recurrent::new(eval, self.registry.clone()),
            request: Request::new(outputs.iter().cloned()),
            ctx,
            generations,
            outputs,
        })
    }
}

/// The digits a render pads its tick numbers to: those of the last tick, at least 3.
pub fn tick_width(ticks: u64) -> usize {
    ticks.saturating_sub(1).to_string().len().max(3)
}

/// The file stem of output `name` at tick `t`: `name_007` (dots in `name` become `_`).
pub fn frame_stem(name: &str, t: u64, width: usize) -> String {
    format!("{}_{t:0width$}", name.replace('.', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_padded_to_the_last_tick_at_least_three_digits() {
        assert_eq!(tick_width(1), 3);
        assert_eq!(tick_width(100), 3);
        assert_eq!(tick_width(1000), 3);
        assert_eq!(tick_width(1001), 4);
        assert_eq!(tick_width(100_000), 5);
        assert_eq!(frame_stem("trails", 7, 3), "trails_007");
        assert_eq!(frame_stem("noise.out", 12, 4), "noise_out_0012");
        assert_eq!(frame_stem("x", 12345, 3), "x_12345");
    }
}
