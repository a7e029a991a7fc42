//! Flat schedules and the block executor shared by the eager, compiled and incremental
//! evaluators.
//!
//! A [`Schedule`] is a requested cone flattened into blocks of node indices in topological
//! order. Block 0 (the main block) holds what the request needs unconditionally: the cone of
//! the requested nodes through eager (non-lazy) inputs. Each wired lazy input has its own
//! block — the eager cone of its source — run only when the op pulls that input, so a switch's
//! untaken branch never runs. The main block is sorted by level (longest eager path from a
//! source), so the nodes of one level are independent and a parallel policy can run them at
//! once.
//!
//! [`execute`] walks blocks with an explicit stack of frames (no recursion, whatever the
//! depth of the graph). What "done" means and what running a node does are the strategy's:
//! a generation stamp and a plain execution for the compiled and eager evaluators, a stale
//! bit and a cutoff check for the incremental one.

use super::exec::{Runner, Taint, gather};
use super::kernel::{Kernels, set_float};
use super::pull::{LazyScratch, LazyStep, PullSets, lazy_step};
use super::{EvalError, ParallelPolicy, execute_node};
use crate::plan::{Plan, Source};
use crate::value::{Value, ValueType};
use std::time::{Duration, Instant};

pub(crate) const NONE: u32 = u32::MAX;

/// Which edges a cone follows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edges {
    /// Only eager inputs (lazy inputs get blocks of their own).
    Eager,
    /// Every input (the eager evaluator runs untaken branches too).
    All,
}

/// A compiled cone.
pub(crate) struct Schedule {
    /// The requested `(node, port)` pairs this schedule was built for.
    pub(crate) roots: Vec<(usize, usize)>,
    /// Block 0 is the main block; the others belong to lazy inputs.
    pub(crate) blocks: Vec<Vec<u32>>,
    /// Per node: index of its first entry in `lazy_block`, or `NONE`.
    lazy_base: Vec<u32>,
    /// Per lazy input (by `lazy_base[node] + port`): its block, or `NONE` when not wired.
    lazy_block: Vec<u32>,
    /// Per main-block position: the level starting there, or `NONE`.
    level_at: Vec<u32>,
    /// Level boundaries in the main block: level `l` is `levels[l]..levels[l + 1]`.
    levels: Vec<u32>,
    /// Per node: its position in the main block, or `NONE`.
    pub(crate) main_pos: Vec<u32>,
    /// Learned sequential cost of each level (nanoseconds; 0 = not measured yet).
    level_cost: Vec<u64>,
    /// Per level: at least two of its non-lazy nodes make heavy values (the prior before a
    /// level is measured).
    heavy_levels: Vec<bool>,
    /// Runs so far (measurement is sampled).
    runs: u64,
    /// The levels to run in parallel under a threshold, as last worked out: `(threshold,
    /// measurement epoch, levels)`.
    par_levels: Option<(Duration, u64, Vec<u32>)>,
    /// Bumped when level costs change.
    cost_epoch: u64,
    /// The first main-block position that may hold a stale node (incremental evaluation).
    pub(crate) first_stale: u32,
    /// No lazy node in the main block (so no lazy blocks).
    pub(crate) simple: bool,
    /// No lazy blocks, and every successor of a main-block node is in the main block: the
    /// downstream cone of any of its nodes lies after it in the main block.
    pub(crate) self_contained: bool,
    /// What each lazy node pulled in the current run.
    pub(crate) pulls: PullSets,
}

/// Nodes of the cone of `starts` (through `edges`), in topological order: an iterative
/// post-order depth-first search. `mark` must be all-false on entry and is left so.
fn cone(plan: &Plan, starts: &[u32], edges: Edges, mark: &mut [bool]) -> Vec<u32> {
    let mut out = vec![];
    let mut stack: Vec<(u32, u32)> = vec![];
    for &s in starts {
        if mark[s as usize] {
            continue;
        }
        mark[s as usize] = true;
        stack.push((s, 0));
        while let Some(top) = stack.last_mut() {
            let v = top.0 as usize;
            let i = top.1 as usize;
            let inputs = plan.inputs(v);
            if i < inputs.len() {
                top.1 += 1;
                let lazy =
                    edges == Edges::Eager && plan.is_lazy(v) && plan.op(v).spec().inputs[i].lazy;
                if let Source::Wire { node, .. } = inputs[i]
                    && !lazy
                    && !mark[node as usize]
                {
                    mark[node as usize] = true;
                    stack.push((node, 0));
                }
            } else {
                out.push(top.0);
                stack.pop();
            }
        }
    }
    for &v in &out {
        mark[v as usize] = false;
    }
    out
}

impl Schedule {
    /// Compile the cone of `roots`. With [`Edges::All`] there are no lazy blocks: every input
    /// is computed before its node.
    pub(crate) fn build(plan: &Plan, roots: &[(usize, usize)], edges: Edges) -> Schedule {
        let n = plan.len();
        let mut mark = vec![false; n];
        let starts: Vec<u32> = roots.iter().map(|&(r, _)| r as u32).collect();
        let mut main = cone(plan, &starts, edges, &mut mark);

        // Levels over eager edges inside the main block, then a stable sort by level.
        let mut main_pos = vec![NONE; n];
        for (i, &v) in main.iter().enumerate() {
            main_pos[v as usize] = i as u32;
        }
        let mut level = vec![0u32; n];
        for &v in &main {
            let v = v as usize;
            let mut l = 0;
            for (i, s) in plan.inputs(v).iter().enumerate() {
                let lazy =
                    edges == Edges::Eager && plan.is_lazy(v) && plan.op(v).spec().inputs[i].lazy;
                if let Source::Wire { node, .. } = s
                    && !lazy
                    && main_pos[*node as usize] != NONE
                {
                    l = l.max(level[*node as usize] + 1);
                }
            }
            level[v] = l;
        }
        // By level, then by node index: within a level, slots are visited in memory order.
        main.sort_by_key(|&v| (level[v as usize], v));
        let mut levels = vec![];
        let mut level_at = vec![NONE; main.len()];
        for (i, &v) in main.iter().enumerate() {
            main_pos[v as usize] = i as u32;
            if i == 0 || level[main[i - 1] as usize] != level[v as usize] {
                level_at[i] = levels.len() as u32;
                levels.push(i as u32);
            }
        }
        levels.push(main.len() as u32);

        let mut blocks = vec![main];
        let mut lazy_base = vec![NONE; n];
        let mut lazy_block = vec![];
        if edges == Edges::Eager {
            // Discover lazy inputs block by block (a worklist over blocks).
            let mut b = 0;
            while b < blocks.len() {
                let lazy_nodes: Vec<u32> = blocks[b]
                    .iter()
                    .copied()
                    .filter(|&v| plan.is_lazy(v as usize) && lazy_base[v as usize] == NONE)
                    .collect();
                for v in lazy_nodes {
                    let v = v as usize;
                    lazy_base[v] = lazy_block.len() as u32;
                    let specs = &plan.op(v).spec().inputs;
                    let mut entries = vec![NONE; specs.len()];
                    for (i, s) in plan.inputs(v).iter().enumerate() {
                        if let Source::Wire { node, .. } = s
                            && specs[i].lazy
                        {
                            entries[i] = blocks.len() as u32;
                            blocks.push(cone(plan, &[*node], Edges::Eager, &mut mark));
                        }
                    }
                    lazy_block.extend(entries);
                }
                b += 1;
            }
        }
        let n_levels = levels.len() - 1;
        let heavy_levels = (0..n_levels)
            .map(|l| {
                let nodes = &blocks[0][levels[l] as usize..levels[l + 1] as usize];
                nodes
                    .iter()
                    .filter(|&&v| {
                        !plan.is_lazy(v as usize)
                            && plan
                                .output_types(v as usize)
                                .iter()
                                .any(|t| matches!(t, ValueType::Heavy(_)))
                    })
                    .count()
                    >= 2
            })
            .collect();
        let self_contained = blocks.len() == 1
            && blocks[0].iter().all(|&v| {
                plan.topology()
                    .succs(v as usize)
                    .iter()
                    .all(|&w| main_pos[w as usize] != NONE)
            });
        let simple = blocks.len() == 1 && blocks[0].iter().all(|&v| !plan.is_lazy(v as usize));
        Schedule {
            pulls: PullSets::new(plan),
            simple,
            self_contained,
            roots: roots.to_vec(),
            blocks,
            lazy_base,
            lazy_block,
            level_at,
            levels,
            main_pos,
            level_cost: vec![0; n_levels],
            heavy_levels,
            runs: 0,
            par_levels: None,
            cost_epoch: 0,
            first_stale: 0,
        }
    }

    /// Nodes of the main block.
    pub(crate) fn main_len(&self) -> usize {
        self.blocks[0].len()
    }

    /// Whether level `l` runs in parallel under threshold `min_cost`.
    fn level_parallel(&self, l: usize, min_cost: Duration) -> bool {
        let size = self.levels[l + 1] - self.levels[l];
        let measured = self.level_cost[l] != 0;
        // Before a level is measured, two or more nodes making heavy values (images,
        // buffers) are presumed worth it.
        size >= 2
            && (min_cost.is_zero()
                || (!measured && self.heavy_levels[l])
                || (measured && Duration::from_nanos(self.level_cost[l]) >= min_cost))
    }

    /// The node a parallel task that ran `v` may run next in the same task: `v`'s only
    /// successor `w`, when `v` is all `w` reads from other nodes, `w` is not lazy, and `w`'s
    /// level runs in parallel too (so nothing runs it sequentially in between). A branch of
    /// such nodes then runs as one task, with no join between its levels.
    fn chain_next(&self, plan: &Plan, v: usize, min_cost: Duration) -> Option<usize> {
        let topo = plan.topology();
        let succ = topo.succs(v);
        let w = *succ.first()? as usize;
        if succ.iter().any(|&x| x as usize != w)
            || plan.is_lazy(w)
            || topo.preds(w).iter().any(|&u| u as usize != v)
        {
            return None;
        }
        let pos = self.main_pos[w];
        if pos == NONE {
            return None;
        }
        let l = self.levels.partition_point(|&start| start <= pos) - 1;
        self.level_parallel(l, min_cost).then_some(w)
    }

    /// The levels to run in parallel under `min_cost` (cached until costs change).
    fn parallel_levels(&mut self, min_cost: Duration) -> Vec<u32> {
        match self.par_levels.take() {
            Some((c, e, list)) if c == min_cost && e == self.cost_epoch => list,
            _ => (0..self.level_cost.len())
                .filter(|&l| self.level_parallel(l, min_cost))
                .map(|l| l as u32)
                .collect(),
        }
    }

    fn lazy_block_of(&self, v: usize, port: usize) -> u32 {
        match self.lazy_base[v] {
            NONE => NONE,
            b => self.lazy_block[b as usize + port],
        }
    }
}

/// What an evaluator keeps per node, and what running one means to it.
pub(crate) trait Strategy {
    /// Whether node `v` needs no work in this request.
    fn is_done(&self, v: usize) -> bool;
    /// Value slots (see [`Plan::output_offset`]).
    fn vals(&self) -> &[Value];
    /// Per-node taints.
    fn taints(&self) -> &[Taint];
    /// Bring node `v` up to date; its inputs (the lazy ones in `pulled`) are.
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError>;
    /// The slot state eager and compiled evaluators share, for parallel levels.
    fn slots(&mut self) -> Option<&mut Slots> {
        None
    }
    /// Run the nodes of `block` from `pos` that have scalar kernels, as far as they go;
    /// returns where it stopped.
    ///
    /// `fresh` says no node of the block can be done already and nothing will ask later (the
    /// main block of a schedule without lazy nodes), so done-marks may be skipped.
    fn run_kernels(
        &mut self,
        _plan: &Plan,
        _block: &[u32],
        pos: usize,
        _runner: &mut Runner,
        _fresh: bool,
    ) -> usize {
        pos
    }
    /// As [`Strategy::run_kernels`], over the positions `visit[i..]` of `block` only;
    /// returns the index in `visit` where it stopped.
    fn run_visit(
        &mut self,
        _plan: &Plan,
        _block: &[u32],
        _visit: &[u32],
        i: usize,
        _runner: &mut Runner,
    ) -> usize {
        i
    }
}

#[derive(Clone, Copy)]
struct Frame {
    block: u32,
    pos: u32,
    /// The node at `pos` is in the middle of its lazy-input protocol.
    pulling: bool,
}

/// Reusable buffers of the executor.
#[derive(Default)]
pub(crate) struct Executor {
    stack: Vec<Frame>,
    scratch: Vec<Value>,
    lazy: LazyScratch,
}

/// A parallel policy resolved for one run: its pool and its cost threshold.
pub(crate) struct Parallel<'p> {
    pub(crate) pool: &'p rayon::ThreadPool,
    pub(crate) min_cost: Duration,
}

impl Executor {
    /// Run block `block` of `sched` from position `start`, bringing every node of it (and of
    /// the lazy blocks its ops pull) up to date.
    ///
    /// `visit`, when given, lists (ascending) the only positions of the main block that may
    /// need work: the walk jumps between them instead of asking every node whether it is
    /// done (lazy blocks are still walked whole).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run<S: Strategy>(
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
    fn drive<S: Strategy>(
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
                        if let Some(slots) = state.slots() {
                            let next = |v| sched.chain_next(plan, v, par.min_cost);
                            slots.run_level(plan, &sched.blocks[0][a..b], runner, par, &next)?;
                            if sched.simple {
                                // No lazy node was left: the whole level is done.
                                self.stack[top].pos = b as u32;
                                continue;
                            }
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
                if let Some(slots) = state.slots() {
                    let next = |v| sched.chain_next(plan, v, par.min_cost);
                    slots.run_level(plan, &sched.blocks[0][a..b], runner, par, &next)?;
                    if sched.simple {
                        // No lazy node was left: the whole level is done.
                        self.stack[top].pos = b as u32;
                        continue;
                    }
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
fn record_cost(sched: &mut Schedule, l: usize, t0: Instant) {
    let ns = (t0.elapsed().as_nanos() as u64).max(1);
    let c = &mut sched.level_cost[l];
    *c = if *c == 0 { ns } else { (*c).min(ns) };
    sched.cost_epoch += 1;
}

/// Value slots with generation stamps: the state of the eager and compiled evaluators.
#[derive(Default)]
pub(crate) struct Slots {
    /// Per node: its scalar kernel, when it has one.
    kernels: Kernels,
    pub(crate) vals: Vec<Value>,
    pub(crate) taints: Vec<Taint>,
    stamp: Vec<u32>,
    generation: u32,
    /// No node holds a taint in this request (the fast path's condition).
    untainted: bool,
}

impl Slots {
    /// Size the slots for `plan` and forget every value.
    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.kernels = Kernels::new(plan);
        self.vals = vec![Value::Empty; plan.total_outputs() + self.kernels.extra()];
        self.kernels.lower_all(plan, &mut self.vals);
        self.taints = vec![None; plan.len()];
        self.stamp = vec![0; plan.len()];
        self.generation = 0;
    }
    /// Lower `nodes` again after a value edit changed their params or constants.
    pub(crate) fn relower(&mut self, plan: &Plan, nodes: &[usize]) {
        for &v in nodes {
            self.kernels.lower(plan, v, &mut self.vals);
        }
    }

    /// Start a request: every node becomes not done.
    pub(crate) fn next_generation(&mut self) {
        if self.generation == u32::MAX {
            self.stamp.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        if !self.untainted {
            self.taints.fill(None);
        }
        self.untainted = true;
    }

    /// Run the non-lazy, not-done nodes of one level on the pool, then record their results
    /// in level order (so errors, stats and progress come out as a sequential run's would).
    fn run_level(
        &mut self,
        plan: &Plan,
        nodes: &[u32],
        runner: &mut Runner,
        par: &Parallel<'_>,
        chain_next: &dyn Fn(usize) -> Option<usize>,
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
            if plan.is_lazy(v) || self.stamp[v] == self.generation {
                continue;
            }
            let mut inputs = vec![];
            let taint = gather(plan, v, &self.vals, &self.taints, &[], &mut inputs);
            let mut out = vec![Value::Empty; plan.n_outputs(v)];
            match runner.prepare(v, &inputs, &taint, &mut out)? {
                super::exec::Prepared::Propagated(t) => {
                    self.store(plan, v, out, t);
                }
                super::exec::Prepared::Run => {
                    let mut chain = vec![v];
                    while let Some(w) = chain.last().and_then(|&u| chain_next(u)) {
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
        par.pool.install(|| {
            jobs.par_iter_mut().for_each(|j| {
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
                    let result =
                        execute_node(plan, v, &inputs, c.as_ref().unwrap_or(ctx), &mut out);
                    j.steps.push(Step {
                        v,
                        out: std::mem::take(&mut out),
                        result,
                        time: t0.elapsed(),
                    });
                }
            })
        });
        // Record in level order, each task's chain after its first node: errors, stats and
        // progress come out as a sequential run's would. Chain nodes a task did not reach
        // (after a failure) are left for their own level.
        for j in jobs {
            for mut st in j.steps {
                runner.progress.start_node(plan, st.v);
                runner.record_time(st.v, st.time);
                runner.stats.parallel += 1;
                let failed = st.result.is_err();
                let t = runner.complete(st.v, st.result, j.taint.clone(), &mut st.out)?;
                runner.progress.finish_node(plan, st.v);
                self.store(plan, st.v, st.out, t);
                if failed {
                    break;
                }
            }
        }
        Ok(())
    }

    fn store(&mut self, plan: &Plan, v: usize, out: Vec<Value>, taint: Taint) {
        let off = plan.output_offset(v);
        for (p, val) in out.into_iter().enumerate() {
            self.vals[off + p] = val;
        }
        self.untainted &= taint.is_none();
        self.taints[v] = taint;
        self.stamp[v] = self.generation;
    }
}

impl Strategy for Slots {
    #[inline]
    fn is_done(&self, v: usize) -> bool {
        self.stamp[v] == self.generation
    }
    fn vals(&self) -> &[Value] {
        &self.vals
    }
    fn taints(&self) -> &[Taint] {
        &self.taints
    }
    #[inline]
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError> {
        let off = plan.output_offset(v);
        let n = plan.n_outputs(v);
        if self.untainted && !plan.is_lazy(v) && runner.plain() {
            if let Some(k) = self.kernels.get(v)
                && let Some(r) = k.eval(&self.vals)
            {
                if runner.cancelled() {
                    return Err(EvalError::Cancelled);
                }
                set_float(&mut self.vals[k.out as usize], r);
                runner.executed_fast();
                self.stamp[v] = self.generation;
                return Ok(());
            }
            // The fast path: no taint anywhere, nothing to report per node.
            scratch.clear();
            for s in plan.inputs(v) {
                scratch.push(match s {
                    Source::Wire { node, port } => {
                        self.vals[plan.output_offset(*node as usize) + *port as usize].clone()
                    }
                    Source::Const(c) => c.clone(),
                    Source::Empty => Value::Empty,
                });
            }
            if runner.cancelled() {
                return Err(EvalError::Cancelled);
            }
            let out = &mut self.vals[off..off + n];
            match execute_node(plan, v, scratch, runner.op_ctx(), out) {
                Ok(()) => runner.executed_fast(),
                Err(e) => {
                    let t = runner.complete(v, Err(e), None, out)?;
                    self.untainted &= t.is_none();
                    self.taints[v] = t;
                }
            }
            self.stamp[v] = self.generation;
            return Ok(());
        }
        let taint = gather(plan, v, &self.vals, &self.taints, pulled, scratch);
        let t = runner.run(v, scratch, taint, &mut self.vals[off..off + n])?;
        self.untainted &= t.is_none();
        self.taints[v] = t;
        self.stamp[v] = self.generation;
        Ok(())
    }
    fn slots(&mut self) -> Option<&mut Slots> {
        Some(self)
    }
    #[inline]
    fn run_kernels(
        &mut self,
        _plan: &Plan,
        block: &[u32],
        pos: usize,
        runner: &mut Runner,
        fresh: bool,
    ) -> usize {
        if !self.untainted || !runner.plain() {
            return pos;
        }
        if fresh {
            self.kernel_loop::<false>(block, pos, runner)
        } else {
            self.kernel_loop::<true>(block, pos, runner)
        }
    }
}

impl Slots {
    /// The loop of [`Strategy::run_kernels`]: with `MARKS`, skip nodes already done and mark
    /// the ones run; without, neither (see `fresh`).
    #[inline(always)]
    fn kernel_loop<const MARKS: bool>(
        &mut self,
        block: &[u32],
        mut pos: usize,
        runner: &mut Runner,
    ) -> usize {
        let generation = self.generation;
        let mut executed = 0u64;
        let (mut last_slot, mut last) = (u32::MAX, 0.0);
        while let Some(&v) = block.get(pos) {
            let v = v as usize;
            let Some(k) = self.kernels.get(v) else { break };
            if !MARKS || self.stamp[v] != generation {
                let Some(r) = k.eval_after(&self.vals, last_slot, last) else {
                    break;
                };
                // Cancellation is checked between nodes, here every 256 kernels (about a
                // microsecond of work).
                if executed & 255 == 255 && runner.cancelled() {
                    break;
                }
                set_float(&mut self.vals[k.out as usize], r);
                (last_slot, last) = (k.out, r);
                if MARKS {
                    self.stamp[v] = generation;
                }
                executed += 1;
            }
            pos += 1;
        }
        runner.stats.executed += executed;
        pos
    }
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

/// The schedules an evaluator compiled, by requested roots (most recent first, a few kept).
#[derive(Default)]
pub(crate) struct ScheduleCache {
    list: Vec<Schedule>,
}

/// How many root sets an evaluator keeps compiled.
const KEPT_SCHEDULES: usize = 8;

impl ScheduleCache {
    /// Forget every schedule (the plan changed shape).
    pub(crate) fn clear(&mut self) {
        self.list.clear();
    }
    /// The schedule for `roots`, compiling it if needed; the flag says it was compiled now.
    pub(crate) fn get(
        &mut self,
        plan: &Plan,
        roots: &[(usize, usize)],
        edges: Edges,
    ) -> (&mut Schedule, bool) {
        let mut built = false;
        match self.list.iter().position(|s| s.roots == roots) {
            Some(0) => {}
            Some(i) => {
                let s = self.list.remove(i);
                self.list.insert(0, s);
            }
            None => {
                built = true;
                self.insert(Schedule::build(plan, roots, edges));
            }
        }
        (&mut self.list[0], built)
    }
    /// Add a schedule compiled elsewhere.
    pub(crate) fn insert(&mut self, s: Schedule) {
        self.list.retain(|x| x.roots != s.roots);
        self.list.insert(0, s);
        self.list.truncate(KEPT_SCHEDULES);
    }
    /// The most recently used schedule.
    pub(crate) fn front_mut(&mut self) -> Option<&mut Schedule> {
        self.list.first_mut()
    }
    /// Every kept schedule.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Schedule> {
        self.list.iter_mut()
    }
}
