//! Flat schedules: a requested cone compiled once for the schedule walk
//! ([`schedule_walk`](super::schedule_walk)) of the eager, compiled and incremental evaluators.
//!
//! A [`Schedule`] is a requested cone flattened into blocks of node indices in topological
//! order. Block 0 (the main block) holds what the request needs unconditionally: the cone of
//! the requested nodes through eager (non-lazy) inputs. Each wired lazy input has its own
//! block — the eager cone of its source — run only when the op pulls that input, so a switch's
//! untaken branch never runs. The main block is sorted by level (longest eager path from a
//! source), so the nodes of one level are independent and a parallel policy can run them at
//! once.

use crate::eval::runner::pulled::PullSets;
use crate::plan::{Plan, Source};
use crate::value::ValueType;
use std::time::Duration;

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
    pub(crate) lazy_base: Vec<u32>,
    /// Per lazy input (by `lazy_base[node] + port`): its block, or `NONE` when not wired.
    pub(crate) lazy_block: Vec<u32>,
    /// Per main-block position: the level starting there, or `NONE`.
    pub(crate) level_at: Vec<u32>,
    /// Level boundaries in the main block: level `l` is `levels[l]..levels[l + 1]`.
    pub(crate) levels: Vec<u32>,
    /// Per node: its position in the main block, or `NONE`.
    pub(crate) main_pos: Vec<u32>,
    /// Learned sequential cost of each level (nanoseconds; 0 = not measured yet).
    pub(crate) level_cost: Vec<u64>,
    /// Per level: at least two of its non-lazy nodes make heavy values (the prior before a
    /// level is measured).
    pub(crate) heavy_levels: Vec<bool>,
    /// Runs so far (measurement is sampled).
    pub(crate) runs: u64,
    /// The levels to run in parallel under a threshold, as last worked out: `(threshold,
    /// measurement epoch, levels)`.
    pub(crate) par_levels: Option<(Duration, u64, Vec<u32>)>,
    /// Bumped when level costs change.
    pub(crate) cost_epoch: u64,
    /// The first main-block position that may hold a stale node (incremental evaluation).
    pub(crate) first_stale: u32,
    /// No lazy node in the main block (so no lazy blocks).
    pub(crate) simple: bool,
    /// No lazy blocks, and every successor of a main-block node is in the main block: the
    /// downstream cone of any of its nodes lies after it in the main block.
    pub(crate) self_contained: bool,
    /// What each lazy node pulled in the current run.
    pub(crate) pulls: PullSets,
    /// Per node: how many wired inputs of main-block nodes read it (`u32::MAX` for a
    /// requested node), when the schedule releases values (see [`release`](crate::eval::retention::release)).
    uses: Option<Vec<u32>>,
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
        let makes_heavy = blocks[0].iter().any(|&v| {
            plan.output_types(v as usize)
                .iter()
                .any(|t| matches!(t, ValueType::Heavy(_)))
        });
        let uses = (simple && makes_heavy).then(|| {
            let mut uses = vec![0u32; n];
            for &v in &blocks[0] {
                for s in plan.inputs(v as usize) {
                    if let Source::Wire { node, .. } = s {
                        uses[*node as usize] = uses[*node as usize].saturating_add(1);
                    }
                }
            }
            for &(r, _) in roots {
                uses[r] = u32::MAX;
            }
            uses
        });
        Schedule {
            uses,
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

    /// Readers per node, when the schedule releases values (see [`release`](crate::eval::retention::release)).
    pub(crate) fn uses(&self) -> Option<&[u32]> {
        self.uses.as_deref()
    }

    /// Nodes of the main block.
    pub(crate) fn main_len(&self) -> usize {
        self.blocks[0].len()
    }

    /// Whether level `l` runs in parallel under threshold `min_cost`.
    pub(crate) fn level_parallel(&self, l: usize, min_cost: Duration) -> bool {
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
    pub(crate) fn chain_next(&self, plan: &Plan, v: usize, min_cost: Duration) -> Option<usize> {
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
    pub(crate) fn parallel_levels(&mut self, min_cost: Duration) -> Vec<u32> {
        match self.par_levels.take() {
            Some((c, e, list)) if c == min_cost && e == self.cost_epoch => list,
            _ => (0..self.level_cost.len())
                .filter(|&l| self.level_parallel(l, min_cost))
                .map(|l| l as u32)
                .collect(),
        }
    }

    pub(crate) fn lazy_block_of(&self, v: usize, port: usize) -> u32 {
        match self.lazy_base[v] {
            NONE => NONE,
            b => self.lazy_block[b as usize + port],
        }
    }
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
