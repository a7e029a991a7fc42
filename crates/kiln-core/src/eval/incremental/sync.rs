//! Keeping the records true to the graph and the context: rebuilds that keep what still
//! holds, and invalidation (a node dirty, its downstream cone stale).

use super::IncrementalEvaluator;
use super::bits::Bits;
use super::ctx_print::CtxPrint;
use super::records::NodeInfo;
use crate::context::EvalContext;
use crate::eval::EvalError;
use crate::eval::runner::kernel::Kernels;
use crate::eval::walks::schedule::NONE;
use crate::graph::Graph;
use crate::key::{Key, KeyHasher};
use crate::op::Purity;
use crate::plan::{Plan, Source};
use crate::value::Value;
use std::sync::Arc;

impl IncrementalEvaluator {
    /// Build the plan of `graph` after a structural edit. Values survive where they still
    /// hold: a node with the same id, op, params, constants and wiring (by source ids) as
    /// before keeps its value and is only checked; a node of the same id that changed keeps
    /// its old value only to compare with (an early cutoff when it computes the same bits).
    pub(super) fn rebuild(&mut self, graph: &Graph) -> Result<Arc<Plan>, EvalError> {
        let plan = self.host.build(graph)?;
        let n = plan.len();
        // Deferred invalidations become stale marks first, so "not stale" below means "up to
        // date" for every old node.
        if let Some(old) = self.host.plan().cloned()
            && !self.pending.is_empty()
        {
            self.flush(&old);
        }
        let old_plan = self.host.plan_mut().take();
        let old_state = std::mem::take(&mut self.state);
        let st = &mut self.state;
        st.store = old_state.store.clone();
        st.release.record = old_state.release.record;
        st.gone = vec![None; n];
        st.now = old_state.now;
        st.kernels = Kernels::new(&plan);
        st.vals = vec![Value::Empty; plan.total_outputs() + st.kernels.extra()];
        st.kernels.lower_all(&plan, &mut st.vals);
        st.taints = vec![None; n];
        st.info = vec![
            NodeInfo {
                dirty: true,
                ..NodeInfo::default()
            };
            n
        ];
        st.keys = vec![Key::default(); n];
        st.stale = Bits::ones(n);
        st.tainted = 0;
        st.stale_count = n;
        st.retry.clear();
        let mut old_reader_hash: std::collections::HashMap<u32, Key> = Default::default();
        let mut old_of = vec![u32::MAX; n];
        if let Some(old) = &old_plan {
            for (i, &r) in self.readers.iter().enumerate() {
                if let Some(h) = self.reader_hash.get(i) {
                    old_reader_hash.insert(r, *h);
                }
            }
            let index: std::collections::HashMap<&str, usize> =
                (0..old.len()).map(|u| (old.id(u).as_str(), u)).collect();
            for (v, old_v) in old_of.iter_mut().enumerate() {
                let Some(&u) = index.get(plan.id(v).as_str()) else {
                    continue;
                };
                let k = plan.n_outputs(v);
                if old.n_outputs(u) != k
                    || !old_state.info.get(u).is_some_and(|i| i.has_value)
                    || old_state.gone.get(u).is_some_and(Option::is_some)
                    || old_state.taints.get(u).is_none_or(|t| t.is_some())
                {
                    continue;
                }
                *old_v = u as u32;
                let (no, oo) = (plan.output_offset(v), old.output_offset(u));
                st.vals[no..no + k].clone_from_slice(&old_state.vals[oo..oo + k]);
                st.keys[v] = old_state.keys.get(u).copied().unwrap_or_default();
                let same_def = old.definition_key(u) == plan.definition_key(v)
                    && plan.inputs(v).len() == old.inputs(u).len()
                    && plan
                        .inputs(v)
                        .iter()
                        .zip(old.inputs(u))
                        .all(|(a, b)| match (a, b) {
                            (
                                Source::Wire { node: x, port: p },
                                Source::Wire { node: y, port: q },
                            ) => p == q && plan.id(*x as usize) == old.id(*y as usize),
                            (Source::Wire { .. }, _) | (_, Source::Wire { .. }) => false,
                            _ => true,
                        });
                // Clean only if it was up to date before the edit, too.
                let was_current = !old_state.info[u].dirty && !old_state.stale.get(u);
                st.info[v] = NodeInfo {
                    changed_at: 0,
                    verified_at: 0,
                    pulled: old_state.info[u].pulled,
                    dirty: !(same_def && was_current),
                    has_value: true,
                };
            }
        }
        self.readers.clear();
        self.volatile.clear();
        for v in 0..n {
            match plan.op(v).spec().purity {
                Purity::Pure => {}
                Purity::Clock | Purity::UserInput => self.readers.push(v as u32),
                Purity::Stateful | Purity::SideEffect => self.volatile.push(v as u32),
            }
        }
        // A reader that kept its definition keeps what it read, so only a context change
        // since then re-runs it.
        self.reader_hash = self
            .readers
            .iter()
            .map(|&v| {
                let u = old_of[v as usize];
                match (u, self.state.info[v as usize].dirty) {
                    (u, false) if u != u32::MAX => {
                        old_reader_hash.get(&u).copied().unwrap_or_default()
                    }
                    _ => Key::default(),
                }
            })
            .collect();
        for (i, &v) in self.readers.iter().enumerate() {
            if self.reader_hash[i] == Key::default() {
                self.state.info[v as usize].dirty = true;
            }
        }
        if old_plan.is_none() {
            self.last_ctx = None;
        }
        self.schedules.clear();
        self.pending.clear();
        self.host.install(plan.clone());
        Ok(plan)
    }

    /// Mark `v` dirty and its downstream cone stale. When the most recently used schedule
    /// is self-contained and holds `v`, marking is deferred: every node of `v`'s cone comes
    /// after it in that schedule, so its next run checks them all from `v` on; any other
    /// request first marks the deferred cones ([`IncrementalEvaluator::flush`]).
    pub(super) fn invalidate(&mut self, plan: &Plan, v: usize) {
        self.state.info[v].dirty = true;
        if self.state.stale.get(v) {
            return;
        }
        if let Some(front) = self.schedules.front_mut()
            && front.self_contained
            && front.main_pos[v] != NONE
            && (self.pending.is_empty() || self.pending_roots == front.roots)
        {
            // A small cone is marked at once, so the next request visits only it; marking a
            // large one is cut short and deferred to a run that checks everything after it.
            let budget = front.main_len() / 8 + 64;
            if self.mark_limited(plan, v, budget) {
                return;
            }
            let Some(front) = self.schedules.front_mut() else {
                return;
            };
            if self.pending.is_empty() {
                self.pending_roots.clone_from(&front.roots);
            }
            front.first_stale = front.first_stale.min(front.main_pos[v]);
            self.pending.push(v as u32);
            return;
        }
        self.mark(plan, v);
    }

    /// Mark the cones of deferred invalidations stale.
    pub(super) fn flush(&mut self, plan: &Plan) {
        let pending = std::mem::take(&mut self.pending);
        for &v in &pending {
            self.mark(plan, v as usize);
        }
        for s in self.schedules.iter_mut() {
            s.first_stale = 0;
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Mark `v` and its downstream cone stale.
    pub(super) fn mark(&mut self, plan: &Plan, v: usize) {
        self.mark_limited(plan, v, usize::MAX);
    }

    /// Mark `v` and its downstream cone stale, stopping after `limit` nodes; returns whether
    /// the whole cone was marked.
    pub(super) fn mark_limited(&mut self, plan: &Plan, v: usize, limit: usize) -> bool {
        if self.state.stale.get(v) {
            return true;
        }
        let mut scheds = self.schedules.iter_mut();
        let mut front = scheds.next();
        for s in scheds {
            s.first_stale = 0;
        }
        let topo = plan.topology();
        let stale = &mut self.state.stale;
        // Without lazy blocks every path between main-block nodes runs through eager edges,
        // so each descendant of `v` comes after it: `v`'s position is the new first stale one.
        let exact = front.as_deref_mut().and_then(|s| {
            let p = s.main_pos[v];
            (p != NONE && s.blocks.len() == 1).then(|| {
                s.first_stale = s.first_stale.min(p);
            })
        });
        let mut track = if exact.is_some() { None } else { front };
        let mut newly = 0usize;
        self.mark_stack.clear();
        self.mark_stack.push(v as u32);
        let mut complete = true;
        'walk: while let Some(u) = self.mark_stack.pop() {
            // Follow single successors without the stack (chains).
            let mut u = u as usize;
            while !stale.get(u) {
                if newly >= limit {
                    complete = false;
                    break 'walk;
                }
                stale.set(u);
                newly += 1;
                if let Some(s) = track.as_deref_mut() {
                    let p = s.main_pos[u];
                    if p < s.first_stale {
                        s.first_stale = p;
                    }
                }
                let succ = topo.succs(u);
                let Some((&first, rest)) = succ.split_first() else {
                    break;
                };
                for &w in rest {
                    if !stale.get(w as usize) {
                        self.mark_stack.push(w);
                    }
                }
                u = first as usize;
            }
        }
        self.state.stale_count += newly;
        complete
    }

    /// Bring the plan and the stale marks up to `graph` and `ctx`.
    pub(super) fn sync(
        &mut self,
        graph: &Graph,
        ctx: &EvalContext,
    ) -> Result<(Arc<Plan>, bool), EvalError> {
        let rev = graph.revision();
        let mut planned = false;
        let plan = match self.host.plan_mut() {
            Some(p) if p.revision() == rev => p.clone(),
            Some(p) if p.revision().uid == rev.uid && p.revision().structure == rev.structure => {
                let edits = graph.data_edits_since(p.revision().data);
                match edits {
                    Some(e) if Arc::get_mut(p).is_some_and(|p| p.update_data(graph, &e)) => {
                        let p = p.clone();
                        for v in e {
                            self.state.kernels.lower(&p, v, &mut self.state.vals);
                            self.invalidate(&p, v);
                        }
                        p
                    }
                    _ => {
                        planned = true;
                        self.rebuild(graph)?
                    }
                }
            }
            _ => {
                planned = true;
                self.rebuild(graph)?
            }
        };
        if self.last_ctx.as_ref().is_none_or(|c| !c.same(ctx)) {
            for i in 0..self.readers.len() {
                let v = self.readers[i] as usize;
                let mut h = KeyHasher::new();
                plan.hash_context(v, ctx, &mut h);
                let k = h.finish_key();
                if k != self.reader_hash[i] || !self.state.info[v].has_value {
                    self.reader_hash[i] = k;
                    self.invalidate(&plan, v);
                }
            }
            self.last_ctx = Some(CtxPrint::of(ctx));
        }
        for i in 0..self.volatile.len() {
            let v = self.volatile[i] as usize;
            self.invalidate(&plan, v);
        }
        Ok((plan, planned))
    }
}
