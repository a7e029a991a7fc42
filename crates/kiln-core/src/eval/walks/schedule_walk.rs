//! The schedule walk: replays a compiled [`Schedule`] block by block with an explicit stack
//! of frames (no recursion, whatever the depth of the graph), asking the lazy ops of a block
//! which inputs to pull ([`lazy_step`]) and handing parallel levels to the level runner
//! ([`parallel`](crate::eval::parallel)). What "done" means and what running a node does belong to the
//! [`Retention`]: a generation stamp and a plain execution for slots, a stale bit and a cutoff
//! check for incremental records.

use crate::eval::EvalError;
use crate::eval::parallel::{Parallel, run_level};
use crate::eval::retention::Retention;
use crate::eval::runner::Runner;
use crate::eval::runner::lazy_inputs::{LazyScratch, LazyStep, lazy_step};
use crate::eval::walks::schedule::{NONE, Schedule};
use crate::plan::{Plan, Source};
use crate::value::Value;
use std::time::Instant;

#[derive(Clone, Copy)]
struct Frame {
    block: u32,
    pos: u32,
    /// The node at `pos` is in the middle of its lazy-input protocol.
    pulling: bool,
}

/// Reusable buffers of the schedule walk.
#[derive(Default)]
pub(crate) struct ScheduleWalk {
    stack: Vec<Frame>,
    scratch: Vec<Value>,
    lazy: LazyScratch,
}

impl ScheduleWalk {
    /// Run block `block` of `sched` from position `start`, bringing every node of it (and of
    /// the lazy blocks its ops pull) up to date.
    ///
    /// `visit`, when given, lists (ascending) the only positions of the main block that may
    /// need work: the walk jumps between them instead of asking every node whether it is
    /// done (lazy blocks are still walked whole).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run<S: Retention>(
        &mut self,
        plan: &Plan,
        sched: &mut Schedule,
        start: usize,
        state: &mut S,
        runner: &mut Runner,
        par: Option<&Parallel<'_>>,
        visit: Option<&[u32]>,
    ) -> Result<(), EvalError> {
        sched.runs += 1;
        // Measure level costs on the first three runs and then every 256th.
        let measure = par.is_some() && (sched.runs <= 3 || sched.runs.is_multiple_of(256));
        self.stack.clear();
        self.stack.push(Frame {
            block: 0,
            pos: start as u32,
            pulling: false,
        });
        let r = self.drive(plan, sched, state, runner, par, measure, visit);
        if r.is_err() {
            self.stack.clear();
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn drive<S: Retention>(
        &mut self,
        plan: &Plan,
        sched: &mut Schedule,
        state: &mut S,
        runner: &mut Runner,
        par: Option<&Parallel<'_>>,
        measure: bool,
        visit: Option<&[u32]>,
    ) -> Result<(), EvalError> {
        let mut level_started: Option<(usize, Instant)> = None;
        let mut last_level: Option<usize> = None;
        // Outside measuring runs, only the parallel levels interrupt the straight line.
        let par_list = match par {
            Some(p) if !measure => sched.parallel_levels(p.min_cost),
            _ => vec![],
        };
        let start = self.stack.first().map_or(0, |f| f.pos);
        let mut cursor = par_list.partition_point(|&l| sched.levels[l as usize] < start);
        while let Some(&f) = self.stack.last() {
            let top = self.stack.len() - 1;
            if f.pos as usize >= sched.blocks[f.block as usize].len() {
                self.stack.pop();
                continue;
            }
            let main = f.block == 0 && !f.pulling;
            if let Some(par) = par
                && main
                && measure
            {
                let l = sched.level_at[f.pos as usize];
                if l != NONE && last_level.is_none_or(|p| p < l as usize) {
                    let l = l as usize;
                    last_level = Some(l);
                    if let Some((pl, t0)) = level_started.take() {
                        record_cost(sched, pl, t0);
                    }
                    let (a, b) = (sched.levels[l] as usize, sched.levels[l + 1] as usize);
                    if sched.level_parallel(l, par.min_cost) {
                        let next = |v| sched.chain_next(plan, v, par.min_cost);
                        let chains = state.par_chains().then_some(&next as &dyn Fn(_) -> _);
                        run_level(state, plan, &sched.blocks[0][a..b], runner, par, chains)?;
                        if sched.simple {
                            // No lazy node was left: the whole level is done.
                            self.stack[top].pos = b as u32;
                            continue;
                        }
                    } else if b - a >= 2 {
                        level_started = Some((l, Instant::now()));
                    }
                }
            } else if let Some(par) = par
                && main
                && let Some(&l) = par_list.get(cursor)
                && sched.levels[l as usize] == f.pos
            {
                cursor += 1;
                let (a, b) = (
                    sched.levels[l as usize] as usize,
                    sched.levels[l as usize + 1] as usize,
                );
                let next = |v| sched.chain_next(plan, v, par.min_cost);
                let chains = state.par_chains().then_some(&next as &dyn Fn(_) -> _);
                run_level(state, plan, &sched.blocks[0][a..b], runner, par, chains)?;
                if sched.simple {
                    // No lazy node was left: the whole level is done.
                    self.stack[top].pos = b as u32;
                    continue;
                }
                // Lazy nodes of the level (left undone) run below.
            }
            let block = &sched.blocks[f.block as usize];
            if !f.pulling {
                // The straight-line part: run non-lazy nodes until a lazy one or the end — of
                // the level while measuring, or up to the next parallel level.
                let end = match (par.is_some() && f.block == 0, measure, last_level) {
                    (true, true, Some(l)) => sched.levels[l + 1] as usize,
                    (true, false, _) => par_list
                        .get(cursor)
                        .map_or(block.len(), |&l| sched.levels[l as usize] as usize),
                    _ => block.len(),
                };
                let block = &block[..end.max(f.pos as usize)];
                // In a schedule without lazy nodes nothing asks whether a node is done, and
                // parallel levels are skipped over whole: the straight line needs no marks.
                let fresh = f.block == 0 && sched.simple;
                // The cursor walks every position, or only those of the visit list.
                let jump = visit.filter(|_| f.block == 0 && par.is_none());
                let at = |c: usize| match jump {
                    Some(vs) => vs.get(c).map(|&p| p as usize),
                    None => (c < block.len()).then_some(c),
                };
                let mut c = match jump {
                    Some(vs) => vs.partition_point(|&p| p < f.pos),
                    None => f.pos as usize,
                };
                let mut pos = block.len();
                loop {
                    c = match jump {
                        Some(vs) => state.run_visit(plan, block, vs, c, runner),
                        None => state.run_kernels(plan, block, c, runner, fresh),
                    };
                    let Some(p) = at(c) else { break };
                    let Some(&v) = block.get(p) else { break };
                    let v = v as usize;
                    if !state.is_done(v) {
                        if plan.is_lazy(v) {
                            pos = p;
                            break;
                        }
                        if let Err(e) = state.step(plan, v, &[], runner, &mut self.scratch) {
                            self.stack[top].pos = p as u32;
                            return Err(e);
                        }
                    }
                    c += 1;
                }
                self.stack[top].pos = pos as u32;
                if pos >= block.len() {
                    continue;
                }
            }
            let f = self.stack[top];
            let v = block[f.pos as usize] as usize;
            if state.is_done(v) {
                self.stack[top].pos += 1;
                continue;
            }
            if !plan.is_lazy(v) {
                state.step(plan, v, &[], runner, &mut self.scratch)?;
                self.stack[top].pos += 1;
                continue;
            }
            // The lazy protocol: ask which input to pull next, bring it up to date, repeat.
            if !f.pulling {
                sched.pulls.clear(v);
                self.stack[top].pulling = true;
            }
            let step = lazy_step(
                plan,
                v,
                state.vals(),
                state.taints(),
                &mut sched.pulls,
                &mut self.lazy,
                runner,
            )?;
            match step {
                LazyStep::Pull(i) => {
                    if let Source::Wire { node, .. } = plan.inputs(v)[i]
                        && !state.is_done(node as usize)
                    {
                        let b = sched.lazy_block_of(v, i);
                        if b != NONE {
                            self.stack.push(Frame {
                                block: b,
                                pos: 0,
                                pulling: false,
                            });
                        }
                    }
                }
                LazyStep::Run => {
                    state.step(plan, v, sched.pulls.get(v), runner, &mut self.scratch)?;
                    self.stack[top].pos += 1;
                    self.stack[top].pulling = false;
                }
            }
        }
        if let Some((pl, t0)) = level_started.take() {
            record_cost(sched, pl, t0);
        }
        if par.is_some() && !measure {
            sched.par_levels = par.map(|p| (p.min_cost, sched.cost_epoch, par_list));
        }
        Ok(())
    }
}

/// Keep the fastest sequential time seen for level `l`.
pub(crate) fn record_cost(sched: &mut Schedule, l: usize, t0: Instant) {
    let ns = (t0.elapsed().as_nanos() as u64).max(1);
    let c = &mut sched.level_cost[l];
    *c = if *c == 0 { ns } else { (*c).min(ns) };
    sched.cost_epoch += 1;
}
