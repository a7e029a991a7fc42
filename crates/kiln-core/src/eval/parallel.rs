//! Parallel levels: the rayon pool of a [`ParallelPolicy`], the threshold that decides when
//! a level is worth running at once, and the level runner every walk with levels shares
//! (the schedule walk of every evaluator, whatever it retains).

use super::retention::Retention;
use super::runner::op_call::execute_node;
use super::{EvalError, ParallelPolicy};
use crate::eval::runner::{Runner, Taint};
use crate::plan::{Plan, Source};
use crate::value::Value;
use std::time::{Duration, Instant};

/// A parallel policy resolved for one run: its pool and its cost threshold.
pub(crate) struct Parallel<'p> {
    pub(crate) pool: &'p rayon::ThreadPool,
    pub(crate) min_cost: Duration,
}

/// A parallel policy's thread pool, built on first use.
#[derive(Default)]
pub(crate) struct PoolCache {
    pool: Option<(Option<usize>, rayon::ThreadPool)>,
    /// Learned threshold: a multiple of the measured fork-join overhead.
    learned: Option<Duration>,
}

impl PoolCache {
    /// The pool and threshold for `policy`, or `None` for sequential evaluation.
    pub(crate) fn resolve(
        &mut self,
        policy: &ParallelPolicy,
    ) -> Result<Option<Parallel<'_>>, EvalError> {
        let ParallelPolicy::Rayon { threads, min_cost } = policy else {
            return Ok(None);
        };
        if self.pool.as_ref().is_none_or(|(t, _)| t != threads) {
            let mut b = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("kiln-{i}"));
            if let Some(t) = threads {
                b = b.num_threads(*t);
            }
            let pool = b.build().map_err(|e| EvalError::Worker(e.to_string()))?;
            self.pool = Some((*threads, pool));
            self.learned = None;
        }
        let Some((_, pool)) = &self.pool else {
            return Ok(None);
        };
        let min_cost = match min_cost {
            Some(c) => *c,
            None => *self.learned.get_or_insert_with(|| learn_threshold(pool)),
        };
        Ok(Some(Parallel { pool, min_cost }))
    }
}

/// Measure what running a level on the pool costs beyond its work (the best of several
/// fork-joins of empty tasks) and ask for ten times that, at least 20 µs, before a level
/// goes parallel.
fn learn_threshold(pool: &rayon::ThreadPool) -> Duration {
    use rayon::prelude::*;
    let mut best = Duration::MAX;
    let mut sink = vec![0u64; pool.current_num_threads().max(2) * 2];
    for _ in 0..16 {
        let t0 = Instant::now();
        pool.install(|| sink.par_iter_mut().for_each(|x| *x = x.wrapping_add(1)));
        best = best.min(t0.elapsed());
    }
    (best * 10).max(Duration::from_micros(20))
}

/// Run the non-lazy, not-done nodes of one level on the pool, then record their results
/// in level order (so errors, stats and progress come out as a sequential run's would).
/// What "done", "begin" and "finish" mean is the strategy's; `chain_next`, when given,
/// lets a task go on with the node its last node alone feeds.
pub(crate) fn run_level<S: Retention>(
    state: &mut S,
    plan: &Plan,
    nodes: &[u32],
    runner: &mut Runner,
    par: &Parallel<'_>,
    chain_next: Option<&dyn Fn(usize) -> Option<usize>>,
) -> Result<(), EvalError> {
    use rayon::prelude::*;
    /// One node a task ran.
    struct Step {
        v: usize,
        out: Vec<Value>,
        result: Result<(), EvalError>,
        time: Duration,
    }
    /// A task: a node of the level, then the chain of nodes it alone feeds.
    struct Job {
        inputs: Vec<Value>,
        taint: Taint,
        out: Vec<Value>,
        steps: Vec<Step>,
        /// The nodes the task runs: `v`, then its chain.
        chain: Vec<usize>,
        /// The contexts the task's ops see when progress is on (naming each node).
        ctxs: Vec<Option<crate::context::EvalContext>>,
    }
    let mut jobs = vec![];
    for &v in nodes {
        let v = v as usize;
        if plan.is_lazy(v) || state.is_done(v) {
            continue;
        }
        match state.par_begin(plan, v, runner)? {
            None => {}
            Some((inputs, taint)) => {
                let out = vec![Value::Empty; plan.n_outputs(v)];
                let mut chain = vec![v];
                while let Some(w) = chain_next.and_then(|f| chain.last().and_then(|&u| f(u))) {
                    chain.push(w);
                }
                let ctxs = chain
                    .iter()
                    .map(|&u| runner.progress.node_ctx(plan, u))
                    .collect();
                jobs.push(Job {
                    inputs,
                    taint,
                    out,
                    steps: vec![],
                    chain,
                    ctxs,
                })
            }
        }
    }
    let ctx = runner.op_ctx();
    let run_task = |j: &mut Job| {
        let mut inputs = std::mem::take(&mut j.inputs);
        let mut out = std::mem::take(&mut j.out);
        for (i, (&v, c)) in j.chain.iter().zip(&j.ctxs).enumerate() {
            if i > 0 {
                // The next node of the chain reads the previous one's outputs.
                let prev = &j.steps[i - 1];
                if prev.result.is_err() || ctx.is_cancelled() {
                    break;
                }
                inputs = plan
                    .inputs(v)
                    .iter()
                    .map(|s| match s {
                        Source::Wire { port, .. } => prev.out[*port as usize].clone(),
                        Source::Const(c) => c.clone(),
                        Source::Empty => Value::Empty,
                    })
                    .collect();
                out = vec![Value::Empty; plan.n_outputs(v)];
            }
            let t0 = Instant::now();
            let result = execute_node(plan, v, &inputs, c.as_ref().unwrap_or(ctx), &mut out);
            j.steps.push(Step {
                v,
                out: std::mem::take(&mut out),
                result,
                time: t0.elapsed(),
            });
        }
    };
    // A lone task gains nothing from the pool: it runs here.
    let pooled = jobs.len() >= 2;
    if pooled {
        par.pool.install(|| jobs.par_iter_mut().for_each(run_task));
    } else {
        jobs.iter_mut().for_each(run_task);
    }
    // Record in level order, each task's chain after its first node: errors, stats and
    // progress come out as a sequential run's would. Chain nodes a task did not reach
    // (after a failure) are left for their own level.
    for j in jobs {
        for mut st in j.steps {
            runner.progress.start_node(plan, st.v);
            runner.record_time(st.v, st.time);
            runner.stats.parallel += pooled as u64;
            let failed = st.result.is_err();
            let t = runner.complete(st.v, st.result, j.taint.clone(), &mut st.out)?;
            runner.progress.finish_node(plan, st.v);
            state.par_finish(plan, st.v, st.out, t, runner);
            if failed {
                break;
            }
        }
    }
    Ok(())
}
