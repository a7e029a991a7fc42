//! Released values brought back. With release on
//! ([`IncrementalEvaluator::with_release`]), a run lets go of an intermediate value once its
//! readers in the run are up to date; the node keeps the hash of what it held. Before a later
//! request runs, every released node that a stale node reads, or that is requested, is made
//! stale with its downstream cone (and so on up its released inputs), so it runs again
//! before anything reads it; the hash still tells whether its bits changed (an early cutoff,
//! so the kept nodes downstream are cleared without running).

use super::IncrementalEvaluator;
use crate::plan::Plan;

impl IncrementalEvaluator {
    /// Mark stale the released nodes the next run reads (see the module docs), each with
    /// its downstream cone, as any invalidation does (a stale node's cone is stale).
    pub(super) fn revive(&mut self, plan: &Plan, roots: &[(usize, usize)]) {
        if !self.state.gone.iter().any(Option::is_some) {
            return;
        }
        let topo = plan.topology();
        let gone =
            |st: &super::records::State, u: usize| st.gone.get(u).is_some_and(Option::is_some);
        // Only what this request runs reads: a stale node outside the roots' cone does not
        // run, so what it reads stays released.
        let mut in_cone = vec![false; plan.len()];
        let mut stack: Vec<u32> = roots.iter().map(|&(r, _)| r as u32).collect();
        while let Some(u) = stack.pop() {
            if std::mem::replace(&mut in_cone[u as usize], true) {
                continue;
            }
            stack.extend(topo.preds(u as usize).iter().copied());
        }
        let mut seen = vec![false; plan.len()];
        // Marking a revived node's cone stale can make a node stale that reads another
        // released value, which must then come back too: repeat until none is left.
        loop {
            let st = &self.state;
            let mut work: Vec<u32> = (0..plan.len())
                .filter(|&u| {
                    !seen[u]
                        && gone(st, u)
                        && (roots.iter().any(|&(r, _)| r == u)
                            || topo
                                .succs(u)
                                .iter()
                                .any(|&w| in_cone[w as usize] && st.stale.get(w as usize)))
                })
                .map(|u| u as u32)
                .collect();
            if work.is_empty() {
                return;
            }
            while let Some(u) = work.pop() {
                let u = u as usize;
                if std::mem::replace(&mut seen[u], true) {
                    continue;
                }
                self.mark(plan, u);
                for &p in topo.preds(u) {
                    if gone(&self.state, p as usize) && !seen[p as usize] {
                        work.push(p);
                    }
                }
            }
        }
    }
}
